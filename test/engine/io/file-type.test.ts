import { describe, expect, it } from 'vitest';
import { SNIFF_BYTES, sniffFileType } from '../../../src/engine/io/file-type.js';
import sharp from '../../../src/engine/sharp.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('sniffFileType', () => {
  it('tells PNG, JPEG and WebP as sharp writes them, within SNIFF_BYTES', async () => {
    const img = sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } });
    for (const [type, buf] of [
      ['png', await img.clone().png().toBuffer()],
      ['jpg', await img.clone().jpeg().toBuffer()],
      ['webp', await img.clone().webp().toBuffer()],
      ['webp', await img.clone().webp({ lossless: true }).toBuffer()],
    ] as const) {
      expect(sniffFileType(buf.subarray(0, SNIFF_BYTES)), type).toBe(type);
    }
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
});
