/**
 * A print's repeat is found whatever size the photo comes in: resized (as a camera or a phone's export resamples
 * it) so that the repeat is not a whole number of px at the analysis size, it is found at its own period and
 * layout, not missed, read as a multiple of itself, or given the wrong drop.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { garmentPhoto, PHOTO } from '../support/garment-fixtures.js';

/** The found lattice's super-tile in the px of the photo as it was before resizing to `side`. */
async function tileAt(photo: Buffer, width: number, side: number) {
  const resized = await sharp(photo).resize(side, side).jpeg({ quality: 92 }).toBuffer();
  const e = await analysePhoto(resized, 'p.jpg', `resized-${side}`);
  const toSource = 1 / e.analysisScale / (side / width);
  return {
    kind: e.kind,
    layout: e.lattice?.layout ?? null,
    w: e.lattice ? e.lattice.tileW * toSource : 0,
    h: e.lattice ? e.lattice.tileH * toSource : 0,
  };
}

describe('a repeat that is not whole px at the analysis size', () => {
  it('the half-drop fixture (64 px) photographed at 1100 px: the half-drop, not a drop of 48 for 51.2', async () => {
    // Before: v2 (−102, 48) at 102.4 px, a "lattice" tile 867 × 51 whose columns drift 3 px each.
    const t = await tileAt(await garmentPhoto('half_drop'), PHOTO.width, 1100);
    expect(t.layout).toBe('half_drop');
    expect(Math.abs(t.w / 128 - 1)).toBeLessThan(0.015);
    expect(Math.abs(t.h / 64 - 1)).toBeLessThan(0.015);
  });

  it("the example's flowers (a 96 × 48 half-drop at 800 px) at 1024 and 2000 px", async () => {
    const photo = readFileSync(new URL('../../examples/garment/photo-allover.jpg', import.meta.url));
    // Before: at 1024 px (a 61.44 px repeat) no repeat at all, the back and sleeves streaked with the photo's
    // edge; at 2000 px a tile three repeats each way (side seams matched a third as finely).
    for (const side of [1024, 2000]) {
      const t = await tileAt(photo, 800, side);
      expect(t.kind, `${side} px`).toBe('fill_pattern');
      expect(t.layout, `${side} px`).toBe('half_drop');
      expect(Math.abs(t.w / 96 - 1), `${side} px: tile ${t.w} × ${t.h}`).toBeLessThan(0.015);
      expect(Math.abs(t.h / 48 - 1), `${side} px: tile ${t.w} × ${t.h}`).toBeLessThan(0.015);
    }
  });

  it("the example's flowers at 640–960 px: the half-drop at every size, not twice or five times its cell", async () => {
    const photo = readFileSync(new URL('../../examples/garment/photo-allover.jpg', import.meta.url));
    // Before: at 900 px a block 108 × 54 (the lattice is found on the photo halved, where the 54 px half-drop
    // drops 13.5 px; that reading failed as inexact and the cell came out twice the repeat's); at 640 px (38.4 px)
    // no repeat; at 850 and 960 px a block or half-brick two and five cells large.
    for (const side of [900, 640, 780, 850, 960]) {
      const t = await tileAt(photo, 800, side);
      expect(t.kind, `${side} px`).toBe('fill_pattern');
      expect(t.layout, `${side} px: tile ${t.w} × ${t.h}`).toBe('half_drop');
      expect(Math.abs(t.w / 96 - 1), `${side} px: tile ${t.w} × ${t.h}`).toBeLessThan(0.015);
      expect(Math.abs(t.h / 48 - 1), `${side} px: tile ${t.w} × ${t.h}`).toBeLessThan(0.015);
    }
  });
});
