/**
 * Phase 2 (and the preview, which runs the same code on a copy): per piece, a group `<piece> 花样` holding the
 * piece layer itself as the clipping base and the editable print layers clipped to it —
 *   solid          `<piece> 底色` flat colour
 *   fill_pattern   `<piece> 满印` tiled repeat
 *   theme_pattern  `<piece> 底色` flat colour, `<piece> 主题图案` motif on white, multiply
 *   mixed_pattern  `<piece> 满印` tiled repeat, `<piece> 主题图案` motif on white, multiply
 * — except that a motif multiply would lose (lighter than the base under it) is cut out and drawn in normal
 * mode instead (render.ts motifMode), and a motif covering a repeat's darker elements has the repeat knocked
 * out (white) under it, so they do not show through; it stays its own editable layer either way.
 * A clipping group inside an ordinary group is the structure every Photoshop version opens as is; the piece
 * stays the live outline (edit its shape and the print follows), and no mask copy of it has to be kept in step.
 */
import { fail } from '../engine/errors.js';
import { groupLayer, pixelLayer } from '../engine/factory.js';
import type { BlendMode, DocState, Layer, Raster, Rect, RGB } from '../engine/model.js';
import { alphaBounds, maskAt } from '../engine/raster.js';
import {
  allocateId,
  childrenOf,
  insertLayer,
  layerById,
  layerRef,
  moveLayer,
  parentOf,
  removeLayer,
} from '../engine/tree.js';
import { isPieceKind } from './builtin/pieces.js';
import {
  fillRaster,
  flatRaster,
  knockOut,
  type Mirror,
  type MotifMode,
  motifMode,
  motifRaster,
} from './render.js';
import type { Extraction, PieceInfo, PieceShape, PieceType, Placement } from './types.js';
import { frameOf, onMarker, uprightRect } from './upright.js';

export interface PiecePlan {
  readonly piece: PieceInfo;
  readonly type: PieceType;
  readonly color: RGB | null;
}

export interface BuiltPiece {
  readonly name: string;
  readonly layerId: number;
  readonly type: PieceType;
  readonly groupId: number;
  readonly layers: readonly { id: number; name: string; blend: string }[];
  /** How the motif layer is drawn, for theme and mixed pieces. */
  readonly motif: MotifMode | null;
}

export const GROUP_SUFFIX = ' 花样';

/** Builds every plan into `state`; pure (returns a new state). */
export async function applyPlans(
  state: DocState,
  ext: Extraction,
  pl: Placement,
  plans: readonly PiecePlan[],
  all: readonly PieceInfo[],
): Promise<{ state: DocState; built: BuiltPiece[] }> {
  const built: BuiltPiece[] = [];
  const byId = new Map(all.map((p) => [p.layerId, p]));
  for (const plan of plans) {
    const { piece, type } = plan;
    const layer = layerById(state, piece.layerId);
    if (!isPieceKind(layer)) fail('internal', `裁片“${piece.name}”不是像素图层或智能对象`);
    // Drawn as the piece stands on the garment, then turned the way the marker lays it (upright.ts).
    const onLayer = alphaBounds(layer.raster);
    const frame = frameOf(piece);
    const rect = uprightRect(frame, onLayer);
    const partner = piece.mirrorOf !== null ? byId.get(piece.mirrorOf) : undefined;
    const partnerLayer = partner ? state.layers.get(partner.layerId) : undefined;
    const mirror: Mirror | null =
      partner && partnerLayer && isPieceKind(partnerLayer)
        ? { from: uprightRect(frameOf(partner), alphaBounds(partnerLayer.raster)), to: rect }
        : null;
    const layers: { name: string; raster: Raster; blend: 'normal' | 'multiply' }[] = [];
    let motif: MotifMode | null = null;
    if (type === 'solid' || type === 'theme_pattern') {
      layers.push({ name: `${piece.name} 底色`, raster: flatRaster(rect, plan.color!), blend: 'normal' });
    } else {
      // A mirrored piece samples its partner's coordinates, so it takes its partner's seam shift.
      const sampled = mirror ? partner!.layerId : piece.layerId;
      layers.push({
        name: `${piece.name} 满印`,
        raster: fillRaster(ext, pl, rect, mirror, sampled),
        blend: 'normal',
      });
    }
    if (type === 'theme_pattern' || type === 'mixed_pattern') {
      if (!ext.motif) {
        fail('invalid_state', `照片中没有检测到主题图案，裁片“${piece.name}”不能使用 ${type}`, {
          hint: '改用 solid 或 fill_pattern；或上传带定位图案的服装照片',
          details: { piece: piece.name, type },
        });
      }
      motif = motifMode(ext, type === 'theme_pattern' ? plan.color : null);
      // A knockout whitens the repeat (the layer just pushed) under the motif, and the motif is its own colours.
      const raster = motif.knockout
        ? knockOut(layers[0]!.raster, await motifRaster(ext, pl, rect, mirror !== null, 'normal'))
        : await motifRaster(ext, pl, rect, mirror !== null, motif.blend);
      layers.push({ name: `${piece.name} 主题图案`, raster, blend: motif.blend });
    }
    const result = placeInGroup(
      state,
      piece,
      layers.map((l) => ({ ...l, raster: onMarker(frame, l.raster, onLayer) })),
    );
    state = result.state;
    built.push({
      name: piece.name,
      layerId: piece.layerId,
      type,
      groupId: result.groupId,
      layers: result.layers,
      motif,
    });
  }
  return { state, built };
}

function placeInGroup(
  state: DocState,
  piece: PieceInfo,
  layers: readonly { name: string; raster: Raster; blend: 'normal' | 'multiply' }[],
): { state: DocState; groupId: number; layers: { id: number; name: string; blend: string }[] } {
  const groupName = `${piece.name}${GROUP_SUFFIX}`;
  const parent = parentOf(state, piece.layerId);
  let groupId: number;
  if (parent !== null && layerById(state, parent).name === groupName) {
    // Applied before: keep the group and the piece, replace the print layers.
    groupId = parent;
    for (const id of childrenOf(state, groupId)) if (id !== piece.layerId) state = removeLayer(state, id);
    state = moveLayer(state, piece.layerId, groupId, 0);
  } else {
    const index = childrenOf(state, parent).indexOf(piece.layerId);
    const [id, next] = allocateId(state);
    groupId = id;
    state = insertLayer(next, groupLayer(id, groupName), parent, index + 1);
    state = moveLayer(state, piece.layerId, groupId, 0);
  }
  const out: { id: number; name: string; blend: string }[] = [];
  for (const l of layers) {
    const [id, next] = allocateId(state);
    const layer = { ...pixelLayer(id, l.name, l.raster), clipped: true, blend: l.blend };
    state = insertLayer(next, layer, groupId, childrenOf(next, groupId).length);
    out.push({ id, name: l.name, blend: l.blend });
  }
  return { state, groupId, layers: out };
}

/**
 * The modes in which a layer's opaque pixels take the place of what lies under them. In the others (multiply,
 * screen, overlay, soft light…) the print under a shading layer still shows, shaded, as designers mean it to.
 */
const HIDING: ReadonlySet<BlendMode> = new Set<BlendMode>(['normal', 'dissolve']);

/** How opaque a layer's own pixels are drawn: its opacity and its fill (its effects, a stroke, are not its pixels). */
function ownOpacity(layer: Layer): number {
  return layer.opacity * (layer.fillOpacity ?? 1);
}

/** A pixel this opaque (its alpha, mask and opacity together) lets less than a quarter of the print through. */
const OPAQUE = 0.75;

/** A clipped layer hiding the print over this share of a piece or more: the print does not show. */
const MOST = 0.5;

/** A designer's layer clipped to a piece above its print, hiding most of it (printCovers). */
export interface PrintCover {
  readonly layerId: number;
  /** The name a call reaches the layer by (engine/tree.ts layerRef). */
  readonly name: string;
  readonly blend: BlendMode;
  readonly opacity: number;
  /** The share of the piece it hides, 0..1. */
  readonly share: number;
}

/**
 * The visible layers clipped to the piece above its print that hide most of it. The print goes directly above
 * the piece as Photoshop puts a fill in a clipping group, and the designer's own clipped layers stay above it:
 * after applyPlans they clip to the piece's group `<piece> 花样`, before it to the piece itself. A shading layer
 * in multiply shades the print; an opaque one in normal mode covers it, in Photoshop as here.
 */
export function printCovers(
  state: DocState,
  piece: Pick<PieceShape, 'layerId' | 'name' | 'bounds' | 'mask'>,
): PrintCover[] {
  if (!state.layers.has(piece.layerId)) return [];
  const parent = parentOf(state, piece.layerId);
  const base =
    parent !== null && layerById(state, parent).name === `${piece.name}${GROUP_SUFFIX}`
      ? parent
      : piece.layerId;
  const siblings = childrenOf(state, parentOf(state, base));
  const out: PrintCover[] = [];
  // Sampled on a grid of about 10⁵ points: the share is a property of the piece, not of its pixel count.
  const every = Math.max(1, Math.floor(Math.sqrt((piece.bounds.w * piece.bounds.h) / 100_000)));
  for (let i = siblings.indexOf(base) + 1; i < siblings.length; i++) {
    const layer = layerById(state, siblings[i]!);
    if (!layer.clipped) break;
    if (!layer.visible || !HIDING.has(layer.blend) || ownOpacity(layer) < OPAQUE) continue;
    const share = hiddenShare(layer, piece, every);
    if (share >= MOST)
      out.push({
        layerId: layer.id,
        name: layerRef(state, layer.id),
        blend: layer.blend,
        opacity: ownOpacity(layer),
        share,
      });
  }
  return out;
}

const BLEND_LABEL: Partial<Record<BlendMode, string>> = { normal: '正常', dissolve: '溶解' };

/** What a designer's layer over a piece's print does, and the calls that let the print show. */
export function coverSentence(piece: string, c: PrintCover): string {
  return `图层“${c.name}”剪贴在裁片“${piece}”上、位于花样之上（${BLEND_LABEL[c.blend] ?? c.blend}模式，不透明度 ${Math.round(c.opacity * 100)}%），盖住了“${piece}”花样的 ${Math.round(c.share * 100)}%，画布上看不到这部分花样（图层保留原样，没有删除或移动）。如是明暗层，用 set_layer_blend_mode 把“${c.name}”改为 multiply（正片叠底），花样会透出并带上明暗；不需要它时用 set_layer_visible 隐藏它，或用 set_layer_opacity 调低它的不透明度；重新套图不能解决`;
}

/** The share of the piece's pixels (every `every`-th in x and y) under a pixel of `layer` at least OPAQUE. */
function hiddenShare(layer: Layer, piece: Pick<PieceShape, 'bounds' | 'mask'>, every: number): number {
  // A clipped group is not looked into: what it draws depends on its children's modes.
  if (layer.kind === 'group') return 0;
  const raster = layer.kind === 'fill' ? null : layer.raster;
  const mask = layer.mask?.enabled ? layer.mask : null;
  const least = OPAQUE * 255 * 255;
  const { bounds: b, mask: inside } = piece;
  let hidden = 0;
  let total = 0;
  for (let y = every >> 1; y < b.h; y += every) {
    for (let x = every >> 1; x < b.w; x += every) {
      if (!inside[y * b.w + x]) continue;
      total++;
      const X = b.x + x;
      const Y = b.y + y;
      let alpha = 255;
      if (raster) {
        const lx = X - raster.x;
        const ly = Y - raster.y;
        alpha =
          lx >= 0 && ly >= 0 && lx < raster.w && ly < raster.h
            ? raster.data[(ly * raster.w + lx) * 4 + 3]!
            : 0;
      }
      if (alpha * (mask ? maskAt(mask, X, Y) : 255) * ownOpacity(layer) >= least) hidden++;
    }
  }
  return total ? hidden / total : 0;
}

export function unionBounds(pieces: readonly { bounds: Rect }[]): Rect {
  const x0 = Math.min(...pieces.map((p) => p.bounds.x));
  const y0 = Math.min(...pieces.map((p) => p.bounds.y));
  const x1 = Math.max(...pieces.map((p) => p.bounds.x + p.bounds.w));
  const y1 = Math.max(...pieces.map((p) => p.bounds.y + p.bounds.h));
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}
