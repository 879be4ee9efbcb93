/**
 * The lines about which a repeat's tile is its own mirror image (mirror-axis.ts): a tartan's, dots', stripes';
 * none for a plaid whose accent sits off its bars' middle, for noise, or for a plain colour.
 */
import { describe, expect, it } from 'vitest';
import type { Raster } from '../../src/engine/model.js';
import { mirrorAxes } from '../../src/garment/mirror-axis.js';
import { evenPlaidAt, PLAID_TILE, plaidAt } from '../support/garment-fixtures.js';
import { rng } from '../support/rng.js';

function tile(w: number, h: number, at: (x: number, y: number) => readonly number[]): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = at(x, y);
      data.set([c[0]!, c[1]!, c[2]!, 255], (y * w + x) * 4);
    }
  }
  return { x: 0, y: 0, w, h, data };
}

describe('mirror axes of a repeat tile', () => {
  it('finds a tartan’s two, half a repeat apart', () => {
    expect(mirrorAxes(tile(PLAID_TILE, PLAID_TILE, evenPlaidAt))).toEqual([41.5, 83.5]);
  });

  it('finds none on a plaid whose accent line sits off the middle of its bars', () => {
    expect(mirrorAxes(tile(PLAID_TILE, PLAID_TILE, plaidAt))).toEqual([]);
  });

  it('finds a row of dots’ through each dot and between them, whatever the tile’s phase', () => {
    // A 9 px dot centred at column 23 of a 64 px tile, and the tile's middle between its repeats.
    const dots = tile(64, 64, (x, y) => (Math.hypot(x - 23, y - 30) <= 9 ? [200, 30, 40] : [240, 230, 210]));
    expect(mirrorAxes(dots)).toEqual([23, 55]);
  });

  it('finds every line on horizontal stripes', () => {
    const stripes = tile(40, 40, (_, y) => (y % 40 < 14 ? [31, 58, 104] : [232, 220, 196]));
    expect(mirrorAxes(stripes)).toHaveLength(80);
  });

  it('finds none on noise or on a plain colour', () => {
    const random = rng(7);
    expect(mirrorAxes(tile(48, 48, () => [random() * 255, random() * 255, random() * 255]))).toEqual([]);
    expect(mirrorAxes(tile(48, 48, () => [120, 120, 120]))).toEqual([]);
  });
});
