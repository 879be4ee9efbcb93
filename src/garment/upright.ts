/**
 * A piece as it stands on the garment. A marker lays pieces down turned (a quarter or half turn packs them
 * tighter), but the print runs along the garment: its top towards the neck or waist, its grain vertical. Every
 * garment step that reads or draws the print (placement, seams, fills, motifs, verify) therefore works on the
 * piece turned back upright, and what it draws is turned onto the marker afterwards. Quarter turns map pixels to
 * pixels, so nothing is resampled.
 *
 * A piece laid a few degrees askew (`tilt`, builtin/piece-tilt.ts) is turned back by its whole angle, its quarter
 * turns and its tilt together, and that is resampled: masks to the nearest pixel, pixels bilinearly (as the fills
 * sample the photo's tile, render.ts), in premultiplied alpha so a transparent edge brings no dark fringe. Done
 * here rather than by the engine's rotation (sharp, asynchronous): placement, seams and verify measure upright
 * pieces synchronously, and the maps both ways must be the same affine map exactly.
 *
 * The upright frame is tied to the piece's bounds: turned about their centre, so an upright piece keeps its
 * place (the print's phase across untouched pieces is unchanged).
 */
import type { Raster, Rect } from '../engine/model.js';
import { blankRaster, cropRaster } from '../engine/raster.js';
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
  /**
   * For a piece laid askew: its whole turn (quarter turns and tilt, degrees clockwise) about the bounds' centre,
   * as cos and sin; the upright rect is then the bounds' corners turned back, rounded out.
   */
  readonly askew?: { readonly cx: number; readonly cy: number; readonly cos: number; readonly sin: number };
}

/** Whether the frame maps the marker onto itself: the piece lies upright, neither turned nor askew. */
export const isUpright = (f: Frame): boolean => f.q === 0 && !f.askew;

export function frameOf(p: PieceInfo): Frame {
  const q = turnsOf(p);
  if (!p.tilt) return { q, bounds: p.bounds, upright: uprightBounds(p.bounds, q) };
  const b = p.bounds;
  const r = ((q * 90 + p.tilt) * Math.PI) / 180;
  const askew = { cx: b.x + b.w / 2, cy: b.y + b.h / 2, cos: Math.cos(r), sin: Math.sin(r) };
  const f = { q, bounds: b, upright: b, askew };
  return { ...f, upright: cornersUpright(f, b) };
}

/** An affine map of continuous coordinates (a pixel's centre at +0.5): (x, y) → (a·x + b·y + c, d·x + e·y + f). */
type Affine = readonly [number, number, number, number, number, number];

const applied = (m: Affine, x: number, y: number): [number, number] => [
  m[0] * x + m[1] * y + m[2],
  m[3] * x + m[4] * y + m[5],
];

/** Marker point → upright point, for a piece laid askew: turned back about the bounds' centre. */
function toUprightMap(a: NonNullable<Frame['askew']>): Affine {
  const { cx, cy, cos, sin } = a;
  return [cos, sin, cx - cos * cx - sin * cy, -sin, cos, cy + sin * cx - cos * cy];
}

/** Upright point → marker point: the piece turned clockwise by its whole angle about the bounds' centre. */
function toMarkerMap(a: NonNullable<Frame['askew']>): Affine {
  const { cx, cy, cos, sin } = a;
  return [cos, -sin, cx - cos * cx + sin * cy, sin, cos, cy - sin * cx - cos * cy];
}

const uprightPoint = (a: NonNullable<Frame['askew']>, x: number, y: number) => applied(toUprightMap(a), x, y);
const markerPoint = (a: NonNullable<Frame['askew']>, u: number, v: number) => applied(toMarkerMap(a), u, v);

/** The upright pixels covering marker rect `r` turned back (a pixel's margin for the resampling's reach). */
function cornersUpright(f: Frame, r: Rect): Rect {
  const a = f.askew!;
  const pts = [
    [r.x, r.y],
    [r.x + r.w, r.y],
    [r.x, r.y + r.h],
    [r.x + r.w, r.y + r.h],
  ].map(([x, y]) => uprightPoint(a, x!, y!));
  const x0 = Math.floor(Math.min(...pts.map((p) => p[0]))) - 1;
  const y0 = Math.floor(Math.min(...pts.map((p) => p[1]))) - 1;
  const x1 = Math.ceil(Math.max(...pts.map((p) => p[0]))) + 1;
  const y1 = Math.ceil(Math.max(...pts.map((p) => p[1]))) + 1;
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

/** Marker pixel → upright pixel. The marker shows the upright piece turned q times clockwise. */
export function toUpright(f: Frame, X: number, Y: number): [number, number] {
  if (f.askew) {
    const [u, v] = uprightPoint(f.askew, X + 0.5, Y + 0.5);
    return [Math.floor(u), Math.floor(v)];
  }
  const i = X - f.bounds.x;
  const j = Y - f.bounds.y;
  const { w: W, h: H } = f.upright;
  const [u, v] =
    f.q === 1 ? [j, H - 1 - i] : f.q === 2 ? [W - 1 - i, H - 1 - j] : f.q === 3 ? [W - 1 - j, i] : [i, j];
  return [f.upright.x + u, f.upright.y + v];
}

/** Upright pixel → marker pixel (the inverse of toUpright). */
export function toMarker(f: Frame, U: number, V: number): [number, number] {
  if (f.askew) {
    const [x, y] = markerPoint(f.askew, U + 0.5, V + 0.5);
    return [Math.floor(x), Math.floor(y)];
  }
  const u = U - f.upright.x;
  const v = V - f.upright.y;
  const { w: W, h: H } = f.upright;
  const [i, j] =
    f.q === 1 ? [H - 1 - v, u] : f.q === 2 ? [W - 1 - u, H - 1 - v] : f.q === 3 ? [v, W - 1 - u] : [u, v];
  return [f.bounds.x + i, f.bounds.y + j];
}

/** The upright rect of a marker rect (its corners mapped). */
export function uprightRect(f: Frame, r: Rect): Rect {
  if (f.askew) return cornersUpright(f, r);
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
  if (f.askew) return askewUpright(p, f);
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

/** uprightPiece for a piece laid askew: its mask turned back (nearest pixel), trimmed to what it covers. */
function askewUpright(p: PieceInfo, f: Frame): PieceInfo {
  const m = toMarkerMap(f.askew!);
  const { x: ux, y: uy, w: uw, h: uh } = f.upright;
  const b = p.bounds;
  const turned = new Uint8Array(uw * uh);
  let [x0, y0, x1, y1] = [uw, uh, -1, -1];
  for (let v = 0; v < uh; v++) {
    // Along a row the marker point moves by (a, d) a pixel.
    let [x, y] = applied(m, ux + 0.5, uy + v + 0.5);
    for (let u = 0; u < uw; u++, x += m[0], y += m[3]) {
      const i = Math.floor(x) - b.x;
      const j = Math.floor(y) - b.y;
      if (i < 0 || j < 0 || i >= b.w || j >= b.h || !p.mask[j * b.w + i]) continue;
      turned[v * uw + u] = 1;
      if (u < x0) x0 = u;
      if (u > x1) x1 = u;
      if (v < y0) y0 = v;
      y1 = v;
    }
  }
  if (x1 < 0) return p;
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const mask = new Uint8Array(w * h);
  for (let v = 0; v < h; v++) mask.set(turned.subarray((y0 + v) * uw + x0, (y0 + v) * uw + x0 + w), v * w);
  const [cx, cy] = uprightPoint(f.askew!, p.cx, p.cy);
  const proxy = proxyOf(mask, w, h);
  return {
    ...p,
    bounds: { x: ux + x0, y: uy + y0, w, h },
    mask,
    cx,
    cy,
    symmetry: mirrorIoU(proxy.data, proxy.w, proxy.h, proxy.data, proxy.w, proxy.h),
  };
}

/**
 * `src`'s pixels over `rect`, each read where `m` sends its centre, bilinearly in premultiplied alpha;
 * transparent where that falls outside `src`.
 */
function resampled(src: Raster, rect: Rect, m: Affine): Raster {
  const out = blankRaster(rect);
  const d = out.data;
  const s = src.data;
  const { w: sw, h: sh } = src;
  /** Texel (i, j)'s byte offset, or −1 outside `src`. */
  const at = (i: number, j: number) => (i < 0 || j < 0 || i >= sw || j >= sh ? -1 : (j * sw + i) * 4);
  for (let y = 0, o = 0; y < rect.h; y++) {
    let [sx, sy] = applied(m, rect.x + 0.5, rect.y + y + 0.5);
    for (let x = 0; x < rect.w; x++, o += 4, sx += m[0], sy += m[3]) {
      const fx = sx - 0.5 - src.x;
      const fy = sy - 0.5 - src.y;
      const i = Math.floor(fx);
      const j = Math.floor(fy);
      if (i < -1 || j < -1 || i >= sw || j >= sh) continue;
      const tx = fx - i;
      const ty = fy - j;
      if (i >= 0 && j >= 0 && i + 1 < sw && j + 1 < sh) {
        const a = (j * sw + i) * 4;
        const b = a + sw * 4;
        if ((s[a + 3]! & s[a + 7]! & s[b + 3]! & s[b + 7]!) === 255) {
          // All four opaque (a piece's print inside its outline): plain bilinear.
          for (let k = 0; k < 3; k++) {
            const top = s[a + k]! + (s[a + 4 + k]! - s[a + k]!) * tx;
            const bottom = s[b + k]! + (s[b + 4 + k]! - s[b + k]!) * tx;
            d[o + k] = Math.round(top + (bottom - top) * ty);
          }
          d[o + 3] = 255;
          continue;
        }
      }
      const o00 = at(i, j);
      const o10 = at(i + 1, j);
      const o01 = at(i, j + 1);
      const o11 = at(i + 1, j + 1);
      // Weights by alpha (premultiplied): a texel outside or transparent adds nothing.
      const w00 = o00 < 0 ? 0 : (1 - tx) * (1 - ty) * s[o00 + 3]!;
      const w10 = o10 < 0 ? 0 : tx * (1 - ty) * s[o10 + 3]!;
      const w01 = o01 < 0 ? 0 : (1 - tx) * ty * s[o01 + 3]!;
      const w11 = o11 < 0 ? 0 : tx * ty * s[o11 + 3]!;
      const alpha = w00 + w10 + w01 + w11;
      if (alpha < 0.5) continue;
      for (let k = 0; k < 3; k++) {
        const sum =
          (w00 && w00 * s[o00 + k]!) +
          (w10 && w10 * s[o10 + k]!) +
          (w01 && w01 * s[o01 + k]!) +
          (w11 && w11 * s[o11 + k]!);
        d[o + k] = Math.round(sum / alpha);
      }
      d[o + 3] = Math.round(alpha);
    }
  }
  return out;
}

/**
 * A raster drawn over the upright rect of the marker rect `rect` (uprightRect), turned onto the marker over
 * `rect`: a quarter turn maps the one rect onto the other pixel for pixel; a piece laid askew resamples it.
 */
export function onMarker(f: Frame, up: Raster, rect: Rect): Raster {
  if (f.askew) return resampled(up, rect, toUprightMap(f.askew));
  if (f.q === 0) return up;
  return { ...rect, data: turnPixels(up.data, up.w, up.h, f.q, 4) };
}

/**
 * The marker's pixels of a piece's bounds as they stand upright (RGBA over the upright rect; outside `canvas`,
 * transparent), for measuring a turned piece's print in the garment's frame.
 */
export function uprightView(f: Frame, canvas: Raster): Raster {
  if (f.askew) return resampled(canvas, f.upright, toMarkerMap(f.askew));
  const crop = cropRaster(canvas, f.bounds);
  return { ...f.upright, data: turnPixels(crop.data, crop.w, crop.h, back(f.q), 4) };
}
