/** Pixel helpers shared by the garment modules: Lab planes, masks, components, resizing and PNG output. */

import type { ImageOut } from '../engine/io/image-codec.js';
import { encodePng } from '../engine/io/image-codec.js';
import type { Raster, Rect } from '../engine/model.js';
import sharp from '../engine/sharp.js';
import { type Lab, rgbToLab } from './color.js';
import { labelRuns } from './runs.js';

/** An image as CIE Lab planes, for colour distances. */
export interface LabPlanes {
  readonly w: number;
  readonly h: number;
  readonly L: Float32Array;
  readonly a: Float32Array;
  readonly b: Float32Array;
}

const labCache = new Map<number, Lab>();

/** Lab of an 8-bit colour, memoised (images repeat colours a lot). */
export function labOf(r: number, g: number, b: number): Lab {
  const key = (r << 16) | (g << 8) | b;
  let v = labCache.get(key);
  if (!v) {
    if (labCache.size > 200_000) labCache.clear();
    v = rgbToLab(r, g, b);
    labCache.set(key, v);
  }
  return v;
}

export function labPlanes(r: Raster): LabPlanes {
  const n = r.w * r.h;
  const L = new Float32Array(n);
  const a = new Float32Array(n);
  const b = new Float32Array(n);
  const d = r.data;
  for (let i = 0; i < n; i++) {
    const slot = labSlot(d[i * 4]!, d[i * 4 + 1]!, d[i * 4 + 2]!);
    L[i] = PLANE_LAB[slot]!;
    a[i] = PLANE_LAB[slot + 1]!;
    b[i] = PLANE_LAB[slot + 2]!;
  }
  return { w: r.w, h: r.h, L, a, b };
}

/**
 * labPlanes' memo: an open-addressed table of typed arrays, as the planes are Float32 anyway (a Map of Lab
 * objects cost several times the conversion it saved on a megapixel photo). Cleared when half full.
 */
const PLANE_SLOTS = 1 << 18;
const PLANE_KEYS = new Int32Array(PLANE_SLOTS).fill(-1);
const PLANE_LAB = new Float32Array(PLANE_SLOTS * 3);
let planeFilled = 0;

/** Where the Lab of an 8-bit colour is in PLANE_LAB, converted on first sight. */
function labSlot(r: number, g: number, b: number): number {
  const key = (r << 16) | (g << 8) | b;
  let k = Math.imul(key, 0x9e3779b1) >>> 14;
  for (;;) {
    const kept = PLANE_KEYS[k]!;
    if (kept === key) return k * 3;
    if (kept === -1) break;
    k = (k + 1) & (PLANE_SLOTS - 1);
  }
  if (planeFilled >= PLANE_SLOTS / 2) {
    PLANE_KEYS.fill(-1);
    planeFilled = 0;
    return labSlot(r, g, b);
  }
  const c = rgbToLab(r, g, b);
  PLANE_KEYS[k] = key;
  PLANE_LAB[k * 3] = c.L;
  PLANE_LAB[k * 3 + 1] = c.a;
  PLANE_LAB[k * 3 + 2] = c.b;
  planeFilled++;
  return k * 3;
}

/** Rec. 709 luma of each pixel, 0..255. */
export function luminance(r: Raster): Float64Array {
  const n = r.w * r.h;
  const out = new Float64Array(n);
  const d = r.data;
  for (let i = 0; i < n; i++) out[i] = 0.2126 * d[i * 4]! + 0.7152 * d[i * 4 + 1]! + 0.0722 * d[i * 4 + 2]!;
  return out;
}

/** A binary mask over a rectangle (1 = inside). */
export interface BinMask extends Rect {
  readonly data: Uint8Array;
}

/** Pixels with alpha ≥ 128 of a raster, over the raster's own rectangle. */
export function alphaMask(r: Raster): BinMask {
  const data = new Uint8Array(r.w * r.h);
  for (let i = 0; i < data.length; i++) data[i] = r.data[i * 4 + 3]! >= 128 ? 1 : 0;
  return { x: r.x, y: r.y, w: r.w, h: r.h, data };
}

/**
 * `Uint8Array.from(src, f)` at a loop's cost: V8 runs that through the iterator protocol, about 130 ms for a
 * 1.3 Mpx mask against 10 ms here (Node 20), and a photo's analysis makes a dozen such masks.
 */
export function mapBytes(src: ArrayLike<number>, f: (v: number, i: number) => number): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = f(src[i]!, i);
  return out;
}

export function countMask(m: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < m.length; i++) n += m[i]!;
  return n;
}

/** Tight bounds of the set pixels, relative to the mask's own origin; null when empty. */
export function maskBounds(m: Uint8Array, w: number, h: number): Rect | null {
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
  return x1 < 0 ? null : { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

export interface Component {
  readonly area: number;
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
  readonly label: number;
}

/**
 * 8-connected components of a binary mask (any non-zero pixel is set); `labels` holds component index + 1 per
 * pixel, components numbered in the order of their first pixel in raster order. Labelled by runs (runs.ts): a
 * flood fill read all eight neighbours of every set pixel, where a piece's mask or a photo's silhouette is a few
 * runs a row.
 */
export function components(m: Uint8Array, w: number, h: number): { comps: Component[]; labels: Int32Array } {
  const runs = labelRuns(w, h, (y, out) => out.set(m.subarray(y * w, (y + 1) * w)), true);
  const labels = new Int32Array(w * h);
  const comps = runs.comps.map(({ area, x0, y0, x1, y1, first }, i): Component => {
    for (let r = first; r >= 0; r = runs.next[r]!) {
      const row = runs.y[r]! * w;
      labels.fill(i + 1, row + runs.x0[r]!, row + runs.x1[r]! + 1);
    }
    return { area, x0, y0, x1, y1, label: i + 1 };
  });
  return { comps, labels };
}

/**
 * The k-th smallest of `v` (0-based), what `v.sort()[k]` reads, found in place by selection (`v` is left
 * partly ordered): sorting a megapixel's values only to read one of them cost a tenth of a second.
 * `v` holds no NaN.
 */
export function kthSmallest(v: Float64Array, k: number): number {
  let lo = 0;
  let hi = v.length - 1;
  while (hi > lo) {
    // Median of three as the pivot, then a Hoare partition.
    const mid = (lo + hi) >> 1;
    const a = v[lo]!;
    const b = v[mid]!;
    const c = v[hi]!;
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (v[i]! < pivot) i++;
      while (v[j]! > pivot) j--;
      if (i <= j) {
        const t = v[i]!;
        v[i] = v[j]!;
        v[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return v[k]!;
  }
  return v[k]!;
}

/** `v` folded into 0…n − 1 as a mirror repeat folds it (…, 1, 0 | 0, 1, …, n − 1 | n − 1, …). */
export function mirrored(v: number, n: number): number {
  const m = ((v % (2 * n)) + 2 * n) % (2 * n);
  return m < n ? m : 2 * n - 1 - m;
}

/** `m` (`w` × `h`) at `W` × `H`, each pixel taking the nearest one's value. */
export function resampleMask(m: Uint8Array, w: number, h: number, W: number, H: number): Uint8Array {
  const out = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    const sy = Math.min(h - 1, Math.floor(((y + 0.5) * h) / H)) * w;
    for (let x = 0; x < W; x++) out[y * W + x] = m[sy + Math.min(w - 1, Math.floor(((x + 0.5) * w) / W))]!;
  }
  return out;
}

/**
 * Erodes a binary mask by `r` pixels (square structuring element), treating outside as empty. r steps of a 3 × 3
 * erosion are one (2r + 1)-square erosion, and a square's is a row's followed by a column's: each is a run of
 * set pixels at least 2r + 1 long, read in one pass whatever r is (the 3 × 3 steps read nine pixels r times).
 */
export function erode(m: Uint8Array, w: number, h: number, r: number): Uint8Array {
  if (r <= 0) return m;
  const across = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) keepRuns(m, across, y * w, 1, w, r);
  const out = new Uint8Array(w * h);
  for (let x = 0; x < w; x++) keepRuns(across, out, x, w, h, r);
  return out;
}

/** Along one line (`n` pixels from `start`, `stride` apart): sets `out` where `m` is set r pixels either way. */
function keepRuns(m: Uint8Array, out: Uint8Array, start: number, stride: number, n: number, r: number): void {
  let k = 0;
  while (k < n) {
    if (!m[start + k * stride]) {
      k++;
      continue;
    }
    let end = k;
    while (end < n && m[start + end * stride]) end++;
    // The run k…end − 1 lies inside the line; pixels r from either end of it keep their neighbours all set.
    for (let i = k + r; i < end - r; i++) out[start + i * stride] = 1;
    k = end;
  }
}

function rawSharp(r: Raster) {
  return sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), {
    raw: { width: r.w, height: r.h, channels: 4 },
    limitInputPixels: false,
  });
}

/** What a sharp pipeline over rawSharp(…) gives, as a raster at 0,0. */
async function toRaster(out: ReturnType<typeof rawSharp>): Promise<Raster> {
  const { data, info } = await out.raw().toBuffer({ resolveWithObject: true });
  return {
    x: 0,
    y: 0,
    w: info.width,
    h: info.height,
    data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
  };
}

/** `r` resized to `w × h` (Lanczos for downscaling), at 0,0. */
export function resizeRaster(r: Raster, w: number, h: number): Promise<Raster> {
  return toRaster(rawSharp(r).resize(w, h, { fit: 'fill', kernel: 'lanczos3' }));
}

/** A result image's caption: Chinese, as every surface shows it, and English for the studio's English mode. */
export interface Caption {
  readonly zh: string;
  readonly en: string;
}

/** A PNG for a result's `images`, scaled down to at most `maxSide` pixels on the long side. */
export async function pngImage(r: Raster, caption: Caption, maxSide = 1024): Promise<ImageOut> {
  const k = Math.min(1, maxSide / Math.max(r.w, r.h));
  const small =
    k < 1 ? await resizeRaster(r, Math.max(1, Math.round(r.w * k)), Math.max(1, Math.round(r.h * k))) : r;
  const png = await encodePng({ ...small, x: 0, y: 0 }, 72);
  return { mime: 'image/png', base64: png.toString('base64'), caption: caption.zh, captionEn: caption.en };
}

/** Draws `src` over `dst` (both in document coordinates) with straight-alpha "over". */
export function blitOver(dst: Raster, src: Raster): void {
  const x0 = Math.max(dst.x, src.x);
  const y0 = Math.max(dst.y, src.y);
  const x1 = Math.min(dst.x + dst.w, src.x + src.w);
  const y1 = Math.min(dst.y + dst.h, src.y + src.h);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const s = ((y - src.y) * src.w + (x - src.x)) * 4;
      const d = ((y - dst.y) * dst.w + (x - dst.x)) * 4;
      const sa = src.data[s + 3]! / 255;
      if (sa === 0) continue;
      const da = dst.data[d + 3]! / 255;
      const oa = sa + da * (1 - sa);
      for (let c = 0; c < 3; c++) {
        dst.data[d + c] = (src.data[s + c]! * sa + dst.data[d + c]! * da * (1 - sa)) / oa;
      }
      dst.data[d + 3] = oa * 255;
    }
  }
}
