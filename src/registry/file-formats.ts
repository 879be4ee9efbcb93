/**
 * The files Atelier reads: what uploads take, what opens as a document or is placed as a layer, what a garment
 * photo may be. Every list a tool's description, a refusal, the studio's pickers or the file server shows is made
 * from this one. WebP and AVIF are what web shops serve product photos as (a photo saved from a shop's page is
 * one of them); both are read, never written: a document is saved as PSD, PNG or JPEG.
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
] as const satisfies readonly FileFormat[];

export type ReadFormat = (typeof READ_FORMATS)[number]['id'];

/** The formats a garment photo, or an image placed as a layer, may be. */
export const IMAGE_FORMATS: readonly FileFormat[] = READ_FORMATS.filter((f) => f.image);

/** "PNG、JPEG、WebP 或 AVIF": the formats' names as a Chinese list, joined by `last` (或, 和). */
export function formatNames(formats: readonly FileFormat[], last = '或'): string {
  const names = formats.map((f) => f.name);
  return names.length > 1 ? `${names.slice(0, -1).join('、')} ${last} ${names.at(-1)}` : (names[0] ?? '');
}

/** "PNG, JPEG, WebP or AVIF": the same in English. */
export function formatNamesEn(formats: readonly FileFormat[], last = 'or'): string {
  const names = formats.map((f) => f.name);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} ${last} ${names.at(-1)}` : (names[0] ?? '');
}

/** The formats' extensions: ".psd、.psb、.png…". */
export function formatExtensions(formats: readonly FileFormat[]): string {
  return formats.flatMap((f) => f.extensions).join('、');
}
