/**
 * Smart objects: the source pixels are kept at full quality and the layer's raster is re-rendered from them
 * through a `SmartTransform` (scale about the centre, then rotation, then position). Transforms compose into
 * the transform, never into the pixels, so scaling to 50 % and back to 200 % gives back the source exactly.
 */
import type { Raster, SmartTransform } from './model.js';
import { trimRaster } from './raster.js';
import { type FlipAxis, type Point, placePixels, quarterTurns, rotatePoint } from './transform.js';

/** A smart object placing `raster` exactly where it is: source = the trimmed pixels, identity transform. */
export function smartFromRaster(raster: Raster): { source: Raster; transform: SmartTransform } {
  const source = trimRaster(raster);
  return {
    source,
    transform: { cx: source.x + source.w / 2, cy: source.y + source.h / 2, scaleX: 1, scaleY: 1, angle: 0 },
  };
}

/** The size, in whole pixels, the source is scaled to before rotation. */
export function scaledSize(source: Raster, t: SmartTransform): { w: number; h: number } {
  return {
    w: Math.max(1, Math.round(Math.abs(t.scaleX) * source.w)),
    h: Math.max(1, Math.round(Math.abs(t.scaleY) * source.h)),
  };
}

/** The layer raster for `source` placed by `t` (lanczos3 scaling, exact flips and quarter turns, bicubic otherwise). */
export function renderSmart(source: Raster, t: SmartTransform): Promise<Raster> {
  return placePixels(source, scaledSize(source, t), { x: t.scaleX < 0, y: t.scaleY < 0 }, t.angle, {
    x: t.cx,
    y: t.cy,
  });
}

/** Degrees in (-180, 180]. */
function tidyAngle(deg: number): number {
  let a = deg % 360;
  if (a <= -180) a += 360;
  if (a > 180) a -= 360;
  return a + 0;
}

/**
 * Scales by `kx`, `ky` along the document axes about `pivot`. Exact when uniform or when the object is turned
 * by a multiple of 90°; otherwise a non-uniform scale of a turned object would need a skew, which the
 * transform cannot hold, so it is applied along the object's own axes (`alongObjectAxes`).
 */
export function scaleSmart(
  t: SmartTransform,
  kx: number,
  ky: number,
  pivot: Point,
): { transform: SmartTransform; alongObjectAxes: boolean } {
  const q = quarterTurns(t.angle);
  const swap = q === 1 || q === 3;
  const alongObjectAxes = kx !== ky && q === null;
  return {
    transform: {
      ...t,
      cx: pivot.x + (t.cx - pivot.x) * kx,
      cy: pivot.y + (t.cy - pivot.y) * ky,
      scaleX: t.scaleX * (swap ? ky : kx),
      scaleY: t.scaleY * (swap ? kx : ky),
    },
    alongObjectAxes,
  };
}

/** Rotates by `deg` clockwise about `pivot`. */
export function rotateSmart(t: SmartTransform, deg: number, pivot: Point): SmartTransform {
  const c = rotatePoint({ x: t.cx, y: t.cy }, pivot, deg);
  return { ...t, cx: c.x, cy: c.y, angle: tidyAngle(t.angle + deg) };
}

/**
 * Mirrors about the line through `pivot`. A mirror turns a rotation by θ into one by −θ
 * (F·R(θ) = R(−θ)·F), and the flip itself becomes a negative scale.
 */
export function flipSmart(t: SmartTransform, axis: FlipAxis, pivot: Point): SmartTransform {
  const angle = tidyAngle(-t.angle);
  return axis === 'horizontal'
    ? { ...t, cx: 2 * pivot.x - t.cx, scaleX: -t.scaleX, angle }
    : { ...t, cy: 2 * pivot.y - t.cy, scaleY: -t.scaleY, angle };
}

/** How place_image sizes an image: `auto` is Photoshop's Place, `pixels` one to one, `fit` into the canvas. */
export type PlaceSize = 'auto' | 'pixels' | 'fit';

/**
 * The scale a placed image gets, as Photoshop's Place with "Resize Image During Place" (its default): the file's
 * physical size kept (its resolution against the document's; a file that records none is taken pixel for pixel,
 * not as 72 DPI, so an untagged PNG is not blown up), then scaled down to fit a canvas it would overflow.
 */
export function placeScale(
  source: { w: number; h: number; dpi: number | null },
  canvas: { w: number; h: number; dpi: number },
  size: PlaceSize,
): { scale: number; why: 'pixels' | 'resolution' | 'fit' } {
  if (size === 'pixels') return { scale: 1, why: 'pixels' };
  const fit = Math.min(canvas.w / source.w, canvas.h / source.h);
  if (size === 'fit') return { scale: fit, why: fit === 1 ? 'pixels' : 'fit' };
  const physical = source.dpi === null ? 1 : canvas.dpi / source.dpi;
  if (physical > fit) return { scale: fit, why: 'fit' };
  return { scale: physical, why: physical === 1 ? 'pixels' : 'resolution' };
}
