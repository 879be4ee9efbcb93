/**
 * Selection mask math (engine.md §1.9): rectangles, inversion, layer alpha, feathering and filling, checked
 * against values written out plainly here (the Gaussian edge as an erf profile) and ImageMagick's blur.
 */
import { describe, expect, it } from 'vitest';
import type { Mask, Raster } from '../../src/engine/model.js';
import {
  allMask,
  alphaMask,
  FEATHER_SIGMA_PER_RADIUS,
  featherMask,
  fillPixels,
  invertMask,
  normaliseSelection,
  rectMask,
  sampleMask,
  selectedPercent,
  selectionBounds,
  selectsAll,
} from '../../src/engine/selection.js';
import { convertTo, imageMagickAvailable } from '../support/imagemagick.js';

/** The mask value at document x, y (its `outside` value beyond the rectangle). */
function at(m: Mask, x: number, y: number): number {
  const lx = x - m.x;
  const ly = y - m.y;
  if (lx < 0 || ly < 0 || lx >= m.w || ly >= m.h) return m.outside;
  return m.data[ly * m.w + lx]!;
}

/** The whole canvas as a plain array of mask values, row by row. */
function dense(m: Mask, w: number, h: number): number[] {
  const out: number[] = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out.push(at(m, x, y));
  return out;
}

function expectedRect(
  w: number,
  h: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  v = 255,
): number[] {
  const out: number[] = [];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) out.push(x >= x0 && x < x1 && y >= y0 && y < y1 ? v : 255 - v);
  return out;
}

/** Standard normal CDF via the Abramowitz–Stegun erf approximation (|error| < 1.5e-7). */
function phi(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return 0.5 * (1 + (z < 0 ? -erf : erf));
}

describe('rectangles, Select All, normalising', () => {
  it('a rectangle is exactly its pixels, cut to the canvas', () => {
    const m = rectMask({ x: -3, y: 2, w: 8, h: 4 }, 10, 8);
    expect({ x: m.x, y: m.y, w: m.w, h: m.h, outside: m.outside }).toEqual({
      x: 0,
      y: 2,
      w: 5,
      h: 4,
      outside: 0,
    });
    expect(dense(m, 10, 8)).toEqual(expectedRect(10, 8, 0, 2, 5, 6).map((v) => (v === 255 ? 255 : 0)));
    expect(selectionBounds(m, 10, 8)).toEqual({ x: 0, y: 2, w: 5, h: 4 });
    expect(selectedPercent(m, 10, 8)).toBeCloseTo((20 / 80) * 100, 6);
  });

  it('Select All holds no pixels, and a canvas-sized rectangle becomes it', () => {
    const all = allMask();
    expect(all.data.length).toBe(0);
    expect(selectsAll(all, 9000, 18000)).toBe(true);
    expect(selectionBounds(all, 30, 20)).toEqual({ x: 0, y: 0, w: 30, h: 20 });
    const full = normaliseSelection(rectMask({ x: -5, y: -5, w: 100, h: 100 }, 30, 20), 30, 20)!;
    expect(full.data.length).toBe(0);
    expect(full.outside).toBe(255);
    expect(selectsAll(rectMask({ x: 0, y: 0, w: 29, h: 20 }, 30, 20), 30, 20)).toBe(false);
  });

  it('nothing selected inside the canvas is no selection', () => {
    expect(normaliseSelection(rectMask({ x: 40, y: 0, w: 5, h: 5 }, 30, 20), 30, 20)).toBeNull();
    expect(normaliseSelection(invertMask(allMask()), 30, 20)).toBeNull();
  });

  it('samples a mask over any rectangle, as one number when uniform', () => {
    const m = rectMask({ x: 2, y: 2, w: 3, h: 3 }, 10, 10);
    expect(sampleMask(m, { x: 3, y: 3, w: 1, h: 2 })).toBe(255);
    expect(sampleMask(m, { x: 6, y: 6, w: 3, h: 3 })).toBe(0);
    expect([...(sampleMask(m, { x: 1, y: 2, w: 3, h: 1 }) as Uint8Array)]).toEqual([0, 255, 255]);
    expect(sampleMask(allMask(), { x: 0, y: 0, w: 50, h: 50 })).toBe(255);
  });
});

describe('inverse', () => {
  it('is 255 − m everywhere, the value beyond the rectangle included', () => {
    const m: Mask = { x: 1, y: 1, w: 2, h: 2, data: Uint8Array.from([0, 10, 200, 255]), outside: 0 };
    const inv = invertMask(m);
    expect(inv.outside).toBe(255);
    expect(dense(inv, 4, 4)).toEqual(dense(m, 4, 4).map((v) => 255 - v));
    // Twice is the original.
    expect(dense(invertMask(inv), 4, 4)).toEqual(dense(m, 4, 4));
    expect(m.data).toEqual(Uint8Array.from([0, 10, 200, 255])); // the input is untouched
  });

  it('an inverted rectangle selects the canvas around it', () => {
    const inv = normaliseSelection(invertMask(rectMask({ x: 2, y: 1, w: 3, h: 2 }, 8, 5)), 8, 5)!;
    expect(dense(inv, 8, 5)).toEqual(expectedRect(8, 5, 2, 1, 5, 3, 0));
    expect(selectionBounds(inv, 8, 5)).toEqual({ x: 0, y: 0, w: 8, h: 5 });
    expect(selectedPercent(inv, 8, 5)).toBeCloseTo(((40 - 6) / 40) * 100, 6);
  });
});

describe('layer alpha', () => {
  it('is the raster alpha, cut to the canvas and trimmed', () => {
    // 4×2 raster at (-1, 1): alphas 0, 50, 255, 0 / 0, 0, 128, 0
    const alphas = [0, 50, 255, 0, 0, 0, 128, 0];
    const data = new Uint8ClampedArray(alphas.flatMap((a) => [9, 9, 9, a]));
    const r: Raster = { x: -1, y: 1, w: 4, h: 2, data };
    const m = alphaMask(r, 5, 5);
    expect({ x: m.x, y: m.y, w: m.w, h: m.h, outside: m.outside }).toEqual({
      x: 0,
      y: 1,
      w: 2,
      h: 2,
      outside: 0,
    });
    expect([...m.data]).toEqual([50, 255, 0, 128]);
  });
});

describe('feather', () => {
  const radius = 8;
  const sigma = radius * FEATHER_SIGMA_PER_RADIUS;

  it('maps radius to σ = r/2 (one constant)', () => {
    expect(FEATHER_SIGMA_PER_RADIUS).toBe(0.5);
  });

  it('turns a hard edge into a monotone Gaussian ramp centred on it, about 2r wide', async () => {
    // Left half of a 120×10 canvas selected: x < 60. The canvas edge at x = 0 is not an edge of the selection.
    const m = rectMask({ x: 0, y: 0, w: 60, h: 10 }, 120, 10);
    const f = await featherMask(m, radius, 120, 10);
    const row = Array.from({ length: 120 }, (_, x) => at(f, x, 5));
    for (let x = 1; x < 120; x++) expect(row[x]!).toBeLessThanOrEqual(row[x - 1]!);
    expect(row[0]).toBe(255);
    expect(row[119]).toBe(0);
    // The ideal: 255 · Φ((60 − (x + 0.5)) / σ) at pixel centres, within 5 levels (sharp’s integer kernel; measured 3.2).
    for (let x = 0; x < 120; x++) {
      expect(Math.abs(row[x]! - 255 * phi((60 - (x + 0.5)) / sigma))).toBeLessThanOrEqual(5);
    }
    // 5 %–95 % of the ramp spans ±1.645σ ≈ ±0.82 r.
    const width = row.filter((v) => v > 0.05 * 255 && v < 0.95 * 255).length;
    expect(width).toBeGreaterThanOrEqual(Math.floor(2 * 1.645 * sigma) - 1);
    expect(width).toBeLessThanOrEqual(Math.ceil(2 * 1.645 * sigma) + 1);
    // Every row is the same (no fading at the top and bottom canvas edges).
    for (let y = 0; y < 10; y++) expect(Array.from({ length: 120 }, (_, x) => at(f, x, y))).toEqual(row);
  });

  it('feathers the hole of an inverted selection and leaves the far canvas selected', async () => {
    const inv = normaliseSelection(invertMask(rectMask({ x: 40, y: 40, w: 20, h: 20 }, 100, 100)), 100, 100)!;
    const f = await featherMask(inv, radius, 100, 100);
    expect(f.outside).toBe(255);
    expect(at(f, 5, 5)).toBe(255);
    expect(at(f, 50, 50)).toBeLessThan(20);
    expect(Math.abs(at(f, 40, 50) - 255 * (1 - phi(0.5 / sigma)))).toBeLessThanOrEqual(4);
  });

  it('matches ImageMagick blurring the same mask', async () => {
    if (!imageMagickAvailable()) return;
    const W = 64;
    const H = 48;
    const m = rectMask({ x: 12, y: 10, w: 30, h: 20 }, W, H);
    const f = await featherMask(m, radius, W, H);
    const gray = Buffer.from(dense(m, W, H));
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = await mkdtemp(path.join(tmpdir(), 'feather-'));
    try {
      const file = path.join(dir, 'm.gray');
      await writeFile(file, gray);
      const ref = await convertTo(
        [
          '-size',
          `${W}x${H}`,
          '-depth',
          '8',
          `gray:${file}`,
          '-virtual-pixel',
          'edge',
          '-gaussian-blur',
          `0x${sigma}`,
          '-depth',
          '8',
          'gray:OUT',
        ],
        'gray',
      );
      const ours = dense(f, W, H);
      let max = 0;
      for (let i = 0; i < ours.length; i++) max = Math.max(max, Math.abs(ours[i]! - ref[i]!));
      // sharp’s integer-precision kernel rounds its weights: up to ~8 levels (3 %) off the exact Gaussian (measured 6 here).
      expect(max).toBeLessThanOrEqual(8);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the inside of a large selection fully selected for every σ (sharp’s integer blur gain divided out)', async () => {
    for (const r of [1, 2.2, 4.2, 10, 21.8, 33]) {
      const s = r * FEATHER_SIGMA_PER_RADIUS;
      const size = Math.ceil(16 * s) + 10;
      const f = await featherMask(
        rectMask({ x: 0, y: 0, w: size, h: size }, 2 * size, size),
        r,
        2 * size,
        size,
      );
      // Far from the edge at x = size: fully selected, and fully unselected on the other side.
      expect([at(f, 0, 0), at(f, size - Math.ceil(4 * s), size >> 1)]).toEqual([255, 255]);
      expect(at(f, size + Math.ceil(4 * s), size >> 1)).toBe(0);
    }
  });

  it('leaves Select All as it is', async () => {
    const f = await featherMask(allMask(), 20, 50, 50);
    expect(selectsAll(f, 50, 50)).toBe(true);
  });
});

describe('fill', () => {
  const red = { r: 255, g: 0, b: 0 };

  it('is source-over with coverage opacity × mask / 255, growing the raster to the region', () => {
    // A 2×1 raster at (1,0): opaque blue, and half-transparent green.
    const r: Raster = {
      x: 1,
      y: 0,
      w: 2,
      h: 1,
      data: new Uint8ClampedArray([0, 0, 255, 255, 0, 255, 0, 128]),
    };
    const mask: Mask = { x: 0, y: 0, w: 4, h: 1, data: Uint8Array.from([255, 255, 102, 0]), outside: 0 };
    const out = fillPixels(r, { x: 0, y: 0, w: 3, h: 1 }, red, 0.5, mask, false);
    expect({ x: out.x, w: out.w }).toEqual({ x: 0, w: 3 });
    const px = (i: number) => [...out.data.subarray(i * 4, i * 4 + 4)];
    // x=0: empty, coverage 0.5 → red at alpha 0.5.
    expect(px(0)).toEqual([255, 0, 0, 128]);
    // x=1: opaque blue, coverage 0.5 → (127.5, 0, 127.5), opaque.
    expect(px(1)).toEqual([128, 0, 128, 255]);
    // x=2: green α .502, coverage 0.5·0.4 = 0.2: αo = .2 + .502·.8; C = (255·.2, 255·.502·.8, 0) / αo.
    const a = 0.2;
    const ab = 128 / 255;
    const ao = a + ab * (1 - a);
    expect(px(2)).toEqual([
      Math.round((255 * a) / ao),
      Math.round((255 * ab * (1 - a)) / ao),
      0,
      Math.round(ao * 255),
    ]);
    expect([...r.data]).toEqual([0, 0, 255, 255, 0, 255, 0, 128]); // untouched
  });

  it('keeps alpha with the transparency lock and does not grow', () => {
    const r: Raster = { x: 0, y: 0, w: 2, h: 1, data: new Uint8ClampedArray([0, 0, 255, 255, 0, 0, 0, 0]) };
    const out = fillPixels(r, { x: 0, y: 0, w: 5, h: 1 }, red, 1, null, true);
    expect({ x: out.x, w: out.w }).toEqual({ x: 0, w: 2 });
    expect([...out.data]).toEqual([255, 0, 0, 255, 0, 0, 0, 0]);
  });
});
