/**
 * Pixels between straight sRGB RGBA and CMYK ink through an ICC profile, with sharp (libvips/LittleCMS).
 *
 * Ink values are bytes, 0 = no ink, 255 = full ink (libvips' and LittleCMS' convention; PSD stores 255 − ink).
 * sharp reads raw input as sRGB only, so CMYK going the other way is wrapped in a minimal uncompressed TIFF that
 * carries the ICC profile, which sharp decodes through that profile. Large images go through in bands of rows,
 * so the TIFF copy stays small.
 */
import { fail } from './errors.js';
import { allocPixels } from './raster.js';
import sharp from './sharp.js';

/** Pixels per band when converting CMYK to RGBA: bounds the TIFF copy (≤ 20 MiB with alpha). */
const BAND_PIXELS = 1 << 22;

/**
 * CMYK ink (and alpha, untouched) of `w × h` straight RGBA pixels: 5 bytes per pixel, C M Y K A. The profile is a
 * path to an ICC file, as sharp takes it.
 */
export async function cmykaFromRgba(
  rgba: Uint8Array | Uint8ClampedArray,
  w: number,
  h: number,
  profilePath: string,
): Promise<Buffer> {
  const input = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  const { data, info } = await sharp(input, {
    raw: { width: w, height: h, channels: 4 },
    limitInputPixels: false,
  })
    .withIccProfile(profilePath)
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if ((info.channels as number) !== 5 || info.width !== w || info.height !== h) {
    fail('internal', `CMYK 分色结果异常：${info.width}×${info.height}×${info.channels}`);
  }
  return data;
}

/** A little-endian baseline TIFF of interleaved 8-bit CMYK (+ unassociated alpha) pixels carrying `icc`. */
export function cmykTiff(pixels: Uint8Array, w: number, h: number, channels: 4 | 5, icc: Uint8Array): Buffer {
  type Entry = readonly [tag: number, type: 3 | 4 | 7, count: number, value: number];
  const SHORT = 3;
  const LONG = 4;
  const UNDEFINED = 7;
  const entryCount = channels === 5 ? 13 : 12;
  const ifdSize = 2 + entryCount * 12 + 4;
  const bitsAt = 8 + ifdSize;
  const iccAt = bitsAt + channels * 2;
  const dataAt = iccAt + icc.length + (icc.length % 2);
  const bytes = w * h * channels;
  if (bytes !== pixels.length)
    fail('internal', `CMYK 像素长度 ${pixels.length} 与 ${w}×${h}×${channels} 不符`);
  const entries: Entry[] = [
    [256, LONG, 1, w],
    [257, LONG, 1, h],
    [258, SHORT, channels, bitsAt],
    [259, SHORT, 1, 1], // no compression
    [262, SHORT, 1, 5], // separated (CMYK)
    [273, LONG, 1, dataAt],
    [277, SHORT, 1, channels],
    [278, LONG, 1, h],
    [279, LONG, 1, bytes],
    [284, SHORT, 1, 1], // interleaved
    [332, SHORT, 1, 1], // ink set: CMYK
    ...(channels === 5 ? [[338, SHORT, 1, 2] as Entry] : []), // unassociated alpha
    [34675, UNDEFINED, icc.length, iccAt],
  ];
  const out = Buffer.allocUnsafe(dataAt + bytes);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(8, 4);
  out.writeUInt16LE(entries.length, 8);
  entries.forEach(([tag, type, count, value], i) => {
    const at = 10 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(count, at + 4);
    // A single SHORT sits in the low bytes of the value field; arrays and the profile are offsets.
    if (type === SHORT && count === 1) out.writeUInt32LE(value & 0xffff, at + 8);
    else out.writeUInt32LE(value, at + 8);
  });
  out.writeUInt32LE(0, 10 + entries.length * 12);
  for (let i = 0; i < channels; i++) out.writeUInt16LE(8, bitsAt + i * 2);
  out.set(icc, iccAt);
  if (icc.length % 2) out[iccAt + icc.length] = 0;
  out.set(pixels, dataAt);
  return out;
}

/**
 * Straight sRGB RGBA (in shared memory, as every document buffer) of interleaved CMYK ink pixels, 4 or 5 (with
 * alpha, kept exactly) bytes per pixel, through the ICC profile `icc`.
 */
export async function rgbaFromCmyk(
  cmyk: Uint8Array,
  w: number,
  h: number,
  channels: 4 | 5,
  icc: Uint8Array,
): Promise<Uint8ClampedArray> {
  const out = allocPixels(w * h * 4);
  if (w <= 0 || h <= 0) return out;
  const rows = Math.max(1, Math.floor(BAND_PIXELS / w));
  for (let y0 = 0; y0 < h; y0 += rows) {
    const bh = Math.min(rows, h - y0);
    const band = cmyk.subarray(y0 * w * channels, (y0 + bh) * w * channels);
    const { data, info } = await sharp(cmykTiff(band, w, bh, channels, icc), { limitInputPixels: false })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4 || info.width !== w || info.height !== bh) {
      fail('internal', `CMYK 转 RGB 结果异常：${info.width}×${info.height}×${info.channels}`);
    }
    const base = y0 * w * 4;
    out.set(data, base);
    if (channels === 5) {
      for (let i = 0, j = 4; i < w * bh; i++, j += 5) out[base + i * 4 + 3] = band[j]!;
    }
  }
  return out;
}
