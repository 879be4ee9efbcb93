/** Result images leave the server as URLs of the session's image shelf, never as base64 in JSON. */
import type { ToolResult } from '../calls/result.js';
import type { SessionEntry } from '../service/sessions.js';
import type { ImageOut } from '../tools/types.js';

export interface ImageLink {
  readonly url: string;
  readonly mime: ImageOut['mime'];
  readonly caption?: string;
  readonly caption_en?: string;
  /** The picture with its words in English (ImageOut.base64En), for a client showing English. */
  readonly url_en?: string;
}

/** Shelves the images and returns their URLs (absolute when `origin` is given). */
export function linkImages(images: readonly ImageOut[], entry: SessionEntry, origin = ''): ImageLink[] {
  const link = (img: ImageOut) => `${origin}/v1/sessions/${entry.id}/images/${entry.images.add(img)}`;
  return images.map((img) => ({
    url: link(img),
    mime: img.mime,
    ...(img.caption ? { caption: img.caption } : {}),
    ...(img.captionEn ? { caption_en: img.captionEn } : {}),
    ...(img.base64En ? { url_en: link({ mime: img.mime, base64: img.base64En }) } : {}),
  }));
}

/** Puts the session's URLs for a result's images in place of their base64 data. */
export function withImageUrls(result: ToolResult, entry: SessionEntry, origin: string): ToolResult {
  if (!result.ok || !result.images?.length) return result;
  const images = linkImages(result.images as readonly ImageOut[], entry, origin);
  return { ...result, images } as unknown as ToolResult;
}
