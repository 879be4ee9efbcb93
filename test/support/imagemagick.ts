/**
 * ImageMagick as an independent reader of the files we write. Always by full path: a stand-in `convert`
 * earlier on PATH is not ImageMagick.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const IDENTIFY = '/usr/bin/identify';
export const CONVERT = '/usr/bin/convert';

export function imageMagickAvailable(): boolean {
  return existsSync(IDENTIFY) && existsSync(CONVERT);
}

async function withTempFile<T>(data: Uint8Array, ext: string, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'imagemagick-'));
  try {
    const file = path.join(dir, `in.${ext}`);
    await writeFile(file, data);
    return await fn(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `identify -format FORMAT` on the bytes (first frame). */
export async function identify(data: Uint8Array, ext: string, format: string): Promise<string> {
  return withTempFile(data, ext, async (file) => {
    const { stdout } = await run(IDENTIFY, ['-format', format, `${file}[0]`], { encoding: 'utf8' });
    return stdout.trim();
  });
}

export interface IdentifyInfo {
  readonly width: number;
  readonly height: number;
  /** Resolution in pixels per inch, converted from ImageMagick's units (PNG reports pixels per centimetre). */
  readonly dpiX: number;
  readonly dpiY: number;
  /** As ImageMagick printed it: 'PixelsPerInch', 'PixelsPerCentimeter' or 'Undefined'. */
  readonly units: string;
  readonly colorspace: string;
  /** e.g. 'srgba', 'srgb', 'cmyk'. */
  readonly channels: string;
  /** ImageMagick's alpha flag: 'True' / 'False' (or 'Blend', 'Undefined'). */
  readonly alpha: string;
}

export async function identifyInfo(data: Uint8Array, ext: string): Promise<IdentifyInfo> {
  const out = await identify(data, ext, '%w|%h|%x|%y|%U|%[colorspace]|%[channels]|%A');
  const [w, h, x, y, units, colorspace, channels, alpha] = out.split('|');
  const factor = units === 'PixelsPerCentimeter' ? 2.54 : 1;
  return {
    width: Number(w),
    height: Number(h),
    dpiX: Number.parseFloat(x ?? '') * factor,
    dpiY: Number.parseFloat(y ?? '') * factor,
    units: units ?? '',
    colorspace: colorspace ?? '',
    channels: channels ?? '',
    alpha: alpha ?? '',
  };
}

/** Runs `convert` with `args`, where the literal 'OUT' is replaced by a temp output file; returns its bytes. */
export async function convertTo(args: readonly string[], outExt: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'imagemagick-'));
  try {
    const out = path.join(dir, `out.${outExt}`);
    await run(
      CONVERT,
      args.map((a) => a.replace(/^(\w+:)?OUT$/, (_m, fmt: string | undefined) => `${fmt ?? ''}${out}`)),
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** ImageMagick's decoding of an image file as 8-bit straight RGBA (first frame). */
export async function pixelsOf(
  data: Uint8Array,
  ext: string,
): Promise<{ width: number; height: number; data: Uint8Array }> {
  const size = await identify(data, ext, '%w %h');
  const [width, height] = size.split(' ').map(Number) as [number, number];
  const raw = await withTempFile(data, ext, (file) =>
    convertTo([`${file}[0]`, '-colorspace', 'sRGB', '-depth', '8', 'rgba:OUT'], 'rgba'),
  );
  return { width, height, data: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength) };
}

/**
 * A white-on-black drawing of the MVG `primitive` (coordinates in document pixels, where pixel i covers
 * [i, i + 1]) as one byte a pixel, `width × height`. `scale` 1 is ImageMagick's own anti-aliasing, which is not
 * area coverage: a pixel whose centre is inside is full, one whose centre is d < 1 px outside gets (1 − d)², so
 * shapes come out about a third of a pixel wider. `scale` k > 1 draws k× larger without anti-aliasing and
 * averages each k × k block (box filter): the area coverage, within 1/k² steps. `primitive` receives the
 * mapping from document coordinates to ImageMagick's, whose integers are pixel centres.
 */
export async function drawnByImageMagick(
  width: number,
  height: number,
  primitive: (at: (v: number) => number, size: (v: number) => number) => string,
  scale = 1,
): Promise<Uint8Array> {
  const mvg = primitive(
    (v) => v * scale - 0.5,
    (v) => v * scale,
  );
  const args = [
    '-size',
    `${width * scale}x${height * scale}`,
    'xc:black',
    ...(scale > 1 ? ['+antialias'] : []),
    '-fill',
    'white',
    '-stroke',
    'none',
    '-draw',
    mvg,
    ...(scale > 1 ? ['-filter', 'box', '-resize', `${width}x${height}!`] : []),
    '-colorspace',
    'gray',
    '-depth',
    '8',
    'gray:OUT',
  ];
  const raw = await convertTo(args, 'gray');
  return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
}
