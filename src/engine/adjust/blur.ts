/**
 * Gaussian Blur of a layer raster (engine.md §1.6). Photoshop's "Radius" is the Gaussian σ (ImageJ's
 * GaussianBlur docs: "the same as in Photoshop"). sharp/libvips does the work, premultiplied internally so
 * transparent surroundings never darken an edge.
 *
 * - A layer with transparency is blurred into transparent surroundings, so the blur spreads beyond the old
 *   bounds as Photoshop's does, by up to the kernel's reach; the result is clipped to `limit` (the canvas, plus
 *   wherever the layer already reached past it). The raster is extended only as far as the result may reach,
 *   plus one transparent pixel where the result stops short: libvips repeats edge pixels, so that one pixel
 *   stands for all the transparency beyond (a canvas-sized layer costs a 1-pixel border, not 3σ).
 * - The background (opaque, canvas-sized) replicates its edge pixels instead and keeps its rectangle, so it
 *   stays opaque.
 * - With transparency locked the layer keeps its alpha; only colours are blurred.
 *
 * Accuracy. libvips' integer Gaussian (`gaussmat` with coefficients rint(20·e^(−x²/2σ²)), convolved on 8-bit
 * data with its SIMD path) is the only fast one: float precision runs ~10× slower on 16 MP. sharp's default
 * `minAmplitude` 0.2 cuts the kernel at 1.8σ, which is visibly too narrow (up to 17–47 levels off a true
 * Gaussian on a photo); 0.025 keeps every tap the integer mask can hold (reach ≈ 2.7σ). Against ImageMagick's
 * `-gaussian-blur 0xσ` that leaves ≤ 3 levels for σ ≥ 3 and a few more for σ ≈ 1 (the SIMD path requantises the
 * mask). Below σ = 0.5, where libvips' integer mask degenerates, a small exact kernel runs in JS. Above
 * σ = 32 the layer takes the shrunk detour (LARGE_SIGMA): within 3 levels of a float Gaussian, ≤ 6 of
 * ImageMagick's `-blur`, and ≤ 1.7 s on 16 MP for any radius up to 1000.
 */

import type { Raster, Rect } from '../model.js';
import {
  allocPixels,
  intersectRect,
  isEmptyRect,
  isSharedBuffer,
  rectOf,
  sharePixels,
  unionRect,
} from '../raster.js';
import sharp from '../sharp.js';
import { assertTransformSize } from '../transform.js';

/** sharp's `minAmplitude`: the smallest tap libvips' integer mask can hold (rint(20·v) > 0). */
export const BLUR_MIN_AMPLITUDE = 0.025;
/** Below this σ the blur runs in JS with an exact 3- or 5-tap kernel. */
const SMALL_SIGMA = 0.5;
/**
 * Above this σ the image is box-shrunk by f = ⌈σ/16⌉, blurred with σ/f and enlarged back (bilinear): libvips'
 * cost grows with the mask, and past ~1024 taps (σ ≈ 190) it leaves its SIMD path (σ 200 took 42 s on 4 MP).
 * The result is smooth on the scale of f, so the detour costs little accuracy (test/engine/adjust.test.ts).
 */
export const LARGE_SIGMA = 32;
const SHRUNK_SIGMA = 16;
/** The shrunk image is small enough for libvips' float Gaussian, cut at 3σ (no integer requantisation). */
const EXACT_MIN_AMPLITUDE = 0.01;

/**
 * How far the blur reaches: libvips' mask for `sigma` (its `gaussmat` size rule, at BLUR_MIN_AMPLITUDE), or for
 * large σ the shrunk detour's float mask plus a block.
 */
export function blurReach(sigma: number): number {
  if (sigma < SMALL_SIGMA) return Math.min(2, Math.ceil(3 * sigma));
  // the shrunk detour: a float mask to ~3σ/f in blocks of f
  if (sigma > LARGE_SIGMA) return Math.ceil(3.1 * sigma) + Math.ceil(sigma / SHRUNK_SIGMA);
  const sig2 = 2 * sigma * sigma;
  const maxX = Math.floor(8 * sigma);
  let x = 0;
  while (x < maxX && Math.exp(-(x * x) / sig2) >= BLUR_MIN_AMPLITUDE) x++;
  return Math.max(x - 1, 0);
}

/**
 * Whether a blur of `sigma` leaves every 8-bit pixel as it is: a pixel moves by at most 255·(1 − w0²), w0 being
 * the normalised centre tap (σ below about 0.25).
 */
export function blurIsIdentity(sigma: number): boolean {
  if (sigma >= SMALL_SIGMA) return false;
  const reach = blurReach(sigma);
  let total = 0;
  for (let k = -reach; k <= reach; k++) total += Math.exp(-(k * k) / (2 * sigma * sigma));
  const w0 = 1 / total;
  return 255 * (1 - w0 * w0) < 0.5;
}

export interface BlurOptions {
  /** 'transparent': grow into transparent surroundings; 'copy': replicate the edge (the background). */
  readonly edge: 'transparent' | 'copy';
  /** Where the result may reach, besides the raster's own rectangle; null = anywhere. */
  readonly limit: Rect | null;
  /** Transparency locked: keep the raster's alpha and rectangle, blur colours only. */
  readonly keepAlpha: boolean;
  /** Tests only: blur at full size even above LARGE_SIGMA. */
  readonly direct?: boolean;
}

interface Sides {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

const NO_SIDES: Sides = { left: 0, right: 0, top: 0, bottom: 0 };

function same(a: Rect, b: Rect): boolean {
  return a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
}

/**
 * The blurred raster; a new buffer (the input is never modified). With a transparent edge its rectangle
 * contains the input's (grown by the kernel's reach, within `limit`) and is not trimmed: blend it with a
 * selection first, then trim (region.ts `trimmed`). `out_of_bounds` when the result would be too large to hold.
 */
export async function gaussianBlur(r: Raster, sigma: number, opts: BlurOptions): Promise<Raster> {
  if (isEmptyRect(r)) return r;
  const shrink = sigma > LARGE_SIGMA && !opts.direct ? Math.ceil(sigma / SHRUNK_SIGMA) : 1;
  const blur = (ext: Sides) =>
    sigma < SMALL_SIGMA
      ? smallBlur(r, sigma, ext, opts.edge)
      : shrink > 1
        ? shrunkBlur(r, sigma, ext, shrink)
        : sharpBlur(r, sigma, ext);
  const direct = shrink === 1 && sigma >= SMALL_SIGMA;
  if (opts.edge === 'copy') {
    const fast = direct ? await opaqueBlur(r, sigma, NO_SIDES, rectOf(r)) : null;
    return fast ?? settle({ ...rectOf(r), data: await blur(NO_SIDES) }, rectOf(r));
  }
  const reach = blurReach(sigma);
  const grown: Rect = { x: r.x - reach, y: r.y - reach, w: r.w + 2 * reach, h: r.h + 2 * reach };
  const out: Rect = opts.keepAlpha
    ? { x: r.x, y: r.y, w: r.w, h: r.h }
    : opts.limit
      ? intersectRect(grown, unionRect(opts.limit, r))
      : grown;
  assertTransformSize(out.w, out.h);
  // Shrunk, the one transparent pixel must be a whole block.
  const side = (spread: number) => spread + (spread < reach ? shrink : 0);
  const ext: Sides = {
    left: side(r.x - out.x),
    top: side(r.y - out.y),
    right: side(out.x + out.w - (r.x + r.w)),
    bottom: side(out.y + out.h - (r.y + r.h)),
  };
  const padded: Rect = {
    x: r.x - ext.left,
    y: r.y - ext.top,
    w: r.w + ext.left + ext.right,
    h: r.h + ext.top + ext.bottom,
  };
  const result =
    (direct ? await opaqueBlur(r, sigma, ext, out) : null) ??
    settle({ ...padded, data: await blur(ext) }, out);
  return opts.keepAlpha ? withAlphaOf(result, r) : result;
}

/**
 * The blur's fresh output `r` (nothing else holds it) cut to `rect` (inside it), in shared memory. Output
 * that is already shared is cut in place, by moving rows to the front of its own buffer (no new allocation,
 * which on a 16 MP layer is most of a crop's cost); sharp's output has to be copied into shared memory
 * anyway, and that copy takes only the rows and columns kept.
 */
function settle(r: Rect & { readonly data: Uint8Array | Uint8ClampedArray }, rect: Rect): Raster {
  const d = r.data;
  // sharePixels: a view of a shared buffer, a copy of any other.
  if (same(r, rect)) return { ...rect, data: sharePixels(d) };
  const shared = isSharedBuffer(d);
  const row = rect.w * 4;
  const out = shared ? sharePixels(d) : allocPixels(rect.h * row);
  // Byte views on both sides: `set` between different element types goes value by value, not by memcpy.
  const to = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  const from = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  for (let y = 0; y < rect.h; y++) {
    const i = ((rect.y - r.y + y) * r.w + (rect.x - r.x)) * 4;
    if (shared) to.copyWithin(y * row, i, i + row);
    else to.set(from.subarray(i, i + row), y * row);
  }
  return { ...rect, data: out.subarray(0, rect.h * row) };
}

/** sharp's blur of `r` extended by `ext` (transparent), edges repeated; in ordinary (not shared) memory. */
async function sharpBlur(r: Raster, sigma: number, ext: Sides, exact = false): Promise<Buffer> {
  const input = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
  let img = sharp(input, { raw: { width: r.w, height: r.h, channels: 4 }, limitInputPixels: false });
  if (ext.left || ext.right || ext.top || ext.bottom) {
    img = img.extend({ ...ext, background: { r: 0, g: 0, b: 0, alpha: 0 } });
  }
  const mask = exact
    ? ({ sigma, precision: 'float', minAmplitude: EXACT_MIN_AMPLITUDE } as const)
    : { sigma, minAmplitude: BLUR_MIN_AMPLITUDE };
  return img.blur(mask).raw().toBuffer();
}

/**
 * sharp's blur of an opaque raster without its alpha work, cut to `out`; null when `r` has transparency.
 *
 * For RGBA, sharp premultiplies (a float pass), blurs four bands and unpremultiplies (another float pass):
 * more than half of its time on 16 MP. An opaque raster's premultiplied colours are its colours, so the same
 * result comes from blurring three bands — flattened onto black inside libvips (exact for opaque pixels), with
 * the transparent extension black, which is what transparency is premultiplied — and dividing by the blurred
 * alpha where that is not 255. The alpha is the blur of a rectangle: the same along every column (row) beyond
 * the kernel's reach from the image's edges, so a small image of the rectangle's corners with one interior column
 * and row, blurred by the same libvips convolution, gives all of it exactly, and only the pixels near the edges
 * need dividing. (Where libvips' integer mask does not quite sum to one, a uniform 255 comes out as 251–254
 * and every pixel is divided: that division is what cancels the mask's gain, in sharp's pipeline too.)
 * The division is libvips' `unpremultiply` and cast, so the result is sharp's, byte for byte.
 */
async function opaqueBlur(r: Raster, sigma: number, ext: Sides, out: Rect): Promise<Raster | null> {
  if (!isOpaque(r)) return null;
  const W = r.w + ext.left + ext.right;
  const H = r.h + ext.top + ext.bottom;
  const input = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
  let img = sharp(input, { raw: { width: r.w, height: r.h, channels: 4 }, limitInputPixels: false }).flatten({
    background: { r: 0, g: 0, b: 0 },
  });
  if (ext.left || ext.right || ext.top || ext.bottom) {
    img = img.extend({ ...ext, background: { r: 0, g: 0, b: 0 } });
  }
  const blurring = img.blur({ sigma, minAmplitude: BLUR_MIN_AMPLITUDE }).ensureAlpha(1).raw().toBuffer();
  const alpha = rectangleAlpha(W, H, ext, sigma);
  // The result's shared memory is first written by the copy below. Touching its pages beforehand, while
  // libvips works, only competes with libvips' own threads for the cores (measured slower on two cores).
  const data = allocPixels(out.w * out.h * 4);
  const blurred = await blurring;
  if (blurred.length !== W * H * 4) return null; // not what was asked for: the general path
  const pad: Rect = { x: r.x - ext.left, y: r.y - ext.top, w: W, h: H };
  const to = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const row = out.w * 4;
  for (let y = 0; y < out.h; y++) {
    const i = ((out.y - pad.y + y) * W + (out.x - pad.x)) * 4;
    to.set(blurred.subarray(i, i + row), y * row);
  }
  const result: Raster = { ...out, data };
  divideByAlpha(result, pad, await alpha);
  return result;
}

/** Whether every pixel of `r` is fully opaque (stops at the first that is not). */
function isOpaque(r: Raster): boolean {
  const d = r.data;
  const n = r.w * r.h;
  if (LITTLE_ENDIAN && d.byteOffset % 4 === 0) {
    // Alpha is the top byte of each pixel's 32-bit word; a row's words ANDed keep it 255 only if all are.
    const words = new Uint32Array(d.buffer, d.byteOffset, n);
    for (let row = 0; row < r.h; row++) {
      let all = -1;
      let p = row * r.w;
      const end = p + r.w;
      // Four words per step: the loop's own overhead is a third of its time on 16 MP.
      for (; p + 3 < end; p += 4) all &= words[p]! & words[p + 1]! & words[p + 2]! & words[p + 3]!;
      for (; p < end; p++) all &= words[p]!;
      if (all >>> 24 !== 255) return false;
    }
    return true;
  }
  for (let i = 3; i < n * 4; i += 4) if (d[i] !== 255) return false;
  return true;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Unpremultiplies `r` (a part of `pad`, blurred with alpha 255 assumed) by the rectangle's blurred alpha:
 * whole rows where the interior alpha is not 255, otherwise only the columns near the edges.
 */
function divideByAlpha(r: Raster, pad: Rect, alpha: RectangleAlpha): void {
  const d = r.data;
  const { values, column, keep } = alpha;
  const table = unpremultiplyTable();
  const interiorColumn = column[Math.min(pad.w - 1, keep)]!;
  const c0 = r.x - pad.x;
  const visit = (y: number, from: number, to: number) => {
    const arow = alpha.rowStart(r.y - pad.y + y);
    for (let x = from, i = (y * r.w + from) * 4; x < to; x++, i += 4) {
      const a = values[arow + column[c0 + x]!]!;
      if (a === 255) continue;
      const k = a << 8;
      d[i] = table[k | d[i]!]!;
      d[i + 1] = table[k | d[i + 1]!]!;
      d[i + 2] = table[k | d[i + 2]!]!;
      d[i + 3] = a;
    }
  };
  // Columns of `r` within reach of the padded image's left and right edges.
  const left = Math.min(r.w, Math.max(0, keep - c0));
  const right = Math.max(left, Math.min(r.w, pad.w - keep - c0));
  for (let y = 0; y < r.h; y++) {
    if (values[alpha.rowStart(r.y - pad.y + y) + interiorColumn] !== 255) {
      visit(y, 0, r.w);
    } else {
      visit(y, 0, left);
      visit(y, right, r.w);
    }
  }
}

interface RectangleAlpha {
  /** Blurred alpha of the small image, row by row. */
  readonly values: Buffer;
  /** Columns (rows) within this distance of an edge are kept in the small image; the others share one. */
  readonly keep: number;
  /** Column of the small image for each column of the padded one. */
  readonly column: Int32Array;
  /** Start of the small image's row for row `py` of the padded one. */
  rowStart(py: number): number;
}

/**
 * The blurred alpha of a `W × H` image that is opaque but for its `ext` borders, from a small image that keeps
 * every column and row within reach of a border and one interior column and row for all the others.
 */
async function rectangleAlpha(W: number, H: number, ext: Sides, sigma: number): Promise<RectangleAlpha> {
  const keep = blurReach(sigma) + Math.max(ext.left, ext.right, ext.top, ext.bottom) + 2;
  const cw = Math.min(W, 2 * keep + 1);
  const ch = Math.min(H, 2 * keep + 1);
  const small = Buffer.alloc(cw * ch);
  for (let y = ext.top; y < ch - ext.bottom; y++)
    small.fill(255, y * cw + ext.left, (y + 1) * cw - ext.right);
  const values = await sharp(small, { raw: { width: cw, height: ch, channels: 1 } })
    .blur({ sigma, minAmplitude: BLUR_MIN_AMPLITUDE })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const squeeze = (i: number, size: number, kept: number) =>
    kept === size || i < keep ? i : i >= size - keep ? i - (size - kept) : keep;
  const column = new Int32Array(W);
  for (let x = 0; x < W; x++) column[x] = squeeze(x, W, cw);
  return { values, keep, column, rowStart: (py) => squeeze(py, H, ch) * cw };
}

/**
 * libvips' unpremultiply and cast for every alpha `a` and premultiplied value `v`, at `a << 8 | v`: the factor
 * 255/a in single precision (0 for a = 0), the product in single precision, truncated to a byte.
 */
let unpremultiply: Uint8Array | undefined;
function unpremultiplyTable(): Uint8Array {
  if (!unpremultiply) {
    unpremultiply = new Uint8Array(256 * 256);
    for (let a = 1; a < 256; a++) {
      const f = Math.fround(255 / a);
      for (let v = 0; v < 256; v++)
        unpremultiply[(a << 8) | v] = Math.min(255, Math.trunc(Math.fround(f * v)));
    }
  }
  return unpremultiply;
}

/**
 * The large-σ detour: `r` extended by `ext` (transparent) is averaged over f × f blocks with premultiplied
 * alpha, blurred by sharp with σ/f (edges repeated, as at full size) and enlarged back by bilinear
 * interpolation of premultiplied values, block centres aligned exactly: output pixel X samples the small
 * image at (X + ½)/f − ½.
 */
async function shrunkBlur(r: Raster, sigma: number, ext: Sides, f: number): Promise<Uint8ClampedArray> {
  const W = r.w + ext.left + ext.right;
  const H = r.h + ext.top + ext.bottom;
  const w = Math.ceil(W / f);
  const h = Math.ceil(H / f);
  const acc = new Float64Array(w * h * 4);
  const s = r.data;
  for (let y = 0; y < r.h; y++) {
    const row = (((y + ext.top) / f) | 0) * w;
    for (let x = 0; x < r.w; x++) {
      const i = (y * r.w + x) * 4;
      const a = s[i + 3]!;
      if (a === 0) continue;
      const o = (row + (((x + ext.left) / f) | 0)) * 4;
      acc[o] = acc[o]! + s[i]! * a;
      acc[o + 1] = acc[o + 1]! + s[i + 1]! * a;
      acc[o + 2] = acc[o + 2]! + s[i + 2]! * a;
      acc[o + 3] = acc[o + 3]! + a;
    }
  }
  const small = new Uint8ClampedArray(w * h * 4);
  for (let by = 0; by < h; by++) {
    const bh = Math.min(f, H - by * f);
    for (let bx = 0; bx < w; bx++) {
      const o = (by * w + bx) * 4;
      const a = acc[o + 3]!;
      if (a === 0) continue;
      small[o] = acc[o]! / a;
      small[o + 1] = acc[o + 1]! / a;
      small[o + 2] = acc[o + 2]! / a;
      small[o + 3] = a / (bh * Math.min(f, W - bx * f));
    }
  }
  const blurred = await sharpBlur({ x: 0, y: 0, w, h, data: small }, sigma / f, NO_SIDES, true);
  // premultiplied floats of the small blurred image, then bilinear enlargement
  const pre = new Float32Array(w * h * 4);
  for (let i = 0; i < pre.length; i += 4) {
    const a = blurred[i + 3]!;
    pre[i] = (blurred[i]! * a) / 255;
    pre[i + 1] = (blurred[i + 1]! * a) / 255;
    pre[i + 2] = (blurred[i + 2]! * a) / 255;
    pre[i + 3] = a;
  }
  const axis = (n: number, size: number) => {
    const i0 = new Int32Array(n);
    const i1 = new Int32Array(n);
    const t = new Float32Array(n);
    for (let X = 0; X < n; X++) {
      const pos = Math.min(size - 1, Math.max(0, (X + 0.5) / f - 0.5));
      const lo = Math.floor(pos);
      i0[X] = lo;
      i1[X] = Math.min(size - 1, lo + 1);
      t[X] = pos - lo;
    }
    return { i0, i1, t };
  };
  const ax = axis(W, w);
  const ay = axis(H, h);
  const out = allocPixels(W * H * 4);
  for (let Y = 0; Y < H; Y++) {
    const r0 = ay.i0[Y]! * w;
    const r1 = ay.i1[Y]! * w;
    const ty = ay.t[Y]!;
    for (let X = 0; X < W; X++) {
      const tx = ax.t[X]!;
      const a00 = (r0 + ax.i0[X]!) * 4;
      const a01 = (r0 + ax.i1[X]!) * 4;
      const a10 = (r1 + ax.i0[X]!) * 4;
      const a11 = (r1 + ax.i1[X]!) * 4;
      const w00 = (1 - tx) * (1 - ty);
      const w01 = tx * (1 - ty);
      const w10 = (1 - tx) * ty;
      const w11 = tx * ty;
      const a = pre[a00 + 3]! * w00 + pre[a01 + 3]! * w01 + pre[a10 + 3]! * w10 + pre[a11 + 3]! * w11;
      if (a < 0.5) continue;
      const k = 255 / a;
      const o = (Y * W + X) * 4;
      out[o] = (pre[a00]! * w00 + pre[a01]! * w01 + pre[a10]! * w10 + pre[a11]! * w11) * k;
      out[o + 1] =
        (pre[a00 + 1]! * w00 + pre[a01 + 1]! * w01 + pre[a10 + 1]! * w10 + pre[a11 + 1]! * w11) * k;
      out[o + 2] =
        (pre[a00 + 2]! * w00 + pre[a01 + 2]! * w01 + pre[a10 + 2]! * w10 + pre[a11 + 2]! * w11) * k;
      out[o + 3] = a;
    }
  }
  return out;
}

/**
 * A separable Gaussian with taps at distance ≤ 2, on premultiplied floats: for σ < 0.5, where libvips'
 * integer mask is the identity or far off. Output covers `r` extended by `ext` (transparent beyond `r`), or
 * with `edge: 'copy'` the edge pixels repeat.
 */
function smallBlur(r: Raster, sigma: number, ext: Sides, edge: BlurOptions['edge']): Uint8ClampedArray {
  const reach = Math.min(2, Math.ceil(3 * sigma));
  const weights: number[] = [];
  let total = 0;
  for (let k = -reach; k <= reach; k++) {
    const v = Math.exp(-(k * k) / (2 * sigma * sigma));
    weights.push(v);
    total += v;
  }
  const wts = weights.map((v) => v / total);
  const W = r.w + ext.left + ext.right;
  const H = r.h + ext.top + ext.bottom;
  const pre = new Float32Array(W * H * 4);
  const s = r.data;
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < r.w; x++) {
      const i = (y * r.w + x) * 4;
      const o = ((y + ext.top) * W + x + ext.left) * 4;
      const a = s[i + 3]!;
      const k = a / 255;
      pre[o] = s[i]! * k;
      pre[o + 1] = s[i + 1]! * k;
      pre[o + 2] = s[i + 2]! * k;
      pre[o + 3] = a;
    }
  }
  const clampEdge = edge === 'copy';
  const pass = (src: Float32Array, horizontal: boolean): Float32Array => {
    const dst = new Float32Array(src.length);
    const len = horizontal ? W : H;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const pos = horizontal ? x : y;
        const o = (y * W + x) * 4;
        let c0 = 0;
        let c1 = 0;
        let c2 = 0;
        let c3 = 0;
        for (let k = -reach; k <= reach; k++) {
          let p = pos + k;
          if (p < 0 || p >= len) {
            if (!clampEdge) continue;
            p = p < 0 ? 0 : len - 1;
          }
          const j = horizontal ? (y * W + p) * 4 : (p * W + x) * 4;
          const w = wts[k + reach]!;
          c0 += src[j]! * w;
          c1 += src[j + 1]! * w;
          c2 += src[j + 2]! * w;
          c3 += src[j + 3]! * w;
        }
        dst[o] = c0;
        dst[o + 1] = c1;
        dst[o + 2] = c2;
        dst[o + 3] = c3;
      }
    }
    return dst;
  };
  const blurred = pass(pass(pre, true), false);
  const out = allocPixels(W * H * 4);
  for (let i = 0; i < out.length; i += 4) {
    const a = blurred[i + 3]!;
    if (a < 0.5) continue;
    const k = 255 / a;
    out[i] = blurred[i]! * k;
    out[i + 1] = blurred[i + 1]! * k;
    out[i + 2] = blurred[i + 2]! * k;
    out[i + 3] = a;
  }
  return out;
}

/** `blurred` (our own buffer, `original`'s rectangle) with `original`'s alpha: Photoshop's locked transparency. */
function withAlphaOf(blurred: Raster, original: Raster): Raster {
  const b = blurred.data;
  const o = original.data;
  for (let i = 0; i < b.length; i += 4) {
    const a = o[i + 3]!;
    if (b[i + 3] === 0) {
      // Nothing was blurred into this pixel: it keeps its own colour.
      b[i] = o[i]!;
      b[i + 1] = o[i + 1]!;
      b[i + 2] = o[i + 2]!;
    }
    b[i + 3] = a;
  }
  return blurred;
}
