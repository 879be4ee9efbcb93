/**
 * What a session holds right now, as plain JSON: the open documents, the active one's layer tree, history and
 * layer selection, and the garment state. The studio draws its panes from it and the agent loop summarises it
 * for the model; neither changes anything.
 */
import { PART_LABELS } from '../garment/types.js';
import { layerTree } from '../tools/basics.js';
import { documentSummary } from '../tools/describe.js';
import type { Session } from './session.js';

export interface HistorySnapshot {
  /** Chinese step labels, oldest first; `labels[0]` is the opening step. */
  readonly labels: readonly string[];
  /** The step the document is at; later steps can be redone. */
  readonly index: number;
}

export interface DocumentSnapshot {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly resolution: number;
  readonly mode: 'RGB' | 'CMYK';
  readonly path: string | null;
  readonly unsaved_changes: boolean;
  readonly active: boolean;
}

export interface ActiveDocumentSnapshot extends DocumentSnapshot {
  readonly active_layer: string | null;
  /** Top of the stack first, groups with `children`, as `get_layer_structure` reports it. */
  readonly layers: readonly unknown[];
  readonly selected_layers: readonly string[];
  readonly has_selection: boolean;
  readonly history: HistorySnapshot;
}

export interface GarmentSnapshot {
  readonly photo: string | null;
  /** The pieces `identify_pieces` found in the active analysis, with their proposed type and colour. */
  readonly pieces: readonly {
    readonly name: string;
    readonly part: string;
    readonly part_label: string;
    readonly type: string | null;
    readonly color: string | null;
  }[];
  readonly previewed: boolean;
  readonly applied: boolean;
}

export interface SessionSnapshot {
  readonly documents: readonly DocumentSnapshot[];
  readonly active: ActiveDocumentSnapshot | null;
  readonly garment: GarmentSnapshot;
}

export function snapshotOf(session: Session): Promise<SessionSnapshot> {
  return session.inspect((tx) => {
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
        layers: layerTree(state),
        selected_layers: state.selected.flatMap((id) => {
          const name = state.layers.get(id)?.name;
          return name === undefined ? [] : [name];
        }),
        has_selection: state.selection !== null,
        history: { labels: history.labels, index: history.index },
      };
    }
    const memory = session.garment;
    const analysis = memory.analysis;
    const proposals = new Map((analysis?.proposals ?? []).map((p) => [p.name, p]));
    const garment: GarmentSnapshot = {
      photo: session.garmentPhoto,
      pieces: (analysis?.pieces ?? []).map((p) => ({
        name: p.name,
        part: p.part,
        part_label: PART_LABELS[p.part],
        type: proposals.get(p.name)?.type ?? null,
        color: proposals.get(p.name)?.color ?? null,
      })),
      previewed: memory.preview !== null,
      applied: memory.applied !== null,
    };
    return { documents, active, garment };
  });
}
