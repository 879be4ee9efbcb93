/** Helpers for the press-profile tests: libvips' own sRGB profile as a file, and temp files for ImageMagick. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

let srgb: Buffer | undefined;

/**
 * The sRGB profile sharp's CMYK transforms run against (libvips' built-in, ICC v4): the independent reference
 * must convert between the same two profiles, since a v2 and a v4 sRGB treat the black point differently.
 */
export async function libvipsSrgbProfile(): Promise<Buffer> {
  if (srgb) return srgb;
  const tagged = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#808080' } })
    .withIccProfile('srgb', { attach: true })
    .tiff()
    .toBuffer();
  const icc = (await sharp(tagged).metadata()).icc;
  if (!icc) throw new Error('sharp attached no sRGB profile');
  srgb = icc;
  return icc;
}

/** Writes `files` into a temp folder, runs `fn` with their paths, removes the folder. */
export async function withTempFiles<T>(
  files: Record<string, Uint8Array>,
  fn: (paths: Record<string, string>) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'atelier-icc-'));
  try {
    const paths: Record<string, string> = {};
    for (const [name, data] of Object.entries(files)) {
      paths[name] = path.join(dir, name);
      await writeFile(paths[name]!, data);
    }
    return await fn(paths);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
