/**
 * Per-channel tone curves as 256-entry lookup tables (engine.md §1.2–§1.5): Levels, Brightness/Contrast,
 * Invert and the stretch of Auto Levels / Auto Contrast. Alpha is never touched.
 */

/**
 * A colour kernel: writes the adjusted RGB of `src` bytes [from, to) into `dst`, alpha copied. Fully transparent
 * pixels are copied unchanged (they have no colour to adjust, and stay exactly transparent).
 */
export type ColorKernel = (src: Uint8ClampedArray, dst: Uint8ClampedArray, from: number, to: number) => void;

export type Lut = Uint8Array;

export function identityLut(): Lut {
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) lut[v] = v;
  return lut;
}

export function isIdentity(lut: Lut): boolean {
  for (let v = 0; v < 256; v++) if (lut[v] !== v) return false;
  return true;
}

/** A curve `f: [0,1] → [0,1]` sampled at v/255, clipped and rounded to 8 bits. */
function sample(f: (t: number) => number): Lut {
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    const y = f(v / 255);
    lut[v] = Math.round(255 * Math.min(1, Math.max(0, y)));
  }
  return lut;
}

/**
 * Photoshop Levels, input side (psd-tools `apply_levels`, GIMP `gimp_operation_levels_map`):
 * x = clamp((v − black)/(white − black)), out = x^(1/γ). γ < 1 darkens the midtones, γ > 1 brightens them.
 */
export function levelsLut(black: number, white: number, gamma: number): Lut {
  const span = white - black || 1;
  const inv = 1 / gamma;
  return sample((t) => {
    const x = (t * 255 - black) / span;
    return x <= 0 ? 0 : x >= 1 ? 1 : x ** inv;
  });
}

/**
 * Photoshop Exposure on an 8-bit document: each channel taken to linear light by a plain 2.2 gamma (not the sRGB
 * curve), scaled by 2^exposure and shifted by the offset there, raised to 1/gamma and back through the same 2.2.
 * Adobe does not state it; it is what reproduces Photoshop's own composites of exposure ±4, offset ±0.4 and gamma
 * 0.4 and 4 within 2 levels (test/fixtures/photoshop-adjustments), where the sRGB curve is 26 levels off.
 */
export function exposureLut(exposure: number, offset: number, gamma: number): Lut {
  const gain = 2 ** exposure;
  const g = gamma > 0 ? gamma : 1;
  return sample((t) => (Math.max(0, t ** 2.2 * gain + offset) ** (1 / g)) ** (1 / 2.2));
}

/** Photoshop Invert: 255 − v. */
export function invertLut(): Lut {
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) lut[v] = 255 - v;
  return lut;
}

/** The linear stretch of Auto Levels / Auto Contrast: lo → 0, hi → 255 (identity when hi ≤ lo). */
export function stretchLut(lo: number, hi: number): Lut {
  if (hi <= lo) return identityLut();
  const span = hi - lo;
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    const y = ((v - lo) * 255) / span;
    lut[v] = y <= 0 ? 0 : y >= 255 ? 255 : Math.round(y);
  }
  return lut;
}

// ---------------------------------------------------------------------------------------------------------
// Brightness/Contrast, Photoshop's modern (non-legacy) curve

/** Second derivatives of the natural cubic spline through (xs, ys) (M at both ends = 0). */
export function naturalSpline(xs: readonly number[], ys: readonly number[]): (t: number) => number {
  const n = xs.length;
  const h = xs.slice(1).map((x, i) => x - xs[i]!);
  // Tridiagonal system for M[1..n-2] (Thomas algorithm).
  const m = new Array<number>(n).fill(0);
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  const d: number[] = [];
  for (let i = 1; i < n - 1; i++) {
    a.push(h[i - 1]!);
    b.push(2 * (h[i - 1]! + h[i]!));
    c.push(h[i]!);
    d.push(6 * ((ys[i + 1]! - ys[i]!) / h[i]! - (ys[i]! - ys[i - 1]!) / h[i - 1]!));
  }
  const k = b.length;
  for (let i = 1; i < k; i++) {
    const w = a[i]! / b[i - 1]!;
    b[i] = b[i]! - w * c[i - 1]!;
    d[i] = d[i]! - w * d[i - 1]!;
  }
  for (let i = k - 1; i >= 0; i--) m[i + 1] = (d[i]! - (i + 1 < k ? c[i]! * m[i + 2]! : 0)) / b[i]!;
  return (t) => {
    let i = 0;
    while (i < n - 2 && t > xs[i + 1]!) i++;
    const hi = h[i]!;
    const u = xs[i + 1]! - t;
    const v = t - xs[i]!;
    return (
      (m[i]! * u ** 3 + m[i + 1]! * v ** 3) / (6 * hi) +
      (ys[i]! / hi - (m[i]! * hi) / 6) * u +
      (ys[i + 1]! / hi - (m[i + 1]! * hi) / 6) * v
    );
  };
}

/** numpy `interp`: piecewise linear through increasing `xp`, constant beyond the ends. */
function interp(x: number, xp: ArrayLike<number>, fp: ArrayLike<number>): number {
  const n = xp.length;
  if (x <= xp[0]!) return fp[0]!;
  if (x >= xp[n - 1]!) return fp[n - 1]!;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xp[mid]! <= x) lo = mid;
    else hi = mid;
  }
  const x0 = xp[lo]!;
  const x1 = xp[hi]!;
  return x1 === x0 ? fp[lo]! : fp[lo]! + ((fp[hi]! - fp[lo]!) * (x - x0)) / (x1 - x0);
}

/**
 * Photoshop's modern Brightness/Contrast (brightness −150…150, contrast −50…100). Adobe does not publish it;
 * this is psd-tools' reverse-engineered model (`composite/adjustments.py apply_brightnesscontrast`, engine.md
 * §1.3), the best open approximation: contrast is a natural cubic spline through (0,0), (63, 63 − 25c),
 * (191, 191 + 25c), (255,255); brightness is a bump b·t(1−t)·h(t) added along the diagonal (the curve is
 * rotated 45°), so black and white stay fixed as in Photoshop's non-legacy mode.
 */
export function brightnessContrastLut(brightness: number, contrast: number): Lut {
  const b = brightness / 150;
  const c = contrast / 100;
  const ab = Math.abs(b);
  const spline = naturalSpline(
    [0, 63 / 255, 191 / 255, 1],
    [0, (63 - 25 * c) / 255, (191 + 25 * c) / 255, 1],
  );
  const xs = new Float64Array(256);
  const ys = new Float64Array(256);
  for (let v = 0; v < 256; v++) {
    const t = v / 255;
    const h =
      0.5 * (ab * (1.65 * t ** 0.35 - t ** 10) + (1 - ab) * (1.96 * t ** 0.4 + t ** 4) + 1.0 * t ** 1.25);
    const bs = b * t * (1 - t) * h;
    xs[v] = t - bs;
    ys[v] = spline(t) + bs;
  }
  return sample((t) => interp(t, xs, ys));
}

// ---------------------------------------------------------------------------------------------------------
// Applying tables

/** The same table on R, G and B. */
export function lutKernel(lut: Lut): ColorKernel {
  return rgbLutKernel(lut, lut, lut);
}

/** Pixels as little-endian 32-bit words (R in the low byte, A in the high byte); indices in pixels. */
export type WordKernel = (src: Uint32Array, dst: Uint32Array, from: number, to: number) => void;

// Word kernels read R from the low byte: every platform Node ships for is little-endian, but say so loudly.
if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) throw new Error('adjust: big-endian platform');

function pixelView(a: Uint8ClampedArray): Uint32Array | null {
  return a.byteOffset % 4 === 0 ? new Uint32Array(a.buffer, a.byteOffset, a.byteLength >> 2) : null;
}

/**
 * A colour kernel running `k` on whole pixels (through aligned copies when a buffer is not 4-aligned). Each
 * kernel writes its own pixel loop (skip transparent, unpack, pack): one shared loop calling a per-kernel pixel
 * function measured 2.5× slower on 16 Mpx (the call site sees every kernel's function, and V8 stops inlining).
 */
export function wordKernel(k: WordKernel): ColorKernel {
  return (src, dst, from, to) => {
    const s32 = pixelView(src);
    const d32 = pixelView(dst);
    if (s32 && d32) {
      k(s32, d32, from >> 2, to >> 2);
      return;
    }
    const n = (to - from) >> 2;
    const a = new Uint32Array(n);
    new Uint8Array(a.buffer).set(src.subarray(from, to));
    const b = new Uint32Array(n);
    k(a, b, 0, n);
    dst.set(new Uint8Array(b.buffer), from);
  };
}

/**
 * One table per channel. R and G go through one 65,536-entry table of pairs (128 KiB, cache-resident), B
 * through its own: two lookups per pixel. Fully transparent pixels are kept as they are.
 */
export function rgbLutKernel(lr: Lut, lg: Lut, lb: Lut): ColorKernel {
  const rg = new Uint16Array(65536);
  for (let g = 0; g < 256; g++) for (let r = 0; r < 256; r++) rg[(g << 8) | r] = lr[r]! | (lg[g]! << 8);
  const b16 = new Uint32Array(256);
  for (let b = 0; b < 256; b++) b16[b] = lb[b]! << 16;
  return wordKernel((s, d, from, to) => {
    for (let p = from; p < to; p++) {
      const v = s[p]!;
      d[p] = v >>> 24 === 0 ? v : (v & 0xff000000) | b16[(v >>> 16) & 255]! | rg[v & 0xffff]!;
    }
  });
}
