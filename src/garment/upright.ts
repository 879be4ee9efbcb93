/**
 * A piece as it stands on the garment. A marker lays pieces down turned (a quarter or half turn packs them
 * tighter), but the print runs along the garment: its top towards the neck or waist, its grain vertical. Every
 * garment step that reads or draws the print (placement, seams, fills, motifs, verify) therefore works on the
 * piece turned back upright, and what it draws is turned onto the marker afterwards. Quarter turns map pixels to
 * pixels, so nothing is resampled.
 *
 * The upright frame is tied to the piece's bounds: turned about their centre, so an upright piece keeps its
 * place (the print's phase across untouched pieces is unchanged).
 */
import type { Raster, Rect } from '../engine/model.js';
import { cropRaster } from '../engine/raster.js';
import { turnPixels } from '../engine/transform.js';
import { proxyOf } from './builtin/piece-features.js';
import { mirrorIoU } from './builtin/pieces.js';
import type { PieceInfo, Turn } from './types.js';

/** Quarter turns clockwise from upright to the marker. */
const turnsOf = (p: { readonly grain?: { readonly turn: Turn } }): QuarterTurns =>
  (p.grain ? p.grain.turn / 90 : 0) as QuarterTurns;

type QuarterTurns = 0 | 1 | 2 | 3;

/** The quarter turns that undo `q`. */
const back = (q: QuarterTurns) => ((4 - q) % 4) as QuarterTurns;

/** Where the turned bounds `b` stand upright: the same centre, the sides swapped for an odd quarter turn. */
function uprightBounds(b: Rect, q: number): Rect {
  const w = q % 2 ? b.h : b.w;
  const h = q % 2 ? b.w : b.h;
  return { x: b.x + Math.floor((b.w - w) / 2), y: b.y + Math.floor((b.h - h) / 2), w, h };
}

/**
 * The pixel map of a piece's frame: marker pixel (X, Y) ↔ upright pixel, for any pixel (not only inside the
 * bounds), so a raster's rect maps as a whole.
 */
export interface Frame {
  readonly q: QuarterTurns;
  readonly bounds: Rect;
  readonly upright: Rect;
}

export function frameOf(p: PieceInfo): Frame {
  const q = turnsOf(p);
  return { q, bounds: p.bounds, upright: uprightBounds(p.bounds, q) };
}

/** Marker pixel → upright pixel. The marker shows the upright piece turned q times clockwise. */
export function toUpright(f: Frame, X: number, Y: number): [number, number] {
  const i = X - f.bounds.x;
  const j = Y - f.bounds.y;
  const { w: W, h: H } = f.upright;
  const [u, v] =
    f.q === 1 ? [j, H - 1 - i] : f.q === 2 ? [W - 1 - i, H - 1 - j] : f.q === 3 ? [W - 1 - j, i] : [i, j];
  return [f.upright.x + u, f.upright.y + v];
}

/** Upright pixel → marker pixel (the inverse of toUpright). */
export function toMarker(f: Frame, U: number, V: number): [number, number] {
  const u = U - f.upright.x;
  const v = V - f.upright.y;
  const { w: W, h: H } = f.upright;
  const [i, j] =
    f.q === 1 ? [H - 1 - v, u] : f.q === 2 ? [W - 1 - u, H - 1 - v] : f.q === 3 ? [v, W - 1 - u] : [u, v];
  return [f.bounds.x + i, f.bounds.y + j];
}

/** The upright rect of a marker rect (its corners mapped). */
export function uprightRect(f: Frame, r: Rect): Rect {
  if (f.q === 0) return r;
  const [ax, ay] = toUpright(f, r.x, r.y);
  const [bx, by] = toUpright(f, r.x + r.w - 1, r.y + r.h - 1);
  return { x: Math.min(ax, bx), y: Math.min(ay, by), w: Math.abs(bx - ax) + 1, h: Math.abs(by - ay) + 1 };
}

/**
 * The piece turned upright: its mask and bounds in the upright frame, and its left/right symmetry measured
 * there (seams.ts tells a whole panel from a half by it). A piece laid upright is returned as it is.
 */
export function uprightPiece(p: PieceInfo): PieceInfo {
  const f = frameOf(p);
  if (f.q === 0) return p;
  const { w, h } = f.upright;
  const mask = turnPixels(p.mask, p.bounds.w, p.bounds.h, back(f.q), 1);
  const [cx, cy] = toUpright(f, p.cx, p.cy);
  const proxy = proxyOf(mask, w, h);
  return {
    ...p,
    bounds: f.upright,
    mask,
    cx,
    cy,
    symmetry: mirrorIoU(proxy.data, proxy.w, proxy.h, proxy.data, proxy.w, proxy.h),
  };
}

/**
 * A raster drawn over the upright rect of the marker rect `rect` (uprightRect), turned onto the marker over
 * `rect`: a quarter turn maps the one rect onto the other pixel for pixel.
 */
export function onMarker(f: Frame, up: Raster, rect: Rect): Raster {
  if (f.q === 0) return up;
  return { ...rect, data: turnPixels(up.data, up.w, up.h, f.q, 4) };
}

/**
 * The marker's pixels of a piece's bounds as they stand upright (RGBA over the upright rect; outside `canvas`,
 * transparent), for measuring a turned piece's print in the garment's frame.
 */
export function uprightView(f: Frame, canvas: Raster): Raster {
  const crop = cropRaster(canvas, f.bounds);
  return { ...f.upright, data: turnPixels(crop.data, crop.w, crop.h, back(f.q), 4) };
}
