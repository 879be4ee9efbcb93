/**
 * A cropped product photo of a white or light garment (a light-ground print) on a light-grey or white studio
 * background, the body touching one or two edges of the frame: the garment is found (not read as a swatch), the
 * scale comes from its body width, and the background stays out of the palette.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE00, labOfHex, rgbToLab } from '../../src/garment/color.js';
import { LIGHT_PERIOD, LIGHT_PRODUCT, lightGroundPhoto, productPhoto } from '../support/garment-fixtures.js';

/** The crops: both the left sleeve and the hem cut by the frame, or the hem alone. */
const LEFT_AND_HEM = { left: 100, top: 110, width: 500, height: 470 } as const;
const HEM = { left: 20, top: 110, width: 600, height: 470 } as const;

/** A print colour as the photo shows it: the fixtures' mild folds light it at 0.97 of itself on average. */
function lit(hex: string): ReturnType<typeof labOfHex> {
  const n = Number.parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => v * 0.97);
  return rgbToLab(r!, g!, b!);
}

const cases = [
  {
    name: 'white, red dots, on light grey, cut at the left sleeve and the hem',
    photo: () => productPhoto('dots'),
    crop: LEFT_AND_HEM,
    ground: LIGHT_PRODUCT.ground,
    background: LIGHT_PRODUCT.background,
    print: 'dots',
  },
  {
    name: 'white, red dots, on light grey, cut at the hem',
    photo: () => productPhoto('dots'),
    crop: HEM,
    ground: LIGHT_PRODUCT.ground,
    background: LIGHT_PRODUCT.background,
    print: 'dots',
  },
  {
    name: 'white, red dots, on white with a cast shadow, cut at the left sleeve and the hem',
    photo: () =>
      lightGroundPhoto({ ground: '#fbfbf9', background: '#ffffff', print: 'dots', castShadow: true }),
    crop: LEFT_AND_HEM,
    ground: '#fbfbf9',
    background: '#ffffff',
    print: 'dots',
  },
  {
    name: 'white, flowers, on white, cut at the hem',
    photo: () =>
      lightGroundPhoto({ ground: '#fbfbf9', background: '#ffffff', print: 'flowers', castShadow: false }),
    crop: HEM,
    ground: '#fbfbf9',
    background: '#ffffff',
    print: 'flowers',
  },
] as const;

describe('a white garment cut by the frame on a light or white background', () => {
  for (const c of cases) {
    it(c.name, async () => {
      // Before: the fill from the frame entered the garment where the frame cuts it, nothing of it was left, and
      // the photo was read as a swatch: body width 500–600 px (the frame's), the background in the palette.
      const png = await sharp(await c.photo())
        .extract(c.crop)
        .png()
        .toBuffer();
      const e = await analysePhoto(png, 'p.png', 'h');
      expect(e.swatch, 'the garment is found, not taken for a swatch').toBe(false);
      expect(Math.abs(e.bodyWidth / 300 - 1), `body ${e.bodyWidth} px for 300`).toBeLessThanOrEqual(0.05);
      // The T-shirt spans 60..580 × 150..600 in the photo, its sleeve cut at x 100, its hem at y 580.
      const g = e.garment;
      const want = [Math.max(0, 60 - c.crop.left), 150 - c.crop.top, 580 - c.crop.left, c.crop.height];
      const got = [g.x, g.y, g.x + g.w, g.y + g.h];
      // The shadow cast right and down on white included: it stays off the garment (it once took in 9 px there).
      for (const [i, v] of got.entries())
        expect(Math.abs(v - want[i]!), `garment edge ${i}: ${v} for ${want[i]}`).toBeLessThanOrEqual(3);
      const period = LIGHT_PERIOD[c.print];
      expect(e.lattice, 'the repeat is found').not.toBeNull();
      expect(Math.abs(e.lattice!.tileW / e.analysisScale / period - 1)).toBeLessThanOrEqual(0.02);
      expect(Math.abs(e.lattice!.tileH / e.analysisScale / period - 1)).toBeLessThanOrEqual(0.02);
      // The palette is the print's colours, each nearer a colour of the print (as lit) than the background.
      const print = [c.ground, ...(c.print === 'dots' ? ['#d0312d'] : ['#e0709a', '#4f8a3c'])];
      const background = labOfHex(c.background);
      const text = e.palette.map((p) => `${p.hex} ${p.share}`).join(', ');
      expect(e.palette, text).toHaveLength(print.length);
      for (const p of e.palette) {
        const toPrint = Math.min(...print.map((q) => deltaE00(p.lab, lit(q))));
        expect(toPrint, `${p.hex} of ${text} is a print colour, not the background`).toBeLessThan(
          deltaE00(p.lab, background),
        );
      }
      expect(deltaE00(e.ground.lab, lit(c.ground)), text).toBeLessThan(1.5);
    }, 120_000);
  }
});
