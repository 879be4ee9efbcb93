/**
 * A marker holding one garment in two sizes whose outlines do not match when stretched onto each other (Simon's
 * shirt drafted for FreeSewing's women's sizes 34 and 44: a bust adjustment, not a grading) is read as one
 * garment with four front panels; the print's scale, taken from all of them as one front, comes out twice too
 * small. identify_pieces says so and asks, and verify's scale advice names the marker, not the photo.
 */
import { describe, expect, it } from 'vitest';
import { garmentPhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';
import { type FsGarment, loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

const PX_PER_MM = 0.5;

async function flow(g: FsGarment) {
  const session = newSession();
  await openMarker(session, marker(g, 'none', PX_PER_MM, 10), 'marker');
  await session.workspace.writeAtomic('photo.png', await garmentPhoto('fill'));
  await ok(session, 'set_garment_photo', { path: 'photo.png' });
  const found = await ok(session, 'identify_pieces');
  const preview = await ok(session, 'generate_garment_preview');
  await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
  const verify = await ok(session, 'verify_pattern_result');
  return { found, verify };
}

const warningOf = (r: Record<string, unknown>) =>
  ((r.warnings ?? []) as string[]).find((w) => w.includes('多于一件衣服的'));

describe('more front panels than one garment has, and no sizes told', () => {
  const simon = loadFixtures().garments.filter((g) => g.design === 'Simon');

  it('are named by identify_pieces, and verify puts the scale down to the marker', async () => {
    const sizes = simon.filter((g) => g.size === 'cisFemaleAdult34' || g.size === 'cisFemaleAdult44');
    const two: FsGarment = {
      ...sizes[0]!,
      id: 'simon-34-44',
      pieces: sizes.flatMap((g, i) => g.pieces.map((p) => ({ ...p, name: `${p.name}@${i}` }))),
    };
    const { found, verify } = await flow(two);
    expect(found.graded_sizes).toBeUndefined();
    expect(warningOf(found)).toMatch(/^识别出 4 片前片、2 片后片/);
    const suggestions = verify.suggestions as string[];
    const scale = suggestions.find((s) => s.startsWith('比例：'));
    expect(scale).toContain('全部 4 片前片');
    expect(scale).toContain('单独的文档');
    expect(scale).not.toContain('换一张');
  }, 120_000);

  it('are not named for one garment', async () => {
    const { found, verify } = await flow(simon.find((g) => g.size === 'cisFemaleAdult34')!);
    expect(warningOf(found)).toBeUndefined();
    expect(verify.score).toBeGreaterThanOrEqual(9);
  }, 120_000);
});
