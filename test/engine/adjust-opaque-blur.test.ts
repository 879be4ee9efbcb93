/**
 * The blur of an opaque raster takes a shorter road (three bands, the alpha of a rectangle, the division only
 * where alpha is below 255) to sharp's own result: checked byte for byte against sharp blurring the same RGBA
 * with its premultiplied pipeline and the transparency written out in full, for σ whose integer mask has a gain
 * and σ whose mask has none, every edge mode, limits that cut the result and rasters with odd sizes.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  BLUR_MIN_AMPLITUDE,
  type BlurOptions,
  blurReach,
  gaussianBlur,
} from '../../src/engine/adjust/index.js';
import type { Raster, Rect } from '../../src/engine/model.js';

function photo(
  w: number,
  h: number,
  x0: number,
  y0: number,
  alphaAt?: (x: number, y: number) => number,
): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let k = Math.imul((x * 73856093) ^ (y * 19349663), 0x27d4eb2d);
      k ^= k >>> 15;
      const o = (y * w + x) * 4;
      data[o] = (x * 255) / w + (k & 31);
      data[o + 1] = (y * 255) / h + ((k >> 5) & 31);
      data[o + 2] = (x ^ y) & 16 ? 220 : 20;
      data[o + 3] = alphaAt ? alphaAt(x, y) : 255;
    }
  }
  return { x: x0, y: y0, w, h, data };
}

/**
 * sharp's premultiplied blur of `r` as the general path does it, with the transparency around it written out
 * as far as the kernel reaches (or the edges repeated), cut to `rect`.
 */
async function reference(
  r: Raster,
  sigma: number,
  edge: BlurOptions['edge'],
  rect: Rect,
): Promise<Uint8Array> {
  const m = edge === 'copy' ? 0 : blurReach(sigma) + 1;
  const full = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), {
    raw: { width: r.w, height: r.h, channels: 4 },
  })
    .extend({ left: m, right: m, top: m, bottom: m, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .blur({ sigma, minAmplitude: BLUR_MIN_AMPLITUDE })
    .raw()
    .toBuffer();
  const W = r.w + 2 * m;
  const out = new Uint8Array(rect.w * rect.h * 4);
  for (let y = 0; y < rect.h; y++) {
    const i = ((rect.y - (r.y - m) + y) * W + (rect.x - (r.x - m))) * 4;
    out.set(full.subarray(i, i + rect.w * 4), y * rect.w * 4);
  }
  return out;
}

function firstDifference(a: Uint8ClampedArray, b: Uint8Array): string | null {
  if (a.length !== b.length) return `length ${a.length} ≠ ${b.length}`;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `byte ${i}: ${a[i]} ≠ ${b[i]}`;
  return null;
}

describe('gaussian blur of an opaque raster', () => {
  // 2.5 and 5: libvips' integer mask has a gain (a uniform 255 comes out below 255); 3 and 10: it has none.
  const SIGMAS = [0.5, 1, 2.5, 3, 5, 10, 24];

  it('equals sharp’s premultiplied blur byte for byte, edges repeated (the background)', async () => {
    const r = photo(173, 96, 0, 0);
    for (const sigma of SIGMAS) {
      const out = await gaussianBlur(r, sigma, { edge: 'copy', limit: null, keepAlpha: false });
      expect([out.x, out.y, out.w, out.h]).toEqual([0, 0, 173, 96]);
      expect(firstDifference(out.data, await reference(r, sigma, 'copy', out)), `σ ${sigma}`).toBeNull();
    }
  });

  it('equals it into transparent surroundings: grown, cut by a limit, or cut to the raster itself', async () => {
    const r = photo(157, 88, 30, -7);
    const limits: (Rect | null)[] = [null, { x: 0, y: 0, w: 200, h: 100 }, { x: 30, y: -7, w: 157, h: 88 }];
    for (const sigma of SIGMAS) {
      for (const limit of limits) {
        const out = await gaussianBlur(r, sigma, { edge: 'transparent', limit, keepAlpha: false });
        const ref = await reference(r, sigma, 'transparent', out);
        expect(firstDifference(out.data, ref), `σ ${sigma}, limit ${JSON.stringify(limit)}`).toBeNull();
      }
    }
  });

  it('with transparency locked keeps alpha 255 and the blurred colours', async () => {
    const r = photo(64, 300, 5, 5);
    for (const sigma of [2.5, 10]) {
      const out = await gaussianBlur(r, sigma, { edge: 'transparent', limit: null, keepAlpha: true });
      const ref = await reference(r, sigma, 'transparent', r);
      for (let i = 3; i < ref.length; i += 4) ref[i] = 255;
      expect(firstDifference(out.data, ref), `σ ${sigma}`).toBeNull();
    }
  });

  it('a raster with one transparent pixel takes the general road to the same kind of result', async () => {
    const r = photo(120, 80, 0, 0, (x, y) => (x === 60 && y === 40 ? 0 : 255));
    const out = await gaussianBlur(r, 4, { edge: 'transparent', limit: null, keepAlpha: false });
    expect(firstDifference(out.data, await reference(r, 4, 'transparent', out))).toBeNull();
    // the hole is filled in by its neighbours, partly
    const hole = ((40 - out.y) * out.w + (60 - out.x)) * 4 + 3;
    expect(out.data[hole]).toBeGreaterThan(200);
    expect(out.data[hole]).toBeLessThan(255);
  });
});
