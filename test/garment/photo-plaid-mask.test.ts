/**
 * The silhouette of a plaid T-shirt on the studio sweep, whose one-band cells are within a few ΔE of the sweep's
 * grey: the mask follows the drawn outline within a few px (no staircase where the background's fill bit into
 * those cells along the shoulders, no block of them taken out round the neck for its opening), and the neck
 * opening is not garment.
 */
import { describe, expect, it } from 'vitest';
import { decodeImage } from '../../src/engine/io/image-codec.js';
import { levelPhoto } from '../../src/garment/builtin/level.js';
import { inPlaidNeck, inPlaidShirt, plaidShirtPhoto } from './plaid-photo.js';

/**
 * How far (photo px at 640) a mask px may lie from the drawn outline on the wrong side of it: the tip of the
 * armpit's acute corner is rounded off, and a grey cell cut by the neckline opens with the opening (5 px).
 */
const NEAR = 6;

async function measure(band: boolean, zoom: number) {
  const { raster } = await decodeImage(await plaidShirtPhoto(band, zoom));
  const { garment, level } = await levelPhoto(raster);
  expect(level, 'read as laid square').toBeNull();
  expect(garment.swatch).toBe(false);
  const { mask, w, h } = garment;
  // Mask px → the 640 px drawing's px.
  const s = (w / raster.w) * zoom;
  const at = (x: number, y: number) => [Math.floor((x + 0.5) / s), Math.floor((y + 0.5) / s)] as const;
  let inter = 0;
  let union = 0;
  let neck = 0;
  let far = 0;
  const off: string[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const [gx, gy] = at(x, y);
      const truth = inPlaidShirt(gx, gy, band);
      const m = mask[y * w + x] === 1;
      if (truth && m) inter++;
      if (truth || m) union++;
      if (m && inPlaidNeck(gx, gy)) neck++;
      if (truth === m) continue;
      // Wrong only where the outline is within NEAR px (the back neck band, 10 px high, is a thin part).
      let near = false;
      for (let j = -NEAR; j <= NEAR && !near; j++)
        for (let i = -NEAR; i <= NEAR && !near; i++) near = inPlaidShirt(gx + i, gy + j, band) !== truth;
      const backBand = band && gy >= 140 && gy < 150;
      if (!near && !backBand) {
        far++;
        if (off.length < 5) off.push(`(${gx}, ${gy})`);
      }
    }
  }
  return { iou: inter / union, neck, far, off };
}

describe('a plaid T-shirt on the studio sweep', () => {
  for (const [band, zoom] of [
    [false, 1],
    [true, 1],
    [true, 2],
  ] as const) {
    it(`${band ? 'with a back neck band' : 'its neck open at the top'}, at ${640 * zoom} px`, async () => {
      // Before: IoU 0.91–0.92, the shoulders and sleeves a staircase of the grey cells bitten off, and a block
      // of 165 × 88 px round the neck taken out with the opening (the grey cells, touching at their corners, were
      // one hole with it): 9300–11900 mask px more than 6 px off the outline.
      const r = await measure(band, zoom);
      expect(r.iou, 'IoU with the drawn silhouette').toBeGreaterThanOrEqual(0.97);
      // Within NEAR px all round but where a grey band runs along the slanted top of a sleeve (a wedge of it 9 px
      // deep at 1280 px: 37 px of the mask).
      expect(
        r.far,
        `mask px more than ${NEAR} px off the outline, at ${r.off.join(' ')}`,
      ).toBeLessThanOrEqual(100);
      // The neck opening's px (4366 at 640 px): none but its antialiased rim in the mask.
      expect(r.neck, 'neck opening px in the mask').toBeLessThanOrEqual(0.06 * 4366 * zoom ** 2);
    }, 120_000);
  }
});
