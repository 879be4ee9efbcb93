/**
 * TIFF, what print shops and scanners exchange, opens and places like the other images: its resolution, its
 * pixels (ImageMagick writes the files), a CMYK TIFF as a CMYK document with its inks, and a placed TIFF embedded
 * as itself. A file named .tif that is no TIFF is refused and changes nothing.
 */

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sniffFileType } from '../../src/engine/io/file-type.js';
import { DEFAULT_PROFILE_PATH } from '../../src/engine/press-profile.js';
import { CONVERT, convertTo } from '../support/imagemagick.js';
import { readWithPsdTools } from '../support/psd-tools.js';
import { call, newSession, ok } from '../support/session.js';

const run = promisify(execFile);

describe('TIFF', () => {
  it('opens an RGB TIFF at its resolution with its pixels, and places one at its physical size, embedded as itself', async () => {
    const s = newSession();
    const file = path.join(s.workspace.root, 'scan.tif');
    await run(CONVERT, [
      '-size',
      '40x20',
      'xc:#c83214',
      '-fill',
      '#1e64c8',
      '-draw',
      'rectangle 20,0 39,19',
      '-density',
      '300',
      '-units',
      'PixelsPerInch',
      '-compress',
      'LZW',
      file,
    ]);
    const bytes = await s.workspace.read('scan.tif');
    expect(sniffFileType(bytes)).toBe('tiff');
    const opened = await ok(s, 'open_document', { path: 'scan.tif' });
    expect(opened.document).toMatchObject({ width: 40, height: 20, resolution: 300, mode: 'RGB' });
    expect((await ok(s, 'get_pixel_color', { x: 5, y: 5 })).hex).toBe('#c83214');
    expect((await ok(s, 'get_pixel_color', { x: 30, y: 5 })).hex).toBe('#1e64c8');

    await ok(s, 'create_document', { width: 200, height: 100, resolution: 150, name: 'host' });
    const placed = await ok(s, 'place_image', { path: 'scan.tif' });
    expect(placed).toMatchObject({ scale: 50, layer: { bounds: { width: 20, height: 10 } } });
    await ok(s, 'save_document_as', { path: 'host.psd' });
    const { dump } = await readWithPsdTools(await s.workspace.read('host.psd'));
    expect(dump.layers.find((l) => l.name === 'scan')?.smart).toMatchObject({
      filename: 'scan.tif',
      size: bytes.length,
    });
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

  it('refuses a .tif that is not a TIFF, changing nothing', async () => {
    const s = newSession();
    await s.workspace.writeAtomic('fake.tif', Buffer.from('not an image at all'));
    const before = s.editor.snapshot;
    const r = await call(s, 'open_document', { path: 'fake.tif' });
    expect(r.ok).toBe(false);
    expect(s.editor.snapshot).toBe(before);
  });
});
