/**
 * The compositor's pixel kernels, compiled to WebAssembly with SIMD (one pixel per f32x4): blending straight
 * RGBA8 source rows onto a premultiplied float accumulator, and writing the accumulator out as bytes. The
 * TypeScript compositor (src/engine/composite/) owns everything else: the layer tree, strips, masks and
 * memory layout; it calls these with addresses in this module's memory.
 *
 * Accumulator layout: r, g, b premultiplied by a, all in 0..1, 16 bytes per pixel. Per pixel, with
 * αs = src α · k · cov[j]:
 *   co = Fa·αs·((1 − αb)·Cs + αb·B(Cb, Cs)) + (1 − αs)·cb     (cb premultiplied, Cb = cb / αb)
 *   αo = Fa·αs + αb·(1 − αs)
 * where Fa = 1 for source-over and Fa = αb for source-atop (the result keeps the backdrop's alpha: clipped
 * layers). Giving the source 1 in its alpha lane and B 1 in its alpha lane makes the one vector expression
 * produce αo in the alpha lane too.
 */
import { blend as blendOf, Mode } from './modes';
import { ALPHA_LANE, loadOpaque, ONE, select, splat } from './vec';

/** Where the caller may start laying out its buffers (after this module's own static data). */
export function heapBase(): usize {
  return (__heap_base + 15) & ~15;
}

// @ts-ignore: decorator
@inline function row(mode: i32, atop: bool, acc: usize, src: usize, n: i32, k: f32, cov: usize): void {
  const inv = splat(1.0 / 255.0);
  for (let j = 0; j < n; j++, acc += 16, src += 4) {
    let as = <f32>load<u8>(src, 3) * k;
    if (cov != 0) as *= load<f32>(cov + (<usize>j << 2));
    if (as == 0) continue;
    const s = f32x4.mul(loadOpaque(src), inv);
    const d = v128.load(acc);
    const ab = f32x4.extract_lane(d, 3);
    const fa: f32 = atop ? ab : 1;
    if (mode == Mode.NORMAL) {
      // (1 − αb)·Cs + αb·Cs = Cs: no un-premultiplied backdrop needed.
      v128.store(acc, f32x4.add(f32x4.mul(s, splat(fa * as)), f32x4.mul(d, splat(1 - as))));
      continue;
    }
    if (ab == 0) {
      // An empty backdrop: source-over copies the source in, source-atop leaves nothing.
      if (!atop) v128.store(acc, f32x4.mul(s, splat(as)));
      continue;
    }
    const w = fa * as;
    const b = select(ALPHA_LANE, ONE, blendOf(mode, f32x4.mul(d, splat(1 / ab)), s));
    const fromSource = f32x4.add(f32x4.mul(s, splat(w * (1 - ab))), f32x4.mul(b, splat(w * ab)));
    v128.store(acc, f32x4.add(fromSource, f32x4.mul(d, splat(1 - as))));
  }
}

// @ts-ignore: decorator
@inline function rows(mode: i32, acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  if (atop) row(mode, true, acc, src, n, k, cov);
  else row(mode, false, acc, src, n, k, cov);
}

/**
 * One export per blend mode, each compositing `n` straight RGBA8 pixels at `src` onto the accumulator at
 * `acc`. `k` scales the source alpha byte to the effective 0..1 alpha (opacity / 255); `cov`, when not 0, is
 * the address of `n` more alpha factors (mask coverage). With `atop`, source-atop instead of source-over.
 * Separate functions (not one taking the mode) so that each loop is compiled for its own mode: the
 * optimiser folds a shared body back into one loop that switches per pixel.
 */
export function normal(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.NORMAL, acc, src, n, k, cov, atop);
}

export function multiply(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.MULTIPLY, acc, src, n, k, cov, atop);
}

export function screen(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.SCREEN, acc, src, n, k, cov, atop);
}

export function overlay(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.OVERLAY, acc, src, n, k, cov, atop);
}

export function darken(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.DARKEN, acc, src, n, k, cov, atop);
}

export function lighten(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.LIGHTEN, acc, src, n, k, cov, atop);
}

export function colorDodge(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.COLOR_DODGE, acc, src, n, k, cov, atop);
}

export function colorBurn(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.COLOR_BURN, acc, src, n, k, cov, atop);
}

export function softLight(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.SOFT_LIGHT, acc, src, n, k, cov, atop);
}

export function hardLight(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.HARD_LIGHT, acc, src, n, k, cov, atop);
}

export function difference(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.DIFFERENCE, acc, src, n, k, cov, atop);
}

export function exclusion(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.EXCLUSION, acc, src, n, k, cov, atop);
}

export function linearBurn(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.LINEAR_BURN, acc, src, n, k, cov, atop);
}

export function linearDodge(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.LINEAR_DODGE, acc, src, n, k, cov, atop);
}

export function subtract(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.SUBTRACT, acc, src, n, k, cov, atop);
}

export function divide(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.DIVIDE, acc, src, n, k, cov, atop);
}

export function vividLight(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.VIVID_LIGHT, acc, src, n, k, cov, atop);
}

export function linearLight(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.LINEAR_LIGHT, acc, src, n, k, cov, atop);
}

export function pinLight(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.PIN_LIGHT, acc, src, n, k, cov, atop);
}

export function hardMix(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.HARD_MIX, acc, src, n, k, cov, atop);
}

export function hue(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.HUE, acc, src, n, k, cov, atop);
}

export function saturation(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.SATURATION, acc, src, n, k, cov, atop);
}

export function color(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.COLOR, acc, src, n, k, cov, atop);
}

export function luminosity(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.LUMINOSITY, acc, src, n, k, cov, atop);
}

export function darkerColor(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.DARKER_COLOR, acc, src, n, k, cov, atop);
}

export function lighterColor(acc: usize, src: usize, n: i32, k: f32, cov: usize, atop: bool): void {
  rows(Mode.LIGHTER_COLOR, acc, src, n, k, cov, atop);
}

/**
 * Writes `n` accumulator pixels at `acc` as straight RGBA8 at `out`, rounding half to even and clamping as
 * a Uint8ClampedArray store does. Pixels below half a step of alpha come out canonical transparent (all 0).
 */
export function finish(acc: usize, out: usize, n: i32): void {
  const threshold: f32 = 0.5 / 255;
  for (let j = 0; j < n; j++, acc += 16, out += 4) {
    const d = v128.load(acc);
    const a = f32x4.extract_lane(d, 3);
    if (a < threshold) {
      store<u32>(out, 0);
      continue;
    }
    const scale = f32x4.replace_lane(splat(255 / a), 3, 255);
    const v = i32x4.trunc_sat_f32x4_s(f32x4.nearest(f32x4.mul(d, scale)));
    const bytes = i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_u(v, v), v128.splat<i32>(0));
    v128.store32_lane(out, bytes, 0);
  }
}
