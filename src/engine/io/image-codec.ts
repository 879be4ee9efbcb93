/**
 * PNG and JPEG encoding and decoding with sharp (engine.md §2.1). Rasters are straight RGBA8 in sRGB; the DPI and
 * the sRGB profile (ICC v2, rgb-profile.ts) are written into the file (PNG pHYs and iCCP, JPEG JFIF density and
 * APP2) so other programs print at the document's resolution and in its colours, not in their working space's.
 */
import type { Metadata, Sharp } from 'sharp';
import { HEIC } from '../../registry/file-formats.js';
import { cmykTiff, rgbaFromCmyk } from '../cmyk-pixels.js';
import { MAX_DOCUMENT_PIXELS } from '../document-limits.js';
import { EditorError } from '../errors.js';
import { reservePixels } from '../memory-budget.js';
import type { Raster } from '../model.js';
import { type PressProfile, pressProfile } from '../press-profile.js';
import { sharePixels } from '../raster.js';
import { type InkSource, inksOf, separateComposite } from '../raster-inks.js';
import sharp from '../sharp.js';
import { srgbProfilePath } from './rgb-profile.js';

export interface JpegOptions {
  /** 1..100, default 90. */
  readonly quality?: number;
  /** Write a real CMYK JPEG through this profile (the document's: press-profile.ts), which is embedded once. */
  readonly cmyk?: PressProfile;
  /** For a CMYK JPEG: the layers whose kept inks the pixels showing them take (raster-inks.ts). */
  readonly inkSources?: readonly InkSource[];
}

export interface DecodedImage {
  /** At 0,0, covering the whole image. */
  readonly raster: Raster;
  /** Pixels per inch from the file, 72 when it has none. */
  readonly dpi: number;
  /** Whether the file records a resolution (a placed image keeps its physical size only then). */
  readonly dpiStated: boolean;
  /**
   * A CMYK file's profile (its own, else the press profile): its inks are kept with the raster (`raster.inks`),
   * and the pixels are those inks through this profile, as a CMYK PSD's are.
   */
  readonly cmykProfile?: Uint8Array;
}

const DEFAULT_DPI = 72;
/**
 * libvips (sharp, and what is built on it) writes a pHYs of 1 pixel per millimetre into every PNG whose image
 * had no resolution: read as 25.4 DPI, it would not be the author's, so a placed image takes it as none.
 */
const LIBVIPS_DPI = 25.4;

/** Formats decodeImage accepts (sharp's `metadata().format` names; `heif` with AV1 inside is AVIF). */
const RASTER_FORMATS: ReadonlySet<string> = new Set(['png', 'jpeg', 'webp', 'heif', 'tiff', 'gif']);

/** A decoded image becomes a document: the document pixel limit (also sharp's default input limit). */
const MAX_INPUT_PIXELS = MAX_DOCUMENT_PIXELS;

function checkRaster(raster: Raster): void {
  if (!(raster.w > 0 && raster.h > 0)) {
    throw new EditorError('invalid_state', `图像尺寸为 ${raster.w}×${raster.h}，没有可导出的像素`);
  }
  if (
    !Number.isInteger(raster.w) ||
    !Number.isInteger(raster.h) ||
    raster.data.length !== raster.w * raster.h * 4
  ) {
    throw new EditorError(
      'invalid_arguments',
      `像素数据长度 ${raster.data.length} 与尺寸 ${raster.w}×${raster.h} 不符（应为 RGBA，每像素 4 字节）`,
    );
  }
}

function checkDpi(dpi: number): void {
  if (!Number.isFinite(dpi) || dpi <= 0) {
    throw new EditorError('invalid_arguments', `分辨率 ${dpi} 无效，必须是大于 0 的数（DPI）`);
  }
}

function rawInput(raster: Raster): Sharp {
  const buf = Buffer.from(raster.data.buffer, raster.data.byteOffset, raster.data.byteLength);
  // Our own pixels: no input pixel limit (a 9000×18000 marker is within it, larger PSB canvases are not).
  return sharp(buf, { raw: { width: raster.w, height: raster.h, channels: 4 }, limitInputPixels: false });
}

function encodeFailure(format: string, err: unknown): EditorError {
  return new EditorError(
    'io_error',
    `${format} 编码失败：${err instanceof Error ? err.message : String(err)}`,
  );
}

/** Lossless PNG with alpha, density = `dpi`, tagged sRGB. */
export async function encodePng(raster: Raster, dpi: number): Promise<Buffer> {
  checkRaster(raster);
  checkDpi(dpi);
  try {
    return await rawInput(raster)
      .withIccProfile(srgbProfilePath())
      .withDensity(dpi)
      .png({ compressionLevel: 6, adaptiveFiltering: false })
      .toBuffer();
  } catch (err) {
    throw encodeFailure('PNG', err);
  }
}

/**
 * Baseline JPEG, flattened over white (JPEG has no alpha), density = `dpi`, tagged sRGB. With `cmyk` the pixels go
 * through sRGB → CMYK with the press profile, which is embedded in the file (once, in APP2 segments).
 */
export async function encodeJpeg(raster: Raster, dpi: number, opts: JpegOptions = {}): Promise<Buffer> {
  checkRaster(raster);
  checkDpi(dpi);
  const quality = opts.quality ?? 90;
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) {
    throw new EditorError('invalid_arguments', `JPEG 质量 ${quality} 无效，必须是 1 到 100 的整数`);
  }
  const profile = opts.cmyk;
  try {
    const img = profile
      ? await cmykInput(raster, profile, opts.inkSources ?? [])
      : rawInput(raster)
          .flatten({ background: { r: 255, g: 255, b: 255 } })
          .withIccProfile(srgbProfilePath());
    return await img
      .withDensity(dpi)
      .jpeg({ quality, chromaSubsampling: quality >= 90 ? '4:4:4' : '4:2:0' })
      .toBuffer();
  } catch (err) {
    throw encodeFailure('JPEG', err);
  }
}

/** Rows separated at a time for a CMYK JPEG: the flattened band's copies stay small. */
const JPEG_BAND_ROWS = 256;

/**
 * The raster flattened over white and separated here rather than by sharp, so that pixels showing a layer's kept
 * inks take them (raster-inks.ts); sharp then writes the inks as they are, with the profile embedded.
 */
async function cmykInput(
  raster: Raster,
  profile: PressProfile,
  sources: readonly InkSource[],
): Promise<Sharp> {
  const { w, h, data } = raster;
  const cmyk = Buffer.allocUnsafe(w * h * 4);
  for (let y0 = 0; y0 < h; y0 += JPEG_BAND_ROWS) {
    const bh = Math.min(JPEG_BAND_ROWS, h - y0);
    const band = new Uint8Array(data.subarray(y0 * w * 4, (y0 + bh) * w * 4));
    for (let i = 0; i < band.length; i += 4) {
      const a = band[i + 3]!;
      if (a === 255) continue;
      for (let c = 0; c < 3; c++) band[i + c] = Math.round((band[i + c]! * a + 255 * (255 - a)) / 255);
      band[i + 3] = 255;
    }
    const cmyka = await separateComposite(band, raster.x, raster.y + y0, w, bh, profile, sources);
    for (let p = 0, o = y0 * w * 4; p < w * bh; p++, o += 4) {
      cmyk[o] = cmyka[p * 5]!;
      cmyk[o + 1] = cmyka[p * 5 + 1]!;
      cmyk[o + 2] = cmyka[p * 5 + 2]!;
      cmyk[o + 3] = cmyka[p * 5 + 3]!;
    }
  }
  return sharp(cmykTiff(cmyk, w, h, 4, profile.bytes), { limitInputPixels: false })
    .pipelineColourspace('cmyk')
    .toColourspace('cmyk')
    .keepIccProfile();
}

/**
 * Rounds a density read from a file. A whole number within 0.05 is what was meant (PNG stores pixels per metre, so
 * 150 DPI comes back as 150.01). Otherwise one decimal when it is within half of `step`, the spacing of the values
 * the file can store (PNG: 1 px/m = 0.0254 DPI, so 72.5 DPI is stored as 2854 px/m and comes back as 72.49: the
 * file cannot tell 72.49 from 72.5, and a designer types 72.5); else two decimals.
 */
function cleanDpi(density: number | undefined, step = 0): number {
  // Under 1 DPI is a writer's placeholder, not a resolution (as in psd.ts).
  if (density === undefined || !Number.isFinite(density) || density < 1) return DEFAULT_DPI;
  const nearest = Math.round(density);
  if (Math.abs(density - nearest) < 0.05) return nearest;
  const tenth = Math.round(density * 10) / 10;
  if (Math.abs(density - tenth) < step / 2) return tenth;
  return Math.round(density * 100) / 100;
}

/**
 * A resolution as a file stores it: pixels per inch, and the spacing of the values it can store when they are
 * finer than a tenth of a DPI (cleanDpi); 0 when the value is taken as it is.
 */
interface StoredDensity {
  readonly dpi: number;
  readonly step: number;
}

const INCHES_PER_METRE = 0.0254;
const CM_PER_INCH = 2.54;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG's pHYs in pixels per inch, when its unit is the metre (unit 0 gives the pixels' aspect ratio only). */
function pngDensity(buf: Buffer): StoredDensity | undefined {
  if (buf.length < 8 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  // Chunks: length, type, data, CRC. pHYs comes before the first IDAT.
  for (let at = 8; at + 8 <= buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT' || type === 'IEND') return undefined;
    if (type === 'pHYs' && length >= 9 && at + 17 <= buf.length) {
      const perMetre = buf.readUInt32BE(at + 8);
      return buf[at + 16] === 1 ? { dpi: perMetre * INCHES_PER_METRE, step: INCHES_PER_METRE } : undefined;
    }
    at += 12 + length;
  }
  return undefined;
}

/** A JPEG's JFIF (APP0) density in pixels per inch: units 1 is per inch, 2 per centimetre, 0 an aspect ratio only. */
function jfifDensity(buf: Buffer): StoredDensity | undefined {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return undefined;
  for (let at = 2; at + 4 <= buf.length; ) {
    if (buf[at] !== 0xff) return undefined;
    const marker = buf[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    // Start of scan or end of image: the headers are over.
    if (marker === 0xda || marker === 0xd9) return undefined;
    const length = buf.readUInt16BE(at + 2);
    if (marker === 0xe0 && length >= 14 && at + 2 + length <= buf.length) {
      const seg = buf.subarray(at + 4, at + 2 + length);
      if (seg.toString('latin1', 0, 5) === 'JFIF\0') {
        const units = seg[7];
        const density = seg.readUInt16BE(8);
        // Exact as they are (no rounding to one decimal: 28 per cm is 71.12 DPI, not 71.1).
        if (units === 1) return { dpi: density, step: 0 };
        if (units === 2) return { dpi: density * CM_PER_INCH, step: 0 };
        return undefined;
      }
    }
    at += 2 + length;
  }
  return undefined;
}

/**
 * EXIF's XResolution in pixels per inch (ResolutionUnit 2, the default, is the inch; 3 the centimetre; 1 no unit,
 * an aspect ratio only). `exif` is the block sharp gives: the TIFF structure, after `Exif\0\0` in a JPEG.
 */
function exifDensity(exif: Buffer | undefined): StoredDensity | undefined {
  if (!exif) return undefined;
  const tiff = exif.toString('latin1', 0, 6) === 'Exif\0\0' ? exif.subarray(6) : exif;
  if (tiff.length < 8) return undefined;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return undefined;
  const le = order === 'II';
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  if (u16(2) !== 42) return undefined;
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  const count = u16(ifd);
  let resolution: number | undefined;
  let unit = 2;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) break;
    const tag = u16(entry);
    const type = u16(entry + 2);
    if (tag === 0x011a && type === 5) {
      // RATIONAL: two LONGs, always elsewhere (8 bytes do not fit the entry).
      const at = u32(entry + 8);
      if (at + 8 > tiff.length) continue;
      const den = u32(at + 4);
      if (den > 0) resolution = u32(at) / den;
    } else if (tag === 0x0128 && type === 3) {
      unit = u16(entry + 8);
    }
  }
  if (resolution === undefined) return undefined;
  if (unit === 2) return { dpi: resolution, step: 0 };
  if (unit === 3) return { dpi: resolution * CM_PER_INCH, step: 0 };
  return undefined;
}

/**
 * The resolution a PNG or JPEG records, read from the file; null when it records none (or only an aspect ratio),
 * undefined for other formats and unreadable headers (sharp's `density` is taken then). sharp's is a whole number,
 * absent at or under 1 px/mm (25.4 DPI: a 10 DPI billboard opened at 72) and, from a pHYs in no unit, the
 * aspect ratio read as pixels per millimetre (100:100 opened at 2540 DPI).
 * - PNG: pHYs, its own field. EXIF (eXIf), which sharp writes beside it with the exact value, is taken when it
 *   agrees with pHYs (would be stored as the same pixels per metre), or when pHYs gives no resolution.
 * - JPEG: EXIF, then JFIF, in the order libvips (sharp) reads them.
 */
function fileDensity(buf: Buffer, meta: Metadata): StoredDensity | null | undefined {
  if (meta.format !== 'png' && meta.format !== 'jpeg') return undefined;
  try {
    const exif = exifDensity(meta.exif);
    if (meta.format === 'jpeg') return exif ?? jfifDensity(buf) ?? null;
    const phys = pngDensity(buf);
    if (!phys || phys.dpi < 1) return exif ?? phys ?? null;
    const perMetre = (d: StoredDensity) => Math.round(d.dpi / INCHES_PER_METRE);
    return exif && perMetre(exif) === perMetre(phys) ? exif : phys;
  } catch {
    // A malformed header (a length past the end): sharp's reading stands.
    return undefined;
  }
}

/**
 * Decodes a PNG, JPEG, WebP, AVIF, TIFF or GIF (first frame) into a straight RGBA raster at 0,0 in sRGB.
 * EXIF orientation is applied; CMYK and other colour spaces are converted with the embedded (or default) profile.
 */
export async function decodeImage(buf: Buffer | Uint8Array): Promise<DecodedImage> {
  let meta: Metadata;
  try {
    // The header only: the size is checked below against the documents' limit, with our own message.
    meta = await sharp(buf, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new EditorError(
      'unsupported',
      `无法识别的图像文件：${err instanceof Error ? err.message : String(err)}`,
      {
        hint: '支持 PNG、JPEG 等常见格式',
      },
    );
  }
  if (meta.format === 'heif' && meta.compression !== 'av1') {
    // HEIC: HEVC inside, which the sharp build has no decoder for.
    throw new EditorError('unsupported', `${HEIC.what}无法读取`, { hint: HEIC.hint });
  }
  if (!meta.format || !RASTER_FORMATS.has(meta.format)) {
    // SVG and PDF are excluded on purpose: their renderers can pull in files from outside the workspace.
    throw new EditorError('unsupported', `不支持的图像格式“${meta.format ?? '未知'}”`, {
      hint: '支持 PNG、JPEG、WebP、AVIF、TIFF、GIF',
    });
  }
  if ((meta.width ?? 0) * (meta.height ?? 0) > MAX_INPUT_PIXELS) {
    throw new EditorError(
      'out_of_bounds',
      `图像尺寸 ${meta.width}×${meta.height} 超过文档上限（宽×高最多 ${MAX_INPUT_PIXELS.toLocaleString('en-US')} 像素，约 2.68 亿），无法打开`,
      { hint: '请先缩小图像再打开' },
    );
  }
  const stored = fileDensity(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength), meta);
  const dpi = stored === undefined ? cleanDpi(meta.density) : cleanDpi(stored?.dpi, stored?.step);
  const dpiStated =
    stored === undefined
      ? meta.density !== undefined && meta.density >= 1
      : stored !== null && !(meta.format === 'png' && Math.abs(stored.dpi - LIBVIPS_DPI) < 1e-6);
  const icc = meta.space === 'cmyk' && !meta.hasAlpha ? cmykProfileOf(meta) : undefined;
  if (icc) return { ...(await decodeCmyk(buf, meta, icc)), dpi, dpiStated };
  // sharp decodes into ordinary memory, copied into shared memory after (charged then by allocPixels).
  reservePixels((meta.width ?? 0) * (meta.height ?? 0) * 4, '解码图像');
  try {
    let img = sharp(buf).autoOrient();
    // Through the embedded profile into sRGB: toColourspace alone leaves a 16-bit image's profile unapplied
    // (a 16-bit Adobe RGB green came out as (117,252,76)). An untagged file is sRGB already, and libvips
    // converts an untagged 16-bit TIFF wrongly that way (#c83214 came out as #da1800).
    if (meta.icc) img = img.withIccProfile('srgb');
    const { data, info } = await img
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) {
      throw new Error(`解码结果为 ${info.channels} 通道`);
    }
    const pixels = sharePixels(data); // into shared memory, as every document buffer (raster.ts)
    return { raster: { x: 0, y: 0, w: info.width, h: info.height, data: pixels }, dpi, dpiStated };
  } catch (err) {
    throw new EditorError('io_error', `图像解码失败：${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The profile a CMYK file's inks are read with: its own, else the press profile (none usable: undefined). */
function cmykProfileOf(meta: Metadata): Uint8Array | undefined {
  if (meta.icc) return new Uint8Array(meta.icc);
  try {
    return pressProfile().bytes;
  } catch {
    return undefined; // sharp's own CMYK default then converts it, and the inks are not kept
  }
}

/**
 * A CMYK JPEG or TIFF: its inks as stored (libvips undoes Adobe's inverted JPEG inks), kept with the raster, and
 * the pixels those inks through the file's profile (the press profile when it has none), with the same transform
 * a CMYK PSD is read with, so that saving the untouched pixels writes the file's inks back.
 */
async function decodeCmyk(
  buf: Buffer | Uint8Array,
  meta: Metadata,
  icc: Uint8Array,
): Promise<{ raster: Raster; cmykProfile: Uint8Array }> {
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  // The inks, and the pixels made from them.
  reservePixels(w * h * 9, '解码 CMYK 图像');
  let inks: Buffer;
  try {
    inks = await sharp(buf)
      .autoOrient()
      .pipelineColourspace('cmyk')
      .toColourspace('cmyk')
      .raw({ depth: 'uchar' })
      .toBuffer();
  } catch (err) {
    throw new EditorError('io_error', `图像解码失败：${err instanceof Error ? err.message : String(err)}`);
  }
  if (inks.length !== w * h * 4) {
    throw new EditorError('io_error', `CMYK 图像解码结果异常（${inks.length} 字节，${w}×${h}）`);
  }
  // EXIF orientation 5–8 swaps the sides.
  const turned = (meta.orientation ?? 1) >= 5;
  const ow = turned ? h : w;
  const oh = turned ? w : h;
  const cmyka = new Uint8Array(ow * oh * 5);
  for (let i = 0, j = 0; i < inks.length; i += 4, j += 5) {
    cmyka[j] = inks[i]!;
    cmyka[j + 1] = inks[i + 1]!;
    cmyka[j + 2] = inks[i + 2]!;
    cmyka[j + 3] = inks[i + 3]!;
    cmyka[j + 4] = 255;
  }
  const data = await rgbaFromCmyk(cmyka, ow, oh, 5, icc);
  return {
    raster: { x: 0, y: 0, w: ow, h: oh, data, inks: inksOf(cmyka, ow, oh, data, icc) },
    cmykProfile: icc,
  };
}

/** An image in a tool result: encoded bytes as base64, as every surface passes it on. */
export interface ImageOut {
  readonly mime: 'image/png' | 'image/jpeg';
  readonly base64: string;
  /** What the image shows, for surfaces that caption it. */
  readonly caption?: string;
  /** The caption in English, for a surface that shows English (the studio's English mode). */
  readonly captionEn?: string;
  /**
   * The same picture with the words drawn into it in English (same mime), for such a surface; absent when the
   * picture has no words. Models and MCP clients get `base64`, the language of the tools' descriptions.
   */
  readonly base64En?: string;
}
