/**
 * The expand/contract distance transform checked pixel for pixel against a brute force: every pixel's distance
 * to every site (within the reach), on random anti-aliased masks small enough to search, including masks that
 * reach past the canvas, and on a canvas taller than one band of rows with an edge across the band's seam.
 */
import { describe, expect, it } from 'vitest';
import type { Mask } from '../../src/engine/model.js';
import { modifySelection, type SelectionChange } from '../../src/engine/selection-modify.js';

/** A deterministic generator, so a failure names a mask that can be drawn again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A few discs and rectangles with soft edges, and some stray pixels: edges of every kind, some touching. */
function blobs(seed: number, w: number, h: number): Uint8Array {
  const rnd = random(seed);
  const data = new Uint8Array(w * h);
  const shapes = 1 + Math.floor(rnd() * 4);
  for (let k = 0; k < shapes; k++) {
    const cx = rnd() * w;
    const cy = rnd() * h;
    const r = 2 + rnd() * Math.min(w, h) * 0.4;
    const disc = rnd() < 0.5;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const inside = disc
          ? r - Math.hypot(x + 0.5 - cx, y + 0.5 - cy)
          : Math.min(r - Math.abs(x + 0.5 - cx), r * 0.6 - Math.abs(y + 0.5 - cy));
        const v = Math.round(Math.min(1, Math.max(0, inside + 0.5)) * 255);
        data[y * w + x] = Math.max(data[y * w + x]!, v);
      }
  }
  for (let k = 0; k < 6; k++) data[Math.floor(rnd() * w * h)] = Math.floor(rnd() * 256);
  return data;
}

/** What modifySelection must give, found by measuring each pixel against every site of the whole canvas. */
function bruteForce(
  m: Mask,
  change: SelectionChange,
  amount: number,
  width: number,
  height: number,
): Uint8Array {
  const at = (x: number, y: number) =>
    x >= m.x && y >= m.y && x < m.x + m.w && y < m.y + m.h ? m.data[(y - m.y) * m.w + (x - m.x)]! : m.outside;
  const isSite = (v: number) => (change === 'expand' ? v >= 128 : v < 128);
  const sites: [number, number][][] = Array.from({ length: height }, () => []);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) if (isSite(at(x, y))) sites[y]!.push([x, y]);
  // A site farther than REACH rows away changes nothing (every amount here is under it): not searched.
  const REACH = 40;
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let best = Number.POSITIVE_INFINITY;
      for (let sy = Math.max(0, y - REACH); sy <= Math.min(height - 1, y + REACH); sy++)
        for (const [sx] of sites[sy]!) best = Math.min(best, (sx - x) ** 2 + (sy - y) ** 2);
      const dist = Math.sqrt(best);
      const s = at(x, y);
      out[y * width + x] =
        change === 'expand'
          ? Math.max(s, Math.round(Math.min(1, Math.max(0, amount + 1 - dist)) * 255))
          : Math.min(s, Math.round(Math.min(1, Math.max(0, dist - amount)) * 255));
    }
  return out;
}

/** The result read over the whole canvas (it covers only the part the change can reach). */
function onCanvas(m: Mask, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height).fill(m.outside);
  for (let y = Math.max(0, m.y); y < Math.min(height, m.y + m.h); y++)
    for (let x = Math.max(0, m.x); x < Math.min(width, m.x + m.w); x++)
      out[y * width + x] = m.data[(y - m.y) * m.w + (x - m.x)]!;
  return out;
}

describe('modifySelection', () => {
  it('is the exact Euclidean reach, anti-aliased, for random masks, reaches and both changes', () => {
    let checked = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const rnd = random(seed * 7919);
      const width = 20 + Math.floor(rnd() * 60);
      const height = 10 + Math.floor(rnd() * 50);
      // A mask as large as the canvas, or a smaller one placed anywhere (also partly off the canvas).
      const whole = rnd() < 0.5;
      const w = whole ? width : 5 + Math.floor(rnd() * width);
      const h = whole ? height : 5 + Math.floor(rnd() * height);
      const x = whole ? 0 : Math.floor(rnd() * width) - 4;
      const y = whole ? 0 : Math.floor(rnd() * height) - 4;
      const outside: 0 | 255 = !whole && rnd() < 0.3 ? 255 : 0;
      const mask: Mask = { x, y, w, h, data: blobs(seed, w, h), outside };
      for (const change of ['expand', 'contract'] as const)
        for (const amount of [1, 2, 5, 1 + Math.floor(rnd() * 30)]) {
          const ours = onCanvas(modifySelection(mask, change, amount, width, height), width, height);
          const expected = bruteForce(mask, change, amount, width, height);
          expect(ours, `seed ${seed}, ${change} ${amount}`).toEqual(expected);
          checked++;
        }
    }
    expect(checked).toBe(24 * 2 * 4);
  });

  it('keeps a selection far from any edge as it is, and the band seams invisible on a tall canvas', () => {
    // Taller than one band of rows, with the edge crossing the band boundary at row 1024.
    const width = 40;
    const height = 2100;
    const data = new Uint8Array(width * height);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++)
        data[y * width + x] = x >= 10 + (y % 7) && x < 30 && y > 1000 && y < 1060 ? 255 : 0;
    const mask: Mask = { x: 0, y: 0, w: width, h: height, data, outside: 0 };
    for (const change of ['expand', 'contract'] as const) {
      const ours = onCanvas(modifySelection(mask, change, 6, width, height), width, height);
      expect(ours).toEqual(bruteForce(mask, change, 6, width, height));
    }
  });
});
