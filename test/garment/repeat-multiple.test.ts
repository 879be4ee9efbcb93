/**
 * A repeat that lies between px: copies of it sampled at different phases of the px grid differ more than a
 * multiple of it that falls back on whole px (and on JPEG's 8 px blocks), which must not be taken for the repeat;
 * and a repeat first found as such a multiple is read again at the scale that makes it whole px, where the finer
 * lattice must be found.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { LIGHT_PERIOD, productPhoto } from '../support/garment-fixtures.js';

describe('a repeat first found as a multiple is read at its own period', () => {
  it('dots at 1280 px cropped at the sleeves and the hem, JPEG q80', async () => {
    // Before: a 512 × 512 px tile (v2 = 4 × the half-drop's 58 px diagonal at the size read: the multiple's
    // half is itself a repeat, so the finer lattice search took it for plain fabric and stopped).
    const zoom = 2;
    const png = await productPhoto('dots', { zoom });
    const crop = { left: 40 * zoom, top: 130 * zoom, width: 560 * zoom, height: 450 * zoom };
    const jpeg = await sharp(png).extract(crop).jpeg({ quality: 80 }).toBuffer();
    const e = await analysePhoto(jpeg, 'p.jpg', 'h');
    const lat = e.lattice;
    expect(lat, 'the repeat is found').not.toBeNull();
    const period = LIGHT_PERIOD.dots * zoom;
    const [tw, th] = [lat!.tileW / e.analysisScale, lat!.tileH / e.analysisScale];
    expect(Math.abs(tw / period - 1), `tile ${tw} × ${th} for ${period}`).toBeLessThanOrEqual(0.02);
    expect(Math.abs(th / period - 1), `tile ${tw} × ${th} for ${period}`).toBeLessThanOrEqual(0.02);
    expect(lat!.layout).toBe('half_drop');
  }, 180_000);

  it.each([
    // Before: no repeat found: the best lags were the whole-px multiples, and the repeat read between px did
    // not compare exact beside them.
    ['cut at the left sleeve and the hem (550 × 517 px)', { left: 100, top: 110, width: 500, height: 470 }],
    // Before: a 352 px tile, 5 × 70.4.
    ['cut at the hem (660 × 517 px)', { left: 20, top: 110, width: 600, height: 470 }],
  ] as const)(
    'dots at 704 px, their repeat 70.4 px, %s, JPEG q80',
    async (_, c) => {
      const zoom = 1.1;
      const png = await productPhoto('dots', { zoom });
      const crop = {
        left: Math.round(c.left * zoom),
        top: Math.round(c.top * zoom),
        width: Math.round(c.width * zoom),
        height: Math.round(c.height * zoom),
      };
      const jpeg = await sharp(png).extract(crop).jpeg({ quality: 80 }).toBuffer();
      const e = await analysePhoto(jpeg, 'p.jpg', 'h');
      const lat = e.lattice;
      expect(lat, 'the repeat is found').not.toBeNull();
      const period = LIGHT_PERIOD.dots * zoom;
      const [tw, th] = [lat!.tileW / e.analysisScale, lat!.tileH / e.analysisScale];
      expect(Math.abs(tw / period - 1), `tile ${tw} × ${th} for ${period}`).toBeLessThanOrEqual(0.02);
      expect(Math.abs(th / period - 1), `tile ${tw} × ${th} for ${period}`).toBeLessThanOrEqual(0.02);
      expect(lat!.layout).toBe('half_drop');
    },
    180_000,
  );
});
