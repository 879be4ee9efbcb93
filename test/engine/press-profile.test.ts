/**
 * The press profile: sRGB → CMYK separation checked against ImageMagick/LittleCMS with the same two profiles
 * (the SWOP press profile and libvips' sRGB) over a 6 × 6 × 6 colour grid (within 6/255 per ink, 1/255 on average), greys neutral through the round trip,
 * the profile embedded once in CMYK JPEGs, named in convert_to_cmyk's result, and a missing profile refused.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cmykaFromRgba } from '../../src/engine/cmyk-pixels.js';
import { roundTripColors } from '../../src/engine/color-mode.js';
import { EditorError } from '../../src/engine/errors.js';
import { encodeJpeg } from '../../src/engine/io/image-codec.js';
import { DEFAULT_PROFILE_PATH, pressProfile } from '../../src/engine/press-profile.js';
import { convertTo, imageMagickAvailable } from '../support/imagemagick.js';
import { newSession, ok } from '../support/session.js';
import { libvipsSrgbProfile, withTempFiles } from './press-profile-support.js';

const ready = imageMagickAvailable() && existsSync(DEFAULT_PROFILE_PATH);
const STEPS = [0, 51, 102, 153, 204, 255];

describe.skipIf(!ready)('press profile', () => {
  it('separates a colour grid as ImageMagick/LittleCMS does with the same profiles (within 6/255 per ink, 1/255 on average)', async () => {
    const n = STEPS.length ** 3;
    const rgba = new Uint8Array(n * 4);
    let i = 0;
    for (const r of STEPS) for (const g of STEPS) for (const b of STEPS) rgba.set([r, g, b, 255], 4 * i++);
    const ours = await cmykaFromRgba(rgba, n, 1, pressProfile().path);
    const srgb = await libvipsSrgbProfile();
    const rgb = Buffer.from(rgba.filter((_, k) => k % 4 !== 3));
    const reference = await withTempFiles(
      { 'srgb.icc': srgb, 'press.icc': pressProfile().bytes, 'grid.rgb': rgb },
      (f) =>
        convertTo(
          ['-size', `${n}x1`, '-depth', '8', `rgb:${f['grid.rgb']}`, '-profile', f['srgb.icc']!].concat([
            '-intent',
            'perceptual',
            '-profile',
            f['press.icc']!,
            '-depth',
            '8',
            'cmyk:OUT',
          ]),
          'cmyk',
        ),
    );
    expect(reference.length).toBe(n * 4);
    let worst = 0;
    let sum = 0;
    for (let p = 0; p < n; p++) {
      for (let c = 0; c < 4; c++) {
        const d = Math.abs(reference[p * 4 + c]! - ours[p * 5 + c]!);
        worst = Math.max(worst, d);
        sum += d;
      }
    }
    // Two LittleCMS builds (libvips' bundled one and Debian's) interpolate the profile's tables differently.
    expect(worst).toBeLessThanOrEqual(6);
    expect(sum / (n * 4)).toBeLessThanOrEqual(1);
  });

  it('keeps greys neutral through sRGB → CMYK → sRGB, down to black', async () => {
    const greys = Array.from({ length: 52 }, (_, k) => ({ r: k * 5, g: k * 5, b: k * 5 }));
    const back = await roundTripColors(greys);
    for (const [k, c] of back.entries()) {
      const spread = Math.max(c.r, c.g, c.b) - Math.min(c.r, c.g, c.b);
      expect(spread, `grey ${greys[k]!.r} → ${c.r},${c.g},${c.b}`).toBeLessThanOrEqual(3);
    }
    // Black stays dark: the press's black, not a lifted grey.
    expect(Math.max(back[0]!.r, back[0]!.g, back[0]!.b)).toBeLessThanOrEqual(30);
  });

  it('embeds the press profile once in a CMYK JPEG', async () => {
    const raster = { x: 0, y: 0, w: 4, h: 4, data: new Uint8ClampedArray(64).fill(200) };
    const jpeg = await encodeJpeg(raster, 150, { cmyk: pressProfile() });
    const chunks: Buffer[] = [];
    for (let at = 2; at + 4 < jpeg.length && jpeg[at] === 0xff; ) {
      const marker = jpeg[at + 1]!;
      const len = jpeg.readUInt16BE(at + 2);
      const body = jpeg.subarray(at + 4, at + 2 + len);
      if (marker === 0xe2 && body.subarray(0, 12).toString('latin1') === 'ICC_PROFILE\0')
        chunks.push(body.subarray(14));
      if (marker === 0xda) break;
      at += 2 + len;
    }
    expect(Buffer.compare(Buffer.concat(chunks), Buffer.from(pressProfile().bytes))).toBe(0);
  });

  it('names the profile in convert_to_cmyk and refuses a missing one clearly, changing nothing', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 16, height: 16 });
    const r = await ok(s, 'convert_to_cmyk');
    expect(r.profile).toEqual({
      name: 'Artifex CMYK SWOP Profile',
      file: 'default_cmyk.icc',
      source: 'default',
      intent: 'perceptual',
    });
    let err: unknown;
    try {
      pressProfile({ ATELIER_CMYK_PROFILE: '/nonexistent/press.icc' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EditorError);
    expect((err as EditorError).code).toBe('unsupported');
    expect((err as EditorError).message).toContain('press.icc');
    expect((err as EditorError).message).not.toContain('/nonexistent');
    expect((err as EditorError).hint).toContain('ATELIER_CMYK_PROFILE');
  });
});
