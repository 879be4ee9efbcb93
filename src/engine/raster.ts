/** Rectangles and bounded RGBA rasters: the small shared vocabulary of every pixel operation. */
import { fail } from './errors.js';
import { mib, reservePixels } from './memory-budget.js';
import type { Mask, Raster, Rect, RGB } from './model.js';

export const EMPTY_RECT: Rect = Object.freeze({ x: 0, y: 0, w: 0, h: 0 });

export function isEmptyRect(r: Rect): boolean {
  return r.w <= 0 || r.h <= 0;
}

export function intersectRect(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const w = Math.min(a.x + a.w, b.x + b.w) - x;
  const h = Math.min(a.y + a.h, b.y + b.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : EMPTY_RECT;
}

export function unionRect(a: Rect, b: Rect): Rect {
  if (isEmptyRect(a)) return b;
  if (isEmptyRect(b)) return a;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

/** `r` grown by `by` pixels on every side. */
export function growRect(r: Rect, by: number): Rect {
  return { x: r.x - by, y: r.y - by, w: r.w + 2 * by, h: r.h + 2 * by };
}

export function rectOf(r: Rect): Rect {
  return { x: r.x, y: r.y, w: r.w, h: r.h };
}

// ---------------------------------------------------------------------------------------------------------
// Pixel memory
//
// Every pixel buffer that can end up in a document (layer rasters, smart-object sources, text renderings,
// layer and selection masks, effect rasters, composites) lives on a SharedArrayBuffer, so that the
// compositor's worker thread can read it, and write its share of a composite, without a copy
// (composite/parallel.ts). The types stay Uint8ClampedArray / Uint8Array: only the backing store differs.
// A buffer that is not shared still works everywhere; the compositor just renders it on one thread.
//
// Results of sharp and canvas arrive in ordinary Node memory; `sharePixels` / `shareMask` copy them into
// shared memory: one memcpy, 20–30 ms per 64 MB on the two-core machine (the same as copying into an
// ordinary buffer), against the hundreds of ms of the sharp operation that produced them.
//
// One catch: V8 counts an ArrayBuffer's bytes towards the pressure that schedules garbage collection, but
// not a SharedArrayBuffer's (its per-isolate accounting length is 0). Dropped layers would then wait for an
// unrelated collection: allocating and dropping 64 MB shared buffers in a loop reaches gigabytes before V8
// collects anything. So each shared buffer of some size carries a weight: a resizable ArrayBuffer of the
// same length, never touched, kept in a WeakMap keyed by the shared buffer. V8 reserves and commits its
// pages without writing them (no resident memory), counts its length as external memory, and frees it with
// its key, so collections are scheduled as if the pixels were in an ordinary ArrayBuffer.
//
// Buffers of that size are also made "growable" with a maximum equal to their length (they never grow):
// V8 then maps their pages directly instead of going through malloc, so a freed layer goes straight back
// to the system rather than into malloc's arenas. Views are created with an explicit length (fixed-length,
// as fast as on any buffer). Such buffers do not show in process.memoryUsage().arrayBuffers (V8 counts
// them, through their weights, in `external`).

/** Below this size a buffer carries no weight: small ones hardly matter, and a weight costs an mmap. */
const WEIGHT_MIN_BYTES = 64 * 1024;
const weights = new WeakMap<SharedArrayBuffer, ArrayBuffer>();
/** `new ArrayBuffer(length, { maxByteLength })` (ES2024; lib ES2023 does not declare the option). */
const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  length: number,
  options: { maxByteLength: number },
) => ArrayBuffer;

/** `new SharedArrayBuffer(length, { maxByteLength })` (ES2024 growable; lib ES2023 lacks the option). */
const GrowableSharedArrayBuffer = SharedArrayBuffer as unknown as new (
  length: number,
  options: { maxByteLength: number },
) => SharedArrayBuffer;

function sharedBuffer(byteLength: number): SharedArrayBuffer {
  // Refused here, before it exists, when it would take the session running this call over its memory budget.
  if (byteLength >= WEIGHT_MIN_BYTES) reservePixels(byteLength);
  let sab: SharedArrayBuffer;
  try {
    sab =
      byteLength >= WEIGHT_MIN_BYTES
        ? new GrowableSharedArrayBuffer(byteLength, { maxByteLength: byteLength })
        : new SharedArrayBuffer(byteLength);
  } catch (err) {
    // Past what one buffer may hold, or what the machine can give (where no session budget refused it first): a
    // refusal the caller can act on, not an internal error.
    if (!(err instanceof RangeError)) throw err;
    fail('out_of_bounds', `需要约 ${mib(byteLength)} 像素内存，无法分配`, {
      hint: '减小画布、图层或图像的尺寸，或关闭不用的文档后重试',
    });
  }
  weighShared(sab);
  return sab;
}

/**
 * Gives a shared buffer of some size its weight in this thread's heap, once. `allocPixels` does it for the
 * buffers it makes; a buffer allocated by another thread (a worker's result) needs it here too.
 */
export function weighShared(buffer: ArrayBufferLike): void {
  if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength < WEIGHT_MIN_BYTES || weights.has(buffer)) {
    return;
  }
  try {
    weights.set(buffer, new ResizableArrayBuffer(buffer.byteLength, { maxByteLength: buffer.byteLength }));
  } catch {
    // No address space for the weight (strict overcommit): the buffer still works, collected later.
  }
}

/** Whether a buffer lives in shared memory (so a worker can read it without a copy); empty ones count. */
export function isSharedBuffer(a: ArrayBufferView): boolean {
  return a.byteLength === 0 || a.buffer instanceof SharedArrayBuffer;
}

/** A zeroed RGBA pixel buffer of `byteLength` bytes in shared memory. */
export function allocPixels(byteLength: number): Uint8ClampedArray {
  const n = Math.max(0, byteLength);
  return new Uint8ClampedArray(sharedBuffer(n), 0, n);
}

/** A zeroed one-channel mask buffer of `length` bytes in shared memory. */
export function allocMask(length: number): Uint8Array {
  const n = Math.max(0, length);
  return new Uint8Array(sharedBuffer(n), 0, n);
}

/**
 * `src`'s bytes as pixels in shared memory: a view of the same bytes when `src` is already shared, otherwise
 * a copy (sharp's and canvas's output, ag-psd's decoded data).
 */
export function sharePixels(src: Uint8Array | Uint8ClampedArray): Uint8ClampedArray {
  if (isSharedBuffer(src)) return new Uint8ClampedArray(src.buffer, src.byteOffset, src.byteLength);
  return copyPixels(src);
}

/** `src`'s bytes as a mask in shared memory: a view when already shared, otherwise a copy. */
export function shareMask(src: Uint8Array | Uint8ClampedArray): Uint8Array {
  if (isSharedBuffer(src)) return new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
  const out = allocMask(src.byteLength);
  out.set(bytesOf(src));
  return out;
}

/** A copy of `src` in shared memory (for `data.slice()` / `new Uint8ClampedArray(data)`, which are not). */
export function copyPixels(src: Uint8Array | Uint8ClampedArray): Uint8ClampedArray {
  const out = allocPixels(src.byteLength);
  new Uint8Array(out.buffer).set(bytesOf(src));
  return out;
}

/** A plain byte view, so that `set` is one memcpy (between different element types it goes value by value). */
function bytesOf(a: Uint8Array | Uint8ClampedArray): Uint8Array {
  return a instanceof Uint8Array ? a : new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

export function emptyRaster(): Raster {
  return { x: 0, y: 0, w: 0, h: 0, data: allocPixels(0) };
}

/** A transparent raster covering `rect`. */
export function blankRaster(rect: Rect): Raster {
  return { ...rectOf(rect), data: allocPixels(rect.w * rect.h * 4) };
}

export function solidRaster(rect: Rect, color: RGB, alpha = 255): Raster {
  const out = blankRaster(rect);
  const d = out.data;
  for (let i = 0; i < d.length; i += 4) {
    d[i] = color.r;
    d[i + 1] = color.g;
    d[i + 2] = color.b;
    d[i + 3] = alpha;
  }
  return out;
}

/** The part of `src` inside `rect` (transparent where `src` has no pixels). */
export function cropRaster(src: Raster, rect: Rect): Raster {
  const out = blankRaster(rect);
  const common = intersectRect(src, rect);
  for (let row = 0; row < common.h; row++) {
    const sy = common.y + row - src.y;
    const dy = common.y + row - rect.y;
    const s = (sy * src.w + (common.x - src.x)) * 4;
    const d = (dy * rect.w + (common.x - rect.x)) * 4;
    out.data.set(src.data.subarray(s, s + common.w * 4), d);
  }
  return out;
}

/**
 * The tight bounds, in grid coordinates, of the cells of a `w × h` grid for which `marked` holds (`rowMarked`
 * says whether row `y` has any); empty when none does.
 */
export function markedBounds(
  w: number,
  h: number,
  marked: (x: number, y: number) => boolean,
  rowMarked: (y: number) => boolean,
): Rect {
  // From the edges inwards: content usually reaches near them, so most cells are never read.
  let top = 0;
  while (top < h && !rowMarked(top)) top++;
  if (top === h) return EMPTY_RECT;
  let bottom = h - 1;
  while (!rowMarked(bottom)) bottom--;
  let minX = w;
  let maxX = -1;
  for (let y = top; y <= bottom; y++) {
    for (let x = 0; x < minX; x++) {
      if (marked(x, y)) {
        minX = x;
        break;
      }
    }
    for (let x = w - 1; x > maxX; x--) {
      if (marked(x, y)) {
        maxX = x;
        break;
      }
    }
  }
  return { x: minX, y: top, w: maxX - minX + 1, h: bottom - top + 1 };
}

/** The tight bounds of pixels with alpha > 0, in document coordinates; empty when all transparent. */
export function alphaBounds(r: Raster): Rect {
  const d = r.data;
  const w = r.w;
  const ink = (x: number, y: number) => d[(y * w + x) * 4 + 3] !== 0;
  const rowHasInk = (y: number) => {
    for (let x = 0; x < w; x++) if (ink(x, y)) return true;
    return false;
  };
  const b = markedBounds(w, r.h, ink, rowHasInk);
  return isEmptyRect(b) ? EMPTY_RECT : { ...b, x: r.x + b.x, y: r.y + b.y };
}

/** `r` cropped to its non-transparent pixels (the same object when already tight). */
export function trimRaster(r: Raster): Raster {
  const b = alphaBounds(r);
  if (isEmptyRect(b)) return emptyRaster();
  if (b.x === r.x && b.y === r.y && b.w === r.w && b.h === r.h) return r;
  return cropRaster(r, b);
}

/** The mask value at document position x, y. */
export function maskAt(m: Mask, x: number, y: number): number {
  const mx = x - m.x;
  const my = y - m.y;
  if (mx < 0 || my < 0 || mx >= m.w || my >= m.h) return m.outside;
  return m.data[my * m.w + mx]!;
}

export function hexToRgb(hex: string): RGB {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function rgbToHex(c: RGB): string {
  return `#${[c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
}

/** The part of a mask inside `rect` (the same object when it already lies inside). */
export function cropMask<T extends Mask>(m: T, rect: Rect): T {
  const common = intersectRect(m, rect);
  if (common.x === m.x && common.y === m.y && common.w === m.w && common.h === m.h) return m;
  const data = allocMask(common.w * common.h);
  for (let row = 0; row < common.h; row++) {
    const s = (common.y + row - m.y) * m.w + (common.x - m.x);
    data.set(m.data.subarray(s, s + common.w), row * common.w);
  }
  return { ...m, ...common, data };
}
