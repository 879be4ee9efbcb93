/**
 * Result images kept beside the transcript, so a conversation rebuilt after a restart can show them again (the
 * studio) and send them again (a vision model). Each is named by a hash of its bytes: a name a transcript line can
 * carry safely, and an image shown twice is kept once.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tempPathFor } from '../engine/workspace.js';
import type { ImageOut } from '../tools/types.js';
import { KEPT_IMAGES, type TranscriptImage } from './transcript.js';

const KEPT_NAME = new RegExp(`^${KEPT_IMAGES}/[0-9a-f]{32}\\.(png|jpg)$`);

/**
 * Writes the images into `dir`/chat-images/ and returns how the transcript names them. `room` (a disk quota) is
 * asked for the bytes of the images not kept yet, all at once, before any is written: when it throws, nothing is.
 */
export async function keepImages(
  dir: string,
  images: readonly ImageOut[],
  room?: (bytes: number) => Promise<void>,
): Promise<TranscriptImage[]> {
  if (images.length === 0) return [];
  const kept: TranscriptImage[] = [];
  const missing = new Map<string, Buffer>();
  /** The name the image's bytes are kept under, noted as missing when not kept yet. */
  const keep = async (base64: string, mime: ImageOut['mime']) => {
    const data = Buffer.from(base64, 'base64');
    const hash = createHash('sha256').update(data).digest('hex').slice(0, 32);
    const file = `${KEPT_IMAGES}/${hash}.${mime === 'image/png' ? 'png' : 'jpg'}`;
    const exists = await stat(path.join(dir, file)).then(
      () => true,
      () => false,
    );
    if (!exists) missing.set(file, data);
    return file;
  };
  for (const image of images) {
    kept.push({
      file: await keep(image.base64, image.mime),
      mime: image.mime,
      ...(image.caption ? { caption: image.caption } : {}),
      ...(image.captionEn ? { caption_en: image.captionEn } : {}),
      ...(image.base64En ? { file_en: await keep(image.base64En, image.mime) } : {}),
    });
  }
  if (missing.size === 0) return kept;
  let bytes = 0;
  for (const data of missing.values()) bytes += data.byteLength;
  await room?.(bytes);
  // Private like the transcript beside them: another user of the machine has no business reading them.
  await mkdir(path.join(dir, KEPT_IMAGES), { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const [file, data] of missing) {
    const abs = path.join(dir, file);
    const temp = tempPathFor(abs);
    await writeFile(temp, data, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    await rename(temp, abs);
  }
  return kept;
}

/** The kept image, or null when it is gone or the name is not one `keepImages` gives. */
export async function readKeptImage(dir: string, image: TranscriptImage): Promise<ImageOut | null> {
  if (typeof image?.file !== 'string' || !KEPT_NAME.test(image.file)) return null;
  try {
    const data = await readFile(path.join(dir, image.file));
    // The English picture is the same image's: without it (gone, or a name not ours) the studio shows the other.
    const en =
      typeof image.file_en === 'string' && KEPT_NAME.test(image.file_en)
        ? await readFile(path.join(dir, image.file_en)).catch(() => null)
        : null;
    return {
      mime: image.file.endsWith('.png') ? 'image/png' : 'image/jpeg',
      base64: data.toString('base64'),
      ...(typeof image.caption === 'string' ? { caption: image.caption } : {}),
      ...(typeof image.caption_en === 'string' ? { captionEn: image.caption_en } : {}),
      ...(en ? { base64En: en.toString('base64') } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * The images kept in `dir`/chat-images/ (names as `keepImages` gives them; links and anything else left out),
 * with their sizes: what clearing a conversation removes beside its transcript.
 */
export async function keptImageFiles(dir: string): Promise<{ path: string; bytes: number }[]> {
  const entries = await readdir(path.join(dir, KEPT_IMAGES), { withFileTypes: true }).catch(() => []);
  const files: { path: string; bytes: number }[] = [];
  for (const e of entries) {
    const file = `${KEPT_IMAGES}/${e.name}`;
    if (!e.isFile() || !KEPT_NAME.test(file)) continue;
    const info = await lstat(path.join(dir, file)).catch(() => null);
    if (info?.isFile()) files.push({ path: file, bytes: info.size });
  }
  return files;
}
