/**
 * A half-drop of a tile holding two dots can read as a half-drop or as a smaller block: when the drop equals the
 * dots' own spacing the print IS that smaller block. The lattice found is the one whose tile reproduces the
 * print, and its confidence is the autocorrelation of a lattice that holds.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Raster } from '../../src/engine/model.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { latticeFrom, medianTile } from '../../src/garment/builtin/repeat.js';
import type { Lattice } from '../../src/garment/types.js';
import { GROUND, inShirt, NAVY, RED } from '../support/garment-fixtures.js';

const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

/** Dots (centre x, y, radius, colour) in a 64 px tile, every other 64 px column dropped 32 px. */
type Dot = readonly [number, number, number, string];

function printAt(x: number, y: number, dots: readonly Dot[]): number[] {
  const yy = Math.floor(x / 64) % 2 ? y + 32 : y;
  const u = x % 64;
  const v = yy % 64;
  for (const [cx, cy, r, c] of dots)
    for (const o of [-64, 0, 64]) if ((u - cx) ** 2 + (v - cy - o) ** 2 <= r * r) return rgb(c);
  return rgb(GROUND);
}

/** The print on the test T-shirt (or filling the photo) under mild folds, with noise, 640 px. */
async function dotPhoto(dots: readonly Dot[], swatch: boolean): Promise<Buffer> {
  const side = 640;
  const data = Buffer.alloc(side * side * 3);
  let seed = 12345;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      let c: number[];
      if (swatch || inShirt(x, y)) {
        const fold = 0.95 + 0.05 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
        c = printAt(x, y, dots).map((v) => v * fold);
      } else {
        const g = 122 + Math.round((y / side) * 18);
        c = [g, g + 6, g + 14];
      }
      for (let k = 0; k < 3; k++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        data[(y * side + x) * 3 + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + ((seed >> 8) % 9) - 4));
      }
    }
  }
  return sharp(data, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

/** Share of the tile's px whose colour is off the print's by more than 40 in a channel (a dot misplaced). */
function misplaced(tile: Raster, lat: Lattice, dots: readonly Dot[]): number {
  let bad = 0;
  for (let v = 0; v < lat.tileH; v++) {
    for (let u = 0; u < lat.tileW; u++) {
      const want = printAt(u, v, dots);
      const o = (v * lat.tileW + u) * 4;
      if (want.some((c, k) => Math.abs(tile.data[o + k]! - c) > 40)) bad++;
    }
  }
  return bad / (lat.tileW * lat.tileH);
}

const CASES: Record<string, { dots: readonly Dot[]; tile: [number, number]; layout: string }> = {
  // The drop (32) equals the dots' spacing down a column: every column is the same, a block 64 × 32.
  'two navy dots 32 px apart down the tile': {
    dots: [
      [20, 16, 9, NAVY],
      [20, 48, 9, NAVY],
    ],
    tile: [64, 32],
    layout: 'block',
  },
  'two navy dots across the tile': {
    dots: [
      [16, 20, 9, NAVY],
      [48, 20, 9, NAVY],
    ],
    tile: [128, 64],
    layout: 'half_drop',
  },
  // The fixture's tile: a large navy dot and a small red one.
  'a navy and a red dot': {
    dots: [
      [20, 20, 12, NAVY],
      [48, 44, 6, RED],
    ],
    tile: [128, 64],
    layout: 'half_drop',
  },
};

describe('a half-drop of two dots per tile', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: ${c.layout} ${c.tile.join(' × ')}, its tile the print, an honest confidence`, async () => {
      const e = await analysePhoto(await dotPhoto(c.dots, false), 'p.png', name);
      const lat = e.lattice!;
      expect(lat).toMatchObject({ tileW: c.tile[0], tileH: c.tile[1], layout: c.layout });
      expect(lat.shorter).toBeUndefined();
      expect(misplaced(e.tile, lat, c.dots)).toBe(0);
      expect(lat.confidence).toBeGreaterThan(0.95);
    });
  }

  it('the other reading: the smaller block misplaces dots unless the print is that block', async () => {
    for (const [name, c] of Object.entries(CASES)) {
      const { data, info } = await sharp(await dotPhoto(c.dots, true))
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const photo: Raster = { x: 0, y: 0, w: info.width, h: info.height, data: new Uint8ClampedArray(data) };
      const mask = new Uint8Array(info.width * info.height).fill(1);
      const block = latticeFrom([0, 32], [64, 0], 1, mask.length)!;
      const halfDrop = latticeFrom([0, 64], [64, 32], 1, mask.length)!;
      // The half-drop always holds (it is how the print was laid out); the block only when it is the print.
      expect(misplaced(medianTile(photo, mask, halfDrop), halfDrop, c.dots), name).toBe(0);
      const blockOff = misplaced(medianTile(photo, mask, block), block, c.dots);
      if (c.layout === 'block') expect(blockOff, name).toBe(0);
      else expect(blockOff, name).toBeGreaterThan(0.05);
    }
  });

  it('photographed at 900 px (found on the photo halved, where the drop is 22.5 px): the same lattices', async () => {
    for (const [name, c] of Object.entries(CASES)) {
      const resized = await sharp(await dotPhoto(c.dots, false))
        .resize(900, 900)
        .jpeg({ quality: 92 })
        .toBuffer();
      const e = await analysePhoto(resized, 'p.jpg', `${name}-900`);
      const toSource = 1 / e.analysisScale / (900 / 640);
      expect(e.lattice?.layout, name).toBe(c.layout);
      expect(Math.abs((e.lattice!.tileW * toSource) / c.tile[0] - 1), name).toBeLessThan(0.015);
      expect(Math.abs((e.lattice!.tileH * toSource) / c.tile[1] - 1), name).toBeLessThan(0.015);
    }
  });
});
