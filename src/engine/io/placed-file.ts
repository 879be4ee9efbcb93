/**
 * What a placed image keeps of its file, as Photoshop's Place Embedded does: the file's own bytes go into the
 * PSD as the smart object's contents (a JPEG stays a JPEG of its size, a layered PSD stays layered, its own
 * resolution and colour profile with it), not a PNG of the decoded pixels, which made a 17.7 MB photo a 272 MB
 * embedded PNG. The PSD writer writes these bytes back for as long as the layer's source is `source`.
 */
import { createHash } from 'node:crypto';
import type { Raster, SmartEmbedded } from '../model.js';
import { type FileType, sniffFileType } from './file-type.js';

/**
 * The linked-file type code Photoshop gives each format (a Mac OSType: four characters). AVIF is missing: the
 * Photoshop versions a print shop runs do not open it inside a smart object, so it is embedded as PNG.
 */
const TYPE_CODE: Partial<Record<FileType, string>> = {
  psd: '8BPS',
  png: 'png ',
  jpg: 'JPEG',
  webp: 'WEBP',
  tiff: 'TIFF',
};

/**
 * The embedding of a placed file whose decoded pixels are `source`, or undefined when the file cannot be
 * embedded as it is (then the writer embeds the pixels as PNG, as for edited contents).
 * `dpi` is the resolution the file states, if any.
 */
export function placedFile(
  bytes: Uint8Array,
  fileName: string,
  source: Raster,
  dpi: number | null,
): SmartEmbedded | undefined {
  const kind = sniffFileType(bytes);
  const type = kind && TYPE_CODE[kind];
  if (!type) return undefined;
  const id = contentId(bytes);
  return {
    source,
    // A copy: a Buffer read from disk may be a view into a shared pool, and the layer keeps these bytes.
    file: { id, name: fileName, type: type.trim(), data: new Uint8Array(bytes) },
    placed: {
      id,
      placed: id,
      type: 'raster',
      width: source.w,
      height: source.h,
      resolution: { units: 'Density', value: dpi ?? 72 },
    },
  };
}

/**
 * A GUID (what ag-psd and Photoshop require) named by the file's contents: a replayed call (crash recovery)
 * gives the very same document, and a file placed twice is embedded once.
 */
function contentId(bytes: Uint8Array): string {
  const h = createHash('sha256').update(bytes).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
