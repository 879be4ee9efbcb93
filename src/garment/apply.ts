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
 * The print takes on what Photoshop gives a clipping group from its base: its fill (a piece drawn as an outline,
 * fill 0 and a stroke, is set to fill 100 %), its mode and its opacity (pieceLooks says so).
 */
import { renderDocument } from '../engine/composite/index.js';
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
  setLayer,
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
  /** The piece's fill opacity below 100 % that applying set to 100 % (pieceFill), else null. */
  readonly fill: number | null;
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
    // Without a repeat the print is the photo's own: a front panel shows the part of it that it lies under on
    // the garment (its centre anchor), the other half's part, not its partner's part mirrored.
    const ownPart = !ext.tileIsRepeat && pl.centres?.some((c) => c.layerId === piece.layerId) === true;
    const partner = piece.mirrorOf !== null && !ownPart ? byId.get(piece.mirrorOf) : undefined;
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
      const at = pl.centres?.find((c) => c.layerId === piece.layerId);
      // A knockout whitens the repeat (the layer just pushed) under the motif, and the motif is its own colours.
      const raster = motif.knockout
        ? knockOut(layers[0]!.raster, await motifRaster(ext, pl, rect, mirror !== null, 'normal', at))
        : await motifRaster(ext, pl, rect, mirror !== null, motif.blend, at);
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
      fill: result.fill,
    });
  }
  return { state, built };
}

function placeInGroup(
  state: DocState,
  piece: PieceInfo,
  layers: readonly { name: string; raster: Raster; blend: 'normal' | 'multiply' }[],
): {
  state: DocState;
  groupId: number;
  layers: { id: number; name: string; blend: string }[];
  fill: number | null;
} {
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
  // A clipping group fades with its base's fill (Photoshop's default "blend clipped layers as group"): a piece
  // drawn as an outline (fill 0, a stroke) would hide its print. The print takes the place of the piece's own
  // pixels, so they may show at full strength under it; its style stays, drawn above the print.
  const fill = pieceFill(layerById(state, piece.layerId));
  if (fill !== null) {
    const { fillOpacity: _fill, ...full } = layerById(state, piece.layerId);
    state = setLayer(state, full as Layer);
  }
  const out: { id: number; name: string; blend: string }[] = [];
  for (const l of layers) {
    const [id, next] = allocateId(state);
    const layer = { ...pixelLayer(id, l.name, l.raster), clipped: true, blend: l.blend };
    state = insertLayer(next, layer, groupId, childrenOf(next, groupId).length);
    out.push({ id, name: l.name, blend: l.blend });
  }
  return { state, groupId, layers: out, fill };
}

/** A piece layer's fill opacity when it is below 100 % (the print clipped to it would fade with it), else null. */
export function pieceFill(layer: Layer): number | null {
  const fill = layer.fillOpacity ?? 1;
  return fill < 1 ? fill : null;
}

/**
 * What a piece's fill below 100 % does to its print, before applying (`done` false: identify and preview) or
 * after (applyPlans set it to 100 %).
 */
export function fillSentence(piece: string, fill: number, done: boolean): string {
  const was = `裁片“${piece}”的填充不透明度为 ${Math.round(fill * 100)}%（${fill <= 0 ? '画布上只显示它的描边等图层样式，是轮廓线稿' : '它自己的像素淡去，图层样式不变'}）：剪贴在它上面的花样会随它的填充一起淡去（Photoshop 中同样如此）`;
  return done
    ? `${was}。套图时已把它的填充不透明度改为 100%：花样铺满裁片，盖住它自己的像素，描边等图层样式保留、仍画在花样之上；如要恢复原来的填充，用 undo 撤销本次套图`
    : `${was}。套图时会把它的填充不透明度改为 100%：花样铺满裁片，描边等图层样式保留、仍画在花样之上`;
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
  /** A clipped group, hiding the print by what its layers draw together. */
  readonly group: boolean;
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
    if (!layer.visible || !HIDING.has(drawnBlend(layer)) || ownOpacity(layer) < OPAQUE) continue;
    const share = hiddenShare(state, layer, piece, every);
    if (share >= MOST)
      out.push({
        layerId: layer.id,
        name: layerRef(state, layer.id),
        group: layer.kind === 'group',
        blend: layer.blend,
        opacity: ownOpacity(layer),
        share,
      });
  }
  return out;
}

/**
 * The mode a clipped layer is drawn in: a clipped group acts as one layer, its composite blended in its mode,
 * so pass-through is normal there (engine/composite/plan.ts isolates it; psd-tools composites it so).
 */
const drawnBlend = (layer: Layer): BlendMode =>
  layer.kind === 'group' && layer.blend === 'pass through' ? 'normal' : layer.blend;

const BLEND_LABEL: Partial<Record<BlendMode, string>> = {
  normal: '正常',
  dissolve: '溶解',
  'pass through': '穿透',
};

/** What a designer's layer over a piece's print does, and the calls that let the print show. */
export function coverSentence(piece: string, c: PrintCover): string {
  return `${c.group ? '图层组' : '图层'}“${c.name}”剪贴在裁片“${piece}”上、位于花样之上（${BLEND_LABEL[c.blend] ?? c.blend}模式，不透明度 ${Math.round(c.opacity * 100)}%），盖住了“${piece}”花样的 ${Math.round(c.share * 100)}%，画布上看不到这部分花样（图层保留原样，没有删除或移动）。如是明暗层，用 set_layer_blend_mode 把“${c.name}”改为 multiply（正片叠底），花样会透出并带上明暗；不需要它时用 set_layer_visible 隐藏它，或用 set_layer_opacity 调低它的不透明度；重新套图不能解决`;
}

/**
 * Modes that leave a print as it is over the white or transparent ground of a marker (they only darken what lies
 * under the piece): a piece in multiply, as designers set pieces to let a grid show through, prints true.
 */
const TRUE_ON_WHITE: ReadonlySet<BlendMode> = new Set<BlendMode>([
  'normal',
  'dissolve',
  'pass through',
  'multiply',
  'darken',
  'linear burn',
  'darker color',
]);

/** A piece layer, or a group holding it, that draws the piece's print otherwise than as it is (pieceLooks). */
export interface PieceLook {
  readonly layerId: number;
  readonly name: string;
  /** A group holding the piece, not the piece itself. */
  readonly group: boolean;
  /** Its mode, when that changes the print's colours. */
  readonly blend: BlendMode | null;
  /** Its opacity, when below 100 %: the print fades with it. */
  readonly opacity: number | null;
}

/**
 * The piece layer and the groups holding it whose mode or opacity the print takes on: a clipping group is drawn
 * in its base's mode and at its base's opacity (Photoshop: "the clipped layers assume the opacity and mode of
 * the base"), and a group's in turn apply to all it holds. A piece in screen mode shows no print on white.
 */
export function pieceLooks(state: DocState, pieceId: number): PieceLook[] {
  const out: PieceLook[] = [];
  for (let cur: number | null = pieceId; cur !== null; cur = parentOf(state, cur)) {
    const layer = layerById(state, cur);
    const blend = TRUE_ON_WHITE.has(layer.blend) ? null : layer.blend;
    const opacity = layer.opacity < 1 ? layer.opacity : null;
    if (blend !== null || opacity !== null)
      out.push({ layerId: cur, name: layerRef(state, cur), group: cur !== pieceId, blend, opacity });
  }
  return out;
}

const MODE_LABEL: Partial<Record<BlendMode, string>> = {
  screen: '滤色',
  overlay: '叠加',
  lighten: '变亮',
  'color dodge': '颜色减淡',
  'color burn': '颜色加深',
  'soft light': '柔光',
  'hard light': '强光',
  difference: '差值',
  exclusion: '排除',
  hue: '色相',
  saturation: '饱和度',
  color: '颜色',
  luminosity: '明度',
};

/** What a piece's (or its group's) mode and opacity do to its print, and the calls that print it true. */
export function lookSentence(piece: string, l: PieceLook): string {
  const who = l.group ? `裁片“${piece}”所在的图层组“${l.name}”` : `裁片“${piece}”`;
  const what = [
    ...(l.blend ? [`是${MODE_LABEL[l.blend] ?? l.blend}（${l.blend}）模式`] : []),
    ...(l.opacity !== null ? [`不透明度为 ${Math.round(l.opacity * 100)}%`] : []),
  ].join('、');
  const fix = [
    ...(l.blend ? [`用 set_layer_blend_mode 把“${l.name}”改为 normal`] : []),
    ...(l.opacity !== null ? [`用 set_layer_opacity 把“${l.name}”调回 100`] : []),
  ].join('，');
  return `${who}${what}：套在裁片上的花样随它${l.blend ? '以该模式与下方混合' : ''}${l.blend && l.opacity !== null ? '并' : ''}${l.opacity !== null ? '一起淡去' : ''}（Photoshop 中同样如此），画布上的花样与照片颜色不同${l.blend === 'screen' ? '（白色背景上的滤色完全看不到花样）' : ''}。如无特别用意，${fix}；重新套图不能解决`;
}

/** The share of the piece's pixels (every `every`-th in x and y) under a pixel of `layer` at least OPAQUE. */
function hiddenShare(
  state: DocState,
  layer: Layer,
  piece: Pick<PieceShape, 'bounds' | 'mask'>,
  every: number,
): number {
  // A clipped group draws its children's composite (on transparency, whatever their modes) as one layer.
  const raster =
    layer.kind === 'fill' || layer.kind === 'adjustment'
      ? null
      : layer.kind === 'group'
        ? renderDocument({ ...state, root: layer.children }, piece.bounds)
        : layer.raster;
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
