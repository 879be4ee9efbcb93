/** Raster helpers: alphaBounds against a plain scan of every pixel; pixel buffers past what can be allocated. */
import { describe, expect, it } from 'vitest';
import type { Raster, Rect } from '../../src/engine/model.js';
import { allocMask, allocPixels, alphaBounds, EMPTY_RECT, trimRaster } from '../../src/engine/raster.js';
import { rng } from '../support/rng.js';

/** The bounds of the non-transparent pixels, by looking at every one. */
function scanAll(r: Raster): Rect {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < r.w; x++) {
      if (r.data[(y * r.w + x) * 4 + 3] === 0) continue;
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
  }
  return x1 < 0 ? EMPTY_RECT : { x: r.x + x0, y: r.y + y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

describe('alphaBounds', () => {
  it('finds the same box as scanning every pixel, for sparse, dense, holed and empty rasters', () => {
    const rand = rng(7);
    for (let trial = 0; trial < 300; trial++) {
      const w = 1 + Math.floor(rand() * 40);
      const h = 1 + Math.floor(rand() * 40);
      const data = new Uint8ClampedArray(w * h * 4);
      const density = [0, 0.002, 0.02, 0.3, 1][trial % 5]!;
      for (let i = 3; i < data.length; i += 4) if (rand() < density) data[i] = 1 + Math.floor(rand() * 255);
      // Some with empty rows and columns inside the ink.
      if (trial % 7 === 0 && h > 2) data.fill(0, w * 4, w * 8);
      const r: Raster = { x: trial - 150, y: 3, w, h, data };
      expect(alphaBounds(r)).toEqual(scanAll(r));
    }
  });

  it('trimRaster keeps a tight raster as it is and crops a loose one to its ink', () => {
    const data = new Uint8ClampedArray(5 * 4 * 4);
    data[(2 * 5 + 3) * 4 + 3] = 9;
    const r: Raster = { x: 10, y: 20, w: 5, h: 4, data };
    const t = trimRaster(r);
    expect([t.x, t.y, t.w, t.h]).toEqual([13, 22, 1, 1]);
    expect(trimRaster(t)).toBe(t);
  });
});

describe('allocPixels and allocMask', () => {
  // Outside a session's budget (the CLI, a library caller) nothing refuses such a size before the allocation does.
  it('refuse a buffer past what one can hold as out of bounds, in Chinese, not as an internal error', () => {
    for (const alloc of [allocPixels, allocMask]) {
      let thrown: unknown;
      try {
        alloc(2 ** 60);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toMatchObject({
        code: 'out_of_bounds',
        message: expect.stringMatching(/像素内存，无法分配/),
      });
    }
  });

  it('still give a zeroed buffer of the size asked', () => {
    expect(allocPixels(64)).toEqual(new Uint8ClampedArray(64));
    expect(allocMask(0).length).toBe(0);
  });
});
