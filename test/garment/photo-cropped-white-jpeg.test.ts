/**
 * A white shirt printed with flowers on a pure white studio background (clipped at 255), cropped so the frame
 * cuts its left sleeve and its hem, saved as JPEG q80, at 640 and 1280 px: the garment is found (not read as a
 * swatch), the scale comes from its body width, and the background stays out of the palette.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE00, labOfHex } from '../../src/garment/color.js';
import { LIGHT_PERIOD, lightGroundPhoto, zoomedLightGroundPhoto } from '../support/garment-fixtures.js';

/** The crop at 640 px: the left sleeve cut at x 100, the hem at y 580 (the T-shirt spans 60..580 × 150..600). */
const LEFT_AND_HEM = { left: 100, top: 110, width: 500, height: 470 } as const;
const PHOTO = { ground: '#fbfbf9', background: '#ffffff', print: 'flowers' } as const;
const PRINT = ['#fbfbf9', '#e0709a', '#4f8a3c'];

describe('white flowers on white, cropped, as JPEG', () => {
  for (const zoom of [1, 2]) {
    for (const castShadow of [false, true]) {
      it(`at ${640 * zoom} px${castShadow ? ', with a cast shadow' : ''}`, async () => {
        // Before: a swatch at both sizes: the print's flowers and leaves where the hem and the sleeve meet the frame,
        // with the white ground (of the background's colour) between them, were counted as 7 crossings of the
        // frame (at most 6 for a garment), so the photo was taken for fabric all over.
        const p = { ...PHOTO, castShadow };
        const full = zoom === 1 ? await lightGroundPhoto(p) : await zoomedLightGroundPhoto(p, zoom);
        const crop = Object.fromEntries(Object.entries(LEFT_AND_HEM).map(([k, v]) => [k, v * zoom]));
        const jpeg = await sharp(full)
          .extract(crop as { left: number; top: number; width: number; height: number })
          .jpeg({ quality: 80 })
          .toBuffer();
        const e = await analysePhoto(jpeg, 'p.jpg', 'h');
        expect(e.swatch, 'the garment is found, not taken for a swatch').toBe(false);
        const body = e.bodyWidth / e.analysisScale / zoom;
        expect(Math.abs(body / 300 - 1), `body ${body} px for 300`).toBeLessThanOrEqual(0.05);
        const g = e.garment;
        const got = [g.x, g.y, g.x + g.w, g.y + g.h].map((v) => v / e.analysisScale / zoom);
        const want = [0, 150 - LEFT_AND_HEM.top, 580 - LEFT_AND_HEM.left, LEFT_AND_HEM.height];
        for (const [i, v] of got.entries())
          expect(Math.abs(v - want[i]!), `garment edge ${i}: ${v} for ${want[i]}`).toBeLessThanOrEqual(4);
        expect(e.lattice, 'the repeat is found').not.toBeNull();
        expect(Math.abs(e.lattice!.tileW / e.analysisScale / (LIGHT_PERIOD.flowers * zoom) - 1)).toBeLessThan(
          0.02,
        );
        const text = e.palette.map((c) => `${c.hex} ${c.share}`).join(', ');
        const background = labOfHex(PHOTO.background);
        for (const c of e.palette) {
          const toPrint = Math.min(...PRINT.map((q) => deltaE00(c.lab, labOfHex(q))));
          expect(toPrint, `${c.hex} of ${text} is a print colour, not the background`).toBeLessThan(
            deltaE00(c.lab, background),
          );
        }
      }, 180_000);
    }
  }
});
