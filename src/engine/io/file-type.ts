/**
 * A file's type by its first bytes, never by its name: what uploads take and what set_garment_photo accepts as a
 * photo are decided here, once. The formats themselves are listed in the registry (file-formats.ts).
 */
import { HEIC, namedAs, type ReadFormat, type UnreadableFormat } from '../../registry/file-formats.js';

export type FileType = ReadFormat;

/**
 * The most bytes sniffFileType reads: an ISO media file's `ftyp` box with its first brands (AVIF's, HEIC's).
 * Enough for the boxes libavif, libheif and phones write (24–32 bytes).
 */
export const SNIFF_BYTES = 32;

const PSD = [0x38, 0x42, 0x50, 0x53, 0x00]; // '8BPS', then version 1 (PSD) or 2 (PSB)
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50]; // a RIFF container's form type, after its size
const FTYP = [0x66, 0x74, 0x79, 0x70]; // an ISO media file's first box, after its size
const TIFF_LE = [0x49, 0x49, 0x2a, 0x00]; // 'II*\0'
const TIFF_BE = [0x4d, 0x4d, 0x00, 0x2a]; // 'MM\0*'
const BIGTIFF_LE = [0x49, 0x49, 0x2b, 0x00];
const BIGTIFF_BE = [0x4d, 0x4d, 0x00, 0x2b];

const AVIF_BRANDS = new Set(['avif', 'avis']);
/** HEIF with HEVC inside: what iPhones save photos as. Not readable here (no HEVC decoder ships with sharp). */
const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx']);

function startsWith(buf: Uint8Array, bytes: readonly number[], at = 0): boolean {
  return buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);
}

/** An ISO media file's brands (major, then compatible ones) as far as its `ftyp` box and `buf` go; [] if none. */
function brands(buf: Uint8Array): string[] {
  if (!startsWith(buf, FTYP, 4)) return [];
  const size = ((buf[0]! << 24) | (buf[1]! << 16) | (buf[2]! << 8) | buf[3]!) >>> 0;
  const end = Math.min(buf.length, size);
  const text = (at: number) => String.fromCharCode(...buf.subarray(at, at + 4));
  const out = end >= 12 ? [text(8)] : [];
  for (let at = 16; at + 4 <= end; at += 4) out.push(text(at));
  return out;
}

export function sniffFileType(buf: Uint8Array): FileType | null {
  if (startsWith(buf, PSD) && (buf[5] === 1 || buf[5] === 2)) return 'psd';
  if (startsWith(buf, PNG)) return 'png';
  if (startsWith(buf, JPEG)) return 'jpg';
  if (startsWith(buf, RIFF) && startsWith(buf, WEBP, 8)) return 'webp';
  if (brands(buf).some((b) => AVIF_BRANDS.has(b))) return 'avif';
  if ([TIFF_LE, TIFF_BE, BIGTIFF_LE, BIGTIFF_BE].some((m) => startsWith(buf, m))) return 'tiff';
  return null;
}

/** HEIC, which a designer's phone photos often are, told apart from a file that is no image at all. */
export function unreadableFormat(buf: Uint8Array): UnreadableFormat | null {
  const b = brands(buf);
  return b.some((x) => HEIC_BRANDS.has(x)) && !b.some((x) => AVIF_BRANDS.has(x)) ? HEIC : null;
}

/** …and by a file's name, where only the name is known (a path given to open_document). */
export function unreadableByName(name: string): UnreadableFormat | null {
  return namedAs(name, [HEIC]) ? HEIC : null;
}
