import { describe, expect, it } from 'vitest';
import {
  SNIFF_BYTES,
  sniffFileType,
  unreadableByName,
  unreadableFormat,
} from '../../../src/engine/io/file-type.js';
import sharp from '../../../src/engine/sharp.js';
import { convertTo } from '../../support/imagemagick.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('sniffFileType', () => {
  it('tells PNG, JPEG, WebP and AVIF as sharp writes them, within SNIFF_BYTES', async () => {
    const img = sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } });
    for (const [type, buf] of [
      ['png', await img.clone().png().toBuffer()],
      ['jpg', await img.clone().jpeg().toBuffer()],
      ['webp', await img.clone().webp().toBuffer()],
      ['webp', await img.clone().webp({ lossless: true }).toBuffer()],
      ['avif', await img.clone().avif().toBuffer()],
      ['avif', await img.clone().avif({ lossless: true }).toBuffer()],
    ] as const) {
      expect(sniffFileType(buf.subarray(0, SNIFF_BYTES)), type).toBe(type);
    }
  });

  it('tells TIFF in either byte order, and BigTIFF, as sharp and ImageMagick write them', async () => {
    const img = sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } });
    expect(sniffFileType((await img.clone().tiff().toBuffer()).subarray(0, SNIFF_BYTES))).toBe('tiff');
    for (const args of [
      ['tif:OUT'],
      ['-define', 'tiff:endian=msb', 'tif:OUT'],
      ['TIFF64:OUT'],
      ['-define', 'tiff:endian=msb', 'TIFF64:OUT'],
    ]) {
      const tiff = await convertTo(['-size', '4x4', 'xc:#336699', ...args], 'tif');
      expect(sniffFileType(tiff.subarray(0, SNIFF_BYTES)), args.join(' ')).toBe('tiff');
    }
    expect(sniffFileType(bytes('II*\x00\x08\x00\x00\x00'))).toBe('tiff');
    expect(sniffFileType(bytes('MM\x00*\x00\x00\x00\x08'))).toBe('tiff');
    expect(sniffFileType(bytes('II+\x00\x08\x00\x00\x00'))).toBe('tiff');
    expect(sniffFileType(bytes('MM\x00+\x00\x08\x00\x00'))).toBe('tiff');
    // The byte order with another version, or mixed, is no TIFF.
    expect(sniffFileType(bytes('II\x00*\x08\x00\x00\x00'))).toBeNull();
    expect(sniffFileType(bytes('MM*\x00\x00\x00\x00\x08'))).toBeNull();
    expect(sniffFileType(bytes('IM*\x00'))).toBeNull();
    expect(sniffFileType(bytes('II*'))).toBeNull();
  });

  it('tells PSD and PSB by version, and nothing else', () => {
    expect(sniffFileType(bytes('8BPS\x00\x01......'))).toBe('psd');
    expect(sniffFileType(bytes('8BPS\x00\x02......'))).toBe('psd');
    expect(sniffFileType(bytes('8BPS\x00\x03......'))).toBeNull();
    // Other RIFF files (WAV, AVI) are not WebP; a header cut short is nothing.
    expect(sniffFileType(bytes('RIFF\x10\x00\x00\x00WAVEfmt '))).toBeNull();
    expect(sniffFileType(bytes('RIFF\x10\x00\x00\x00AVI LIST'))).toBeNull();
    expect(sniffFileType(bytes('RIFF\x10\x00\x00\x00WEB'))).toBeNull();
    expect(sniffFileType(bytes('GIF89a'))).toBeNull();
    expect(sniffFileType(new Uint8Array(0))).toBeNull();
  });

  it('tells AVIF by its brands, and HEIC (an iPhone photo) as a format named, not read', () => {
    const ftyp = (...brands: string[]) => {
      const body = `ftyp${brands[0]}\x00\x00\x00\x00${brands.slice(1).join('')}`;
      return Buffer.concat([Buffer.from([0, 0, 0, body.length + 4]), bytes(body)]);
    };
    // libavif's, and a HEIF container that lists AVIF among its compatible brands.
    expect(sniffFileType(ftyp('avif', 'mif1', 'miaf'))).toBe('avif');
    expect(sniffFileType(ftyp('mif1', 'avif', 'miaf'))).toBe('avif');
    expect(sniffFileType(ftyp('avis', 'msf1', 'miaf'))).toBe('avif');
    // An iPhone's HEIC, and an MP4, are not read.
    const heic = ftyp('heic', 'mif1', 'heic');
    expect(sniffFileType(heic)).toBeNull();
    expect(unreadableFormat(heic)?.name).toBe('HEIC');
    expect(unreadableFormat(heic)?.hint).toContain('JPEG');
    const mp4 = ftyp('isom', 'iso2', 'mp41');
    expect(sniffFileType(mp4)).toBeNull();
    expect(unreadableFormat(mp4)).toBeNull();
    // A brand past the box's own size is not the file's.
    const short = Buffer.concat([Buffer.from([0, 0, 0, 16]), bytes('ftypmif1\x00\x00\x00\x00avif')]);
    expect(sniffFileType(short)).toBeNull();
    expect(unreadableByName('IMG_0042.HEIC')?.name).toBe('HEIC');
    expect(unreadableByName('photo.avif')).toBeNull();
  });
});
