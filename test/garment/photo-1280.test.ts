/**
 * A light product photo (a white or cream shirt with a light-ground print on a light grey or white sweep) as
 * e-commerce photos come, 960 to 1920 px, whole or cropped, PNG or JPEG: read as the same photo at 640 px is
 * read. The garment shows there only by its shading along the outline (fabric turning away), which a larger
 * photo spreads over as many more px: the body width (the scale's basis) is the same times the zoom, the repeat
 * is found, and the palette is the print's colours, not the background's.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE00, type Lab, labOfHex } from '../../src/garment/color.js';
import type { Extraction } from '../../src/garment/types.js';
import {
  LIGHT_PERIOD,
  LIGHT_PRODUCT,
  productPhoto,
  zoomedLightGroundPhoto,
} from '../support/garment-fixtures.js';

const PRINT = { dots: ['#d0312d'], flowers: ['#e0709a', '#4f8a3c'] } as const;

/** The crop of the photo at zoom 1 that cuts the left sleeve and the hem (photo-cropped-light's). */
const LEFT_AND_HEM = { left: 100, top: 110, width: 500, height: 470 } as const;

interface Case {
  readonly name: string;
  /** The photo with `zoom` times the px of the 640 px one. */
  readonly photo: (zoom: number) => Promise<Buffer>;
  readonly zoom: number;
  readonly print: 'dots' | 'flowers';
  readonly ground: string;
  readonly background: string;
  readonly jpeg?: boolean;
  readonly crop?: typeof LEFT_AND_HEM;
}

const product = (print: 'dots' | 'flowers', zoom: number, jpeg = false): Case => ({
  name: `${print} at ${640 * zoom} px${jpeg ? ', JPEG q80' : ''}`,
  photo: (z) => productPhoto(print, { zoom: z }),
  zoom,
  print,
  ...LIGHT_PRODUCT,
  jpeg,
});

const cases: readonly Case[] = [
  // Before: read as a swatch at 960 px (PNG), its garment 140–210 px wide of 300 at 1280–1920 px, solid in JPEG.
  product('dots', 1.5),
  product('dots', 2),
  product('dots', 2, true),
  product('dots', 2.5, true),
  product('dots', 3),
  // Before: the leaf's green taken with the flowers' yellow hearts (#798e41 for #4f8a3c) at 960 px in JPEG.
  product('flowers', 1.5, true),
  product('flowers', 2),
  product('flowers', 3, true),
  // Before: a swatch (PNG), or a garment 180 px wide (JPEG): the frame of a crop implies a smaller garment.
  {
    ...product('dots', 2),
    name: 'dots at 1280 px, cropped at the left sleeve and the hem',
    crop: LEFT_AND_HEM,
  },
  {
    ...product('dots', 2, true),
    name: 'dots at 1280 px, cropped at the left sleeve and the hem, JPEG q80',
    crop: LEFT_AND_HEM,
  },
  {
    name: 'white on white with a cast shadow at 1280 px, JPEG q80',
    photo: (z) =>
      zoomedLightGroundPhoto(
        { ground: '#fbfbf9', background: '#ffffff', print: 'dots', castShadow: true },
        z,
      ),
    zoom: 2,
    print: 'dots',
    ground: '#fbfbf9',
    background: '#ffffff',
    jpeg: true,
  },
  {
    name: 'cream on white with a cast shadow at 1280 px',
    photo: (z) =>
      zoomedLightGroundPhoto(
        { ground: '#f3ead8', background: '#ffffff', print: 'flowers', castShadow: true },
        z,
      ),
    zoom: 2,
    print: 'flowers',
    ground: '#f3ead8',
    background: '#ffffff',
  },
];

/** A print colour as the photo shows it: the fixtures' mild folds light it at 0.97 of itself on average. */
function lit(hex: string): Lab {
  const n = Number.parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => Math.round(v * 0.97));
  return labOfHex(`#${((r! << 16) | (g! << 8) | b!).toString(16).padStart(6, '0')}`);
}

async function read(c: Case, z: number): Promise<Extraction> {
  let img = sharp(await c.photo(z));
  if (c.crop) {
    const { left, top, width, height } = c.crop;
    img = img.extract({ left: left * z, top: top * z, width: width * z, height: height * z });
  }
  return analysePhoto(
    await (c.jpeg ? img.jpeg({ quality: 80 }) : img.png()).toBuffer(),
    c.jpeg ? 'p.jpg' : 'p.png',
    'h',
  );
}

/** The garment's bounds (x0, y0, x1, y1) in the px of the photo at 640 px. */
function box(e: Extraction, zoom: number): number[] {
  const g = e.garment;
  return [g.x, g.y, g.x + g.w, g.y + g.h].map((v) => v / e.analysisScale / zoom);
}

/** The same photo at 640 px, read once for the cases that share it. */
const at640 = new Map<string, Promise<Extraction>>();

describe('a light product photo at 960–1920 px reads as at 640 px', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const key = c.name.replace(/ at \d+ px/, '');
      if (!at640.has(key)) at640.set(key, read(c, 1));
      const small = await at640.get(key)!;
      const e = await read(c, c.zoom);
      const text = e.palette.map((p) => `${p.hex} ${p.share}`).join(', ');
      expect(e.swatch, 'the garment is found, not taken for a swatch').toBe(false);
      // In the photo's own px (the extraction's are the analysis size's): the 300 px body times the zoom.
      const body = e.bodyWidth / e.analysisScale;
      expect(Math.abs(body / (300 * c.zoom) - 1), `body ${body} px for ${300 * c.zoom}`).toBeLessThanOrEqual(
        0.03,
      );
      // Its bounds as at 640 px (where the T-shirt spans 60..580 × 150..600, cut by a crop's frame).
      const want = box(small, 1);
      for (const [i, v] of box(e, c.zoom).entries())
        expect(
          Math.abs(v - want[i]!),
          `garment edge ${i}: ${v} for ${want[i]} at 640 px`,
        ).toBeLessThanOrEqual(3);
      expect(e.lattice, 'the repeat is found').not.toBeNull();
      const period = LIGHT_PERIOD[c.print] * c.zoom;
      for (const side of [e.lattice!.tileW, e.lattice!.tileH])
        expect(
          Math.abs(side / e.analysisScale / period - 1),
          `tile ${side} for ${period}`,
        ).toBeLessThanOrEqual(0.02);
      // The palette: the ground and each print colour (ΔE00 < 6 of it as lit), and nothing of the background.
      const print = [c.ground, ...PRINT[c.print]].map(lit);
      expect(e.palette, text).toHaveLength(print.length);
      for (const p of print)
        expect(Math.min(...e.palette.map((q) => deltaE00(p, q.lab))), text).toBeLessThan(6);
      const background = labOfHex(c.background);
      for (const p of e.palette) {
        const toPrint = Math.min(...print.map((q) => deltaE00(p.lab, q)));
        expect(toPrint, `${p.hex} of ${text} is a print colour, not the background`).toBeLessThan(
          deltaE00(p.lab, background),
        );
      }
    }, 180_000);
  }
});
