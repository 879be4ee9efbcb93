/**
 * A fabric swatch photographed askew: no garment outline to level it by, the whole photo fabric turned 3–15°. Its
 * turn is read from the print's own axes, the photo is levelled (and cropped to what is still all fabric) before
 * the print is read, the repeat comes out at its period and level, and the turn is reported as `levelled`.
 */
import { describe, expect, it } from 'vitest';
import { photoTruth } from '../../src/garment/builtin/against-photo.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { PLAID_TILE, STRIPE, TILE, tiltedSwatchPhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';
import { piecesAt } from './verify-set.js';

const PERIOD = { fill: TILE, stripes: STRIPE.period, plaid: PLAID_TILE } as const;

describe('a swatch photographed askew', () => {
  it.each([
    ['fill', 3],
    ['fill', -8],
    ['fill', 15],
    ['stripes', 5],
    ['stripes', -12],
    ['plaid', -7],
    ['plaid', 12],
  ] as const)(
    'levels %s turned %i°: the repeat at its period, level',
    async (print, deg) => {
      // Before: the photo was read as it lay: the repeat lost (3°, 12°), or found as a slanted lattice whose tile
      // was 477–1015 px (a 64 px block at 5–15°), and nothing said the photo was askew.
      const e = await analysePhoto(await tiltedSwatchPhoto(print, deg), 'p.png', 'h');
      expect(e.swatch).toBe(true);
      expect(e.level, 'the turn is taken out').not.toBeNull();
      expect(Math.abs(e.level!.degrees - deg), `${e.level!.degrees}° for ${deg}°`).toBeLessThanOrEqual(0.3);
      expect(e.level!.original).toEqual([480, 480]);
      const lat = e.lattice;
      expect(lat, 'the repeat is found').not.toBeNull();
      const period = PERIOD[print];
      expect(Math.abs(lat!.tileW / e.analysisScale / period - 1), `tile ${lat!.tileW}`).toBeLessThanOrEqual(
        0.02,
      );
      expect(Math.abs(lat!.tileH / e.analysisScale / period - 1), `tile ${lat!.tileH}`).toBeLessThanOrEqual(
        0.02,
      );
      // Laid out level: the lattice's vectors along the photo's axes.
      expect(lat!.layout).toBe('block');
      for (const v of [lat!.v1, lat!.v2])
        expect(Math.min(Math.abs(v[0]), Math.abs(v[1]))).toBeLessThanOrEqual(1);
    },
    120_000,
  );

  it('reads a level swatch as it lies', async () => {
    for (const print of ['fill', 'stripes'] as const) {
      const e = await analysePhoto(await tiltedSwatchPhoto(print, 0), 'p.png', 'h');
      expect([e.swatch, e.level]).toEqual([true, null]);
      expect([e.lattice!.tileW, e.lattice!.tileH]).toEqual([PERIOD[print], PERIOD[print]]);
    }
  }, 120_000);

  it('reports the turn as levelled, and verify levels the photo as the analysis did', async () => {
    const png = await tiltedSwatchPhoto('fill', 10);
    const e = await analysePhoto(png, 'p.png', 'h');
    const kept = await photoTruth(png, e);
    const again = await photoTruth(png, { ...e });
    expect(again).not.toBe(kept);
    expect([again.photo.w, again.photo.h, again.swatch]).toEqual([kept.photo.w, kept.photo.h, true]);

    const session = newSession();
    await piecesAt(session, 50);
    await session.workspace.writeAtomic('swatch.png', png);
    await ok(session, 'set_garment_photo', { path: 'swatch.png' });
    await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    const extraction = preview.extraction as {
      garment_in_photo: string;
      levelled?: { degrees: number; note: string };
    };
    expect(extraction.garment_in_photo).toBe('swatch');
    expect(extraction.levelled?.degrees).toBeCloseTo(10, 0);
    expect(extraction.levelled?.note).toContain('面料');
  }, 240_000);
});
