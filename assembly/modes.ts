/**
 * The blend functions B(Cb, Cs) of W3C Compositing and Blending Level 1 plus Photoshop's extra modes, on
 * straight colours in 0..1, one pixel per vector (the alpha lane is ignored by the caller). Formulas as
 * research/engine.md §1.1 and psd-tools pin them against Photoshop renders. Branches of the scalar
 * definitions become selects: every side is computed, and a side that divides by zero is never selected.
 */
import { first, HALF, max, min, ONE, select, splat, TWO, ZERO } from './vec';

/** Blend mode numbers, as the compositor passes them in (src/engine/composite/kernels.ts maps names). */
export enum Mode {
  NORMAL = 0,
  MULTIPLY,
  SCREEN,
  OVERLAY,
  DARKEN,
  LIGHTEN,
  COLOR_DODGE,
  COLOR_BURN,
  SOFT_LIGHT,
  HARD_LIGHT,
  DIFFERENCE,
  EXCLUSION,
  LINEAR_BURN,
  LINEAR_DODGE,
  SUBTRACT,
  DIVIDE,
  VIVID_LIGHT,
  LINEAR_LIGHT,
  PIN_LIGHT,
  HARD_MIX,
  HUE,
  SATURATION,
  COLOR,
  LUMINOSITY,
  DARKER_COLOR,
  LIGHTER_COLOR,
}

/**
 * Backdrop colours reach the blend un-premultiplied from float storage (Cb = cb / αb), so a value that is
 * exactly 0 or 1 in 8 bits may arrive as 0.99999994. The modes with a discontinuity at an extreme compare
 * against the extreme with this tolerance, far below 1/255, so they take the branch the 8-bit value would.
 */
const EPS: f32 = 1e-5;

// @ts-ignore: decorator
@inline function screen(b: v128, s: v128): v128 {
  return f32x4.sub(f32x4.add(b, s), f32x4.mul(b, s));
}

// @ts-ignore: decorator
@inline function hardLight(b: v128, s: v128): v128 {
  const s2 = f32x4.mul(TWO, s);
  return select(f32x4.le(s, HALF), f32x4.mul(b, s2), screen(b, f32x4.sub(s2, ONE)));
}

// @ts-ignore: decorator
@inline function colorDodge(b: v128, s: v128): v128 {
  const r = select(f32x4.ge(s, splat(1 - EPS)), ONE, min(ONE, f32x4.div(b, f32x4.sub(ONE, s))));
  return select(f32x4.le(b, splat(EPS)), ZERO, r);
}

// @ts-ignore: decorator
@inline function colorBurn(b: v128, s: v128): v128 {
  const r = select(f32x4.le(s, splat(EPS)), ZERO, f32x4.sub(ONE, min(ONE, f32x4.div(f32x4.sub(ONE, b), s))));
  return select(f32x4.ge(b, splat(1 - EPS)), ONE, r);
}

// @ts-ignore: decorator
@inline function softLight(b: v128, s: v128): v128 {
  const dark = f32x4.sub(b, f32x4.mul(f32x4.mul(f32x4.sub(ONE, f32x4.mul(TWO, s)), b), f32x4.sub(ONE, b)));
  // D is keyed on the backdrop, not the source (psd-tools #189: keying it on Cs is off by up to 12/255).
  const poly = f32x4.mul(f32x4.add(f32x4.mul(f32x4.sub(f32x4.mul(splat(16), b), splat(12)), b), splat(4)), b);
  const d = select(f32x4.le(b, splat(0.25)), poly, f32x4.sqrt(b));
  const light = f32x4.add(b, f32x4.mul(f32x4.sub(f32x4.mul(TWO, s), ONE), f32x4.sub(d, b)));
  return select(f32x4.le(s, HALF), dark, light);
}

// @ts-ignore: decorator
@inline function divide(b: v128, s: v128): v128 {
  const r = select(f32x4.le(s, splat(EPS)), ONE, min(ONE, f32x4.div(b, s)));
  return select(f32x4.le(b, splat(EPS)), ZERO, r);
}

/** The source extremes win here, unlike plain colour burn/dodge (pinned to Photoshop by psd-tools #189). */
// @ts-ignore: decorator
@inline function vividLight(b: v128, s: v128): v128 {
  const burnt = f32x4.sub(ONE, min(ONE, f32x4.div(f32x4.sub(ONE, b), f32x4.mul(TWO, s))));
  const burn = select(f32x4.le(s, splat(EPS)), ZERO, burnt);
  const dodged = min(ONE, f32x4.div(b, f32x4.mul(TWO, f32x4.sub(ONE, s))));
  const dodge = select(f32x4.ge(s, splat(1 - EPS)), ONE, dodged);
  return select(f32x4.le(s, HALF), burn, dodge);
}

// @ts-ignore: decorator
@inline function linearLight(b: v128, s: v128): v128 {
  const s2 = f32x4.mul(TWO, s);
  const burn = max(ZERO, f32x4.sub(f32x4.add(b, s2), ONE));
  const dodge = min(ONE, f32x4.add(b, f32x4.sub(s2, ONE)));
  return select(f32x4.le(s, HALF), burn, dodge);
}

// @ts-ignore: decorator
@inline function pinLight(b: v128, s: v128): v128 {
  const s2 = f32x4.mul(TWO, s);
  return select(f32x4.le(s, HALF), min(b, s2), max(b, f32x4.sub(s2, ONE)));
}

/** Cb + Cs = 1 exactly is a real tie in 8 bits (complementary values): Photoshop gives 1 only if Cb > ½. */
// @ts-ignore: decorator
@inline function hardMix(b: v128, s: v128): v128 {
  const t = f32x4.add(b, s);
  const tie = select(f32x4.gt(b, HALF), ONE, ZERO);
  return select(f32x4.gt(t, splat(1 + EPS)), ONE, select(f32x4.lt(t, splat(1 - EPS)), ZERO, tie));
}

// Non-separable helpers (W3C §"Non-separable blend modes"), on r, g, b; the results carry the value in
// every lane, or the colour in r, g, b.

/** Lum(C) in every lane. */
// @ts-ignore: decorator
@inline function lum(c: v128): v128 {
  const m = f32x4.mul(c, f32x4(0.3, 0.59, 0.11, 0));
  const s = f32x4.add(m, i32x4.shuffle(m, m, 1, 0, 3, 2));
  return f32x4.add(s, i32x4.shuffle(s, s, 2, 3, 0, 1));
}

/** min(r, g, b) in every lane. */
// @ts-ignore: decorator
@inline function minRgb(c: v128): v128 {
  const t = i32x4.shuffle(c, c, 0, 1, 2, 0);
  const m = min(t, i32x4.shuffle(t, t, 1, 0, 3, 2));
  return min(m, i32x4.shuffle(m, m, 2, 3, 0, 1));
}

/** max(r, g, b) in every lane. */
// @ts-ignore: decorator
@inline function maxRgb(c: v128): v128 {
  const t = i32x4.shuffle(c, c, 0, 1, 2, 0);
  const m = max(t, i32x4.shuffle(t, t, 1, 0, 3, 2));
  return max(m, i32x4.shuffle(m, m, 2, 3, 0, 1));
}

/** SetLum(C, l) followed by ClipColor. */
// @ts-ignore: decorator
@inline function setLum(c0: v128, l: v128): v128 {
  let c = f32x4.add(c0, f32x4.sub(l, lum(c0)));
  const L = lum(c);
  const n = first(minRgb(c));
  const x = first(maxRgb(c));
  const lf = first(L);
  if (n < 0) c = f32x4.add(L, f32x4.mul(f32x4.sub(c, L), splat(lf / (lf - n))));
  if (x > 1) c = f32x4.add(L, f32x4.mul(f32x4.sub(c, L), splat((1 - lf) / (x - lf))));
  return c;
}

/** SetSat(C, s): each channel maps linearly through (min → 0, max → s), which keeps the channel order. */
// @ts-ignore: decorator
@inline function setSat(c: v128, s: v128): v128 {
  const n = minRgb(c);
  const x = first(maxRgb(c));
  const nf = first(n);
  if (x <= nf) return ZERO;
  return f32x4.mul(f32x4.sub(c, n), f32x4.div(s, splat(x - nf)));
}

// @ts-ignore: decorator
@inline function sat(c: v128): v128 {
  return f32x4.sub(maxRgb(c), minRgb(c));
}

/** B(Cb, Cs) for `mode` (a constant wherever this is inlined, so only its own case remains). */
// @ts-ignore: decorator
@inline export function blend(mode: i32, b: v128, s: v128): v128 {
  switch (mode) {
    case Mode.MULTIPLY:
      return f32x4.mul(b, s);
    case Mode.SCREEN:
      return screen(b, s);
    case Mode.OVERLAY:
      return hardLight(s, b);
    case Mode.DARKEN:
      return min(b, s);
    case Mode.LIGHTEN:
      return max(b, s);
    case Mode.COLOR_DODGE:
      return colorDodge(b, s);
    case Mode.COLOR_BURN:
      return colorBurn(b, s);
    case Mode.SOFT_LIGHT:
      return softLight(b, s);
    case Mode.HARD_LIGHT:
      return hardLight(b, s);
    case Mode.DIFFERENCE:
      return f32x4.abs(f32x4.sub(b, s));
    case Mode.EXCLUSION:
      return f32x4.sub(f32x4.add(b, s), f32x4.mul(f32x4.mul(TWO, b), s));
    case Mode.LINEAR_BURN:
      return max(ZERO, f32x4.sub(f32x4.add(b, s), ONE));
    case Mode.LINEAR_DODGE:
      return min(ONE, f32x4.add(b, s));
    case Mode.SUBTRACT:
      return max(ZERO, f32x4.sub(b, s));
    case Mode.DIVIDE:
      return divide(b, s);
    case Mode.VIVID_LIGHT:
      return vividLight(b, s);
    case Mode.LINEAR_LIGHT:
      return linearLight(b, s);
    case Mode.PIN_LIGHT:
      return pinLight(b, s);
    case Mode.HARD_MIX:
      return hardMix(b, s);
    case Mode.HUE:
      return setLum(setSat(s, sat(b)), lum(b));
    case Mode.SATURATION:
      return setLum(setSat(b, sat(s)), lum(b));
    case Mode.COLOR:
      return setLum(s, lum(b));
    case Mode.LUMINOSITY:
      return setLum(b, lum(s));
    case Mode.DARKER_COLOR:
      return first(lum(s)) < first(lum(b)) ? s : b;
    case Mode.LIGHTER_COLOR:
      return first(lum(s)) > first(lum(b)) ? s : b;
    default:
      return s;
  }
}
