/**
 * A white garment on a white or light-grey background with a cast shadow beside it: the shadow is the background
 * darker (its chroma, a soft edge, no print), not garment, though a colour threshold takes it for garment as
 * readily as the garment itself. The garment's box, its body width and its palette are the garment's alone.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE00, labOfHex } from '../../src/garment/color.js';
import { LIGHT_PERIOD, LIGHT_PRODUCT, lightGroundPhoto, productPhoto } from '../support/garment-fixtures.js';

const WHITE = { ground: '#fbfbf9', background: '#ffffff' } as const;

const cases = [
  {
    name: 'red dots, white on white, shadow 10 % deep to the right and below',
    photo: () => lightGroundPhoto({ ...WHITE, print: 'dots', castShadow: true }),
    background: WHITE.background,
    print: 'dots',
    crop: null,
  },
  {
    name: 'flowers, white on white, the same shadow',
    photo: () => lightGroundPhoto({ ...WHITE, print: 'flowers', castShadow: true }),
    background: WHITE.background,
    print: 'flowers',
    crop: null,
  },
  {
    name: 'red dots, white on light grey, the same shadow',
    photo: () =>
      lightGroundPhoto({ ground: WHITE.ground, background: '#ececea', print: 'dots', castShadow: true }),
    background: '#ececea',
    print: 'dots',
    crop: null,
  },
  {
    name: 'red dots, white on light grey, a deeper shadow (18 %) 18 px out',
    photo: () => productPhoto('dots', { castShadow: true }),
    background: LIGHT_PRODUCT.background,
    print: 'dots',
    crop: null,
  },
  {
    name: 'red dots, white on white, cut by the frame at the left sleeve and the hem',
    photo: () => lightGroundPhoto({ ...WHITE, print: 'dots', castShadow: true }),
    background: WHITE.background,
    print: 'dots',
    crop: { left: 100, top: 110, width: 500, height: 470 },
  },
] as const;

describe('a cast shadow beside a white garment is background', () => {
  for (const c of cases) {
    it(c.name, async () => {
      // Before: the shadow side was taken in (lightGroundPhoto's garment 60..589 × 150..612, the product photo's
      // ..606 × ..617), the body 307–320 px for 300.
      let png = await c.photo();
      if (c.crop) png = await sharp(png).extract(c.crop).png().toBuffer();
      const e = await analysePhoto(png, 'p.png', 'h');
      expect([e.swatch, e.kind, e.motif]).toEqual([false, 'fill_pattern', null]);
      const left = c.crop?.left ?? 0;
      const top = c.crop?.top ?? 0;
      const want = [
        Math.max(0, 60 - left),
        150 - top,
        580 - left,
        Math.min(600 - top, c.crop?.height ?? 640),
      ];
      const g = e.garment;
      for (const [i, v] of [g.x, g.y, g.x + g.w, g.y + g.h].entries())
        expect(Math.abs(v - want[i]!), `garment edge ${i}: ${v} for ${want[i]}`).toBeLessThanOrEqual(3);
      expect(Math.abs(e.bodyWidth / 300 - 1), `body ${e.bodyWidth} px for 300`).toBeLessThanOrEqual(0.03);
      const period = LIGHT_PERIOD[c.print];
      expect(Math.abs(e.lattice!.tileW / period - 1)).toBeLessThanOrEqual(0.02);
      // The palette is the print's: nothing of the shadow's grey.
      const print = ['#fbfbf9', ...(c.print === 'dots' ? ['#d0312d'] : ['#e0709a', '#4f8a3c'])];
      const text = e.palette.map((p) => `${p.hex} ${p.share}`).join(', ');
      expect(e.palette, text).toHaveLength(print.length);
      for (const p of e.palette)
        expect(Math.min(...print.map((q) => deltaE00(p.lab, labOfHex(q)))), text).toBeLessThan(6);
    }, 120_000);
  }
});
