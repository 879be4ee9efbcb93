/**
 * Anti-aliased selection shapes (the elliptical marquee and the polygonal lasso) as masks. Skia
 * (@napi-rs/canvas) draws them, so their edges have the coverage a real rasteriser gives rather than one of our
 * own making. Coordinates are continuous document pixels: pixel i covers [i, i + 1].
 *
 * Only the shape's box cut to the canvas is drawn, tile by tile: a small ellipse on a 9000 × 18000 canvas
 * costs its own box, and a canvas-wide lasso never needs a canvas-wide RGBA surface (four bytes a pixel, then
 * a copy of it from getImageData), only the one-byte mask it becomes.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createCanvas } from '@napi-rs/canvas';
import type { Mask, Rect } from './model.js';
import { allocMask, EMPTY_RECT, intersectRect, isEmptyRect } from './raster.js';
import { trimMask } from './selection.js';

/** A shape's extent: the edges of its box in document pixels, not rounded. */
export interface Edges {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

/**
 * A drawing tile: 1024 px wide and 256 rows (1024 surface rows, see SUBROWS), 4 MiB of surface. Small enough that
 * a large shape's tiles are mostly wholly inside or outside it, which are filled without drawing.
 */
const TILE_W = 1024;
const TILE_H = 256;

/**
 * Tiles drawn between turns of the event loop. Each getImageData is a fresh native buffer that is only released
 * from a later turn: 648 tiles in one go held 2.6 GB at once (a lasso over a 9000 × 18000 canvas); letting the
 * loop turn every 8 tiles keeps it to some tens of MB.
 */
const TILES_PER_TURN = 8;

/**
 * Rows drawn per pixel row. Skia's anti-aliasing is exact across a row but coarse down a column: a nearly level
 * edge came out up to 27 levels off the true coverage (and a circle's halves up to 44 levels unlike each other).
 * Drawn 4× taller and averaged, the error stays within about 8 levels.
 */
const SUBROWS = 4;

/** The whole pixels an extent touches, cut to the canvas (empty when it misses it). */
export function pixelBox(e: Edges, width: number, height: number): Rect {
  const x = Math.floor(e.left);
  const y = Math.floor(e.top);
  const box = { x, y, w: Math.ceil(e.right) - x, h: Math.ceil(e.bottom) - y };
  return intersectRect(box, { x: 0, y: 0, w: width, h: height });
}

/** Whether the segment a–b meets the closed rectangle `r` (Liang–Barsky). */
function segmentMeets(a: Point, b: Point, r: Rect): boolean {
  let t0 = 0;
  let t1 = 1;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const sides: [number, number][] = [
    [-dx, a.x - r.x],
    [dx, r.x + r.w - a.x],
    [-dy, a.y - r.y],
    [dy, r.y + r.h - a.y],
  ];
  for (const [p, q] of sides) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

/** Whether (x, y) is inside the polygon by the even-odd rule. */
function insidePolygon(points: readonly Point[], x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const a = points[i]!;
    const b = points[j]!;
    if (a.y > y !== b.y > y && x < a.x + ((b.x - a.x) * (y - a.y)) / (b.y - a.y)) inside = !inside;
  }
  return inside;
}

/**
 * Which tiles of `box` (TILE_W × TILE_H, row by row) an edge of the polygon crosses: only those need drawing.
 * Each edge is tested against the tiles its own box spans, so the work follows the outline, not the area.
 */
function tilesOnOutline(box: Rect, points: readonly Point[], cols: number, rows: number): Uint8Array {
  const crossed = new Uint8Array(cols * rows);
  const margin = 0.5; // a pixel's coverage depends only on edges through it; the margin absorbs rounding
  points.forEach((a, i) => {
    const b = points[(i + 1) % points.length]!;
    const c0 = Math.max(0, Math.floor((Math.min(a.x, b.x) - margin - box.x) / TILE_W));
    const c1 = Math.min(cols - 1, Math.floor((Math.max(a.x, b.x) + margin - box.x) / TILE_W));
    const r0 = Math.max(0, Math.floor((Math.min(a.y, b.y) - margin - box.y) / TILE_H));
    const r1 = Math.min(rows - 1, Math.floor((Math.max(a.y, b.y) + margin - box.y) / TILE_H));
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        if (crossed[r * cols + c]) continue;
        const tile = {
          x: box.x + c * TILE_W - margin,
          y: box.y + r * TILE_H - margin,
          w: TILE_W + 2 * margin,
          h: TILE_H + 2 * margin,
        };
        if (segmentMeets(a, b, tile)) crossed[r * cols + c] = 1;
      }
    }
  });
  return crossed;
}

/**
 * The coverage of the polygon `points` (even-odd) over `box`, as a mask cut to what is selected. Tiles no edge
 * crosses are wholly in or out (one point tells which); the others are drawn by Skia, the polygon cut to the
 * tile and moved to its origin here in doubles, as Skia's floats would lose a fraction of a pixel at 300 000 px.
 */
async function drawMask(box: Rect, points: readonly Point[]): Promise<Mask> {
  if (isEmptyRect(box)) return { ...EMPTY_RECT, data: new Uint8Array(0), outside: 0 };
  const data = allocMask(box.w * box.h);
  const cols = Math.ceil(box.w / TILE_W);
  const rows = Math.ceil(box.h / TILE_H);
  const crossed = tilesOnOutline(box, points, cols, rows);
  const surface = createCanvas(Math.min(TILE_W, box.w), Math.min(TILE_H, box.h) * SUBROWS);
  const ctx = surface.getContext('2d');
  ctx.fillStyle = '#fff';
  let drawn = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const tx = c * TILE_W;
      const ty = r * TILE_H;
      const w = Math.min(TILE_W, box.w - tx);
      const h = Math.min(TILE_H, box.h - ty);
      const ox = box.x + tx;
      const oy = box.y + ty;
      if (!crossed[r * cols + c]) {
        if (!insidePolygon(points, ox + w / 2, oy + h / 2)) continue;
        for (let y = 0; y < h; y++) data.fill(255, (ty + y) * box.w + tx, (ty + y) * box.w + tx + w);
        continue;
      }
      // Only the outline near the tile goes to Skia: fewer calls, and small coordinates for its floats.
      const near = clipPolygon(points, { x: ox - 1, y: oy - 1, w: w + 2, h: h + 2 });
      ctx.clearRect(0, 0, surface.width, surface.height);
      ctx.beginPath();
      for (const p of near) ctx.lineTo(p.x - ox, (p.y - oy) * SUBROWS);
      ctx.closePath();
      ctx.fill('evenodd');
      if (++drawn % TILES_PER_TURN === 0) await nextTurn();
      const rgba = ctx.getImageData(0, 0, w, h * SUBROWS).data;
      for (let y = 0; y < h; y++) {
        const d = (ty + y) * box.w + tx;
        for (let x = 0; x < w; x++) {
          let sum = 0;
          for (let k = 0, s = (y * SUBROWS * w + x) * 4 + 3; k < SUBROWS; k++, s += w * 4) sum += rgba[s]!;
          data[d + x] = Math.round(sum / SUBROWS);
        }
      }
    }
  }
  return trimMask({ ...box, data, outside: 0 });
}

/** How far a chord of the ellipse may fall inside the curve, in pixels: far below one level of coverage. */
const ELLIPSE_SAG = 0.005;

/**
 * The ellipse inscribed in `e`, anti-aliased, cut to the canvas; empty when it covers no pixel there. Drawn as a
 * polygon of chords computed in doubles rather than with Skia's own ellipse, whose curves become chords up to a
 * quarter of a pixel inside the curve (an ellipse 87 × 63 px lost 35 px of its 4292 px area), and whose float
 * coordinates would drift on an ellipse far larger than the canvas.
 */
export function ellipseMask(e: Edges, width: number, height: number): Promise<Mask> {
  const rx = (e.right - e.left) / 2;
  const ry = (e.bottom - e.top) / 2;
  // A chord over an angle step dt sags at most r·dt²/8 below the curve (r the larger radius). A multiple of 4
  // corners keeps the polygon as symmetric as the ellipse.
  const steps = 4 * Math.max(4, Math.ceil(Math.PI / 2 / Math.sqrt((8 * ELLIPSE_SAG) / Math.max(rx, ry))));
  const points: Point[] = [];
  for (let i = 0; i < steps; i++) {
    const t = (2 * Math.PI * i) / steps;
    points.push({ x: e.left + rx + rx * Math.cos(t), y: e.top + ry + ry * Math.sin(t) });
  }
  return polygonMask(points, width, height);
}

/** The box of a polygon's corners. */
export function polygonEdges(points: readonly Point[]): Edges {
  let left = Number.POSITIVE_INFINITY;
  let top = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const p of points) {
    left = Math.min(left, p.x);
    right = Math.max(right, p.x);
    top = Math.min(top, p.y);
    bottom = Math.max(bottom, p.y);
  }
  return { left, top, right, bottom };
}

/** How many different corners a polygon has. */
export function distinctPoints(points: readonly Point[]): number {
  return new Set(points.map((p) => `${p.x},${p.y}`)).size;
}

/** Whether every corner lies on one straight line (the polygon encloses nothing). */
export function collinear(points: readonly Point[]): boolean {
  const a = points[0];
  const b = points.find((p) => p.x !== a?.x || p.y !== a?.y);
  if (!a || !b) return true;
  return points.every((p) => (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) === 0);
}

/**
 * The polygon cut to the half-plane where `inside` holds (Sutherland–Hodgman). The parts beyond it are replaced by runs along
 * its edge, which change no winding number inside it, so even-odd filling is the same there even for a
 * self-intersecting polygon. Done in doubles because Skia works in floats: a corner a billion pixels away would
 * otherwise move the edges that cross the canvas.
 */
function clipHalf(
  points: readonly Point[],
  inside: (p: Point) => boolean,
  cross: (a: Point, b: Point) => Point,
): Point[] {
  const out: Point[] = [];
  points.forEach((b, i) => {
    const a = points[(i + points.length - 1) % points.length]!;
    if (inside(b)) {
      if (!inside(a)) out.push(cross(a, b));
      out.push(b);
    } else if (inside(a)) {
      out.push(cross(a, b));
    }
  });
  return out;
}

/** The polygon cut to `r` (its fill unchanged inside `r`). */
function clipPolygon(points: readonly Point[], r: Rect): Point[] {
  const atX = (x: number) => (a: Point, b: Point) => ({
    x,
    y: a.y + ((b.y - a.y) * (x - a.x)) / (b.x - a.x),
  });
  const atY = (y: number) => (a: Point, b: Point) => ({
    x: a.x + ((b.x - a.x) * (y - a.y)) / (b.y - a.y),
    y,
  });
  let p = clipHalf(points, (q) => q.x >= r.x, atX(r.x));
  p = clipHalf(p, (q) => q.x <= r.x + r.w, atX(r.x + r.w));
  p = clipHalf(p, (q) => q.y >= r.y, atY(r.y));
  return clipHalf(p, (q) => q.y <= r.y + r.h, atY(r.y + r.h));
}

/**
 * The polygon (closed automatically) filled with the even-odd rule, anti-aliased, cut to the canvas; empty when
 * it covers no pixel there.
 */
export function polygonMask(points: readonly Point[], width: number, height: number): Promise<Mask> {
  return drawMask(pixelBox(polygonEdges(points), width, height), points);
}
