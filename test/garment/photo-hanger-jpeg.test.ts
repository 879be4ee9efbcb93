/**
 * A garment on a hanger photographed as JPEG (quality 60–75, 4:2:0): the arms' ends lie on the shoulders, with
 * the background between them and the shoulder and JPEG's ringing around them. None of it is garment, colour or
 * motif: the garment's top is its shoulder line. On a light garment the arms enclose the background above the
 * shoulders with the garment, and that is not garment either.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE00, labOfHex } from '../../src/garment/color.js';
import type { Extraction } from '../../src/garment/types.js';
import { HANGER, LIGHT_PERIOD, productPhoto, TILE } from '../support/garment-fixtures.js';

const jpeg = async (png: Buffer, quality: number) => sharp(png).jpeg({ quality }).toBuffer();

/** The T-shirt spans 60..580 × 150..600: its top (the shoulder line) within 2 px, its other edges within 3. */
function expectGarment(e: Extraction): void {
  const g = e.garment;
  expect(Math.abs(g.y - 150), `top ${g.y} for the shoulders at 150`).toBeLessThanOrEqual(2);
  const got = [g.x, g.x + g.w, g.y + g.h];
  for (const [i, want] of [60, 580, 600].entries())
    expect(Math.abs(got[i]! - want), `edge ${got[i]} for ${want}`).toBeLessThanOrEqual(3);
  for (const c of e.palette)
    expect(deltaE00(c.lab, labOfHex(HANGER)), `${c.hex} is not the hanger's`).toBeGreaterThan(15);
}

describe('a garment on a hanger, as JPEG', () => {
  it.each([60, 75])(
    'a block repeat and a placed motif at quality %i',
    async (quality) => {
      // Before: the top came out at 142–146 (q 60) and 128–142 (q 75), the arms' ends and the background under
      // them kept as garment.
      const fill = await analysePhoto(
        await jpeg(await productPhoto('fill', { hanger: true }), quality),
        'p',
        'h',
      );
      expectGarment(fill);
      expect([fill.swatch, fill.kind, fill.motif]).toEqual([false, 'fill_pattern', null]);
      expect(Math.abs(fill.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
      expect([fill.lattice!.tileW, fill.lattice!.tileH]).toEqual([TILE, TILE]);

      const theme = await analysePhoto(
        await jpeg(await productPhoto('theme', { hanger: true }), quality),
        'p',
        'h',
      );
      expectGarment(theme);
      expect(theme.kind).toBe('theme_pattern');
      // The flower's top is 128 px below the garment's: measured from a top 8 px too high, it sat 8 px too low.
      expect(Math.abs(theme.motif!.dy - 128)).toBeLessThanOrEqual(3);
    },
    120_000,
  );

  it('a light-ground print on a white shirt, as PNG and at quality 75', async () => {
    // Before: the background the arms enclose with the shoulders was garment, the hook too (top at 71 as PNG,
    // 108 as JPEG), and the hanger was read as a motif (mixed_pattern).
    for (const quality of [0, 75]) {
      const png = await productPhoto('dots', { hanger: true });
      const e = await analysePhoto(quality ? await jpeg(png, quality) : png, 'p', 'h');
      expectGarment(e);
      expect([e.swatch, e.kind, e.motif], `quality ${quality}`).toEqual([false, 'fill_pattern', null]);
      expect(Math.abs(e.lattice!.tileW / LIGHT_PERIOD.dots - 1)).toBeLessThanOrEqual(0.02);
      expect(Math.abs(e.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.05);
    }
  }, 120_000);
});
