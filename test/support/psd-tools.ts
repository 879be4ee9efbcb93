/**
 * Runs psd-tools (Debian's python3-psd-tools, an independent PSD reader) on a PSD and returns what it sees.
 * Always the system interpreter by full path: another python3 earlier on PATH lacks the module.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';

const run = promisify(execFile);

export const SYSTEM_PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'psd-tools-dump.py');

export interface PsdToolsEffect {
  readonly type: string;
  readonly enabled: boolean;
  readonly size?: number;
  readonly opacity?: number;
  readonly angle?: number;
  readonly distance?: number;
  readonly choke?: number;
  readonly position?: string;
  readonly color?: [number, number, number];
}

export interface PsdToolsLayer {
  readonly name: string;
  /** 'pixel' | 'group' | 'type' | 'smartobject' | 'shape' | … */
  readonly kind: string;
  readonly visible: boolean;
  /** 0..255 */
  readonly opacity: number;
  /** psd-tools' BlendMode name in lower case with spaces, e.g. 'color dodge', 'pass through'. */
  readonly blend: string;
  readonly clipping: boolean;
  /** [left, top, right, bottom] */
  readonly bbox: [number, number, number, number];
  readonly mask: { bbox: [number, number, number, number]; defaultColor: number; disabled: boolean } | null;
  readonly effects: PsdToolsEffect[];
  /** Channel ids of a non-group layer (-1 transparency, -2 user mask, 0..2 RGB). */
  readonly channelIds?: number[];
  /** Raw `lspf` flags (1 transparency, 2 pixels, 4 position). */
  readonly locks: number;
  readonly text?: string;
  /** A type layer's font names (PostScript), from its engine data's FontSet. */
  readonly fonts?: string[];
  /** A type layer's text transform [xx, xy, yx, yy, tx, ty]. */
  readonly transform?: number[];
  readonly smart?: { filename: string; filetype: string; size: number };
  readonly children?: PsdToolsLayer[];
}

export interface PsdToolsDump {
  readonly width: number;
  readonly height: number;
  readonly colorMode: number;
  readonly channels: number;
  readonly depth: number;
  /** 1 = PSD, 2 = PSB */
  readonly version: number;
  readonly resolution: { horizontal: number; vertical: number; unit: number } | null;
  readonly guides: { location: number; direction: 'horizontal' | 'vertical' }[];
  /** Bottom → top. */
  readonly layers: PsdToolsLayer[];
}

export interface RgbaImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** Raw bytes psd-tools decoded: as stored (CMYK as ink, 0 = none) and through the embedded ICC profile. */
export interface PsdToolsPixels {
  /** 'merged', or 'layer-<i>' (pixel layers bottom → top, depth first). */
  readonly name: string;
  /** The layer's name; null for the merged image. */
  readonly layer: string | null;
  /** PIL mode of `data`, e.g. 'CMYK', 'RGB', 'RGBA'. */
  readonly mode: string;
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
  /** PIL mode of `srgb`: 'RGB' or 'RGBA'. */
  readonly srgbMode?: string;
  readonly srgb?: Uint8Array;
}

export interface PsdToolsResult {
  readonly dump: PsdToolsDump;
  /** The merged image stored in the file, RGBA. */
  readonly merged?: RgbaImage;
  /** psd-tools' own composite of the layers, RGBA. */
  readonly composite?: RgbaImage;
  /** With `pixels`: the merged image's and every pixel layer's decoded bytes. */
  readonly pixels?: PsdToolsPixels[];
}

export function psdToolsAvailable(): boolean {
  return existsSync(SYSTEM_PYTHON);
}

async function loadPng(file: string): Promise<RgbaImage> {
  const { data, info } = await sharp(await readFile(file))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
  };
}

interface PixelsEntry {
  readonly name: string;
  readonly layer: string | null;
  readonly mode: string;
  readonly size: [number, number];
  readonly srgbMode?: string;
}

async function loadPixels(dir: string, e: PixelsEntry): Promise<PsdToolsPixels> {
  const bytes = async (file: string) => new Uint8Array(await readFile(path.join(dir, file)));
  return {
    name: e.name,
    layer: e.layer,
    mode: e.mode,
    width: e.size[0],
    height: e.size[1],
    data: await bytes(`${e.name}.raw`),
    ...(e.srgbMode ? { srgbMode: e.srgbMode, srgb: await bytes(`${e.name}-srgb.raw`) } : {}),
  };
}

/** Reads `psd` with psd-tools; optionally also returns its stored merged image and its own composite. */
export async function readWithPsdTools(
  psd: Uint8Array,
  opts: { merged?: boolean; composite?: boolean; pixels?: boolean } = {},
): Promise<PsdToolsResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'psd-tools-'));
  try {
    const file = path.join(dir, 'in.psd');
    await writeFile(file, psd);
    const args = [SCRIPT, file];
    const mergedPath = path.join(dir, 'merged.png');
    const compositePath = path.join(dir, 'composite.png');
    if (opts.merged) args.push('--merged', mergedPath);
    if (opts.composite) args.push('--composite', compositePath);
    if (opts.pixels) args.push('--pixels', dir);
    const { stdout } = await run(SYSTEM_PYTHON, args, { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
    const { pixels, ...dump } = JSON.parse(stdout) as PsdToolsDump & { pixels?: PixelsEntry[] };
    return {
      dump,
      ...(pixels ? { pixels: await Promise.all(pixels.map((p) => loadPixels(dir, p))) } : {}),
      ...(opts.merged ? { merged: await loadPng(mergedPath) } : {}),
      ...(opts.composite ? { composite: await loadPng(compositePath) } : {}),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Depth-first, bottom → top, with the path of group names. */
export function flattenPsdTools(
  layers: readonly PsdToolsLayer[],
  parent = '',
): (PsdToolsLayer & { path: string })[] {
  const out: (PsdToolsLayer & { path: string })[] = [];
  for (const l of layers) {
    const p = parent ? `${parent}/${l.name}` : l.name;
    out.push({ ...l, path: p });
    if (l.children) out.push(...flattenPsdTools(l.children, p));
  }
  return out;
}
