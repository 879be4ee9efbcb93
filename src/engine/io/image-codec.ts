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
import {
  fileDensity,
  jpegFrameSize,
  TIFF_LAB,
  TIFF_PHOTOMETRIC,
  tiffContents,
  tiffDirectories,
} from './image-headers.js';
import { type PlacedInto, type SourceProfile, sourceProfile, srgbProfilePath } from './rgb-profile.js';

/** The size a picture is written at, px, when not its own (an export scaled down). */
export interface OutputSize {
  readonly w: number;
  readonly h: number;
}

/** How a flattened picture (JPEG, TIFF, PDF) is written: in RGB, or in a document's inks. */
export interface FlatOptions {
  /** Resampled to this size (Lanczos), after the inks are separated; absent: the raster's own. */
  readonly size?: OutputSize;
  /** Write real CMYK through this profile (the document's: press-profile.ts), which is embedded once. */
  readonly cmyk?: PressProfile;
  /** For CMYK: the layers whose kept inks the pixels showing them take (raster-inks.ts). */
  readonly inkSources?: readonly InkSource[];
}

/** What a JPEG is written at when no quality is asked for: high, with full-resolution colour (below). */
export const DEFAULT_JPEG_QUALITY = 90;

export interface JpegOptions extends FlatOptions {
  /** 1..100, default DEFAULT_JPEG_QUALITY. */
  readonly quality?: number;
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
  /**
   * What of the file a save does not write back (its bit depth, gray mode, profile, further pages, Photoshop's
   * layers), as noun phrases: every save repeats them, above all one over the file itself (model.ts Loss).
   */
  readonly losses: readonly string[];
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

export function checkRaster(raster: Raster): void {
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

export function checkDpi(dpi: number): void {
  if (!Number.isFinite(dpi) || dpi <= 0) {
    throw new EditorError('invalid_arguments', `分辨率 ${dpi} 无效，必须是大于 0 的数（DPI）`);
  }
}

function rawInput(raster: Raster): Sharp {
  const buf = Buffer.from(raster.data.buffer, raster.data.byteOffset, raster.data.byteLength);
  // Our own pixels: no input pixel limit (a 9000×18000 marker is within it, larger PSB canvases are not).
  return sharp(buf, { raw: { width: raster.w, height: raster.h, channels: 4 }, limitInputPixels: false });
}

export function encodeFailure(format: string, err: unknown): EditorError {
  return new EditorError(
    'io_error',
    `${format} 编码失败：${err instanceof Error ? err.message : String(err)}`,
  );
}

/** Lossless PNG with alpha, density = `dpi`, tagged sRGB; resampled to `size` when given. */
export async function encodePng(raster: Raster, dpi: number, size?: OutputSize): Promise<Buffer> {
  checkRaster(raster);
  checkDpi(dpi);
  try {
    return await sized(rawInput(raster), raster, size)
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
  const quality = opts.quality ?? DEFAULT_JPEG_QUALITY;
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) {
    throw new EditorError('invalid_arguments', `JPEG 质量 ${quality} 无效，必须是 1 到 100 的整数`);
  }
  try {
    return await (await flatInput(raster, opts))
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

/**
 * Baseline TIFF as print shops take it: flattened over white, LZW-compressed (lossless, read by every RIP and
 * layout program), its resolution in pixels per inch = `dpi`; tagged sRGB, or with `cmyk` the document's inks
 * with its press profile embedded, as the CMYK JPEG.
 */
export async function encodeTiff(raster: Raster, dpi: number, opts: FlatOptions = {}): Promise<Buffer> {
  checkRaster(raster);
  checkDpi(dpi);
  try {
    const perMm = dpi / 25.4;
    return await (await flatInput(raster, opts))
      .tiff({ compression: 'lzw', predictor: 'horizontal', xres: perMm, yres: perMm, resolutionUnit: 'inch' })
      .toBuffer();
  } catch (err) {
    throw encodeFailure('TIFF', err);
  }
}

/** The raster flattened over white, in sRGB or separated into the document's inks. */
export async function flatInput(raster: Raster, opts: FlatOptions): Promise<Sharp> {
  const flat = opts.cmyk
    ? await cmykInput(raster, opts.cmyk, opts.inkSources ?? [])
    : rawInput(raster)
        .flatten({ background: { r: 255, g: 255, b: 255 } })
        .withIccProfile(srgbProfilePath());
  return sized(flat, raster, opts.size);
}

/**
 * `img` resampled to `size` when that differs from the raster's own (Lanczos 3, as Photoshop's Export As offers
 * "bicubic sharper" for reductions; in the pipeline's colour space: a CMYK picture's inks after separation).
 */
function sized(img: Sharp, raster: Raster, size: OutputSize | undefined): Sharp {
  if (!size || (size.w === raster.w && size.h === raster.h)) return img;
  return img.resize(size.w, size.h, { kernel: 'lanczos3', fit: 'fill' });
}

/** Rows separated at a time for CMYK: the flattened band's copies stay small. */
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
  const { warnings, losses, profile } = await conversions(bytes, meta, name, cmyk, opts.into);
  const icc = cmyk ? cmykProfileOf(meta, name, warnings) : undefined;
  if (dpiStated && stored?.ydpi !== undefined)
    warnNonSquare(dpi, cleanDpi(stored.ydpi, stored.step), name, warnings);
  if (icc) return { ...(await decodeCmyk(buf, meta, icc, name)), dpi, dpiStated, warnings, losses };
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
    return {
      raster: { x: 0, y: 0, w: info.width, h: info.height, data: pixels },
      dpi,
      dpiStated,
      warnings,
      losses,
    };
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
): Promise<{ warnings: string[]; losses: string[]; profile: SourceProfile | undefined }> {
  const warnings: string[] = [];
  const losses: string[] = [];
  const bits = meta.bitsPerSample ?? (meta.depth === 'ushort' ? 16 : 8);
  if (bits > 8) {
    warnings.push(`${name} 为 ${bits} 位/通道，已转换为 8 位`);
    losses.push(`${bits} 位/通道的精度（按 8 位保存）`);
  }
  const gray = meta.space === 'b-w' || meta.space === 'grey16';
  if (gray) {
    // In a CMYK document a gray is separated like any colour: four inks, not black alone (with the SWOP
    // profile, 50 % gray is C 53 M 45 Y 45 K 10), which a print shop must be told.
    warnings.push(
      into === 'cmyk'
        ? `${name} 为灰度图像，已转换为 RGB 颜色，保存时按文档的 CMYK 配置文件分色：灰色由四色油墨组成，不是单一的黑色（K）`
        : `${name} 为灰度图像，已转换为 RGB 颜色，保存时为 RGB`,
    );
    losses.push('灰度颜色模式（按 RGB 保存）');
  }
  const profile =
    meta.icc && !cmyk ? await sourceProfile(new Uint8Array(meta.icc), gray, warnings, name, into) : undefined;
  if (profile) losses.push(`嵌入的配置文件“${profile.name}”（颜色已转换为 sRGB）`);
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
    losses.push(meta.format === 'tiff' ? `第 2–${pages} 页` : `第 2–${pages} 帧`);
  }
  if (tiff?.photoshopLayers) {
    warnings.push(
      'TIFF 含 Photoshop 图层：只读取了它的合并图像（一个图层），各图层未读取；需要分层编辑时请在 Photoshop 中将它存储为 PSD',
    );
    losses.push('TIFF 中 Photoshop 的各图层');
  }
  return { warnings, losses, profile };
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
