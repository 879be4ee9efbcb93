/**
 * TIFF, what print shops and scanners exchange, opens and places like the other images: its resolution (exact, as
 * stored), its pixels (ImageMagick writes the files), 16-bit read as 8, a CMYK TIFF as a CMYK document with its
 * inks and the colours ImageMagick's LittleCMS gives through the same profile, and a placed TIFF embedded as
 * itself. What reading changes or leaves out is said in the call's warnings, for every image as for a PSD: more
 * than 8 bits, gray, a profile other than sRGB, the pages after the first, a Photoshop TIFF's layers. A file named
 * .tif that is no TIFF is refused and changes nothing.
 */

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sniffFileType } from '../../src/engine/io/file-type.js';
import { decodeImage } from '../../src/engine/io/image-codec.js';
import { DEFAULT_PROFILE_PATH, iccDescription, pressProfile } from '../../src/engine/press-profile.js';
import { libvipsSrgbProfile, withTempFiles } from '../engine/press-profile-support.js';
import { CONVERT, convertTo } from '../support/imagemagick.js';
import { readWithPsdTools } from '../support/psd-tools.js';
import { call, newSession, ok, refused } from '../support/session.js';

const run = promisify(execFile);

const GHOSTSCRIPT_ICC = '/usr/share/color/icc/ghostscript';
const ADOBE_RGB = `${GHOSTSCRIPT_ICC}/a98.icc`;
const SRGB = `${GHOSTSCRIPT_ICC}/srgb.icc`;
const SGRAY = `${GHOSTSCRIPT_ICC}/sgray.icc`;

/** Two colour blocks, #c83214 and #1e64c8, 40×20. */
const TWO_BLOCKS = [
  ...['-size', '40x20', 'xc:#c83214', '-fill', '#1e64c8', '-draw', 'rectangle 20,0 39,19'],
] as const;

/** The active document's composite pixel at (x, y): R, G, B, A. */
async function pixelAt(s: ReturnType<typeof newSession>, x: number, y: number): Promise<number[]> {
  return s.inspect((tx) => {
    const img = tx.composite(tx.activeDocument().id);
    const i = ((y - img.y) * img.w + (x - img.x)) * 4;
    return [...img.data.subarray(i, i + 4)];
  });
}

const far = (a: readonly number[], b: readonly number[]) =>
  Math.max(...[0, 1, 2].map((c) => Math.abs(a[c]! - b[c]!)));

/**
 * `tiff` (a little-endian classic TIFF) with Photoshop's layers tag (37724, ImageSourceData) in its first IFD, as a
 * TIFF saved by Photoshop with its layers has it: the directory is written again at the end with the entry added.
 * Only the tag's presence is read; its data begins as Photoshop's does.
 */
function withPhotoshopLayers(tiff: Buffer): Buffer {
  const ifd = tiff.readUInt32LE(4);
  const count = tiff.readUInt16LE(ifd);
  const entries = Array.from({ length: count }, (_, i) => tiff.subarray(ifd + 2 + i * 12, ifd + 14 + i * 12));
  const next = tiff.readUInt32LE(ifd + 2 + count * 12);
  const data = Buffer.from('Adobe Photoshop Document Data Block\0', 'latin1');
  const pad = (n: number) => Buffer.alloc(n % 2);
  const dataAt = tiff.length + (tiff.length % 2);
  const dirAt = dataAt + data.length + (data.length % 2);
  const entry = Buffer.alloc(12);
  entry.writeUInt16LE(37724, 0);
  entry.writeUInt16LE(7, 2); // UNDEFINED
  entry.writeUInt32LE(data.length, 4);
  entry.writeUInt32LE(dataAt, 8);
  const sorted = [...entries, entry].sort((a, b) => a.readUInt16LE(0) - b.readUInt16LE(0));
  const head = Buffer.alloc(2);
  head.writeUInt16LE(count + 1, 0);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(next, 0);
  const out = Buffer.concat([tiff, pad(tiff.length), data, pad(data.length), head, ...sorted, tail]);
  out.writeUInt32LE(dirAt, 4);
  return out;
}

describe('TIFF', () => {
  it('opens an RGB TIFF at its resolution with its pixels, and places one at its physical size, embedded as itself', async () => {
    const s = newSession();
    const file = path.join(s.workspace.root, 'scan.tif');
    await run(CONVERT, [
      ...TWO_BLOCKS,
      ...['-density', '300', '-units', 'PixelsPerInch', '-depth', '8', '-compress', 'LZW', file],
    ]);
    const bytes = await s.workspace.read('scan.tif');
    expect(sniffFileType(bytes)).toBe('tiff');
    const opened = await ok(s, 'open_document', { path: 'scan.tif' });
    expect(opened.document).toMatchObject({ width: 40, height: 20, resolution: 300, mode: 'RGB' });
    // An 8-bit RGB TIFF without a profile: nothing was converted, nothing is said.
    expect(opened.warnings).toBeUndefined();
    expect((await ok(s, 'get_pixel_color', { x: 5, y: 5 })).hex).toBe('#c83214');
    expect((await ok(s, 'get_pixel_color', { x: 30, y: 5 })).hex).toBe('#1e64c8');

    await ok(s, 'create_document', { width: 200, height: 100, resolution: 150, name: 'host' });
    const placed = await ok(s, 'place_image', { path: 'scan.tif' });
    expect(placed).toMatchObject({ scale: 50, layer: { bounds: { width: 20, height: 10 } } });
    expect(placed.warnings).toBeUndefined();
    await ok(s, 'save_document_as', { path: 'host.psd' });
    const { dump } = await readWithPsdTools(await s.workspace.read('host.psd'));
    expect(dump.layers.find((l) => l.name === 'scan')?.smart).toMatchObject({
      filename: 'scan.tif',
      size: bytes.length,
    });
  });

  it('reads big-endian TIFF and BigTIFF, 16-bit read as 8 (and said), alpha kept, the resolution as stored', async () => {
    const s = newSession();
    const files = {
      'motorola.tif': ['-define', 'tiff:endian=msb', '-depth', '8', 'tif:OUT'],
      'big.tif': ['-depth', '8', 'TIFF64:OUT'],
      'deep.tif': ['-depth', '16', 'tif:OUT'],
    };
    for (const [name, out] of Object.entries(files)) {
      const tiff = await convertTo(
        [...TWO_BLOCKS, '-density', '72.5', '-units', 'PixelsPerInch', ...out],
        'tif',
      );
      expect(sniffFileType(tiff), name).toBe('tiff');
      await s.workspace.writeAtomic(name, tiff);
      const opened = await ok(s, 'open_document', { path: name });
      // Exact, as the file stores it (sharp's own reading is a whole number: 73).
      expect(opened.document, name).toMatchObject({ width: 40, height: 20, resolution: 72.5 });
      expect(await pixelAt(s, 5, 5), name).toEqual([200, 50, 20, 255]);
      expect(await pixelAt(s, 30, 5), name).toEqual([30, 100, 200, 255]);
      expect(opened.warnings, name).toEqual(
        name === 'deep.tif' ? ['TIFF 为 16 位/通道，已转换为 8 位'] : undefined,
      );
    }
    // A 16-bit TIFF with half-transparent pixels: the alpha kept, as 8 bits (ImageMagick writes 32767 of 65535).
    const alpha = await convertTo(
      ['-size', '8x4', 'xc:rgba(200,50,20,0.5)', '-depth', '16', 'tif:OUT'],
      'tif',
    );
    const decoded = await decodeImage(alpha);
    expect([...decoded.raster.data.subarray(0, 4)]).toEqual([200, 50, 20, 127]);
    // A resolution in no unit is the pixels' aspect ratio, not 300 pixels a millimetre (libvips: 7620 DPI).
    const aspect = await convertTo(
      ['-size', '4x4', 'xc:red', '-density', '300', '-units', 'Undefined', 'tif:OUT'],
      'tif',
    );
    expect(await decodeImage(aspect)).toMatchObject({ dpi: 72, dpiStated: false });
    const perCm = await convertTo(
      ['-size', '4x4', 'xc:red', '-density', '118.11', '-units', 'PixelsPerCentimeter', 'tif:OUT'],
      'tif',
    );
    expect(await decodeImage(perCm)).toMatchObject({ dpi: 300, dpiStated: true });
  });

  it.skipIf(!existsSync(DEFAULT_PROFILE_PATH))(
    'opens a CMYK TIFF as a CMYK document keeping its inks',
    async () => {
      const s = newSession();
      const tiff = await convertTo(
        [
          ...['-size', '10x8', 'xc:cmyk(0,0,0,255)', '-size', '10x8', 'xc:cmyk(255,0,0,0)', '+append'],
          ...['-profile', DEFAULT_PROFILE_PATH, '-depth', '8', 'tif:OUT'],
        ],
        'tif',
      );
      await s.workspace.writeAtomic('press.tif', tiff);
      expect((await ok(s, 'open_document', { path: 'press.tif' })).document).toMatchObject({ mode: 'CMYK' });
      await ok(s, 'save_document_as', { path: 'press.psd' });
      const read = await readWithPsdTools(await s.workspace.read('press.psd'), { pixels: true });
      const layer = read.pixels!.find((p) => p.layer !== null)!;
      expect(layer.mode).toBe('CMYK');
      const inks = (x: number) => [...layer.data.subarray((3 * 20 + x) * 4, (3 * 20 + x) * 4 + 4)];
      expect(inks(2)).toEqual([0, 0, 0, 255]); // K-only black, as the file has it
      expect(inks(15)).toEqual([255, 0, 0, 0]);
    },
  );

  it.skipIf(!existsSync(DEFAULT_PROFILE_PATH))(
    "shows a CMYK TIFF's colours as ImageMagick converts them through the same profile: 8 and 16 bits, tagged or not, with alpha",
    async () => {
      const srgb = await libvipsSrgbProfile();
      const inks = [
        'cmyka(0,0,0,255,0.5)',
        'cmyka(255,0,0,0,1)',
        'cmyka(30,200,120,10,1)',
        'cmyka(0,90,230,0,1)',
      ];
      const blocks = [...inks.flatMap((c) => ['-size', '10x8', `xc:${c}`]), '+append'];
      const cases = [
        { name: 'tagged.tif', args: ['-alpha', 'off', '-profile', DEFAULT_PROFILE_PATH, '-depth', '8'] },
        { name: 'deep.tif', args: ['-alpha', 'off', '-profile', DEFAULT_PROFILE_PATH, '-depth', '16'] },
        { name: 'untagged.tif', args: ['-alpha', 'off', '-depth', '8'] },
        { name: 'alpha.tif', args: ['-profile', DEFAULT_PROFILE_PATH, '-depth', '8'] },
      ];
      for (const { name, args } of cases) {
        const s = newSession();
        const tiff = await convertTo([...blocks, ...args, 'tif:OUT'], 'tif');
        await s.workspace.writeAtomic(name, tiff);
        const opened = await ok(s, 'open_document', { path: name });
        expect(opened.document, name).toMatchObject({ mode: 'CMYK' });
        // ImageMagick (LittleCMS), perceptual, into the sRGB profile sharp's transforms use; an untagged file
        // through the press profile, as we read it.
        const reference = await withTempFiles({ 'in.tif': tiff, 'srgb.icc': srgb }, (f) =>
          convertTo(
            [
              f['in.tif']!,
              ...(name === 'untagged.tif' ? ['-profile', DEFAULT_PROFILE_PATH] : []),
              ...['-intent', 'perceptual', '-profile', f['srgb.icc']!, '-depth', '8', 'rgba:OUT'],
            ],
            'rgba',
          ),
        );
        for (const x of [5, 15, 25, 35]) {
          const ours = await pixelAt(s, x, 4);
          const theirs = [...reference.subarray((4 * 40 + x) * 4, (4 * 40 + x) * 4 + 4)];
          // Within 2 levels: the same transform, another caller.
          expect(far(ours, theirs), `${name} at ${x}: ${ours} vs ${theirs}`).toBeLessThanOrEqual(2);
          expect(ours[3], `${name} alpha at ${x}`).toBe(name === 'alpha.tif' && x === 5 ? 128 : 255);
        }
        const said = opened.warnings as string[] | undefined;
        if (name === 'deep.tif') expect(said).toEqual(['TIFF 为 16 位/通道，已转换为 8 位']);
        else if (name === 'untagged.tif') {
          expect(said).toEqual([
            `CMYK TIFF 没有嵌入 ICC 配置文件，已按当前 CMYK 印刷配置文件“${pressProfile().name}”解释其油墨值`,
          ]);
        } else expect(said, name).toBeUndefined();
      }
    },
    60_000,
  );

  it('says that only the first page of a multi-page TIFF is read, and that a Photoshop TIFF opens without its layers', async () => {
    const s = newSession();
    const pages = await convertTo(
      ['-size', '8x4', 'xc:#c83214', '-size', '6x6', 'xc:#1e64c8', '-depth', '8', 'tif:OUT'],
      'tif',
    );
    await s.workspace.writeAtomic('pages.tif', pages);
    const opened = await ok(s, 'open_document', { path: 'pages.tif' });
    expect(opened.document).toMatchObject({ width: 8, height: 4 });
    expect(await pixelAt(s, 1, 1)).toEqual([200, 50, 20, 255]);
    expect(opened.warnings).toEqual(['TIFF 共 2 页，只读取了第 1 页']);

    const single = await convertTo(['-size', '8x4', 'xc:#c83214', '-depth', '8', 'tif:OUT'], 'tif');
    await s.workspace.writeAtomic('layered.tif', withPhotoshopLayers(single));
    const layered = await ok(s, 'open_document', { path: 'layered.tif' });
    expect(await pixelAt(s, 1, 1)).toEqual([200, 50, 20, 255]);
    expect(layered.warnings).toEqual([
      'TIFF 含 Photoshop 图层：只读取了它的合并图像（一个图层），各图层未读取；需要分层编辑时请在 Photoshop 中将它存储为 PSD',
    ]);
    // Placed, it is the same composite, and the same is said.
    const placed = await ok(s, 'place_image', { path: 'pages.tif' });
    expect(placed.warnings).toEqual(['TIFF 共 2 页，只读取了第 1 页']);
  });

  it('refuses a .tif that is not a TIFF, or a TIFF cut short, changing nothing', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10, name: 'kept' });
    await s.workspace.writeAtomic('fake.tif', Buffer.from('not an image at all'));
    await refused(s, 'open_document', { path: 'fake.tif' }, 'unsupported');
    await refused(s, 'place_image', { path: 'fake.tif' }, 'unsupported');
    const whole = await convertTo(['-size', '64x64', 'xc:#c83214', '-depth', '8', 'tif:OUT'], 'tif');
    await s.workspace.writeAtomic('cut.tif', whole.subarray(0, 64));
    const r = await call(s, 'open_document', { path: 'cut.tif' });
    expect(r.ok).toBe(false);
    expect(s.editor.snapshot.docs.map((d) => d.name)).toEqual(['kept']);
  });
});

describe('what reading an image converts, said as for a PSD', () => {
  it('a 16-bit PNG, a grayscale PNG and an Adobe RGB JPEG each say so; an sRGB PNG or JPEG, tagged or not, says nothing', async () => {
    const s = newSession();
    const gradient = ['-size', '16x8', 'gradient:#c83214-#1e64c8'];
    const files: Record<string, [args: string[], ext: string]> = {
      'deep.png': [[...gradient, '-define', 'png:bit-depth=16', 'png48:OUT'], 'png'],
      'gray.png': [
        [
          '-size',
          '16x8',
          'gradient:gray(20)-gray(230)',
          '-colorspace',
          'gray',
          '-depth',
          '8',
          '-define',
          'png:color-type=0',
          'OUT',
        ],
        'png',
      ],
      'plain.png': [[...gradient, '-depth', '8', 'png24:OUT'], 'png'],
    };
    if (existsSync(ADOBE_RGB) && existsSync(SRGB)) {
      files['adobe.jpg'] = [
        ['-size', '16x8', 'xc:rgb(30,200,60)', '-profile', SRGB, '-profile', ADOBE_RGB, 'OUT'],
        'jpg',
      ];
      files['tagged.jpg'] = [['-size', '16x8', 'xc:rgb(30,200,60)', '-profile', SRGB, 'OUT'], 'jpg'];
    }
    for (const [name, [args, ext]] of Object.entries(files)) {
      await s.workspace.writeAtomic(name, await convertTo(args, ext));
    }
    const said = async (name: string) => (await ok(s, 'open_document', { path: name })).warnings;
    expect(await said('deep.png')).toEqual(['PNG 为 16 位/通道，已转换为 8 位']);
    expect(await said('gray.png')).toEqual(['PNG 为灰度图像，已转换为 RGB 颜色，保存时为 RGB']);
    expect(await said('plain.png')).toBeUndefined();
    if (files['adobe.jpg']) {
      const name = iccDescription(new Uint8Array(readFileSync(ADOBE_RGB)));
      expect(await said('adobe.jpg')).toEqual([
        `JPEG 嵌入的配置文件“${name}”不是 sRGB：颜色已按它转换为 sRGB，保存时嵌入 sRGB 配置文件`,
      ]);
      expect(await said('tagged.jpg')).toBeUndefined();
    }
    // place_image says the same.
    const placed = await ok(s, 'place_image', { path: 'deep.png' });
    expect(placed.warnings).toEqual(['PNG 为 16 位/通道，已转换为 8 位']);

    // And every save says it again, as a PSD's losses are: above all one over the file itself.
    await ok(s, 'switch_document', { doc_name: 'deep' });
    const over = await ok(s, 'save_document_as', { path: 'deep.png' });
    expect(over.warnings).toEqual([
      '已覆盖原文件“deep.png”：打开时未能保留的以下内容已从该文件中丢失：16 位/通道的精度（按 8 位保存）',
    ]);
    await ok(s, 'switch_document', { doc_name: 'gray' });
    const copy = await ok(s, 'save_document_as', { path: 'gray.psd' });
    expect(copy.warnings).toEqual([
      '保存的 PSD“gray.psd”不包含打开“gray.png”时未能保留的以下内容：灰度颜色模式（按 RGB 保存）',
    ]);
    await ok(s, 'switch_document', { doc_name: 'plain' });
    expect((await ok(s, 'save_document_as', { path: 'plain.png' })).warnings).toBeUndefined();
  });

  it.skipIf(!existsSync(SGRAY) || !existsSync(SRGB))(
    "converts a 16-bit gray image through its gray profile, as ImageMagick does (sharp leaves a 16-bit gray's profile unapplied)",
    async () => {
      const png = await convertTo(
        [
          '-size',
          '4x16',
          'gradient:gray(20)-gray(230)',
          '-colorspace',
          'gray',
          '-profile',
          SGRAY,
          '-define',
          'png:bit-depth=16',
          'OUT',
        ],
        'png',
      );
      const decoded = await decodeImage(png);
      const reference = await withTempFiles({ 'in.png': png }, (f) =>
        convertTo([f['in.png']!, '-profile', SRGB, '-depth', '8', 'rgb:OUT'], 'rgb'),
      );
      for (let y = 0; y < 16; y++) {
        const ours = [...decoded.raster.data.subarray(y * 16, y * 16 + 3)];
        const theirs = [...reference.subarray(y * 12, y * 12 + 3)];
        expect(far(ours, theirs), `row ${y}: ${ours} vs ${theirs}`).toBeLessThanOrEqual(2);
      }
      const name = iccDescription(new Uint8Array(readFileSync(SGRAY)));
      expect(decoded.warnings).toEqual([
        'PNG 为 16 位/通道，已转换为 8 位',
        'PNG 为灰度图像，已转换为 RGB 颜色，保存时为 RGB',
        `PNG 嵌入的配置文件“${name}”不是 sRGB：颜色已按它转换为 sRGB，保存时嵌入 sRGB 配置文件`,
      ]);
    },
  );
});
