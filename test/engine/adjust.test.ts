/**
 * The adjustment kernels (src/engine/adjust) against formulas written out here: Photoshop Levels, Invert,
 * the Auto Levels/Contrast clip, psd-tools' Brightness/Contrast control points, HSL conversions of known
 * colours, selection runs and mixing, trimming, and the blur's geometry. Tool-level comparisons with
 * ImageMagick and Python are in test/tools/adjustments.test.ts.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  applyColorKernel,
  autoContrast,
  autoLevels,
  blendBySelection,
  blurIsIdentity,
  blurReach,
  brightnessContrastLut,
  clippedRange,
  desaturateKernel,
  forEachSelectedRun,
  gaussianBlur,
  hasSelectedPixels,
  histograms,
  hueSaturationKernel,
  invertLut,
  isIdentity,
  levelsLut,
  lutKernel,
  opaqueBounds,
  selectionTouches,
  stretchLut,
  trimmed,
} from '../../src/engine/adjust/index.js';
import type { Mask, Raster } from '../../src/engine/model.js';

function pixels(w: number, h: number, f: (x: number, y: number) => readonly number[], x = 0, y = 0): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) data.set(f(i, j), (j * w + i) * 4);
  return { x, y, w, h, data };
}

function one(kernel: ReturnType<typeof lutKernel>, rgba: readonly number[]): number[] {
  const src = new Uint8ClampedArray(rgba);
  const dst = new Uint8ClampedArray(4);
  kernel(src, dst, 0, 4);
  return [...dst];
}

function expectNear(actual: readonly number[], expected: readonly number[], tol: number): void {
  expect(actual).toHaveLength(expected.length);
  for (let i = 0; i < expected.length; i++)
    expect(Math.abs(actual[i]! - expected[i]!), `[${i}]`).toBeLessThanOrEqual(tol);
}

function at(r: Raster, x: number, y: number): number[] {
  const i = ((y - r.y) * r.w + (x - r.x)) * 4;
  return [...r.data.subarray(i, i + 4)];
}

describe('tone curves', () => {
  it('levels: ((v − black)/(white − black))^(1/γ), clipped, rounded', () => {
    const lut = levelsLut(20, 200, 2);
    for (let v = 0; v < 256; v++) {
      const x = Math.min(1, Math.max(0, (v - 20) / 180));
      expect(lut[v]).toBe(Math.round(255 * Math.sqrt(x)));
    }
    expect(lut[110]).toBe(180); // (90/180)^0.5 · 255 = 180.3
    // γ < 1 darkens, γ > 1 brightens the midtones
    expect(levelsLut(0, 255, 0.5)[128]).toBeLessThan(128);
    expect(levelsLut(0, 255, 2)[128]).toBeGreaterThan(128);
    expect(isIdentity(levelsLut(0, 255, 1))).toBe(true);
  });

  it('invert: 255 − v; stretch: lo → 0, hi → 255', () => {
    const inv = invertLut();
    for (let v = 0; v < 256; v++) expect(inv[v]).toBe(255 - v);
    const st = stretchLut(50, 150);
    expect([st[0], st[50], st[100], st[150], st[255]]).toEqual([0, 0, 128, 255, 255]);
    expect(isIdentity(stretchLut(80, 80))).toBe(true);
  });

  it('brightness/contrast: psd-tools’ control points, fixed ends, and the direction of each slider', () => {
    expect(isIdentity(brightnessContrastLut(0, 0))).toBe(true);
    // contrast alone: the spline passes (63, 63 − 25c) and (191, 191 + 25c)
    expect(brightnessContrastLut(0, 100)[63]).toBe(38);
    expect(brightnessContrastLut(0, 100)[191]).toBe(216);
    expect(brightnessContrastLut(0, -50)[63]).toBe(Math.round(63 + 12.5));
    for (const [b, c] of [
      [150, 100],
      [-150, -50],
      [75, 30],
      [-40, 80],
    ]) {
      const lut = brightnessContrastLut(b!, c!);
      expect([lut[0], lut[255]], `${b}/${c}`).toEqual([0, 255]);
      for (let v = 1; v < 256; v++)
        expect(lut[v]!, `${b}/${c} monotone at ${v}`).toBeGreaterThanOrEqual(lut[v - 1]!);
    }
    expect(brightnessContrastLut(100, 0)[128]).toBeGreaterThan(150);
    expect(brightnessContrastLut(-100, 0)[128]).toBeLessThan(105);
  });

  it('LUT kernels change RGB only and leave fully transparent pixels exactly as they are', () => {
    const k = lutKernel(invertLut());
    expect(one(k, [10, 20, 30, 77])).toEqual([245, 235, 225, 77]);
    expect(one(k, [0, 0, 0, 0])).toEqual([0, 0, 0, 0]);
    expect(one(k, [7, 8, 9, 0])).toEqual([7, 8, 9, 0]);
  });

  it('kernels work on buffers that are not 4-byte aligned (copied through aligned words)', () => {
    const backing = new Uint8ClampedArray(1 + 8);
    const src = backing.subarray(1);
    src.set([10, 20, 30, 255, 200, 100, 50, 128]);
    const dst = new Uint8ClampedArray(new ArrayBuffer(11), 3, 8);
    lutKernel(invertLut())(src, dst, 0, 8);
    expect([...dst]).toEqual([245, 235, 225, 255, 55, 155, 205, 128]);
    desaturateKernel(src, dst, 4, 8);
    expect([...dst.subarray(4)]).toEqual([125, 125, 125, 128]);
  });
});

describe('hue/saturation and desaturate', () => {
  const hsl = (h: number, s: number, l: number, rgba: readonly number[]) =>
    one(hueSaturationKernel(h, s, l), rgba);

  it('turns hue as Photoshop: +120 takes red to green, −120 to blue, 180 to cyan', () => {
    expect(hsl(120, 0, 0, [255, 0, 0, 255])).toEqual([0, 255, 0, 255]);
    expect(hsl(-120, 0, 0, [255, 0, 0, 255])).toEqual([0, 0, 255, 255]);
    expect(hsl(180, 0, 0, [255, 0, 0, 255])).toEqual([0, 255, 255, 255]);
    expect(hsl(-180, 0, 0, [200, 100, 50, 255])).toEqual(hsl(180, 0, 0, [200, 100, 50, 255]));
    // greys have no hue
    expect(hsl(77, 0, 0, [90, 90, 90, 200])).toEqual([90, 90, 90, 200]);
  });

  it('saturation −100 gives the HSL lightness; +100 saturates fully (S = 1)', () => {
    expect(hsl(0, -100, 0, [200, 100, 50, 255])).toEqual([125, 125, 125, 255]);
    // (200,100,50): L = 0.4902, hue 20°: S = 1 gives C = 2L, so R = 2L·255 = 250, B = 0, G = C·(20/60)·255
    expect(hsl(0, 100, 0, [200, 100, 50, 255])).toEqual([250, 83, 0, 255]);
    // S·(1 + s): half saturation keeps L and hue, halves the chroma C = max − min (150 → 75), m = L − C/2:
    // R = C + m, G = C/3 + m (hue 20°), B = m
    const half = hsl(0, -50, 0, [200, 100, 50, 255]);
    expectNear(half, [162.5, 112.5, 87.5, 255], 0.5);
  });

  it('lightness mixes toward white or black in RGB first', () => {
    expect(hsl(0, 0, 100, [200, 100, 50, 255])).toEqual([255, 255, 255, 255]);
    expect(hsl(0, 0, -100, [200, 100, 50, 255])).toEqual([0, 0, 0, 255]);
    // v·(1 − L) + 255·L at L = 0.5
    const lighter = hsl(0, 0, 50, [200, 100, 50, 255]);
    expectNear(lighter, [227.5, 177.5, 152.5, 255], 0.5);
    expect(hsl(0, 0, -50, [200, 100, 50, 9])).toEqual([100, 50, 25, 9]);
  });

  it('desaturate = (max + min)/2, alpha kept', () => {
    expect(one(desaturateKernel, [200, 30, 100, 128])).toEqual([115, 115, 115, 128]);
    expect(one(desaturateKernel, [1, 2, 4, 255])).toEqual([3, 3, 3, 255]);
    expect(one(desaturateKernel, [9, 9, 9, 0])).toEqual([9, 9, 9, 0]);
  });
});

describe('auto levels and auto contrast', () => {
  it('the clip: the first level where more than clip·N values lie at or below it', () => {
    const h = new Float64Array(256);
    h[0] = 1;
    for (let v = 10; v <= 200; v++) h[v] = 5;
    h[255] = 1;
    const n = h.reduce((a, b) => a + b, 0); // 957
    expect(clippedRange(h, n, 0.002)).toEqual({ black: 10, white: 200 }); // limit 1.9: the lone 0 and 255 go
    expect(clippedRange(h, n, 0.001)).toEqual({ black: 0, white: 255 }); // limit 0.96: they stay
    expect(clippedRange(h, n, 0)).toEqual({ black: 0, white: 255 });
    expect(clippedRange(h, n, 0.05)).toEqual({ black: 19, white: 191 });
  });

  it('per channel vs all channels together, counting only visible, selected pixels', () => {
    // R spans 40..140, G 100..200, B 0..255; plus a transparent pixel that must not count
    const r = pixels(101, 2, (x, y) =>
      y === 1 && x === 0 ? [255, 0, 255, 0] : [40 + x, 100 + x, x * 2.55, 255],
    );
    const h = histograms(r, null);
    expect(h.count).toBe(201);
    const al = autoLevels(h, 0);
    expect([al.red, al.green, al.blue]).toEqual([
      { black: 40, white: 140 },
      { black: 100, white: 200 },
      { black: 0, white: 255 },
    ]);
    const ac = autoContrast(h, 0);
    expect([ac.black, ac.white]).toEqual([0, 255]);
    const sel: Mask = { x: 0, y: 0, w: 11, h: 1, data: new Uint8Array(11).fill(255), outside: 0 };
    expect(histograms(r, sel).count).toBe(11);
    expect(autoLevels(histograms(r, sel), 0).red).toEqual({ black: 40, white: 50 });
  });
});

describe('selection runs and mixing', () => {
  const r = pixels(10, 4, () => [100, 100, 100, 255], 5, 5);

  it('visits the part the selection may cover, in raster coordinates', () => {
    const mask: Mask = { x: 8, y: 6, w: 4, h: 2, data: new Uint8Array(8).fill(200), outside: 0 };
    const seen: string[] = [];
    forEachSelectedRun(r, mask, (from, to, m, mi) => seen.push(`${from / 4}-${to / 4}:${m ? mi : 'full'}`));
    // rows y = 6, 7 (raster rows 1, 2), x 8..11 (raster columns 3..6)
    expect(seen).toEqual(['13-17:0', '23-27:4']);
    const inverse: Mask = { ...mask, outside: 255 };
    const all: string[] = [];
    forEachSelectedRun(r, inverse, (from, to, m) => all.push(`${from / 4}-${to / 4}${m ? '' : 'f'}`));
    expect(all).toEqual(['0-10f', '10-13f', '13-17', '17-20f', '20-23f', '23-27', '27-30f', '30-40f']);
    expect(selectionTouches({ x: 0, y: 0, w: 5, h: 5 }, mask)).toBe(false);
    expect(selectionTouches({ x: 0, y: 0, w: 9, h: 7 }, mask)).toBe(true);
  });

  it('applies a colour kernel mixed by the mask value', () => {
    const mask: Mask = { x: 5, y: 5, w: 3, h: 1, data: new Uint8Array([0, 128, 255]), outside: 0 };
    const out = applyColorKernel(r, lutKernel(invertLut()), mask);
    expect(at(out, 5, 5)).toEqual([100, 100, 100, 255]);
    expect(at(out, 6, 5)).toEqual([128, 128, 128, 255]); // 100 + (155 − 100)·128/255 = 127.6
    expect(at(out, 7, 5)).toEqual([155, 155, 155, 255]);
    expect(at(out, 8, 5)).toEqual([100, 100, 100, 255]);
    expect(out.data).not.toBe(r.data);
    expect(r.data[0]).toBe(100);
  });

  it('blends rasters of different alpha with premultiplied weights', () => {
    const orig = pixels(1, 1, () => [255, 0, 0, 255], 0, 0);
    const adjusted = pixels(2, 1, (x) => (x === 0 ? [0, 0, 255, 51] : [0, 255, 0, 255]), 0, 0);
    const half: Mask = { x: 0, y: 0, w: 2, h: 1, data: new Uint8Array([128, 128]), outside: 0 };
    const out = blendBySelection(orig, adjusted, half);
    expect([out.x, out.w]).toEqual([0, 2]);
    // α = 255 + (51 − 255)·t; colour = (255·255·(1 − t), 0, 255·51·t)/α  (t = 128/255)
    const t = 128 / 255;
    const a = 255 + (51 - 255) * t;
    const want = [(255 * 255 * (1 - t)) / a, 0, (255 * 51 * t) / a, a];
    expectNear(at(out, 0, 0), want, 0.5);
    // beyond the original raster the original is transparent: only alpha fades in
    expect(at(out, 1, 0)).toEqual([0, 255, 0, 128]);
  });

  it('knows when nothing visible is selected', () => {
    const holed = pixels(4, 1, (x) => [1, 2, 3, x === 3 ? 255 : 0]);
    const left: Mask = { x: 0, y: 0, w: 3, h: 1, data: new Uint8Array(3).fill(255), outside: 0 };
    expect(hasSelectedPixels(holed, left)).toBe(false);
    expect(hasSelectedPixels(holed, { ...left, outside: 255 })).toBe(true);
    expect(hasSelectedPixels(holed, null)).toBe(true);
  });
});

describe('trimming', () => {
  it('finds the non-transparent bounds from the edges inward', () => {
    const r = pixels(
      8,
      6,
      (x, y) => [0, 0, 0, x >= 2 && x < 5 && y >= 1 && y < 4 && x + y !== 2 ? 9 : 0],
      10,
      20,
    );
    expect(opaqueBounds(r)).toEqual({ x: 12, y: 21, w: 3, h: 3 });
    const t = trimmed(r);
    expect([t.x, t.y, t.w, t.h]).toEqual([12, 21, 3, 3]);
    const empty = trimmed(pixels(3, 3, () => [5, 5, 5, 0]));
    expect([empty.w, empty.h]).toEqual([0, 0]);
    const full = pixels(2, 2, () => [1, 1, 1, 1]);
    expect(trimmed(full)).toBe(full);
  });
});

describe('gaussian blur', () => {
  it('reaches as far as libvips’ integer mask (taps with rint(20·e^(−x²/2σ²)) > 0)', () => {
    for (const sigma of [0.5, 1, 2.5, 10, 30]) {
      let x = 0;
      while (Math.round(20 * Math.exp(-((x + 1) ** 2) / (2 * sigma * sigma))) > 0) x++;
      expect(Math.abs(blurReach(sigma) - x), `σ ${sigma}`).toBeLessThanOrEqual(1);
      expect(blurReach(sigma)).toBeLessThanOrEqual(Math.ceil(3 * sigma));
    }
    // above LARGE_SIGMA: the shrunk detour's float mask (3σ) plus one block
    expect(blurReach(100)).toBe(310 + 7);
    expect(blurIsIdentity(0.1)).toBe(true);
    expect(blurIsIdentity(0.2)).toBe(true);
    expect(blurIsIdentity(0.3)).toBe(false);
  });

  it('below σ 0.5: an exact separable kernel (centre 255·w0², side 255·w0·w1)', async () => {
    const sigma = 0.4;
    const r = pixels(5, 5, (x, y) => (x === 2 && y === 2 ? [255, 255, 255, 255] : [0, 0, 0, 255]));
    const out = await gaussianBlur(r, sigma, { edge: 'copy', limit: null, keepAlpha: false });
    const w = [-2, -1, 0, 1, 2].map((k) => Math.exp(-(k * k) / (2 * sigma * sigma)));
    const sum = w.reduce((a, b) => a + b, 0);
    const [w1, w0] = [w[1]! / sum, w[2]! / sum];
    expect([out.x, out.y, out.w, out.h]).toEqual([0, 0, 5, 5]);
    expect(Math.abs(at(out, 2, 2)[0]! - 255 * w0 * w0)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(at(out, 3, 2)[0]! - 255 * w0 * w1)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(at(out, 3, 3)[0]! - 255 * w1 * w1)).toBeLessThanOrEqual(0.5);
    expect(at(out, 0, 0)[3]).toBe(255);
  });

  it('grows a transparent layer by its reach, within the limit, and conserves coverage', async () => {
    const dot = pixels(4, 4, () => [10, 200, 30, 255], 20, 20);
    const out = await gaussianBlur(dot, 2, { edge: 'transparent', limit: null, keepAlpha: false });
    const reach = blurReach(2);
    expect([out.x, out.y, out.w, out.h]).toEqual([20 - reach, 20 - reach, 4 + 2 * reach, 4 + 2 * reach]);
    let mass = 0;
    for (let i = 3; i < out.data.length; i += 4) mass += out.data[i]!;
    expect(Math.abs(mass - 16 * 255) / (16 * 255)).toBeLessThan(0.02);
    const limited = await gaussianBlur(dot, 2, {
      edge: 'transparent',
      limit: { x: 0, y: 0, w: 24, h: 100 },
      keepAlpha: false,
    });
    expect([limited.x, limited.x + limited.w]).toEqual([20 - reach, 24]);
    // edge replication keeps a flat opaque image flat
    const flat = pixels(30, 20, () => [77, 88, 99, 255]);
    const same = await gaussianBlur(flat, 3, { edge: 'copy', limit: null, keepAlpha: false });
    for (let i = 0; i < same.data.length; i += 4)
      expect([...same.data.subarray(i, i + 4)]).toEqual([77, 88, 99, 255]);
    // and the input is never modified
    expect(at(dot, 20, 20)).toEqual([10, 200, 30, 255]);
  });

  it('clipped to the limit, a 1-pixel transparent border stands for all the transparency beyond', async () => {
    // libvips repeats edge pixels: one transparent pixel past the raster repeats as far as the kernel reaches,
    // so a layer that fills the canvas gets the same edges as one blurred with the full 3σ margin.
    const r = pixels(40, 30, (x, y) => [(x * 6) % 256, (y * 8) % 256, 120, 255]);
    for (const sigma of [0.4, 3, 8]) {
      const clipped = await gaussianBlur(r, sigma, { edge: 'transparent', limit: r, keepAlpha: false });
      const full = await gaussianBlur(r, sigma, { edge: 'transparent', limit: null, keepAlpha: false });
      expect([clipped.x, clipped.y, clipped.w, clipped.h]).toEqual([0, 0, 40, 30]);
      for (let y = 0; y < 30; y++) {
        for (let x = 0; x < 40; x++)
          expect(at(clipped, x, y), `σ ${sigma} (${x},${y})`).toEqual(at(full, x, y));
      }
      // a corner pixel keeps the kernel's weight on its own side of both edges: (1/2 + w0/2)², w0 = 1/(σ√2π)
      const w0 = 1 / (sigma * Math.sqrt(2 * Math.PI));
      if (sigma > 1)
        expect(Math.abs(at(clipped, 0, 0)[3]! - 255 * (0.5 + w0 / 2) ** 2)).toBeLessThanOrEqual(4);
    }
  });

  it('large σ: the shrunk detour matches a float Gaussian at full size, transparent edges included', async () => {
    // a disc with soft noise on transparency; reference: sharp's float Gaussian (minAmplitude 0.001) of the
    // raster padded with transparency far enough, compared in premultiplied colour and alpha
    const n = 160;
    const disc = pixels(n, n, (x, y) =>
      (x - 80) ** 2 + (y - 80) ** 2 < 50 ** 2
        ? [(x * 3) % 256, (y * 5) % 256, 128 + ((x + y) % 64), 255]
        : [0, 0, 0, 0],
    );
    for (const sigma of [33, 48]) {
      const out = await gaussianBlur(disc, sigma, { edge: 'transparent', limit: null, keepAlpha: false });
      const pad = Math.ceil(4 * sigma);
      const ref = await sharp(Buffer.from(disc.data.buffer), { raw: { width: n, height: n, channels: 4 } })
        .extend({ top: pad, bottom: pad, left: pad, right: pad, background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .blur({ sigma, precision: 'float', minAmplitude: 0.001 })
        .raw()
        .toBuffer();
      const W = n + 2 * pad;
      let max = 0;
      for (let y = out.y; y < out.y + out.h; y++) {
        for (let x = out.x; x < out.x + out.w; x++) {
          const mine = at(out, x, y);
          const i = ((y + pad) * W + (x + pad)) * 4;
          max = Math.max(max, Math.abs(mine[3]! - ref[i + 3]!));
          for (let c = 0; c < 3; c++) {
            max = Math.max(max, Math.abs(mine[c]! * mine[3]! - ref[i + c]! * ref[i + 3]!) / 255);
          }
        }
      }
      expect(max, `σ ${sigma}`).toBeLessThanOrEqual(3);
    }
  });

  it('with locked transparency keeps the rectangle and the alpha', async () => {
    const r = pixels(10, 1, (x) => (x < 5 ? [255, 0, 0, 255] : [0, 0, 255, 100]));
    const out = await gaussianBlur(r, 1.5, { edge: 'transparent', limit: null, keepAlpha: true });
    expect([out.x, out.y, out.w, out.h]).toEqual([0, 0, 10, 1]);
    for (let x = 0; x < 10; x++) expect(at(out, x, 0)[3]).toBe(x < 5 ? 255 : 100);
    expect(at(out, 5, 0)[0]).toBeGreaterThan(0); // red bled into the blue
  });
});
