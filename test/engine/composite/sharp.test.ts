import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../../src/engine/composite/compositor.js';
import type { Raster } from '../../../src/engine/model.js';
import { rng } from '../../support/rng.js';
import { doc, pixel, rasterOf } from './support.js';

/** sharp's `over` is exact to ±1 (research/engine.md §0), so it is an independent reference for 'normal'. */
async function sharpOver(width: number, height: number, layers: Raster[]): Promise<Buffer> {
  const blank = Buffer.alloc(width * height * 4);
  return sharp(blank, { raw: { width, height, channels: 4 } })
    .composite(
      layers.map((l) => ({
        input: Buffer.from(l.data.buffer, l.data.byteOffset, l.data.byteLength),
        raw: { width: l.w, height: l.h, channels: 4 as const },
        left: l.x,
        top: l.y,
        blend: 'over' as const,
      })),
    )
    .raw()
    .toBuffer();
}

describe('normal compositing against sharp over', () => {
  for (const [label, opaqueShare] of [
    ['semi-transparent layers', 0.1],
    ['mostly opaque layers', 0.8],
  ] as const) {
    it(label, async () => {
      const r = rng(label.length);
      const W = 96;
      const H = 64;
      const layers = [
        { x: 0, y: 0, w: 96, h: 64 },
        { x: 10, y: 5, w: 50, h: 40 },
        { x: 40, y: 20, w: 56, h: 44 },
        { x: 0, y: 30, w: 70, h: 10 },
      ].map((rect) =>
        rasterOf(rect, () => [
          Math.floor(r() * 256),
          Math.floor(r() * 256),
          Math.floor(r() * 256),
          r() < opaqueShare ? 255 : Math.floor(r() * 256),
        ]),
      );
      const ours = renderDocument(
        doc(
          W,
          H,
          layers.map((l, i) => pixel(i + 1, l)),
          layers.map((_, i) => i + 1),
        ),
      );
      const ref = await sharpOver(W, H, layers);
      let worst = 0;
      for (let i = 0; i < ref.length; i += 4) {
        const a = ref[i + 3]!;
        worst = Math.max(worst, Math.abs(ours.data[i + 3]! - a));
        if (a === 0) continue;
        for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(ours.data[i + c]! - ref[i + c]!));
      }
      expect(worst).toBeLessThanOrEqual(1);
    });
  }
});
