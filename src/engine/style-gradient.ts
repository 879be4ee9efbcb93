/**
 * The gradients of Photoshop's layer styles (Gradient Overlay): a table of colour and opacity along the gradient,
 * and where each pixel lies on it. Fitted to Photoshop's own composites (psd2svg's fixtures, 34 files), as no
 * description of them is published:
 * - Classic at Smoothness 100 % is not straight between stops: each channel follows a cubic Hermite spline through
 *   the stops, the slope at an inner stop half the difference of its neighbours, at an end stop half the
 *   difference to its one neighbour, in units of a segment (Catmull-Rom), clamped. That reads 29 files within 1
 *   level on average; straight segments are 3–5 levels off, 18 at most.
 * - Smooth (Photoshop 2026's default) is the same spline run in Oklab: within 0.6 level on average on 6 files, 12 at
 *   most at a few pixels; in sRGB it is 1–3 levels off on average, 70 at most.
 * Smoothness 0 % is straight segments (Photoshop's documentation); between the two the mix is taken as linear, and a
 * stop's midpoint as bending its segment by a power, as the Gradient tool's does — neither has a file to check it
 * here. The Perceptual, Linear and Stripes methods are not drawn (no file). Written by hand: no library here draws
 * Photoshop's style gradients.
 */
import type { GradientOverlayEffect, Rect, RGB, StyleGradientStop } from './model.js';

/** Table entries along the gradient: finer than any step 8 bits can show over a run of up to 4096 px. */
const SIZE = 4096;

/** One channel's value at `t` (0..1) through `stops`. */
function channelAt<T>(
  stops: readonly StyleGradientStop<T>[],
  get: (v: T) => number,
  t: number,
  smooth: number,
) {
  const n = stops.length;
  if (t <= stops[0]!.at) return get(stops[0]!.value);
  if (t >= stops[n - 1]!.at) return get(stops[n - 1]!.value);
  let i = 0;
  while (i < n - 2 && t >= stops[i + 1]!.at) i++;
  const a = stops[i]!;
  const b = stops[i + 1]!;
  const span = b.at - a.at;
  if (!(span > 0)) return get(b.value);
  let s = (t - a.at) / span;
  const mid = Math.min(0.99, Math.max(0.01, a.mid));
  if (mid !== 0.5) s = s ** (Math.log(0.5) / Math.log(mid));
  const p0 = get(a.value);
  const p1 = get(b.value);
  const straight = p0 + (p1 - p0) * s;
  if (smooth <= 0) return straight;
  const before = i > 0 ? get(stops[i - 1]!.value) : null;
  const after = i + 2 < n ? get(stops[i + 2]!.value) : null;
  const m0 = before === null ? (p1 - p0) / 2 : (p1 - before) / 2;
  const m1 = after === null ? (p1 - p0) / 2 : (after - p0) / 2;
  const s2 = s * s;
  const s3 = s2 * s;
  const spline =
    (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (3 * s2 - 2 * s3) * p1 + (s3 - s2) * m1;
  return straight + (spline - straight) * smooth;
}

/** r, g, b (0..255) and opacity (0..1) at SIZE points from 0 to 1 along the gradient. */
export function styleGradientTable(
  g: Pick<GradientOverlayEffect, 'colors' | 'opacities' | 'smoothness'> & { method?: 'classic' | 'smooth' },
) {
  const out = new Float32Array(SIZE * 4);
  const smooth = Math.min(1, Math.max(0, g.smoothness));
  const oklab = g.method === 'smooth';
  const colors = oklab ? g.colors.map((c) => ({ ...c, value: toOklab(c.value) })) : g.colors;
  const rgb: ((c: RGB) => number)[] = [(c) => c.r, (c) => c.g, (c) => c.b];
  const v = [0, 0, 0];
  for (let i = 0; i < SIZE; i++) {
    const t = i / (SIZE - 1);
    for (let c = 0; c < 3; c++) v[c] = channelAt(colors, rgb[c]!, t, smooth);
    if (oklab) {
      const back = fromOklab({ r: v[0]!, g: v[1]!, b: v[2]! });
      v[0] = back.r;
      v[1] = back.g;
      v[2] = back.b;
    }
    for (let c = 0; c < 3; c++) out[i * 4 + c] = clamp(v[c]!, 0, 255);
    out[i * 4 + 3] = clamp(
      channelAt(g.opacities, (o) => o, t, smooth),
      0,
      1,
    );
  }
  return out;
}

/** The table index of `t` (clamped to 0..1). */
export function tableIndex(t: number): number {
  return Math.round(clamp(t, 0, 1) * (SIZE - 1));
}

/**
 * Where document pixel (x, y) lies along the overlay (0..1, before the table), given the box it is laid across.
 * Linear: along the line through the box's centre (moved by the offset) at the angle, from where that line enters
 * the box to where it leaves it, times the scale (at 30° a longer run than the box's extent along the angle, which
 * reads the file 2× further off); reflected: 0 at the centre, 1 at either end. Pixel (x, y) is sampled at its
 * top-left corner: a pixel's centre reads the files half a pixel off (0.4 → 1 level on average).
 */
export function overlayPosition(
  g: Pick<GradientOverlayEffect, 'style' | 'angle' | 'scale' | 'reverse' | 'offset'>,
  box: Rect,
): (x: number, y: number) => number {
  const rad = (g.angle * Math.PI) / 180;
  const dx = Math.cos(rad);
  const dy = -Math.sin(rad);
  // Half the gradient's run: from the box's centre along the angle to where that line leaves the box.
  const reach = (size: number, d: number) =>
    Math.abs(d) < 1e-9 ? Number.POSITIVE_INFINITY : size / 2 / Math.abs(d);
  const half = Math.max(1e-6, Math.min(reach(box.w, dx), reach(box.h, dy)) * g.scale);
  const cx = box.x + box.w / 2 + g.offset.x * box.w;
  const cy = box.y + box.h / 2 + g.offset.y * box.h;
  const reflected = g.style === 'reflected';
  const flip = g.reverse;
  return (x, y) => {
    const along = ((x - cx) * dx + (y - cy) * dy) / half;
    const t = reflected ? Math.abs(along) : (along + 1) / 2;
    return flip ? 1 - t : t;
  };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

const toLinear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const fromLinear = (v: number) =>
  255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * Math.max(0, v) ** (1 / 2.4) - 0.055);

/** sRGB (0..255) to Oklab (Björn Ottosson's), carried in an RGB record as L, a, b. */
function toOklab(c: RGB): RGB {
  const [r, g, b] = [toLinear(c.r), toLinear(c.g), toLinear(c.b)];
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return {
    r: 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    g: 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    b: 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  };
}

function fromOklab(c: RGB): RGB {
  const l = (c.r + 0.3963377774 * c.g + 0.2158037573 * c.b) ** 3;
  const m = (c.r - 0.1055613458 * c.g - 0.0638541728 * c.b) ** 3;
  const s = (c.r - 0.0894841775 * c.g - 1.291485548 * c.b) ** 3;
  return {
    r: fromLinear(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
    g: fromLinear(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
    b: fromLinear(-0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s),
  };
}
