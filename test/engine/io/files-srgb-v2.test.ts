/**
 * The sRGB profile our RGB files embed is ICC v2 (older RIPs and viewers do not read v4), seen by ImageMagick
 * and psd-tools in PNG, JPEG and PSD files, and it moves no colour: every 8-bit value is written as it is, and a
 * colour-managed conversion through it (LittleCMS, in ImageMagick and in psd-tools' Pillow) gives what one
 * through libvips' v4 sRGB profile, the one embedded before, gives, within 1/255. CMYK files keep the press
 * profile.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { convertStateToCmyk } from '../../../src/engine/color-mode.js';
import { decodeImage, encodeJpeg, encodePng } from '../../../src/engine/io/image-codec.js';
import { encodePsd } from '../../../src/engine/io/psd.js';
import { srgbProfile } from '../../../src/engine/io/rgb-profile.js';
import type { Raster } from '../../../src/engine/model.js';
import { DEFAULT_PROFILE_PATH, iccDescription, pressProfile } from '../../../src/engine/press-profile.js';
import { CONVERT, identify, imageMagickAvailable } from '../../support/imagemagick.js';
import { psdToolsAvailable, readWithPsdTools, SYSTEM_PYTHON } from '../../support/psd-tools.js';
import { libvipsSrgbProfile, withTempFiles } from '../press-profile-support.js';
import { DocBuilder, H, testComposite, W } from './psd-fixtures.js';

const run = promisify(execFile);
const A98 = '/usr/share/color/icc/ghostscript/a98.icc';

/** The profile ImageMagick finds in a file (`icc:` output). */
async function profileOf(file: Uint8Array, ext: string): Promise<Buffer> {
  return withTempFiles({ [`in.${ext}`]: file }, async (f) => {
    const { stdout } = await run(CONVERT, [`${f[`in.${ext}`]}[0]`, 'icc:-'], {
      encoding: 'buffer',
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  });
}

/** The type signatures of a profile's tags. */
function tagTypes(icc: Uint8Array): string[] {
  const view = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
  const types: string[] = [];
  for (let i = 0; i < view.getUint32(128); i++) {
    const offset = view.getUint32(132 + i * 12 + 4);
    types.push(String.fromCharCode(...icc.subarray(offset, offset + 4)));
  }
  return types;
}

function expectV2Srgb(icc: Uint8Array): void {
  expect(icc[8], 'ICC major version').toBe(2);
  expect(iccDescription(icc)).toBe('sRGB');
  expect(String.fromCharCode(...icc.subarray(16, 20))).toBe('RGB ');
  // Tag types of ICC v4 only (multi-localised text, parametric curves, the s15Fixed16 'chad' matrix): none.
  const types = tagTypes(icc);
  for (const v4 of ['mluc', 'para', 'sf32']) expect(types).not.toContain(v4);
  expect(types).toContain('desc');
  expect(types).toContain('curv');
}

/** Every level of each channel, alone and with the others, and every grey; opaque. */
function levels(): Raster {
  const w = 256;
  const h = 260;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const rgb =
        y < 256
          ? [x, y, (x * 7 + y * 13) % 256]
          : [
              [x, x, x],
              [x, 0, 0],
              [0, x, 0],
              [0, 0, x],
            ][y - 256]!;
      data.set([...rgb, 255], (y * w + x) * 4);
    }
  }
  return { x: 0, y: 0, w, h, data };
}

/** `png`'s pixels converted by ImageMagick (LittleCMS) from its embedded profile to `profile`, as RGB bytes. */
async function convertedBy(png: Uint8Array, profile: string): Promise<Buffer> {
  return withTempFiles({ 'in.png': png }, async (f) => {
    const { stdout } = await run(
      CONVERT,
      [f['in.png']!, '-alpha', 'off', '-profile', profile, '-depth', '8', 'rgb:-'],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout;
  });
}

function worstRgb(
  a: ArrayLike<number>,
  aStep: number,
  b: ArrayLike<number>,
  bStep: number,
  n: number,
): number {
  let worst = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(a[i * aStep + c]! - b[i * bStep + c]!));
  }
  return worst;
}

describe.skipIf(!imageMagickAvailable() || !psdToolsAvailable())(
  'the embedded sRGB profile is ICC v2',
  () => {
    it('PNG, JPEG and RGB PSD files embed it, as ImageMagick and psd-tools read them', async () => {
      const raster = testComposite();
      const png = await encodePng(raster, 150);
      const jpg = await encodeJpeg(raster, 150);
      const b = new DocBuilder();
      const { buffer: psd } = await encodePsd(b.state([b.pixel('底', raster)]), raster);
      for (const [file, ext] of [
        [png, 'png'],
        [jpg, 'jpg'],
        [psd, 'psd'],
      ] as const) {
        const icc = await profileOf(file, ext);
        expectV2Srgb(icc);
        expect(icc.equals(Buffer.from(srgbProfile())), ext).toBe(true);
        expect(await identify(file, ext, '%[icc:description]')).toBe('sRGB');
      }
      const script = [
        'import sys',
        'from psd_tools import PSDImage',
        'icc = PSDImage.open(sys.argv[1]).image_resources.get_data(1039)',
        'print(icc[8], len(icc))',
      ].join('\n');
      const out = await withTempFiles({ 'in.psd': psd }, (f) =>
        run(SYSTEM_PYTHON, ['-c', script, f['in.psd']!]),
      );
      expect(out.stdout.trim()).toBe(`2 ${srgbProfile().length}`);
    });

    it('moves no colour: 8-bit values are written as they are, and LittleCMS reads them as through v4 sRGB', async () => {
      const raster = levels();
      const n = raster.w * raster.h;
      const png = await encodePng(raster, 72);
      const stored = await sharp(png, { ignoreIcc: true }).raw().toBuffer();
      expect(stored.equals(Buffer.from(raster.data.buffer))).toBe(true);
      // Opened again by us (decodeImage converts through the embedded profile to libvips' sRGB): unchanged.
      const { raster: back } = await decodeImage(png);
      expect(Buffer.from(back.data.buffer, back.data.byteOffset, back.data.byteLength).equals(stored)).toBe(
        true,
      );

      // The same pixels tagged with libvips' v4 sRGB (what the files carried before), converted alike.
      const v4 = await sharp(Buffer.from(raster.data.buffer), {
        raw: { width: raster.w, height: raster.h, channels: 4 },
      })
        .withIccProfile('srgb')
        .png()
        .toBuffer();
      const v4Profile = await libvipsSrgbProfile();
      await withTempFiles({ 'v4.icc': v4Profile }, async (f) => {
        // Back to sRGB (v4): the v2 curve gives every value back within 1/255.
        expect(worstRgb(await convertedBy(png, f['v4.icc']!), 3, raster.data, 4, n)).toBeLessThanOrEqual(1);
      });
      // To another space: through the v2 profile as through the v4 one, within 1/255.
      const viaV2 = await convertedBy(png, A98);
      const viaV4 = await convertedBy(v4, A98);
      expect(worstRgb(viaV2, 3, viaV4, 3, n)).toBeLessThanOrEqual(1);
    });

    it('a PSD read through its embedded profile by psd-tools (Pillow, LittleCMS) keeps its colours', async () => {
      const raster = testComposite();
      const b = new DocBuilder();
      const { buffer } = await encodePsd(b.state([b.pixel('底', raster)]), raster);
      const { pixels } = await readWithPsdTools(buffer, { pixels: true });
      const merged = pixels!.find((p) => p.name === 'merged')!;
      expect(merged.srgb).toBeDefined();
      const step = merged.srgbMode === 'RGBA' ? 4 : 3;
      expect(worstRgb(merged.srgb!, step, raster.data, 4, W * H)).toBeLessThanOrEqual(1);
    });

    it.skipIf(!existsSync(DEFAULT_PROFILE_PATH))(
      'CMYK PSD and JPEG files keep the press profile',
      async () => {
        const raster = testComposite();
        const b = new DocBuilder();
        const cmyk = await convertStateToCmyk(b.state([b.pixel('底', raster)]));
        const { buffer: psd } = await encodePsd(cmyk, raster);
        const jpg = await encodeJpeg(raster, 150, { cmyk: pressProfile() });
        const press = Buffer.from(pressProfile().bytes);
        expect((await profileOf(psd, 'psd')).equals(press)).toBe(true);
        expect((await profileOf(jpg, 'jpg')).equals(press)).toBe(true);
      },
    );
  },
);
