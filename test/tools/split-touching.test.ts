/**
 * split_pieces on nested CAD markers whose pieces touch: outline drawings sharing a cut line, filled pieces
 * abutting along a darker outline, and pale pieces (closer than ΔE 10 to the paper) found by their outline. Each
 * piece comes out as its own layer matching the drawn piece (IoU), a piece's internal lines (grain line, labels,
 * a dart from the edge, a closed dart inside) do not split it, and undo brings the document back.
 */
import { describe, expect, it } from 'vitest';
import { deltaE76, rgbToLab } from '../../src/garment/color.js';
import { ok } from '../support/session.js';
import { current } from './layer-fixtures.js';
import { bestIous, marker, split } from './split-fixtures.js';

describe('split_pieces on touching pieces', () => {
  it('splits an outline marker whose pieces share cut lines, one layer per enclosed piece, and undo restores it', async () => {
    const pieces = marker();
    const { s, r, rasters, before } = await split(pieces);
    expect(rasters).toHaveLength(4);
    for (const [k, v] of bestIous(pieces, rasters).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
    // The shared line x = 540 belongs to the front and to the back.
    const front = rasters.find((q) => q.x < 110)!;
    const back = rasters.find((q) => q.x > 520 && q.x < 545 && q.y < 70)!;
    expect(front.x + front.w).toBeGreaterThanOrEqual(541);
    expect(back.x).toBeLessThanOrEqual(539);
    expect(r.next).toContain('4 个裁片图层');
    await ok(s, 'undo');
    expect(current(s)).toBe(before);
  }, 60_000);

  it('splits filled pieces abutting along a darker outline', async () => {
    const pieces = marker(['#c8c8c8', '#d8c8b0', '#b0c0d8', '#c8c8c8']);
    const { rasters } = await split(pieces, '#303030');
    expect(rasters).toHaveLength(4);
    for (const [k, v] of bestIous(pieces, rasters).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
  }, 60_000);

  it('keeps a piece whole across its grain line, labels, a dart from the edge and a closed dart', async () => {
    for (const fill of [undefined, '#c8c8c8']) {
      const pieces = [{ ...marker()[0]!, fill }];
      const { rasters } = await split(pieces);
      expect(rasters, fill ?? 'outline').toHaveLength(1);
      expect(bestIous(pieces, rasters)[0], fill ?? 'outline').toBeGreaterThanOrEqual(0.98);
    }
  }, 60_000);

  it('finds pale pieces (under ΔE 10 from the paper) by their outline, touching a filled one or not', async () => {
    const pale = '#f4efe6';
    const lab = (hex: string) =>
      rgbToLab(
        Number.parseInt(hex.slice(1, 3), 16),
        Number.parseInt(hex.slice(3, 5), 16),
        Number.parseInt(hex.slice(5), 16),
      );
    expect(deltaE76(lab(pale), lab('#ffffff'))).toBeLessThan(10);
    expect(deltaE76(lab(pale), lab('#ffffff'))).toBeGreaterThan(4.9);
    const pieces = marker(['#c8c8c8', pale, pale, pale]);
    const { rasters } = await split(pieces);
    expect(rasters).toHaveLength(4);
    for (const [k, v] of bestIous(pieces, rasters).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
  }, 60_000);
});
