/**
 * Where an adjustment applies: the whole layer, or the part of it the selection covers, with feathered edges
 * blended by the mask value (Photoshop applies a filter, then mixes old and new pixels by the selection). The
 * selection is document-space; a layer raster has its own offset.
 */
import type { Mask, Raster, Rect } from '../model.js';
import { allocPixels, copyPixels, cropRaster, EMPTY_RECT, isEmptyRect } from '../raster.js';
import { uniformInside } from '../selection.js';
import type { ColorKernel } from './lut.js';

/**
 * A run of pixels on one row of `r`: bytes [from, to) of `r.data`. `mask` is null when every pixel of the run is
 * fully selected; otherwise pixel k of the run has selection value `mask[mi + k]`.
 */
export type RunVisitor = (from: number, to: number, mask: Uint8Array | null, mi: number) => void;

/** Visits, row by row, every part of `r` the selection may cover (all of `r` without a selection). */
export function forEachSelectedRun(r: Rect, selection: Mask | null, visit: RunVisitor): void {
  if (isEmptyRect(r)) return;
  if (!selection) {
    visit(0, r.w * r.h * 4, null, 0);
    return;
  }
  const s = selection;
  const x0 = Math.max(r.x, s.x);
  const x1 = Math.min(r.x + r.w, s.x + s.w);
  const full = s.outside === 255;
  const uniform = uniformInside(s);
  for (let row = 0; row < r.h; row++) {
    const y = r.y + row;
    const base = row * r.w;
    const inMaskRow = y >= s.y && y < s.y + s.h && x1 > x0;
    if (!inMaskRow) {
      if (full) visit(base * 4, (base + r.w) * 4, null, 0);
      continue;
    }
    if (full && x0 > r.x) visit(base * 4, (base + x0 - r.x) * 4, null, 0);
    // A rectangle stored without pixels is read by its value: fully selected, or not at all (a hole).
    if (uniform === undefined) {
      visit((base + x0 - r.x) * 4, (base + x1 - r.x) * 4, s.data, (y - s.y) * s.w + (x0 - s.x));
    } else if (uniform === 255) {
      visit((base + x0 - r.x) * 4, (base + x1 - r.x) * 4, null, 0);
    }
    if (full && x1 < r.x + r.w) visit((base + x1 - r.x) * 4, (base + r.w) * 4, null, 0);
  }
}

/** Whether any pixel of `r` with alpha > 0 is (at least partly) selected. */
export function hasSelectedPixels(r: Raster, selection: Mask | null): boolean {
  const d = r.data;
  let found = false;
  forEachSelectedRun(r, selection, (from, to, mask, mi) => {
    if (found) return;
    for (let i = from, k = mi; i < to; i += 4, k++) {
      if (d[i + 3] !== 0 && (mask === null || mask[k] !== 0)) {
        found = true;
        return;
      }
    }
  });
  return found;
}

/** Whether the selection covers any part of `rect`. */
export function selectionTouches(rect: Rect, selection: Mask | null): boolean {
  if (isEmptyRect(rect)) return false;
  let found = false;
  forEachSelectedRun(rect, selection, (from, to, mask, mi) => {
    if (found) return;
    if (mask === null) {
      found = to > from;
      return;
    }
    for (let k = mi, n = mi + (to - from) / 4; k < n; k++) {
      if (mask[k] !== 0) {
        found = true;
        return;
      }
    }
  });
  return found;
}

/**
 * A colour adjustment of `r`: the kernel's output where the selection is full, the original where it is empty,
 * and in between mixed by the mask value. Alpha is unchanged (the kernels keep it), so a straight mix is exact.
 */
export function applyColorKernel(r: Raster, kernel: ColorKernel, selection: Mask | null): Raster {
  const src = r.data;
  if (!selection) {
    const dst = allocPixels(src.length); // shared memory, as every document buffer (raster.ts)
    kernel(src, dst, 0, src.length);
    return { x: r.x, y: r.y, w: r.w, h: r.h, data: dst };
  }
  const dst = copyPixels(src);
  forEachSelectedRun(r, selection, (from, to, mask, mi) => {
    kernel(src, dst, from, to);
    if (mask === null) return;
    for (let i = from, k = mi; i < to; i += 4, k++) {
      const m = mask[k]!;
      if (m === 255) continue;
      if (m === 0) {
        dst[i] = src[i]!;
        dst[i + 1] = src[i + 1]!;
        dst[i + 2] = src[i + 2]!;
        continue;
      }
      const t = m / 255;
      dst[i] = src[i]! + (dst[i]! - src[i]!) * t;
      dst[i + 1] = src[i + 1]! + (dst[i + 1]! - src[i + 1]!) * t;
      dst[i + 2] = src[i + 2]! + (dst[i + 2]! - src[i + 2]!) * t;
    }
  });
  return { x: r.x, y: r.y, w: r.w, h: r.h, data: dst };
}

/**
 * `adjusted` (whose rectangle contains `original`'s) limited to the selection: outside it the original pixels
 * (transparent beyond the original raster), inside it the adjusted ones, and on feathered edges the two mixed
 * by the mask value with premultiplied alpha (so a blur's spreading edge fades without darkening).
 */
export function blendBySelection(original: Raster, adjusted: Raster, selection: Mask | null): Raster {
  if (!selection) return adjusted;
  const out = cropRaster(original, adjusted);
  const o = out.data;
  const a = adjusted.data;
  forEachSelectedRun(adjusted, selection, (from, to, mask, mi) => {
    if (mask === null) {
      o.set(a.subarray(from, to), from);
      return;
    }
    for (let i = from, k = mi; i < to; i += 4, k++) {
      const m = mask[k]!;
      if (m === 0) continue;
      if (m === 255) {
        o[i] = a[i]!;
        o[i + 1] = a[i + 1]!;
        o[i + 2] = a[i + 2]!;
        o[i + 3] = a[i + 3]!;
        continue;
      }
      const t = m / 255;
      const ao = o[i + 3]!;
      const aa = a[i + 3]!;
      if (ao === aa) {
        o[i] = o[i]! + (a[i]! - o[i]!) * t;
        o[i + 1] = o[i + 1]! + (a[i + 1]! - o[i + 1]!) * t;
        o[i + 2] = o[i + 2]! + (a[i + 2]! - o[i + 2]!) * t;
        continue;
      }
      const alpha = ao + (aa - ao) * t;
      if (alpha <= 0) {
        o[i] = o[i + 1] = o[i + 2] = o[i + 3] = 0;
        continue;
      }
      const wo = (ao * (1 - t)) / alpha;
      const wa = (aa * t) / alpha;
      o[i] = o[i]! * wo + a[i]! * wa;
      o[i + 1] = o[i + 1]! * wo + a[i + 1]! * wa;
      o[i + 2] = o[i + 2]! * wo + a[i + 2]! * wa;
      o[i + 3] = alpha;
    }
  });
  return out;
}

/**
 * The tight bounds of the pixels with alpha > 0, scanning inwards from each edge (cheap when the content
 * reaches the edges, as a blurred or opaque layer does). Document coordinates; empty when all transparent.
 */
export function opaqueBounds(r: Raster): Rect {
  const { w, h, data: d } = r;
  const rowHas = (y: number, x0: number, x1: number) => {
    for (let i = (y * w + x0) * 4 + 3, e = (y * w + x1) * 4; i < e; i += 4) if (d[i] !== 0) return true;
    return false;
  };
  const colHas = (x: number, y0: number, y1: number) => {
    for (let i = (y0 * w + x) * 4 + 3, e = (y1 * w + x) * 4, step = w * 4; i < e; i += step) {
      if (d[i] !== 0) return true;
    }
    return false;
  };
  let top = 0;
  while (top < h && !rowHas(top, 0, w)) top++;
  if (top === h) return EMPTY_RECT;
  let bottom = h;
  while (bottom > top + 1 && !rowHas(bottom - 1, 0, w)) bottom--;
  let left = 0;
  while (left < w - 1 && !colHas(left, top, bottom)) left++;
  let right = w;
  while (right > left + 1 && !colHas(right - 1, top, bottom)) right--;
  return { x: r.x + left, y: r.y + top, w: right - left, h: bottom - top };
}

/** `r` cropped to its pixels with alpha > 0 (the same object when already tight). */
export function trimmed(r: Raster): Raster {
  if (isEmptyRect(r)) return r;
  const b = opaqueBounds(r);
  if (isEmptyRect(b)) return { x: 0, y: 0, w: 0, h: 0, data: new Uint8ClampedArray(0) };
  if (b.x === r.x && b.y === r.y && b.w === r.w && b.h === r.h) return r;
  return cropRaster(r, b);
}
