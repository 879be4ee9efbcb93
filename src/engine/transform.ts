/**
 * Pixel transforms of bounded rasters and masks: scale, rotate and flip about a pivot in document pixels.
 *
 * Resampling is sharp's (engine.md §2.1): lanczos3 for scaling, bicubic for rotation (bilinear for masks),
 * with premultiplied alpha so transparent edges get no dark fringe. Scaling a raster that has transparency
 * goes through 16 bits with headroom (see `WIDE`) so lanczos overshoot cannot brighten opaque edges either.
 * Flips and rotations by multiples of 90° are exact pixel moves done here, without resampling. Only the
 * raster's own rectangle goes through sharp, as raw pixels (masks as one channel). Inputs are never modified;
 * a result is a new buffer, except that an unchanged size or identity placement shares the input's.
 *
 * Placement. sharp's `affine` maps input pixel index p to output index M·p − (L, T) + (odx, ody), where (L, T)
 * rounds the minimum of M applied to the corners (0,0), (w,0), (0,h), (w,h) and does not depend on the offsets
 * (libvips' convention, checked by test/engine/transform.test.ts). A layer's position is whole pixels, so the
 * rest of the way to where the rotation about the pivot sends the input's centre goes into the resampling as
 * (odx, ody): the centre lands exactly there, and rotations repeated about the content's centre do not drift.
 */

import { fail } from './errors.js';
import { reservePixels } from './memory-budget.js';
import type { Mask, Raster, Rect } from './model.js';
import { allocMask, allocPixels, shareMask, sharePixels, trimRaster } from './raster.js';
import sharp from './sharp.js';

export interface Point {
  readonly x: number;
  readonly y: number;
}

export type FlipAxis = 'horizontal' | 'vertical';

/** The largest result a transform may produce: sharp's default pixel limit (0x3FFF², 1 GiB as RGBA). */
export const MAX_TRANSFORM_PIXELS = 0x3fff * 0x3fff;

/**
 * Transparent padding around a raster before an arbitrary rotation, so the output never clips content: bicubic
 * reaches a pixel beyond an edge, libvips' rounding of the output box takes up to half a pixel and the sub-pixel
 * offset of the placement up to another half.
 */
const PAD = 3;
const EPS = 1e-9;

type Pixels = Uint8Array | Uint8ClampedArray;

/** A rectangle of pixels with 1 (mask) or 4 (straight RGBA) channels. x, y may be fractional in between steps. */
interface Plane extends Rect {
  readonly data: Pixels;
}

/** A new buffer of `like`'s kind, in shared memory (results end up in documents; see raster.ts). */
function sameKind(like: Pixels, length: number): Pixels {
  return like instanceof Uint8ClampedArray ? allocPixels(length) : allocMask(length);
}

/** sharp's output as `like`'s kind, copied into shared memory (one memcpy, small beside the operation). */
function fromBuffer(like: Pixels, buf: Buffer): Pixels {
  return like instanceof Uint8ClampedArray ? sharePixels(buf) : shareMask(buf);
}

function rawInput(data: Pixels, w: number, h: number, channels: 1 | 4) {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return sharp(buf, { raw: { width: w, height: h, channels }, limitInputPixels: false });
}

/** Whole pixels, without negative zero. */
function whole(v: number): number {
  return Math.round(v) + 0;
}

/** Degrees normalised to [0, 360). */
export function normaliseAngle(deg: number): number {
  const a = deg % 360;
  return a < 0 ? a + 360 : a;
}

/**
 * The same turn in (−180°, 180°]: `%` is exact for any finite double, where `deg * π / 180` overflows to
 * Infinity above ~5.7e307 and its sine is NaN.
 */
export function equivalentAngle(deg: number): number {
  const a = deg % 360;
  return a > 180 ? a - 360 : a <= -180 ? a + 360 : a;
}

/** 0–3 quarter turns when `deg` is a multiple of 90°, otherwise null. */
export function quarterTurns(deg: number): 0 | 1 | 2 | 3 | null {
  const a = normaliseAngle(deg);
  const q = Math.round(a / 90);
  if (Math.abs(a - q * 90) > EPS) return null;
  return (q % 4) as 0 | 1 | 2 | 3;
}

/**
 * Refuses results too large to hold, and reserves in the session's memory budget the result sharp delivers in
 * ordinary memory (copied into shared memory after, which is charged then).
 */
export function assertTransformSize(w: number, h: number): void {
  if (w * h > MAX_TRANSFORM_PIXELS) {
    fail('out_of_bounds', `变换结果为 ${w}×${h} 像素，超过上限（约 2.68 亿像素）`, {
      hint: '使用更小的缩放比例',
    });
  }
  reservePixels(w * h * 4);
}

/** The exact (unrounded) bounding box size of a w × h rectangle rotated by `deg`. */
export function rotatedSize(w: number, h: number, deg: number): { w: number; h: number } {
  const r = (equivalentAngle(deg) * Math.PI) / 180;
  const c = Math.abs(Math.cos(r));
  const s = Math.abs(Math.sin(r));
  return { w: w * c + h * s, h: w * s + h * c };
}

// ---------------------------------------------------------------------------------------------------------
// Exact pixel moves

/**
 * One element per pixel: a 32-bit view of RGBA (copied first if the buffer is not 4-byte aligned), or the
 * bytes of a one-channel plane. Exact moves then copy one element per pixel.
 */
function pixelWords(data: Pixels, channels: number): Uint32Array | Uint8Array {
  if (channels === 1) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const aligned = data.byteOffset % 4 === 0 ? data : new Uint8Array(data);
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
}

function flipData(p: Plane, axis: FlipAxis, channels: number): Pixels {
  const { w, h, data } = p;
  const out = sameKind(data, data.length);
  if (axis === 'vertical') {
    const row = w * channels;
    for (let y = 0; y < h; y++) out.set(data.subarray(y * row, (y + 1) * row), (h - 1 - y) * row);
    return out;
  }
  const src = pixelWords(data, channels);
  const dst = pixelWords(out, channels);
  for (let y = 0; y < h; y++) {
    const base = y * w;
    const last = base + w - 1;
    for (let x = 0; x < w; x++) dst[last - x] = src[base + x]!;
  }
  return out;
}

/** Rotates pixel data by quarter turns clockwise; returns the new data and size. */
function turnData(p: Plane, q: 1 | 2 | 3, channels: number): { data: Pixels; w: number; h: number } {
  const { w, h, data } = p;
  const out = sameKind(data, data.length);
  const src = pixelWords(data, channels);
  const dst = pixelWords(out, channels);
  if (q === 2) {
    const n = w * h;
    for (let i = 0; i < n; i++) dst[n - 1 - i] = src[i]!;
    return { data: out, w, h };
  }
  // The new image is h wide and w tall. Clockwise: (x, y) → (h-1-y, x); anticlockwise: (x, y) → (y, w-1-x).
  const nw = h;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    if (q === 1) {
      const nx = h - 1 - y;
      for (let x = 0; x < w; x++) dst[x * nw + nx] = src[row + x]!;
    } else {
      for (let x = 0; x < w; x++) dst[(w - 1 - x) * nw + y] = src[row + x]!;
    }
  }
  return { data: out, w: nw, h: w };
}

/** Pixel data (`w` × `h`, 1 or 4 channels) turned `q` quarter turns clockwise, exactly (h × w for odd q). */
export function turnPixels<T extends Pixels>(
  data: T,
  w: number,
  h: number,
  q: 0 | 1 | 2 | 3,
  channels: 1 | 4,
): T {
  return q === 0 ? data : (turnData({ x: 0, y: 0, w, h, data }, q, channels).data as T);
}

// ---------------------------------------------------------------------------------------------------------
// Resampling with sharp

/**
 * 8-bit RGBA values are scaled by this into 16 bits for resampling. sharp premultiplies and then casts back
 * to the input's format, so in 8 bits lanczos overshoot at an opaque edge clamps alpha at 255 but not the
 * colour, and the edge comes out up to 25 levels too bright. Headroom (255 × 180 = 45900 of 65535) keeps
 * the overshoot (≤ 1.28× at a corner) unclamped until the colour has been divided by its own alpha again.
 */
const WIDE = 180;

function isOpaque(data: Pixels): boolean {
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return false;
  return true;
}

async function resampleData(p: Plane, w: number, h: number, channels: 1 | 4): Promise<Pixels> {
  assertTransformSize(w, h);
  // Masks, and opaque rasters (alpha stays exactly 255), have nothing to unpremultiply: 8 bits are exact.
  if (channels === 1 || isOpaque(p.data)) {
    let img = rawInput(p.data, p.w, p.h, channels).resize(w, h, { fit: 'fill', kernel: 'lanczos3' });
    if (channels === 1) img = img.extractChannel(0);
    const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
    if (info.width !== w || info.height !== h || info.channels !== channels) {
      fail('internal', `缩放结果尺寸异常：${info.width}×${info.height}×${info.channels}`);
    }
    return fromBuffer(p.data, data);
  }
  const wide = new Uint16Array(p.data.length);
  for (let i = 0; i < wide.length; i++) wide[i] = p.data[i]! * WIDE;
  const { data, info } = await sharp(wide, {
    raw: { width: p.w, height: p.h, channels: 4 },
    limitInputPixels: false,
  })
    .resize(w, h, { fit: 'fill', kernel: 'lanczos3' })
    .toColourspace('rgb16')
    .raw({ depth: 'ushort' })
    .toBuffer({ resolveWithObject: true });
  if (info.width !== w || info.height !== h || info.channels !== 4 || data.byteLength !== w * h * 8) {
    fail('internal', `缩放结果尺寸异常：${info.width}×${info.height}×${info.channels}`);
  }
  const out16 =
    data.byteOffset % 2 === 0
      ? new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2)
      : new Uint16Array(new Uint8Array(data).buffer);
  const out = allocPixels(out16.length);
  for (let i = 0; i < out.length; i++) out[i] = out16[i]! / WIDE; // clamped and rounded by the array
  return out;
}

function pad(p: Plane, channels: number, left: number, top: number, right: number, bottom: number): Plane {
  const w = p.w + left + right;
  const h = p.h + top + bottom;
  const out = sameKind(p.data, w * h * channels);
  const row = p.w * channels;
  for (let y = 0; y < p.h; y++) {
    out.set(p.data.subarray(y * row, (y + 1) * row), ((y + top) * w + left) * channels);
  }
  return { x: p.x - left, y: p.y - top, w, h, data: out };
}

function nearHalf(v: number): boolean {
  return Math.abs(v - Math.floor(v) - 0.5) < 1e-6;
}

/** The output box libvips computes for matrix [a, b; c, d] over a w × h input. */
function outputArea(a: number, b: number, c: number, d: number, w: number, h: number) {
  const xs = [0, a * w, b * h, a * w + b * h];
  const ys = [0, c * w, d * h, c * w + d * h];
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  return {
    minX,
    minY,
    left: Math.round(minX),
    top: Math.round(minY),
    w: Math.round(Math.max(...xs)) - Math.round(minX),
    h: Math.round(Math.max(...ys)) - Math.round(minY),
  };
}

/**
 * Rotates a plane by `deg` clockwise (not a multiple of 90) so its centre lands at `centre`.
 * RGBA: transparent outside, bicubic, trimmed. One channel: `outside` beyond the plane, bilinear (no overshoot).
 */
async function rotateFree(
  p: Plane,
  deg: number,
  centre: Point,
  channels: 1 | 4,
  outside = 0,
): Promise<Plane> {
  const r = (deg * Math.PI) / 180;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  const box = rotatedSize(p.w + 2 * PAD, p.h + 2 * PAD, deg);
  assertTransformSize(Math.ceil(box.w) + 1, Math.ceil(box.h) + 1);

  // A tie in libvips' rounding of the output box would make the placement ambiguous by a pixel; an extra
  // column or row of padding moves the corners off the tie.
  let area = outputArea(cos, -sin, sin, cos, p.w + 2 * PAD, p.h + 2 * PAD);
  let extraX = 0;
  let extraY = 0;
  for (const [ex, ey] of [
    [1, 0],
    [0, 1],
    [1, 1],
  ] as const) {
    if (!nearHalf(area.minX) && !nearHalf(area.minY)) break;
    extraX = ex;
    extraY = ey;
    area = outputArea(cos, -sin, sin, cos, p.w + 2 * PAD + ex, p.h + 2 * PAD + ey);
  }

  // One channel with outside 255: rotate the complement, so new pixels (0) mean "outside".
  let src = p.data;
  if (channels === 1 && outside === 255) {
    const inv = new Uint8Array(src.length);
    for (let i = 0; i < src.length; i++) inv[i] = 255 - src[i]!;
    src = inv;
  }
  const padded = pad({ ...p, data: src }, channels, PAD, PAD, PAD + extraX, PAD + extraY);

  // Where the plane's centre lands in the output without offsets (continuous, pixel centres at +0.5), and the
  // whole-pixel position plus sub-pixel offset that put it exactly at `centre`.
  const ux = (p.w - 1) / 2 + PAD;
  const uy = (p.h - 1) / 2 + PAD;
  const x = centre.x - (cos * ux - sin * uy - area.left + 0.5);
  const y = centre.y - (sin * ux + cos * uy - area.top + 0.5);
  const [left, top] = [whole(x), whole(y)];

  let img = rawInput(padded.data, padded.w, padded.h, channels).affine([cos, -sin, sin, cos], {
    background: channels === 4 ? { r: 0, g: 0, b: 0, alpha: 0 } : '#000000',
    interpolator: channels === 4 ? 'bicubic' : 'bilinear',
    odx: x - left,
    ody: y - top,
  });
  if (channels === 1) img = img.extractChannel(0);
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  if (Math.abs(info.width - area.w) > 1 || Math.abs(info.height - area.h) > 1 || info.channels !== channels) {
    fail('internal', `旋转结果尺寸异常：${info.width}×${info.height}，预期 ${area.w}×${area.h}`);
  }

  const out = fromBuffer(p.data, data);
  if (channels === 1 && outside === 255) for (let i = 0; i < out.length; i++) out[i] = 255 - out[i]!;
  return { x: left, y: top, w: info.width, h: info.height, data: out };
}

// ---------------------------------------------------------------------------------------------------------
// Plane transforms about a pivot

function centreOf(r: Rect): Point {
  return { x: r.x + r.w / 2, y: r.y + r.h / 2 };
}

/** Where rotating `pt` about `pivot` by `deg` clockwise (y down) sends it. Exact for quarter turns. */
export function rotatePoint(pt: Point, pivot: Point, deg: number): Point {
  const dx = pt.x - pivot.x;
  const dy = pt.y - pivot.y;
  const q = quarterTurns(deg);
  if (q !== null) {
    const [x, y] = [
      [dx, dy],
      [-dy, dx],
      [-dx, -dy],
      [dy, -dx],
    ][q]!;
    return { x: pivot.x + x!, y: pivot.y + y! };
  }
  const r = (equivalentAngle(deg) * Math.PI) / 180;
  const c = Math.cos(r);
  const s = Math.sin(r);
  return { x: pivot.x + c * dx - s * dy, y: pivot.y + s * dx + c * dy };
}

async function scalePlane(p: Plane, sx: number, sy: number, pivot: Point, channels: 1 | 4): Promise<Plane> {
  const x0 = whole(pivot.x + (p.x - pivot.x) * sx);
  const y0 = whole(pivot.y + (p.y - pivot.y) * sy);
  const w = Math.max(1, whole(pivot.x + (p.x + p.w - pivot.x) * sx) - x0);
  const h = Math.max(1, whole(pivot.y + (p.y + p.h - pivot.y) * sy) - y0);
  if (w === p.w && h === p.h) return { ...p, x: x0, y: y0 };
  return { x: x0, y: y0, w, h, data: await resampleData(p, w, h, channels) };
}

async function rotatePlane(
  p: Plane,
  deg: number,
  pivot: Point,
  channels: 1 | 4,
  outside = 0,
): Promise<Plane> {
  const target = rotatePoint(centreOf(p), pivot, deg);
  const q = quarterTurns(deg);
  if (q === null) return rotateFree(p, normaliseAngle(deg), target, channels, outside);
  if (q === 0) return { ...p, x: whole(target.x - p.w / 2), y: whole(target.y - p.h / 2) };
  const turned = turnData(p, q, channels);
  return {
    x: whole(target.x - turned.w / 2),
    y: whole(target.y - turned.h / 2),
    w: turned.w,
    h: turned.h,
    data: turned.data,
  };
}

function flipPlane(p: Plane, axis: FlipAxis, pivot: Point, channels: number): Plane {
  const data = flipData(p, axis, channels);
  return axis === 'horizontal'
    ? { ...p, x: whole(2 * pivot.x - (p.x + p.w)), data }
    : { ...p, y: whole(2 * pivot.y - (p.y + p.h)), data };
}

// ---------------------------------------------------------------------------------------------------------
// Rasters (straight RGBA) and masks

function isEmpty(r: Rect): boolean {
  return r.w <= 0 || r.h <= 0;
}

/** Scales a raster about `pivot` by factors `sx`, `sy` (> 0), lanczos3. Same size: the buffer is shared. */
export async function scaleRaster(r: Raster, sx: number, sy: number, pivot: Point): Promise<Raster> {
  if (isEmpty(r)) return r;
  const out = await scalePlane(r, sx, sy, pivot, 4);
  return { x: out.x, y: out.y, w: out.w, h: out.h, data: out.data as Uint8ClampedArray };
}

/**
 * Rotates a raster about `pivot` by `deg` clockwise: exact for multiples of 90°, otherwise bicubic with a
 * transparent background, so the bounds grow (200×100 at 33° → 222×193); the result is trimmed.
 */
export async function rotateRaster(r: Raster, deg: number, pivot: Point): Promise<Raster> {
  if (isEmpty(r)) return r;
  const out = await rotatePlane(r, deg, pivot, 4);
  const raster: Raster = { x: out.x, y: out.y, w: out.w, h: out.h, data: out.data as Uint8ClampedArray };
  return quarterTurns(deg) === null ? trimRaster(raster) : raster;
}

/** Mirrors a raster about the vertical (horizontal flip) or horizontal line through `pivot`. Exact. */
export function flipRaster(r: Raster, axis: FlipAxis, pivot: Point): Raster {
  if (isEmpty(r)) return r;
  const out = flipPlane(r, axis, pivot, 4);
  return { x: out.x, y: out.y, w: out.w, h: out.h, data: out.data as Uint8ClampedArray };
}

export async function scaleMask<M extends Mask>(m: M, sx: number, sy: number, pivot: Point): Promise<M> {
  if (isEmpty(m)) return m;
  const out = await scalePlane(m, sx, sy, pivot, 1);
  return { ...m, x: out.x, y: out.y, w: out.w, h: out.h, data: out.data as Uint8Array };
}

/** Rotates a mask; the area it newly covers takes its `outside` value. */
export async function rotateMask<M extends Mask>(m: M, deg: number, pivot: Point): Promise<M> {
  if (isEmpty(m)) return m;
  const out = await rotatePlane(m, deg, pivot, 1, m.outside);
  return { ...m, x: out.x, y: out.y, w: out.w, h: out.h, data: out.data as Uint8Array };
}

export function flipMask<M extends Mask>(m: M, axis: FlipAxis, pivot: Point): M {
  if (isEmpty(m)) return m;
  const out = flipPlane(m, axis, pivot, 1);
  return { ...m, x: out.x, y: out.y, data: out.data as Uint8Array };
}

/**
 * Renders pixels at a fractional placement: `data` (w × h) scaled to `scale` size, flipped, then rotated by
 * `deg` clockwise about its centre, which lands at `centre`. Used to render smart objects from their source.
 */
export async function placePixels(
  src: Raster,
  size: { w: number; h: number },
  flip: { x: boolean; y: boolean },
  deg: number,
  centre: Point,
): Promise<Raster> {
  if (isEmpty(src)) return src;
  assertTransformSize(size.w, size.h);
  let p: Plane = src;
  if (size.w !== src.w || size.h !== src.h) {
    p = { ...p, w: size.w, h: size.h, data: await resampleData(src, size.w, size.h, 4) };
  }
  if (flip.x) p = { ...p, data: flipData(p, 'horizontal', 4) };
  if (flip.y) p = { ...p, data: flipData(p, 'vertical', 4) };
  p = { ...p, x: centre.x - p.w / 2, y: centre.y - p.h / 2 };
  const out = await rotatePlane(p, deg, centre, 4);
  const raster: Raster = { x: out.x, y: out.y, w: out.w, h: out.h, data: out.data as Uint8ClampedArray };
  return quarterTurns(deg) === null ? trimRaster(raster) : raster;
}
