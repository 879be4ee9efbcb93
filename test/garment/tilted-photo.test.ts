/**
 * A garment photographed askew: its turn is read from the silhouette's centre line, the photo is levelled before
 * the print is read, and the print comes out along the garment, not along the camera's frame.
 */
import { describe, expect, it } from 'vitest';
import type { PixelLayer } from '../../src/engine/model.js';
import { photoTruth } from '../../src/garment/builtin/against-photo.js';
import { garmentTilt } from '../../src/garment/builtin/level.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { garmentPhoto, inShirt } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';
import { NAME, piecesAt, printChanges } from './verify-set.js';

/** The fixture's T-shirt silhouette turned `deg` clockwise about (320, 375), optionally without its right sleeve. */
function shirtMask(deg: number, oneSleeve = false): Uint8Array {
  const m = new Uint8Array(640 * 640);
  const a = (-deg * Math.PI) / 180;
  for (let y = 0; y < 640; y++) {
    for (let x = 0; x < 640; x++) {
      const dx = x + 0.5 - 320;
      const dy = y + 0.5 - 375;
      const u = 320 + dx * Math.cos(a) - dy * Math.sin(a);
      const v = 375 + dx * Math.sin(a) + dy * Math.cos(a);
      m[y * 640 + x] = inShirt(u, v) && !(oneSleeve && u >= 470) ? 1 : 0;
    }
  }
  return m;
}

describe('a garment photographed askew', () => {
  it('reads the turn from the silhouette to 0.3°, and none from a level or a lopsided one', () => {
    for (const deg of [-15, -7, -2, -1, 1, 3, 12])
      expect(Math.abs(garmentTilt(shirtMask(deg), 640, 640) - deg)).toBeLessThanOrEqual(0.3);
    expect(garmentTilt(shirtMask(0), 640, 640)).toBe(0);
    // Under 0.3° the photo is read as it lies.
    expect(garmentTilt(shirtMask(0.2), 640, 640)).toBe(0);
    // One sleeve missing: no line folds the silhouette onto itself, so no turn is claimed.
    for (const deg of [0, 8]) expect(garmentTilt(shirtMask(deg, true), 640, 640)).toBe(0);
  });

  it.each([4, 10, -10])(
    'levels a block repeat photographed %i° askew: the 64 px repeat is found',
    async (deg) => {
      const png = await garmentPhoto('fill', 1, 'folds', 'studio', undefined, deg);
      const e = await analysePhoto(png, 'p.png', 'h');
      expect(Math.abs(e.level!.degrees - deg)).toBeLessThanOrEqual(0.3);
      expect(e.level!.original).toEqual([640, 640]);
      expect(e.lattice, 'before: no repeat found in a turned photo').not.toBeNull();
      const { v1, v2 } = e.lattice!;
      const sorted = [v1, v2].sort((p, q) => Math.abs(q[0]) - Math.abs(p[0]));
      expect(Math.abs(Math.abs(sorted[0]![0]) - 64)).toBeLessThanOrEqual(1);
      expect(Math.abs(sorted[0]![1])).toBeLessThanOrEqual(1);
      expect(Math.abs(Math.abs(sorted[1]![1]) - 64)).toBeLessThanOrEqual(1);
      expect(Math.abs(sorted[1]![0])).toBeLessThanOrEqual(1);
      // Body width (the scale's basis) as on the level photo: 300 px.
      expect(Math.abs(e.bodyWidth - 300)).toBeLessThanOrEqual(4);
    },
    120_000,
  );

  it('verify, reading the photo again, levels it as the analysis did', async () => {
    const png = await garmentPhoto('fill', 1, 'folds', 'studio', undefined, 10);
    const e = await analysePhoto(png, 'p.png', 'h');
    const kept = await photoTruth(png, e);
    // A copy of the extraction is not the one analysePhoto kept the silhouette for: read from the bytes.
    const again = await photoTruth(png, { ...e });
    expect(again).not.toBe(kept);
    expect([again.photo.w, again.photo.h]).toEqual([kept.photo.w, kept.photo.h]);
    let both = 0;
    let either = 0;
    for (let i = 0; i < kept.inside.length; i++) {
      both += kept.inside[i]! & again.inside[i]!;
      either += kept.inside[i]! | again.inside[i]!;
    }
    expect(both / either).toBeGreaterThan(0.99);
  }, 120_000);

  it('prints a striped garment photographed 10° askew with level stripes, and says it levelled the photo', async () => {
    const session = newSession();
    await piecesAt(session, 50);
    await session.workspace.writeAtomic(
      'tilted.png',
      await garmentPhoto('stripes', 1, 'folds', 'studio', undefined, 10),
    );
    await ok(session, 'set_garment_photo', { path: 'tilted.png' });
    await ok(session, 'identify_pieces');
    const preview = await ok(session, 'generate_garment_preview');
    const extraction = preview.extraction as { levelled?: { degrees: number } };
    expect(extraction.levelled?.degrees).toBeCloseTo(10, 0);
    await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
    const doc = session.editor.begin().activeDocument().state;
    const front = [...doc.layers.values()].find((l) => l.name === `${NAME.front} 满印`) as PixelLayer;
    const { down, across } = printChanges(front.raster);
    // Level stripes change down the piece only; stripes 10° askew change across every 5.7 px as well.
    expect(across, `down ${down}, across ${across}`).toBeLessThan(down / 8);
    const v = await ok(session, 'verify_pattern_result');
    expect(v.score as number).toBeGreaterThanOrEqual(8);
  }, 240_000);
});
