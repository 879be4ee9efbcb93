/**
 * Auto Levels and Auto Contrast (engine.md §1.5, Adobe "Auto Color Correction Options"):
 * - Auto Levels = "Enhance Per Channel Contrast": black and white points found per channel, so it may remove or
 *   introduce a colour cast;
 * - Auto Contrast = "Enhance Monochromatic Contrast": one black and white point over R, G and B together, so the
 *   colour relationships stay.
 * Both clip `clip` (a fraction; Photoshop's default 0.1 %) of the counted values at each end. Only pixels with
 * alpha > 0 (and inside the selection, when there is one) are counted.
 */
import type { Mask, Raster } from '../model.js';
import { type Lut, stretchLut } from './lut.js';
import { forEachSelectedRun } from './region.js';

/** Photoshop's default clip for Auto Tone / Auto Levels: 0.1 % at each end. */
export const AUTO_CLIP = 0.001;

export interface Histograms {
  readonly r: Float64Array;
  readonly g: Float64Array;
  readonly b: Float64Array;
  /** Pixels counted. */
  readonly count: number;
}

/** Per-channel histograms of the pixels with alpha > 0 that the selection touches (all of them without one). */
export function histograms(r: Raster, selection: Mask | null): Histograms {
  const hr = new Float64Array(256);
  const hg = new Float64Array(256);
  const hb = new Float64Array(256);
  let count = 0;
  const d = r.data;
  forEachSelectedRun(r, selection, (from, to, mask, mi) => {
    for (let i = from, k = mi; i < to; i += 4, k++) {
      if (d[i + 3] === 0 || (mask !== null && mask[k] === 0)) continue;
      hr[d[i]!]!++;
      hg[d[i + 1]!]!++;
      hb[d[i + 2]!]!++;
      count++;
    }
  });
  return { r: hr, g: hg, b: hb, count };
}

export interface Range {
  readonly black: number;
  readonly white: number;
}

/**
 * The black and white points of a histogram holding `total` values: the first level where more than
 * `clip·total` values lie at or below it, and the same from the top.
 */
export function clippedRange(hist: Float64Array, total: number, clip: number): Range {
  const limit = clip * total;
  let black = 0;
  for (let sum = 0; black < 255; black++) {
    sum += hist[black]!;
    if (sum > limit) break;
  }
  let white = 255;
  for (let sum = 0; white > 0; white--) {
    sum += hist[white]!;
    if (sum > limit) break;
  }
  return { black, white };
}

export interface AutoLevels {
  readonly red: Range;
  readonly green: Range;
  readonly blue: Range;
  readonly luts: readonly [Lut, Lut, Lut];
}

export function autoLevels(h: Histograms, clip = AUTO_CLIP): AutoLevels {
  const red = clippedRange(h.r, h.count, clip);
  const green = clippedRange(h.g, h.count, clip);
  const blue = clippedRange(h.b, h.count, clip);
  return {
    red,
    green,
    blue,
    luts: [
      stretchLut(red.black, red.white),
      stretchLut(green.black, green.white),
      stretchLut(blue.black, blue.white),
    ],
  };
}

export interface AutoContrast extends Range {
  readonly lut: Lut;
}

export function autoContrast(h: Histograms, clip = AUTO_CLIP): AutoContrast {
  const all = new Float64Array(256);
  for (let v = 0; v < 256; v++) all[v] = h.r[v]! + h.g[v]! + h.b[v]!;
  const range = clippedRange(all, 3 * h.count, clip);
  return { ...range, lut: stretchLut(range.black, range.white) };
}
