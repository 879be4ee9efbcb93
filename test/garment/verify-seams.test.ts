/**
 * verify_pattern_result's side-seam measure on light-ground prints (a white ground with small red dots or small
 * flowers) applied to the life-size example T-shirt (examples/garment/pieces.psd: FreeSewing Teagan pieces with
 * shaped side seams). The tool matches the seam at one height and moves the back's print as a whole, so lower
 * down the two cut edges move against each other while the print still continues: a correct application must
 * not be flagged — judged where the bands carry print, and not judged (no weight, no suggestion) where they are
 * plain ground — while a back whose print was moved off the seam is still flagged when the bands show it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LightPhoto, lightGroundPhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';
import { breakSeam, NAME, piecesAt, score } from './verify-set.js';

const PIECES = join(import.meta.dirname, '../../examples/garment/pieces.psd');
/** The example's back (identify_pieces reads the meaningless layer names). */
const BACK = '图层 1';
const FLOWERS: LightPhoto = { ground: '#fbfbf9', background: '#e9e9e9', print: 'flowers', castShadow: true };
const DOTS: LightPhoto = { ground: '#fbfbf9', background: '#ffffff', print: 'dots', castShadow: true };

interface SeamMeasure {
  readonly score: number;
  readonly side_seam_ncc?: number;
  readonly measurable?: boolean;
}

/**
 * identify → preview → apply as proposed on the example pieces (or the fixture's straight-sided pieces at 50 DPI
 * when `fixture`); `moved` shifts the back's print down by that share of a repeat.
 */
async function verified(photo: LightPhoto, moved = 0, fixture = false) {
  const session = newSession();
  if (fixture) await piecesAt(session, 50);
  else {
    await session.workspace.writeAtomic('pieces.psd', readFileSync(PIECES));
    await ok(session, 'open_document', { path: 'pieces.psd' });
  }
  await session.workspace.writeAtomic('light.png', await lightGroundPhoto(photo));
  await ok(session, 'set_garment_photo', { path: 'light.png' });
  await ok(session, 'identify_pieces');
  const preview = await ok(session, 'generate_garment_preview');
  await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
  if (moved) breakSeam(session, moved, fixture ? NAME.back : BACK);
  const v = await score(session);
  const seams = (v.measures as ({ measure: string } & SeamMeasure)[]).find((m) => m.measure === 'seams');
  return { ...v, seams, seamAdvice: v.suggestions.filter((s) => s.startsWith('侧缝对花')) };
}

describe('verify_pattern_result: the side seam on a sparse light-ground print', () => {
  it('does not flag a correct application whose seam bands carry the print (white ground, small flowers)', async () => {
    const v = await verified(FLOWERS);
    expect(v.seams, 'the seam is judged').toBeDefined();
    expect(v.seams!.measurable).not.toBe(false);
    expect(v.seams!.side_seam_ncc).toBeGreaterThanOrEqual(0.9);
    expect(v.seams!.score).toBeGreaterThanOrEqual(0.9);
    expect(v.seamAdvice).toEqual([]);
  }, 120_000);

  it('does not flag a correct application whose seam bands are plain ground (white ground, small red dots)', async () => {
    const v = await verified(DOTS);
    // Either judged and high, or not measurable and given no weight: never a suggestion that the back moved.
    expect(v.seams?.score ?? 1).toBeGreaterThanOrEqual(0.9);
    expect(v.seamAdvice).toEqual([]);
    expect(v.score).toBeGreaterThanOrEqual(9);
  }, 120_000);

  it('still flags a back whose print was moved off the seam when the bands show it', async () => {
    // Flowers on the example: half a repeat down. Dots on the fixture's straight-sided pieces: a quarter (half a
    // repeat of this centred lattice is the same print moved sideways, which the seam measure, searching
    // horizontal offsets, cannot tell from a correct one).
    for (const [photo, moved, fixture, back] of [
      [FLOWERS, 0.5, false, BACK],
      [DOTS, 0.25, true, NAME.back],
    ] as const) {
      const v = await verified(photo, moved, fixture);
      expect(v.seams?.measurable, photo.print).not.toBe(false);
      expect(v.seams!.score, photo.print).toBeLessThan(0.7);
      expect(v.seamAdvice.join('\n'), photo.print).toContain(`“${back}”的花样可能被移动了`);
      expect(v.seamAdvice.join('\n')).toMatch(/extract_and_apply_all_pieces/);
    }
  }, 240_000);

  it('never misjudges the seam where the bands are mostly plain ground (dots moved on the example)', async () => {
    const v = await verified(DOTS, 0.25);
    // Which way depends on how many dots the bands hold as the photo is read: too few, and the seam is not
    // measurable and given no weight; enough, and the move is seen. Never a seam judged matched.
    if (v.seams?.measurable === false) {
      expect(v.seamAdvice).toEqual([]);
    } else {
      expect(v.seams!.score).toBeLessThan(0.7);
      expect(v.seamAdvice.join('\n')).toContain('的花样可能被移动了');
    }
  }, 120_000);
});
