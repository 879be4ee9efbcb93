/**
 * Pixel helpers whose answers the garment analysis reads exactly, against the plain code they replaced.
 *
 * components() labels by runs (union-find); identify_pieces, split_pieces and the photo's segmentation read its
 * numbering and areas, so it must answer exactly as the per-pixel 8-neighbour flood fill it replaced, kept here
 * as the reference: the same components in the same order, the same label per pixel.
 */
import { describe, expect, it } from 'vitest';
import { components, kthSmallest } from '../../src/garment/image.js';
import { rng } from '../support/rng.js';

function floodFill(m: Uint8Array, w: number, h: number) {
  const labels = new Int32Array(w * h);
  const comps: { area: number; x0: number; y0: number; x1: number; y1: number; label: number }[] = [];
  const stack = new Int32Array(w * h);
  for (let start = 0; start < m.length; start++) {
    if (!m[start] || labels[start]) continue;
    const label = comps.length + 1;
    let sp = 0;
    stack[sp++] = start;
    labels[start] = label;
    let area = 0;
    let x0 = w;
    let y0 = h;
    let x1 = 0;
    let y1 = 0;
    while (sp > 0) {
      const p = stack[--sp]!;
      const px = p % w;
      const py = (p - px) / w;
      area++;
      x0 = Math.min(x0, px);
      x1 = Math.max(x1, px);
      y0 = Math.min(y0, py);
      y1 = Math.max(y1, py);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = px + dx;
          const ny = py + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const q = ny * w + nx;
          if (m[q] && !labels[q]) {
            labels[q] = label;
            stack[sp++] = q;
          }
        }
      }
    }
    comps.push({ area, x0, y0, x1, y1, label });
  }
  return { comps, labels };
}

/** Random blobs (discs and bars, some touching only at a corner), speckle, and values other than 1. */
function mask(seed: number, w: number, h: number, density: number): Uint8Array {
  const r = rng(seed);
  const m = new Uint8Array(w * h);
  for (let k = 0; k < 12; k++) {
    const cx = r() * w;
    const cy = r() * h;
    const rad = 1 + r() * Math.min(w, h) * 0.2;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) if ((x - cx) ** 2 + (y - cy) ** 2 < rad * rad) m[y * w + x] = 1;
  }
  for (let i = 0; i < m.length; i++) if (r() < density) m[i] = r() < 0.5 ? 0 : 1 + Math.floor(r() * 255);
  return m;
}

describe('components', () => {
  it('finds what a flood fill finds, in its order, on random masks', () => {
    for (const [seed, w, h, density] of [
      [1, 97, 61, 0.02],
      [2, 64, 64, 0.5],
      [3, 1, 50, 0.3],
      [4, 50, 1, 0.3],
      [5, 200, 150, 0.1],
      [6, 33, 77, 0.9],
    ] as const) {
      const m = mask(seed, w, h, density);
      const got = components(m, w, h);
      const want = floodFill(m, w, h);
      expect(got.comps).toEqual(want.comps);
      expect(Buffer.from(got.labels.buffer).equals(Buffer.from(want.labels.buffer))).toBe(true);
    }
  });

  it('joins runs that meet only diagonally, and a U joined at its foot', () => {
    // Rows 0–1: two arms (the right one stepping diagonally); row 2: the foot joining both; row 3: one pixel
    // touching the foot's end at a corner only.
    const w = 7;
    const m = Uint8Array.from([
      1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1,
    ]);
    const got = components(m, w, 4);
    expect(got.comps).toEqual(floodFill(m, w, 4).comps);
    expect(got.comps.map((c) => c.area)).toEqual([11]);
  });

  it('an empty mask has no components', () => {
    expect(components(new Uint8Array(12), 4, 3).comps).toEqual([]);
  });
});

describe('kthSmallest', () => {
  it('reads what a sort reads, with ties, on few and many values', () => {
    const r = rng(7);
    for (const [n, levels] of [
      [1, 0],
      [2, 3],
      [3, 0],
      [10, 2],
      [1000, 0],
      [1001, 5],
      [50_000, 40],
    ] as const) {
      const v = Float64Array.from({ length: n }, () => (levels ? Math.floor(r() * levels) : r() * 300));
      const sorted = v.slice().sort();
      for (const k of new Set([0, n >> 1, n - 1, Math.floor(n / 3)])) {
        expect(kthSmallest(v.slice(), k)).toBe(sorted[k]);
      }
    }
  });
});
