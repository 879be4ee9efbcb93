/**
 * Blend-mode dispatch: one specialised row kernel per mode, chosen once per row (never per pixel).
 * W3C Compositing and Blending Level 1 with straight-alpha inputs, plus Photoshop's extra modes.
 */
import type { BlendMode } from '../model.js';
import {
  colorRow,
  darkerColorRow,
  hueRow,
  lighterColorRow,
  luminosityRow,
  saturationRow,
} from './nonseparable.js';
import {
  colorBurnRow,
  colorDodgeRow,
  darkenRow,
  differenceRow,
  divideRow,
  exclusionRow,
  hardLightRow,
  hardMixRow,
  lightenRow,
  linearBurnRow,
  linearDodgeRow,
  linearLightRow,
  multiplyRow,
  normalRow,
  overlayRow,
  pinLightRow,
  type RowKernel,
  screenRow,
  softLightRow,
  subtractRow,
  vividLightRow,
} from './separable.js';

export type { RowKernel } from './separable.js';

const KERNELS: Readonly<Record<BlendMode, RowKernel>> = {
  normal: normalRow,
  multiply: multiplyRow,
  screen: screenRow,
  overlay: overlayRow,
  darken: darkenRow,
  lighten: lightenRow,
  'color dodge': colorDodgeRow,
  'color burn': colorBurnRow,
  'soft light': softLightRow,
  'hard light': hardLightRow,
  difference: differenceRow,
  exclusion: exclusionRow,
  hue: hueRow,
  saturation: saturationRow,
  color: colorRow,
  luminosity: luminosityRow,
  // Only groups pass through; on anything else it means nothing more than normal.
  'pass through': normalRow,
  // The compositor dithers the alpha to 0/1 first (see `dissolveCoverage`); what remains is normal.
  dissolve: normalRow,
  'linear burn': linearBurnRow,
  'linear dodge': linearDodgeRow,
  'darker color': darkerColorRow,
  'lighter color': lighterColorRow,
  'vivid light': vividLightRow,
  'linear light': linearLightRow,
  'pin light': pinLightRow,
  'hard mix': hardMixRow,
  subtract: subtractRow,
  divide: divideRow,
};

/** The row kernel for `mode` (unknown strings, e.g. from a foreign file, fall back to normal). */
export function kernelFor(mode: BlendMode): RowKernel {
  return KERNELS[mode] ?? normalRow;
}

/**
 * Composites `n` straight RGBA8 pixels of `src` (from byte `si`) onto the premultiplied float accumulator
 * `acc` (from index `ai`) with `mode`. Effective source alpha = src α / 255 · `opacity` · `cov[j]` (when
 * `cov` is given). With `atop`, source-atop: the result keeps the backdrop's alpha (clipped layers).
 */
export function blendRow(
  mode: BlendMode,
  acc: Float32Array,
  ai: number,
  src: Uint8ClampedArray,
  si: number,
  n: number,
  opacity: number,
  cov: Float32Array | null = null,
  atop = false,
): void {
  kernelFor(mode)(acc, ai, src, si, n, opacity / 255, cov, atop);
}
