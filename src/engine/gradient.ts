/**
 * Photoshop's Gradient tool: colour stops and opacity stops laid along the drag, each at a location from 0 (the
 * drag's start) to 1 (its end), at least one of each at 0 and at 1. Linear runs from the start to the end (before
 * the start all the first stop's, past the end all the last's); reflected runs the same way out to both sides of
 * the start; radial runs from the start (the centre) out to the distance of the end. Colour and opacity are
 * interpolated apart, each straight and linear between neighbouring stops (Photoshop's Classic method at a
 * smoothness of 0 %, midpoints at 50 %, and no dither: what ImageMagick's gradients draw, the reference in the
 * tests). Written by hand because no image library here lays a gradient into a selection of a layer.
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
  const { colors: cs, opacities: os } = g;
  return (y, into) => {
    const dy = region.y + y + 0.5 - g.from.y;
    for (let x = 0, k = 0; x < region.w; x++, k += 4) {
      const t = along(g, region.x + x + 0.5 - g.from.x, dy, ux, uy, len2);
      const c = segment(cs, t);
      const tc = within(cs, c, t);
      const [s, e] = [cs[c]!.color, cs[c + 1]!.color];
      into[k] = s.r + (e.r - s.r) * tc;
      into[k + 1] = s.g + (e.g - s.g) * tc;
      into[k + 2] = s.b + (e.b - s.b) * tc;
      const o = segment(os, t);
      const to = within(os, o, t);
      into[k + 3] = os[o]!.opacity + (os[o + 1]!.opacity - os[o]!.opacity) * to;
    }
  };
}
