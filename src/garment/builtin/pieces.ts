/**
 * Which layers are cut pieces, their geometry, and which garment part each one is. Evidence in order of
 * strength (research/garment.md §2.2): the layer name (Chinese and English keywords); copies of one cut piece
 * (the same outline turned by quarter turns or mirrored — a copy of a named layer is that part, and the copies
 * are paired for mirrored prints); then a model learned from drafted garments (piece-model.ts) over
 * orientation-invariant shape features (piece-features.ts), the nearest training outlines and the best-matched
 * training garments (each piece taking its counterpart's part), and a garment-level assignment (one front and one
 * back, sleeves and hood halves in pairs) that says which pieces it is unsure of. Measured leave one design out
 * by test/garment/piece-model.test.ts.
 */
import type { DocState, Layer, LayerMask, PixelLayer, Rect, SmartLayer } from '../../engine/model.js';
import { intersectRect, isEmptyRect, maskAt } from '../../engine/raster.js';
import { isShown, layerById, layerRef, parentOf, topDown } from '../../engine/tree.js';
import { type DecidedBy, PART_LABELS, type Part, type PieceInfo, type PieceShape } from '../types.js';
import { LAY_DOWNS, type LayDown, type MaskProxy, proxyOf, shapeFeatures } from './piece-features.js';
import {
  assign,
  BODY,
  frontness,
  frontnessVector,
  GARMENTS,
  garmentVectors,
  LABELS,
  type Label,
  mainPanels,
  NEIGHBOURS,
  type PieceModel,
  pieceProbabilities,
  strongestEvidence,
  type TypeInput,
} from './piece-model.js';
import { PIECE_MODEL } from './piece-model-data.js';
import { tiltOf } from './piece-tilt.js';
import { TRACE_SIDE, type TracePiece, tracedOn, tracePiece } from './piece-trace.js';

/**
 * Layers that are pieces: pixel layers and smart objects (a piece placed with place_image is one; its rendered
 * raster is its shape), visible, not the background, not clipped (fills are), with real transparency.
 */
export function collectPieces(state: DocState): PieceShape[] {
  const out: PieceShape[] = [];
  for (const layer of candidateLayers(state)) {
    const shape = pieceShapeOf(state, layer);
    if (shape) out.push(shape);
  }
  // Layers that share a name are called as every tool calls them: `图层 1#2`, the second from the top
  // (engine/tree.ts layerRef). Without it a call naming `图层 1` would reach one of them only, and the other
  // could be neither confirmed nor printed.
  return out.map((s) => ({ ...s, name: layerRef(state, s.layerId) })).reverse(); // bottom → top, stable
}

/** A candidate layer's shape (candidateLayers) when it is a piece, else null. */
function pieceShapeOf(state: DocState, layer: PieceLayer): PieceShape | null {
  const shape = measure(layer, groupMasksOf(state, layer.id));
  if (!shape) return null;
  // A layer covering (almost) the whole canvas is a backdrop, not a piece.
  if (shape.area >= state.width * state.height * 0.9) return null;
  // Nor is one lying wholly outside the canvas: nothing of it is on the marker (identify_pieces says so).
  if (outsideCanvas(state, shape.bounds)) return null;
  return shape;
}

/** isPieceNow's answers, by the raster and what else it was measured with. */
const pieceVerdicts = new WeakMap<
  PieceLayer['raster'],
  { mask: LayerMask | undefined; groupMasks: LayerMask[]; width: number; height: number; piece: boolean }
>();

/**
 * Whether a candidate layer (candidateLayers) is a piece as collectPieces would measure it now. The garment
 * calls ask it of every candidate the analysis has no piece for, on every call: the answer is kept while the
 * layer holds the same raster and masks on a canvas of the same size.
 */
export function isPieceNow(state: DocState, layer: PieceLayer): boolean {
  const groupMasks = groupMasksOf(state, layer.id);
  const kept = pieceVerdicts.get(layer.raster);
  if (
    kept &&
    kept.mask === layer.mask &&
    sameMasks(kept.groupMasks, groupMasks) &&
    kept.width === state.width &&
    kept.height === state.height
  )
    return kept.piece;
  const piece = pieceShapeOf(state, layer) !== null;
  pieceVerdicts.set(layer.raster, {
    mask: layer.mask,
    groupMasks,
    width: state.width,
    height: state.height,
    piece,
  });
  return piece;
}

/**
 * The layers that may be pieces, top first, before their pixels are measured: pixel layers and smart objects
 * with pixels, shown and not at 0 % opacity, neither the background nor clipped. An identification remembers
 * which it looked at, to tell a layer added since from one that was no piece then (isPieceNow).
 */
export function candidateLayers(state: DocState): PieceLayer[] {
  const out: PieceLayer[] = [];
  for (const { layer } of topDown(state)) {
    if (!isPieceKind(layer)) continue;
    if ((layer.kind === 'pixel' && layer.background) || inClipped(state, layer.id)) continue;
    // An empty layer (just made, nothing on it yet) is no piece.
    if (
      layer.raster.w > 0 &&
      layer.raster.h > 0 &&
      isShown(state, layer.id) &&
      clearLayer(state, layer.id) === null
    )
      out.push(layer);
  }
  return out;
}

/**
 * Whether layer `id` is clipped, or lies in a clipped group: it then shows only inside the layer its clipping
 * group rests on (a shading or logo layer the designer grouped and clipped to a piece), so it is no piece.
 */
function inClipped(state: DocState, id: number): boolean {
  for (let cur: number | null = id; cur !== null; cur = parentOf(state, cur))
    if (layerById(state, cur).clipped) return true;
  return false;
}

/**
 * The layer that makes layer `id` transparent, itself or a group holding it, or null: one at 0 % opacity, or
 * the layer itself at 0 % fill (填充) with no layer style. Nothing of such a layer shows (nor of a print clipped
 * to it), so it is no piece, as a hidden layer is not. A layer at fill 0 with a stroke is an outline drawing of
 * its pixels' shape: a piece (apply gives it its fill back, apply.ts).
 */
export function clearLayer(state: DocState, id: number): number | null {
  for (let cur: number | null = id; cur !== null; cur = parentOf(state, cur))
    if (layerById(state, cur).opacity <= 0) return cur;
  const layer = layerById(state, id);
  return (layer.fillOpacity ?? 1) <= 0 && !styled(layer) ? id : null;
}

/** Whether a layer style of `layer` draws something (effects are drawn at its opacity, not its fill). */
function styled(layer: Layer): boolean {
  const { stroke, dropShadow } = layer.effects ?? {};
  return (!!stroke && stroke.size > 0 && stroke.opacity > 0) || (!!dropShadow && dropShadow.opacity > 0);
}

/** Whether `r` (document pixels) has no pixel on the canvas. */
export function outsideCanvas(state: DocState, r: Rect): boolean {
  return isEmptyRect(intersectRect(r, { x: 0, y: 0, w: state.width, h: state.height }));
}

export type PieceLayer = PixelLayer | SmartLayer;

export function isPieceKind(layer: { kind: string }): layer is PieceLayer {
  return layer.kind === 'pixel' || layer.kind === 'smart';
}

/** A shape's proxy (piece-features.ts), computed once per mask. */
const proxies = new WeakMap<Uint8Array, MaskProxy>();

/**
 * The enabled masks of the groups holding layer `id`, innermost first. A group's mask hides what it covers in
 * every layer of the group, as the layer's own mask does.
 */
export function groupMasksOf(state: DocState, id: number): LayerMask[] {
  const out: LayerMask[] = [];
  for (let g = parentOf(state, id); g !== null; g = parentOf(state, g)) {
    const m = layerById(state, g).mask;
    if (m?.enabled) out.push(m);
  }
  return out;
}

/** Which masks shape a piece, as a reason names them. */
const masksOf = (s: PieceShape) =>
  !s.groupMasks?.length
    ? '图层蒙版'
    : s.layerMask?.enabled
      ? '图层蒙版和所在图层组的蒙版'
      : '所在图层组的蒙版';

/** Whether two lists of group masks (PieceShape.groupMasks, absent for none) are the same masks. */
export function sameMasks(a: readonly LayerMask[] = [], b: readonly LayerMask[] = []): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}

/** Whether the groups holding a piece's layer have the masks they had when it was measured. */
export const sameGroupMasks = (state: DocState, p: PieceShape): boolean =>
  sameMasks(groupMasksOf(state, p.layerId), p.groupMasks);

export function measure(layer: PieceLayer, groupMasks: readonly LayerMask[] = []): PieceShape | null {
  // A layer mask hides what it covers, as in Photoshop: a print rectangle masked to a piece is that piece.
  const shape = measureAlpha(layer.id, layer.name, layer.raster, layer.mask ?? null, [
    ...(layer.mask?.enabled ? [layer.mask] : []),
    ...groupMasks,
  ]);
  return shape && groupMasks.length ? { ...shape, groupMasks } : shape;
}

const isLittleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A layer's opaque pixels (alpha ≥ 128 after its masks), cropped to their bounds, with their area and sums. */
interface Opaque {
  readonly mask: Uint8Array;
  readonly x0: number;
  readonly y0: number;
  readonly w: number;
  readonly h: number;
  readonly area: number;
  readonly sx: number;
  readonly sy: number;
}

/**
 * Without masks, the common case (a third of identify's main-thread time was here): each row's ends are found
 * from either side, then the pixels between them read branch-free straight into the cropped mask (alpha ≥ 128
 * is the top bit of a little-endian RGBA word).
 */
function opaqueWords(r: PieceLayer['raster'], words: Uint32Array): Opaque | null {
  const ends = new Int32Array(r.h * 2).fill(-1);
  let x0 = r.w;
  let x1 = -1;
  let y0 = r.h;
  let y1 = -1;
  for (let y = 0; y < r.h; y++) {
    const row = y * r.w;
    let a = 0;
    while (a < r.w && words[row + a]! < 0x80000000) a++;
    if (a === r.w) continue;
    let b = r.w - 1;
    while (words[row + b]! < 0x80000000) b--;
    ends[2 * y] = a;
    ends[2 * y + 1] = b;
    if (a < x0) x0 = a;
    if (b > x1) x1 = b;
    if (y < y0) y0 = y;
    y1 = y;
  }
  if (y1 < 0) return null;
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const mask = new Uint8Array(w * h);
  let area = 0;
  let sx = 0;
  let sy = 0;
  for (let y = y0; y <= y1; y++) {
    const a = ends[2 * y]!;
    if (a < 0) continue;
    const b = ends[2 * y + 1]!;
    const row = y * r.w;
    const out = (y - y0) * w - x0;
    let rowArea = 0;
    for (let x = a; x <= b; x++) {
      const bit = words[row + x]! >>> 31;
      mask[out + x] = bit;
      rowArea += bit;
      sx += x & -bit;
    }
    area += rowArea;
    sy += y * rowArea;
  }
  return { mask, x0, y0, w, h, area, sx, sy };
}

/** The same through the masks, one pixel at a time. */
function opaqueMasked(r: PieceLayer['raster'], masks: readonly LayerMask[]): Opaque | null {
  const full = new Uint8Array(r.w * r.h);
  let area = 0;
  let sx = 0;
  let sy = 0;
  let x0 = r.w;
  let x1 = -1;
  let y0 = r.h;
  let y1 = -1;
  for (let y = 0; y < r.h; y++) {
    let rowArea = 0;
    for (let x = 0, i = y * r.w; x < r.w; x++, i++) {
      let alpha = r.data[i * 4 + 3]!;
      if (alpha < 128) continue;
      for (const m of masks) alpha = (alpha * maskAt(m, r.x + x, r.y + y)) / 255;
      if (alpha < 128) continue;
      full[i] = 1;
      rowArea++;
      sx += x;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
    }
    if (!rowArea) continue;
    area += rowArea;
    sy += y * rowArea;
    if (y < y0) y0 = y;
    y1 = y;
  }
  if (y1 < 0) return null;
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const mask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) mask.set(full.subarray((y0 + y) * r.w + x0, (y0 + y) * r.w + x0 + w), y * w);
  return { mask, x0, y0, w, h, area, sx, sy };
}

function measureAlpha(
  layerId: number,
  name: string,
  r: PieceLayer['raster'],
  layerMask: PieceShape['layerMask'],
  masks: readonly LayerMask[],
): PieceShape | null {
  const data = r.data;
  const o =
    !masks.length && data.byteOffset % 4 === 0 && isLittleEndian
      ? opaqueWords(r, new Uint32Array(data.buffer, data.byteOffset, r.w * r.h))
      : opaqueMasked(r, masks);
  if (!o || o.area < 16) return null;
  const { mask: m, x0, y0, w, h, area, sx, sy } = o;
  const bounds = { x: r.x + x0, y: r.y + y0, w, h };
  // Symmetry and neckline on the proxy: the full-resolution alpha is read once, above.
  const p = proxyOf(m, w, h);
  proxies.set(m, p);
  const symmetry = mirrorIoU(p.data, p.w, p.h, p.data, p.w, p.h);
  const tilt = tiltOf(m, w, h, symmetry);
  return {
    layerId,
    name,
    layerName: name,
    raster: r,
    layerMask,
    bounds,
    mask: m,
    area,
    cx: r.x + sx / area + 0.5,
    cy: r.y + sy / area + 0.5,
    symmetry: tilt?.symmetry ?? symmetry,
    ...(tilt ? { tilt: tilt.deg } : {}),
    neckDepth: neckDepth(p.data, p.w, p.h),
    elongation: Math.max(w / h, h / w),
  };
}

/**
 * The outline a layer's mask cuts: the layer measured without its mask and its groups' masks, when they hide
 * some of it (null when they hide nothing, or there is no enabled mask). A sleeve cut short by a mask is still
 * cut from the sleeve's outline; a print rectangle masked to a piece is a rectangle, which findCopies only takes
 * for a copy when another piece on the marker is that rectangle.
 */
const outlines = new WeakMap<Uint8Array, PieceShape | null>();

export function maskedOutline(s: PieceShape): PieceShape | null {
  if (!s.layerMask?.enabled && !s.groupMasks?.length) return null;
  let o = outlines.get(s.mask);
  if (o === undefined) {
    const full = measureAlpha(s.layerId, s.layerName, s.raster, s.layerMask, []);
    o = full && full.area > s.area ? { ...full, name: s.name } : null;
    outlines.set(s.mask, o);
  }
  return o;
}

/** Whether a shape is (nearly) its bounding rectangle: a print or a fill, the shape a layer mask gives it. */
const fillsBounds = (s: PieceShape) => s.area >= 0.98 * s.bounds.w * s.bounds.h;

/** IoU of mask A with the horizontal mirror of mask B, both anchored at their top-left, B resampled to A's size. */
export function mirrorIoU(
  a: Uint8Array,
  aw: number,
  ah: number,
  b: Uint8Array,
  bw: number,
  bh: number,
  flip = true,
): number {
  let inter = 0;
  let uni = 0;
  for (let y = 0; y < ah; y++) {
    const by = Math.min(bh - 1, Math.floor(((y + 0.5) * bh) / ah));
    for (let x = 0; x < aw; x++) {
      let bx = Math.min(bw - 1, Math.floor(((x + 0.5) * bw) / aw));
      if (flip) bx = bw - 1 - bx;
      const p = a[y * aw + x]!;
      const q = b[by * bw + bx]!;
      inter += p & q;
      uni += p | q;
    }
  }
  return uni ? Math.round((inter / uni) * 1000) / 1000 : 0;
}

/** Top edge at the centre column minus the higher of the top edges at 25 % and 75 %, over the height. */
function neckDepth(m: Uint8Array, w: number, h: number): number {
  const top = (fx: number) => {
    const x = Math.min(w - 1, Math.floor(w * fx));
    for (let y = 0; y < h; y++) if (m[y * w + x]) return y;
    return h;
  };
  return Math.round(((top(0.5) - Math.min(top(0.25), top(0.75))) / h) * 1000) / 1000;
}

interface NameHint {
  part: Label;
  side: 'left' | 'right' | null;
}

/** A part the user confirmed, as the hint a layer name would give (sleeves carry their side). */
function confirmedHint(part: Part): NameHint {
  if (part === 'left_sleeve') return { part: 'sleeve', side: 'left' };
  if (part === 'right_sleeve') return { part: 'sleeve', side: 'right' };
  return { part, side: null };
}

/**
 * Keywords → part, the most specific first: a 袖口贴边 (cuff facing) is a cuff and a pocket's facing a pocket,
 * other facings, plackets, tabs, gussets, fly and zipper pieces and belt loops (袖衩 is no sleeve) and a 过肩
 * (yoke) are neither front nor back, a 袖窿 (armhole) binding finishes the arm
 * opening like a cuff, a hem band (下摆罗纹) and a belt sit at the waist, a coat's tail is its back.
 */
const LEXICON: readonly [RegExp, NameHint['part']][] = [
  [/袖口|克夫|裤脚|脚口|裤口|cuff|sleeve ?band|leg ?band/i, 'cuff'],
  [/袋口贴边|口袋贴边|pocket facing/i, 'pocket'],
  [
    /袖衩|门襟|里襟|挂面|贴边|领贴|襻|插片|裆布|拉链|串带|placket|facing|tab\b|gusset|zipper|fly\b|belt ?loop/i,
    'other',
  ],
  [/过肩|育克|yoke/i, 'other'],
  [/袖窿|armhole|arm ?binding/i, 'cuff'],
  [/口袋|袋|兜|pocket|welt/i, 'pocket'],
  [/腰头|腰|下摆罗纹|waist|belt|hem ?band/i, 'waistband'],
  [/帽|hood/i, 'hood'],
  [/领|collar|neck/i, 'collar'],
  [/袖|sleeve/i, 'sleeve'],
  // A jacket's side panel (under the arm) is counted with the front, as FreeSewing's Carlita and Jaeger draft it.
  [/腋下片|side ?panel/i, 'front'],
  [/前片|前幅|前身|前|front/i, 'front'],
  [/后片|后幅|后身|后|後|back|tail/i, 'back'],
];

/** Whether `name` is the name Photoshop gives a copy of layer `of` (`左袖 拷贝`, `Sleeve L copy 2`). */
const copyName = (name: string, of: string) =>
  name.startsWith(of) && /^\s*(拷贝|副本|复制|copy)(\s*\d+)?$/i.test(name.slice(of.length));

export function nameHint(name: string): NameHint | null {
  for (const [re, part] of LEXICON) {
    if (!re.test(name)) continue;
    const side = /左|left|(^|[^a-z])l($|[^a-z])/i.test(name)
      ? 'left'
      : /右|right|(^|[^a-z])r($|[^a-z])/i.test(name)
        ? 'right'
        : null;
    return { part, side };
  }
  return null;
}

/**
 * A finer proxy for telling copies of one piece from different pieces of the same size: a front and a back
 * may differ by a centimetre at the neckline, a few pixels at 128 px (eroded away as noise), 5 or more here.
 */
const COPY_SIDE = 384;
const fineProxies = new WeakMap<Uint8Array, MaskProxy>();

function fineProxyOf(s: PieceShape): MaskProxy {
  let p = fineProxies.get(s.mask);
  if (!p) {
    p = proxyOf(s.mask, s.bounds.w, s.bounds.h, COPY_SIDE);
    fineProxies.set(s.mask, p);
  }
  return p;
}

export function proxyOfShape(s: PieceShape): MaskProxy {
  let p = proxies.get(s.mask);
  if (!p) {
    p = proxyOf(s.mask, s.bounds.w, s.bounds.h);
    proxies.set(s.mask, p);
  }
  return p;
}

/**
 * Share of `a`'s proxy area where `a` and `b` laid down by transform `t` (b resampled onto a's proxy) differ
 * by more than a one-pixel edge: the difference is eroded by one pixel, so rasterisation and resampling noise
 * along the outline counts for nothing while a different neckline or a missing corner counts in full.
 */
function mismatch(a: MaskProxy, b: MaskProxy, t: LayDown): number {
  const { w: aw, h: ah } = a;
  // b's size once transformed: swapped for quarter turns.
  const tw = t.swap ? b.h : b.w;
  const th = t.swap ? b.w : b.h;
  // Every lay-down is affine, so b's pixel index for (tx, ty) in the transformed frame is origin + tx·dx + ty·dy:
  // read off three points, it saves a call per pixel.
  const indexOf = (tx: number, ty: number) => {
    const [bx, by] = t.inverse(tx, ty, b.w, b.h);
    return by * b.w + bx;
  };
  const origin = indexOf(0, 0);
  const dx = indexOf(1, 0) - origin;
  const dy = indexOf(0, 1) - origin;
  const column = new Int32Array(aw);
  for (let x = 0; x < aw; x++) column[x] = Math.min(tw - 1, Math.floor(((x + 0.5) * tw) / aw)) * dx;
  const xor = new Uint8Array(aw * ah);
  const ad = a.data;
  const bd = b.data;
  let area = 0;
  for (let y = 0; y < ah; y++) {
    const row = origin + Math.min(th - 1, Math.floor(((y + 0.5) * th) / ah)) * dy;
    const i0 = y * aw;
    for (let x = 0; x < aw; x++) {
      const p = ad[i0 + x]!;
      area += p;
      xor[i0 + x] = p ^ bd[row + column[x]!]!;
    }
  }
  let n = 0;
  for (let y = 1; y < ah - 1; y++) {
    for (let x = 1; x < aw - 1; x++) {
      const i = y * aw + x;
      if (xor[i] && xor[i - 1] && xor[i + 1] && xor[i - aw] && xor[i + aw]) n++;
    }
  }
  return n / Math.max(area, 1);
}

/** Mismatch up to which two layers are copies of one cut piece (turned or mirrored). */
const SAME_PIECE = 0.006;

export interface Copies {
  /** Per shape, the index of the first shape of its group of copies. */
  readonly group: readonly number[];
  /** Copies paired off two by two, mirror images first: [i, j, 1 − mismatch]. */
  readonly pairs: readonly [number, number, number][];
  /** Per shape, whether it has a copy that is its mirror image. */
  readonly mirrored: readonly boolean[];
  /**
   * Per shape whose layer mask hides part of it, the shape whose outline its whole outline (the mask off) copies:
   * one of a pair of sleeves cut short by a mask is still the other's copy. Null for the others.
   */
  readonly cut: readonly (number | null)[];
}

/** Whether `b` is a copy of `a` (the same outline, turned or mirrored, the same size within 2 %), and how. */
function copyMatch(a: PieceShape, b: PieceShape): { miss: number; mirrored: boolean } | null {
  const near = (u: number, v: number) => Math.abs(u - v) <= Math.max(2, u * 0.02);
  if (Math.abs(a.area - b.area) > a.area * 0.04) return null;
  const same = near(a.bounds.w, b.bounds.w) && near(a.bounds.h, b.bounds.h);
  const turned = near(a.bounds.w, b.bounds.h) && near(a.bounds.h, b.bounds.w);
  if (!same && !turned) return null;
  const pa = fineProxyOf(a);
  const pb = fineProxyOf(b);
  let rot = Infinity;
  let mir = Infinity;
  for (const t of LAY_DOWNS) {
    if ((t.swap && !turned) || (!t.swap && !same)) continue;
    const m = mismatch(pa, pb, t);
    if (t.mirror) mir = Math.min(mir, m);
    else rot = Math.min(rot, m);
  }
  const miss = Math.min(rot, mir);
  return miss > SAME_PIECE ? null : { miss, mirrored: mir + 0.004 < rot };
}

/**
 * Layers that are copies of one cut piece — the same outline as drafted, turned by quarter turns, or mirrored
 * (a left and a right) — with the same size within 2 %. A front and a back of equal size differ at the
 * neckline and stay apart. Copies are grouped (four cuffs are one group) and paired off for printing mirror
 * images: mirrored matches first, then the closest match, then the nearest neighbour. Compared on proxies of
 * ≤ 384 px, and only pieces of the same size. With `outlines`, a layer whose mask hides part of it is also
 * compared by its whole outline with the others' (cut).
 */
export function findCopies(shapes: readonly PieceShape[], outlines = true): Copies {
  const group = shapes.map((_, i) => i);
  const root = (i: number): number => (group[i] === i ? i : root(group[i]!));
  const mirrored = shapes.map(() => false);
  const cut: (number | null)[] = shapes.map(() => null);
  const cands: { i: number; j: number; mirrored: boolean; miss: number; dist: number }[] = [];
  for (let i = 0; i < shapes.length; i++) {
    for (let j = i + 1; j < shapes.length; j++) {
      const a = shapes[i]!;
      const b = shapes[j]!;
      let match = copyMatch(a, b);
      const oa = outlines ? maskedOutline(a) : null;
      const ob = outlines ? maskedOutline(b) : null;
      // Both cut short by their masks (a pair of sleeves each masked at the cuff, by as much or not): their
      // whole outlines decide, even when what the masks leave happens to match. Two print rectangles masked to
      // a front and a back are one rectangle twice, so outlines that fill their bounds are not compared.
      const both = oa && ob && !fillsBounds(oa) && !fillsBounds(ob) ? copyMatch(oa, ob) : null;
      if (both) {
        match = both;
        cut[i] ??= j;
        cut[j] ??= i;
      } else if (!match) {
        match = oa && copyMatch(oa, b);
        if (match) cut[i] ??= j;
        else {
          match = ob && copyMatch(a, ob);
          if (match) cut[j] ??= i;
        }
      }
      if (!match) continue;
      const ri = root(i);
      const rj = root(j);
      if (ri !== rj) group[Math.max(ri, rj)] = Math.min(ri, rj);
      if (match.mirrored) mirrored[i] = mirrored[j] = true;
      cands.push({ i, j, ...match, dist: Math.hypot(a.cx - b.cx, a.cy - b.cy) });
    }
  }
  // Asymmetric mirror images pair first; symmetric copies by closeness of match, then of position.
  cands.sort(
    (p, q) =>
      Number(q.mirrored) - Number(p.mirrored) || Math.round((p.miss - q.miss) * 1e3) || p.dist - q.dist,
  );
  const used = new Set<number>();
  const pairs: [number, number, number][] = [];
  for (const c of cands) {
    if (used.has(c.i) || used.has(c.j)) continue;
    used.add(c.i);
    used.add(c.j);
    pairs.push([c.i, c.j, Math.round((1 - c.miss) * 1000) / 1000]);
  }
  const groups = shapes.map((_, i) => root(i));
  // A group has a mirrored pair if any two of its members mirror each other.
  const groupMirrored = new Set(groups.filter((_, i) => mirrored[i]));
  return { group: groups, pairs, mirrored: groups.map((g) => groupMirrored.has(g)), cut };
}

/**
 * Mismatch (stretched onto one another's bounds) up to which two pieces of different sizes are one piece in two
 * sizes of a graded marker. Grading moves a neckline or a hem a few millimetres against the rest, which the
 * one-pixel erosion mostly absorbs; a front and a back of one size differ by a whole neckline.
 */
const SAME_GRADED = 0.02;
/** Aspect ratios (w / h, after the lay-down) of one piece in two sizes differ by at most this factor. */
const GRADED_ASPECT = 1.12;
/** Pieces this elongated (length over width) are bands, whose aspect may change by up to BAND_ASPECT. */
const BAND_ELONGATION = 3;
const BAND_ASPECT = 1.4;
/** Pieces at least this share of the largest must each come in every size of a graded marker. */
const GRADED_MIN = 0.1;

/**
 * The sizes of a graded marker (one garment cut in several sizes, nested together): the layers of each size, or
 * null when the marker holds one size (or the sizes cannot be told apart cleanly). `groups` are the copy groups
 * (findCopies); one piece in k sizes is k groups of as many copies whose outlines match stretched onto each
 * other. A marker is graded when every body piece (at least BODY of the largest) is such a family of the same k
 * ≥ 2 groups; each family's groups are ranked by size, and the layers of the other groups are dealt to the sizes
 * in turn.
 */
export interface GradedMarker {
  /** The layers of each size, smallest first. */
  readonly sizes: readonly (readonly number[])[];
  /** The layers of each piece over all its sizes (a piece that is not in every size is a family of its own). */
  readonly families: readonly (readonly number[])[];
}

export function gradedSizes(
  shapes: readonly PieceShape[],
  members: readonly (readonly number[])[],
): GradedMarker | null {
  const rep = members.map((m) => shapes[m.reduce((a, b) => (shapes[b]!.area > shapes[a]!.area ? b : a))]!);
  const family = members.map((_, g) => g);
  const root = (g: number): number => (family[g] === g ? g : root(family[g]!));
  for (let g = 0; g < members.length; g++) {
    for (let h = g + 1; h < members.length; h++) {
      if (members[g]!.length !== members[h]!.length) continue;
      const a = rep[g]!;
      const b = rep[h]!;
      const ratio = Math.max(a.area, b.area) / Math.min(a.area, b.area);
      if (ratio < 1.02 || ratio > 1.8) continue;
      const pa = fineProxyOf(a);
      const pb = fineProxyOf(b);
      const aspect = pa.w / pa.h;
      // A band grades in length only: its aspect changes with the size.
      const band = Math.min(a.elongation, b.elongation) >= BAND_ELONGATION;
      let best = Infinity;
      for (const t of LAY_DOWNS) {
        const bAspect = t.swap ? pb.h / pb.w : pb.w / pb.h;
        if (Math.max(aspect, bAspect) / Math.min(aspect, bAspect) > (band ? BAND_ASPECT : GRADED_ASPECT))
          continue;
        best = Math.min(best, mismatch(pa, pb, t));
      }
      if (best <= SAME_GRADED) {
        const rg = root(g);
        const rh = root(h);
        if (rg !== rh) family[Math.max(rg, rh)] = Math.min(rg, rh);
      }
    }
  }
  const families = new Map<number, number[]>();
  for (let g = 0; g < members.length; g++) families.set(root(g), [...(families.get(root(g)) ?? []), g]);
  const maxArea = Math.max(...rep.map((r) => r.area));
  // Every piece of some size (a body panel, a sleeve, a hood side) comes in every size, and at least three do:
  // one garment whose front and back look alike is not two sizes.
  const sized = [...families.values()].filter((f) => f.some((g) => rep[g]!.area >= GRADED_MIN * maxArea));
  const k = sized[0]?.length ?? 1;
  if (k < 2 || sized.length < 3 || sized.some((f) => f.length !== k)) return null;
  const sizes: number[][] = Array.from({ length: k }, () => []);
  let next = 0;
  for (const f of families.values()) {
    if (f.length === k) {
      // One group per size: smallest first.
      const bySize = [...f].sort((g, h) => rep[g]!.area - rep[h]!.area);
      bySize.forEach((g, i) => {
        sizes[i]!.push(...members[g]!);
      });
    } else {
      for (const g of f) for (const layer of members[g]!) sizes[next++ % k]!.push(layer);
    }
  }
  return {
    sizes: sizes.map((s) => s.sort((a, b) => a - b)),
    families: [...families.values()].map((f) => f.flatMap((g) => members[g]!)),
  };
}

/** The distinct cut pieces of a garment: groups of copies with what the model reads from them. */
export interface GarmentTypes {
  readonly members: readonly (readonly number[])[];
  /** Each group's representative layer (its largest copy), whose outline the group's features are measured on. */
  readonly reps: readonly number[];
  readonly inputs: readonly TypeInput[];
  readonly vectors: readonly number[][];
  readonly partner: readonly (number | null)[];
}

/** The distinct cut pieces as groups of copies, before they are measured. */
interface CopyGroups {
  readonly members: readonly (readonly number[])[];
  readonly partner: readonly (number | null)[];
  readonly mirrored: readonly boolean[];
  /** Per layer, the copy whose outline its layer mask cuts (findCopies). */
  readonly cut: readonly (number | null)[];
}

function groupCopies(shapes: readonly PieceShape[], outlines = true): CopyGroups {
  const { group, pairs, mirrored, cut } = findCopies(shapes, outlines);
  const partner: (number | null)[] = shapes.map(() => null);
  for (const [i, j] of pairs) {
    partner[i] = j;
    partner[j] = i;
  }
  const groups = new Map<number, number[]>();
  shapes.forEach((_, i) => {
    groups.set(group[i]!, [...(groups.get(group[i]!) ?? []), i]);
  });
  return { members: [...groups.values()], partner, mirrored, cut };
}

/** Groups the copies and measures each distinct piece once (its largest copy). */
export function describeGarment(shapes: readonly PieceShape[]): GarmentTypes {
  return measureGroups(shapes, groupCopies(shapes));
}

function measureGroups(
  shapes: readonly PieceShape[],
  { members, partner, mirrored }: CopyGroups,
): GarmentTypes {
  const repIndex = members.map((m) => m.reduce((a, b) => (shapes[b]!.area > shapes[a]!.area ? b : a)));
  const reps = repIndex.map((i) => shapes[i]!);
  const traced = tracedFromBodies(reps);
  const inputs = members.map((m, k): TypeInput => {
    const rep = reps[k]!;
    const proxy = proxyOfShape(rep);
    const shape = shapeFeatures(proxy);
    return {
      shape,
      area: rep.area,
      length: shape.major * proxy.scale,
      width: shape.minor * proxy.scale,
      copies: m.length,
      mirrored: mirrored[m[0]!]!,
      traced: traced[k]!,
    };
  });
  return { members, reps: repIndex, inputs, vectors: garmentVectors(inputs), partner };
}

/**
 * Each piece's longest stretch of outline on a body piece's (at least BODY of the largest, and 1.25 × its own
 * area): one common scale for the garment, the largest body piece TRACE_SIDE px long.
 */
function tracedFromBodies(reps: readonly PieceShape[]): TypeInput['traced'][] {
  const maxArea = Math.max(...reps.map((s) => s.area));
  const bodies = reps.flatMap((s, i) => (s.area / maxArea >= BODY ? [i] : []));
  const scale = Math.max(...bodies.map((i) => Math.max(reps[i]!.bounds.w, reps[i]!.bounds.h))) / TRACE_SIDE;
  const prepared = new Map<number, TracePiece>();
  const pieceAt = (i: number) => {
    let t = prepared.get(i);
    if (!t) {
      const s = reps[i]!;
      t = tracePiece(s.mask, s.bounds.w, s.bounds.h, scale);
      prepared.set(i, t);
    }
    return t;
  };
  return reps.map((s, i) => {
    let best = { length: 0, turn: 0 };
    if (s.area / maxArea >= TRACED_MAX) return best;
    for (const b of bodies) {
      if (b === i || reps[b]!.area < 1.25 * s.area) continue;
      const r = tracedOn(pieceAt(i), pieceAt(b));
      if (r.length > best.length) best = r;
    }
    return best;
  });
}

/** Pieces this large are body pieces themselves, not facings. */
const TRACED_MAX = 0.6;

/** What the assignment made of one distinct piece. */
interface TypeVerdict {
  readonly label: Label;
  readonly confidence: number;
  readonly reason: string;
  /**
   * When the garment-level assignment is in doubt about this piece: the alternative, and the next likeliest part
   * after it (null when the piece's probability for it is below NEXT_FLOOR).
   */
  readonly doubt: {
    readonly label: Label;
    readonly confidence: number;
    readonly next: { readonly label: Label; readonly confidence: number } | null;
  } | null;
}

/**
 * Below this probability from the piece model, or this close (log) to the runner-up garment assignment, a
 * piece is in doubt; so is a piece when at least LIBRARY_DOUBT of its NEIGHBOURS nearest training outlines are
 * one other part, the library's likeliest. On the 50 designs, leave one design out
 * (test/garment/piece-model.test.ts prints the figures), the first two with the front/back rule flag 954 of 1316
 * wrong layers and 1316 of 5272 right ones (5.5 % of layers wrong without a flag); the library's rule adds 137
 * wrong and 332 right (3.4 %). Raising DOUBT_CONFIDENCE to 0.7 instead would add 195 wrong and 584 right.
 */
const DOUBT_CONFIDENCE = 0.6;
const DOUBT_MARGIN = Math.log(3);
const LIBRARY_DOUBT = 3;
/**
 * A piece in doubt also names the next likeliest part when the piece's own probability for it reaches this.
 * Left one design out, of the 1031 flagged wrong layers the alternative is right for 631 and the next part for
 * 187 more (192 with no floor); the floor keeps it off 1149 of the 3019 flagged layers, where it is noise.
 */
const NEXT_FLOOR = 0.05;

/**
 * How many layers of a piece in doubt are likely wrong: its doubt (1 − confidence) over every layer cut from its
 * outline, since one answer settles its copies too. identify_pieces asks first about the piece where this is
 * largest.
 */
export const likelyWrongLayers = (confidence: number, copies: number) => (1 - confidence) * copies;

const LABEL_ZH: Readonly<Record<Label, string>> = { ...PART_LABELS, sleeve: '袖片' };

/**
 * The garment-level assignment over the model's probabilities, with names fixing the parts they name. The
 * probabilities do not depend on what is fixed: whoever decides one garment again and again (answering its
 * doubts one by one) works them out once and passes them.
 */
export function decideTypes(
  g: GarmentTypes,
  fixed: readonly (Label | null)[],
  model: PieceModel = PIECE_MODEL,
  probabilities: ReturnType<typeof pieceProbabilities> = pieceProbabilities(model, g.inputs, g.vectors),
): TypeVerdict[] {
  const { probs, votes, garments, kind } = probabilities;
  const maxArea = Math.max(...g.inputs.map((t) => t.area));
  const frontnessOf = g.inputs.map((t) => frontness(model, frontnessVector(t, g.inputs, kind)));
  const copies = g.inputs.map((t) => t.copies);
  const relArea = g.inputs.map((t) => t.area / maxArea);
  const ranked = assign({ probs, copies, fixed, relArea, frontness: frontnessOf });
  const best = ranked[0]!;
  const swapInDoubt = cuesDisagree(best.labels, probs, frontnessOf, relArea, copies);
  // Marginals over the assignments kept, weighted by their joint probability.
  const top = best.score;
  const weights = ranked.map((r) => Math.exp(r.score - top));
  const total = weights.reduce((a, b) => a + b, 0);
  // Body pieces all one part (a front and a back too alike to be told apart, even grouped as copies): the
  // other part is the alternative for every one of them.
  const bodyLayers = g.inputs.reduce((s, t) => s + (t.area / maxArea >= BODY ? t.copies : 0), 0);
  const missing: Label | null =
    bodyLayers >= 2 && best.labels.includes('front') !== best.labels.includes('back')
      ? best.labels.includes('front')
        ? 'back'
        : 'front'
      : null;
  // Body panels without a single notch (no neckline, armhole or crotch: a skirt's): their outlines do not say
  // which is the front; only a cutting convention does (halves at the back for a zip, at the front for
  // buttons), and conventions differ between patterns. Left one design out, asking there flags 30 more wrong
  // layers and 36 more right ones (wrong without a flag 2.4 → 2.0 %).
  const bodies = g.inputs.filter((t) => t.area / maxArea >= BODY);
  const noFrontBackCue = bodies.length >= 2 && bodies.every((t) => t.shape.notches === 0);
  return g.inputs.map((t, i) => {
    const label = best.labels[i]!;
    const marginal = (l: Label) =>
      ranked.reduce((s, r, k) => s + (r.labels[i] === l ? weights[k]! : 0), 0) / total;
    // Which of such layers is the front is a coin toss.
    const split =
      missing !== null && !fixed[i] && (label === 'front' || label === 'back') && t.area / maxArea >= BODY;
    const p = probs[i]!;
    const c = LABELS.indexOf(label);
    const own = p[c]!;
    const confidence = fixed[i] ? 0.95 : split ? 0.5 : Math.min(marginal(label), own);
    // The part most of the nearest training outlines are.
    const shapes = votes[i]!.reduce((a, v, k, all) => (v > all[a]! ? k : a), 0);
    const runner = LABELS.map((_, k) => k)
      .filter((k) => k !== c)
      .reduce((a, b) => (p[b]! > p[a]! ? b : a));
    const why = strongestEvidence(model, g.vectors[i]!, c, runner);
    const copies = t.copies > 1 ? `；共 ${t.copies} 片${t.mirrored ? '（左右镜像）' : ''}` : '';
    // How many of the NEIGHBOURS nearest training outlines are part k.
    const alikeOf = (k: number) => Math.round(votes[i]![k]! * NEIGHBOURS);
    const alike = alikeOf(c);
    // Of the GARMENTS best-matched training garments, how many have a counterpart of this part.
    const matched = Math.round(garments[i]![c]! * GARMENTS);
    const reason =
      `形状模型：${LABEL_ZH[label]} ${Math.round(p[c]! * 100)}%，次选${LABEL_ZH[LABELS[runner]!]} ${Math.round(p[runner]! * 100)}%` +
      `${why.length ? `（依据：${why.join('、')}）` : ''}；形状库中最相近的 ${NEIGHBOURS} 片有 ${alike} 片是${LABEL_ZH[label]}` +
      `；与最相似的 ${GARMENTS} 件已知服装逐片对应，${matched} 件中对应的裁片是${LABEL_ZH[label]}` +
      `${copies}；结合整件服装的部位搭配，置信度 ${Math.round(confidence * 100)}%`;
    let doubt: { label: Label; confidence: number } | null = null;
    if (!fixed[i]) {
      // The best garment assignment that gives this piece another part.
      const other = ranked.find((r) => r.labels[i] !== label);
      const alt = other && best.score - other.score < DOUBT_MARGIN ? other.labels[i]! : null;
      const swapped: Label = label === 'front' ? 'back' : 'front';
      if (swapInDoubt && (label === 'front' || label === 'back'))
        doubt = { label: swapped, confidence: marginal(swapped) };
      else if (alt) doubt = { label: alt, confidence: marginal(alt) };
      else if (split) doubt = { label: missing!, confidence: 0.5 };
      else if (noFrontBackCue && (label === 'front' || label === 'back') && t.area / maxArea >= BODY)
        doubt = { label: swapped, confidence: marginal(swapped) };
      else if (own < DOUBT_CONFIDENCE) doubt = { label: LABELS[runner]!, confidence: p[runner]! };
      else if (shapes !== c && alikeOf(shapes) >= LIBRARY_DOUBT)
        doubt = { label: LABELS[shapes]!, confidence: p[shapes]! };
    }
    if (!doubt) return { label, confidence, reason, doubt: null };
    const taken = doubt.label;
    const next = LABELS.map((_, k) => k)
      .filter((k) => k !== c && LABELS[k] !== taken)
      .reduce((a, b) => (p[b]! > p[a]! ? b : a));
    return {
      label,
      confidence,
      reason,
      doubt: {
        ...doubt,
        next: p[next]! >= NEXT_FLOOR ? { label: LABELS[next]!, confidence: p[next]! } : null,
      },
    };
  });
}

/**
 * Whether the two readings of which body piece is the front disagree: the pieces' own probabilities (the nets
 * and the library) and the pairwise front/back model. The assignment weighs both; when they point opposite
 * ways the fronts and backs it chose are in doubt (left one design out, this flags about a hundred more wrong
 * layers than the other doubts alone, and about as many right ones).
 */
function cuesDisagree(
  labels: readonly Label[],
  probs: readonly (readonly number[])[],
  frontnessOf: readonly number[],
  relArea: readonly number[],
  copies: readonly number[],
) {
  const main = mainPanels(labels, relArea, copies);
  if (!main) return false;
  const lean = (i: number) =>
    Math.log(probs[i]![LABELS.indexOf('front')]!) - Math.log(probs[i]![LABELS.indexOf('back')]!);
  const own = lean(main.front) - lean(main.back);
  const pairwise = frontnessOf[main.front]! - frontnessOf[main.back]!;
  return own * pairwise < 0;
}

interface Draft {
  shape: PieceShape;
  part: Label;
  side: 'left' | 'right' | null;
  by: DecidedBy;
  confidence: number;
  reason: string;
  pair: number | null;
  doubt: TypeVerdict['doubt'];
}

/**
 * Each piece's part: the part the user confirmed (layer id → part), else the layer name when it names one; else
 * the copy of such a piece; else the learned model and the garment-level assignment (confirmed parts and names
 * fix the parts they give, so the rest is chosen around them). A graded marker (gradedSizes: one garment in
 * several sizes) is decided size by size, each size a garment of its own, and then one piece in every size takes
 * one part: the user's where they confirmed one, else the one its sizes give most weight.
 */
export function classifyPieces(
  shapes: readonly PieceShape[],
  model: PieceModel = PIECE_MODEL,
  confirmed: ReadonlyMap<number, Part> = new Map(),
): PieceInfo[] {
  if (!shapes.length) return [];
  const on = stackedOn(shapes);
  const infos = on.every((k) => k === null)
    ? classifyLaid(shapes, model, confirmed)
    : classifyStacked(shapes, model, confirmed, on);
  return withOverlaps(shapes, infos, on);
}

/** classifyPieces when some layers lie on others (`on`, stackedOn). */
function classifyStacked(
  shapes: readonly PieceShape[],
  model: PieceModel,
  confirmed: ReadonlyMap<number, Part>,
  on: readonly (number | null)[],
): PieceInfo[] {
  // A layer lying on another (duplicated and not moved) is no second piece on the marker, and no mirror image
  // of it: the garment is decided without it, and it is the piece under it, printed as that one is.
  const stacks = new Map<number, number[]>();
  on.forEach((k, i) => {
    if (k !== null) stacks.set(k, [...(stacks.get(k) ?? []), i]);
  });
  const kept = shapes.flatMap((_, i) => (on[i] === null ? [i] : []));
  // What the user confirmed for any layer of a stack decides the piece.
  const keptConfirmed = new Map(confirmed);
  for (const [k, dups] of stacks) {
    const said = [k, ...dups].map((i) => confirmed.get(shapes[i]!.layerId)).find((p) => p !== undefined);
    if (said) keptConfirmed.set(shapes[k]!.layerId, said);
  }
  const infos = classifyLaid(
    kept.map((i) => shapes[i]!),
    model,
    keptConfirmed,
  );
  const out: PieceInfo[] = [];
  kept.forEach((k, n) => {
    out[k] = infos[n]!;
  });
  for (const [k, dups] of stacks) {
    const base = out[k]!;
    const stack = [k, ...dups].map((i) => shapes[i]!.name);
    const others = (name: string) => [...base.sameOutline, ...stack.filter((n) => n !== name)];
    // One answer decides the stack with the rest of its outline.
    for (const n of kept) {
      const p = out[n]!;
      if (n === k || p.sameOutline.includes(base.name))
        out[n] = { ...p, sameOutline: [...p.sameOutline, ...dups.map((i) => shapes[i]!.name)] };
    }
    for (const i of dups) {
      const s = shapes[i]!;
      out[i] = {
        ...base,
        ...s,
        decidedBy: confirmed.has(s.layerId) ? 'user' : 'pair',
        pairWith: null,
        sameOutline: others(s.name),
        duplicateOf: base.name,
        reason: `与“${base.name}”完全重叠（同一位置、同一形状，像是复制图层后没有移开）：不是排料图上的另一片，也不与它成对，按同一裁片处理，部位和花样随“${base.name}”`,
      };
    }
  }
  return out;
}

/** Overlap on the canvas (IoU) from which two layers are one piece stacked twice. */
const STACKED = 0.98;

/**
 * Per shape, the lower layer it lies on with the same outline at the same place (as a layer duplicated and not
 * moved: Ctrl+J), or null. Cut pieces lie side by side on a marker; two on one place are one piece twice.
 */
export function stackedOn(shapes: readonly PieceShape[]): (number | null)[] {
  const on: (number | null)[] = shapes.map(() => null);
  for (let j = 0; j < shapes.length; j++) {
    for (let i = 0; i < j; i++) {
      if (on[i] === null && overlapOnCanvas(shapes[i]!, shapes[j]!) >= STACKED) {
        on[j] = i;
        break;
      }
    }
  }
  return on;
}

/** IoU of two shapes' masks where they lie on the canvas. */
function overlapOnCanvas(a: PieceShape, b: PieceShape): number {
  if (Math.abs(a.area - b.area) > (1 - STACKED) * Math.max(a.area, b.area)) return 0;
  const r = intersectRect(a.bounds, b.bounds);
  if (isEmptyRect(r) || r.w * r.h < STACKED * Math.max(a.area, b.area)) return 0;
  const inter = sharedPixels(a, b);
  return inter / (a.area + b.area - inter);
}

/** How many pixels two shapes' masks share on the canvas. */
function sharedPixels(a: PieceShape, b: PieceShape): number {
  const r = intersectRect(a.bounds, b.bounds);
  if (isEmptyRect(r)) return 0;
  let inter = 0;
  for (let y = r.y; y < r.y + r.h; y++) {
    const ra = (y - a.bounds.y) * a.bounds.w - a.bounds.x;
    const rb = (y - b.bounds.y) * b.bounds.w - b.bounds.x;
    for (let x = r.x; x < r.x + r.w; x++) inter += a.mask[ra + x]! & b.mask[rb + x]!;
  }
  return inter;
}

/**
 * Share of the smaller of two pieces the other covers on the canvas from which they lie on one another. Cut
 * pieces on a marker lie side by side, touching at most along an edge.
 */
const OVERLAPPING = 0.1;

/**
 * Each piece lying largely on a lower one (not a copy at the same place, stackedOn: a copy flipped or turned
 * where it was duplicated, or any other piece) with `overlaps` set: it is still read as a piece of its own (the
 * mirror image of a sleeve it was flipped from is the other sleeve), but a marker with two pieces on one another
 * is most likely not laid out yet, and identify_pieces says so as it does for a duplicate.
 */
function withOverlaps(
  shapes: readonly PieceShape[],
  infos: PieceInfo[],
  on: readonly (number | null)[],
): PieceInfo[] {
  return infos.map((p, j) => {
    if (on[j] !== null) return p;
    for (let i = j - 1; i >= 0; i--) {
      if (on[i] !== null) continue;
      const a = shapes[i]!;
      const b = shapes[j]!;
      const share = sharedPixels(a, b) / Math.min(a.area, b.area);
      if (share >= OVERLAPPING)
        return { ...p, overlaps: { name: a.name, share: Math.round(share * 100) / 100 } };
    }
    return p;
  });
}

/** classifyPieces for layers that each lie at their own place on the marker. */
function classifyLaid(
  shapes: readonly PieceShape[],
  model: PieceModel,
  confirmed: ReadonlyMap<number, Part>,
): PieceInfo[] {
  const groups = groupCopies(shapes);
  const graded = gradedSizes(shapes, groups.members);
  if (!graded) return classifyGarment(shapes, model, confirmed, groups);
  const out: PieceInfo[] = [];
  graded.sizes.forEach((layers, i) => {
    const size = layers.map((k) => shapes[k]!);
    const infos = classifyGarment(size, model, confirmed, groupCopies(size));
    layers.forEach((k, j) => {
      out[k] = { ...infos[j]!, size: i + 1 };
    });
  });
  for (const family of graded.families) if (family.length > 1) agreeAcrossSizes(out, family);
  return out;
}

/** The model's label of a part: either sleeve is a sleeve. */
export const labelOfPart = (part: Part): Label =>
  part === 'left_sleeve' || part === 'right_sleeve' ? 'sleeve' : part;

/**
 * One piece's layers over the sizes of a graded marker (`family`) made to agree: each sizes' garment was
 * decided alone, and a piece read as a pocket in one size and a sleeve in three is a sleeve. The layers that
 * change keep their old part as the doubt, and every layer lists the others as cut from its outline, so one
 * answer (confirm_piece_parts) decides the piece in every size.
 */
function agreeAcrossSizes(out: PieceInfo[], family: readonly number[]): void {
  const members = family.map((k) => out[k]!);
  const weight = new Map<Label, number>();
  for (const p of members)
    weight.set(labelOfPart(p.part), (weight.get(labelOfPart(p.part)) ?? 0) + p.confidence);
  const user = members.find((p) => p.decidedBy === 'user');
  const winner = user
    ? labelOfPart(user.part)
    : [...weight].reduce((best, e) => (e[1] > best[1] ? e : best))[0];
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  const agreeing = members.filter((p) => labelOfPart(p.part) === winner).length;
  for (const k of family) {
    const p = out[k]!;
    const sameOutline = [
      ...new Set([...p.sameOutline, ...family.filter((j) => j !== k).map((j) => out[j]!.name)]),
    ];
    if (labelOfPart(p.part) === winner) {
      if (user && p.decidedBy !== 'user') {
        // The user's answer for one size decides the piece in every size.
        const { doubt: _asked, ...rest } = p;
        out[k] = {
          ...rest,
          decidedBy: 'user',
          confidence: 1,
          reason: `与用户确认的“${user.name}”是同一裁片（另一尺码）`,
          sameOutline,
        };
      } else out[k] = { ...p, sameOutline };
      continue;
    }
    const partner = p.pairWith === null ? undefined : out.find((q) => q.name === p.pairWith);
    const part: Part =
      winner !== 'sleeve' ? winner : partner && partner.cx < p.cx ? 'right_sleeve' : 'left_sleeve';
    const { doubt: _own, ...rest } = p;
    out[k] = {
      ...rest,
      part,
      confidence: user ? 1 : Math.round(((weight.get(winner) ?? 0) / total) * 100) / 100,
      decidedBy: user ? 'user' : 'shape',
      reason: user
        ? `与用户确认的“${user.name}”是同一裁片（另一尺码）`
        : `与其他尺码的同一裁片一致：${family.length} 片中 ${agreeing} 片识别为${LABEL_ZH[winner]}（本片单独识别为${PART_LABELS[p.part]}）`,
      ...(user ? {} : { doubt: { part: p.part, confidence: p.confidence } }),
      sameOutline,
    };
  }
}

/** No sleeve, and at least two layers each of front and back: a sleeveless top in halves, or trouser legs. */
function halvesWithoutSleeves(
  fixed: readonly (Label | null)[],
  members: readonly (readonly number[])[],
): boolean {
  const layers = (l: Label) => fixed.reduce((n, f, t) => n + (f === l ? members[t]!.length : 0), 0);
  return layers('sleeve') === 0 && layers('front') >= 2 && layers('back') >= 2;
}

/** One garment's pieces decided (classifyPieces), its copies already grouped. */
function classifyGarment(
  shapes: readonly PieceShape[],
  model: PieceModel,
  confirmed: ReadonlyMap<number, Part>,
  groups: CopyGroups,
): PieceInfo[] {
  const byUser = shapes.map((s) => confirmed.get(s.layerId) ?? null);
  const hints = shapes.map((s, i) => (byUser[i] ? confirmedHint(byUser[i]) : nameHint(s.layerName)));
  // A layer cut by its mask counts as a copy for the garment's structure (the other sleeve keeps its pair), but
  // its name or confirmation speaks for itself only: what the mask leaves may be another part.
  const whole = (k: number) => groups.cut[k] === null;
  const fixed = groups.members.map((m) => {
    const named = m
      .filter(whole)
      .map((k) => hints[k])
      .find((h) => h !== null);
    return named ? named.part : null;
  });
  // Every piece named (or a copy of a named one): the names decide, the model has nothing to do. A layer cut by
  // its mask is measured by its whole outline, so copies all cut short (both sleeves masked) read as the piece.
  const measure = () =>
    measureGroups(
      shapes.map((s, k) => (whole(k) ? s : maskedOutline(s)!)),
      groups,
    );
  const named = fixed.every((f) => f !== null);
  const measured = named ? null : measure();
  const g = measured ?? groups;
  const probabilities = measured && pieceProbabilities(model, measured.inputs, measured.vectors);
  const verdicts = measured && probabilities ? decideTypes(measured, fixed, model, probabilities) : [];
  // How the garment is worn, as its shapes read. Names do not say it, and it matters where they cannot: fronts and
  // backs both in halves without a sleeve are a sleeveless top's (a waistcoat's) or two trouser legs, whose print
  // is matched round the body or not at all (seams.ts). Only then is a named garment measured for it.
  const worn =
    probabilities?.kind ??
    (named && halvesWithoutSleeves(fixed, groups.members)
      ? ((t) => pieceProbabilities(model, t.inputs, t.vectors).kind)(measure())
      : undefined);
  const typeOf = new Map<number, number>();
  g.members.forEach((m, t) => {
    for (const i of m) typeOf.set(i, t);
  });
  const partner = g.partner;
  const drafts: Draft[] = shapes.map((shape, i) => {
    const hint = hints[i];
    const t = typeOf.get(i)!;
    if (hint) {
      const user = byUser[i];
      return {
        shape,
        part: hint.part,
        side: hint.side,
        by: user ? 'user' : 'name',
        confidence: user ? 1 : 0.95,
        reason: user ? `用户确认为${PART_LABELS[user]}` : `图层名“${shape.layerName}”含部位关键词`,
        pair: partner[i]!,
        doubt: null,
      };
    }
    const members = g.members[t]!;
    // A copy of a named piece is that part.
    const namedAt = members.find((k) => hints[k] !== null && whole(k));
    if (namedAt !== undefined) {
      const named = hints[namedAt]!;
      // One outline cut as both the front and the back (a reversible top): once the user has confirmed one
      // layer as the front (back), its copy is the back (front) when the garment has no other piece that is,
      // nor any other piece the size of a body panel (front halves' copies stay fronts beside a misread back).
      const opposite: Label | null = named.part === 'front' ? 'back' : named.part === 'back' ? 'front' : null;
      const partAt = (k: number) => hints[k]?.part ?? verdicts[typeOf.get(k)!]?.label ?? null;
      if (
        opposite &&
        byUser[namedAt] &&
        !shapes.some(
          (o, k) =>
            k !== i &&
            k !== namedAt &&
            (partAt(k) === opposite || (!members.includes(k) && o.area >= shape.area / 2)),
        )
      ) {
        return {
          shape,
          part: opposite,
          side: null,
          by: 'pair',
          confidence: 0.9,
          reason: `与“${shapes[namedAt]!.name}”同形；它已确认为${LABEL_ZH[named.part]}，整件服装没有别的${LABEL_ZH[opposite]}，本片是${LABEL_ZH[opposite]}`,
          pair: partner[i]!,
          doubt: null,
        };
      }
      return {
        shape,
        part: named.part,
        side: null,
        by: 'pair',
        confidence: 0.85,
        reason: `与“${shapes[namedAt]!.name}”是同一裁片${partner[i] !== null ? '（互为镜像）' : ''}`,
        pair: partner[i]!,
        doubt: null,
      };
    }
    const v = verdicts[t]!;
    return {
      shape,
      part: v.label,
      side: null,
      by: members.length > 1 ? 'pair' : 'shape',
      confidence: Math.round(v.confidence * 100) / 100,
      reason: v.reason,
      pair: partner[i]!,
      doubt: v.doubt,
    };
  });
  // The model's reading of the shapes as they show, no outline behind a mask: what a layer the mask cuts may be.
  let visible: ((i: number) => TypeVerdict | undefined) | undefined;
  const visibleReading = (i: number) => {
    if (!visible) {
      const vg = groupCopies(shapes, false);
      const vFixed = vg.members.map((m) => m.map((k) => hints[k]).find((h) => h !== null)?.part ?? null);
      const vt = vFixed.every((f) => f !== null) ? null : measureGroups(shapes, vg);
      const vVerdicts = vt ? decideTypes(vt, vFixed, model) : [];
      visible = (k) => vVerdicts[vg.members.findIndex((m) => m.includes(k))];
    }
    return visible(i);
  };
  const cutDraft = (d: Draft, i: number): Draft => {
    const hidden = Math.round((1 - d.shape.area / maskedOutline(d.shape)!.area) * 100);
    const seen = visibleReading(i);
    const other = seen && seen.label !== d.part ? seen : null;
    const ask = other
      ? `；只看蒙版显示的形状像${LABEL_ZH[other.label]}（${Math.round(other.confidence * 100)}%），请确认`
      : '';
    const from = groups.cut[i]!;
    const its = whole(from) ? '' : '遮住前的轮廓';
    return {
      ...d,
      by: 'pair',
      reason: `${masksOf(d.shape)}遮住了本片的 ${hidden}%；遮住前的轮廓与“${shapes[from]!.name}”${its}相同，按它识别（印花按蒙版显示的形状）${ask}：${d.reason}`,
      doubt: other
        ? {
            label: other.label,
            confidence: other.confidence,
            next:
              d.doubt && d.doubt.label !== other.label
                ? { label: d.doubt.label, confidence: d.doubt.confidence }
                : null,
          }
        : d.doubt,
    };
  };
  for (const i of shapes.keys()) if (!whole(i) && !hints[i]) drafts[i] = cutDraft(drafts[i]!, i);
  // Sleeve sides: from the name, else from the pair partner, else by position (the one further left is left).
  const sleeves = drafts.filter((d) => d.part === 'sleeve');
  // A sleeve duplicated and flipped keeps its name (`左袖 拷贝`, `Sleeve L copy`): of a mirrored pair whose names
  // give one side, the copy is the other sleeve (else neither print would be mirrored).
  for (const d of sleeves) {
    const other = d.pair !== null ? drafts[d.pair]! : null;
    if (!other || d.by !== 'name' || other.part !== 'sleeve' || !d.side || d.side !== other.side) continue;
    if (!groups.mirrored[d.pair!] || !copyName(d.shape.layerName, other.shape.layerName)) continue;
    d.side = d.side === 'left' ? 'right' : 'left';
    d.reason += `；是“${other.shape.name}”的镜像副本（复制后翻转，名称随原图层），按另一只袖：${d.side === 'left' ? '左' : '右'}袖`;
  }
  for (const d of sleeves) {
    if (d.side) continue;
    const other = d.pair !== null ? drafts[d.pair]! : null;
    if (other?.side) d.side = other.side === 'left' ? 'right' : 'left';
    else if (other) d.side = d.shape.cx <= other.shape.cx ? 'left' : 'right';
    else {
      const mid = sleeves.reduce((s, x) => s + x.shape.cx, 0) / sleeves.length;
      d.side = sleeves.length > 1 && d.shape.cx > mid ? 'right' : 'left';
    }
  }
  const partOf = (label: Label, side: 'left' | 'right' | null): Part =>
    label === 'sleeve' ? (side === 'right' ? 'right_sleeve' : 'left_sleeve') : label;
  return drafts.map((d, i) => {
    const part = partOf(d.part, d.side);
    const other = d.pair !== null ? drafts[d.pair]! : null;
    // The print of the right piece of a pair (or the later one) mirrors its partner's.
    let mirrorOf: number | null = null;
    if (other) {
      const iAmSecond =
        part === 'right_sleeve' ||
        (part !== 'left_sleeve' &&
          (d.shape.cx > other.shape.cx || (d.shape.cx === other.shape.cx && i > d.pair!)));
      if (iAmSecond) mirrorOf = other.shape.layerId;
    }
    return {
      ...d.shape,
      part,
      confidence: d.confidence,
      decidedBy: d.by,
      copies: g.members[typeOf.get(i)!]!.length,
      // One answer decides the layers of an outline, not a layer its mask cuts (nor the others for it).
      sameOutline: g.members[typeOf.get(i)!]!.filter((k) => k !== i && whole(k) && whole(i)).map(
        (k) => shapes[k]!.name,
      ),
      pairWith: other ? other.shape.name : null,
      mirrorOf,
      ...(worn ? { worn } : {}),
      ...(whole(i) ? {} : { cutFrom: shapes[groups.cut[i]!]!.name }),
      reason: d.reason,
      ...(d.doubt
        ? {
            doubt: {
              part: partOf(d.doubt.label, d.side),
              confidence: Math.round(d.doubt.confidence * 100) / 100,
              ...(d.doubt.next
                ? {
                    next: {
                      part: partOf(d.doubt.next.label, d.side),
                      confidence: Math.round(d.doubt.next.confidence * 100) / 100,
                    },
                  }
                : {}),
            },
          }
        : {}),
    };
  });
}
