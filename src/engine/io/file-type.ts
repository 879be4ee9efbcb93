/**
 * A file's type by its first bytes, never by its name: what uploads take and what set_garment_photo accepts as a
 * photo are decided here, once.
 */

export type FileType = 'psd' | 'png' | 'jpg' | 'webp';

/** The most bytes sniffFileType reads: WebP's RIFF header. */
export const SNIFF_BYTES = 12;

const PSD = [0x38, 0x42, 0x50, 0x53, 0x00]; // '8BPS', then version 1 (PSD) or 2 (PSB)
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50]; // a RIFF container's form type, after its size

function startsWith(buf: Uint8Array, bytes: readonly number[], at = 0): boolean {
  return buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);
}

export function sniffFileType(buf: Uint8Array): FileType | null {
  if (startsWith(buf, PSD) && (buf[5] === 1 || buf[5] === 2)) return 'psd';
  if (startsWith(buf, PNG)) return 'png';
  if (startsWith(buf, JPEG)) return 'jpg';
  if (startsWith(buf, RIFF) && startsWith(buf, WEBP, 8)) return 'webp';
  return null;
}
