/**
 * The pixel selection's edge as an SVG path in document pixels, for drawing marching ants over the canvas as
 * Photoshop does: along the pixel edges where the selection crosses half (a feathered edge shows its 50 % line),
 * drawn with the even-odd rule so that holes show. A rectangle stored as one (a marquee, its inverse, Select All)
 * is its exact rectangle; any other mask is traced on a grid of at most `MAX_GRID` cells along the canvas's longer
 * side and its loops thinned to within three quarters of a cell, so a selection loaded from a garment piece is a
 * few kilobytes of path, not one vertex per pixel step. A speckled selection whose outline would still exceed
 * `MAX_VERTICES` is traced on cells twice as large, and so on; past that it is drawn as its bounds. No library
 * traces a mask's pixel edges into closed loops (the vision libraries' contours follow pixel centres and would
 * need OpenCV's 8 MB of WebAssembly in every snapshot).
 */
import type { Mask } from './model.js';
import { intersectRect, isEmptyRect } from './raster.js';
import { selectionBounds, uniformInside } from './selection.js';

/** Grid cells along the canvas's longer side: finer than a screen shows the whole canvas. */
export const MAX_GRID = 1024;

/** Past this many vertices the mask is traced on coarser cells (a speckled selection has no useful outline). */
const MAX_VERTICES = 6000;

/** How many times the cells may double before the outline gives way to the bounds. */
const MAX_COARSENINGS = 5;

/** Thinning tolerance, in cells. */
const TOLERANCE = 0.75;

const outlines = new WeakMap<Mask, { width: number; height: number; d: string }>();

/**
 * The path's `d`, empty when nothing inside the canvas is selected. Memoised per mask and canvas size (masks are
 * immutable, but a crop or a canvas resize can keep the same mask on a canvas of another size).
 */
export function selectionOutline(m: Mask, width: number, height: number): string {
  const known = outlines.get(m);
  if (known && known.width === width && known.height === height) return known.d;
  const d = outlineOf(m, width, height);
  outlines.set(m, { width, height, d });
  return d;
}

function rectPath(x: number, y: number, w: number, h: number): string {
  return `M${x} ${y}H${x + w}V${y + h}H${x}Z`;
}

function outlineOf(m: Mask, width: number, height: number): string {
  const canvas = { x: 0, y: 0, w: width, h: height };
  const inside = uniformInside(m);
  const common = intersectRect(m, canvas);
  if (inside !== undefined || isEmptyRect(common) || m.w * m.h === 0) {
    const value = isEmptyRect(common) ? m.outside : (inside ?? m.outside);
    const rect = isEmptyRect(common) ? null : common;
    if (m.outside === 0) return value === 255 && rect ? rectPath(rect.x, rect.y, rect.w, rect.h) : '';
    // Selected beyond the rectangle: the canvas, less the rectangle when it is unselected inside.
    const all = rectPath(0, 0, width, height);
    if (!rect || value === 255) return all;
    if (rect.w === width && rect.h === height) return '';
    return all + rectPath(rect.x, rect.y, rect.w, rect.h);
  }
  return tracedOutline(m, width, height);
}

/** Marks the grid cells (cell size `step` document px) whose centre pixel is at least half selected. */
function gridOf(m: Mask, width: number, height: number, step: number) {
  const gw = Math.ceil(width / step);
  const gh = Math.ceil(height / step);
  const cells = new Uint8Array(gw * gh);
  for (let gy = 0; gy < gh; gy++) {
    const y = Math.min(height - 1, Math.floor(gy * step + step / 2));
    const my = y - m.y;
    for (let gx = 0; gx < gw; gx++) {
      const x = Math.min(width - 1, Math.floor(gx * step + step / 2));
      const mx = x - m.x;
      const v = mx < 0 || my < 0 || mx >= m.w || my >= m.h ? m.outside : m.data[my * m.w + mx]!;
      cells[gy * gw + gx] = v >= 128 ? 1 : 0;
    }
  }
  return { gw, gh, cells };
}

function tracedOutline(m: Mask, width: number, height: number): string {
  let step = Math.max(1, Math.ceil(Math.max(width, height) / MAX_GRID));
  for (let k = 0; k <= MAX_COARSENINGS; k++, step *= 2) {
    const { gw, gh, cells } = gridOf(m, width, height, step);
    const stride = gw + 1;
    const loops = traceLoops(gw, gh, cells)
      .map((l) => thin(l, TOLERANCE, stride))
      .filter((l) => l.length >= 3);
    if (loops.reduce((n, l) => n + l.length, 0) > MAX_VERTICES) continue;
    const point = (v: number) => {
      const x = Math.min(width, (v % stride) * step);
      const y = Math.min(height, Math.floor(v / stride) * step);
      return `${x} ${y}`;
    };
    return loops.map((l) => `M${l.map(point).join('L')}Z`).join('');
  }
  const b = selectionBounds(m, width, height);
  return isEmptyRect(b) ? '' : rectPath(b.x, b.y, b.w, b.h);
}

/**
 * The closed loops of directed cell edges with the selected cell on their right (clockwise round what is
 * selected, counter-clockwise round a hole), as vertex numbers y × (gw + 1) + x, corners only (a straight run is
 * one edge).
 */
function traceLoops(gw: number, gh: number, cells: Uint8Array): number[][] {
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= gw || y >= gh ? 0 : cells[y * gw + x]!);
  const stride = gw + 1;
  // Each vertex's outgoing edges, as the vertex they lead to; two at a saddle (cells touching at a corner).
  const out = new Map<number, number[]>();
  const add = (from: number, to: number) => {
    const list = out.get(from);
    if (list) list.push(to);
    else out.set(from, [to]);
  };
  for (let y = 0; y < gh; y++) {
    for (let x = 0; x < gw; x++) {
      if (!cells[y * gw + x]) continue;
      const tl = y * stride + x;
      const tr = tl + 1;
      const bl = tl + stride;
      const br = bl + 1;
      if (!at(x, y - 1)) add(tl, tr);
      if (!at(x + 1, y)) add(tr, br);
      if (!at(x, y + 1)) add(br, bl);
      if (!at(x - 1, y)) add(bl, tl);
    }
  }
  const loops: number[][] = [];
  for (const [start, targets] of out) {
    while (targets.length) {
      const loop: number[] = [start];
      let v = targets.pop()!;
      while (v !== start) {
        loop.push(v);
        const next = out.get(v)!;
        v = next.pop()!;
      }
      loops.push(corners(loop));
    }
  }
  return loops;
}

/** The loop's vertices where it turns. */
function corners(loop: number[]): number[] {
  const n = loop.length;
  return loop.filter((v, i) => v - loop[(i - 1 + n) % n]! !== loop[(i + 1) % n]! - v);
}

/**
 * Douglas–Peucker on a closed loop of vertex numbers (row stride `stride`), to within `tolerance` cells: the loop
 * split at its first vertex and the vertex farthest from it, each half thinned. 0 keeps every corner.
 */
function thin(loop: number[], tolerance: number, stride: number): number[] {
  if (tolerance <= 0 || loop.length <= 4) return loop;
  const xs = loop.map((v) => v % stride);
  const ys = loop.map((v) => Math.floor(v / stride));
  let far = 0;
  let best = -1;
  for (let i = 1; i < loop.length; i++) {
    const d = (xs[i]! - xs[0]!) ** 2 + (ys[i]! - ys[0]!) ** 2;
    if (d > best) {
      best = d;
      far = i;
    }
  }
  const keep = new Uint8Array(loop.length);
  keep[0] = 1;
  keep[far] = 1;
  const stack: [number, number][] = [
    [0, far],
    [far, loop.length],
  ];
  while (stack.length) {
    const [a, b] = stack.pop()!;
    const bi = b % loop.length;
    const dx = xs[bi]! - xs[a]!;
    const dy = ys[bi]! - ys[a]!;
    const len = Math.hypot(dx, dy);
    let worst = -1;
    let at = -1;
    for (let i = a + 1; i < b; i++) {
      const ex = xs[i]! - xs[a]!;
      const ey = ys[i]! - ys[a]!;
      const d = len === 0 ? Math.hypot(ex, ey) : Math.abs(dx * ey - dy * ex) / len;
      if (d > worst) {
        worst = d;
        at = i;
      }
    }
    if (at >= 0 && worst > tolerance) {
      keep[at] = 1;
      stack.push([a, at], [at, b]);
    }
  }
  return loop.filter((_, i) => keep[i]);
}
