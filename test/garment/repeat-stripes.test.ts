/**
 * Stripes whose spacing is not a whole number of px (a 13.37 px stripe): the repeat is found, at one stripe, not
 * missed and not taken as the first whole-px multiple of it.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { detectLattice, subPixelBasis } from '../../src/garment/builtin/repeat.js';
import { GROUND, inShirt, NAVY } from '../support/garment-fixtures.js';

const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

/**
 * Navy stripes 35 % of `period` wide on the cream ground, each px the share of it the stripes cover (as a camera
 * integrates light over a px), on the test T-shirt under mild folds or filling the photo (`swatch`).
 */
async function stripedPhoto(period: number, vertical: boolean, swatch: boolean): Promise<Buffer> {
  const side = 640;
  const band = 0.35 * period;
  const [navy, ground] = [rgb(NAVY), rgb(GROUND)];
  const cover = (a: number) => {
    let s = 0;
    for (let k = Math.floor(a / period) - 1; k <= Math.floor((a + 1) / period) + 1; k++)
      s += Math.max(0, Math.min(a + 1, k * period + band) - Math.max(a, k * period));
    return s;
  };
  const data = Buffer.alloc(side * side * 3);
  let seed = 12345;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      let c: number[];
      if (swatch || inShirt(x, y)) {
        const t = cover(vertical ? x : y);
        const fold = 0.95 + 0.05 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
        c = [0, 1, 2].map((k) => (ground[k]! + (navy[k]! - ground[k]!) * t) * fold);
      } else {
        const g = 122 + Math.round((y / side) * 18);
        c = [g, g + 6, g + 14];
      }
      for (let k = 0; k < 3; k++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        data[(y * side + x) * 3 + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + ((seed >> 8) % 9) - 4));
      }
    }
  }
  return sharp(data, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

describe('stripes between whole px', () => {
  // Before: 107 px tiles (8 stripes) at 13.37 px; on the garment at 23.7 px no repeat at all (the first exact lag,
  // 237 px = 10 stripes, fits fewer than three times).
  for (const [period, vertical, swatch] of [
    [13.37, false, true],
    [13.37, false, false],
    [13.37, true, false],
    [23.7, false, false],
    [11.1, false, false],
  ] as const) {
    const what = `${period} px ${vertical ? 'vertical' : 'horizontal'} stripes, ${swatch ? 'a swatch' : 'a garment'}`;
    it(`${what}: one stripe, its period within 0.4 %`, async () => {
      const e = await analysePhoto(await stripedPhoto(period, vertical, swatch), 'p.png', what);
      expect(e.kind).toBe('fill_pattern');
      expect(e.lattice).not.toBeNull();
      const l = e.lattice!;
      expect(l.layout).toBe('block');
      // The tile is one period square, read again at the scale that makes the stripe whole px; that scale is
      // chosen where it is closest to whole (photo.ts wholePxScale).
      const across = vertical ? l.tileW : l.tileH;
      expect(Math.abs(across / e.analysisScale / period - 1), `tile ${l.tileW} × ${l.tileH}`).toBeLessThan(
        0.004,
      );
    });
  }

  it('the stripe is measured to a thousandth of its period before the photo is read again', async () => {
    const { data, info } = await sharp(await stripedPhoto(13.37, false, true))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const n = info.width * info.height;
    const lum = Float64Array.from({ length: n }, (_, i) => {
      const [r, g, b] = [data[i * 3]!, data[i * 3 + 1]!, data[i * 3 + 2]!];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    });
    const mask = new Uint8Array(n).fill(1);
    const lat = detectLattice(lum, mask, info.width, info.height)!;
    expect(lat).not.toBeNull();
    const basis = subPixelBasis(lat, lum, mask, info.width, info.height);
    // Across the stripes: the period; along them: the same length (any length repeats along stripes).
    for (const v of basis) expect(Math.abs(Math.hypot(v[0], v[1]) / 13.37 - 1)).toBeLessThan(0.001);
    expect(basis.some((v) => v[0] === 0)).toBe(true);
    expect(basis.some((v) => v[1] === 0)).toBe(true);
  });
});
