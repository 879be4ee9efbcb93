/**
 * PNG and JPEG encoding and decoding with sharp (engine.md §2.1). Rasters are straight RGBA8 in sRGB; the DPI and
 * the sRGB profile (ICC v2, rgb-profile.ts) are written into the file (PNG pHYs and iCCP, JPEG JFIF density and
 * APP2) so other programs print at the document's resolution and in its colours, not in their working space's.
 */
import type { Metadata, Sharp } from 'sharp';
import { HEIC, READ_FORMATS } from '../../registry/file-formats.js';
import { profileTiffFrame, rgbaFromCmyk } from '../cmyk-pixels.js';
import { checkImageSize } from '../document-limits.js';
import { EditorError } from '../errors.js';
import { reservePixels } from '../memory-budget.js';
import type { Raster } from '../model.js';
import { iccColourSpace, iccDescription, type PressProfile, pressProfile } from '../press-profile.js';
import { sharePixels } from '../raster.js';
import { type InkSource, inksOf, separateComposite } from '../raster-inks.js';
import sharp from '../sharp.js';
import { sniffFileType } from './file-type.js';
import { type PlacedInto, type SourceProfile, sourceProfile, srgbProfilePath } from './rgb-profile.js';

export interface JpegOptions {
  /** 1..100, default 90. */
  readonly quality?: number;
  /** Write a real CMYK JPEG through this profile (the document's: press-profile.ts), which is embedded once. */
  readonly cmyk?: PressProfile;
  /** For a CMYK JPEG: the layers whose kept inks the pixels showing them take (raster-inks.ts). */
  readonly inkSources?: readonly InkSource[];
}

export interface DecodeOptions {
  /**
   * The mode of the document the image is placed into; absent when it is opened as a document of its own. The
   * warnings say what happens to its colours there (a gray image placed into a CMYK document is not saved as RGB).
   */
  readonly into?: PlacedInto;
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
  /**
   * What reading changed or left out, to be passed on in Chinese as a PSD's are (psd.ts): more than 8 bits a
   * channel read as 8, gray read as RGB, a profile other than sRGB converted to sRGB, a CMYK file without a CMYK
   * profile read with the press profile, the pages after a TIFF's first and a Photoshop TIFF's layers not read, a
   * vertical resolution other than the horizontal one. None for an 8-bit RGB file, untagged or tagged sRGB.
   */
  readonly warnings: readonly string[];
}

const DEFAULT_DPI = 72;
/**
 * libvips (sharp, and what is built on it) writes a pHYs of 1 pixel per millimetre into every PNG whose image
 * had no resolution, and 25.4 pixels per inch into every such TIFF (a float: 25.4000006): read as 25.4 DPI, it
 * would not be the author's, so a placed image takes it as none.
 */
const LIBVIPS_DPI = 25.4;

/** Formats decodeImage accepts (sharp's `metadata().format` names; `heif` with AV1 inside is AVIF). */
const RASTER_FORMATS: ReadonlySet<string> = new Set(['png', 'jpeg', 'webp', 'heif', 'tiff', 'gif']);

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
 * Huffman tables fitted to the image (a few per cent smaller files) make libjpeg hold every DCT coefficient of
 * the whole image before it writes a byte: a 15000² export peaked 2.6 GB above its pixels with them, nothing
 * without. Past this many pixels (about 100 MB of coefficients) the standard tables are used.
 */
const OPTIMISE_CODING_MAX_PIXELS = 16_000_000;

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
      .jpeg({
        quality,
        chromaSubsampling: quality >= 90 ? '4:4:4' : '4:2:0',
        optimiseCoding: raster.w * raster.h <= OPTIMISE_CODING_MAX_PIXELS,
      })
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
  // The inks are written straight into the TIFF sharp reads: one image-sized buffer, not two.
  const { tiff, data: cmyk } = profileTiffFrame(w, h, 'cmyk', false, 8, profile.bytes);
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
  return sharp(tiff, { limitInputPixels: false })
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
  /** The vertical resolution in pixels per inch, when the file stores one apart (`dpi` is the horizontal). */
  readonly ydpi?: number;
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
      const ydpi = buf.readUInt32BE(at + 12) * INCHES_PER_METRE;
      return buf[at + 16] === 1
        ? { dpi: perMetre * INCHES_PER_METRE, step: INCHES_PER_METRE, ydpi }
        : undefined;
    }
    at += 12 + length;
  }
  return undefined;
}

/**
 * The first of a JPEG's header segments (those before its first scan) for which `take`, given the marker and the
 * segment's data, gives something; undefined when none does or the bytes are no JPEG.
 */
function jpegHeader<T>(buf: Buffer, take: (marker: number, seg: Buffer) => T | undefined): T | undefined {
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
    if (at + 2 + length <= buf.length) {
      const found = take(marker, buf.subarray(at + 4, at + 2 + length));
      if (found !== undefined) return found;
    }
    at += 2 + length;
  }
  return undefined;
}

/** A JPEG's JFIF (APP0) density in pixels per inch: units 1 is per inch, 2 per centimetre, 0 an aspect ratio only. */
function jfifDensity(buf: Buffer): StoredDensity | undefined {
  return (
    jpegHeader(buf, (marker, seg): StoredDensity | undefined | null => {
      if (marker !== 0xe0 || seg.length < 12 || seg.toString('latin1', 0, 5) !== 'JFIF\0') return undefined;
      const units = seg[7];
      const density = seg.readUInt16BE(8);
      const vertical = seg.readUInt16BE(10);
      // Exact as they are (no rounding to one decimal: 28 per cm is 71.12 DPI, not 71.1).
      if (units === 1) return { dpi: density, step: 0, ydpi: vertical };
      if (units === 2) return { dpi: density * CM_PER_INCH, step: 0, ydpi: vertical * CM_PER_INCH };
      return null; // the JFIF segment, stating no resolution
    }) ?? undefined
  );
}

/** A JPEG's size as its frame header (SOF0–SOF15, not DHT, JPG or DAC) states it. */
function jpegFrameSize(buf: Buffer): { w: number; h: number } | undefined {
  try {
    return jpegHeader(buf, (marker, seg) =>
      marker >= 0xc0 &&
      marker <= 0xcf &&
      marker !== 0xc4 &&
      marker !== 0xc8 &&
      marker !== 0xcc &&
      seg.length >= 5
        ? { h: seg.readUInt16BE(1), w: seg.readUInt16BE(3) }
        : undefined,
    );
  } catch {
    return undefined; // a length past the end: libvips reads the header
  }
}

/** One IFD entry of a TIFF: its field type, its count of values, and where the values are (inline or elsewhere). */
interface TiffEntry {
  readonly type: number;
  readonly count: number;
  readonly at: number;
}

/** A TIFF structure's image file directories (IFDs), each its entries by tag, and a reader of their values. */
interface TiffDirectories {
  readonly ifds: readonly ReadonlyMap<number, TiffEntry>[];
  /** The `i`-th value of an entry of an integer type or RATIONAL; undefined past the end of the data. */
  value(e: TiffEntry, i?: number): number | undefined;
}

/** Bytes per value of the TIFF field types read here (BYTE, ASCII, SHORT, LONG, RATIONAL, UNDEFINED, LONG8). */
const TIFF_TYPE_SIZE: Readonly<Record<number, number>> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 16: 8 };

/**
 * The first `max` IFDs of a TIFF structure, classic (`II*\0`, `MM\0*`) or BigTIFF (`II+\0`, `MM\0+`: 8-byte
 * offsets and counts); undefined when `buf` is none. Only the directories are read, never the pixels: a chain
 * that loops or runs past the end stops there.
 */
function tiffDirectories(buf: Buffer, max: number): TiffDirectories | undefined {
  if (buf.length < 8) return undefined;
  const order = buf.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return undefined;
  const le = order === 'II';
  const u16 = (at: number) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (at: number) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const u64 = (at: number) => Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at));
  const version = u16(2);
  const big = version === 43 && buf.length >= 16 && u16(4) === 8;
  if (version !== 42 && !big) return undefined;
  // An offset or a count: 4 bytes in a classic TIFF, 8 in a BigTIFF (whose IFDs count their entries in 8 too).
  const word = big ? u64 : u32;
  const wordSize = big ? 8 : 4;
  const countSize = big ? 8 : 2;
  const entrySize = big ? 20 : 12;
  const ifds: Map<number, TiffEntry>[] = [];
  const seen = new Set<number>();
  for (let ifd = word(big ? 8 : 4); ifd > 0 && ifds.length < max && !seen.has(ifd); ) {
    seen.add(ifd);
    if (ifd + countSize > buf.length) break;
    const count = big ? u64(ifd) : u16(ifd);
    const first = ifd + countSize;
    const entries = new Map<number, TiffEntry>();
    for (let i = 0; i < count && first + (i + 1) * entrySize <= buf.length; i++) {
      const at = first + i * entrySize;
      const type = u16(at + 2);
      const n = word(at + 4);
      // Values that fit in the entry's last field are there, others where it points.
      const inline = (TIFF_TYPE_SIZE[type] ?? Number.POSITIVE_INFINITY) * n <= wordSize;
      entries.set(u16(at), { type, count: n, at: inline ? at + 4 + wordSize : word(at + 4 + wordSize) });
    }
    ifds.push(entries);
    const next = first + count * entrySize;
    if (next + wordSize > buf.length) break;
    ifd = word(next);
  }
  const value = (e: TiffEntry, i = 0): number | undefined => {
    const size = TIFF_TYPE_SIZE[e.type];
    const at = e.at + i * (size ?? 0);
    if (size === undefined || i >= e.count || at + size > buf.length) return undefined;
    switch (e.type) {
      case 1:
        return buf[at];
      case 3:
        return u16(at);
      case 4:
        return u32(at);
      case 16:
        return u64(at);
      case 5: {
        const den = u32(at + 4);
        return den > 0 ? u32(at) / den : undefined;
      }
      default:
        return undefined;
    }
  };
  return { ifds, value };
}

const TIFF_PHOTOMETRIC = 262;
/** PhotometricInterpretation's CIELab, ICCLab and ITULab: a Lab TIFF. */
const TIFF_LAB = new Set([8, 9, 10]);
const TIFF_X_RESOLUTION = 282;
const TIFF_Y_RESOLUTION = 283;
const TIFF_RESOLUTION_UNIT = 296;
const TIFF_NEW_SUBFILE_TYPE = 254;
/** Photoshop's layers in a TIFF ("ImageSourceData", Adobe's TIFF technical note 2): the IFD's image is the composite. */
const TIFF_IMAGE_SOURCE_DATA = 37724;

/**
 * The first IFD's XResolution in pixels per inch (ResolutionUnit 2, the default, is the inch; 3 the centimetre;
 * 1 no unit, an aspect ratio only); null when it records none. Exact as stored (a RATIONAL).
 */
function tiffDensity(tiff: TiffDirectories): StoredDensity | null {
  const ifd = tiff.ifds[0];
  const rational = (tag: number) => {
    const e = ifd?.get(tag);
    return e?.type === 5 ? tiff.value(e) : undefined;
  };
  const resolution = rational(TIFF_X_RESOLUTION);
  if (resolution === undefined || !(resolution > 0)) return null;
  const unitEntry = ifd?.get(TIFF_RESOLUTION_UNIT);
  const unit = unitEntry ? tiff.value(unitEntry) : 2;
  const factor = unit === 2 ? 1 : unit === 3 ? CM_PER_INCH : undefined;
  if (factor === undefined) return null;
  const y = rational(TIFF_Y_RESOLUTION);
  return { dpi: resolution * factor, step: 0, ...(y !== undefined ? { ydpi: y * factor } : {}) };
}

/** EXIF's XResolution in pixels per inch: `exif` is the block sharp gives, the TIFF structure (after `Exif\0\0` in a JPEG). */
function exifDensity(exif: Buffer | undefined): StoredDensity | undefined {
  if (!exif) return undefined;
  const tiff = tiffDirectories(exif.toString('latin1', 0, 6) === 'Exif\0\0' ? exif.subarray(6) : exif, 1);
  return (tiff && tiffDensity(tiff)) ?? undefined;
}

/** The most IFDs a TIFF's pages are counted in: a directory is a few hundred bytes, a page far more. */
const MAX_TIFF_PAGES = 100_000;

/**
 * What a TIFF's directories say beside its pixels: its pages (reduced-resolution previews, NewSubfileType bit 0,
 * which some writers add after a page, are not pages: libvips counts them too), and whether the first page holds
 * Photoshop's layers.
 */
function tiffContents(buf: Buffer): { pages: number; photoshopLayers: boolean } | undefined {
  const tiff = tiffDirectories(buf, MAX_TIFF_PAGES);
  if (!tiff || tiff.ifds.length === 0) return undefined;
  const pages = tiff.ifds.filter((ifd) => {
    const kind = ifd.get(TIFF_NEW_SUBFILE_TYPE);
    return ((kind ? tiff.value(kind) : 0) ?? 0) % 2 === 0;
  }).length;
  return { pages, photoshopLayers: tiff.ifds[0]!.has(TIFF_IMAGE_SOURCE_DATA) };
}

/**
 * The resolution a PNG, JPEG or TIFF records, read from the file; null when it records none (or only an aspect
 * ratio), undefined for other formats and unreadable headers (sharp's `density` is taken then). sharp's is a whole
 * number (a 72.5 DPI TIFF opened at 73), absent at or under 1 px/mm (25.4 DPI: a 10 DPI billboard opened at 72)
 * and, from a pHYs or a TIFF in no unit, the aspect ratio read as pixels per millimetre (100:100 opened at 2540 DPI).
 * - PNG: pHYs, its own field. EXIF (eXIf), which sharp writes beside it with the exact value, is taken when it
 *   agrees with pHYs (would be stored as the same pixels per metre), or when pHYs gives no resolution.
 * - JPEG: EXIF, then JFIF, in the order libvips (sharp) reads them.
 * - TIFF: its first IFD's XResolution and ResolutionUnit.
 */
function fileDensity(buf: Buffer, meta: Metadata): StoredDensity | null | undefined {
  if (meta.format !== 'png' && meta.format !== 'jpeg' && meta.format !== 'tiff') return undefined;
  try {
    if (meta.format === 'tiff') {
      const tiff = tiffDirectories(buf, 1);
      return tiff ? tiffDensity(tiff) : undefined;
    }
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

/** What every format refusal suggests: the formats decodeImage reads. */
const READABLE_HINT = '支持 PNG、JPEG、WebP、AVIF、TIFF、GIF';
const DAMAGED_HINT = '请用原来的软件重新导出该文件，或改用完整、未损坏的副本';

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Decodes a PNG, JPEG, WebP, AVIF, TIFF or GIF (first frame) into a straight RGBA raster at 0,0 in sRGB.
 * EXIF orientation is applied; CMYK and other colour spaces are converted with the embedded (or default) profile.
 */
export async function decodeImage(buf: Buffer | Uint8Array, opts: DecodeOptions = {}): Promise<DecodedImage> {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  refuseByHeader(bytes);
  let meta: Metadata;
  try {
    // The header only: the size is checked below against the documents' limit, with our own message.
    meta = await sharp(buf, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw unreadable(bytes, err);
  }
  if (meta.format === 'heif' && meta.compression !== 'av1') {
    // HEIC: HEVC inside, which the sharp build has no decoder for.
    throw new EditorError('unsupported', `${HEIC.what}无法读取`, { hint: HEIC.hint });
  }
  if (!meta.format || !RASTER_FORMATS.has(meta.format)) {
    // SVG and PDF are excluded on purpose: their renderers can pull in files from outside the workspace.
    throw new EditorError('unsupported', `不支持的图像格式“${meta.format ?? '未知'}”`, {
      hint: READABLE_HINT,
    });
  }
  const name = formatName(meta.format);
  if (meta.space === 'lab' || meta.space === 'labs') throw labRefusal(name);
  checkImageSize(meta.width ?? 0, meta.height ?? 0, `${name} 图像`);
  const stored = fileDensity(bytes, meta);
  const dpi = stored === undefined ? cleanDpi(meta.density) : cleanDpi(stored?.dpi, stored?.step);
  const dpiStated =
    stored === undefined
      ? meta.density !== undefined && meta.density >= 1
      : stored !== null &&
        !((meta.format === 'png' || meta.format === 'tiff') && Math.abs(stored.dpi - LIBVIPS_DPI) < 1e-5);
  const cmyk = meta.space === 'cmyk';
  const { warnings, profile } = await conversions(bytes, meta, name, cmyk, opts.into);
  const icc = cmyk ? cmykProfileOf(meta, name, warnings) : undefined;
  if (dpiStated && stored?.ydpi !== undefined)
    warnNonSquare(dpi, cleanDpi(stored.ydpi, stored.step), name, warnings);
  if (icc) return { ...(await decodeCmyk(buf, meta, icc, name)), dpi, dpiStated, warnings };
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
    let pixels = sharePixels(data); // into shared memory, as every document buffer (raster.ts)
    // sharp leaves a 16-bit gray image's profile unapplied (its import skips GREY16: a Dot Gain gray's 75 stayed
    // 75, where LittleCMS gives 93): converted here from the 8-bit gray, as a 16-bit gray PSD's is.
    if (meta.space === 'grey16' && profile) pixels = await profile.convert(pixels, info.width, info.height);
    return { raster: { x: 0, y: 0, w: info.width, h: info.height, data: pixels }, dpi, dpiStated, warnings };
  } catch (err) {
    throw undecodable(name, err);
  }
}

/**
 * The largest side libjpeg decodes (its JPEG_MAX_DIMENSION), below what a JPEG header can state (65,535): past
 * it libvips fails while reading the header, in English.
 */
const JPEG_MAX_SIDE = 65_500;

/**
 * What a file's header says that libvips would refuse in its own words or read wrongly, said before it is asked:
 * a Lab TIFF (8-bit: "bad labq format", which read as a damaged file), a JPEG too large to decode or to open.
 */
function refuseByHeader(buf: Buffer): void {
  const kind = sniffFileType(buf);
  if (kind === 'tiff') {
    let photometric: number | undefined;
    try {
      const tiff = tiffDirectories(buf, 1);
      const entry = tiff?.ifds[0]?.get(TIFF_PHOTOMETRIC);
      photometric = entry && tiff?.value(entry);
    } catch {
      photometric = undefined; // a directory past the end: left to libvips, which says the file is damaged
    }
    if (photometric !== undefined && TIFF_LAB.has(photometric)) throw labRefusal('TIFF');
  }
  const size = kind === 'jpg' ? jpegFrameSize(buf) : undefined;
  if (size) {
    checkImageSize(size.w, size.h, 'JPEG 图像');
    if (size.w > JPEG_MAX_SIDE || size.h > JPEG_MAX_SIDE) {
      throw new EditorError(
        'out_of_bounds',
        `JPEG 图像尺寸 ${size.w}×${size.h} 超过 JPEG 解码的上限：每边最多 ${JPEG_MAX_SIDE.toLocaleString('en-US')} 像素，无法读取`,
        {
          hint: '请在其他软件中把它存储为 TIFF 或 PNG（或先缩小）再打开或置入',
          details: { width: size.w, height: size.h },
        },
      );
    }
  }
}

function labRefusal(name: string): EditorError {
  return new EditorError('unsupported', `${name} 的颜色模式为 Lab，不支持读取 Lab 颜色的图像`, {
    hint: '请先在 Photoshop 等软件中把它转换为 RGB 或 CMYK 颜色模式（图像 › 模式），再打开或置入',
  });
}

/**
 * Why sharp could not read a file's header: one whose first bytes are a format read here is damaged (most often
 * cut short in a copy or a download), anything else is not an image it reads. libvips' words go in the details.
 */
function unreadable(buf: Buffer, err: unknown): EditorError {
  const kind = sniffFileType(buf);
  const format = kind === 'psd' ? undefined : READ_FORMATS.find((f) => f.id === kind);
  if (format) {
    return new EditorError('io_error', `${format.name} 文件不完整或已损坏，无法读取其图像信息`, {
      hint: DAMAGED_HINT,
      details: { reason: reasonOf(err) },
    });
  }
  return new EditorError('unsupported', '无法识别的图像文件：文件内容不是支持的图像格式', {
    hint: READABLE_HINT,
    details: { reason: reasonOf(err) },
  });
}

/** libvips' words for data that stops before the image does (libjpeg, libtiff, libspng, libwebp). */
const CUT_SHORT =
  /premature end|truncat|unexpected end|end of (file|data|stream)|read error|not enough data/i;

/** A header read but pixels that cannot be decoded: said in Chinese, cut short or damaged, libvips' words apart. */
function undecodable(name: string, err: unknown): EditorError {
  if (err instanceof EditorError) return err;
  const reason = reasonOf(err);
  const message = CUT_SHORT.test(reason)
    ? `${name} 文件不完整：图像数据提前结束（文件可能在复制或下载时被截断），无法读取`
    : `${name} 文件已损坏：图像数据无法解码`;
  return new EditorError('io_error', message, { hint: DAMAGED_HINT, details: { reason } });
}

/**
 * A file whose horizontal and vertical resolutions differ (non-square pixels): a document has one resolution,
 * the horizontal one is taken (libvips' too: sharp's `density`), and the pixels are not resampled.
 */
function warnNonSquare(dpi: number, ydpi: number, name: string, warnings: string[]): void {
  if (ydpi === dpi || !(ydpi >= 1)) return;
  warnings.push(
    `${name} 的水平分辨率 ${dpi} DPI 与垂直分辨率 ${ydpi} DPI 不同（像素不是正方形）：已按水平分辨率 ${dpi} DPI 读取，像素未缩放`,
  );
}

/** sharp's names of the formats decoded (`metadata().format`) as the registry's ids, for their names. */
const REGISTRY_ID: Readonly<Record<string, string>> = {
  png: 'png',
  jpeg: 'jpg',
  webp: 'webp',
  heif: 'avif',
  tiff: 'tiff',
};

/** "TIFF": a decoded format's name as a designer reads it (the registry's), or sharp's in capitals (GIF). */
function formatName(format: string): string {
  return READ_FORMATS.find((f) => f.id === REGISTRY_ID[format])?.name ?? format.toUpperCase();
}

/**
 * DecodedImage's warnings but the CMYK profile's (cmykProfileOf): said as a PSD's are. `name` is the format's.
 * An embedded profile is checked as a PSD's is (sourceProfile: by its name, else by converting sample colours),
 * a CMYK file's not (its profile is kept with its inks); `profile` converts from one that is not sRGB.
 */
async function conversions(
  buf: Buffer,
  meta: Metadata,
  name: string,
  cmyk: boolean,
  into: PlacedInto | undefined,
): Promise<{ warnings: string[]; profile: SourceProfile | undefined }> {
  const warnings: string[] = [];
  const bits = meta.bitsPerSample ?? (meta.depth === 'ushort' ? 16 : 8);
  if (bits > 8) warnings.push(`${name} 为 ${bits} 位/通道，已转换为 8 位`);
  const gray = meta.space === 'b-w' || meta.space === 'grey16';
  if (gray) {
    // In a CMYK document a gray is separated like any colour: four inks, not black alone (with the SWOP
    // profile, 50 % gray is C 53 M 45 Y 45 K 10), which a print shop must be told.
    warnings.push(
      into === 'cmyk'
        ? `${name} 为灰度图像，已转换为 RGB 颜色，保存时按文档的 CMYK 配置文件分色：灰色由四色油墨组成，不是单一的黑色（K）`
        : `${name} 为灰度图像，已转换为 RGB 颜色，保存时为 RGB`,
    );
  }
  const profile =
    meta.icc && !cmyk ? await sourceProfile(new Uint8Array(meta.icc), gray, warnings, name, into) : undefined;
  let tiff: ReturnType<typeof tiffContents>;
  try {
    tiff = meta.format === 'tiff' ? tiffContents(buf) : undefined;
  } catch {
    tiff = undefined; // a directory past the end: libvips' count stands, and no layers are known of
  }
  const pages = tiff?.pages ?? meta.pages ?? 1;
  if (pages > 1) {
    warnings.push(
      meta.format === 'tiff'
        ? `TIFF 共 ${pages} 页，只读取了第 1 页`
        : `${name} 为动画（${pages} 帧），只读取了第 1 帧`,
    );
  }
  if (tiff?.photoshopLayers) {
    warnings.push(
      'TIFF 含 Photoshop 图层：只读取了它的合并图像（一个图层），各图层未读取；需要分层编辑时请在 Photoshop 中将它存储为 PSD',
    );
  }
  return { warnings, profile };
}

/**
 * The profile a CMYK file's inks are read with: its own when it is a CMYK profile, else the press profile, said
 * in `warnings` as a CMYK PSD's is. Some writers embed their RGB or gray working profile in a CMYK file: kept, it
 * would separate every fill into 3 or 1 channels and be embedded in the saves. With no usable press profile the
 * file is refused with its error (naming what to install or set), as a CMYK PSD is: read through sharp's own CMYK
 * default instead, it silently opened as RGB.
 */
function cmykProfileOf(meta: Metadata, name: string, warnings: string[]): Uint8Array {
  const own = meta.icc ? new Uint8Array(meta.icc) : undefined;
  const space = own && iccColourSpace(own);
  if (own && space === 'CMYK') return own;
  const press = pressProfile();
  warnings.push(
    own
      ? `CMYK ${name} 嵌入的配置文件“${iccDescription(own) ?? '未命名'}”不是 CMYK 配置文件（${space ? `色彩空间为 ${space.trim()}` : '无法识别'}），未使用：已按当前 CMYK 印刷配置文件“${press.name}”解释其油墨值`
      : `CMYK ${name} 没有嵌入 ICC 配置文件，已按当前 CMYK 印刷配置文件“${press.name}”解释其油墨值`,
  );
  return press.bytes;
}

/**
 * A CMYK JPEG or TIFF: its inks as stored (libvips undoes Adobe's inverted JPEG inks), kept with the raster, and
 * the pixels those inks through the file's profile (the press profile when it has none), with the same transform
 * a CMYK PSD is read with, so that saving the untouched pixels writes the file's inks back. A TIFF's alpha is
 * kept; 16-bit inks are rounded to 8 bits (sharp's cast to bytes would clip them: C 12 % came out as 100 %).
 */
async function decodeCmyk(
  buf: Buffer | Uint8Array,
  meta: Metadata,
  icc: Uint8Array,
  name: string,
): Promise<{ raster: Raster; cmykProfile: Uint8Array }> {
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  const channels = meta.hasAlpha ? 5 : 4;
  const wide = meta.depth === 'ushort';
  // The inks as decoded, the inks with alpha, and the pixels made from them.
  reservePixels(w * h * (channels * (wide ? 2 : 1) + 5), '解码 CMYK 图像');
  let decoded: Buffer;
  try {
    decoded = await sharp(buf)
      .autoOrient()
      .pipelineColourspace('cmyk')
      .toColourspace('cmyk')
      .raw({ depth: wide ? 'ushort' : 'uchar' })
      .toBuffer();
  } catch (err) {
    throw undecodable(name, err);
  }
  if (decoded.length !== w * h * channels * (wide ? 2 : 1)) {
    throw new EditorError('io_error', `CMYK 图像解码结果异常（${decoded.length} 字节，${w}×${h}）`);
  }
  // sharp's raw samples are in the machine's byte order; a view needs them 2-byte aligned.
  const aligned = wide && decoded.byteOffset % 2 !== 0 ? Buffer.from(decoded) : decoded;
  const inks = wide ? new Uint16Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 2) : decoded;
  const byte = wide ? (v: number) => Math.round(v / 257) : (v: number) => v;
  // EXIF orientation 5–8 swaps the sides.
  const turned = (meta.orientation ?? 1) >= 5;
  const ow = turned ? h : w;
  const oh = turned ? w : h;
  const cmyka = new Uint8Array(ow * oh * 5);
  for (let i = 0, j = 0; i < inks.length; i += channels, j += 5) {
    cmyka[j] = byte(inks[i]!);
    cmyka[j + 1] = byte(inks[i + 1]!);
    cmyka[j + 2] = byte(inks[i + 2]!);
    cmyka[j + 3] = byte(inks[i + 3]!);
    cmyka[j + 4] = channels === 5 ? byte(inks[i + 4]!) : 255;
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
