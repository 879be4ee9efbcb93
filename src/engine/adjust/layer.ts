/**
 * The adjustments of Photoshop's adjustment layers (model.ts AdjustmentLayer), as colour kernels the compositor
 * runs over what lies below: Curves, Levels, Brightness/Contrast, Hue/Saturation (master or Colorize), Invert, Posterize and
 * Threshold, Channel Mixer and Black & White — the ones whose formulas are known (engine.md §1.2–§1.5; the
 * curves as Photoshop draws them, a natural cubic spline through the points). Any other adjustment, or settings
 * these do not cover (per-range Hue/Saturation, legacy Brightness/Contrast), has no kernel: the layer is kept
 * and not drawn, and saying so is the caller's part. So has every adjustment of a CMYK document: Photoshop runs
 * it on the inks (a CMYK Invert inverts C, M, Y and K), which the sRGB pixels the engine composites are not.
 */
import type { Color as AgColor } from 'ag-psd';
import { channelValues } from '../descriptor-colour.js';
import type { ColorMode } from '../model.js';
import { colorizeKernel, hueSaturationKernel } from './hsl.js';
import {
  brightnessContrastLut,
  type ColorKernel,
  exposureLut,
  identityLut,
  invertLut,
  type Lut,
  lutKernel,
  naturalSpline,
  rgbLutKernel,
  wordKernel,
} from './lut.js';
import { adjustmentName } from './names.js';

type Record_ = Readonly<Record<string, unknown>>;

const kernels = new WeakMap<object, ColorKernel | null>();

/**
 * The kernel of an adjustment record (ag-psd's `adjustment`) in a document of `mode`, or undefined when it is
 * not drawn.
 */
export function adjustmentKernel(
  adjustment: Record_ & { readonly type: string },
  mode: ColorMode,
): ColorKernel | undefined {
  if (mode === 'cmyk') return undefined;
  let k = kernels.get(adjustment);
  if (k === undefined) {
    k = makeKernel(adjustment) ?? null;
    kernels.set(adjustment, k);
  }
  return k ?? undefined;
}

/**
 * Why an adjustment layer is not drawn, in a designer's words (Chinese), or undefined when it is: what every
 * surface says when a picture, a merge or a visibility change lacks the layer's effect.
 */
export function undrawnReason(
  adjustment: Record_ & { readonly type: string },
  mode: ColorMode,
): string | undefined {
  if (adjustmentKernel(adjustment, mode)) return undefined;
  if (mode === 'cmyk') return 'CMYK 文档中的调整作用于油墨通道，Atelier 不绘制';
  const name = adjustmentName(adjustment.type);
  switch (adjustment.type) {
    case 'brightness/contrast':
      return `Atelier 不绘制“使用旧版”的${name}`;
    case 'hue/saturation':
      return `Atelier 不绘制按颜色范围（红色、黄色等）单独设置的${name}`;
    case 'black & white':
      return `Atelier 不绘制这种色调颜色的${name}`;
    default:
      return `Atelier 不绘制${name}调整`;
  }
}

function makeKernel(a: Record_ & { readonly type: string }): ColorKernel | undefined {
  switch (a.type) {
    case 'curves':
      return channelKernel(a, curveLut);
    case 'levels':
      return channelKernel(a, levelsChannelLut);
    case 'brightness/contrast':
      if (a.useLegacy) return undefined;
      return lutKernel(brightnessContrastLut(num(a.brightness), num(a.contrast)));
    case 'hue/saturation': {
      const m = (a.master ?? {}) as Record_;
      // Colorize sets every pixel's colour: the master and range settings are not used.
      if (colorizes(m)) return colorizeKernel(signed16(m.b), signed16(m.c), signed16(m.d));
      const ranges = ['reds', 'yellows', 'greens', 'cyans', 'blues', 'magentas'];
      if (ranges.some((r) => changes(a[r] as Record_ | undefined))) return undefined;
      return hueSaturationKernel(num(m.hue), num(m.saturation), num(m.lightness));
    }
    case 'invert':
      return lutKernel(invertLut());
    case 'exposure':
      return lutKernel(exposureLut(num(a.exposure), num(a.offset), num(a.gamma, 1)));
    case 'posterize':
      return lutKernel(posterizeLut(Math.max(2, Math.min(255, Math.round(num(a.levels, 4))))));
    case 'threshold':
      return thresholdKernel(Math.max(1, Math.min(255, Math.round(num(a.level, 128)))));
    case 'channel mixer':
      return channelMixerKernel(a);
    case 'black & white':
      return blackAndWhiteKernel(a);
    case 'color balance':
      return colorBalanceKernel(a);
    default:
      return undefined;
  }
}

type Tones = { readonly cyanRed?: number; readonly magentaGreen?: number; readonly yellowBlue?: number };

/**
 * Color Balance. Photoshop publishes no formula; psd2svg's nine files, saved by Photoshop, show one: each channel goes
 * through its own table (every colour of them maps channel by channel), a Levels step made of the three tone
 * ranges' values v (−100…100) for that channel: shadows below 0 set the input black point at −v, highlights above
 * 0 the input white point at 255 − v; then a power of the result — midtones 2^(−v/100), shadows above 0
 * 2^(−(v/100)²), highlights below 0 2^((v/100)²). Preserve Luminosity moves each range's three values together so
 * that none lifts the shadows (the largest taken off) and none darkens the highlights (the smallest taken off),
 * and the midtones' average to 0 (their file cannot tell the average from the middle of the range).
 */
function colorBalanceKernel(a: Record_): ColorKernel {
  const tones = (t: unknown): [number, number, number] => {
    const v = (t ?? {}) as Tones;
    return [num(v.cyanRed), num(v.magentaGreen), num(v.yellowBlue)].map((x) =>
      Math.max(-100, Math.min(100, x)),
    ) as [number, number, number];
  };
  let shadows = tones(a.shadows);
  let midtones = tones(a.midtones);
  let highlights = tones(a.highlights);
  if (a.preserveLuminosity !== false) {
    const less = (v: [number, number, number], by: number) =>
      v.map((x) => x - by) as [number, number, number];
    shadows = less(shadows, Math.max(...shadows));
    highlights = less(highlights, Math.min(...highlights));
    midtones = less(midtones, (midtones[0] + midtones[1] + midtones[2]) / 3);
  }
  const lut = (c: 0 | 1 | 2): Lut => {
    const s = shadows[c] / 100;
    const m = midtones[c] / 100;
    const h = highlights[c] / 100;
    const black = Math.max(0, -shadows[c]);
    const white = 255 - Math.max(0, highlights[c]);
    const power = 2 ** (-m - Math.max(0, s) ** 2 + Math.max(0, -h) ** 2);
    const out = new Uint8Array(256);
    for (let x = 0; x < 256; x++) {
      const t = Math.min(1, Math.max(0, (x - black) / Math.max(1e-6, white - black)));
      out[x] = Math.round(255 * t ** power);
    }
    return out;
  };
  return rgbLutKernel(lut(0), lut(1), lut(2));
}

const num = (v: unknown, otherwise = 0): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : otherwise;

/**
 * Whether a Hue/Saturation layer is set to Colorize. The file's block (`hue2`) holds, after its version, a
 * colorize flag byte and a padding byte, then the colorize hue, saturation and lightness, then the master
 * settings: ag-psd reads those first 8 bytes as its `master` channel's range values, so the flag is the high
 * byte of `master.a` (and `b`, `c`, `d` are the colorize hue, saturation and lightness).
 */
function colorizes(master: Record_): boolean {
  return ((num(master.a) >> 8) & 0xff) !== 0;
}

/** A 16-bit field ag-psd read unsigned, as the signed value Photoshop wrote. */
function signed16(v: unknown): number {
  const n = num(v) & 0xffff;
  return n >= 0x8000 ? n - 0x10000 : n;
}

function changes(c: Record_ | undefined): boolean {
  return !!c && (num(c.hue) !== 0 || num(c.saturation) !== 0 || num(c.lightness) !== 0);
}

/**
 * Curves and Levels: a composite (RGB) table, then one per channel on its result, as Photoshop stacks the RGB
 * curve and the channel curves.
 */
function channelKernel(a: Record_, lutOf: (c: unknown) => Lut | undefined): ColorKernel {
  const rgb = lutOf(a.rgb) ?? identityLut();
  const then = (c: unknown): Lut => {
    const own = lutOf(c);
    return own ? compose(rgb, own) : rgb;
  };
  return rgbLutKernel(then(a.red), then(a.green), then(a.blue));
}

function compose(first: Lut, second: Lut): Lut {
  const out = new Uint8Array(256);
  for (let v = 0; v < 256; v++) out[v] = second[first[v]!]!;
  return out;
}

/** Photoshop's curve through its points (input → output, 0–255): a natural cubic spline, flat past the ends. */
export function curveLut(points: unknown): Lut | undefined {
  if (!Array.isArray(points) || points.length < 2) return undefined;
  const pts = (points as Record_[])
    .map((p) => ({ x: num(p.input), y: num(p.output) }))
    .sort((p, q) => p.x - q.x)
    .filter((p, i, all) => i === 0 || p.x > all[i - 1]!.x);
  if (pts.length < 2) return undefined;
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  const curve = naturalSpline(xs, ys);
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    const x = Math.min(xs[xs.length - 1]!, Math.max(xs[0]!, v));
    const y = v <= xs[0]! ? ys[0]! : v >= xs[xs.length - 1]! ? ys[ys.length - 1]! : curve(x);
    lut[v] = Math.round(Math.min(255, Math.max(0, y)));
  }
  return lut;
}

/** Levels on one channel: input black and white, gamma (midtone), then output black and white. */
function levelsChannelLut(c: unknown): Lut | undefined {
  if (!c || typeof c !== 'object') return undefined;
  const l = c as Record_;
  const inBlack = num(l.shadowInput);
  const inWhite = num(l.highlightInput, 255);
  const gamma = num(l.midtoneInput, 1) || 1;
  const outBlack = num(l.shadowOutput);
  const outWhite = num(l.highlightOutput, 255);
  const span = inWhite - inBlack || 1;
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    const x = Math.min(1, Math.max(0, (v - inBlack) / span));
    const y = outBlack + x ** (1 / gamma) * (outWhite - outBlack);
    lut[v] = Math.round(Math.min(255, Math.max(0, y)));
  }
  return lut;
}

/** Photoshop Posterize: `levels` evenly spaced tones per channel. */
export function posterizeLut(levels: number): Lut {
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    const step = Math.min(levels - 1, Math.floor((v * levels) / 256));
    lut[v] = Math.round((step * 255) / (levels - 1));
  }
  return lut;
}

/** Photoshop Threshold: white where the pixel's luminance (Rec. 601) reaches `level`, black below. */
function thresholdKernel(level: number): ColorKernel {
  return wordKernel((src, dst, from, to) => {
    for (let p = from; p < to; p++) {
      const v = src[p]!;
      const a = v >>> 24;
      if (a === 0) {
        dst[p] = v;
        continue;
      }
      const lum = 0.299 * (v & 255) + 0.587 * ((v >>> 8) & 255) + 0.114 * ((v >>> 16) & 255);
      dst[p] = ((a << 24) | (lum >= level ? 0xffffff : 0)) >>> 0;
    }
  });
}

/** A channel mixer row: percentages of R, G and B, and a constant in percent of full scale (−200…200). */
interface MixerRow {
  readonly r: number;
  readonly g: number;
  readonly b: number;
  readonly k: number;
}

function mixerRow(c: unknown, identity: 0 | 1 | 2): MixerRow {
  const row = (c ?? {}) as Record_;
  const own = (key: string, i: number) => num(row[key], c ? 0 : identity === i ? 100 : 0);
  return { r: own('red', 0), g: own('green', 1), b: own('blue', 2), k: num(row.constant) };
}

/**
 * Photoshop's Channel Mixer: each output channel the sum of the input channels at their percentages plus the
 * constant (100 % is full scale); monochrome, every channel the gray row's. Rounded and clipped per channel.
 */
function channelMixerKernel(a: Record_): ColorKernel {
  const rows = a.monochrome
    ? [mixerRow(a.gray, 0), mixerRow(a.gray, 0), mixerRow(a.gray, 0)]
    : [mixerRow(a.red, 0), mixerRow(a.green, 1), mixerRow(a.blue, 2)];
  const [rr, rg, rb] = rows as [MixerRow, MixerRow, MixerRow];
  const out = (m: MixerRow, r: number, g: number, b: number) => {
    const v = Math.round((m.r * r + m.g * g + m.b * b + m.k * 255) / 100);
    return Math.max(0, Math.min(255, v));
  };
  return wordKernel((src, dst, from, to) => {
    for (let p = from; p < to; p++) {
      const v = src[p]!;
      if (v >>> 24 === 0) {
        dst[p] = v;
        continue;
      }
      const r = v & 255;
      const g = (v >>> 8) & 255;
      const b = (v >>> 16) & 255;
      dst[p] =
        ((v & 0xff000000) | (out(rb, r, g, b) << 16) | (out(rg, r, g, b) << 8) | out(rr, r, g, b)) >>> 0;
    }
  });
}

/** Black & White's defaults (Photoshop's "Default" preset), in percent. */
const BW_DEFAULTS = { reds: 40, yellows: 60, greens: 40, cyans: 60, blues: 20, magentas: 80 } as const;

/**
 * Photoshop's Black & White. A colour is a neutral (its smallest channel), a secondary colour (the middle one
 * less the smallest: yellow, cyan or magenta, as the two largest channels make) and a primary (the largest less
 * the middle: red, green or blue); the gray is the neutral plus each at its slider's percentage, so a primary at
 * full strength comes out at its slider's percentage of white and a neutral unchanged (the decomposition
 * reverse-engineered from Photoshop and published, matched to within one level). A tint is laid over that gray
 * as the Color blend mode lays a colour: Photoshop's tint is the same (set its swatch's colour on a layer in
 * Color mode over the untinted result and the two agree). Only RGB and HSB tints are read; another kind leaves
 * the layer undrawn.
 */
function blackAndWhiteKernel(a: Record_): ColorKernel | undefined {
  const w = (key: keyof typeof BW_DEFAULTS) => num(a[key], BW_DEFAULTS[key]) / 100;
  const red = w('reds');
  const yellow = w('yellows');
  const green = w('greens');
  const cyan = w('cyans');
  const blue = w('blues');
  const magenta = w('magentas');
  let tint: Uint32Array | undefined;
  if (a.useTint) {
    const c = a.tintColor ? channelValues(a.tintColor as AgColor) : undefined;
    if (!c) return undefined;
    tint = colorBlendTable(c.map((v) => v * 255) as [number, number, number]);
  }
  const gray = (r: number, g: number, b: number): number => {
    let v: number;
    if (r >= g && g >= b) v = b + (g - b) * yellow + (r - g) * red;
    else if (r >= b && b >= g) v = g + (b - g) * magenta + (r - b) * red;
    else if (g >= r && r >= b) v = b + (r - b) * yellow + (g - r) * green;
    else if (g >= b && b >= r) v = r + (b - r) * cyan + (g - b) * green;
    else if (b >= r && r >= g) v = g + (r - g) * magenta + (b - r) * blue;
    else v = r + (g - r) * cyan + (b - g) * blue;
    v = Math.round(v);
    return Math.max(0, Math.min(255, v));
  };
  return wordKernel((src, dst, from, to) => {
    for (let p = from; p < to; p++) {
      const v = src[p]!;
      if (v >>> 24 === 0) {
        dst[p] = v;
        continue;
      }
      const y = gray(v & 255, (v >>> 8) & 255, (v >>> 16) & 255);
      dst[p] = ((v & 0xff000000) | (tint ? tint[y]! : y | (y << 8) | (y << 16))) >>> 0;
    }
  });
}

/**
 * The Color blend mode (W3C Compositing: SetLum(colour, Lum(backdrop)) with ClipColor) of one colour over each
 * gray backdrop 0–255, as packed RGB words.
 */
function colorBlendTable([cr, cg, cb]: readonly [number, number, number]): Uint32Array {
  const lum = (r: number, g: number, b: number) => 0.3 * r + 0.59 * g + 0.11 * b;
  const table = new Uint32Array(256);
  for (let y = 0; y < 256; y++) {
    const d = y - lum(cr, cg, cb);
    let r = cr + d;
    let g = cg + d;
    let b = cb + d;
    const l = lum(r, g, b);
    const n = Math.min(r, g, b);
    const x = Math.max(r, g, b);
    if (n < 0) {
      r = l + ((r - l) * l) / (l - n);
      g = l + ((g - l) * l) / (l - n);
      b = l + ((b - l) * l) / (l - n);
    }
    if (x > 255) {
      r = l + ((r - l) * (255 - l)) / (x - l);
      g = l + ((g - l) * (255 - l)) / (x - l);
      b = l + ((b - l) * (255 - l)) / (x - l);
    }
    const byte = (u: number) => Math.max(0, Math.min(255, Math.round(u)));
    table[y] = byte(r) | (byte(g) << 8) | (byte(b) << 16);
  }
  return table;
}
