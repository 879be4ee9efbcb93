/**
 * Helpers on premultiplied float strips: the working format of the compositor. A strip holds r, g, b (already
 * multiplied by a) and a, all 0..1, as Float32 — exact enough for any stack of 8-bit layers and small enough to
 * stay in cache while every layer is blended onto it. Blending and writing out are the WebAssembly kernels'
 * (kernels.ts); these are the rarer steps, done in place on views of the same memory.
 */
import type { Mask } from '../model.js';

/** acc ← acc + (other − acc) · t · cov[j]: the mix a pass-through group's opacity and mask make. */
export function lerpRow(
  acc: Float32Array,
  ai: number,
  other: Float32Array,
  n: number,
  t: number,
  cov: Float32Array | null,
): void {
  const end = ai + n * 4;
  for (let j = 0; ai < end; j++, ai += 4) {
    const w = cov === null ? t : t * cov[j]!;
    if (w === 0) continue;
    acc[ai] = acc[ai]! + (other[ai]! - acc[ai]!) * w;
    acc[ai + 1] = acc[ai + 1]! + (other[ai + 1]! - acc[ai + 1]!) * w;
    acc[ai + 2] = acc[ai + 2]! + (other[ai + 2]! - acc[ai + 2]!) * w;
    acc[ai + 3] = acc[ai + 3]! + (other[ai + 3]! - acc[ai + 3]!) * w;
  }
}

/** What a row of mask coverage turned out to be; only for `varies` are the values in the output array used. */
export type Coverage = 'none' | 'full' | 'varies';

/** Mask values for document row `y`, columns `x0 … x0+n−1`, as 0..1 factors in `out[0..n)`. */
export function maskCoverage(mask: Mask, y: number, x0: number, n: number, out: Float32Array): Coverage {
  const my = y - mask.y;
  const outside = mask.outside;
  if (my < 0 || my >= mask.h || x0 + n <= mask.x || x0 >= mask.x + mask.w) {
    return outside === 255 ? 'full' : 'none';
  }
  const inv = 1 / 255;
  const fill = outside * inv;
  const a = Math.max(x0, mask.x);
  const b = Math.min(x0 + n, mask.x + mask.w);
  let j = 0;
  for (; j < a - x0; j++) out[j] = fill;
  const d = mask.data;
  let min: number = outside;
  let max: number = outside;
  if (j === 0 && b === x0 + n) {
    min = 255;
    max = 0;
  }
  let mi = my * mask.w + (a - mask.x);
  for (let x = a; x < b; x++, j++, mi++) {
    const v = d[mi]!;
    if (v < min) min = v;
    if (v > max) max = v;
    out[j] = v * inv;
  }
  for (; j < n; j++) out[j] = fill;
  if (max === 0) return 'none';
  if (min === 255) return 'full';
  return 'varies';
}
