/**
 * Pixels between straight sRGB RGBA and CMYK ink through an ICC profile, with sharp (libvips/LittleCMS).
 *
 * Ink values are bytes, 0 = no ink, 255 = full ink (libvips' and LittleCMS' convention; PSD stores 255 − ink).
 * sharp reads raw input as sRGB only, so CMYK going the other way — and the RGB or gray pixels of a file tagged
 * with another profile (Adobe RGB, Dot Gain 20 %) — is wrapped in a minimal uncompressed TIFF that carries the
 * ICC profile, which sharp decodes through that profile. Large images go through in bands of rows, so the TIFF
 * copy stays small.
 */
import { fail } from './errors.js';
import { allocPixels } from './raster.js';
import sharp from './sharp.js';

/** Pixels per band when converting to RGBA: bounds the TIFF copy (≤ 20 MiB with alpha). */
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

/** The colour spaces of pixels tagged with an ICC profile here: TIFF photometric interpretation and colour samples. */
const TIFF_SPACES = {
  gray: { photometric: 1, samples: 1 },
  rgb: { photometric: 2, samples: 3 },
  cmyk: { photometric: 5, samples: 4 },
} as const;

export type ProfileSpace = keyof typeof TIFF_SPACES;

/** Interleaved samples: bytes, or 16-bit values (a 32-bit file's linear light, which 8 bits would band). */
type Samples = Uint8Array | Uint8ClampedArray | Uint16Array;

/**
 * A little-endian baseline TIFF of interleaved 8- or 16-bit pixels in `space` (+ unassociated alpha when
 * `alpha`) carrying `icc`: sharp reads raw input as sRGB only, and decodes such a TIFF through its profile.
 */
export function profileTiff(
  pixels: Samples,
  w: number,
  h: number,
  space: ProfileSpace,
  alpha: boolean,
  icc: Uint8Array,
): Buffer {
  const channels = TIFF_SPACES[space].samples + (alpha ? 1 : 0);
  if (w * h * channels !== pixels.length) {
    fail('internal', `像素长度 ${pixels.length} 与 ${w}×${h}×${channels} 不符`);
  }
  const wide = pixels instanceof Uint16Array;
  const { tiff, data } = profileTiffFrame(w, h, space, alpha, wide ? 16 : 8, icc);
  if (wide) {
    const dataAt = data.byteOffset - tiff.byteOffset;
    for (let i = 0; i < pixels.length; i++) tiff.writeUInt16LE(pixels[i]!, dataAt + i * 2);
  } else data.set(pixels);
  return tiff;
}

/**
 * profileTiff's file with its pixel data left to the caller: `data` is the file's pixel bytes (interleaved, 8-bit
 * samples when `bits` is 8), to be written in place, so a large image is not built apart and then copied in.
 */
export function profileTiffFrame(
  w: number,
  h: number,
  space: ProfileSpace,
  alpha: boolean,
  bits: 8 | 16,
  icc: Uint8Array,
): { readonly tiff: Buffer; readonly data: Uint8Array } {
  type Entry = readonly [tag: number, type: 3 | 4 | 7, count: number, value: number];
  const SHORT = 3;
  const LONG = 4;
  const UNDEFINED = 7;
  const { photometric, samples } = TIFF_SPACES[space];
  const channels = samples + (alpha ? 1 : 0);
  const bytes = w * h * channels * (bits / 8);
  const entries: Entry[] = [
    [256, LONG, 1, w],
    [257, LONG, 1, h],
    [258, SHORT, channels, 0], // bits per sample, `bits` each
    [259, SHORT, 1, 1], // no compression
    [262, SHORT, 1, photometric],
    [273, LONG, 1, 0], // strip offset, patched below
    [277, SHORT, 1, channels],
    [278, LONG, 1, h],
    [279, LONG, 1, bytes],
    [284, SHORT, 1, 1], // interleaved
    ...(space === 'cmyk' ? [[332, SHORT, 1, 1] as Entry] : []), // ink set: CMYK
    ...(alpha ? [[338, SHORT, 1, 2] as Entry] : []), // unassociated alpha
    [34675, UNDEFINED, icc.length, 0], // the profile, patched below
  ];
  const ifdSize = 2 + entries.length * 12 + 4;
  const bitsAt = 8 + ifdSize;
  const iccAt = bitsAt + channels * 2;
  const dataAt = iccAt + icc.length + (icc.length % 2);
  const at: Record<number, number> = { 258: bitsAt, 273: dataAt, 34675: iccAt };
  const out = Buffer.allocUnsafe(dataAt + bytes);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(8, 4);
  out.writeUInt16LE(entries.length, 8);
  entries.forEach(([tag, type, count, value], i) => {
    const pos = 10 + i * 12;
    out.writeUInt16LE(tag, pos);
    out.writeUInt16LE(type, pos + 2);
    out.writeUInt32LE(count, pos + 4);
    // Values of up to four bytes sit in the value field (a gray image's bit depths too); the rest are offsets.
    if (tag === 258 && count <= 2) out.writeUInt32LE(count === 1 ? bits : bits * 0x10001, pos + 8);
    else if (type === SHORT && count === 1) out.writeUInt32LE(value & 0xffff, pos + 8);
    else out.writeUInt32LE(at[tag] ?? value, pos + 8);
  });
  out.writeUInt32LE(0, 10 + entries.length * 12);
  for (let i = 0; i < channels; i++) out.writeUInt16LE(bits, bitsAt + i * 2);
  out.set(icc, iccAt);
  if (icc.length % 2) out[iccAt + icc.length] = 0;
  return { tiff: out, data: out.subarray(dataAt) };
}

/** A TIFF of interleaved 8-bit CMYK (+ unassociated alpha) ink pixels carrying `icc`. */
export function cmykTiff(pixels: Uint8Array, w: number, h: number, channels: 4 | 5, icc: Uint8Array): Buffer {
  return profileTiff(pixels, w, h, 'cmyk', channels === 5, icc);
}

/**
 * Straight sRGB RGBA (in shared memory, as every document buffer) of interleaved CMYK ink pixels, 4 or 5 (with
 * alpha, kept exactly) bytes per pixel, through the ICC profile `icc`.
 */
export function rgbaFromCmyk(
  cmyk: Uint8Array,
  w: number,
  h: number,
  channels: 4 | 5,
  icc: Uint8Array,
): Promise<Uint8ClampedArray> {
  return rgbaFromProfile(cmyk, w, h, 'cmyk', channels === 5, icc);
}

/**
 * The alpha of `n` interleaved pixels as bytes (16-bit rounded). A loop, not `Uint8Array.from({ length }, f)`,
 * which V8 runs about five times slower: this reads every pixel of a large CMYK file with transparency.
 */
function bandAlpha(band: Samples, n: number, channels: number): Uint8Array {
  const out = new Uint8Array(n);
  const wide = band instanceof Uint16Array;
  for (let i = 0, k = channels - 1; i < n; i++, k += channels) {
    const a = band[k]!;
    out[i] = wide ? Math.round(a / 257) : a;
  }
  return out;
}

/**
 * Straight sRGB RGBA (in shared memory) of interleaved 8- or 16-bit pixels in `space` (+ alpha, kept exactly, or
 * rounded to 8 bits, when `alpha`) through the ICC profile `icc`, written to `out` — which may be `pixels`
 * themselves (8-bit RGBA), converted in place band by band.
 */
export async function rgbaFromProfile(
  pixels: Samples,
  w: number,
  h: number,
  space: ProfileSpace,
  alpha: boolean,
  icc: Uint8Array,
  out: Uint8ClampedArray = allocPixels(w * h * 4),
): Promise<Uint8ClampedArray> {
  const channels = TIFF_SPACES[space].samples + (alpha ? 1 : 0);
  if (w <= 0 || h <= 0) return out;
  const rows = Math.max(1, Math.floor(BAND_PIXELS / w));
  for (let y0 = 0; y0 < h; y0 += rows) {
    const bh = Math.min(rows, h - y0);
    const band = pixels.subarray(y0 * w * channels, (y0 + bh) * w * channels);
    const tiff = profileTiff(band, w, bh, space, alpha, icc);
    // Read before `out` is written: it may be `pixels`.
    const wide = band instanceof Uint16Array;
    const alphas = alpha ? bandAlpha(band, w * bh, channels) : null;
    // withIccProfile, not toColourspace alone, which leaves an RGB source's profile unapplied (sRGB to sRGB).
    // 16-bit pixels go through LittleCMS at 16 bits and come out 16-bit: scaled to bytes below.
    const { data, info } = await sharp(tiff, { limitInputPixels: false })
      .withIccProfile('srgb')
      .toColourspace(wide ? 'rgb16' : 'srgb')
      .ensureAlpha()
      .raw({ depth: wide ? 'ushort' : 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4 || info.width !== w || info.height !== bh) {
      fail('internal', `颜色转换结果异常：${info.width}×${info.height}×${info.channels}`);
    }
    const base = y0 * w * 4;
    if (wide) {
      // sharp's raw samples are in the machine's byte order; a view needs them 2-byte aligned.
      const aligned = data.byteOffset % 2 === 0 ? data : Buffer.from(data);
      const d16 = new Uint16Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 2);
      for (let i = 0; i < d16.length; i++) out[base + i] = Math.round(d16[i]! / 257);
    } else out.set(data, base);
    if (alphas) for (let i = 0; i < w * bh; i++) out[base + i * 4 + 3] = alphas[i]!;
  }
  return out;
}
