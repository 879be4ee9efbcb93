/**
 * Photoshop's Select › Modify › Expand and Contract: the selection's edge moved out or in by a number of pixels,
 * round at the corners (a Euclidean distance, as Photoshop's), anti-aliased where the new edge crosses a pixel.
 * The edge is where the selection is half selected; beyond the canvas counts as neither selected nor unselected,
 * so a selection touching the canvas's edge does not contract from it (Photoshop's default).
 *
 * Written here because neither sharp nor any package of the project has a Euclidean distance transform (sharp's
 * dilate and erode use a square and threshold the mask). The distances are exact: a column pass, then
 * Felzenszwalb and Huttenlocher's lower envelope of parabolas along each row, in bands of rows so that a
 * canvas-wide selection on a 9000 × 18000 canvas never holds more than a band's distances at once. Along each
 * row only windows round the edges are measured: that about halved the time of a canvas-wide ellipse
 * there (4.4–4.7 s → 2.1–2.3 s, same bytes).
 */
import type { Mask, Rect } from './model.js';
import { allocMask, intersectRect, isEmptyRect } from './raster.js';
import { sampleMask } from './selection.js';

export type SelectionChange = 'expand' | 'contract';

/** Rows whose distances are worked out together (their margins above and below are read twice). */
const BAND_ROWS = 1024;

/**
 * Squared distances along one row: `d[q] = min over p of (q − p)² + f[p]`, the lower envelope of the parabolas
 * rooted at each p (Felzenszwalb & Huttenlocher 2012). Every `f` is finite, so the envelope needs no infinities
 * but its sentinels.
 */
function rowDistances(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = Number.NEGATIVE_INFINITY;
  z[1] = Number.POSITIVE_INFINITY;
  for (let q = 1; q < n; q++) {
    let s = (f[q]! + q * q - (f[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
    while (s <= z[k]!) {
      k--;
      s = (f[q]! + q * q - (f[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Number.POSITIVE_INFINITY;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1]! < q) k++;
    const p = v[k]!;
    d[q] = (q - p) * (q - p) + f[p]!;
  }
}

/** Whether column `x` of the row at `base` is where a site meets a non-site, or a site lies within reach above or below. */
function nearEdge(column: Uint16Array, base: number, x: number, w: number, far: number): boolean {
  const c = column[base + x]!;
  if (c > 0) return c < far;
  return (x > 0 && column[base + x - 1]! > 0) || (x < w - 1 && column[base + x + 1]! > 0);
}

/**
 * `m` with its edge moved out (expand) or in (contract) by `amount` pixels, over the canvas; the part of the
 * canvas it can change is its rectangle grown by the amount, beyond which it keeps its `outside` value.
 */
export function modifySelection(
  m: Mask,
  change: SelectionChange,
  amount: number,
  width: number,
  height: number,
): Mask {
  // Distances past amount + 1 change nothing, so they are all "far".
  const far = amount + 2;
  const grown = { x: m.x - far, y: m.y - far, w: m.w + 2 * far, h: m.h + 2 * far };
  const region: Rect = intersectRect(grown, { x: 0, y: 0, w: width, h: height });
  if (isEmptyRect(region)) return m;
  const { w, h } = region;
  const out = allocMask(w * h);
  // A site is what the distance is measured to: a selected pixel when expanding, an unselected one when contracting.
  // Tables by value, as the loops below run over every pixel of the region.
  const isSite = new Uint8Array(256);
  // Far from every edge a pixel keeps its value, a site becoming wholly what it is: most of a large selection.
  const kept = new Uint8Array(256);
  for (let value = 0; value < 256; value++) {
    isSite[value] = value >= 128 === (change === 'expand') ? 1 : 0;
    kept[value] = isSite[value] ? (change === 'expand' ? 255 : 0) : value;
  }
  const f = new Float64Array(w);
  const d = new Float64Array(w);
  const v = new Int32Array(w);
  const z = new Float64Array(w + 1);
  for (let top = 0; top < h; top += BAND_ROWS) {
    const rows = Math.min(BAND_ROWS, h - top);
    // The band with `far` rows above and below: a site there is within reach of the band's rows.
    const from = Math.max(0, top - far);
    const to = Math.min(h, top + rows + far);
    const n = to - from;
    const values = new Uint8Array(n * w);
    for (let r = 0; r < n; r++) {
      const row = sampleMask(m, { x: region.x, y: region.y + from + r, w, h: 1 });
      if (typeof row === 'number') values.fill(row, r * w, (r + 1) * w);
      else values.set(row, r * w);
    }
    // Each pixel's distance, down its column, to the nearest site (at most `far`).
    const column = new Uint16Array(n * w).fill(far);
    for (let r = 0; r < n; r++) {
      for (let x = 0, i = r * w; x < w; x++, i++) {
        if (isSite[values[i]!]) column[i] = 0;
        else if (r > 0) column[i] = Math.min(far, column[i - w]! + 1);
      }
    }
    for (let r = n - 2; r >= 0; r--) {
      for (let x = 0, i = r * w; x < w; x++, i++) column[i] = Math.min(column[i]!, column[i + w]! + 1);
    }
    for (let r = top - from; r < top - from + rows; r++) {
      const base = r * w;
      const o = (from + r) * w;
      for (let x = 0; x < w; x++) out[o + x] = kept[values[base + x]!]!;
      // A pixel's nearest site, when within reach, is itself at an edge of this row's column distances (a distance
      // between 0 and far, or a site beside a non-site: the nearest of a run of sites is its end), so only windows
      // reaching `far` round those edges are measured, each from its own edges' sites: windows closer than 2 × far
      // are one window, so no site of another is within reach.
      let x = 0;
      while (x < w) {
        if (!nearEdge(column, base, x, w, far)) {
          x++;
          continue;
        }
        const lo = Math.max(0, x - far);
        let last = x;
        for (let y = x + 1; y < w && y <= last + 2 * far; y++)
          if (nearEdge(column, base, y, w, far)) last = y;
        const hi = Math.min(w - 1, last + far);
        const span = hi - lo + 1;
        for (let i = 0; i < span; i++) f[i] = column[base + lo + i]! ** 2;
        rowDistances(f, span, d, v, z);
        for (let q = lo; q <= hi; q++) {
          const s = values[base + q]!;
          const dist = Math.sqrt(d[q - lo]!);
          // A pixel whose centre is `dist` from the nearest site's centre: the edge, half a pixel beyond that
          // site, moved by `amount`, covers this much of it.
          if (change === 'expand') {
            const cover = Math.min(1, Math.max(0, amount + 1 - dist));
            out[o + q] = Math.max(s, Math.round(cover * 255));
          } else {
            const cover = Math.min(1, Math.max(0, dist - amount));
            out[o + q] = Math.min(s, Math.round(cover * 255));
          }
        }
        x = hi + 1;
      }
    }
  }
  return { ...region, data: out, outside: m.outside };
}
