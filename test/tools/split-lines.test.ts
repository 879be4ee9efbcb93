/**
 * split_pieces reads a marker's lines as a pattern maker does: the paper enclosed where two outline pieces touch
 * is no piece, a hip or knee line drawn from edge to edge keeps its piece whole while the seam it ends on still
 * parts two pieces, and a wide dart from the cut edge stays in its piece while a labelled yoke nested in a notch
 * comes out on its own; an outline drawn in a broad pen splits as one in a fine pen does.
 */
import { describe, expect, it } from 'vitest';
import type { Raster } from '../../src/engine/model.js';
import { bestIous, gapMarker, marker, referenceLineMarker, split, wideDartMarker } from './split-fixtures.js';

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
});
