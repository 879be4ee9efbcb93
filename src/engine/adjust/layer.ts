/**
 * The adjustments of Photoshop's adjustment layers (model.ts AdjustmentLayer), as colour kernels the compositor
 * runs over what lies below: Curves, Levels, Brightness/Contrast, Hue/Saturation (master), Invert, Posterize and
 * Threshold — the ones whose formulas are known (engine.md §1.2–§1.5; the curves as Photoshop draws them, a
 * natural cubic spline through the points). Any other adjustment, or settings these do not cover (per-range
 * Hue/Saturation, legacy Brightness/Contrast), has no kernel: the layer is kept and not drawn, and saying so is
 * the caller's part.
 */
import { hueSaturationKernel } from './hsl.js';
import {
  brightnessContrastLut,
  type ColorKernel,
  identityLut,
  invertLut,
  type Lut,
  lutKernel,
  naturalSpline,
  rgbLutKernel,
  wordKernel,
} from './lut.js';

type Record_ = Readonly<Record<string, unknown>>;

const kernels = new WeakMap<object, ColorKernel | null>();

/** The kernel of an adjustment record (ag-psd's `adjustment`), or undefined when it is not drawn. */
export function adjustmentKernel(adjustment: Record_ & { readonly type: string }): ColorKernel | undefined {
  let k = kernels.get(adjustment);
  if (k === undefined) {
    k = makeKernel(adjustment) ?? null;
    kernels.set(adjustment, k);
  }
  return k ?? undefined;
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
      const ranges = ['reds', 'yellows', 'greens', 'cyans', 'blues', 'magentas'];
      if (ranges.some((r) => changes(a[r] as Record_ | undefined))) return undefined;
      const m = (a.master ?? {}) as Record_;
      return hueSaturationKernel(num(m.hue), num(m.saturation), num(m.lightness));
    }
    case 'invert':
      return lutKernel(invertLut());
    case 'posterize':
      return lutKernel(posterizeLut(Math.max(2, Math.min(255, Math.round(num(a.levels, 4))))));
    case 'threshold':
      return thresholdKernel(Math.max(1, Math.min(255, Math.round(num(a.level, 128)))));
    default:
      return undefined;
  }
}

const num = (v: unknown, otherwise = 0): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : otherwise;

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
