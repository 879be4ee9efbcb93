/**
 * A layer mask's density and feather (Photoshop's Properties panel) as the compositor draws them: density lets
 * `1 − d` of what the mask hides show; feather blurs the mask by a Gaussian of σ = radius / 2 (the selection
 * feather's mapping). ImageMagick's `-blur 0xσ` is the reference for the feathered ramp.
 */
import { execFile } from 'node:child_process';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { layerBounds } from '../../../src/engine/composite/bounds.js';
import { renderDocument } from '../../../src/engine/composite/compositor.js';
import { shownMask } from '../../../src/engine/composite/mask-shown.js';
import { CONVERT, imageMagickAvailable } from '../../support/imagemagick.js';
import { doc, fill, maskOf, pixel, px, solid } from './support.js';

const W = 80;
const H = 40;
const ALL = { x: 0, y: 0, w: W, h: H };
const WHITE = { r: 255, g: 255, b: 255 };
const GREEN = [0, 160, 0, 255] as const;

/** A green layer over the canvas, masked to its left half (the mask's rectangle only covers x 0..39). */
function masked(density?: number, feather?: number) {
  const mask = {
    ...maskOf({ x: 0, y: 0, w: 40, h: H }, () => 255, 0),
    ...(density !== undefined ? { density } : {}),
    ...(feather !== undefined ? { feather } : {}),
  };
  return doc(W, H, [fill(1, WHITE), pixel(2, solid(ALL, GREEN), { mask })], [1, 2]);
}

describe('mask density', () => {
  it('lets 1 − density of what the mask hides show, and none of what it shows is lost', () => {
    const out = renderDocument(masked(0.6));
    // Hidden by the mask (past its rectangle): 40 % green over white.
    expect(px(out, 70, 20)).toEqual([153, 217, 153, 255]);
    // Shown by the mask: all green.
    expect(px(out, 10, 20)).toEqual([...GREEN]);
    // The layer's bounds now reach past the mask's rectangle, since it shows there.
    expect(layerBounds(masked(0.6), 2)).toMatchObject({ x: 0, w: W });
    expect(layerBounds(masked(), 2)).toMatchObject({ x: 0, w: 40 });
  });

  it('leaves the mask as painted: only the drawing changes', () => {
    const state = masked(0.25);
    const layer = state.layers.get(2)!;
    const drawn = shownMask(layer, ALL, state)!;
    expect(layer.mask!.data.every((v) => v === 255)).toBe(true);
    expect(drawn.data[(20 - drawn.y) * drawn.w + 70 - drawn.x]).toBe(Math.round(255 * 0.75));
    // A feather alone keeps the drawn mask the size of the mask and its blur's reach, whatever the canvas.
    const feathered = masked(undefined, 4);
    const small = shownMask(feathered.layers.get(2)!, { x: 0, y: 0, w: 100000, h: 100000 }, feathered)!;
    expect(small.w).toBeLessThanOrEqual(60);
  });
});

describe.skipIf(!imageMagickAvailable())('mask feather', () => {
  it('blurs the mask as a Gaussian of σ = radius / 2, within 3 levels of ImageMagick', async () => {
    const radius = 8;
    const state = masked(undefined, radius);
    const drawn = shownMask(state.layers.get(2)!, ALL, state)!;
    const at = (x: number, y: number) => {
      const inside = x >= drawn.x && y >= drawn.y && x < drawn.x + drawn.w && y < drawn.y + drawn.h;
      return inside ? drawn.data[(y - drawn.y) * drawn.w + (x - drawn.x)]! : drawn.outside;
    };
    // The same mask as an image, blurred by ImageMagick.
    const plain = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < 40; x++) plain[y * W + x] = 255;
    const png = await sharp(Buffer.from(plain), { raw: { width: W, height: H, channels: 1 } })
      .png()
      .toBuffer();
    const ref = await blurWithIm(png, radius / 2);
    let worst = 0;
    for (let x = 0; x < W; x++) {
      const ours = at(x, 20);
      worst = Math.max(worst, Math.abs(ours - ref[20 * W + x]!));
    }
    expect(worst).toBeLessThanOrEqual(3);
    // Half way at the edge, a ramp over about ±radius.
    expect(Math.abs(at(40, 20) - 128)).toBeLessThan(20);
    expect(at(40 + radius, 20)).toBeLessThan(20);
    expect(at(40 - radius - 1, 20)).toBeGreaterThan(235);
    // The canvas's border is not an edge of the mask: no dark seam along it.
    expect(at(0, 20)).toBe(255);
    expect(at(10, 0)).toBe(255);
    // The composite shows it: green fading into white across the edge.
    const out = renderDocument(state);
    const g = (x: number) => px(out, x, 20)[0];
    expect(g(30)).toBeLessThan(10);
    expect(g(40)).toBeGreaterThan(100);
    expect(g(40)).toBeLessThan(160);
    expect(g(50)).toBeGreaterThan(245);
  });
});

async function blurWithIm(png: Buffer, sigma: number): Promise<Buffer> {
  const child = execFile(
    CONVERT,
    ['png:-', '-virtual-pixel', 'edge', '-blur', `0x${sigma}`, '-depth', '8', 'gray:-'],
    {
      encoding: 'buffer',
      maxBuffer: 1 << 20,
    },
  );
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => chunks.push(c));
  child.stdin!.end(png);
  await new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve(null) : reject(code))),
  );
  return Buffer.concat(chunks);
}
