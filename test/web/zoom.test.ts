import { describe, expect, it } from 'vitest';
import { fitView, renderSize, zoomAt } from '../../src/web/canvas/zoom.js';

describe('canvas zoom and pan', () => {
  it('fits a large document inside the viewport with a margin, centred, and never enlarges a small one', () => {
    const v = fitView(9000, 18000, 1000, 800);
    expect(v.zoom).toBeCloseTo((800 - 48) / 18000, 6);
    expect(v.x + (9000 * v.zoom) / 2).toBeCloseTo(500, 6);
    expect(v.y + (18000 * v.zoom) / 2).toBeCloseTo(400, 6);
    expect(fitView(200, 100, 1000, 800).zoom).toBe(1);
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
});
