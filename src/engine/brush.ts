/**
 * Photoshop's Brush tool for one stroke: a round brush of diameter `size` drawn along the points, each pixel as
 * strong as a dab of the brush would be at its distance from the path — full within `hardness` of the radius,
 * falling off to nothing at the edge (a raised cosine; a hard brush gets a one-pixel anti-aliased edge) — and the
 * whole stroke laid down at the tool's opacity, so a stroke crossing itself does not darken (Photoshop at 100 %
 * flow). Photoshop builds a soft stroke from overlapping dabs, whose sum is a little denser than one dab's edge;
 * this is the single dab's profile across the stroke. Measured by distance rather than by stamping dabs so that a
 * long stroke costs its area, not its length over the spacing. Written by hand because the stroke must be a
 * coverage mask to go through the selection, a layer's transparency lock or onto a layer mask, which a drawing
 * library's stroke is not.
 *
 * Pen pressure (Photoshop's "pressure for size", a minimum diameter of 0 %, and "pressure for opacity"): a point
 * may carry a pressure 0–1 that sets the brush's diameter there to `size` × pressure, or its strength to the
 * pressure, or both, changing linearly along each segment, so a pen's stroke swells and tapers, or fades. The
 * stroke is then the union of the discs along the path, each pixel as strong as the dab that reaches it deepest.
 *
 * Flow (Photoshop's 流量) below 100 %: the stroke is built from dabs, as Photoshop lays them, one every quarter of the
 * brush's diameter along the path (its default spacing, 25 %), each laying down `flow` of its strength over what the
 * dabs before it laid (1 − Π(1 − flow · dab)); where more dabs cross, paint builds up, towards the tool's opacity,
 * and a stroke crossing itself darkens, as Photoshop's does at a low flow.
 */
import type { Rect } from './model.js';
import { intersectRect, isEmptyRect } from './raster.js';

export interface BrushStroke {
  /**
   * The path, document px, continuous coordinates (a pixel's centre is at x + 0.5), each point's pen pressure
   * 0–1 (absent: 1).
   */
  readonly points: readonly { readonly x: number; readonly y: number; readonly pressure?: number }[];
  /** Diameter, px. */
  readonly size: number;
  /** 0–1: the share of the radius painted at full strength. */
  readonly hardness: number;
  /** What the points' pressure sets: the diameter (absent: this), the strength, or both. */
  readonly pressureSets?: PressureSets;
  /** 0–1: how much of its strength each dab lays down (absent: 1, the stroke as one dab's profile). */
  readonly flow?: number;
}

/** Dabs are laid this share of the brush's diameter apart (Photoshop's default spacing). */
export const DAB_SPACING = 0.25;

/** What a pen's pressure sets: Photoshop's two options bar switches. */
export type PressureSets = 'size' | 'opacity' | 'both';

/** The brush's strength at distance `d` from the path. */
export function brushAlpha(d: number, radius: number, hardness: number): number {
  if (hardness >= 1 || radius <= 1) return Math.max(0, Math.min(1, radius - d + 0.5));
  const core = radius * hardness;
  if (d <= core) return 1;
  if (d >= radius) return 0;
  return 0.5 * (1 + Math.cos((Math.PI * (d - core)) / (radius - core)));
}

/** The stroke's bounds, whole document px, cut to `clip`. */
export function strokeBounds(s: BrushStroke, clip: Rect): Rect {
  const r = s.size / 2 + 1;
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of s.points) {
    x0 = Math.min(x0, p.x - r);
    y0 = Math.min(y0, p.y - r);
    x1 = Math.max(x1, p.x + r);
    y1 = Math.max(y1, p.y + r);
  }
  if (!(x1 > x0)) return { x: 0, y: 0, w: 0, h: 0 };
  const whole = {
    x: Math.floor(x0),
    y: Math.floor(y0),
    w: Math.ceil(x1) - Math.floor(x0),
    h: Math.ceil(y1) - Math.floor(y0),
  };
  return intersectRect(whole, clip);
}

/** Height of the bands of rows the path's segments are sorted into, px. */
const BAND = 64;

/**
 * The stroke's coverage (0–1) row by row over `region`: `row(y, into)` writes row `y` (0 at the region's top) into
 * `into` (region.w values). Each segment of the path is measured only over the stretch of the row within a
 * radius of it, so a stroke costs its own area, not the area of its bounds (a diagonal across a large canvas).
 */
export function strokeRows(s: BrushStroke, region: Rect): (y: number, into: Float32Array) => void {
  if (s.flow !== undefined && s.flow < 1) return flowRows(s, region);
  if (s.points.some((p) => p.pressure !== undefined && p.pressure !== 1)) return pressedRows(s, region);
  const radius = s.size / 2;
  const reach = radius + 1;
  const { segs, bands } = segmentBands(s.points, region, reach);
  const best = new Float32Array(region.w);
  return (y, into) => {
    into.fill(0);
    if (isEmptyRect(region)) return;
    const py = region.y + y + 0.5;
    best.fill(Infinity);
    let lo = region.w;
    let hi = -1;
    for (const i of bands[Math.floor(y / BAND)] ?? []) {
      const [a, b] = segs[i]!;
      const span = rowSpan(a, b, py, reach, region);
      if (!span) continue;
      const [xa, xb] = span;
      lo = Math.min(lo, xa);
      hi = Math.max(hi, xb);
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const len2 = dx * dx + dy * dy;
      for (let x = xa; x <= xb; x++) {
        const px = region.x + x + 0.5;
        const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - a.x) * dx + (py - a.y) * dy) / len2));
        const d2 = (px - a.x - t * dx) ** 2 + (py - a.y - t * dy) ** 2;
        if (d2 < best[x]!) best[x] = d2;
      }
    }
    for (let x = lo; x <= hi; x++) {
      if (best[x]! <= reach * reach) into[x] = brushAlpha(Math.sqrt(best[x]!), radius, s.hardness);
    }
  };
}

type PathPoint = BrushStroke['points'][number];

/** The path's segments (one of no length for a single point) and, per band of BAND rows, the segments near it. */
function segmentBands(
  pts: readonly PathPoint[],
  region: Rect,
  reach: number,
): { segs: (readonly [PathPoint, PathPoint])[]; bands: number[][] } {
  const segs =
    pts.length === 1 ? [[pts[0]!, pts[0]!] as const] : pts.slice(1).map((b, i) => [pts[i]!, b] as const);
  const bands: number[][] = Array.from({ length: Math.max(1, Math.ceil(region.h / BAND)) }, () => []);
  segs.forEach(([a, b], i) => {
    const top = Math.max(0, Math.floor((Math.min(a.y, b.y) - reach - region.y) / BAND));
    const bottom = Math.min(bands.length - 1, Math.floor((Math.max(a.y, b.y) + reach - region.y) / BAND));
    for (let k = top; k <= bottom; k++) bands[k]!.push(i);
  });
  return { segs, bands };
}

/**
 * The columns of the region (first and last, 0-based) a segment from `a` to `b` may reach on the row whose centre
 * is `py`: the part of it within `reach` of the row, vertically, its x-extent widened by `reach`; null for none.
 */
function rowSpan(
  a: PathPoint,
  b: PathPoint,
  py: number,
  reach: number,
  region: Rect,
): [number, number] | null {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  let t0 = 0;
  let t1 = 1;
  if (dy !== 0) {
    const u = (py - reach - a.y) / dy;
    const v = (py + reach - a.y) / dy;
    t0 = Math.max(0, Math.min(u, v));
    t1 = Math.min(1, Math.max(u, v));
  } else if (Math.abs(py - a.y) > reach) return null;
  if (t0 > t1) return null;
  const xa = Math.max(0, Math.floor(Math.min(a.x + dx * t0, a.x + dx * t1) - reach - region.x));
  const xb = Math.min(region.w - 1, Math.ceil(Math.max(a.x + dx * t0, a.x + dx * t1) + reach - region.x));
  return xa > xb ? null : [xa, xb];
}

/**
 * strokeRows for a stroke whose points carry pressure: the radius (or the strength) changes linearly along each
 * segment, and each pixel is painted by the dab that reaches it deepest over every segment — its distance less
 * that dab's radius the least — at that dab's strength. (The strongest dab instead would let a segment's round end
 * show through the next, fainter one as a ring at every joint.) Within a segment the deepest dab is not the one
 * nearest to the pixel but one shifted towards the wider end: the distance less the radius along the segment is
 * convex, and its minimum is where the segment's direction meets the pixel at the cone's slope (closed form below).
 */
function pressedRows(s: BrushStroke, region: Rect): (y: number, into: Float32Array) => void {
  const full = s.size / 2;
  const reach = full + 1;
  const { segs, bands } = segmentBands(s.points, region, reach);
  const { radiusAt, strengthAt } = pressureSet(s);
  // Per column of the row: how deep the deepest dab so far reaches (distance less radius; less is deeper).
  const depth = new Float32Array(region.w);
  return (y, into) => {
    into.fill(0);
    depth.fill(Infinity);
    if (isEmptyRect(region)) return;
    const py = region.y + y + 0.5;
    for (const i of bands[Math.floor(y / BAND)] ?? []) {
      const [a, b] = segs[i]!;
      const span = rowSpan(a, b, py, reach, region);
      if (!span) continue;
      const [ra, rb] = [radiusAt(a), radiusAt(b)];
      const [sa, sb] = [strengthAt(a), strengthAt(b)];
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const len = Math.hypot(dx, dy);
      // The cone's slope: how much the radius grows per pixel along the segment (past 1, one end's disc holds the
      // other's, and the deepest dab is at an end).
      const k = len > 0 ? (rb - ra) / len : 0;
      const steep = Math.abs(k) >= 1;
      const lean = steep ? 0 : k / Math.sqrt(1 - k * k);
      for (let x = span[0]; x <= span[1]; x++) {
        const px = region.x + x + 0.5;
        let t = 0;
        if (len > 0) {
          const along = ((px - a.x) * dx + (py - a.y) * dy) / len;
          const across = Math.abs((px - a.x) * dy - (py - a.y) * dx) / len;
          t = steep ? (k > 0 ? 1 : 0) : (along + lean * across) / len;
          t = Math.max(0, Math.min(1, t));
        }
        const d = Math.hypot(px - a.x - t * dx, py - a.y - t * dy);
        const r = ra + (rb - ra) * t;
        if (d - r >= depth[x]!) continue;
        depth[x] = d - r;
        into[x] = brushAlpha(d, r, s.hardness) * (sa + (sb - sa) * t);
      }
    }
  };
}

/**
 * A segment's dabs: the first `from` px along it, then one every `gap` px, `count` in all (none where it has no room
 * for one). The gap is DAB_SPACING of the narrower end's diameter (at least a pixel), so that a pen's thin ends are
 * not dotted; Photoshop respaces dab by dab, which lays a little more paint where the stroke widens here.
 */
interface SegmentDabs {
  readonly a: PathPoint;
  readonly b: PathPoint;
  readonly len: number;
  readonly from: number;
  readonly gap: number;
  readonly count: number;
}

/** Where each segment's dabs fall, the spacing carried from one segment into the next (the first dab on the first point). */
function dabsAlong(s: BrushStroke): SegmentDabs[] {
  const radius = pressureSet(s).radiusAt;
  const pts = s.points;
  if (pts.length === 1) return [{ a: pts[0]!, b: pts[0]!, len: 0, from: 0, gap: 1, count: 1 }];
  const out: SegmentDabs[] = [];
  // Distance from the last dab laid (none yet: the first falls on the first point).
  let since = Infinity;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1]!;
    const b = pts[i]!;
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const gap = Math.max(1, DAB_SPACING * 2 * Math.min(radius(a), radius(b)));
    const from = Number.isFinite(since) ? Math.max(0, gap - since) : 0;
    const count = from <= len ? Math.floor((len - from) / gap) + 1 : 0;
    out.push({ a, b, len, from, gap, count });
    since = count > 0 ? len - (from + (count - 1) * gap) : since + len;
  }
  return out;
}

/** A point's brush radius and strength under its pen's pressure, by what the pressure sets. */
function pressureSet(s: BrushStroke): {
  radiusAt: (p: PathPoint) => number;
  strengthAt: (p: PathPoint) => number;
} {
  const full = s.size / 2;
  const sets = s.pressureSets ?? 'size';
  const pressureOf = (p: PathPoint) => Math.max(0, Math.min(1, p.pressure ?? 1));
  return {
    radiusAt: (p) => (sets === 'opacity' ? full : full * pressureOf(p)),
    strengthAt: (p) => (sets === 'size' ? 1 : pressureOf(p)),
  };
}

/**
 * strokeRows at a flow below 1: each pixel's coverage built up by every dab that reaches it, the dabs worked out
 * row by row from each segment's spacing (never listed: a long stroke of a small brush has millions).
 */
function flowRows(s: BrushStroke, region: Rect): (y: number, into: Float32Array) => void {
  const flow = Math.max(0, s.flow ?? 1);
  const reach = s.size / 2 + 1;
  const { radiusAt: radius, strengthAt } = pressureSet(s);
  const laid = dabsAlong(s);
  // The same segments, in the same order, as the dabs are laid along.
  const { bands } = segmentBands(s.points, region, reach);
  // Per column of the row: the share of the pixel no dab has painted yet.
  const bare = new Float32Array(region.w);
  return (y, into) => {
    into.fill(0);
    if (isEmptyRect(region)) return;
    bare.fill(1);
    const py = region.y + y + 0.5;
    for (const i of bands[Math.floor(y / BAND)] ?? []) {
      const { a, b, len, from, gap, count } = laid[i]!;
      if (count === 0) continue;
      const uy = len > 0 ? (b.y - a.y) / len : 0;
      // The dabs whose centres lie within reach of this row: their distance along the segment, t, has
      // |a.y + uy·t − py| ≤ reach.
      let k0 = 0;
      let k1 = count - 1;
      if (uy !== 0) {
        const t0 = (py - reach - a.y) / uy;
        const t1 = (py + reach - a.y) / uy;
        k0 = Math.max(k0, Math.ceil((Math.min(t0, t1) - from) / gap));
        k1 = Math.min(k1, Math.floor((Math.max(t0, t1) - from) / gap));
      } else if (Math.abs(a.y - py) > reach) continue;
      const [ra, rb] = [radius(a), radius(b)];
      const [sa, sb] = [strengthAt(a), strengthAt(b)];
      for (let k = k0; k <= k1; k++) {
        const t = len > 0 ? (from + k * gap) / len : 0;
        const cx = a.x + (b.x - a.x) * t;
        const cy = a.y + (b.y - a.y) * t;
        const r = ra + (rb - ra) * t;
        const strength = flow * (sa + (sb - sa) * t);
        const dy = py - cy;
        if (r <= 0 || strength <= 0 || Math.abs(dy) > r + 1) continue;
        const half = Math.sqrt((r + 1) ** 2 - dy * dy);
        const xa = Math.max(0, Math.floor(cx - half - region.x));
        const xb = Math.min(region.w - 1, Math.ceil(cx + half - region.x));
        for (let x = xa; x <= xb; x++) {
          const alpha = brushAlpha(Math.hypot(region.x + x + 0.5 - cx, dy), r, s.hardness);
          if (alpha > 0) bare[x] = bare[x]! * (1 - strength * alpha);
        }
      }
    }
    for (let x = 0; x < region.w; x++) into[x] = 1 - bare[x]!;
  };
}
