import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { EditorError } from '../../../src/engine/errors.js';
import { decodeImage, encodeJpeg, encodePng } from '../../../src/engine/io/image-codec.js';
import type { Raster } from '../../../src/engine/model.js';
import { pressProfile } from '../../../src/engine/press-profile.js';
import {
  convertTo,
  identify,
  identifyInfo,
  imageMagickAvailable,
  pixelsOf,
} from '../../support/imagemagick.js';
import { tempDir } from '../../support/session.js';

const im = imageMagickAvailable() ? describe : describe.skip;

/** A gradient with a semi-transparent right half and a fully transparent column. */
function testRaster(w = 37, h = 23): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      data[i] = (x * 255) / (w - 1);
      data[i + 1] = (y * 255) / (h - 1);
      data[i + 2] = 128;
      data[i + 3] = x === 0 ? 0 : x < w / 2 ? 255 : 100;
    }
  }
  return { x: 0, y: 0, w, h, data };
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(EditorError);
  await expect(p).rejects.toMatchObject({ code });
}

im('image codec, checked with ImageMagick', () => {
  it('PNG: size, 150 DPI (ImageMagick reports pixels per centimetre), alpha kept exactly', async () => {
    const r = testRaster();
    const png = await encodePng(r, 150);
    const info = await identifyInfo(png, 'png');
    expect(info.width).toBe(37);
    expect(info.height).toBe(23);
    expect(info.units).toBe('PixelsPerCentimeter');
    expect(info.dpiX).toBeCloseTo(150, 1);
    expect(info.dpiY).toBeCloseTo(150, 1);
    expect(info.alpha).toBe('True');
    expect(info.channels).toBe('srgba');
    // Tagged sRGB: untagged, Photoshop and RIPs take the numbers in their working space (Adobe RGB in prepress).
    expect(await identify(png, 'png', '%[icc:description]')).toBe('sRGB');
    const px = await pixelsOf(png, 'png');
    // Lossless: every channel of every pixel with alpha > 0, and alpha itself everywhere.
    for (let i = 0; i < r.data.length; i += 4) {
      expect(px.data[i + 3]).toBe(r.data[i + 3]);
      if (r.data[i + 3]! > 0) {
        expect([px.data[i], px.data[i + 1], px.data[i + 2]]).toEqual([
          r.data[i],
          r.data[i + 1],
          r.data[i + 2],
        ]);
      }
    }
  });

  it('JPEG: size, 300 DPI in pixels per inch, flattened over white, 3 channels', async () => {
    const w = 16;
    const h = 16;
    const data = new Uint8ClampedArray(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      data[i * 4] = 200;
      data[i * 4 + 1] = 0;
      data[i * 4 + 2] = 0;
      data[i * 4 + 3] = i < (w * h) / 2 ? 0 : 255; // top half transparent
    }
    const jpg = await encodeJpeg({ x: 0, y: 0, w, h, data }, 300, { quality: 95 });
    const info = await identifyInfo(jpg, 'jpg');
    expect([info.width, info.height]).toEqual([16, 16]);
    expect(info.units).toBe('PixelsPerInch');
    expect(info.dpiX).toBe(300);
    expect(info.dpiY).toBe(300);
    expect(info.colorspace).toBe('sRGB');
    expect(await identify(jpg, 'jpg', '%[icc:description]')).toBe('sRGB');
    const px = await pixelsOf(jpg, 'jpg');
    const at = (x: number, y: number) => Array.from(px.data.subarray((y * w + x) * 4, (y * w + x) * 4 + 3));
    for (const v of at(8, 2)) expect(v).toBeGreaterThan(245); // transparent → white
    const red = at(8, 13);
    expect(Math.abs(red[0]! - 200)).toBeLessThan(8);
    expect(red[1]!).toBeLessThan(12);
  });

  it('JPEG CMYK: real CMYK colourspace with an embedded profile and the density', async () => {
    const jpg = await encodeJpeg(testRaster(), 150, { cmyk: pressProfile() });
    const info = await identifyInfo(jpg, 'jpg');
    expect(info.colorspace).toBe('CMYK');
    expect(info.dpiX).toBe(150);
    const profile = await identify(jpg, 'jpg', '%[profile:icc]');
    expect(profile.length).toBeGreaterThan(0);
    // Reads back as RGB through the profile.
    const back = await decodeImage(jpg);
    expect(back.raster.w).toBe(37);
    expect(back.raster.data.length).toBe(37 * 23 * 4);
  });

  it('decodeImage: PNG and JPEG written by ImageMagick, density and alpha', async () => {
    const png = await convertTo(
      ['-size', '5x4', 'xc:rgba(255,0,0,0.5)', '-units', 'PixelsPerInch', '-density', '200', 'png32:OUT'],
      'png',
    );
    const a = await decodeImage(png);
    expect([a.raster.x, a.raster.y, a.raster.w, a.raster.h]).toEqual([0, 0, 5, 4]);
    expect(a.dpi).toBe(200);
    expect(Array.from(a.raster.data.subarray(0, 3))).toEqual([255, 0, 0]);
    expect(Math.abs(a.raster.data[3]! - 127.5)).toBeLessThan(1); // ImageMagick rounds 0.5 × 255 down

    const jpg = await convertTo(
      ['-size', '6x3', 'xc:#0000ff', '-units', 'PixelsPerInch', '-density', '96', 'OUT'],
      'jpg',
    );
    const b = await decodeImage(jpg);
    expect([b.raster.w, b.raster.h, b.dpi]).toEqual([6, 3, 96]);
    expect(b.raster.data[3]).toBe(255); // alpha added
    expect(b.raster.data[2]).toBeGreaterThan(240);

    const grey = await convertTo(['-size', '3x3', 'xc:gray50', '-depth', '16', 'OUT'], 'png');
    const c = await decodeImage(grey);
    expect(c.raster.data.length).toBe(3 * 3 * 4);
    expect(Math.abs(c.raster.data[0]! - 128)).toBeLessThanOrEqual(1);
    expect(c.raster.data[0]).toBe(c.raster.data[1]);
    expect(c.dpi).toBe(72); // no density in the file
  });

  it('round-trips our own PNG exactly, with its DPI', async () => {
    const r = testRaster();
    const back = await decodeImage(await encodePng(r, 150));
    expect(back.dpi).toBe(150);
    for (let i = 0; i < r.data.length; i += 4) {
      expect(back.raster.data[i + 3]).toBe(r.data[i + 3]);
      if (r.data[i + 3]! > 0) expect(back.raster.data[i]).toBe(r.data[i]);
    }
  });
});

describe('image codec argument checks', () => {
  it('rejects empty rasters, bad DPI and bad quality', async () => {
    const empty: Raster = { x: 0, y: 0, w: 0, h: 10, data: new Uint8ClampedArray(0) };
    await rejectsWith(encodePng(empty, 72), 'invalid_state');
    await rejectsWith(encodeJpeg({ ...empty, w: 10, h: 0 }, 72), 'invalid_state');
    await rejectsWith(encodePng(testRaster(), 0), 'invalid_arguments');
    await rejectsWith(encodePng(testRaster(), Number.NaN), 'invalid_arguments');
    await rejectsWith(encodeJpeg(testRaster(), 72, { quality: 0 }), 'invalid_arguments');
    await rejectsWith(
      encodePng({ x: 0, y: 0, w: 2, h: 2, data: new Uint8ClampedArray(3) }, 72),
      'invalid_arguments',
    );
  });

  it("refuses an image over the documents' pixel limit by its header, naming the limit", async () => {
    // A PNG that says it is 100000 × 100000 (10 Gpx) with almost no data: a decompression bomb's header.
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
      const out = Buffer.alloc(12 + data.length);
      out.writeUInt32BE(data.length, 0);
      body.copy(out, 4);
      out.writeUInt32BE(crc32(body), 8 + data.length);
      return out;
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(100_000, 0);
    ihdr.writeUInt32BE(100_000, 4);
    ihdr.set([8, 6, 0, 0, 0], 8);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.alloc(16))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    const err = await decodeImage(png).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'out_of_bounds', message: expect.stringContaining('100000×100000') });
    expect((err as Error).message).toContain('268,402,689');
  });

  it.skipIf(!imageMagickAvailable())('applies an embedded profile at 16 bits as at 8', async () => {
    // Pure green tagged Adobe RGB (1998), by ImageMagick at 16 and 8 bits per channel; ImageMagick itself reads
    // both back as sRGB (0,255,0) within a step or so.
    const dir = tempDir('atelier-icc-');
    const a98 = '/usr/share/color/icc/ghostscript/a98.icc';
    const srgb = '/usr/share/color/icc/ghostscript/srgb.icc';
    for (const depth of ['16', '8']) {
      const file = path.join(dir, `adobe${depth}.png`);
      execFileSync('/usr/bin/convert', [
        '-size',
        '8x8',
        'xc:rgb(0,255,0)',
        '-depth',
        depth,
        '-profile',
        srgb,
        '-profile',
        a98,
        file,
      ]);
      const { raster } = await decodeImage(readFileSync(file));
      const [r, g, b] = raster.data.subarray(0, 3);
      expect(
        Math.max(Math.abs(r! - 0), Math.abs(g! - 255), Math.abs(b! - 0)),
        `${depth} bit: ${[r, g, b]}`,
      ).toBeLessThanOrEqual(12);
    }
  });

  it('rejects bytes that are not an image, and SVG', async () => {
    await rejectsWith(decodeImage(Buffer.from('这不是图片')), 'unsupported');
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>';
    await rejectsWith(decodeImage(Buffer.from(svg)), 'unsupported');
  });
});

describe('decodeImage: the resolution the file records', () => {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const phys = (perUnit: number, unit: number) => {
    const data = Buffer.alloc(9);
    data.writeUInt32BE(perUnit, 0);
    data.writeUInt32BE(perUnit, 4);
    data[8] = unit;
    return chunk('pHYs', data);
  };
  /** A 2×2 grey PNG with `extra` chunks before its pixels. */
  const png = (...extra: Buffer[]) => {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(2, 0);
    ihdr.writeUInt32BE(2, 4);
    ihdr.set([8, 0, 0, 0, 0], 8);
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      ...extra,
      chunk('IDAT', deflateSync(Buffer.from([0, 128, 128, 0, 128, 128]))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
  };
  /** EXIF's TIFF structure (little-endian): XResolution num/den and, unless undefined, ResolutionUnit. */
  const exif = (num: number, den: number, unit?: number) => {
    const entries = unit === undefined ? 1 : 2;
    const ifd = 8;
    const rational = ifd + 2 + entries * 12 + 4;
    const out = Buffer.alloc(rational + 8);
    out.write('II', 0, 'latin1');
    out.writeUInt16LE(42, 2);
    out.writeUInt32LE(ifd, 4);
    out.writeUInt16LE(entries, ifd);
    out.writeUInt16LE(0x011a, ifd + 2); // XResolution, RATIONAL, 1, at `rational`
    out.writeUInt16LE(5, ifd + 4);
    out.writeUInt32LE(1, ifd + 6);
    out.writeUInt32LE(rational, ifd + 10);
    if (unit !== undefined) {
      out.writeUInt16LE(0x0128, ifd + 14); // ResolutionUnit, SHORT, 1, inline
      out.writeUInt16LE(3, ifd + 16);
      out.writeUInt32LE(1, ifd + 18);
      out.writeUInt16LE(unit, ifd + 22);
    }
    out.writeUInt32LE(num, rational);
    out.writeUInt32LE(den, rational + 4);
    return out;
  };
  const segment = (marker: number, data: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(data.length + 2, 2);
    return Buffer.concat([head, data]);
  };
  const jfif = (units: number, density: number) => {
    const data = Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, units, 0, 0, 0, 0, 0, 0]);
    data.writeUInt16BE(density, 8);
    data.writeUInt16BE(density, 10);
    return segment(0xe0, data);
  };
  const app1 = (tiff: Buffer) => segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]));
  /** A 2×2 JPEG with `segments` (and no others) after its SOI. */
  const jpeg = async (...segments: Buffer[]) => {
    const base = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#808080' } })
      .jpeg()
      .toBuffer();
    // Past sharp's own APPn segments, if any.
    let at = 2;
    while (base[at] === 0xff && base[at + 1]! >= 0xe0 && base[at + 1]! <= 0xef)
      at += 2 + base.readUInt16BE(at + 2);
    return Buffer.concat([base.subarray(0, 2), ...segments, base.subarray(at)]);
  };
  const dpiOf = async (buf: Buffer) => (await decodeImage(buf)).dpi;

  it('PNG: pHYs in pixels per metre at any resolution from 1 DPI; no unit, or under 1 DPI, is no resolution', async () => {
    expect(await dpiOf(png(phys(394, 1)))).toBe(10); // 10.0076
    expect(await dpiOf(png(phys(40, 1)))).toBe(1); // 1.016
    expect(await dpiOf(png(phys(2854, 1)))).toBe(72.5); // 72.49: 72.5 is what is stored as 2854 px/m
    expect(await dpiOf(png(phys(2844, 1)))).toBe(72.24); // 72.2376: no one-decimal value stores as 2844
    expect(await dpiOf(png(phys(20, 1)))).toBe(72); // 0.5 DPI: a placeholder
    expect(await dpiOf(png(phys(100, 0)))).toBe(72); // an aspect ratio (sharp read it as 2540 DPI)
    expect(await dpiOf(png())).toBe(72);
  });

  it('PNG: eXIf gives the exact value where it agrees with pHYs, pHYs wins where not, eXIf alone counts', async () => {
    const exif725 = chunk('eXIf', exif(72500, 1000, 2));
    expect(await dpiOf(png(phys(2854, 1), exif725))).toBe(72.5);
    expect(await dpiOf(png(phys(11811, 1), exif725))).toBe(300);
    expect(await dpiOf(png(chunk('eXIf', exif(10, 1))))).toBe(10);
    expect(await dpiOf(png(phys(1, 0), chunk('eXIf', exif(10, 1, 3))))).toBe(25.4);
  });

  it('JPEG: JFIF in dots per inch or per centimetre, 0 being an aspect ratio; EXIF first, as libvips reads', async () => {
    expect(await dpiOf(await jpeg(jfif(1, 10)))).toBe(10);
    expect(await dpiOf(await jpeg(jfif(2, 10)))).toBe(25.4);
    expect(await dpiOf(await jpeg(jfif(2, 28)))).toBe(71.12);
    expect(await dpiOf(await jpeg(jfif(1, 0)))).toBe(72);
    expect(await dpiOf(await jpeg(jfif(0, 100)))).toBe(72);
    expect(await dpiOf(await jpeg(jfif(1, 300), app1(exif(20, 1, 2))))).toBe(20);
    expect(await dpiOf(await jpeg(jfif(1, 300), app1(exif(20, 1, 1))))).toBe(300); // EXIF without a unit
    expect(await dpiOf(await jpeg(app1(exif(254, 10, 3))))).toBe(64.52); // 25.4 per cm
    expect(await dpiOf(await jpeg(app1(exif(145, 2))))).toBe(72.5);
    expect(await dpiOf(await jpeg(app1(exif(1, 0))))).toBe(72); // no denominator
  });
});

describe('JPEG Huffman tables', () => {
  /** The code-length counts of the file's first DC table (class 0, id 0), from its DHT segment. */
  function dcCounts(jpeg: Buffer): number[] {
    for (let at = 2; at + 4 < jpeg.length; ) {
      const marker = jpeg[at + 1]!;
      const length = jpeg.readUInt16BE(at + 2);
      if (marker === 0xc4 && jpeg[at + 4] === 0x00) return [...jpeg.subarray(at + 5, at + 21)];
      if (marker === 0xda) break;
      at += 2 + length;
    }
    throw new Error('no DC luminance table');
  }
  /** JPEG's example tables (ITU T.81 Annex K.3), which libjpeg writes when it does not fit them to the image. */
  const STANDARD_DC = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
  const flat = (w: number, h: number): Raster => ({
    x: 0,
    y: 0,
    w,
    h,
    data: new Uint8ClampedArray(w * h * 4).fill(200),
  });

  it('are fitted to a small image, and standard past 16 Mpx, where fitting holds every coefficient in memory', async () => {
    expect(dcCounts(await encodeJpeg(flat(64, 64), 72))).not.toEqual(STANDARD_DC);
    expect(dcCounts(await encodeJpeg(flat(4001, 4000), 72))).toEqual(STANDARD_DC);
  });
});
