/**
 * Drawing against direct definitions: piece outlines (a pixel of the piece with an outside pixel near) and the
 * print fill (each pixel the bilinear sample of the tile where the placement maps it).
 */
import { describe, expect, it } from 'vitest';
import type { Raster, Rect } from '../../src/engine/model.js';
import { drawOutlines, fillRaster } from '../../src/garment/render.js';
import type { Extraction, PieceInfo, Placement } from '../../src/garment/types.js';
import { rng } from '../support/rng.js';

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

/** A crop drawn mirrored past its edges: … 1 0 | 0 1 … n−1 | n−1 n−2 … */
const mirror = (v: number, n: number): number => {
  const m = ((v % (2 * n)) + 2 * n) % (2 * n);
  return m < n ? m : 2 * n - 1 - m;
};

/** The print at document pixel (X, Y) by the placement's definition: bilinear in the (wrapped or mirrored) tile. */
function printAt(ext: Extraction, pl: Placement, sx: number, sy: number): number[] {
  const t = ext.tile;
  const ox = ext.tileIsRepeat ? 0 : ext.garment.x;
  const oy = ext.tileIsRepeat ? 0 : ext.garment.y;
  const px = (sx + 0.5 - pl.docX) / pl.scale + pl.photoX - 0.5 - ox;
  const py = (sy + 0.5 - pl.docY) / pl.scale + pl.photoY - 0.5 - oy;
  const at = (v: number, n: number) => (ext.tileIsRepeat ? ((v % n) + n) % n : mirror(v, n));
  const x0 = Math.floor(px);
  const y0 = Math.floor(py);
  const fx = px - x0;
  const fy = py - y0;
  const c = (x: number, y: number, k: number) => t.data[(at(y, t.h) * t.w + at(x, t.w)) * 4 + k]!;
  return [0, 1, 2].map(
    (k) =>
      (c(x0, y0, k) * (1 - fx) + c(x0 + 1, y0, k) * fx) * (1 - fy) +
      (c(x0, y0 + 1, k) * (1 - fx) + c(x0 + 1, y0 + 1, k) * fx) * fy,
  );
}

describe('fillRaster', () => {
  it('gives every pixel the bilinear print of its placement: repeat or crop, shifted, mirrored', () => {
    const rand = rng(7);
    for (let trial = 0; trial < 24; trial++) {
      const tw = 5 + Math.floor(rand() * 40);
      const th = 5 + Math.floor(rand() * 40);
      const tile: Raster = { x: 0, y: 0, w: tw, h: th, data: new Uint8ClampedArray(tw * th * 4) };
      for (let i = 0; i < tile.data.length; i++) tile.data[i] = i % 4 === 3 ? 255 : Math.floor(rand() * 256);
      const repeat = trial % 3 !== 0;
      const ext = {
        tile,
        tileIsRepeat: repeat,
        garment: { x: Math.floor(rand() * 20), y: Math.floor(rand() * 20), w: tw, h: th },
      } as unknown as Extraction;
      const pl = {
        scale: 0.4 + rand() * 6,
        docX: rand() * 300,
        docY: rand() * 300,
        photoX: rand() * 50,
        photoY: rand() * 50,
        shifts: [{ layerId: 9, dx: Math.round(rand() * 40 - 20), dy: Math.round(rand() * 40 - 20) }],
      } as unknown as Placement;
      const rect = { x: Math.floor(rand() * 200), y: Math.floor(rand() * 200), w: 30, h: 20 };
      const mirror =
        trial % 4 === 1 ? { from: { x: rect.x + 50, y: rect.y + 7, w: rect.w, h: rect.h }, to: rect } : null;
      const layerId = trial % 2 ? 9 : 1;
      const out = fillRaster(ext, pl, rect, mirror, layerId);
      const shift = layerId === 9 ? pl.shifts[0]! : { dx: 0, dy: 0 };
      let worst = 0;
      for (let j = 0; j < rect.h; j++) {
        for (let i = 0; i < rect.w; i++) {
          const X = rect.x + i;
          const Y = rect.y + j;
          const sx = (mirror ? mirror.from.x + (mirror.to.x + mirror.to.w - 1 - X) : X) - shift.dx;
          const sy = (mirror ? mirror.from.y + (Y - mirror.to.y) : Y) - shift.dy;
          const want = printAt(ext, pl, sx, sy);
          const o = (j * rect.w + i) * 4;
          for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(out.data[o + k]! - want[k]!));
          expect(out.data[o + 3]).toBe(255);
        }
      }
      // Rounded to 8 bits: within half a level, and a float32 row blend's rounding.
      expect(worst).toBeLessThanOrEqual(0.51);
    }
  });
});
