/**
 * What the headers of PNG, JPEG and TIFF files say that sharp's metadata does not, or says otherwise: the stored
 * resolution exactly (horizontal and vertical), a JPEG's frame size, a TIFF's directories (pages, Photoshop
 * layers, photometric interpretation). Pure readers over the file's bytes; image-codec.ts decides what to do.
 */
import type { Metadata } from 'sharp';

/**
 * A resolution as a file stores it: pixels per inch, and the spacing of the values it can store when they are
 * finer than a tenth of a DPI (cleanDpi); 0 when the value is taken as it is.
 */
export interface StoredDensity {
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
export function jpegFrameSize(buf: Buffer): { w: number; h: number } | undefined {
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
export function tiffDirectories(buf: Buffer, max: number): TiffDirectories | undefined {
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

export const TIFF_PHOTOMETRIC = 262;
/** PhotometricInterpretation's CIELab, ICCLab and ITULab: a Lab TIFF. */
export const TIFF_LAB = new Set([8, 9, 10]);
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
export function tiffContents(buf: Buffer): { pages: number; photoshopLayers: boolean } | undefined {
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
export function fileDensity(buf: Buffer, meta: Metadata): StoredDensity | null | undefined {
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
