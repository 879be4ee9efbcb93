import { describe, expect, it } from 'vitest';
import {
  fitRect,
  fitView,
  keepCentre,
  renderSize,
  wheelPixels,
  wheelZoomFactor,
  zoomAt,
} from '../../src/web/canvas/zoom.js';

describe('canvas zoom and pan', () => {
  it('fits a large document inside the viewport with a margin, centred, and never enlarges a small one', () => {
    const v = fitView(9000, 18000, 1000, 800);
    expect(v.zoom).toBeCloseTo((800 - 48) / 18000, 6);
    expect(v.x + (9000 * v.zoom) / 2).toBeCloseTo(500, 6);
    expect(v.y + (18000 * v.zoom) / 2).toBeCloseTo(400, 6);
    expect(fitView(200, 100, 1000, 800).zoom).toBe(1);
  });

  it('fits right of the toolbox floating on the viewport’s left edge', () => {
    // 60 px covered: the document is fitted and centred in the 940 px right of it.
    const wide = fitView(9000, 3000, 1000, 800, 60);
    expect(wide.zoom).toBeCloseTo((940 - 48) / 9000, 6);
    expect(wide.x).toBeCloseTo(60 + 24, 6);
    expect(wide.x + 9000 * wide.zoom).toBeCloseTo(1000 - 24, 6);
    const small = fitView(200, 100, 1000, 800, 60);
    expect(small).toEqual({ zoom: 1, x: 60 + (940 - 200) / 2, y: 350 });
    const piece = fitRect({ x: 30, y: 40, w: 120, h: 20 }, 1000, 800, 60);
    expect(piece).toEqual({ zoom: 1, x: 530 - 90, y: 400 - 50 });
  });

  it('fits clear of the zoom bar floating in the bottom-right corner, above it or left of it', () => {
    const bar = { w: 220, h: 50 };
    const right = (v: { x: number; zoom: number }, w: number) => v.x + w * v.zoom;
    const bottom = (v: { y: number; zoom: number }, h: number) => v.y + h * v.zoom;
    // A portrait page the centred fit would run under the bar: fitted in the 750 px above it, as wide as it can.
    const portrait = fitView(2480, 3508, 700, 800, 60, bar);
    expect(portrait.zoom).toBeCloseTo((750 - 48) / 3508, 6);
    expect(bottom(portrait, 3508)).toBeCloseTo(750 - 24, 6);
    expect(portrait.x + (2480 * portrait.zoom) / 2).toBeCloseTo(60 + 640 / 2, 6);
    // A tall narrow one is larger left of the bar, over the whole height, than above it.
    const strip = fitView(1200, 4000, 700, 800, 60, bar);
    expect(strip.zoom).toBeCloseTo((800 - 48) / 4000, 6);
    expect(right(strip, 1200)).toBeCloseTo(60 + (420 + 1200 * strip.zoom) / 2, 6);
    expect(right(strip, 1200)).toBeLessThanOrEqual(700 - 220);
    // One the centred fit keeps clear of the bar is centred as without it.
    expect(fitView(3508, 2480, 700, 800, 60, bar)).toEqual(fitView(3508, 2480, 700, 800, 60));
    expect(fitView(200, 100, 700, 800, 60, bar)).toEqual(fitView(200, 100, 700, 800, 60));
    // A piece is fitted clear of it the same way.
    const piece = fitRect({ x: 100, y: 200, w: 2480, h: 3508 }, 700, 800, 60, bar);
    expect(piece.zoom).toBeCloseTo(portrait.zoom, 9);
    expect(piece.y + (200 + 3508) * piece.zoom).toBeCloseTo(750 - 24, 6);
  });

  it('fits a piece of a large document in the viewport, centred on it, and never enlarges a small one', () => {
    const piece = { x: 6000, y: 12000, w: 900, h: 2000 };
    const v = fitRect(piece, 1000, 800);
    expect(v.zoom).toBeCloseTo((800 - 48) / 2000, 6);
    expect(v.x + (6000 + 450) * v.zoom).toBeCloseTo(500, 6);
    expect(v.y + (12000 + 1000) * v.zoom).toBeCloseTo(400, 6);
    const welt = fitRect({ x: 30, y: 40, w: 120, h: 20 }, 1000, 800);
    expect(welt).toEqual({ zoom: 1, x: 500 - 90, y: 400 - 50 });
  });

  it('keeps the document point under the pointer in place while zooming', () => {
    const v = { zoom: 0.5, x: 30, y: -20 };
    const px = 321;
    const py = 123;
    const docX = (px - v.x) / v.zoom;
    const docY = (py - v.y) / v.zoom;
    const z = zoomAt(v, 1.7, px, py);
    expect(z.zoom).toBeCloseTo(0.85, 9);
    expect(docX * z.zoom + z.x).toBeCloseTo(px, 9);
    expect(docY * z.zoom + z.y).toBeCloseTo(py, 9);
    expect(zoomAt(v, 1e9, 0, 0).zoom).toBe(32);
  });

  it('asks for a render at screen size in a few steps, never more than the document', () => {
    expect(renderSize(9000, 18000, 752 / 18000, 1)).toBe(1024);
    expect(renderSize(9000, 18000, 752 / 18000, 2)).toBe(1536);
    expect(renderSize(9000, 18000, 0.5, 1)).toBe(9000);
    expect(renderSize(9000, 18000, 1, 1)).toBe(18000);
    expect(renderSize(1200, 800, 0.6, 1)).toBe(1024);
    expect(renderSize(300, 200, 1, 2)).toBe(300);
  });

  it('keeps the document point at the viewport’s centre when the viewport is resized', () => {
    const v = { zoom: 0.8, x: -120, y: 35 };
    const centre = (view: typeof v, w: number, h: number) => [
      (w / 2 - view.x) / view.zoom,
      (h / 2 - view.y) / view.zoom,
    ];
    const k = keepCentre(v, { w: 900, h: 700 }, { w: 1300, h: 560 });
    expect(k.zoom).toBe(0.8);
    expect(centre(k, 1300, 560)).toEqual(centre(v, 900, 700));
  });

  it('zooms a pinch’s small deltas a little each, and a wheel notch one step, in or out alike', () => {
    expect(wheelZoomFactor(-4)).toBeCloseTo(Math.exp(0.04), 9);
    expect(wheelZoomFactor(-100)).toBeCloseTo(wheelZoomFactor(-20), 9);
    expect(wheelZoomFactor(-100) * wheelZoomFactor(100)).toBeCloseTo(1, 9);
    expect(wheelPixels({ deltaX: 0, deltaY: 3, deltaMode: 1 }, 800)).toEqual({ dx: 0, dy: 48 });
    expect(wheelPixels({ deltaX: 1, deltaY: 0, deltaMode: 2 }, 800)).toEqual({ dx: 800, dy: 0 });
  });
});
