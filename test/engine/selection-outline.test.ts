/**
 * The selection's edge for the studio's marching ants: the path, filled with the even-odd rule by a real 2D
 * canvas (@napi-rs/canvas), must cover what the selection selects (at least half), holes and the inverse included;
 * rectangles exactly; a large canvas traced on a coarser grid within a cell.
 */
import { createCanvas, Path2D } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import type { Mask } from '../../src/engine/model.js';
import {
  allMask,
  featherMask,
  invertMask,
  normaliseSelection,
  rectMask,
} from '../../src/engine/selection.js';
import { MAX_GRID, selectionOutline } from '../../src/engine/selection-outline.js';

/** The path filled (even-odd) on a canvas `w` × `h`: 1 where it covers a pixel's centre. */
function filled(d: string, w: number, h: number): Uint8Array {
  const canvas = createCanvas(w, h);
  const g = canvas.getContext('2d');
  g.imageSmoothingEnabled = false;
  g.fillStyle = '#000';
  g.fill(new Path2D(d), 'evenodd');
  const px = g.getImageData(0, 0, w, h).data;
  const out = new Uint8Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = px[i * 4 + 3]! >= 128 ? 1 : 0;
  return out;
}

function selectedAt(m: Mask, x: number, y: number): boolean {
  const mx = x - m.x;
  const my = y - m.y;
  const v = mx < 0 || my < 0 || mx >= m.w || my >= m.h ? m.outside : m.data[my * m.w + mx]!;
  return v >= 128;
}

/** Pixels where the filled path and the selection (at half) disagree. */
function disagreement(m: Mask, w: number, h: number): number {
  const got = filled(selectionOutline(m, w, h), w, h);
  let n = 0;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) if ((got[y * w + x] === 1) !== selectedAt(m, x, y)) n++;
  return n;
}

/** A ring (disc with a hole) and a separate square, drawn into a mask over the whole canvas. */
function shapes(w: number, h: number): Mask {
  const data = new Uint8Array(w * h);
  const cx = w * 0.35;
  const cy = h * 0.5;
  const r = Math.min(w, h) * 0.3;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
      const ring = d < r && d > r * 0.45;
      const square = x >= w * 0.75 && x < w * 0.9 && y >= h * 0.2 && y < h * 0.4;
      data[y * w + x] = ring || square ? 255 : 0;
    }
  return { x: 0, y: 0, w, h, data, outside: 0 };
}

describe('selectionOutline', () => {
  it('is the exact rectangle of a marquee, the canvas less it for its inverse, the canvas for Select All', () => {
    const m = normaliseSelection(rectMask({ x: 10, y: 5, w: 30, h: 20 }, 100, 60), 100, 60)!;
    expect(selectionOutline(m, 100, 60)).toBe('M10 5H40V25H10Z');
    expect(selectionOutline(invertMask(m), 100, 60)).toBe('M0 0H100V60H0ZM10 5H40V25H10Z');
    expect(disagreement(invertMask(m), 100, 60)).toBe(0);
    expect(selectionOutline(allMask(), 100, 60)).toBe('M0 0H100V60H0Z');
    // Cut to the canvas.
    const over = normaliseSelection(rectMask({ x: 80, y: 40, w: 50, h: 50 }, 100, 60), 100, 60)!;
    expect(selectionOutline(over, 100, 60)).toBe('M80 40H100V60H80Z');
  });

  it('traces a ring with its hole and a separate square, filling back to the selection within the thinning', () => {
    const m = shapes(400, 300);
    const d = selectionOutline(m, 400, 300);
    // Three loops: the ring's outside, its hole, the square.
    expect(d.match(/M/g)).toHaveLength(3);
    // Thinned to within three quarters of a pixel: only pixels the edge passes through may differ.
    const selected = 400 * 300 * 0.2;
    expect(disagreement(m, 400, 300)).toBeLessThan(selected * 0.01);
    // A few hundred vertices, not one per pixel step.
    expect(d.length).toBeLessThan(6000);
    // The square is exact: its corners are vertices of the path.
    expect(d).toContain('300 60');
    expect(d).toContain('360 120');
  });

  it('draws a feathered edge at its half-selected line', async () => {
    const square = normaliseSelection(rectMask({ x: 20, y: 20, w: 60, h: 40 }, 100, 80), 100, 80)!;
    const soft = await featherMask(square, 6, 100, 80);
    expect(disagreement(soft, 100, 80)).toBeLessThan(40);
  });

  it('traces a canvas larger than the grid on cells of several pixels, within a cell of the selection', () => {
    const w = MAX_GRID * 3;
    const h = 1500;
    const m = shapes(w, h);
    const d = selectionOutline(m, w, h);
    const coords = d.match(/-?\d+(\.\d+)?/g)!.map(Number);
    expect(Math.max(...coords)).toBeLessThanOrEqual(w);
    // Cells of 3 px: the edge is within a few pixels, so the area differs by about the perimeter × a cell.
    const perimeter = 2 * Math.PI * Math.min(w, h) * 0.3 * 1.45 + 2 * (w * 0.15 + h * 0.2);
    expect(disagreement(m, w, h)).toBeLessThan(perimeter * 3);
  });

  it('draws the same mask on a canvas of another size (after a crop) for that size', () => {
    const all = allMask();
    expect(selectionOutline(all, 100, 60)).toBe('M0 0H100V60H0Z');
    expect(selectionOutline(all, 50, 30)).toBe('M0 0H50V30H0Z');
  });

  it('keeps a speckled selection to a few thousand vertices: coarser cells, then its bounds', () => {
    const w = 1200;
    const h = 900;
    const data = new Uint8Array(w * h);
    let seed = 7;
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      data[i] = seed >>> 31 ? 255 : 0;
    }
    const d = selectionOutline({ x: 0, y: 0, w, h, data, outside: 0 }, w, h);
    const vertices = (d.match(/[ML]/g) ?? []).length;
    expect(vertices).toBeGreaterThan(0);
    expect(vertices).toBeLessThanOrEqual(6000);
  });

  it('gives an empty path when nothing inside the canvas is selected, and the same string for the same mask', () => {
    const outside = normaliseSelection(rectMask({ x: 200, y: 200, w: 5, h: 5 }, 100, 60), 100, 60);
    if (outside) expect(selectionOutline(outside, 100, 60)).toBe('');
    const m = shapes(120, 90);
    expect(selectionOutline(m, 120, 90)).toBe(selectionOutline(m, 120, 90));
  });
});
