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
import type { DocState, Raster, Rect, RGB } from '../engine/model.js';
import { alphaBounds } from '../engine/raster.js';
import {
  allocateId,
  childrenOf,
  insertLayer,
  layerById,
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
import type { Extraction, PieceInfo, PieceType, Placement } from './types.js';
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

export function unionBounds(pieces: readonly { bounds: Rect }[]): Rect {
  const x0 = Math.min(...pieces.map((p) => p.bounds.x));
  const y0 = Math.min(...pieces.map((p) => p.bounds.y));
  const x1 = Math.max(...pieces.map((p) => p.bounds.x + p.bounds.w));
  const y1 = Math.max(...pieces.map((p) => p.bounds.y + p.bounds.h));
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}
