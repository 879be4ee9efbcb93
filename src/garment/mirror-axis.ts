/**
 * Where a repeat's tile is its own mirror image about a vertical line: a plaid's or a check's bars, a row of
 * dots, horizontal stripes (every line). Pattern makers centre such a print on the centre front (对格居中), and
 * the garment can then be a mirror image of itself and still run on across every seam (seams.ts).
 */
import type { Raster } from '../engine/model.js';

/**
 * The tile mirrored about the line correlates with itself at least this much (Pearson, on lightness)… Measured
 * on the tiles the tests' photos give: a tartan's 0.993–1, a plaid with its accent off the middle of its bars
 * 0.871, dots in a staggered repeat 0.886, a half drop 0.854, the example photo's roses 0.61.
 */
export const MIRROR_CORRELATION = 0.95;
/** …and within this of the best line's. */
const NEAR_BEST = 0.01;

/**
 * Rows sampled: symmetry about a vertical line holds on every row, so a subset tells it. At most this many, and
 * fewer on a wide tile so the search stays within WORK multiply-adds (a 1000 px tile: 16 rows).
 */
const MAX_ROWS = 96;
const MIN_ROWS = 16;
const WORK = 16e6;

/**
 * The vertical lines (tile pixel coordinates, pixel centres at integers, in half-pixel steps over [0, w)) about
 * which the tile, wrapped horizontally, mirrors onto itself. Empty for a tile without such symmetry, or one too
 * flat to tell (a plain colour mirrors trivially but has no structure to centre).
 */
export function mirrorAxes(tile: Raster): number[] {
  const { w, h, data } = tile;
  if (w < 4 || h < 1) return [];
  const want = Math.max(MIN_ROWS, Math.min(MAX_ROWS, Math.floor(WORK / (w * w))));
  const step = Math.max(1, Math.ceil(h / want));
  const rows: number[] = [];
  for (let y = 0; y < h; y += step) rows.push(y);
  const v = new Float64Array(rows.length * w);
  let mean = 0;
  rows.forEach((y, r) => {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const l = 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
      v[r * w + x] = l;
      mean += l;
    }
  });
  mean /= v.length;
  let energy = 0;
  for (let i = 0; i < v.length; i++) {
    v[i]! -= mean;
    energy += v[i]! * v[i]!;
  }
  // A tile without contrast (under a grey level's spread) has no axis worth aligning.
  if (energy / v.length < 1) return [];
  // Twice the axis: column x mirrors onto column k − x (mod w); k odd puts the axis between two columns. The
  // same mapping mirrors about k / 2 + w / 2 too: a periodic mirror image has its axes half a period apart.
  const r = new Float64Array(w);
  for (let k = 0; k < w; k++) {
    let s = 0;
    for (let y = 0; y < rows.length; y++) {
      const o = y * w;
      for (let x = 0; x < w; x++) s += v[o + x]! * v[o + ((((k - x) % w) + w) % w)]!;
    }
    // Mirroring permutes the columns, so both sides have the same energy: the correlation is s / energy.
    r[k] = s / energy;
  }
  // The best lines only, each a peak: a tartan's accent line off a pair of bars costs a few hundredths of the
  // correlation there, and half a pixel off the line costs as much on a sharp print.
  const best = Math.max(...r);
  const floor = Math.max(MIRROR_CORRELATION, best - NEAR_BEST);
  const axes: number[] = [];
  for (let k = 0; k < w; k++) {
    const peak = r[k]! >= r[(k + w - 1) % w]! && r[k]! >= r[(k + 1) % w]!;
    if (r[k]! >= floor && peak) axes.push(k / 2, (k + w) / 2);
  }
  return axes.sort((a, b) => a - b);
}
