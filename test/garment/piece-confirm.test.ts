/**
 * identify_pieces asks for confirmation instead of guessing silently: a garment whose front and back cannot be
 * told apart by shape (two body panels that differ by 2 mm at the neck) comes back with needs_confirmation, a
 * Chinese sentence naming the pieces in doubt and their alternatives, per-piece alternatives, and a `next`
 * that asks to confirm with the user; a garment the model reads clearly does not.
 */
import { describe, expect, it } from 'vitest';
import { newSession, ok } from '../support/session.js';
import { type FsGarment, type FsPiece, loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

const FIX = loadFixtures();

/** A body panel with a neckline 30 mm deep and a hem `hem` mm wide (half), as a polygon in mm (y down). */
function panel(hem: number): FsPiece['poly'] {
  const half: [number, number][] = [
    [0, 30],
    [60, 24],
    [90, 0],
    [200, 40],
    [210, 230],
    [hem, 650],
    [0, 650],
  ];
  const other = half
    .slice(1, -1)
    .reverse()
    .map(([x, y]): [number, number] => [-x, y]);
  return [...half, ...other].map(([x, y]) => [x + 230, y]);
}

const piece = (name: string, label: FsPiece['label'], poly: FsPiece['poly'], cut = 1): FsPiece => ({
  name,
  label,
  zh: name,
  en: name,
  cut,
  onFold: false,
  grainDeg: 90,
  widthMm: Math.max(...poly.map((p) => p[0])) - Math.min(...poly.map((p) => p[0])),
  heightMm: Math.max(...poly.map((p) => p[1])) - Math.min(...poly.map((p) => p[1])),
  poly,
});

async function identify(g: FsGarment): Promise<Record<string, unknown>> {
  const session = newSession();
  await openMarker(session, marker(g, 'none', 0.5, FIX.seamAllowanceMm), g.id);
  return ok(session, 'identify_pieces');
}

describe('identify_pieces when the garment-level assignment is in doubt', () => {
  it('says so, names the pieces and the alternatives, and asks to confirm with the user', async () => {
    const teagan = FIX.garments.find((g) => g.id === 'teagan-cisMaleAdult42')!;
    const sleeve = teagan.pieces.find((p) => p.label === 'sleeve')!;
    const twins: FsGarment = {
      id: 'twin-panels',
      design: 'Twin panels',
      size: 'M',
      set: 'drafted',
      // Front and back cut from one outline (the same neckline; a reversible top): nothing in the shape says
      // which layer is which, and the two are copies of one piece.
      pieces: [piece('body', 'front', panel(230), 2), sleeve],
    };
    const r = await identify(twins);
    expect(r.needs_confirmation).toBe(true);
    const pieces = r.pieces as { name: string; part: string; alternative?: string; confidence: number }[];
    // The two body layers are in doubt, each between front and back, at even odds.
    const body = pieces.filter((p) => p.part === 'front' || p.part === 'back');
    expect(body).toHaveLength(2);
    for (const p of body) {
      expect(['front', 'back']).toContain(p.alternative);
      expect(p.part).not.toBe(p.alternative);
      expect(p.confidence).toBeLessThan(0.9);
    }
    const sentence = r.confirmation as string;
    for (const p of body) expect(sentence).toContain(`“${p.name}”`);
    expect(sentence).toMatch(/前片/);
    expect(sentence).toMatch(/后片/);
    expect(r.next as string).toMatch(/请其确认/);
  });

  it('does not ask when the shapes are clear', async () => {
    const r = await identify(FIX.garments.find((g) => g.id === 'teagan-cisMaleAdult42')!);
    expect(r.needs_confirmation).toBe(false);
    expect(r.confirmation).toBeUndefined();
    expect(r.next as string).not.toMatch(/请其确认/);
  });
});
