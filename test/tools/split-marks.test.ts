/**
 * split_pieces and the small marks inside a piece: a drill hole or a button mark (a dot, a ring, a + or an ×
 * standing alone) is no label, so a labelled piece stays whole across its hip line with one below it, and a
 * piece whose only marks they are is an unlabelled one; a CJK label in the bundled font, large or small, is a
 * label; and an unlabelled panel keeps the wide dart drawn in its outline's pen, while unlabelled pieces nested
 * in a notch or sharing a side stay apart.
 */
import { describe, expect, it } from 'vitest';
import {
  bestIous,
  buttonBandMarker,
  grain,
  hipMarker,
  label,
  marks,
  type Piece,
  type PointMark,
  plainDartMarker,
  point,
  split,
  text,
  unlabelledNestMarker,
} from './split-fixtures.js';

async function expectPieces(pieces: Piece[], count: number, name: string, fill?: string) {
  const { rasters } = await split(pieces, fill ? '#303030' : undefined);
  expect(rasters, name).toHaveLength(count);
  for (const [k, v] of bestIous(pieces, rasters).entries())
    expect(v, `${name} piece ${k}`).toBeGreaterThanOrEqual(0.97);
}

describe('split_pieces and drill holes, button marks, labels and darts', () => {
  it('keeps a labelled front whole across its hip line with a drill hole or button marks below it', async () => {
    const cases: [PointMark, number, string?][] = [
      ['dot', 14],
      ['dot', 10],
      ['ring', 16],
      ['cross', 14],
      ['x', 16, '#c8c8c8'],
    ];
    for (const [kind, d, fill] of cases) {
      const below = marks(grain(330, 300, 650), point(kind, 200, 450, d));
      await expectPieces(hipMarker(label('前片', 200, 120), below, fill), 2, `${kind} ${d}`, fill);
    }
    const buttons = marks(...[320, 420, 520, 620].map((y) => point('ring', 450, y, 16)));
    await expectPieces(hipMarker(label('前片', 200, 120), buttons), 2, 'buttons');
  }, 120_000);

  it('reads a waistband whose only marks are button marks as unlabelled: whole across its fold line', async () => {
    for (const [kind, d, fill] of [
      ['ring', 16, undefined],
      ['dot', 14, undefined],
      ['cross', 12, '#c8c8c8'],
    ] as const) {
      await expectPieces(buttonBandMarker(kind, d, fill), 1, `${kind} ${d} ${fill ?? 'outline'}`, fill);
    }
  }, 60_000);

  it('reads a CJK label in the bundled font as one label at 36 and 14 px', async () => {
    for (const px of [36, 14]) {
      // One label above the hip line, a grain line below: one front.
      const one = hipMarker(text('前片 M 2片', 180, 150, px), grain(330, 300, 650));
      await expectPieces(one, 2, `${px} px, one label`);
      // A label on each side of it: two pieces, whichever size the words.
      const two = hipMarker(text('前片 M 2片', 180, 150, px), text('后片 领 里', 180, 450, px));
      const { rasters } = await split(two);
      expect(rasters, `${px} px, two labels`).toHaveLength(3);
    }
  }, 60_000);

  it('keeps an unlabelled wide dart in its panel, and parts unlabelled pieces nested in a notch or sharing a side', async () => {
    for (const fill of [undefined, '#c8c8c8']) {
      await expectPieces(plainDartMarker(fill), 1, `dart ${fill ?? 'outline'}`, fill);
      await expectPieces(unlabelledNestMarker(fill), 4, `nest ${fill ?? 'outline'}`, fill);
    }
  }, 60_000);
});
