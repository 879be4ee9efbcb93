/**
 * Photoshop's Gradient tool with two stops: a colour and an opacity at the drag's start, another at its end, laid
 * along the drag. Linear runs from the start to the end (before the start all start, past the end all end);
 * reflected runs the same way out to both sides of the start; radial runs from the start (the centre) out to the
 * distance of the end. Colour and opacity are interpolated apart, each straight and linear (Photoshop's Classic
 * method at a smoothness of 0 %, and no dither: what ImageMagick's gradients draw, the reference in the tests).
 * Written by hand because no image library here lays a gradient into a selection of a layer.
 */
import type { GRADIENT_TYPES } from '../registry/tools/paint-params.js';
import type { Rect, RGB } from './model.js';

export type GradientType = (typeof GRADIENT_TYPES)[number];

export interface GradientStop {
  readonly color: RGB;
  /** 0–1. */
  readonly opacity: number;
}

export interface Gradient {
  readonly type: GradientType;
  /** Document px, continuous coordinates: a pixel's centre is at (x + 0.5, y + 0.5). */
  readonly from: { readonly x: number; readonly y: number };
  readonly to: { readonly x: number; readonly y: number };
  readonly start: GradientStop;
  readonly end: GradientStop;
}

/** Where pixel centre (px, py) is along the gradient, 0 at its start and 1 at its end. */
function along(g: Gradient, dx: number, dy: number, ux: number, uy: number, len2: number): number {
  if (g.type === 'radial') return Math.min(1, Math.sqrt((dx * dx + dy * dy) / len2));
  const t = (dx * ux + dy * uy) / len2;
  if (g.type === 'reflected') return Math.min(1, Math.abs(t));
  return Math.max(0, Math.min(1, t));
}

/**
 * The gradient's colour and opacity over `region`, a row at a time (selection.ts PaintRows): r, g, b (0–255) and
 * opacity (0–1). The start and end must differ.
 */
export function gradientRows(g: Gradient, region: Rect): (y: number, into: Float32Array) => void {
  const ux = g.to.x - g.from.x;
  const uy = g.to.y - g.from.y;
  const len2 = ux * ux + uy * uy;
  const { start: s, end: e } = g;
  return (y, into) => {
    const dy = region.y + y + 0.5 - g.from.y;
    for (let x = 0, k = 0; x < region.w; x++, k += 4) {
      const t = along(g, region.x + x + 0.5 - g.from.x, dy, ux, uy, len2);
      into[k] = s.color.r + (e.color.r - s.color.r) * t;
      into[k + 1] = s.color.g + (e.color.g - s.color.g) * t;
      into[k + 2] = s.color.b + (e.color.b - s.color.b) * t;
      into[k + 3] = s.opacity + (e.opacity - s.opacity) * t;
    }
  };
}
