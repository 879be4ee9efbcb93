/**
 * Which layers are cut pieces, their geometry, and which garment part each one is. Evidence in order of
 * strength (research/garment.md §2.2): the layer name (Chinese and English keywords), mirrored pairs (a shape
 * matching the mirror image of another), then shape rules (area rank, elongation, symmetry, neckline depth).
 */
import type { DocState, PixelLayer } from '../../engine/model.js';
import { alphaBounds, isEmptyRect } from '../../engine/raster.js';
import { isShown, topDown } from '../../engine/tree.js';
import type { DecidedBy, Part, PieceInfo, PieceShape } from '../types.js';

/** Pixel layers that are pieces: visible, not the background, not clipped (fills are), with real transparency. */
export function collectPieces(state: DocState): PieceShape[] {
  const out: PieceShape[] = [];
  for (const { layer } of topDown(state)) {
    if (layer.kind !== 'pixel' || layer.background || layer.clipped) continue;
    if (!isShown(state, layer.id)) continue;
    const shape = measure(layer);
    if (!shape) continue;
    // A layer covering (almost) the whole canvas is a backdrop, not a piece.
    if (shape.area >= state.width * state.height * 0.9) continue;
    out.push(shape);
  }
  return out.reverse(); // bottom → top, stable
}

export function measure(layer: PixelLayer): PieceShape | null {
  const r = layer.raster;
  const b = alphaBounds(r);
  if (isEmptyRect(b)) return null;
  const mask = new Uint8Array(b.w * b.h);
  let area = 0;
  let sx = 0;
  let sy = 0;
  for (let y = 0; y < b.h; y++) {
    for (let x = 0; x < b.w; x++) {
      const a = r.data[((b.y - r.y + y) * r.w + (b.x - r.x + x)) * 4 + 3]!;
      if (a >= 128) {
        mask[y * b.w + x] = 1;
        area++;
        sx += x;
        sy += y;
      }
    }
  }
  if (area < 16) return null;
  const inner = maskBoundsOf(mask, b.w, b.h);
  // Bounds of the opaque part (alpha ≥ 128), recropped.
  const bounds = { x: b.x + inner.x, y: b.y + inner.y, w: inner.w, h: inner.h };
  const m = new Uint8Array(inner.w * inner.h);
  for (let y = 0; y < inner.h; y++)
    m.set(mask.subarray((inner.y + y) * b.w + inner.x, (inner.y + y) * b.w + inner.x + inner.w), y * inner.w);
  return {
    layerId: layer.id,
    name: layer.name,
    raster: r,
    bounds,
    mask: m,
    area,
    cx: b.x + sx / area + 0.5,
    cy: b.y + sy / area + 0.5,
    symmetry: mirrorIoU(m, inner.w, inner.h, m, inner.w, inner.h),
    neckDepth: neckDepth(m, inner.w, inner.h),
    elongation: Math.max(inner.w / inner.h, inner.h / inner.w),
  };
}

function maskBoundsOf(m: Uint8Array, w: number, h: number) {
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (m[y * w + x]) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
    }
  }
  return { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

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
  part: Part | 'sleeve';
  side: 'left' | 'right' | null;
}

const LEXICON: readonly [RegExp, NameHint['part']][] = [
  [/袖口|克夫|cuff/i, 'cuff'],
  [/口袋|袋|pocket/i, 'pocket'],
  [/腰头|腰|waist/i, 'waistband'],
  [/帽|hood/i, 'hood'],
  [/领|collar|neck ?band|neckband/i, 'collar'],
  [/袖|sleeve/i, 'sleeve'],
  [/前片|前幅|前身|前|front/i, 'front'],
  [/后片|后幅|后身|后|後|back/i, 'back'],
];

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

interface Draft {
  shape: PieceShape;
  part: Part | 'sleeve' | null;
  side: 'left' | 'right' | null;
  by: DecidedBy;
  confidence: number;
  reason: string;
  pair: number | null;
}

/** Mirrored pairs: similar size and IoU(A, mirror(B)) ≥ 0.9; each piece in at most one pair (best first). */
export function findPairs(shapes: readonly PieceShape[]): [number, number, number][] {
  const cands: [number, number, number][] = [];
  for (let i = 0; i < shapes.length; i++) {
    for (let j = i + 1; j < shapes.length; j++) {
      const a = shapes[i]!;
      const b = shapes[j]!;
      if (Math.abs(a.bounds.w - b.bounds.w) > Math.max(3, a.bounds.w * 0.05)) continue;
      if (Math.abs(a.bounds.h - b.bounds.h) > Math.max(3, a.bounds.h * 0.05)) continue;
      const iou = mirrorIoU(a.mask, a.bounds.w, a.bounds.h, b.mask, b.bounds.w, b.bounds.h);
      if (iou < 0.9) continue;
      // Two symmetric pieces (a front and a back) mirror each other trivially: a pair only when they are
      // mirror images rather than copies, or (symmetric) near-identical copies such as two cuffs.
      const direct = mirrorIoU(a.mask, a.bounds.w, a.bounds.h, b.mask, b.bounds.w, b.bounds.h, false);
      if (iou > direct + 0.02 || direct >= 0.98) cands.push([i, j, iou]);
    }
  }
  cands.sort((p, q) => q[2] - p[2]);
  const used = new Set<number>();
  const out: [number, number, number][] = [];
  for (const c of cands) {
    if (used.has(c[0]) || used.has(c[1])) continue;
    used.add(c[0]);
    used.add(c[1]);
    out.push(c);
  }
  return out;
}

export function classifyPieces(shapes: readonly PieceShape[]): PieceInfo[] {
  const drafts: Draft[] = shapes.map((shape) => {
    const hint = nameHint(shape.name);
    return hint
      ? {
          shape,
          part: hint.part,
          side: hint.side,
          by: 'name',
          confidence: 0.95,
          reason: `图层名“${shape.name}”含部位关键词`,
          pair: null,
        }
      : { shape, part: null, side: null, by: 'shape', confidence: 0, reason: '', pair: null };
  });
  for (const [i, j] of findPairs(shapes)) {
    drafts[i]!.pair = j;
    drafts[j]!.pair = i;
  }
  const maxArea = Math.max(...shapes.map((s) => s.area));
  const isTorso = (d: Draft) => d.shape.area >= maxArea * 0.55 && d.shape.elongation < 2.5;

  // Torso pieces without a name: the deeper neckline is the front.
  const named = (p: Part) => drafts.some((d) => d.by === 'name' && d.part === p);
  const torsos = drafts
    .filter((d) => d.part === null && isTorso(d) && d.pair === null)
    .sort((p, q) => q.shape.neckDepth - p.shape.neckDepth);
  for (const d of torsos) {
    const part: Part | null =
      !named('front') && !drafts.some((x) => x.by !== 'name' && x.part === 'front')
        ? 'front'
        : !named('back') && !drafts.some((x) => x.by !== 'name' && x.part === 'back')
          ? 'back'
          : null;
    if (!part) continue;
    d.part = part;
    d.by = 'shape';
    d.confidence = d.shape.symmetry >= 0.9 ? 0.8 : 0.6;
    d.reason = `面积最大的${d.shape.symmetry >= 0.9 ? '左右对称' : ''}裁片之一，领口深度 ${d.shape.neckDepth}（较深者为前片）`;
  }
  // Pairs without names: elongated → cuffs, otherwise sleeves.
  for (const d of drafts) {
    if (d.part !== null || d.pair === null) continue;
    const other = drafts[d.pair]!;
    if (d.shape.elongation >= 2.5) {
      d.part = 'cuff';
      d.reason = '与另一裁片互为镜像的细长小片';
    } else {
      d.part =
        other.part === 'sleeve' ||
        other.part === null ||
        other.part === 'left_sleeve' ||
        other.part === 'right_sleeve'
          ? 'sleeve'
          : other.part;
      d.reason = `与“${other.shape.name}”互为镜像（左右成对）`;
    }
    d.by = 'pair';
    d.confidence = 0.85;
  }
  // Remaining single pieces: shape rules.
  const torsoWidth = Math.max(
    0,
    ...drafts.filter((d) => d.part === 'front' || d.part === 'back').map((d) => d.shape.bounds.w),
  );
  for (const d of drafts) {
    if (d.part !== null) continue;
    const s = d.shape;
    const rel = s.area / maxArea;
    d.by = 'shape';
    if (s.elongation >= 3) {
      const long = Math.max(s.bounds.w, s.bounds.h);
      d.part = torsoWidth && long >= torsoWidth * 0.9 ? 'waistband' : 'collar';
      d.confidence = 0.6;
      d.reason = `细长条（长宽比 ${s.elongation.toFixed(1)}）${d.part === 'waistband' ? '，长度接近衣身宽度' : ''}`;
    } else if (rel < 0.12) {
      d.part = 'pocket';
      d.confidence = 0.5;
      d.reason = `小而紧凑的裁片（面积为最大裁片的 ${(rel * 100).toFixed(0)}%）`;
    } else if (s.symmetry < 0.9 && rel < 0.9) {
      d.part = 'sleeve';
      d.confidence = 0.5;
      d.reason = '中等面积、左右不对称的单个裁片';
    } else {
      d.part = 'other';
      d.confidence = 0.3;
      d.reason = '无法从名称或形状判断';
    }
  }
  // Sleeve sides: from the name, else from the pair partner, else by position (the one further left is left).
  const sleeves = drafts.filter((d) => d.part === 'sleeve');
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
  return drafts.map((d, i) => {
    const part: Part =
      d.part === 'sleeve' ? (d.side === 'right' ? 'right_sleeve' : 'left_sleeve') : (d.part ?? 'other');
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
      pairWith: other ? other.shape.name : null,
      mirrorOf,
      reason: d.reason,
    };
  });
}
