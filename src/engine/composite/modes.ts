/**
 * The blend functions B(Cb, Cs) of W3C Compositing and Blending Level 1, plus Photoshop's extra separable modes
 * (formulas as psd-tools pins them against Photoshop renders; see research/engine.md §1.1). Inputs and outputs
 * are straight colour channels in 0..1. These are the scalar definitions; the row kernels in `separable.ts`
 * and `nonseparable.ts` call them per channel so V8 can inline each into a mode-specific loop.
 */

/**
 * Backdrop colours reach the blend un-premultiplied from float storage (cb = cbp / ab), so a value that is
 * exactly 0 or 1 in 8 bits may arrive as 0.99999994. The modes with a discontinuity at an extreme compare
 * against the extreme with this tolerance, far below 1/255, so they take the branch the 8-bit value would.
 */
const EPS = 1e-5;

export function multiply(b: number, s: number): number {
  return b * s;
}

export function screen(b: number, s: number): number {
  return b + s - b * s;
}

export function hardLight(b: number, s: number): number {
  return s <= 0.5 ? b * 2 * s : screen(b, 2 * s - 1);
}

export function overlay(b: number, s: number): number {
  return hardLight(s, b);
}

export function darken(b: number, s: number): number {
  return Math.min(b, s);
}

export function lighten(b: number, s: number): number {
  return Math.max(b, s);
}

export function colorDodge(b: number, s: number): number {
  if (b <= EPS) return 0;
  if (s >= 1 - EPS) return 1;
  return Math.min(1, b / (1 - s));
}

export function colorBurn(b: number, s: number): number {
  if (b >= 1 - EPS) return 1;
  if (s <= EPS) return 0;
  return 1 - Math.min(1, (1 - b) / s);
}

export function softLight(b: number, s: number): number {
  if (s <= 0.5) return b - (1 - 2 * s) * b * (1 - b);
  // D is keyed on the backdrop, not the source (psd-tools #189: keying it on Cs is off by up to 12/255).
  const d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : Math.sqrt(b);
  return b + (2 * s - 1) * (d - b);
}

export function difference(b: number, s: number): number {
  return Math.abs(b - s);
}

export function exclusion(b: number, s: number): number {
  return b + s - 2 * b * s;
}

export function linearBurn(b: number, s: number): number {
  return Math.max(0, b + s - 1);
}

export function linearDodge(b: number, s: number): number {
  return Math.min(1, b + s);
}

export function subtract(b: number, s: number): number {
  return Math.max(0, b - s);
}

export function divide(b: number, s: number): number {
  if (b <= EPS) return 0;
  if (s <= EPS) return 1;
  return Math.min(1, b / s);
}

/** The source extremes win here, unlike plain colour burn/dodge (pinned to Photoshop by psd-tools #189). */
export function vividLight(b: number, s: number): number {
  if (s <= 0.5) {
    if (s <= EPS) return 0;
    return 1 - Math.min(1, (1 - b) / (2 * s));
  }
  if (s >= 1 - EPS) return 1;
  return Math.min(1, b / (2 * (1 - s)));
}

export function linearLight(b: number, s: number): number {
  return s <= 0.5 ? linearBurn(b, 2 * s) : linearDodge(b, 2 * s - 1);
}

export function pinLight(b: number, s: number): number {
  return s <= 0.5 ? darken(b, 2 * s) : lighten(b, 2 * s - 1);
}

/** Cb + Cs = 1 exactly is a real tie in 8 bits (complementary values); Photoshop gives 1 there only if Cb > ½. */
export function hardMix(b: number, s: number): number {
  const t = b + s;
  if (t > 1 + EPS) return 1;
  if (t < 1 - EPS) return 0;
  return b > 0.5 ? 1 : 0;
}

// Non-separable helpers (W3C §"Non-separable blend modes"). They write into `out` to avoid allocating per pixel.

export function lum(r: number, g: number, b: number): number {
  return 0.3 * r + 0.59 * g + 0.11 * b;
}

/** SetLum(C, l) followed by ClipColor, written to out[0..2]. */
export function setLum(out: Float64Array, r: number, g: number, b: number, l: number): void {
  const d = l - lum(r, g, b);
  r += d;
  g += d;
  b += d;
  const L = lum(r, g, b);
  const n = Math.min(r, g, b);
  const x = Math.max(r, g, b);
  if (n < 0) {
    const k = L / (L - n);
    r = L + (r - L) * k;
    g = L + (g - L) * k;
    b = L + (b - L) * k;
  }
  if (x > 1) {
    const k = (1 - L) / (x - L);
    r = L + (r - L) * k;
    g = L + (g - L) * k;
    b = L + (b - L) * k;
  }
  out[0] = r;
  out[1] = g;
  out[2] = b;
}

export function sat(r: number, g: number, b: number): number {
  const n = Math.min(r, g, b);
  const x = Math.max(r, g, b);
  return x - n;
}

/** SetSat(C, s), written to out[0..2]: the channel order is kept, min goes to 0, max to s, mid scales. */
export function setSat(out: Float64Array, r: number, g: number, b: number, s: number): void {
  const x = Math.max(r, g, b);
  const n = Math.min(r, g, b);
  if (x <= n) {
    out[0] = 0;
    out[1] = 0;
    out[2] = 0;
    return;
  }
  const k = s / (x - n);
  // Each channel maps linearly through (n → 0, x → s); ties between channels then map identically, which is
  // what the spec's Cmax/Cmid/Cmin bookkeeping amounts to.
  out[0] = (r - n) * k;
  out[1] = (g - n) * k;
  out[2] = (b - n) * k;
}
