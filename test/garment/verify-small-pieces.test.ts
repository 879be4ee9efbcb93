/**
 * verify_pattern_result on a coat's many small pieces, every one applied correctly: FreeSewing's Carlton and
 * Carlita (collars, stands, welts, flaps, pocket bags, belts, facings, mirrored pairs of each) through the real
 * flow with English part names. Three ways a correct result used to score low: a mirrored pair's grid counted
 * from its right edge lost a cell in floating point, so symmetry compared each cell with its neighbour's mirror
 * (ΔE 5 on a correctly mirrored plaid); a collar stand shorter than one repeat of stripes was judged by its
 * autocorrelation, which shows part of the print, and read as "turned or scaled"; and welts cut between a print's
 * motifs, showing only its ground, had no print structure at all and scored 0: pieces smaller than one repeat
 * are now judged only when no piece shows a whole repeat.
 */
import { describe, expect, it } from 'vitest';
import { garmentPhoto, type PhotoKind } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';
import { loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

interface Measure {
  readonly measure: string;
  readonly score: number;
  readonly [key: string]: unknown;
}

async function verified(id: string, photo: PhotoKind) {
  const g = loadFixtures().garments.find((x) => x.id === id)!;
  const session = newSession();
  await openMarker(session, marker(g, 'en', 1, 10), 'coat');
  await session.workspace.writeAtomic('photo.png', await garmentPhoto(photo));
  await ok(session, 'set_garment_photo', { path: 'photo.png' });
  const found = await ok(session, 'identify_pieces');
  await ok(session, 'generate_garment_preview');
  await ok(session, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
  const v = (await ok(session, 'verify_pattern_result')) as { score: number; measures: Measure[] };
  const measure = (key: string) => v.measures.find((m) => m.measure === key)!;
  return { score: v.score, measure };
}

describe('verify on a coat’s small pieces, applied correctly', () => {
  it('finds every mirrored pair mirrored, whatever the grid’s step', async () => {
    // Measured: 9.7, every pair 0 (8.2 before, symmetry 0.72: a front facing's pair ΔE 4.9 at 4 px/mm, a top
    // sleeve's 4.5 at 2 px/mm).
    const { score, measure } = await verified('carlton-cisMaleAdult42', 'plaid');
    const symmetry = measure('symmetry');
    const pairs = symmetry.mean_delta_e76 as Record<string, number>;
    expect(Object.keys(pairs).length).toBeGreaterThan(10);
    for (const [pair, de] of Object.entries(pairs)) expect(de, pair).toBeLessThan(1);
    expect(symmetry.score).toBe(1);
    expect(score).toBeGreaterThanOrEqual(9.5);
  });

  it('leaves out of the print’s direction a collar stand shorter than one repeat of stripes', async () => {
    // Measured: 10 (6.2 before, the collar stand's autocorrelation matching 0.51).
    const { score, measure } = await verified('carlton-cisMaleAdult42', 'stripes');
    const texture = measure('texture');
    expect(texture.smaller_than_repeat).toEqual(
      expect.arrayContaining(['Collar stand', 'Collar stand copy']),
    );
    expect(Object.keys(texture.autocorrelation_match as object)).toContain('Front');
    expect(texture.score).toBeGreaterThanOrEqual(0.9);
    expect(score).toBeGreaterThanOrEqual(9.5);
  });

  it('does not take welts cut between the motifs for a print turned or scaled', async () => {
    // Measured: 9.9 (3.9 before, the inner pocket welts' match 0).
    const { score, measure } = await verified('carlita-cisMaleAdult42', 'fill');
    const texture = measure('texture');
    expect(texture.smaller_than_repeat).toEqual(
      expect.arrayContaining(['Inner pocket welt', 'Inner pocket welt copy']),
    );
    expect(texture.score).toBeGreaterThanOrEqual(0.9);
    expect(score).toBeGreaterThanOrEqual(9.5);
  });
});
