/**
 * A document's render (render.ts) when a layer reaches past the canvas on every side: the compositor's raster is
 * the canvas itself (so no canvas-sized crop is copied on the way to the encoder), the full-size render is the
 * exact canvas crop ImageMagick takes of the layer, and a screen-size render is what ImageMagick gives when it
 * crops and resizes the same image, within the difference of two Lanczos implementations.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { CONVERT, imageMagickAvailable } from '../support/imagemagick.js';
import { newSession, ok } from '../support/session.js';

const run = promisify(execFile);
const W = 300;
const H = 200;
/** The layer: 50 px past the canvas on every side once centred (place_image at its pixel size centres it). */
const LW = 400;
const LH = 300;

async function layerPng(file: string): Promise<void> {
  const data = Buffer.alloc(LW * LH * 3);
  for (let y = 0; y < LH; y++) {
    for (let x = 0; x < LW; x++) {
      const i = (y * LW + x) * 3;
      data[i] = Math.round((x * 255) / (LW - 1));
      data[i + 1] = Math.round((y * 255) / (LH - 1));
      data[i + 2] = ((x >> 4) + (y >> 4)) & 1 ? 200 : 40;
    }
  }
  await sharp(data, { raw: { width: LW, height: LH, channels: 3 } })
    .png()
    .toFile(file);
}

async function rgbaOf(png: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** ImageMagick's crop of the file to the canvas (and resize to `w` × `h` when given), as RGBA. */
async function magick(file: string, resize?: { w: number; h: number }): Promise<Buffer> {
  const args = [file, '-crop', `${W}x${H}+${(LW - W) / 2}+${(LH - H) / 2}`, '+repage'];
  if (resize) args.push('-filter', 'Lanczos', '-resize', `${resize.w}x${resize.h}!`);
  args.push('-alpha', 'on', '-depth', '8', 'rgba:-');
  const { stdout } = await run(CONVERT, args, { encoding: 'buffer', maxBuffer: 64 << 20 });
  return stdout;
}

describe.skipIf(!imageMagickAvailable())('rendering a document whose layer reaches past the canvas', () => {
  it('composites to the canvas alone and renders its exact crop, at full size and scaled', async () => {
    const session = newSession();
    await ok(session, 'create_document', { width: W, height: H, resolution: 150, name: 'marker' });
    const file = path.join(session.workspace.root, 'big.png');
    await layerPng(file);
    await ok(session, 'place_image', { path: 'big.png', name: 'big', size: 'pixels' });
    const seen = await session.inspect((tx) => {
      const doc = tx.document('marker');
      const layer = [...doc.state.layers.values()].find((l) => l.name === 'big') as {
        raster: { x: number; y: number; w: number; h: number };
      };
      const { x, y, w, h } = tx.composite(doc.id);
      return { layer: { ...layer.raster, data: undefined }, composite: { x, y, w, h } };
    });
    expect(seen.layer).toMatchObject({ x: -50, y: -50, w: LW, h: LH });
    // The compositor's raster is the canvas: render.ts has nothing to crop.
    expect(seen.composite).toEqual({ x: 0, y: 0, w: W, h: H });

    const full = await session.render('marker', 1000);
    expect(full).toMatchObject({ width: W, height: H, documentWidth: W, documentHeight: H });
    const ours = await rgbaOf(full.png);
    expect(ours.data.equals(await magick(file))).toBe(true);

    const small = await session.render('marker', 100);
    expect(small).toMatchObject({ width: 100, height: 67 });
    const scaled = await rgbaOf(small.png);
    const theirs = await magick(file, { w: 100, h: 67 });
    expect(scaled.data.byteLength).toBe(theirs.byteLength);
    let sum = 0;
    let worst = 0;
    for (let i = 0; i < theirs.byteLength; i++) {
      const d = Math.abs(scaled.data[i]! - theirs[i]!);
      sum += d;
      worst = Math.max(worst, d);
    }
    // libvips and ImageMagick round their Lanczos filters differently: measured, 1 level at most, 0.34 on average.
    expect(sum / theirs.byteLength).toBeLessThan(0.5);
    expect(worst).toBeLessThanOrEqual(2);
  });
});
