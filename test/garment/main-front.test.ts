/**
 * The print's scale and a placement motif go by the garment's main front, whatever else reads as a front: a
 * front cut as two halves is measured as the whole front it makes, and a jacket's side body neither sets the
 * scale nor carries the motif; of a mirrored pair of halves it is the half whose print is not mirrored. Through
 * identify_pieces and generate_garment_preview, with part names so that the names decide the parts and only the
 * choice among the fronts is tested.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { garmentPhoto } from '../support/garment-fixtures.js';
import { newSession, ok, tempDir } from '../support/session.js';
import { type FsGarment, type FsPiece, loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

const fixtures = loadFixtures();
const EXAMPLES = join(import.meta.dirname, '../../examples/garment');
const byId = (id: string) => fixtures.garments.find((g) => g.id === id)!;

/** The piece's left half (x ≤ its middle): the polygon clipped to a half-plane. */
function leftHalf(p: FsPiece): FsPiece {
  const mid = p.widthMm / 2;
  const out: [number, number][] = [];
  const n = p.poly.length;
  for (let i = 0; i < n; i++) {
    const [ax, ay] = p.poly[i]!;
    const [bx, by] = p.poly[(i + 1) % n]!;
    if (ax <= mid) out.push([ax, ay]);
    if (ax <= mid !== bx <= mid) out.push([mid, ay + ((mid - ax) * (by - ay)) / (bx - ax)]);
  }
  return { ...p, poly: out, widthMm: mid, cut: 2, onFold: false };
}

async function preview(g: FsGarment, photo: string) {
  const s = newSession(tempDir('atelier-main-front-'));
  await openMarker(s, marker(g, 'zh', 0.5, fixtures.seamAllowanceMm), g.id);
  copyFileSync(join(EXAMPLES, photo), join(s.workspace.root, photo));
  await ok(s, 'set_garment_photo', { path: photo });
  const identified = (await ok(s, 'identify_pieces')) as {
    pieces: { name: string; part: string; bounds: { width: number; height: number } }[];
  };
  const shown = (await ok(s, 'generate_garment_preview')) as {
    placement: { scale: number; anchor_piece: string; assumption: string };
    proposed_pieces: { name: string; type: string }[];
  };
  return { session: s, pieces: identified.pieces, ...shown };
}

describe('the main front', () => {
  it('measures a front cut in two halves as the whole front it makes', async () => {
    const tee = byId('teagan-cisMaleAdult42');
    const halves: FsGarment = {
      ...tee,
      pieces: tee.pieces.map((p) => (p.label === 'front' ? leftHalf(p) : p)),
    };
    const whole = await preview(tee, 'photo-allover.jpg');
    const split = await preview(halves, 'photo-allover.jpg');
    expect(split.pieces.filter((p) => p.part === 'front')).toHaveLength(2);
    // The halves' own seam allowance along the centre adds 20 mm to a 586 mm front: 3.4 %.
    expect(split.placement.scale / whole.placement.scale).toBeGreaterThan(0.97);
    expect(split.placement.scale / whole.placement.scale).toBeLessThan(1.08);
    expect(split.placement.assumption).toContain('整个前身的宽度');
    // verify checks the scale against the photo's garment the same way: the whole front, not the half.
    const s = split.session;
    await ok(s, 'extract_and_apply_all_pieces', { pieces: split.proposed_pieces });
    const verified = (await ok(s, 'verify_pattern_result')) as {
      measures: { measure: string; score: number }[];
    };
    expect(verified.measures.find((m) => m.measure === 'outline')!.score).toBeGreaterThan(0.8);
    expect(whole.placement.assumption).not.toContain('整个前身的宽度');
  }, 120_000);

  it('puts a jacket’s motif on its front, not on the side body, and measures the scale there', async () => {
    const jacket = byId('blazer-M');
    const shown = await preview(jacket, 'photo-motif.jpg');
    const fronts = shown.pieces.filter((p) => p.part === 'front');
    expect(fronts.length).toBeGreaterThan(2);
    const size = (p: (typeof fronts)[number]) => p.bounds.width * p.bounds.height;
    const largest = Math.max(...fronts.map(size));
    const carrier = shown.proposed_pieces.find((p) => p.type === 'theme_pattern');
    expect(carrier).toBeDefined();
    expect(size(fronts.find((p) => p.name === carrier!.name)!)).toBe(largest);
    expect(size(fronts.find((p) => p.name === shown.placement.anchor_piece)!)).toBe(largest);
  }, 120_000);

  it('is the half of a mirrored pair whose print is drawn as the photo shows it, and verify finds the photo there', async () => {
    // Our gilet: zip-front halves, one outline cut twice; the marker lists the drafted half first, and its copy,
    // which came out no smaller, gets the mirrored print. The placement anchored on that copy, so verify
    // compared a mirrored plaid with the photo: "颜色不对", 3.9 for a correct application.
    const s = newSession(tempDir('atelier-main-front-'));
    await openMarker(s, marker(byId('gilet-M'), 'en', 1, fixtures.seamAllowanceMm), 'gilet');
    await s.workspace.writeAtomic('photo.png', await garmentPhoto('plaid'));
    await ok(s, 'set_garment_photo', { path: 'photo.png' });
    const found = (await ok(s, 'identify_pieces')) as {
      pieces: { name: string; part: string; print_mirrored?: boolean }[];
      proposed_pieces: unknown;
    };
    const mirroredFront = found.pieces.find((p) => p.part === 'front' && p.print_mirrored === true);
    expect(mirroredFront, 'a front whose print mirrors its pair').toBeDefined();
    const shown = (await ok(s, 'generate_garment_preview')) as { placement: { anchor_piece: string } };
    expect(shown.placement.anchor_piece).not.toBe(mirroredFront!.name);
    await ok(s, 'extract_and_apply_all_pieces', { pieces: found.proposed_pieces });
    const verified = (await ok(s, 'verify_pattern_result')) as {
      score: number;
      measures: { measure: string; score: number }[];
    };
    // Measured: the photo measure 1, the score 9.8 (0.02 and 3.9 anchored on the mirrored half).
    expect(verified.measures.find((m) => m.measure === 'photo')!.score).toBeGreaterThan(0.9);
    expect(verified.score).toBeGreaterThanOrEqual(9);
  }, 120_000);
});
