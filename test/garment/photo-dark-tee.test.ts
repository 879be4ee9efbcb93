/**
 * A dark T-shirt's product photo as e-commerce shops take it: on a white sweep, lit from the front and above, so
 * that its shadow spreads below the hem, with a chest print of lettering (many small letters, 0.6 % of the shirt)
 * and a printed brand label below the neckline. Probed on real product photos of black T-shirts (chest logos and
 * lettering), Atelier read 4 of 5 as a motif along the hem — the shadow, lighter than the shirt, taken into the
 * garment and then for its print — and missed every chest print under 1 % of the shirt, or took the brand label
 * for it. The fixtures here draw both cases; each expectation failed before the change.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE00, labOfHex } from '../../src/garment/color.js';
import type { Extraction } from '../../src/garment/types.js';
import { CHEST_LETTERING, productPhoto } from '../support/garment-fixtures.js';

const BLACK = '#161616';
const SWEEP = '#f6f6f6';
/** The shirt's body is 300 px wide in productPhoto's own px. */
const BODY = 300;

const darkTee = (lettering: boolean) =>
  productPhoto('solid', { colour: BLACK, sweep: SWEEP, castShadow: 'below', foot: 80, lettering });

const paletteText = (e: Extraction) => e.palette.map((c) => `${c.hex} ${c.share.toFixed(3)}`).join(', ');

describe('a dark T-shirt on a white sweep, its shadow below the hem', () => {
  it('reads the shadow as background: a plain shirt, one colour, its body as wide as it is', async () => {
    const e = await analysePhoto(await darkTee(false), 'tee.png', 'dark-tee');
    // Before: theme_pattern, its motif a 278 × 17 px band along the hem; the shadow's grey 4.5 % of the palette.
    expect(e.kind).toBe('solid');
    expect(e.motif).toBeNull();
    expect(e.palette, paletteText(e)).toHaveLength(1);
    expect(deltaE00(e.palette[0]!.lab, labOfHex(BLACK)), paletteText(e)).toBeLessThan(3);
    expect(Math.abs(e.bodyWidth / e.analysisScale / BODY - 1), `body ${e.bodyWidth}`).toBeLessThanOrEqual(
      0.02,
    );
    // The garment ends at the hem (y 600), not in the shadow below it.
    expect(e.garment.y + e.garment.h).toBeLessThanOrEqual(603);
  });

  it('finds the chest lettering as the motif, not the shadow nor the brand label', async () => {
    const e = await analysePhoto(await darkTee(true), 'tee.png', 'dark-tee-lettering');
    // Before: the shadow's band along the hem, then (the shadow cleared) nothing: the letters were under 1 %.
    expect(e.kind).toBe('theme_pattern');
    const m = e.motif!.bounds;
    const L = CHEST_LETTERING;
    // The letters' box, less the last letter's blank right-hand third; the label (y 206–218) is not in it.
    expect(Math.abs(m.x - L.x), JSON.stringify(m)).toBeLessThanOrEqual(2);
    expect(Math.abs(m.y - L.y), JSON.stringify(m)).toBeLessThanOrEqual(2);
    expect(Math.abs(m.w - (L.w - 6)), JSON.stringify(m)).toBeLessThanOrEqual(4);
    expect(Math.abs(m.h - L.h), JSON.stringify(m)).toBeLessThanOrEqual(3);
    // The motif keeps the letters' white.
    const { data, w, h } = e.motif!.print;
    let lightest = 0;
    for (let i = 0; i < w * h; i++) lightest = Math.max(lightest, data[i * 4]!);
    expect(lightest).toBeGreaterThan(200);
  });

  it('finds the lettering on a navy shirt on the studio grey, and in a JPEG of it', async () => {
    const png = await productPhoto('solid', { colour: '#1f3a68', castShadow: true, lettering: true });
    for (const bytes of [png, await sharp(png).jpeg({ quality: 75 }).toBuffer()]) {
      const e = await analysePhoto(bytes, 'navy.png', `navy-${bytes.length}`);
      expect(e.kind).toBe('theme_pattern');
      expect(
        Math.abs(e.motif!.bounds.y - CHEST_LETTERING.y),
        JSON.stringify(e.motif!.bounds),
      ).toBeLessThanOrEqual(3);
    }
  });
});
