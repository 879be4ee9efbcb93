/**
 * split_pieces reads a marker's lines as a pattern maker does: the paper enclosed where two outline pieces touch
 * is no piece, a hip or knee line drawn from edge to edge keeps its piece whole while the seam it ends on still
 * parts two pieces, and a wide dart from the cut edge stays in its piece while a labelled yoke nested in a notch
 * comes out on its own; an outline drawn in a broad pen splits as one in a fine pen does.
 *
 * A piece carries one label: a part with only a grain line joins the labelled part it completes, and two parts
 * without marks stay apart when the line between them is drawn as their outline is (two waistbands), whole when
 * it is a finer, fainter line (a fold line).
 */
import { describe, expect, it } from 'vitest';
import type { Raster } from '../../src/engine/model.js';
import {
  bandsMarker,
  bestIous,
  gapMarker,
  marker,
  referenceLineMarker,
  split,
  wideDartMarker,
} from './split-fixtures.js';

const covers = (r: Raster, x: number, y: number) => {
  const u = x - r.x;
  const v = y - r.y;
  return u >= 0 && v >= 0 && u < r.w && v < r.h && r.data[(v * r.w + u) * 4 + 3]! >= 128;
};

describe('split_pieces and the lines inside a marker', () => {
  it('leaves out the paper two outline pieces enclose where their seams touch', async () => {
    const pieces = gapMarker();
    const { rasters } = await split(pieces);
    expect(rasters).toHaveLength(2);
    for (const [k, v] of bestIous(pieces, rasters).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
    expect(rasters.some((r) => covers(r, 500, 300))).toBe(false);
  }, 60_000);

  it('keeps a piece whole across a hip and a knee line reaching both edges, and apart from the piece beside it', async () => {
    for (const fill of [undefined, '#c8c8c8']) {
      const pieces = referenceLineMarker(fill);
      const { rasters } = await split(pieces, fill ? '#303030' : undefined);
      expect(rasters, fill ?? 'outline').toHaveLength(2);
      for (const [k, v] of bestIous(pieces, rasters).entries())
        expect(v, `${fill ?? 'outline'} piece ${k}`).toBeGreaterThanOrEqual(0.97);
    }
  }, 60_000);

  it('keeps a wide dart from the waist in its panel, and a labelled yoke nested in a notch apart', async () => {
    for (const fill of [undefined, '#c8c8c8']) {
      const pieces = wideDartMarker(fill);
      const { rasters } = await split(pieces, fill ? '#303030' : undefined);
      expect(rasters, fill ?? 'outline').toHaveLength(3);
      for (const [k, v] of bestIous(pieces, rasters).entries())
        expect(v, `${fill ?? 'outline'} piece ${k}`).toBeGreaterThanOrEqual(0.97);
    }
  }, 60_000);

  it('reads an outline drawing in a 14 px pen as lines, not fills', async () => {
    const pieces = marker();
    const { rasters } = await split(pieces, undefined, 14);
    expect(rasters).toHaveLength(4);
    for (const [k, v] of bestIous(pieces, rasters, 14).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
  }, 60_000);

  it('keeps a piece whole with its label above the hip line and its grain line below the knee line', async () => {
    for (const fill of [undefined, '#c8c8c8']) {
      const pieces = referenceLineMarker(fill, true);
      const { rasters } = await split(pieces, fill ? '#303030' : undefined);
      expect(rasters, fill ?? 'outline').toHaveLength(2);
      for (const [k, v] of bestIous(pieces, rasters).entries())
        expect(v, `${fill ?? 'outline'} piece ${k}`).toBeGreaterThanOrEqual(0.97);
    }
  }, 60_000);

  it('parts two unlabelled waistbands sharing a cut line, and keeps a band whole across a grey fold line', async () => {
    for (const fill of [undefined, '#c8c8c8']) {
      for (const pencil of [false, true]) {
        const pieces = bandsMarker(fill, pencil);
        const { rasters } = await split(pieces, fill ? '#303030' : undefined);
        const name = `${fill ?? 'outline'}${pencil ? ' fold' : ''}`;
        expect(rasters, name).toHaveLength(pencil ? 1 : 2);
        for (const [k, v] of bestIous(pieces, rasters).entries())
          expect(v, `${name} piece ${k}`).toBeGreaterThanOrEqual(0.97);
      }
    }
  }, 60_000);

  it('reads a 14 px dark outline round filled pieces as lines, not fill', async () => {
    const pieces = marker(['#c8c8c8', '#d8c8b0', '#b0c0d8', '#c8c8c8']);
    const { rasters } = await split(pieces, '#303030', 14);
    expect(rasters).toHaveLength(4);
    for (const [k, v] of bestIous(pieces, rasters, 14).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
  }, 60_000);
});
