/**
 * A garment laid askew whose print is drawn in lines a px or two wide (a plaid's accent line, narrow stripes), and
 * a garment laid barely askew. The photo as taken cut those lines on its own px grid, and the levelled photo holds
 * that grid turned: its repeat is read through it at its period, not as the multiple that happens to fall back on
 * the grid. A turn of half a degree or so is levelled too, when the silhouette or the print can tell it.
 */
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { garmentPhoto, PLAID_TILE, STRIPE, TILE, tiltedPrintPhoto } from '../support/garment-fixtures.js';

type Print = 'fill' | 'stripes' | 'plaid';

async function expectRepeat(png: Buffer, print: Print, deg: number, period: number): Promise<void> {
  const e = await analysePhoto(png, 'p.png', 'h');
  expect(e.swatch).toBe(false);
  expect(e.level, 'the turn is taken out').not.toBeNull();
  expect(Math.abs(e.level!.degrees - deg), `${e.level!.degrees}° for ${deg}°`).toBeLessThanOrEqual(0.1);
  const lat = e.lattice;
  expect(lat, 'the repeat is found').not.toBeNull();
  const [tw, th] = [lat!.tileW / e.analysisScale, lat!.tileH / e.analysisScale];
  // Stripes run on along themselves: only their period across them is theirs.
  if (print !== 'stripes') expect(Math.abs(tw / period - 1), `tile ${tw} × ${th}`).toBeLessThanOrEqual(0.02);
  expect(Math.abs(th / period - 1), `tile ${tw} × ${th}`).toBeLessThanOrEqual(0.02);
  expect(lat!.layout).toBe('block');
}

describe('a garment laid askew, its print in fine lines: the repeat at its period', () => {
  it.each([
    ['plaid', 24, 8],
    ['plaid', 32, 12],
    ['plaid', 16, 8],
    ['stripes', 16, 8],
  ] as const)(
    '%s, %i px a repeat, turned %i°',
    async (print, repeat, deg) => {
      // Before: the plaid read 216 px (9 repeats, the first to fall back on the photo's px grid) and 96 px, the
      // 16 px plaid's turn 7.4° (its silhouette; the print's 8.00° was not believed) and no repeat, the stripes
      // none (their turn read 8.025°).
      await expectRepeat(await tiltedPrintPhoto(print, deg, repeat), print, deg, repeat);
    },
    120_000,
  );

  it.each([12, -7])(
    'the plaid at 1280 px turned %i°',
    async (deg) => {
      // Before: no repeat found.
      await expectRepeat(
        await garmentPhoto('plaid', 2, 'folds', 'studio', undefined, deg),
        'plaid',
        deg,
        2 * PLAID_TILE,
      );
    },
    180_000,
  );
});

describe('a garment laid barely askew is levelled', () => {
  it.each([
    ['fill', 1, 0.5, TILE],
    ['fill', 1, -1.3, TILE],
    ['stripes', 2, 0.5, 2 * STRIPE.period],
    // Before: 252 × 84, levelled 0.56°: 3 × 84 px misaligned by a quarter px, which the repeat's difference is
    // read at, and 84 px by a tenth, so the multiple compared exact and the repeat did not.
    ['plaid', 1, 0.5, PLAID_TILE],
  ] as const)(
    '%s at zoom %i turned %s°',
    async (print, zoom, deg, period) => {
      // Before: read as it lay (under 1.5°), and no repeat was found: it drifts 5–13 px over the garment.
      await expectRepeat(
        await garmentPhoto(print, zoom, 'folds', 'studio', undefined, deg),
        print,
        deg,
        period,
      );
    },
    180_000,
  );

  it('a level garment is still read as it lies', async () => {
    const e = await analysePhoto(await garmentPhoto('plaid', 1), 'p.png', 'h');
    expect(e.level).toBeNull();
    expect([e.lattice!.tileW, e.lattice!.tileH]).toEqual([PLAID_TILE, PLAID_TILE]);
  }, 120_000);
});
