/**
 * A dark T-shirt cut out onto pure white whose sides are notched just above the hem, as a folded hem's corners
 * notch a product photo's silhouette. On a garment clearly apart from its background, the silhouette's pockets are
 * filled (withPockets: the background's fill bites into a print of the background's colour along the outline), and
 * the notches were filled with them: on real product photos of dark T-shirts, blocks of the white background at
 * the hem's corners were garment. On a noiseless background, what has the background's own colour stays
 * background.
 */
import { describe, expect, it } from 'vitest';
import { decodeImage } from '../../src/engine/io/image-codec.js';
import { levelPhoto } from '../../src/garment/builtin/level.js';
import { inHemSlit, inSlitShirt, productPhoto } from '../support/garment-fixtures.js';

const DARK = '#1b1b1d';

describe('a dark T-shirt with notches above its hem, cut out onto pure white', () => {
  for (const zoom of [1, 2]) {
    it(`keeps the notches background, at ${640 * zoom} px`, async () => {
      const photo = await productPhoto('solid', {
        colour: DARK,
        sweep: '#ffffff',
        cutout: true,
        hemSlits: true,
        zoom,
      });
      const { raster } = await decodeImage(photo);
      const { garment, level } = await levelPhoto(raster);
      expect(level, 'read as laid square').toBeNull();
      expect(garment.swatch).toBe(false);
      const { mask, w, h } = garment;
      // Mask px → the 640 px drawing's px.
      const s = (w / raster.w) * zoom;
      let inSlits = 0;
      let slits = 0;
      let inter = 0;
      let union = 0;
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const gx = Math.floor((x + 0.5) / s);
          const gy = Math.floor((y + 0.5) / s);
          const m = mask[y * w + x] === 1;
          const truth = inSlitShirt(gx, gy);
          if (truth && m) inter++;
          if (truth || m) union++;
          // The slits less their antialiased rim (a px of the drawing all round).
          const deep = [-1, 0, 1].every((j) => [-1, 0, 1].every((i) => inHemSlit(gx + i, gy + j)));
          if (!deep) continue;
          slits++;
          if (m) inSlits++;
        }
      }
      expect(slits).toBeGreaterThan(100 * zoom ** 2);
      // Before: every px of them (192 of 192 at 640 px).
      expect(inSlits, `notch px in the mask, of ${slits}`).toBe(0);
      expect(inter / union, 'IoU with the drawn silhouette').toBeGreaterThanOrEqual(0.97);
    });
  }
});
