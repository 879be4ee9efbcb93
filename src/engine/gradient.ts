/**
 * Photoshop's Gradient tool: colour stops and opacity stops laid along the drag, each at a location from 0 (the
 * drag's start) to 1 (its end), at least one of each at 0 and at 1. Linear runs from the start to the end (before
 * the start all the first stop's, past the end all the last's); reflected runs the same way out to both sides of
 * the start; radial runs from the start (the centre) out to the distance of the end. Colour and opacity are
 * interpolated apart, each straight and linear between neighbouring stops (Photoshop's Classic method at a
 * smoothness of 0 %, midpoints at 50 %: what ImageMagick's gradients draw, the reference in the tests).
 *
 * Dither (Photoshop's option, on by default): a long, shallow gradient in 8 bits steps in bands a designer sees,
 * and a press prints. Each pixel's value gets noise of under half a level either way before it is stored, so a
 * value between two levels becomes a mix of both in proportion and the bands go; a value on a level (the stops'
 * own colours, flat runs) stays exactly that level. The noise is a hash of the pixel's place in the document, so
 * the same gradient always gives the same pixels. Written by hand because no image library here lays a gradient
 * into a selection of a layer.
 */
import type { GRADIENT_TYPES } from '../registry/tools/paint-params.js';
import type { Rect, RGB } from './model.js';

export type GradientType = (typeof GRADIENT_TYPES)[number];

export interface ColorStop {
  /** 0–1 along the drag. */
  readonly at: number;
  readonly color: RGB;
}

export interface OpacityStop {
  readonly at: number;
  /** 0–1. */
  readonly opacity: number;
}

export interface Gradient {
  readonly type: GradientType;
  /** Document px, continuous coordinates: a pixel's centre is at (x + 0.5, y + 0.5). */
  readonly from: { readonly x: number; readonly y: number };
  readonly to: { readonly x: number; readonly y: number };
  /** Sorted by `at` (stops at one location in the order given: the colour jumps there), the first at 0, the last at 1. */
  readonly colors: readonly ColorStop[];
  readonly opacities: readonly OpacityStop[];
  /** Noise of under half a level on every value between two levels (Photoshop's Dither). */
  readonly dither?: boolean;
}

/** Half the dither's spread: under half a level, with room for float32's rounding near ±0.5 (Float32Array rows). */
const DITHER_HALF = 0.498;

/**
 * Noise for the pixel at document (x, y), uniform within ±DITHER_HALF: an integer hash (murmur3's finaliser over
 * the two coordinates and a constant, so no place is special), so a value on a level rounds back to it.
 */
export function ditherNoise(x: number, y: number): number {
  let h = (Math.imul(x | 0, 0x27d4eb2d) + Math.imul(y | 0, 0x165667b1) + 0x9e3779b9) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return ((h >>> 0) / 4294967296 - 0.5) * 2 * DITHER_HALF;
}

/** Where pixel centre (px, py) is along the gradient, 0 at its start and 1 at its end. */
function along(g: Gradient, dx: number, dy: number, ux: number, uy: number, len2: number): number {
  if (g.type === 'radial') return Math.min(1, Math.sqrt((dx * dx + dy * dy) / len2));
  const t = (dx * ux + dy * uy) / len2;
  if (g.type === 'reflected') return Math.min(1, Math.abs(t));
  return Math.max(0, Math.min(1, t));
}

/** The index of the stop that starts the segment holding `t` (the last segment holds 1). */
function segment(stops: readonly { readonly at: number }[], t: number): number {
  let i = 0;
  while (i < stops.length - 2 && t >= stops[i + 1]!.at) i++;
  return i;
}

/** How far `t` lies from stop i to stop i + 1, 0–1 (0 where the two stand at one location). */
function within(stops: readonly { readonly at: number }[], i: number, t: number): number {
  const [a, b] = [stops[i]!.at, stops[i + 1]!.at];
  return b > a ? (t - a) / (b - a) : 0;
}

/**
 * The gradient's colour and opacity over `region`, a row at a time (selection.ts PaintRows): r, g, b (0–255) and
 * opacity (0–1). The start and end must differ.
 */
export function gradientRows(g: Gradient, region: Rect): (y: number, into: Float32Array) => void {
  const ux = g.to.x - g.from.x;
  const uy = g.to.y - g.from.y;
  const len2 = ux * ux + uy * uy;
  const { colors: cs, opacities: os, dither } = g;
  return (y, into) => {
    const dy = region.y + y + 0.5 - g.from.y;
    for (let x = 0, k = 0; x < region.w; x++, k += 4) {
      const t = along(g, region.x + x + 0.5 - g.from.x, dy, ux, uy, len2);
      const c = segment(cs, t);
      const tc = within(cs, c, t);
      const [s, e] = [cs[c]!.color, cs[c + 1]!.color];
      const o = segment(os, t);
      const to = within(os, o, t);
      const opacity = os[o]!.opacity + (os[o + 1]!.opacity - os[o]!.opacity) * to;
      // One noise for the three channels, so the hue does not speckle; opacity dithered only between its ends,
      // so a clear or solid run stays exactly clear or solid.
      const n = dither ? ditherNoise(region.x + x, region.y + y) : 0;
      into[k] = s.r + (e.r - s.r) * tc + n;
      into[k + 1] = s.g + (e.g - s.g) * tc + n;
      into[k + 2] = s.b + (e.b - s.b) * tc + n;
      into[k + 3] =
        n !== 0 && opacity > 0 && opacity < 1 ? Math.min(1, Math.max(0, opacity + n / 255)) : opacity;
    }
  };
}
