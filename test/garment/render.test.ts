/** Overview drawing: piece outlines against the direct definition (a pixel of the piece with an outside pixel near). */
import { describe, expect, it } from 'vitest';
import type { Raster, Rect } from '../../src/engine/model.js';
import { drawOutlines } from '../../src/garment/render.js';
import type { PieceInfo } from '../../src/garment/types.js';
import { rng } from '../engine/composite/support.js';

/** Inside pixels with any outside pixel (beyond the mask counts) within the (2t+1)² square around them. */
function outlineByDefinition(bounds: Rect, mask: Uint8Array, t: number): Set<string> {
  const inside = (x: number, y: number) =>
    x >= 0 && y >= 0 && x < bounds.w && y < bounds.h && mask[y * bounds.w + x] === 1;
  const out = new Set<string>();
  for (let y = 0; y < bounds.h; y++) {
    for (let x = 0; x < bounds.w; x++) {
      if (!inside(x, y)) continue;
      let edge = false;
      for (let j = -t; j <= t && !edge; j++)
        for (let i = -t; i <= t && !edge; i++) edge = !inside(x + i, y + j);
      if (edge) out.add(`${bounds.x + x},${bounds.y + y}`);
    }
  }
  return out;
}

describe('drawOutlines', () => {
  it('paints exactly the piece pixels within `thick` of the outside, for blobs, holes and thin parts', () => {
    const rand = rng(11);
    for (let trial = 0; trial < 60; trial++) {
      const w = 1 + Math.floor(rand() * 30);
      const h = 1 + Math.floor(rand() * 30);
      const mask = new Uint8Array(w * h);
      const cx = rand() * w;
      const cy = rand() * h;
      const r = 2 + rand() * 14;
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) mask[y * w + x] = Math.hypot(x - cx, y - cy) < r || rand() < 0.05 ? 1 : 0;
      }
      if (trial % 3 === 0) mask.fill(0, Math.floor(h / 2) * w, Math.floor(h / 2) * w + Math.floor(w / 3));
      const bounds = { x: 5 + trial, y: 3, w, h };
      const t = trial % 5;
      const canvas: Raster = { x: 0, y: 0, w: 120, h: 40, data: new Uint8ClampedArray(120 * 40 * 4) };
      drawOutlines(canvas, [{ bounds, mask } as unknown as PieceInfo], { r: 9, g: 8, b: 7 }, t);
      const painted = new Set<string>();
      for (let y = 0; y < canvas.h; y++) {
        for (let x = 0; x < canvas.w; x++)
          if (canvas.data[(y * canvas.w + x) * 4 + 3] === 255) painted.add(`${x},${y}`);
      }
      expect(painted).toEqual(outlineByDefinition(bounds, mask, t));
    }
  });
});
