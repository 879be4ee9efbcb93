/**
 * What a session holds right now, as plain JSON: the open documents, the active one's layer tree, history and
 * layer selection, and the garment state. The studio draws its panes from it and the agent loop summarises it
 * for the model; neither changes anything.
 */

import { channelResourcesOf } from '../engine/io/psd-carry.js';
import type { DocState, FauxStyles, TextSpec } from '../engine/model.js';
import { rgbToHex } from '../engine/raster.js';
import { selectionBounds } from '../engine/selection.js';
import { selectionOutline } from '../engine/selection-outline.js';
import { spotColourOf } from '../engine/spot-display.js';
import { fontShownAs } from '../engine/text.js';
import { settingWords, sharedSettings } from '../engine/text-character.js';
import { fauxWords, sharedFaux } from '../engine/text-decoration.js';
import { lineAlign, paragraphOf } from '../engine/text-paragraph.js';
import { runList } from '../engine/text-runs.js';
import { spacingOf } from '../engine/text-spacing.js';
import { alternativesOf, PART_LABELS, PIECE_TYPES } from '../garment/types.js';
import { typeUnavailable } from '../garment/types-available.js';
import { layerTree } from '../tools/basics.js';
import { documentSummary, type EffectName } from '../tools/describe.js';
import type { Session } from './session.js';
import type {
  ActiveDocumentSnapshot,
  ChannelSnapshot,
  CharacterWords,
  DocumentSnapshot,
  FauxName,
  GarmentSnapshot,
  LayerNode,
  SelectionSnapshot,
  SessionSnapshot,
  TextNode,
} from './snapshot-types.js';
import { maskThumbnailKey, thumbnailKey } from './thumbnail.js';

export type * from './snapshot-types.js';

/** Whether two types are the same: snapshot-types.ts imports nothing, so the studio's copies are checked here. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The effect names the layers pane labels are the ones describe.ts reports. */
export const EFFECT_NAMES_AGREE: Same<EffectName, NonNullable<LayerNode['effects']>[number]> = true;

function textNode(t: TextSpec): TextNode {
  // The editor aligns what is typed as point text's lines are (a box's justify-* by its last line's).
  const align = lineAlign(t.justification, false, true);
  const { leading, tracking } = spacingOf(t);
  const { indent, space } = paragraphOf(t);
  // The faux styles all its characters share (the panel's buttons show them pressed).
  const runs = runList(t);
  const fauxNames = (s: FauxStyles) => Object.keys(fauxWords(s)) as FauxName[];
  const faux = fauxNames(sharedFaux(runs));
  const { leading: _l, tracking: _t, ...character } = settingWords(sharedSettings(runs)) as CharacterWords;
  const styles =
    runs.length > 1
      ? runs.map((r) => {
          const names = fauxNames(r);
          const words = settingWords(r) as CharacterWords;
          return {
            length: r.length,
            font: fontShownAs(r.font),
            size: r.size,
            color: rgbToHex(r.color),
            ...(names.length > 0 ? { faux: names } : {}),
            ...(Object.keys(words).length > 0 ? { character: words } : {}),
          };
        })
      : undefined;
  return {
    content: t.content,
    size: t.size,
    x: t.x,
    y: t.y,
    color: rgbToHex(t.color),
    font: fontShownAs(t.font),
    upright: !t.transform,
    ...(t.orientation === 'vertical' ? { vertical: true as const } : {}),
    ...(t.warp ? { warp: { style: t.warp.style, bend: t.warp.bend } } : {}),
    ...(align === 'center' || align === 'right' ? { align } : {}),
    ...(t.box ? { box: { width: t.box[2] - t.box[0], height: t.box[3] - t.box[1] } } : {}),
    ...(indent ? { indent } : {}),
    ...(space ? { space } : {}),
    ...(leading !== undefined ? { leading } : {}),
    ...(tracking !== undefined ? { tracking } : {}),
    ...(faux.length > 0 ? { faux } : {}),
    ...(Object.keys(character).length > 0 ? { character } : {}),
    ...(styles ? { styles } : {}),
  };
}

/** The tree with each layer's thumbnail key, for the layers that have a thumbnail (thumbnail.ts). */
function withThumbnails(nodes: readonly LayerNode[], state: DocState): LayerNode[] {
  return nodes.map((node) => {
    const layer = state.layers.get(node.id);
    const thumbnail = layer && thumbnailKey(layer, state.width, state.height);
    const maskThumbnail = layer && maskThumbnailKey(layer, state.width, state.height);
    const children = node.children && withThumbnails(node.children, state);
    return {
      ...node,
      ...(thumbnail ? { thumbnail } : {}),
      ...(maskThumbnail ? { mask_thumbnail: maskThumbnail } : {}),
      ...(layer?.kind === 'text' ? { text: textNode(layer.text) } : {}),
      ...(children ? { children } : {}),
    };
  });
}

/** Where the pixel selection is, with its edge for the studio's marching ants; null without one. */
function selectionSnapshot(state: DocState): SelectionSnapshot | null {
  const m = state.selection;
  if (!m) return null;
  const { x, y, w, h } = selectionBounds(m, state.width, state.height);
  return { bounds: { x, y, w, h }, outline: selectionOutline(m, state.width, state.height) };
}

function channelsOf(state: DocState): ChannelSnapshot[] {
  const alternates = channelResourcesOf(state);
  return (state.channels ?? []).map((c) => {
    const ink = c.kind === 'spot' ? spotColourOf(c, alternates) : undefined;
    return { name: c.name, kind: c.kind, color: ink ? rgbToHex(ink) : null };
  });
}

export function snapshotOf(session: Session): Promise<SessionSnapshot> {
  return session.inspectSettled('state', (tx) => {
    const activeId = tx.hasActiveDocument() ? tx.activeDocument().id : null;
    const documents = tx.documents().map((doc) => {
      const s = documentSummary(doc);
      return {
        name: s.name,
        width: s.width,
        height: s.height,
        resolution: s.resolution,
        mode: s.mode,
        path: s.path,
        unsaved_changes: s.unsaved_changes,
        active: doc.id === activeId,
      } satisfies DocumentSnapshot;
    });
    let active: ActiveDocumentSnapshot | null = null;
    if (activeId !== null) {
      const doc = tx.activeDocument();
      const history = tx.historyOf(doc.id);
      const state = doc.state;
      active = {
        ...documents.find((d) => d.active)!,
        active_layer: state.active !== null ? (state.layers.get(state.active)?.name ?? null) : null,
        active_layer_id: state.active !== null && state.layers.has(state.active) ? state.active : null,
        layers: withThumbnails(layerTree(state) as LayerNode[], state),
        selected_layers: state.selected.flatMap((id) => {
          const name = state.layers.get(id)?.name;
          return name === undefined ? [] : [name];
        }),
        selected_layer_ids: state.selected.filter((id) => state.layers.has(id)),
        has_selection: state.selection !== null,
        foreground: rgbToHex(state.foreground),
        selection: selectionSnapshot(state),
        history: { labels: history.labels, index: history.index },
        ...(state.channels?.length ? { channels: channelsOf(state) } : {}),
      };
    }
    const memory = session.garment;
    const analysis = memory.analysis;
    const proposals = new Map((analysis?.proposals ?? []).map((p) => [p.name, p]));
    const garment: GarmentSnapshot = {
      photo: session.garmentPhoto,
      document: tx.documents().find((d) => d.id === analysis?.docId)?.name ?? null,
      pieces: (analysis?.pieces ?? []).map((p) => ({
        name: p.name,
        part: p.part,
        part_label: PART_LABELS[p.part],
        confidence: Math.round(p.confidence * 100) / 100,
        alternatives: (p.doubt ? alternativesOf(p.doubt) : []).map((a) => ({
          part_label: PART_LABELS[a.part],
          confidence: Math.round(a.confidence * 100) / 100,
        })),
        confirmed: p.decidedBy === 'user',
        turn: p.grain?.turn ?? 0,
        turn_by: p.grain?.by ?? null,
        tilt: Math.round((p.tilt ?? 0) * 10) / 10,
        bounds: { x: p.bounds.x, y: p.bounds.y, w: p.bounds.w, h: p.bounds.h },
        tilt_by: p.tiltBy ?? (p.tilt ? 'shape' : null),
        size: p.size ?? null,
        type: proposals.get(p.name)?.type ?? null,
        color: proposals.get(p.name)?.color ?? null,
      })),
      previewed: memory.preview !== null,
      preview_applied: memory.preview?.applied === true,
      applied: memory.applied !== null,
      unavailable_types: PIECE_TYPES.flatMap((type) => {
        const reason = memory.extraction && typeUnavailable(memory.extraction, type);
        return reason ? [{ type, reason }] : [];
      }),
    };
    return { documents, active, garment };
  });
}
