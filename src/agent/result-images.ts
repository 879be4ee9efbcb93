/**
 * Result images on their way to the model. Chat Completions tool messages are text-only, so the tool message
 * carries the result JSON with each image described (caption, size) instead of its bytes, and a vision model also
 * gets the images, downscaled to a stated budget, in a user message that follows the tool messages.
 */
import sharp from '../engine/sharp.js';
import type { ImageOut } from '../tools/types.js';

/** Longest side of an image sent to the model: about a thousand tokens per image on the common APIs. */
export const MODEL_IMAGE_MAX_SIDE = 1024;
export const MODEL_IMAGE_QUALITY = 80;
/** Images per follow-up message at most; the rest are described in words only. */
export const MODEL_IMAGES_PER_MESSAGE = 4;
/** What the model reads in place of an image older than the ones kept in its context. */
export const OLDER_IMAGE_NOTE = '（较早的图像已省略）';

export interface DescribedImage {
  readonly mime: ImageOut['mime'];
  readonly caption?: string;
  readonly width: number | null;
  readonly height: number | null;
}

export interface ModelImage {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly caption: string;
  /** A `data:image/jpeg;base64,…` URL within the budget. */
  readonly url: string;
  /** The file kept beside the transcript, when images are kept. */
  readonly file?: string;
}

async function sizeOf(img: ImageOut): Promise<{ width: number | null; height: number | null }> {
  try {
    const meta = await sharp(Buffer.from(img.base64, 'base64')).metadata();
    return { width: meta.width ?? null, height: meta.height ?? null };
  } catch {
    return { width: null, height: null };
  }
}

/** What a text-only reader learns about each image: its caption and size. */
export async function describeImages(images: readonly ImageOut[]): Promise<DescribedImage[]> {
  return Promise.all(
    images.map(async (img) => ({
      mime: img.mime,
      ...(img.caption ? { caption: img.caption } : {}),
      ...(await sizeOf(img)),
    })),
  );
}

export interface SentImage {
  /** A `data:image/jpeg;base64,…` URL within the budget. */
  readonly url: string;
  /**
   * How much smaller than the tool's image it was sent ('' when not): the tool's result gives the image's own
   * size, and a model reading coordinates off the smaller picture must know to scale them.
   */
  readonly shrunk: string;
}

/** The image as a JPEG, longest side at most MODEL_IMAGE_MAX_SIDE, transparency flattened on white. */
export async function modelImage(img: ImageOut): Promise<SentImage> {
  const input = Buffer.from(img.base64, 'base64');
  const { width } = await sharp(input).metadata();
  const { data, info } = await sharp(input)
    .resize(MODEL_IMAGE_MAX_SIDE, MODEL_IMAGE_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: MODEL_IMAGE_QUALITY })
    .toBuffer({ resolveWithObject: true });
  const factor = width && info.width < width ? width / info.width : 1;
  return {
    url: `data:image/jpeg;base64,${data.toString('base64')}`,
    shrunk:
      factor > 1
        ? `发送给你时缩小为 ${info.width}×${info.height}（图上的像素坐标乘以 ${Math.round(factor * 100) / 100} 为原图坐标）`
        : '',
  };
}

export async function modelImageUrl(img: ImageOut): Promise<string> {
  return (await modelImage(img)).url;
}

/** The result as the model reads it in a tool message: JSON without base64, images described. */
export function toolMessageContent(result: unknown, described: readonly DescribedImage[] | null): string {
  if (described === null || typeof result !== 'object' || result === null) return JSON.stringify(result);
  return JSON.stringify({ ...(result as Record<string, unknown>), images: described });
}

/** How an image is named in the follow-up message, so the model can tell which call it came from. */
export function imageTitle(image: Pick<ModelImage, 'toolName' | 'caption'>, index: number): string {
  return `图 ${index + 1}（${image.toolName}${image.caption ? `：${image.caption}` : ''}）`;
}
