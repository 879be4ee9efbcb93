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
import { allocPixels } from '../engine/raster.js';
import { proxyOf } from './builtin/piece-features.js';
import { mirrorIoU } from './builtin/pieces.js';
import type { PieceInfo, Turn } from './types.js';

/** Quarter turns clockwise from upright to the marker. */
export const quarterTurns = (p: { readonly grain?: { readonly turn: Turn } }): number =>
  p.grain ? p.grain.turn / 90 : 0;

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
  readonly q: number;
  readonly bounds: Rect;
  readonly upright: Rect;
}

export function frameOf(p: PieceInfo): Frame {
  const q = quarterTurns(p);
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
 * `src` (w × h, row-major) turned `q` quarter turns clockwise into `out` (h × w for an odd q): index arithmetic
 * only, as a print-size fill has millions of pixels.
 */
function turnGrid<T extends Uint8Array | Uint32Array>(src: T, w: number, h: number, q: number, out: T): T {
  const ow = q % 2 ? h : w;
  const oh = q % 2 ? w : h;
  for (let j = 0; j < oh; j++) {
    const row = j * ow;
    for (let i = 0; i < ow; i++) {
      // The source pixel that lands at (i, j).
      const at =
        q === 1
          ? (h - 1 - i) * w + j
          : q === 2
            ? (h - 1 - j) * w + (w - 1 - i)
            : q === 3
              ? i * w + (w - 1 - j)
              : j * w + i;
      out[row + i] = src[at]!;
    }
  }
  return out;
}

const pixels32 = (r: Raster) => new Uint32Array(r.data.buffer, r.data.byteOffset, r.w * r.h);

/**
 * The piece turned upright: its mask and bounds in the upright frame, and its left/right symmetry measured
 * there (seams.ts tells a whole panel from a half by it). A piece laid upright is returned as it is.
 */
export function uprightPiece(p: PieceInfo): PieceInfo {
  const f = frameOf(p);
  if (f.q === 0) return p;
  const { w, h } = f.upright;
  const mask = turnGrid(p.mask, p.bounds.w, p.bounds.h, (4 - f.q) % 4, new Uint8Array(w * h));
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
  const out: Raster = { ...rect, data: allocPixels(rect.w * rect.h * 4) };
  turnGrid(pixels32(up), up.w, up.h, f.q, pixels32(out));
  return out;
}

/**
 * The marker's pixels of a piece's bounds as they stand upright (RGBA over the upright rect; outside `canvas`,
 * transparent), for measuring a turned piece's print in the garment's frame.
 */
export function uprightView(f: Frame, canvas: Raster): Raster {
  const b = f.bounds;
  const crop = new Uint32Array(b.w * b.h);
  const src = pixels32(canvas);
  for (let j = 0; j < b.h; j++) {
    const y = b.y + j - canvas.y;
    if (y < 0 || y >= canvas.h) continue;
    for (let i = 0; i < b.w; i++) {
      const x = b.x + i - canvas.x;
      if (x >= 0 && x < canvas.w) crop[j * b.w + i] = src[y * canvas.w + x]!;
    }
  }
  const r = f.upright;
  const out: Raster = { ...r, data: allocPixels(r.w * r.h * 4) };
  turnGrid(crop, b.w, b.h, (4 - f.q) % 4, pixels32(out));
  return out;
}
