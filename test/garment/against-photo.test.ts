/** verify's measuring grid: binned in one pass, it must be the grid the box sums define, cell for cell. */
import { describe, expect, it } from 'vitest';
import { BoxSums, binnedGrid, gridOf } from '../../src/garment/builtin/against-photo.js';
import { rng } from '../support/rng.js';

describe('binnedGrid', () => {
  it('equals gridOf over BoxSums for any step, origin and piece shape', () => {
    const rand = rng(5);
    for (let trial = 0; trial < 40; trial++) {
      const W = 60 + Math.floor(rand() * 60);
      const H = 50 + Math.floor(rand() * 60);
      const data = new Uint8ClampedArray(W * H * 4);
      for (let i = 0; i < data.length; i++) data[i] = Math.floor(rand() * 256);
      // A piece: an ellipse with a notch, its bounds inside the canvas.
      const b = {
        x: Math.floor(rand() * 10),
        y: Math.floor(rand() * 10),
        w: 40 + Math.floor(rand() * 15),
        h: 35,
      };
      const mask = new Uint8Array(b.w * b.h);
      for (let y = 0; y < b.h; y++) {
        for (let x = 0; x < b.w; x++) {
          const inEllipse = ((x - b.w / 2) / (b.w / 2)) ** 2 + ((y - b.h / 2) / (b.h / 2)) ** 2 <= 1;
          mask[y * b.w + x] = inEllipse && !(x > b.w * 0.6 && y < b.h * 0.3) ? 1 : 0;
        }
      }
      const step = 1 + rand() * 6;
      const x0 = trial % 2 ? b.w - Math.floor(b.w / step) * step : 0;
      const want = gridOf(new BoxSums(b, data, W, 0, 0, (x, y) => mask[y * b.w + x] === 1), step, x0);
      const got = binnedGrid(b, data, W, { data: mask, x: b.x, y: b.y, w: b.w }, step, x0);
      expect([got.w, got.h]).toEqual([want.w, want.h]);
      expect([...got.ok]).toEqual([...want.ok]);
      for (let k = 0; k < want.ok.length; k++) {
        if (!want.ok[k]) continue;
        expect(got.L[k]).toBeCloseTo(want.L[k]!, 3);
        expect(got.a[k]).toBeCloseTo(want.a[k]!, 3);
        expect(got.b[k]).toBeCloseTo(want.b[k]!, 3);
      }
    }
  });

  it('counts as many cells from a piece’s right edge as from its left, whatever the step', () => {
    // verify's symmetry measure compares a mirrored piece's cells counted from its right edge with its partner's
    // from the left. Steps come from the document's and the photo's resolutions: 670 px at 10.7267 px a cell (a
    // coat's front facing at 4 px/mm) lost its last cell from the right in floating point.
    const cases = [
      [670, 10.726666666666668],
      [604, 10.726666666666668],
    ];
    const rand = rng(9);
    for (let i = 0; i < 400; i++) cases.push([20 + Math.floor(rand() * 2000), 1 + rand() * 12]);
    for (const [w, step] of cases as [number, number][]) {
      const b = { x: 0, y: 0, w, h: 1 };
      const data = new Uint8ClampedArray(w * 4).fill(200);
      const mask = { data: new Uint8Array(w).fill(1), x: 0, y: 0, w };
      const fromLeft = binnedGrid(b, data, w, mask, step);
      const fromRight = binnedGrid(b, data, w, mask, step, w - Math.floor(w / step) * step);
      expect(fromRight.w, `${w} px at ${step}`).toBe(fromLeft.w);
    }
  });
});
