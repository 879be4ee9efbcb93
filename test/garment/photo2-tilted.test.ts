/**
 * A garment laid askew, its print at several sizes: the photo is turned back as a swatch is (the spline
 * interpolator and the slight blur of level.ts turnRaster, not libvips' bilinear rotate) and to the hundredth of a
 * degree its stripes or checks read, so the repeat comes out at its period.
 */
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { garmentPhoto, PLAID_TILE, STRIPE, TILE, tiltedPrintPhoto } from '../support/garment-fixtures.js';

type Print = 'fill' | 'stripes' | 'plaid';
const PERIOD = { fill: TILE, stripes: STRIPE.period, plaid: PLAID_TILE } as const;

async function expectRepeat(png: Buffer, print: Print, deg: number, period: number): Promise<void> {
  const e = await analysePhoto(png, 'p.png', 'h');
  expect(e.swatch).toBe(false);
  expect(Math.abs(e.level!.degrees - deg), `${e.level!.degrees}° for ${deg}°`).toBeLessThanOrEqual(0.3);
  const lat = e.lattice;
  expect(lat, 'the repeat is found').not.toBeNull();
  const [tw, th] = [lat!.tileW / e.analysisScale, lat!.tileH / e.analysisScale];
  // Stripes run on along themselves: only their period across them is theirs.
  if (print !== 'stripes') expect(Math.abs(tw / period - 1), `tile ${tw} × ${th}`).toBeLessThanOrEqual(0.02);
  expect(Math.abs(th / period - 1), `tile ${tw} × ${th}`).toBeLessThanOrEqual(0.02);
  expect(lat!.layout).toBe('block');
}

describe('a garment laid askew: the repeat at its period', () => {
  it.each([
    ['fill', 8],
    ['fill', 12],
    ['stripes', 8],
    ['stripes', 12],
    ['plaid', 5],
  ] as const)(
    '%s turned %i°',
    async (print, deg) => {
      // Before: 64 × 192 and 192 × 192 px for the 64 px block, stripes as a skewed 7 × 280 lattice and not at all,
      // the plaid 252 × 84 (turned back bilinear; stripes at 12° read 11.9°, the plaid at 5° 4.9°).
      await expectRepeat(
        await garmentPhoto(print, 1, 'folds', 'studio', undefined, deg),
        print,
        deg,
        PERIOD[print],
      );
    },
    120_000,
  );

  it.each([
    ['fill', 16, 5],
    ['fill', 16, 8],
    ['fill', 16, 12],
    ['fill', 16, 15],
    ['stripes', 16, 12],
    ['stripes', 16, -7],
  ] as const)(
    '%s, %i px a repeat, turned %i°',
    async (print, repeat, deg) => {
      // Before: no repeat, or 80–208 px for 16, or stripes not found or as a skewed 8 × 129 px lattice.
      await expectRepeat(await tiltedPrintPhoto(print, deg, repeat), print, deg, repeat);
    },
    120_000,
  );
});
