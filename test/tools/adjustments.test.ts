/**
 * The adjustment tools on the active layer, driven through the real Session like a model would, and compared
 * against independent references: ImageMagick (/usr/bin/convert, by full path) for invert, levels, desaturate,
 * hue/saturation, auto levels/contrast and Gaussian blur; Python (numpy/scipy and colorsys, /usr/bin/python3)
 * for Photoshop's modern Brightness/Contrast model and the Hue/Saturation lightness rule, where ImageMagick's
 * models differ (written out in the scripts below). The test image is a deterministic photo-like picture
 * (gradients, noise, hard-edged shapes) written to the workspace as PNG and opened with open_document, so
 * ImageMagick reads exactly the pixels we do.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type {
  DocState,
  Mask,
  PixelLayer,
  Raster,
  Rect,
  SmartLayer,
  TextLayer,
} from '../../src/engine/model.js';
import { allocateId, childrenOf, insertLayer, setLayer } from '../../src/engine/tree.js';
import { CONVERT, imageMagickAvailable } from '../support/imagemagick.js';
import { SYSTEM_PYTHON } from '../support/psd-tools.js';
import { hashEditor, newSession, ok, refused, tempDir } from '../support/session.js';
import {
  addGroup,
  addPixel,
  current,
  edit,
  idOf,
  named,
  px,
  rasterOf,
  select,
  solid,
} from './layer-fixtures.js';

const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------------------
// The test image and the references

const W = 240;
const H = 180;

/** A photo-like RGBA picture: smooth gradients, ±12 noise (seeded), a red disc and a blue rectangle. */
function photo(w: number, h: number, seed = 7): Uint8ClampedArray {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const d = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      let r = 128 + 100 * Math.sin(x / 23 + y / 41);
      let g = 30 + (200 * x) / w;
      let b = 60 + 150 * (y / h) * Math.cos(x / 57);
      if ((x - w * 0.3) ** 2 + (y - h * 0.4) ** 2 < (h * 0.2) ** 2) [r, g, b] = [230, 40, 50];
      if (x > w * 0.6 && x < w * 0.85 && y > h * 0.55 && y < h * 0.9) [r, g, b] = [20, 90, 220];
      d[i] = r + (rnd() - 0.5) * 24;
      d[i + 1] = g + (rnd() - 0.5) * 24;
      d[i + 2] = b + (rnd() - 0.5) * 24;
      d[i + 3] = 255;
    }
  }
  return d;
}

const PHOTO = photo(W, H);

interface Opened {
  readonly s: Session;
  /** Absolute path of the PNG the document was opened from (ImageMagick's input). */
  readonly file: string;
}

/** A session with the photo opened from PNG: a single opaque background layer. */
async function openPhoto(): Promise<Opened> {
  const dir = tempDir('atelier-adjust-');
  const file = path.join(dir, 'photo.png');
  await sharp(Buffer.from(PHOTO.buffer), { raw: { width: W, height: H, channels: 4 } })
    .png()
    .toFile(file);
  const s = newSession(dir);
  await ok(s, 'open_document', { path: 'photo.png' });
  return { s, file };
}

/** ImageMagick's result for `input` + `ops`, read at 16 bits and scaled to 0..255 floats (RGBA). */
async function magick(input: string, ops: readonly string[]): Promise<Float64Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'adjust-im-'));
  try {
    const out = path.join(dir, 'out.rgba');
    await run(CONVERT, [input, ...ops, '-endian', 'LSB', '-depth', '16', `rgba:${out}`]);
    const buf = await readFile(out);
    const v = new Float64Array(buf.length / 2);
    for (let i = 0; i < v.length; i++) v[i] = buf.readUInt16LE(i * 2) / 257;
    return v;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs a Python script (the system interpreter, which has numpy and scipy) and returns its stdout. */
async function python(script: string, args: readonly string[] = []): Promise<string> {
  const { stdout } = await run(SYSTEM_PYTHON, ['-c', script, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

interface Diff {
  readonly max: number;
  readonly mean: number;
  readonly count: number;
}

/** Differences over the RGB channels of the pixels `where` accepts (all by default). */
function diff(
  ours: ArrayLike<number>,
  ref: ArrayLike<number>,
  where: (pixel: number) => boolean = () => true,
  channels: readonly number[] = [0, 1, 2],
): Diff {
  let max = 0;
  let sum = 0;
  let count = 0;
  for (let p = 0; p * 4 < ours.length; p++) {
    if (!where(p)) continue;
    for (const c of channels) {
      const e = Math.abs(ours[p * 4 + c]! - ref[p * 4 + c]!);
      if (e > max) max = e;
      sum += e;
      count++;
    }
  }
  return { max, mean: count ? sum / count : 0, count };
}

function layerRaster(s: Session, name = '背景'): Raster {
  return rasterOf(named(current(s), name));
}

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

/** Commits a selection (as the selection tools would): `value(x, y)` over `rect`, `outside` beyond it. */
function setSelection(
  s: Session,
  rect: Rect,
  value: (x: number, y: number) => number = () => 255,
  outside: 0 | 255 = 0,
) {
  const data = new Uint8Array(rect.w * rect.h);
  for (let y = 0; y < rect.h; y++) {
    for (let x = 0; x < rect.w; x++) data[y * rect.w + x] = value(rect.x + x, rect.y + y);
  }
  const mask: Mask = { ...rect, data, outside };
  edit(s, (st) => ({ ...st, selection: mask }));
}

function inRect(r: Rect, x: number, y: number): boolean {
  return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
}

const IM = imageMagickAvailable();

// ---------------------------------------------------------------------------------------------------------
// Against ImageMagick and Python, on the photo

describe.skipIf(!IM)('colour adjustments against ImageMagick', () => {
  let opened: Opened;
  beforeAll(async () => {
    opened = await openPhoto();
  });

  /** Runs `name` on a fresh copy of the photo and returns the background's pixels. */
  async function ours(name: string, args: unknown = {}): Promise<Uint8ClampedArray> {
    const { s } = await openPhoto();
    await ok(s, name, args);
    const r = layerRaster(s);
    expect([r.x, r.y, r.w, r.h]).toEqual([0, 0, W, H]);
    return r.data;
  }

  it('invert_colors = convert -channel RGB -negate (exact; alpha untouched)', async () => {
    const mine = await ours('invert_colors');
    const ref = await magick(opened.file, ['-channel', 'RGB', '-negate', '+channel']);
    expect(diff(mine, ref).max).toBe(0);
    expect(diff(mine, ref, undefined, [3]).max).toBe(0);
  });

  it.each([
    [0, 1, 255],
    [20, 1, 235],
    [30, 0.6, 220],
    [0, 1.8, 200],
    [60, 2.5, 255],
    [5, 0.1, 250],
    [0, 9.99, 255],
  ])('adjust_levels black %d gamma %d white %d = convert -level (±1)', async (black, gamma, white) => {
    const mine = await ours('adjust_levels', { black, gamma, white });
    const pct = (v: number) => `${((v / 255) * 100).toFixed(6)}%`;
    const ref = await magick(opened.file, [
      '-channel',
      'RGB',
      '-level',
      `${pct(black)},${pct(white)},${gamma}`,
    ]);
    const d = diff(mine, ref);
    // Ours rounds the exact curve once; ImageMagick's Q16 value differs by less than one level.
    expect(d.max).toBeLessThanOrEqual(1);
    expect(d.mean).toBeLessThan(0.3);
  });

  it('desaturate = convert -grayscale Lightness, i.e. (max + min)/2 (±0.5)', async () => {
    const mine = await ours('desaturate');
    const ref = await magick(opened.file, ['-grayscale', 'Lightness', '-colorspace', 'sRGB']);
    expect(diff(mine, ref).max).toBeLessThanOrEqual(0.5);
    // and grey: all three channels equal
    for (let i = 0; i < mine.length; i += 4)
      expect(mine[i] === mine[i + 1] && mine[i] === mine[i + 2]).toBe(true);
  });

  /** HSL saturation of a pixel of the photo. */
  function hslSat(p: number): number {
    const r = PHOTO[p * 4]! / 255;
    const g = PHOTO[p * 4 + 1]! / 255;
    const b = PHOTO[p * 4 + 2]! / 255;
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    const l = (max + min) / 2;
    return max === min ? 0 : l > 0.5 ? (max - min) / (2 - max - min) : (max - min) / (max + min);
  }

  // ImageMagick 6's -modulate works in HSL: hue 100 ± 100 = ±180°, saturation scales S by percent/100. Its
  // lightness factor scales L, which is not Photoshop's rule (checked against Python below), so lightness is 0.
  // Photoshop's S/(1 − s + 0.01) for s > 0 is a scale too; ImageMagick does not cap S at 1 (it clips channels),
  // so pixels whose scaled S passes 1 are left out of the comparison. A negative turn is given to ImageMagick
  // as the same positive one: IM 6.9.11 turns a pixel black when a negative shift lands exactly on hue 0.
  it.each([
    [60, 0, 0.99],
    [-120, 0, 0.99],
    [180, 0, 0.99],
    [45, -40, 0.99],
    [0, -100, 0.99],
    [-30, 25, 0.3],
    [90, 10, 0.6],
  ])('adjust_hsl hue %d saturation %d = convert -modulate 100,S,H (±1)', async (hue, saturation, share) => {
    const mine = await ours('adjust_hsl', { hue, saturation, lightness: 0 });
    const scale = saturation > 0 ? 1 / (1 - saturation / 100 + 0.01) : 1 + saturation / 100;
    const turn = (hue + 360) % 360;
    const ref = await magick(opened.file, ['-modulate', `100,${scale * 100},${100 + turn / 1.8}`]);
    const d = diff(mine, ref, (p) => scale <= 1 || hslSat(p) * scale <= 0.999);
    expect(d.count).toBeGreaterThan(W * H * 3 * share);
    expect(d.max).toBeLessThanOrEqual(1);
    expect(d.mean).toBeLessThan(0.3);
  });

  it('adjust_hsl with lightness follows Photoshop’s rule (Python colorsys reference, ±1)', async () => {
    const script = `
import sys, colorsys, numpy as np
hue, sat, light = (float(v) for v in sys.argv[1:4])
a = np.fromfile(sys.argv[4], dtype=np.uint8).reshape(-1, 4)
L = light / 100; s = sat / 100
out = np.empty((len(a), 3))
for i, px in enumerate(a[:, :3] / 255.0):
    # Photoshop (psd-tools): lightness in RGB first, toward white or black
    rgb = [v * (1 - L) + L if L > 0 else v * (1 + L) for v in px]
    h, l, sa = colorsys.rgb_to_hls(*rgb)
    h = (h + hue / 360) % 1
    sa = min(1.0, sa / (1 - s + 0.01)) if s > 0 else sa * (1 + s)
    out[i] = [v * 255 for v in colorsys.hls_to_rgb(h, l, sa)]
out.astype('<f8').tofile(sys.argv[5])
`;
    const dir = await mkdtemp(path.join(tmpdir(), 'adjust-py-'));
    try {
      await writeFile(path.join(dir, 'in.rgba'), PHOTO);
      for (const [hue, sat, light] of [
        [0, 0, 40],
        [0, 0, -60],
        [30, 20, -25],
        [-150, 50, 70],
        [10, -100, -10],
      ] as const) {
        await python(script, [
          `${hue}`,
          `${sat}`,
          `${light}`,
          path.join(dir, 'in.rgba'),
          path.join(dir, 'out'),
        ]);
        const buf = await readFile(path.join(dir, 'out'));
        const ref = new Float64Array(buf.buffer, buf.byteOffset, buf.length / 8);
        const mine = await ours('adjust_hsl', { hue, saturation: sat, lightness: light });
        let max = 0;
        for (let p = 0; p < W * H; p++) {
          for (let c = 0; c < 3; c++) max = Math.max(max, Math.abs(mine[p * 4 + c]! - ref[p * 3 + c]!));
        }
        expect(max, `hue ${hue} sat ${sat} light ${light}`).toBeLessThanOrEqual(1);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('adjust_brightness_contrast follows psd-tools’ model of Photoshop’s modern curve (numpy/scipy, ±1)', async () => {
    // ImageMagick's -brightness-contrast is a linear model (Photoshop's "Use Legacy"), so the reference is
    // psd-tools' reverse-engineered non-legacy curve, written out plainly with scipy's natural cubic spline.
    const script = `
import sys, numpy as np
from scipy.interpolate import CubicSpline
b = float(sys.argv[1]) / 150; c = float(sys.argv[2]) / 100
t = np.linspace(0.0, 1.0, 256)
x = np.array([0.0, 63.0, 191.0, 255.0]) / 255
y = np.array([0.0, (63 - 25 * c) / 255, (191 + 25 * c) / 255, 1.0])
contrast = CubicSpline(x, y, bc_type='natural')(t)
h = 0.5 * (abs(b) * (1.65 * t ** 0.35 - t ** 10) + (1 - abs(b)) * (1.96 * t ** 0.4 + t ** 4) + t ** 1.25)
bs = b * t * (1 - t) * h
lut = np.clip(np.interp(t, t - bs, contrast + bs), 0, 1) * 255
print(' '.join(repr(float(v)) for v in lut))
`;
    for (const [brightness, contrast] of [
      [50, 0],
      [-80, 0],
      [0, 60],
      [0, -50],
      [150, 100],
      [-150, -50],
      [30, 40],
    ] as const) {
      const lut = (await python(script, [`${brightness}`, `${contrast}`])).trim().split(' ').map(Number);
      expect(lut).toHaveLength(256);
      const mine = await ours('adjust_brightness_contrast', { brightness, contrast });
      let max = 0;
      for (let i = 0; i < mine.length; i++) {
        if (i % 4 === 3) expect(mine[i]).toBe(255);
        else max = Math.max(max, Math.abs(mine[i]! - lut[PHOTO[i]!]!));
      }
      expect(max, `brightness ${brightness} contrast ${contrast}`).toBeLessThanOrEqual(0.5 + 1e-6);
    }
  });

  it('brightness/contrast: black and white stay put, brightness lifts midtones, contrast spreads them', async () => {
    const { s } = await openPhoto();
    edit(s, (st) => {
      const grey = new Uint8ClampedArray(256 * 4);
      for (let v = 0; v < 256; v++) grey.set([v, v, v, 255], v * 4);
      return select(addPixel(st, 'ramp', { x: 0, y: 0, w: 256, h: 1, data: grey }), 'ramp');
    });
    const at = async (b: number, c: number) => {
      const t = newSessionFrom(current(s));
      await ok(t, 'adjust_brightness_contrast', { brightness: b, contrast: c });
      const r = layerRaster(t, 'ramp');
      return (v: number) => r.data[v * 4]!;
    };
    const bright = await at(100, 0);
    expect([bright(0), bright(255)]).toEqual([0, 255]);
    expect(bright(128)).toBeGreaterThan(150);
    const contrast = await at(0, 80);
    expect([contrast(0), contrast(255)]).toEqual([0, 255]);
    expect(contrast(63)).toBeLessThan(63 - 15);
    expect(contrast(191)).toBeGreaterThan(191 + 15);
  });

  it('auto_levels = convert -channel X -contrast-stretch 0.1%x0.1% per channel (±1), and reports the points', async () => {
    const { s } = await openPhoto();
    const r = await ok(s, 'auto_levels');
    const mine = layerRaster(s).data;
    const channels = r.channels as Record<string, { black: number; white: number }>;
    expect(r.clip_percent).toBe(0.1);
    for (const [c, name] of (['R', 'G', 'B'] as const).entries()) {
      const ref = await magick(opened.file, ['-channel', name, '-contrast-stretch', '0.1%x0.1%', '+channel']);
      const d = diff(mine, ref, undefined, [c]);
      expect(d.max, name).toBeLessThanOrEqual(1);
      // the reported points, counted plainly: at most 0.1 % of the pixels lie below black / above white
      const { black, white } = channels[['red', 'green', 'blue'][c]!]!;
      let below = 0;
      let above = 0;
      for (let p = 0; p < W * H; p++) {
        if (PHOTO[p * 4 + c]! < black) below++;
        if (PHOTO[p * 4 + c]! > white) above++;
      }
      expect(below).toBeLessThanOrEqual(W * H * 0.001);
      expect(above).toBeLessThanOrEqual(W * H * 0.001);
      expect(black).toBeGreaterThanOrEqual(0);
      expect(white).toBeGreaterThan(black);
    }
    // per channel: the channels end up with different black points than auto contrast would give
    const ranges = Object.values(channels);
    expect(
      new Set(ranges.map((v) => v.black)).size + new Set(ranges.map((v) => v.white)).size,
    ).toBeGreaterThan(2);
  });

  it('auto_contrast clips R, G and B together: ImageMagick -contrast-stretch on the three planes stacked (±1)', async () => {
    const { s } = await openPhoto();
    const r = await ok(s, 'auto_contrast');
    const mine = layerRaster(s).data;
    // One histogram over all three channels: stack the R, G and B planes into one grey image and stretch it.
    const dir = await mkdtemp(path.join(tmpdir(), 'adjust-im-'));
    try {
      const out = path.join(dir, 'stack.gray');
      await run(CONVERT, [
        opened.file,
        '-alpha',
        'off',
        '-separate',
        '-append',
        '-contrast-stretch',
        '0.1%x0.1%',
        '-depth',
        '16',
        '-endian',
        'LSB',
        `gray:${out}`,
      ]);
      const buf = await readFile(out);
      let max = 0;
      for (let c = 0; c < 3; c++) {
        for (let p = 0; p < W * H; p++) {
          const ref = buf.readUInt16LE((c * W * H + p) * 2) / 257;
          max = Math.max(max, Math.abs(mine[p * 4 + c]! - ref));
        }
      }
      expect(max).toBeLessThanOrEqual(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // the same stretch on every channel: hue relationships kept
    expect(typeof r.black).toBe('number');
    expect(r.white as number).toBeGreaterThan(r.black as number);
    const lo = r.black as number;
    const k = 255 / ((r.white as number) - lo);
    for (let i = 0; i < mine.length; i += 97) {
      if (i % 4 === 3) continue;
      expect(Math.abs(mine[i]! - Math.min(255, Math.max(0, (PHOTO[i]! - lo) * k)))).toBeLessThanOrEqual(
        0.5 + 1e-9,
      );
    }
  });

  it.each([
    [1, 6, 2],
    [3, 3, 0.5],
    [10, 3, 0.5],
  ])(
    'gaussian_blur radius %d = convert -gaussian-blur 0xσ on the opaque photo (max %d, mean %d)',
    async (radius, maxTol, meanTol) => {
      // Photoshop's radius is σ. The background replicates its edges, as ImageMagick's default virtual pixels do.
      // libvips' fast integer Gaussian requantises its mask (SIMD path), hence the few levels at small σ.
      const mine = await ours('gaussian_blur', { radius });
      const ref = await magick(opened.file, ['-channel', 'RGBA', '-gaussian-blur', `0x${radius}`]);
      const d = diff(mine, ref, undefined, [0, 1, 2, 3]);
      expect(d.max).toBeLessThanOrEqual(maxTol);
      expect(d.mean).toBeLessThanOrEqual(meanTol);
    },
  );

  it('gaussian_blur with a large radius (shrunk detour) = convert -blur 0xσ (max 6, mean 1)', async () => {
    // Above σ 32 the layer is box-shrunk, blurred with a float mask and enlarged back (libvips' integer mask
    // gets slow and leaves its SIMD path for such radii). ImageMagick's separable -blur has a full-width kernel.
    const dir = tempDir('atelier-adjust-');
    const file = path.join(dir, 'big.png');
    const [bw, bh] = [600, 400];
    await sharp(Buffer.from(photo(bw, bh, 11).buffer), { raw: { width: bw, height: bh, channels: 4 } })
      .png()
      .toFile(file);
    for (const radius of [40, 120]) {
      const s = newSession(dir);
      await ok(s, 'open_document', { path: 'big.png' });
      await ok(s, 'gaussian_blur', { radius });
      const mine = layerRaster(s);
      expect([mine.w, mine.h]).toEqual([bw, bh]);
      const ref = await magick(file, ['-channel', 'RGBA', '-blur', `0x${radius}`]);
      const d = diff(mine.data, ref);
      expect(d.max, `radius ${radius}`).toBeLessThanOrEqual(6);
      expect(d.mean).toBeLessThanOrEqual(1);
    }
  });

  it('gaussian_blur below σ 0.5 (exact JS kernel) = convert -gaussian-blur (±1)', async () => {
    for (const radius of [0.3, 0.45]) {
      const mine = await ours('gaussian_blur', { radius });
      const ref = await magick(opened.file, ['-channel', 'RGBA', '-gaussian-blur', `0x${radius}`]);
      const d = diff(mine, ref);
      expect(d.max, `radius ${radius}`).toBeLessThanOrEqual(1);
      expect(d.mean).toBeLessThan(0.3);
      expect(diff(mine, PHOTO).max, 'it did blur').toBeGreaterThan(1);
    }
  });
});

/** A session whose active document is `state` (committed straight through the editor). */
function newSessionFrom(state: DocState): Session {
  const s = newSession();
  const tx = s.editor.begin();
  tx.addDocument('copy', state, 'test');
  s.editor.commit(tx, 'test', true);
  return s;
}

// ---------------------------------------------------------------------------------------------------------
// Transparency

/** A 120×100 document: background, then layer 'L': a red 20×20 square at (50,40) plus a half-transparent strip. */
async function transparentDoc(props: Partial<PixelLayer> = {}): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 120, height: 100 });
  edit(s, (st) => {
    const data = new Uint8ClampedArray(30 * 30 * 4);
    for (let y = 0; y < 30; y++) {
      for (let x = 0; x < 30; x++) {
        const i = (y * 30 + x) * 4;
        if (x < 20 && y < 20) data.set([230, 30, 40, 255], i);
        else if (y >= 25) data.set([40, 200, 90, 128], i);
      }
    }
    return select(addPixel(st, 'L', { x: 50, y: 40, w: 30, h: 30, data }, props), 'L');
  });
  return s;
}

describe('transparent pixels', () => {
  it.each([
    ['invert_colors', {}],
    ['desaturate', {}],
    ['adjust_levels', { black: 30, gamma: 1.4, white: 220 }],
    ['adjust_hsl', { hue: 90, saturation: 30, lightness: 20 }],
    ['adjust_brightness_contrast', { brightness: 60, contrast: 30 }],
    ['auto_levels', {}],
    ['auto_contrast', {}],
  ])('%s never changes alpha, and transparent pixels stay transparent', async (name, args) => {
    const s = await transparentDoc();
    const before = layerRaster(s, 'L');
    await ok(s, name, args);
    const after = layerRaster(s, 'L');
    expect([after.x, after.y, after.w, after.h]).toEqual([before.x, before.y, before.w, before.h]);
    let changed = 0;
    for (let i = 0; i < after.data.length; i += 4) {
      expect(after.data[i + 3]).toBe(before.data[i + 3]);
      if (before.data[i + 3] === 0) expect([...after.data.subarray(i, i + 4)]).toEqual([0, 0, 0, 0]);
      if (after.data[i] !== before.data[i] || after.data[i + 1] !== before.data[i + 1]) changed++;
    }
    expect(changed).toBeGreaterThan(0);
    expect(before.data).not.toBe(after.data);
  });

  it('gaussian_blur spreads beyond the old bounds without darkening edges', async () => {
    const s = await transparentDoc();
    const before = layerRaster(s, 'L');
    const r = await ok(s, 'gaussian_blur', { radius: 3 });
    const after = layerRaster(s, 'L');
    expect(after.x).toBeLessThan(before.x);
    expect(after.y).toBeLessThan(before.y);
    expect(after.x + after.w).toBeGreaterThan(before.x + before.w);
    expect(after.y + after.h).toBeGreaterThan(before.y + before.h);
    // reach ≈ 2.7σ: never further than 3σ
    expect(before.x - after.x).toBeLessThanOrEqual(9);
    expect(r.bounds_before).toMatchObject({ left: 50, top: 40, width: 30, height: 30 });
    // Around the red square's top-left corner only red is blurred: every visible pixel keeps red's colour. A
    // blur that ignored alpha would mix in the transparent pixels' black (R ≈ 230·α/255 at the fringe). What is
    // left is libvips' 8-bit premultiplication (truncating casts before and after its integer blur): within two
    // levels of premultiplied colour, |ΔR|·α/255 ≤ 2, where ignoring alpha would be off by up to 230·(1 − α/255).
    let fringe = 0;
    for (let y = after.y; y < 52; y++) {
      for (let x = after.x; x < 62; x++) {
        const [pr, pg, pb, pa] = px(after, x, y);
        if (pa === 0) continue;
        fringe++;
        expect((Math.abs(pr! - 230) * pa!) / 255, `(${x},${y}) α ${pa}`).toBeLessThanOrEqual(2);
        expect((Math.abs(pg! - 30) * pa!) / 255).toBeLessThanOrEqual(2);
        expect((Math.abs(pb! - 40) * pa!) / 255).toBeLessThanOrEqual(2);
        if (pa! >= 128) expect(Math.abs(pr! - 230)).toBeLessThanOrEqual(3);
      }
    }
    expect(fringe).toBeGreaterThan(100);
    // Alpha is conserved (a blur moves coverage, it does not create or lose it) — within rounding.
    const mass = (rr: Raster) => rr.data.reduce((acc, v, i) => (i % 4 === 3 ? acc + v : acc), 0);
    expect(Math.abs(mass(after) - mass(before)) / mass(before)).toBeLessThan(0.01);
  });

  it.skipIf(!IM)(
    'gaussian_blur of a transparent layer = ImageMagick blurring premultiplied colour and alpha',
    async () => {
      const s = await transparentDoc();
      const o = layerRaster(s, 'L');
      await ok(s, 'gaussian_blur', { radius: 2.5 });
      const after = layerRaster(s, 'L');
      // The layer placed in a transparent 120×100 canvas (wide enough margins for the blur to spread into).
      const dir = tempDir('adjust-t-');
      const file = path.join(dir, 'layer.png');
      const canvas = new Uint8ClampedArray(120 * 100 * 4);
      for (let y = 0; y < o.h; y++)
        canvas.set(o.data.subarray(y * o.w * 4, (y + 1) * o.w * 4), ((o.y + y) * 120 + o.x) * 4);
      await sharp(Buffer.from(canvas.buffer), { raw: { width: 120, height: 100, channels: 4 } })
        .png()
        .toFile(file);
      // ImageMagick 6 blurs RGBA channels independently (transparent black bleeds in), so the reference blurs the
      // colour premultiplied (flattened on black) and the alpha separately, then divides: Photoshop's behaviour.
      const ref = await magick(file, [
        '(',
        '-clone',
        '0',
        '-background',
        'black',
        '-alpha',
        'remove',
        '-alpha',
        'off',
        '-gaussian-blur',
        '0x2.5',
        ')',
        '(',
        '-clone',
        '0',
        '-alpha',
        'extract',
        '-gaussian-blur',
        '0x2.5',
        ')',
        '-delete',
        '0',
        '(',
        '-clone',
        '0',
        '-clone',
        '1',
        '-compose',
        'DivideSrc',
        '-composite',
        ')',
        '-delete',
        '0',
        '+swap',
        '-alpha',
        'off',
        '-compose',
        'CopyOpacity',
        '-composite',
      ]);
      let alphaMax = 0;
      let premulMax = 0;
      for (let y = 0; y < 100; y++) {
        for (let x = 0; x < 120; x++) {
          const p = (y * 120 + x) * 4;
          const mine = px(after, x, y);
          alphaMax = Math.max(alphaMax, Math.abs(mine[3]! - ref[p + 3]!));
          for (let c = 0; c < 3; c++) {
            premulMax = Math.max(
              premulMax,
              Math.abs((mine[c]! * mine[3]!) / 255 - (ref[p + c]! * ref[p + 3]!) / 255),
            );
          }
        }
      }
      // libvips' integer mask (see the opaque comparison), in alpha and in premultiplied colour.
      expect(alphaMax).toBeLessThanOrEqual(3);
      expect(premulMax).toBeLessThanOrEqual(3);
    },
  );

  it('gaussian_blur stays inside the canvas', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 60, height: 40 });
    edit(s, (st) =>
      select(addPixel(st, 'edge', solid({ x: 0, y: 30, w: 20, h: 10 }, [0, 0, 255, 255])), 'edge'),
    );
    await ok(s, 'gaussian_blur', { radius: 4 });
    const r = layerRaster(s, 'edge');
    expect(r.x).toBe(0);
    expect(r.y).toBeLessThan(30);
    expect(r.y + r.h).toBe(40);
    // replicated nothing at the canvas edge: the corner is blurred with transparency, so alpha drops below 255
    expect(px(r, 0, 39)[3]).toBeLessThan(255);
  });

  it('gaussian_blur with locked transparency blurs colour only', async () => {
    const locks = { all: false, pixels: false, position: false, transparency: true };
    const s = await transparentDoc({ locks });
    const before = layerRaster(s, 'L');
    const r = await ok(s, 'gaussian_blur', { radius: 3 });
    const after = layerRaster(s, 'L');
    expect([after.x, after.y, after.w, after.h]).toEqual([before.x, before.y, before.w, before.h]);
    for (let i = 3; i < after.data.length; i += 4) expect(after.data[i]).toBe(before.data[i]);
    expect(String(r.notes)).toContain('透明');
    // the red square's edge next to the green strip mixed colours
    expect(px(after, 55, 59)[1]).toBeGreaterThan(30);
  });

  it('gaussian_blur on the background keeps it canvas-sized and opaque', async () => {
    const { s } = await openPhoto();
    await ok(s, 'gaussian_blur', { radius: 6 });
    const r = layerRaster(s);
    expect([r.x, r.y, r.w, r.h]).toEqual([0, 0, W, H]);
    for (let i = 3; i < r.data.length; i += 4) expect(r.data[i]).toBe(255);
    expect(named(current(s), '背景')).toMatchObject({ kind: 'pixel', background: true });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Selection

describe('limited to the selection', () => {
  const SEL = { x: 40, y: 30, w: 100, h: 70 };

  it('a rectangular selection: inside adjusted, outside untouched', async () => {
    const { s } = await openPhoto();
    setSelection(s, SEL);
    const r = await ok(s, 'invert_colors');
    expect(r.limited_to_selection).toBe(true);
    const out = layerRaster(s);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = (y * W + x) * 4;
        const want = inRect(SEL, x, y)
          ? [255 - PHOTO[i]!, 255 - PHOTO[i + 1]!, 255 - PHOTO[i + 2]!, 255]
          : [...PHOTO.subarray(i, i + 4)];
        expect([...out.data.subarray(i, i + 4)]).toEqual(want);
      }
    }
  });

  it('a feathered selection mixes old and new by the mask value (±1)', async () => {
    const { s } = await openPhoto();
    // a horizontal ramp 0 → 255 across the selection rectangle
    const ramp = (x: number) => Math.round(((x - SEL.x) / (SEL.w - 1)) * 255);
    setSelection(s, SEL, ramp);
    await ok(s, 'adjust_levels', { black: 40, gamma: 0.5, white: 200 });
    const out = layerRaster(s);
    const level = (v: number) => 255 * Math.min(1, Math.max(0, (v - 40) / 160)) ** 2;
    let max = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const m = inRect(SEL, x, y) ? ramp(x) / 255 : 0;
        for (let c = 0; c < 3; c++) {
          const i = (y * W + x) * 4 + c;
          const want = PHOTO[i]! + (Math.round(level(PHOTO[i]!)) - PHOTO[i]!) * m;
          max = Math.max(max, Math.abs(out.data[i]! - want));
        }
      }
    }
    expect(max).toBeLessThanOrEqual(1);
  });

  it('an inverted selection (outside = selected) adjusts everything but the hole', async () => {
    const { s } = await openPhoto();
    setSelection(s, SEL, () => 0, 255);
    await ok(s, 'adjust_hsl', { hue: 0, saturation: -100, lightness: 0 });
    const out = layerRaster(s);
    for (const [x, y] of [
      [5, 5],
      [W - 1, H - 1],
      [SEL.x - 1, SEL.y + 5],
      [SEL.x + SEL.w, SEL.y],
    ] as const) {
      const [r, g, b] = px(out, x, y);
      expect(r === g && g === b, `(${x},${y}) grey`).toBe(true);
    }
    const i = ((SEL.y + 10) * W + SEL.x + 10) * 4;
    expect(px(out, SEL.x + 10, SEL.y + 10)).toEqual([...PHOTO.subarray(i, i + 4)]);
  });

  it('gaussian_blur inside a hard selection equals the full blur there, and the original outside', async () => {
    const full = await openPhoto();
    await ok(full.s, 'gaussian_blur', { radius: 2 });
    const blurred = layerRaster(full.s);
    const { s } = await openPhoto();
    setSelection(s, SEL);
    await ok(s, 'gaussian_blur', { radius: 2 });
    const out = layerRaster(s);
    expect([out.x, out.y, out.w, out.h]).toEqual([0, 0, W, H]);
    for (let y = 0; y < H; y += 3) {
      for (let x = 0; x < W; x += 3) {
        const i = (y * W + x) * 4;
        const want = inRect(SEL, x, y) ? blurred.data : PHOTO;
        expect([...out.data.subarray(i, i + 4)], `(${x},${y})`).toEqual([...want.subarray(i, i + 4)]);
      }
    }
  });

  it('with the real selection tools: select_rect + feather_selection, then adjust_hsl', async () => {
    const { s } = await openPhoto();
    await ok(s, 'select_rect', { left: SEL.x, top: SEL.y, right: SEL.x + SEL.w, bottom: SEL.y + SEL.h });
    await ok(s, 'feather_selection', { radius: 6 });
    const mask = current(s).selection!;
    await ok(s, 'adjust_hsl', { hue: 0, saturation: -100, lightness: 0 });
    const out = layerRaster(s);
    // every pixel = original + (grey − original)·m/255 for the feathered mask m (±1)
    let max = 0;
    let partial = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const mx = x - mask.x;
        const my = y - mask.y;
        const m =
          mx >= 0 && my >= 0 && mx < mask.w && my < mask.h ? mask.data[my * mask.w + mx]! : mask.outside;
        if (m > 0 && m < 255) partial++;
        const i = (y * W + x) * 4;
        // the HSL lightness, unrounded (the kernel rounds it once, then the mix rounds again: ±1 in all)
        const grey =
          (Math.max(PHOTO[i]!, PHOTO[i + 1]!, PHOTO[i + 2]!) +
            Math.min(PHOTO[i]!, PHOTO[i + 1]!, PHOTO[i + 2]!)) /
          2;
        for (let c = 0; c < 3; c++) {
          max = Math.max(
            max,
            Math.abs(out.data[i + c]! - (PHOTO[i + c]! + ((grey - PHOTO[i + c]!) * m) / 255)),
          );
        }
      }
    }
    expect(partial).toBeGreaterThan(500);
    expect(max).toBeLessThanOrEqual(1);
  });

  it('auto_levels measures only the selected pixels', async () => {
    const { s } = await openPhoto();
    // the blue rectangle alone: its red channel is ~20 ± 12
    const blue = { x: 150, y: 105, w: 50, h: 50 };
    setSelection(s, blue);
    const r = await ok(s, 'auto_levels');
    const red = (r.channels as Record<string, { black: number; white: number }>).red!;
    expect(red.black).toBeGreaterThanOrEqual(5);
    expect(red.white).toBeLessThanOrEqual(35);
  });

  it('a selection over transparent pixels only is refused, and nothing changes', async () => {
    const s = await transparentDoc();
    setSelection(s, { x: 0, y: 0, w: 30, h: 30 });
    const e = await refused(s, 'invert_colors', {}, 'invalid_state');
    expect(e.message).toContain('选区');
    expect(e.hint).toContain('deselect');
    await refused(s, 'gaussian_blur', { radius: 2 }, 'invalid_state');
    await refused(s, 'auto_levels', {}, 'invalid_state');
  });

  it('gaussian_blur may fill a selected transparent area next to the content', async () => {
    const s = await transparentDoc();
    // selection just left of the red square (x 40..50), over transparent pixels only
    setSelection(s, { x: 40, y: 40, w: 10, h: 20 });
    await ok(s, 'gaussian_blur', { radius: 3 });
    const after = layerRaster(s, 'L');
    expect(after.x).toBeLessThan(50);
    expect(px(after, 49, 45)[3]).toBeGreaterThan(0);
    // outside the selection the square is as it was
    expect(px(after, 60, 45)).toEqual([230, 30, 40, 255]);
    expect(px(after, 50, 39)).toEqual([0, 0, 0, 0]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Refusals, history, background

function textLayer(id: number, name: string): TextLayer {
  const raster = solid({ x: 5, y: 5, w: 10, h: 10 }, [0, 0, 0, 255]);
  return {
    id,
    name,
    kind: 'text',
    visible: true,
    opacity: 1,
    blend: 'normal',
    clipped: false,
    locks: { all: false, pixels: false, position: false, transparency: false },
    text: {
      content: '你好',
      x: 5,
      y: 5,
      size: 10,
      color: { r: 0, g: 0, b: 0 },
      font: 'Noto Sans SC',
      renderedFont: 'Noto Sans SC',
    },
    raster,
  };
}

function smartLayer(id: number, name: string): SmartLayer {
  const raster = solid({ x: 5, y: 5, w: 10, h: 10 }, [200, 0, 0, 255]);
  return {
    id,
    name,
    kind: 'smart',
    visible: true,
    opacity: 1,
    blend: 'normal',
    clipped: false,
    locks: { all: false, pixels: false, position: false, transparency: false },
    source: raster,
    transform: { cx: 10, cy: 10, scaleX: 1, scaleY: 1, angle: 0 },
    raster,
  };
}

function addBuilt(st: DocState, build: (id: number) => TextLayer | SmartLayer): DocState {
  const [id, next] = allocateId(st);
  return insertLayer(next, build(id), null, childrenOf(next, null).length);
}

const TOOLS: readonly [string, Record<string, unknown>][] = [
  ['adjust_brightness_contrast', { brightness: 20, contrast: 10 }],
  ['desaturate', {}],
  ['gaussian_blur', { radius: 2 }],
  ['auto_levels', {}],
  ['auto_contrast', {}],
  ['invert_colors', {}],
  ['adjust_levels', { black: 10, gamma: 1.2, white: 240 }],
  ['adjust_hsl', { hue: 20, saturation: 10, lightness: 0 }],
];

async function kindsDoc(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 40, height: 30 });
  edit(s, (st) => {
    let next = addBuilt(st, (id) => textLayer(id, 'T'));
    next = addBuilt(next, (id) => smartLayer(id, 'S'));
    next = addGroup(next, 'G');
    next = addPixel(next, 'inner', solid({ x: 0, y: 0, w: 5, h: 5 }, [10, 20, 30, 255]), {}, idOf(next, 'G'));
    next = addPixel(next, 'P', solid({ x: 2, y: 2, w: 8, h: 8 }, [100, 150, 200, 255]));
    return addPixel(next, 'empty', { x: 0, y: 0, w: 0, h: 0, data: new Uint8ClampedArray(0) });
  });
  return s;
}

function activate(s: Session, name: string) {
  edit(s, (st) => select(st, name));
}

describe('refusals leave the document unchanged', () => {
  it.each(TOOLS)(
    '%s refuses text and smart-object layers with a hint to rasterize, and groups',
    async (name, args) => {
      const s = await kindsDoc();
      activate(s, 'T');
      let e = await refused(s, name, args, 'invalid_state');
      expect(e.message).toContain('文字图层');
      expect(e.hint).toContain('rasterize_layer');
      activate(s, 'S');
      e = await refused(s, name, args, 'invalid_state');
      expect(e.message).toContain('智能对象');
      expect(e.hint).toContain('rasterize_layer');
      activate(s, 'G');
      e = await refused(s, name, args, 'invalid_state');
      expect(e.message).toContain('图层组');
    },
  );

  it.each(TOOLS)(
    '%s refuses locked pixels (lock all, pixel lock, locked group) and empty layers',
    async (name, args) => {
      const s = await kindsDoc();
      activate(s, 'P');
      await ok(s, 'lock_layer', { name: 'P', locked: true });
      const e = await refused(s, name, args, 'locked');
      expect(e.hint).toContain('lock_layer');
      edit(s, (st) => {
        const p = named(st, 'P') as PixelLayer;
        return setLayer(st, {
          ...p,
          locks: { all: false, pixels: true, position: false, transparency: false },
        });
      });
      await refused(s, name, args, 'locked');
      edit(s, (st) => {
        const g = named(st, 'G');
        return select(setLayer(st, { ...g, locks: { ...g.locks, all: true } }), 'inner');
      });
      expect((await refused(s, name, args, 'locked')).message).toContain('图层组');
      activate(s, 'empty');
      expect((await refused(s, name, args, 'invalid_state')).message).toContain('空');
    },
  );

  it.each([
    ['adjust_brightness_contrast', { brightness: 151, contrast: 0 }],
    ['adjust_brightness_contrast', { brightness: 0, contrast: -51 }],
    ['adjust_brightness_contrast', { brightness: 0, contrast: 101 }],
    ['adjust_brightness_contrast', { brightness: 10 }],
    ['gaussian_blur', { radius: 0 }],
    ['gaussian_blur', { radius: 1000.5 }],
    ['gaussian_blur', { radius: 'wide' }],
    ['adjust_levels', { black: 254, gamma: 1, white: 255 }],
    ['adjust_levels', { black: 0, gamma: 0.05, white: 255 }],
    ['adjust_levels', { black: 0, gamma: 10, white: 255 }],
    ['adjust_levels', { black: 0, gamma: 1, white: 1 }],
    ['adjust_levels', { black: 100, gamma: 1, white: 100 }],
    ['adjust_levels', { black: 120, gamma: 1, white: 90 }],
    ['adjust_hsl', { hue: 181, saturation: 0, lightness: 0 }],
    ['adjust_hsl', { hue: 0, saturation: -101, lightness: 0 }],
    ['adjust_hsl', { hue: 0, saturation: 0, lightness: 100.5 }],
    ['invert_colors', { amount: 1 }],
  ])('%s %j is refused as invalid_arguments', async (name, args) => {
    const s = await kindsDoc();
    activate(s, 'P');
    const e = await refused(s, name, args, 'invalid_arguments');
    expect(e.message.length).toBeGreaterThan(0);
  });

  it('every tool needs an open document', async () => {
    const s = newSession();
    for (const [name, args] of TOOLS) await refused(s, name, args, 'no_document');
  });
});

describe('history and the lazy background', () => {
  it.each(TOOLS)(
    '%s adds exactly one step labelled like Photoshop, and undo restores the pixels',
    async (name, args) => {
      const { s } = await openPhoto();
      const before = layerRaster(s);
      const steps = labels(s).length;
      await ok(s, name, args);
      expect(labels(s)).toHaveLength(steps + 1);
      const label = {
        adjust_brightness_contrast: '亮度/对比度',
        desaturate: '去色',
        gaussian_blur: '高斯模糊',
        auto_levels: '自动色阶',
        auto_contrast: '自动对比度',
        invert_colors: '反相',
        adjust_levels: '色阶',
        adjust_hsl: '色相/饱和度',
      }[name];
      expect(labels(s).at(-1)).toBe(label);
      expect(layerRaster(s).data).not.toBe(before.data);
      await ok(s, 'undo', { steps: 1 });
      expect(layerRaster(s)).toBe(before);
    },
  );

  it('parameters that change nothing add no step and say so', async () => {
    const { s } = await openPhoto();
    const before = s.editor.snapshot;
    const steps = labels(s).length;
    const state = current(s);
    for (const [name, args] of [
      ['adjust_brightness_contrast', { brightness: 0, contrast: 0 }],
      ['adjust_levels', { black: 0, gamma: 1, white: 255 }],
      ['adjust_hsl', { hue: 0, saturation: 0, lightness: 0 }],
      ['gaussian_blur', { radius: 0.1 }],
    ] as const) {
      const r = await ok(s, name, args);
      expect(r.changed, name).toBe(false);
      expect(String(r.note)).not.toBe('');
      expect(current(s)).toBe(state);
      expect(labels(s)).toHaveLength(steps);
      expect(hashEditor(s.editor.snapshot)).toBe(hashEditor(before));
    }
  });

  it('the lazy white background becomes canvas-sized pixels and stays the background', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 50, height: 40 });
    expect(named(current(s), '背景').kind).toBe('fill');
    const r = await ok(s, 'invert_colors');
    const bg = named(current(s), '背景') as PixelLayer;
    expect(bg).toMatchObject({ kind: 'pixel', background: true });
    expect([bg.raster.x, bg.raster.y, bg.raster.w, bg.raster.h]).toEqual([0, 0, 50, 40]);
    expect(px(bg.raster, 10, 10)).toEqual([0, 0, 0, 255]);
    expect(r.layer).toMatchObject({ name: '背景', type: 'pixel', background: true });
    // a flat white layer: auto levels has nothing to stretch, and says so without materialising
    const t = newSession();
    await ok(t, 'create_document', { width: 50, height: 40 });
    const before = current(t);
    const a = await ok(t, 'auto_levels');
    expect(a.changed).toBe(false);
    expect(current(t)).toBe(before);
    expect(named(current(t), '背景').kind).toBe('fill');
  });

  it('a hidden layer is adjusted, with a note saying it cannot be seen', async () => {
    const s = await transparentDoc({ visible: false });
    const r = await ok(s, 'invert_colors');
    expect(String(r.notes)).toContain('隐藏');
    expect(px(layerRaster(s, 'L'), 50, 40)).toEqual([25, 225, 215, 255]);
  });

  it('an empty layer under a selection is called empty, not the selection', async () => {
    const s = await kindsDoc();
    activate(s, 'empty');
    setSelection(s, { x: 0, y: 0, w: 10, h: 10 });
    for (const [name, args] of TOOLS) {
      const e = await refused(s, name, args, 'invalid_state');
      expect(e.message, name).toMatch(/空|选区/);
    }
    expect((await refused(s, 'gaussian_blur', { radius: 3 }, 'invalid_state')).message).toContain('是空的');
  });

  it('buffers are never modified in place: the previous state keeps its pixels', async () => {
    const s = await transparentDoc();
    const before = layerRaster(s, 'L');
    const copy = before.data.slice();
    for (const [name, args] of TOOLS) await ok(s, name, args);
    expect(before.data).toEqual(copy);
  });
});
