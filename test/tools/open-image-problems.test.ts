/**
 * What a prepress tester found opening and placing image files, each as a file ImageMagick writes (or one it
 * writes, cut or with a header field changed): a CMYK file embedding an RGB or gray profile, a press profile that
 * cannot be used, a placed image's warnings in a CMYK document and a CMYK file's profile there, sizes past the
 * limits, damaged and Lab files, and a resolution that differs across and down. Every refusal is in Chinese and
 * changes nothing.
 */

import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolError } from '../../src/calls/result.js';
import { EditorError } from '../../src/engine/errors.js';
import {
  DEFAULT_PROFILE_PATH,
  iccColourSpace,
  iccDescription,
  PROFILE_VARIABLE,
  pressProfile,
} from '../../src/engine/press-profile.js';
import sharp from '../../src/engine/sharp.js';
import { convertTo, imageMagickAvailable } from '../support/imagemagick.js';
import { newSession, ok, refused } from '../support/session.js';

const ICC = '/usr/share/color/icc/ghostscript';
const SRGB = `${ICC}/srgb.icc`;
const SGRAY = `${ICC}/sgray.icc`;
const ADOBE_RGB = `${ICC}/a98.icc`;
const OTHER_CMYK = `${ICC}/ps_cmyk.icc`;
const ready =
  imageMagickAvailable() && [DEFAULT_PROFILE_PATH, SRGB, SGRAY, ADOBE_RGB, OTHER_CMYK].every(existsSync);

/** Red as inks (M and Y full), 8×4, with `profile` assigned, not converted to (the image has none before). */
const cmykWith = (profile: string | null, out: string) =>
  convertTo(
    [
      ...['-size', '8x4', 'xc:cmyk(0,255,255,0)', '-depth', '8'],
      ...(profile ? ['-profile', profile] : []),
      out,
    ],
    out.startsWith('tif') ? 'tif' : 'jpg',
  );

/** Nothing but Chinese, digits and punctuation beside the format's name: no libvips words. */
const noEnglish = (text: string) =>
  expect(text.replace(/JPEG|TIFF|PNG|WebP|AVIF|GIF|PSD|RGB|CMYK|Lab|DPI/g, '')).not.toMatch(/[A-Za-z]{3,}/);

const savedEnv = process.env[PROFILE_VARIABLE];
afterEach(() => {
  if (savedEnv === undefined) delete process.env[PROFILE_VARIABLE];
  else process.env[PROFILE_VARIABLE] = savedEnv;
});

describe.skipIf(!ready)('a CMYK file embedding a profile that is not CMYK', () => {
  it('opens with the press profile, says so, fills and saves a CMYK JPEG with the press profile', async () => {
    const press = pressProfile();
    const s = newSession();
    const files = {
      'rgb.jpg': await cmykWith(SRGB, 'jpg:OUT'),
      'rgb.tif': await cmykWith(SRGB, 'tif:OUT'),
      'gray.tif': await cmykWith(SGRAY, 'tif:OUT'),
    };
    for (const [name, bytes] of Object.entries(files)) {
      // As the tester's files are: CMYK pixels, an RGB or gray profile.
      const meta = await sharp(bytes).metadata();
      expect(meta.space, name).toBe('cmyk');
      expect(iccColourSpace(new Uint8Array(meta.icc!)), name).not.toBe('CMYK');
      await s.workspace.writeAtomic(name, bytes);
      const opened = await ok(s, 'open_document', { path: name });
      expect(opened.document, name).toMatchObject({ mode: 'CMYK' });
      const embedded = iccDescription(new Uint8Array(meta.icc!));
      const format = name.endsWith('.jpg') ? 'JPEG' : 'TIFF';
      expect(opened.warnings, name).toEqual([
        `CMYK ${format} 嵌入的配置文件“${embedded}”不是 CMYK 配置文件（色彩空间为 ${name.startsWith('gray') ? 'GRAY' : 'RGB'}），未使用：已按当前 CMYK 印刷配置文件“${press.name}”解释其油墨值`,
      ]);
      // The inks through the press profile: a red, not the inks read as RGB.
      const shown = (await ok(s, 'get_pixel_color', { x: 2, y: 2 })).hex as string;
      const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(shown.slice(i, i + 2), 16));
      expect(r! - Math.max(g!, b!), `${name}: ${shown}`).toBeGreaterThan(100);
      // It failed here with an internal error ("CMYK 分色结果异常：1×1×4").
      await ok(s, 'fill_selection', { color: 'cmyk(0,0,0,100)' });
      const out = name.replace(/\.\w+$/, '-out.jpg');
      await ok(s, 'save_document_as', { path: out });
      const saved = await sharp(await s.workspace.read(out)).metadata();
      expect(saved.space, out).toBe('cmyk');
      expect(Buffer.from(saved.icc!).equals(Buffer.from(press.bytes)), out).toBe(true);
      await ok(s, 'close_document', {});
    }
  });
});

describe.skipIf(!ready)('a CMYK JPEG or TIFF when the press profile cannot be used', () => {
  it('is refused as a CMYK PSD is, with the press profile’s error, instead of opening as RGB', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10, name: 'kept' });
    await s.workspace.writeAtomic('plain.jpg', await cmykWith(null, 'jpg:OUT'));
    await s.workspace.writeAtomic('plain.tif', await cmykWith(null, 'tif:OUT'));
    await s.workspace.writeAtomic('rgb.tif', await cmykWith(SRGB, 'tif:OUT'));
    await s.workspace.writeAtomic('own.tif', await cmykWith(OTHER_CMYK, 'tif:OUT'));
    for (const setting of ['/nonexistent/press.icc', SRGB]) {
      process.env[PROFILE_VARIABLE] = setting;
      let expected: EditorError | undefined;
      try {
        pressProfile();
      } catch (err) {
        expected = err as EditorError;
      }
      expect(expected, setting).toBeInstanceOf(EditorError);
      for (const file of ['plain.jpg', 'plain.tif', 'rgb.tif']) {
        for (const tool of ['open_document', 'place_image']) {
          const err: ToolError = await refused(s, tool, { path: file }, expected!.code);
          expect(err.message, `${setting} ${file} ${tool}`).toBe(expected!.message);
          expect(err.hint).toContain(PROFILE_VARIABLE);
        }
      }
      // A file with a CMYK profile of its own needs no press profile, as a CMYK PSD with one does not.
      const own = await ok(s, 'open_document', { path: 'own.tif' });
      expect(own.document).toMatchObject({ mode: 'CMYK' });
      await ok(s, 'close_document', {});
    }
  });
});

describe.skipIf(!ready)('place_image into a CMYK document', () => {
  it('says what happens to the colours there, and that a CMYK file in another profile has its inks converted', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 40, height: 20, name: 'print' });
    await ok(s, 'convert_to_cmyk', {});
    const gray = ['-size', '8x4', 'gradient:gray(20)-gray(230)', '-colorspace', 'gray', '-depth', '8'];
    await s.workspace.writeAtomic(
      'gray.png',
      await convertTo([...gray, '-define', 'png:color-type=0', 'OUT'], 'png'),
    );
    await s.workspace.writeAtomic(
      'adobe.jpg',
      await convertTo(
        ['-size', '8x4', 'xc:rgb(30,200,60)', '-profile', SRGB, '-profile', ADOBE_RGB, 'OUT'],
        'jpg',
      ),
    );
    await s.workspace.writeAtomic('press.tif', await cmykWith(DEFAULT_PROFILE_PATH, 'tif:OUT'));
    await s.workspace.writeAtomic('other.tif', await cmykWith(OTHER_CMYK, 'tif:OUT'));
    await s.workspace.writeAtomic('untagged.tif', await cmykWith(null, 'tif:OUT'));

    const said = async (file: string) =>
      (await ok(s, 'place_image', { path: file })).warnings as string[] | undefined;
    const adobe = iccDescription(new Uint8Array(readFileSync(ADOBE_RGB)));
    const other = iccDescription(new Uint8Array(readFileSync(OTHER_CMYK)));
    const press = pressProfile().name;
    expect(await said('gray.png')).toEqual([
      'PNG 为灰度图像，已转换为 RGB 颜色，保存时按文档的 CMYK 配置文件分色：灰色由四色油墨组成，不是单一的黑色（K）',
    ]);
    expect(await said('adobe.jpg')).toEqual([
      `JPEG 嵌入的配置文件“${adobe}”不是 sRGB：颜色已按它转换，保存时按文档的 CMYK 配置文件分色`,
    ]);
    expect(await said('press.tif')).toBeUndefined();
    expect(await said('other.tif')).toEqual([
      `置入的“other.tif”为 CMYK 图像，其配置文件“${other}”与文档的 CMYK 配置文件“${press}”不同：颜色已从“${other}”转换为“${press}”，保存时按“${press}”分色，油墨值与原文件不同`,
    ]);
    expect(await said('untagged.tif')).toEqual([
      `CMYK TIFF 没有嵌入 ICC 配置文件，已按当前 CMYK 印刷配置文件“${press}”解释其油墨值`,
    ]);

    // A document in the other file's own profile: the press-profile file is the one converted now.
    await ok(s, 'open_document', { path: 'other.tif' });
    expect(await said('other.tif')).toBeUndefined();
    expect(await said('press.tif')).toEqual([
      `置入的“press.tif”为 CMYK 图像，其配置文件“${press}”与文档的 CMYK 配置文件“${other}”不同：颜色已从“${press}”转换为“${other}”，保存时按“${other}”分色，油墨值与原文件不同`,
    ]);

    // A CMYK PSD placed is said the same way, never as a document keeping its own profile.
    await s.workspace.writeAtomic(
      'other.psd',
      await convertTo(
        [
          ...['-size', '8x4', 'xc:cmyk(0,255,255,0)', '-depth', '8', '-profile', OTHER_CMYK],
          ...['-units', 'PixelsPerInch', '-density', '150', 'psd:OUT'],
        ],
        'psd',
      ),
    );
    await ok(s, 'switch_document', { doc_name: 'print' });
    expect(await said('other.psd')).toEqual([
      `置入的“other.psd”为 CMYK 图像，其配置文件“${other}”与文档的 CMYK 配置文件“${press}”不同：颜色已从“${other}”转换为“${press}”，保存时按“${press}”分色，油墨值与原文件不同`,
    ]);
    // Opened, it is a document of its own, which keeps its profile: that is what is said then.
    const opened = await ok(s, 'open_document', { path: 'other.psd' });
    expect(opened.warnings).toContainEqual(expect.stringMatching(/文档保留“.*”，颜色按它读取/));

    // In an RGB document the open-time words stand.
    await ok(s, 'create_document', { width: 40, height: 20, name: 'screen' });
    expect(await said('gray.png')).toEqual(['PNG 为灰度图像，已转换为 RGB 颜色，保存时为 RGB']);
    expect(await said('other.tif')).toBeUndefined();
  });
});

/** `tiff` (little-endian, classic) with its first IFD's ImageWidth made a LONG of `width`. */
function withTiffWidth(tiff: Buffer, width: number): Buffer {
  const out = Buffer.from(tiff);
  expect(out.toString('latin1', 0, 2)).toBe('II');
  const ifd = out.readUInt32LE(4);
  for (let i = 0; i < out.readUInt16LE(ifd); i++) {
    const at = ifd + 2 + i * 12;
    if (out.readUInt16LE(at) !== 256) continue;
    out.writeUInt16LE(4, at + 2); // LONG
    out.writeUInt32LE(1, at + 4);
    out.writeUInt32LE(width, at + 8);
    return out;
  }
  throw new Error('no ImageWidth');
}

/** `jpeg` with its frame header's width made `width` (ImageMagick's policy refuses writing such sizes). */
function withJpegWidth(jpeg: Buffer, width: number): Buffer {
  const out = Buffer.from(jpeg);
  for (let at = 2; at + 4 < out.length; at += 2 + out.readUInt16BE(at + 2)) {
    if (out[at + 1] === 0xc0 || out[at + 1] === 0xc2) {
      out.writeUInt16BE(width, at + 7);
      return out;
    }
  }
  throw new Error('no SOF');
}

describe.skipIf(!imageMagickAvailable())('an image file past the limits, damaged, or in Lab', () => {
  it('refuses a side past 300,000 px and a JPEG past libjpeg’s 65,500 px by the header, in Chinese', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10, name: 'kept' });
    const tiff = await convertTo(
      ['-size', '16x1', 'xc:#c83214', '-depth', '8', '-compress', 'none', 'tif:OUT'],
      'tif',
    );
    await s.workspace.writeAtomic('wide.tif', withTiffWidth(tiff, 300_001));
    const jpeg = await convertTo(['-size', '16x2', 'xc:#c83214', 'jpg:OUT'], 'jpg');
    await s.workspace.writeAtomic('wide.jpg', withJpegWidth(jpeg, 65_535));
    for (const tool of ['open_document', 'place_image']) {
      const side = await refused(s, tool, { path: 'wide.tif' }, 'out_of_bounds');
      expect(side.message).toBe(
        'TIFF 图像尺寸 300001×1 超过文档上限：每边最多 300,000 像素（PSB 格式的上限），无法读取',
      );
      const jpg = await refused(s, tool, { path: 'wide.jpg' }, 'out_of_bounds');
      expect(jpg.message).toBe('JPEG 图像尺寸 65535×2 超过 JPEG 解码的上限：每边最多 65,500 像素，无法读取');
      noEnglish(`${jpg.message}${jpg.hint}`);
    }
  });

  it('says a TIFF or JPEG cut short is incomplete, and that Lab is not read, with what to do', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10, name: 'kept' });
    const tiff = await convertTo(['-size', '64x64', 'xc:#c83214', '-depth', '8', 'tif:OUT'], 'tif');
    await s.workspace.writeAtomic('cut.tif', tiff.subarray(0, 64));
    await s.workspace.writeAtomic('cut-more.tif', tiff.subarray(0, 2000));
    const jpeg = await convertTo(['-size', '64x64', 'plasma:', '-quality', '90', 'jpg:OUT'], 'jpg');
    await s.workspace.writeAtomic('cut.jpg', jpeg.subarray(0, jpeg.length >> 1));
    for (const depth of ['8', '16']) {
      const lab = ['-size', '8x8', 'xc:#c83214', '-colorspace', 'Lab', '-depth', depth, 'tif:OUT'];
      await s.workspace.writeAtomic(`lab${depth}.tif`, await convertTo(lab, 'tif'));
    }
    for (const tool of ['open_document', 'place_image']) {
      for (const file of ['cut.tif', 'cut-more.tif']) {
        const err = await refused(s, tool, { path: file }, 'io_error');
        expect(err.message).toBe('TIFF 文件不完整或已损坏，无法读取其图像信息');
        expect(err.hint).not.toContain('PNG');
      }
      const cut = await refused(s, tool, { path: 'cut.jpg' }, 'io_error');
      expect(cut.message).toBe('JPEG 文件不完整：图像数据提前结束（文件可能在复制或下载时被截断），无法读取');
      noEnglish(`${cut.message}${cut.hint}`);
      for (const file of ['lab8.tif', 'lab16.tif']) {
        const lab = await refused(s, tool, { path: file }, 'unsupported');
        expect(lab.message, file).toBe('TIFF 的颜色模式为 Lab，不支持读取 Lab 颜色的图像');
        expect(lab.hint).toContain('RGB 或 CMYK');
      }
    }
    // Bytes that are no image at all stay "unrecognised".
    await s.workspace.writeAtomic('fake.tif', Buffer.from('not an image at all'));
    const fake = await refused(s, 'open_document', { path: 'fake.tif' }, 'unsupported');
    expect(fake.message).toContain('无法识别的图像文件');
  });
});

describe.skipIf(!imageMagickAvailable())('a resolution that differs across and down', () => {
  it('is read as the horizontal one, and said; a square one says nothing', async () => {
    const s = newSession();
    for (const [ext, format] of [
      ['tif', 'TIFF'],
      ['jpg', 'JPEG'],
      ['png', 'PNG'],
    ] as const) {
      const args = ['-size', '8x8', 'xc:#c83214', '-depth', '8', '-units', 'PixelsPerInch'];
      await s.workspace.writeAtomic(
        `odd-${ext}.${ext}`,
        await convertTo([...args, '-density', '300x150', 'OUT'], ext),
      );
      await s.workspace.writeAtomic(
        `even-${ext}.${ext}`,
        await convertTo([...args, '-density', '300', 'OUT'], ext),
      );
      const odd = await ok(s, 'open_document', { path: `odd-${ext}.${ext}` });
      expect(odd.document, ext).toMatchObject({ resolution: 300 });
      expect(odd.warnings, ext).toEqual([
        `${format} 的水平分辨率 300 DPI 与垂直分辨率 150 DPI 不同（像素不是正方形）：已按水平分辨率 300 DPI 读取，像素未缩放`,
      ]);
      const even = await ok(s, 'open_document', { path: `even-${ext}.${ext}` });
      expect(even.warnings, ext).toBeUndefined();
    }
  });
});
