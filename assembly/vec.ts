/**
 * Small helpers on f32x4 vectors holding one pixel each: lanes r, g, b, a. `select` and the pseudo-min/max
 * keep every step a single SSE instruction under V8 (f32x4.min/max would add NaN and −0 fix-ups).
 */

export const ZERO: v128 = f32x4.splat(0);
export const ONE: v128 = f32x4.splat(1);
export const HALF: v128 = f32x4.splat(0.5);
export const TWO: v128 = f32x4.splat(2);
/** All bits set in the alpha lane only. */
export const ALPHA_LANE: v128 = i32x4(0, 0, 0, -1);

/** `mask ? a : b`, lane by lane (masks come from comparisons: all bits set or none). */
// @ts-ignore: decorator
@inline export function select(mask: v128, a: v128, b: v128): v128 {
  return v128.bitselect(a, b, mask);
}

// @ts-ignore: decorator
@inline export function splat(x: f32): v128 {
  return f32x4.splat(x);
}

/** min(a, b) for numbers; with a NaN in `b` the result is `a`. */
// @ts-ignore: decorator
@inline export function min(a: v128, b: v128): v128 {
  return f32x4.pmin(a, b);
}

/** max(a, b) for numbers; with a NaN in `b` the result is `a`. */
// @ts-ignore: decorator
@inline export function max(a: v128, b: v128): v128 {
  return f32x4.pmax(a, b);
}

/** The first lane. */
// @ts-ignore: decorator
@inline export function first(a: v128): f32 {
  return f32x4.extract_lane(a, 0);
}

/** The straight RGBA8 pixel at `p` as floats r, g, b in 0..255 and 255 in the alpha lane. */
// @ts-ignore: decorator
@inline export function loadOpaque(p: usize): v128 {
  let v = v128.or(v128.load32_zero(p), i32x4(0xff000000, 0, 0, 0));
  v = i16x8.extend_low_i8x16_u(v);
  v = i32x4.extend_low_i16x8_u(v);
  // Signed conversion: the values are small and positive, and it is one instruction where unsigned is many.
  return f32x4.convert_i32x4_s(v);
}
