/**
 * The magic wand: a selection of the pixels whose colour is near a sampled one, all over the canvas or only
 * those connected to the sample (4-connected, as Photoshop's Contiguous).
 *
 * Colours are compared premultiplied: each of R, G, B times alpha, and alpha itself, may differ by at most
 * `tolerance` (in 0–255 units). For opaque pixels that is the plain per-channel difference; a fully
 * transparent pixel is the same as every other whatever colour it stores, and a faint pixel is near
 * transparency, so clicking an empty area selects the empty area and its soft edge as far as the tolerance goes.
 *
 * The source is a raster beyond which the canvas is transparent (a layer's pixels rarely cover the canvas).
 * Only the raster's part on the canvas is walked, grown by one ring of that transparency when it matches:
 * the ring connects the transparent surroundings exactly as the canvas does (it goes round the raster where
 * they go round it, and stops at the canvas edges where they are cut in two), so a contiguous selection of a
 * small layer's surroundings costs the layer's size, not the canvas's.
 */
import type { Mask, Raster, Rect } from './model.js';
import { allocMask, EMPTY_RECT, intersectRect, isEmptyRect } from './raster.js';
import { allMask, combineSelections, normaliseSelection, uniformRect } from './selection.js';

export type Rgba = readonly [number, number, number, number];

const TRANSPARENT: Rgba = [0, 0, 0, 0];

/** The source's pixel at document position (x, y): transparent beyond its raster. */
export function pixelAt(src: Raster, x: number, y: number): Rgba {
  const lx = x - src.x;
  const ly = y - src.y;
  if (lx < 0 || ly < 0 || lx >= src.w || ly >= src.h) return TRANSPARENT;
  const i = (ly * src.w + lx) * 4;
  const d = src.data;
  return [d[i]!, d[i + 1]!, d[i + 2]!, d[i + 3]!];
}

/** Whether the colour at `d[i…i+3]` is within `tolerance` of `seed`, premultiplied (exact integer arithmetic). */
function matcher(seed: Rgba, tolerance: number): (d: ArrayLike<number>, i: number) => boolean {
  const [r, g, b, a] = seed;
  const pr = r * a;
  const pg = g * a;
  const pb = b * a;
  const limit = tolerance * 255;
  return (d, i) => {
    const q = d[i + 3]!;
    return (
      Math.abs(q - a) <= tolerance &&
      Math.abs(d[i]! * q - pr) <= limit &&
      Math.abs(d[i + 1]! * q - pg) <= limit &&
      Math.abs(d[i + 2]! * q - pb) <= limit
    );
  };
}

const CANDIDATE = 1;
const SELECTED = 255;

/**
 * Floods the 4-connected run of CANDIDATE cells holding `seed` in a `w`-wide grid, marking them SELECTED. A
 * scanline fill with an explicit stack: each cell is painted once and each painted run scans the rows beside it
 * once, so the work is linear in the cells and the depth is bounded by the heap, not the call stack.
 */
function flood(cells: Uint8Array, w: number, seed: number): void {
  const h = cells.length / w;
  let stack = new Uint32Array(1024);
  let top = 0;
  const push = (i: number) => {
    if (top === stack.length) {
      const bigger = new Uint32Array(stack.length * 2);
      bigger.set(stack);
      stack = bigger;
    }
    stack[top++] = i;
  };
  /** Pushes the start of every candidate run in row `y` between columns `x0` and `x1`. */
  const scan = (y: number, x0: number, x1: number) => {
    if (y < 0 || y >= h) return;
    const row = y * w;
    let inRun = false;
    for (let x = x0; x <= x1; x++) {
      const c = cells[row + x] === CANDIDATE;
      if (c && !inRun) push(row + x);
      inRun = c;
    }
  };
  push(seed);
  while (top > 0) {
    const i = stack[--top]!;
    if (cells[i] !== CANDIDATE) continue;
    const y = Math.floor(i / w);
    const row = y * w;
    let x0 = i - row;
    let x1 = x0;
    while (x0 > 0 && cells[row + x0 - 1] === CANDIDATE) x0--;
    while (x1 < w - 1 && cells[row + x1 + 1] === CANDIDATE) x1++;
    cells.fill(SELECTED, row + x0, row + x1 + 1);
    scan(y - 1, x0, x1);
    scan(y + 1, x0, x1);
  }
}

export interface WandOptions {
  readonly tolerance: number;
  readonly contiguous: boolean;
}

/**
 * The magic wand's selection on `src` (transparent beyond its raster) of a `width × height` canvas, sampled at
 * pixel (x, y) inside the canvas; never null, as the sampled pixel matches itself.
 */
export function magicWand(
  src: Raster,
  width: number,
  height: number,
  x: number,
  y: number,
  { tolerance, contiguous }: WandOptions,
): Mask {
  const canvas = { x: 0, y: 0, w: width, h: height };
  const matches = matcher(pixelAt(src, x, y), tolerance);
  const own = intersectRect(src, canvas);
  const clearMatches = matches(TRANSPARENT, 0);
  // No pixels on the canvas: all of it is transparent, as the sample is.
  if (isEmptyRect(own)) return allMask();
  // Without the ring when transparency does not match: the selection then lies within the raster.
  const area = clearMatches
    ? intersectRect({ x: own.x - 1, y: own.y - 1, w: own.w + 2, h: own.h + 2 }, canvas)
    : own;
  const cells = allocMask(area.w * area.h);
  const mark = contiguous ? CANDIDATE : SELECTED;
  const d = src.data;
  for (let row = 0; row < area.h; row++) {
    const py = area.y + row;
    const inRows = py >= own.y && py < own.y + own.h;
    for (let col = 0; col < area.w; col++) {
      const px = area.x + col;
      const inside = inRows && px >= own.x && px < own.x + own.w;
      const hit = inside ? matches(d, ((py - src.y) * src.w + (px - src.x)) * 4) : clearMatches;
      if (hit) cells[row * area.w + col] = mark;
    }
  }
  if (!contiguous) {
    return normaliseSelection({ ...area, data: cells, outside: clearMatches ? 255 : 0 }, width, height)!;
  }
  // A sample beyond the area is in one of the transparent bands around it: start from the ring beside it.
  const sx = Math.min(Math.max(x, area.x), area.x + area.w - 1);
  const sy = Math.min(Math.max(y, area.y), area.y + area.h - 1);
  flood(cells, area.w, (sy - area.y) * area.w + (sx - area.x));
  for (let i = 0; i < cells.length; i++) if (cells[i] === CANDIDATE) cells[i] = 0;
  const m: Mask = { ...area, data: cells, outside: 0 };
  return clearMatches ? beyondArea(m, width, height) : normaliseSelection(m, width, height)!;
}

/**
 * A contiguous selection over `m`'s area (the raster's part of the canvas and a ring of transparency round it)
 * completed beyond it. Everything there is transparent and matches; each band of it (above, below, left, right
 * of the area) is reached exactly when the ring beside it was. The bands meet at the corners, so they differ
 * only when the area spans the canvas between two of them; then the reached ones are stored as pixels.
 */
function beyondArea(m: Mask, width: number, height: number): Mask {
  const at = (col: number, row: number) => m.data[row * m.w + col] === SELECTED;
  const right = m.x + m.w;
  const bottom = m.y + m.h;
  const bands: [Rect, boolean][] = [];
  if (m.y > 0) bands.push([{ x: 0, y: 0, w: width, h: m.y }, at(0, 0)]);
  if (bottom < height) bands.push([{ x: 0, y: bottom, w: width, h: height - bottom }, at(0, m.h - 1)]);
  if (m.x > 0) bands.push([{ x: 0, y: 0, w: m.x, h: height }, at(0, 0)]);
  if (right < width) bands.push([{ x: right, y: 0, w: width - right, h: height }, at(m.w - 1, 0)]);
  if (bands.length > 0 && bands.every(([, reached]) => reached)) {
    return normaliseSelection({ ...m, outside: 255 }, width, height)!;
  }
  let out: Mask = normaliseSelection(m, width, height) ?? {
    ...EMPTY_RECT,
    data: new Uint8Array(0),
    outside: 0,
  };
  for (const [band, reached] of bands) {
    if (reached) out = combineSelections(out, uniformRect(band, 255), 'add', width, height)!;
  }
  return out;
}
