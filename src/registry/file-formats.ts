/**
 * The files Atelier reads: what uploads take, what opens as a document or is placed as a layer, what a garment
 * photo may be. Every list a tool's description, a refusal, the studio's pickers or the file server shows is made
 * from this one. WebP and AVIF are what web shops serve product photos as (a photo saved from a shop's page is
 * one of them); both are read, never written: a document is saved as PSD, PNG or JPEG, and exported as PNG, JPEG,
 * TIFF or PDF.
 */

export interface FileFormat {
  readonly id: string;
  /** As a designer reads it in a list. */
  readonly name: string;
  readonly mime: string;
  /** The first is what an upload without one is given. */
  readonly extensions: readonly string[];
  /** An image (not a layered document): it may be a garment photo. */
  readonly image: boolean;
}

export const READ_FORMATS = [
  {
    id: 'psd',
    name: 'PSD',
    mime: 'image/vnd.adobe.photoshop',
    extensions: ['.psd', '.psb'],
    image: false,
  },
  { id: 'png', name: 'PNG', mime: 'image/png', extensions: ['.png'], image: true },
  { id: 'jpg', name: 'JPEG', mime: 'image/jpeg', extensions: ['.jpg', '.jpeg'], image: true },
  { id: 'webp', name: 'WebP', mime: 'image/webp', extensions: ['.webp'], image: true },
  { id: 'avif', name: 'AVIF', mime: 'image/avif', extensions: ['.avif'], image: true },
  // What print shops and scanners exchange; its first page, flattened (a layered Photoshop TIFF's layers are not read).
  { id: 'tiff', name: 'TIFF', mime: 'image/tiff', extensions: ['.tif', '.tiff'], image: true },
] as const satisfies readonly FileFormat[];

export type ReadFormat = (typeof READ_FORMATS)[number]['id'];

/**
 * The flattened pictures export_image writes (a layered document is saved as PSD): the images it also reads, and
 * PDF, what print shops ask for most (written, never read: its renderer could pull in other files).
 */
export const EXPORT_FORMAT_IDS = ['png', 'jpg', 'tiff', 'pdf'] as const;

/** A PDF export's bleed at most, mm (printers ask for 3; 20 covers large-format work). */
export const PDF_MAX_BLEED_MM = 20;
/** How far a PDF's page reaches round the document when it carries crop marks, mm. */
export const PDF_MARK_MARGIN_MM = 10;
export type ExportFormat = (typeof EXPORT_FORMAT_IDS)[number];

const PDF_FORMAT: FileFormat = {
  id: 'pdf',
  name: 'PDF',
  mime: 'application/pdf',
  extensions: ['.pdf'],
  image: false,
};

export const EXPORT_FORMATS: readonly FileFormat[] = EXPORT_FORMAT_IDS.map((id) =>
  id === 'pdf' ? PDF_FORMAT : READ_FORMATS.find((f) => f.id === id)!,
);

/** Every format a file's extension names here, read or written. */
export const KNOWN_FORMATS: readonly FileFormat[] = [...READ_FORMATS, PDF_FORMAT];

/** The formats a garment photo, or an image placed as a layer, may be. */
export const IMAGE_FORMATS: readonly FileFormat[] = READ_FORMATS.filter((f) => f.image);

/** The formats' names as a list: all but the last joined by `sep`, the last by `last`. */
function listed(formats: readonly FileFormat[], sep: string, last: string): string {
  const names = formats.map((f) => f.name);
  return names.length > 1 ? `${names.slice(0, -1).join(sep)} ${last} ${names.at(-1)}` : (names[0] ?? '');
}

/** "PNG、JPEG、WebP 或 AVIF": the formats' names as a Chinese list, joined by `last` (或, 和). */
export const formatNames = (formats: readonly FileFormat[], last = '或'): string =>
  listed(formats, '、', last);

/** "PNG, JPEG, WebP or AVIF": the same in English. */
export const formatNamesEn = (formats: readonly FileFormat[], last = 'or'): string =>
  listed(formats, ', ', last);

/** The formats' extensions: ".psd、.psb、.png…". */
export function formatExtensions(formats: readonly FileFormat[]): string {
  return formats.flatMap((f) => f.extensions).join('、');
}

/** A format a designer meets that is not read here, as they know it, with what to do instead. */
export interface UnreadableFormat {
  readonly name: string;
  readonly extensions: readonly string[];
  readonly what: string;
  readonly hint: string;
}

/** HEIF with HEVC inside, what iPhones save photos as: no HEVC decoder ships with sharp. */
export const HEIC: UnreadableFormat = {
  name: 'HEIC',
  extensions: ['.heic', '.heif'],
  what: 'HEIC 照片（iPhone 拍照的默认格式）',
  hint: '请先导出为 JPEG 或 PNG（iPhone：设置 → 相机 → 格式 → 兼容性最佳；或在“照片”中分享时选 JPEG）',
};

/** Whether a file's name says it is of one of `formats`. */
export const namedAs = (file: string, formats: readonly { extensions: readonly string[] }[]): boolean =>
  formats.some((f) => f.extensions.some((ext) => file.toLowerCase().endsWith(ext)));
