/**
 * A white garment with small red dots on a light background, as JPEG at quality 60 (4:2:0): JPEG carries the
 * dots' chroma out over its 16 px blocks, past the hem into the background and round each dot in a pale pink
 * ring. The garment is as close to the background's colour as that ringing, so what tells them apart is the
 * lightness JPEG keeps: the hem stays where it is, and the palette holds only colours that cover areas of the
 * garment, no pink that exists only as JPEG's mixture of red and white.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE00, labOfHex } from '../../src/garment/color.js';
import type { Extraction } from '../../src/garment/types.js';
import { LIGHT_PERIOD, LIGHT_PRODUCT, lightGroundPhoto, productPhoto } from '../support/garment-fixtures.js';

const jpeg = async (png: Buffer, quality: number) => sharp(png).jpeg({ quality }).toBuffer();
const RED_DOT = '#d0312d';
const LEFT_AND_HEM = { left: 100, top: 110, width: 500, height: 470 } as const;

/** The palette is the white ground and the red, nothing between them. */
function expectPrintColours(e: Extraction): void {
  const text = e.palette.map((c) => `${c.hex} ${c.share}`).join(', ');
  expect(e.palette, text).toHaveLength(2);
  expect(deltaE00(e.palette[0]!.lab, labOfHex(LIGHT_PRODUCT.ground)), text).toBeLessThan(6);
  expect(deltaE00(e.palette[1]!.lab, labOfHex(RED_DOT)), text).toBeLessThan(6);
}

describe('a white garment with red dots as JPEG at quality 60', () => {
  it('keeps its hem where it is and its palette to white and red', async () => {
    // Before: the hem at 608 for 600 (the dots' chroma rung past it kept as garment), the body 311 px for 300.
    const e = await analysePhoto(await jpeg(await productPhoto('dots'), 60), 'p.jpg', 'h');
    expect([e.swatch, e.kind, e.motif]).toEqual([false, 'fill_pattern', null]);
    const g = e.garment;
    expect(Math.abs(g.y + g.h - 600), `hem ${g.y + g.h} for 600`).toBeLessThanOrEqual(2);
    for (const [v, want] of [
      [g.x, 60],
      [g.y, 150],
      [g.x + g.w, 580],
    ] as const)
      expect(Math.abs(v - want), `edge ${v} for ${want}`).toBeLessThanOrEqual(3);
    expect(Math.abs(e.bodyWidth / 300 - 1), `body ${e.bodyWidth}`).toBeLessThanOrEqual(0.02);
    expect(Math.abs(e.lattice!.tileW / LIGHT_PERIOD.dots - 1)).toBeLessThanOrEqual(0.02);
    expectPrintColours(e);
  }, 120_000);

  it.each([
    [
      'on light grey, cut by the frame at the hem',
      'product',
      { left: 20, top: 110, width: 600, height: 470 },
    ],
    ['on white, cut by the frame at the left sleeve and the hem', 'white', LEFT_AND_HEM],
    ['on white, cut by the frame at the hem', 'white', { left: 20, top: 110, width: 600, height: 470 }],
  ] as const)(
    'has no pink halo in its palette, %s',
    async (_, photo, crop) => {
      // Before: a pale pink (#fce6e5, #fbe8e8; 5–7 %) between the white and the red.
      const whole =
        photo === 'product'
          ? await productPhoto('dots')
          : await lightGroundPhoto({
              ground: '#fbfbf9',
              background: '#ffffff',
              print: 'dots',
              castShadow: false,
            });
      const png = await sharp(whole).extract(crop).png().toBuffer();
      const e = await analysePhoto(await jpeg(png, 60), 'p.jpg', 'h');
      expect([e.swatch, e.kind]).toEqual([false, 'fill_pattern']);
      expectPrintColours(e);
    },
    120_000,
  );

  it('has no pink halo in its palette beside a cast shadow', async () => {
    // Before: #fbe3e0 (5 %) beside the white and the red, and the shadow's side taken in (body 327 px).
    const e = await analysePhoto(
      await jpeg(await productPhoto('dots', { castShadow: true }), 60),
      'p.jpg',
      'h',
    );
    expectPrintColours(e);
    expect(Math.abs(e.bodyWidth / 300 - 1), `body ${e.bodyWidth}`).toBeLessThanOrEqual(0.03);
    const g = e.garment;
    expect(Math.abs(g.y + g.h - 600), `hem ${g.y + g.h} for 600`).toBeLessThanOrEqual(3);
  }, 120_000);
});
