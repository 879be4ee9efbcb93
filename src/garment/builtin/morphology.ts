/**
 * Binary masks grown, shrunk and tidied: what finding a garment in a photo does to its silhouette, whether the
 * silhouette came from the background (segment.ts) or from the photo's own alpha (cutout.ts).
 */
import { components, maskBounds } from '../image.js';

/** `m` opened by `r` px (shrunk, then grown): what a square 2r + 1 px wide fits in. */
export function opening(m: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const inverse = new Uint8Array(m.length);
  for (let i = 0; i < m.length; i++) inverse[i] = 1 - m[i]!;
  const shrunk = grow(inverse, w, h, r);
  for (let i = 0; i < m.length; i++) shrunk[i] = 1 - shrunk[i]!;
  return grow(shrunk, w, h, r);
}

/** Parts thinner than this share of the garment's longer side, twice over, are not garment (a hanger). */
export const THIN = 0.02;

/**
 * `mask` without the parts thinner than 2·THIN of its longer side that stick out of it: the hook and arms of a
 * hanger, a strand of background the fill could not enter. A morphological opening (a square: straight edges,
 * slanted or not, and right angles keep their place; only an acute corner's tip is rounded) takes them off.
 */
export function withoutThinParts(mask: Uint8Array, w: number, h: number): Uint8Array {
  const g = maskBounds(mask, w, h);
  if (!g) return mask;
  const r = Math.max(2, Math.round(THIN * Math.max(g.w, g.h)));
  const opened = opening(mask, w, h, r);
  for (let i = 0; i < opened.length; i++) opened[i] = mask[i]! & opened[i]!;
  return largest(opened, w, h);
}

/** `m` grown by `r` pixels (square), two separable passes. */
export function grow(m: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const rows = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    let last = -Infinity;
    for (let x = 0; x < w; x++) {
      if (m[y * w + x]) last = x;
      if (x - last <= r) rows[y * w + x] = 1;
    }
    last = Infinity;
    for (let x = w - 1; x >= 0; x--) {
      if (m[y * w + x]) last = x;
      if (last - x <= r) rows[y * w + x] = 1;
    }
  }
  // Down the columns, a row at a time (each column's last set row kept), which reads memory in order.
  const out = new Uint8Array(w * h);
  const last = new Int32Array(w).fill(-1 - r);
  for (let y = 0; y < h; y++) {
    for (let x = 0, i = y * w; x < w; x++, i++) {
      if (rows[i]) last[x] = y;
      if (y - last[x]! <= r) out[i] = 1;
    }
  }
  last.fill(h + r);
  for (let y = h - 1; y >= 0; y--) {
    for (let x = 0, i = y * w; x < w; x++, i++) {
      if (rows[i]) last[x] = y;
      if (last[x]! - y <= r) out[i] = 1;
    }
  }
  return out;
}

/**
 * `m` closed by `r` px (grown, then shrunk): where a band of the print matches the background at the outline,
 * the fill bites a notch as wide as the band into the garment; a silhouette has no such notches.
 */
export function close(m: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const grown = grow(m, w, h, r);
  const gaps = new Uint8Array(grown.length);
  for (let i = 0; i < gaps.length; i++) gaps[i] = 1 - grown[i]!;
  const outside = grow(gaps, w, h, r);
  const out = new Uint8Array(grown.length);
  for (let i = 0; i < out.length; i++) out[i] = grown[i] && !outside[i] ? 1 : 0;
  return out;
}

/** The largest 8-connected part of `m` (`m` itself when it has at most one). */
export function largest(m: Uint8Array, w: number, h: number): Uint8Array {
  const { comps, labels } = components(m, w, h);
  if (comps.length <= 1) return m;
  const big = comps.reduce((p, q) => (q.area > p.area ? q : p));
  const out = new Uint8Array(m.length);
  for (let i = 0; i < m.length; i++) out[i] = labels[i] === big.label ? 1 : 0;
  return out;
}

/** `m` with its holes filled: every part of its outside that does not reach the image's edge. */
export function fillHoles(m: Uint8Array, w: number, h: number): Uint8Array {
  const outside = new Uint8Array(m.length);
  for (let i = 0; i < m.length; i++) outside[i] = 1 - m[i]!;
  const { comps, labels } = components(outside, w, h);
  const enclosed = new Set(
    comps.filter((c) => c.x0 > 0 && c.y0 > 0 && c.x1 < w - 1 && c.y1 < h - 1).map((c) => c.label),
  );
  const out = Uint8Array.from(m);
  if (enclosed.size) for (let i = 0; i < m.length; i++) if (enclosed.has(labels[i]!)) out[i] = 1;
  return out;
}
