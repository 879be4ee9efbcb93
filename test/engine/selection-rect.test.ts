/**
 * Selections that cost what they cover (issue 13): a marquee is a rectangle stored without pixels until
 * something reads its `data`, and every selection function answers for it from the rectangle — checked against
 * the same mask given as plain pixels, which goes through the per-pixel code.
 */
import { describe, expect, it } from 'vitest';
import { forEachSelectedRun } from '../../src/engine/adjust/region.js';
import { reframeCanvas } from '../../src/engine/canvas-ops.js';
import { newDocument } from '../../src/engine/factory.js';
import type { Mask, Raster, Rect } from '../../src/engine/model.js';
import {
  featherMask,
  fillPixels,
  invertMask,
  maskPixelBytes,
  normaliseSelection,
  rectMask,
  sampleMask,
  selectedPercent,
  selectionBounds,
  selectsAll,
  trimMask,
  uniformInside,
} from '../../src/engine/selection.js';

const HUGE = 16000; // 256 Mpx, just under the document limit (0x3FFF² pixels)

/** The same mask as plain pixels (a copy, so the per-pixel code paths run on it). */
function plain(m: Mask): Mask {
  return { x: m.x, y: m.y, w: m.w, h: m.h, data: Uint8Array.from(m.data), outside: m.outside };
}

function values(m: Mask, canvas: Rect): number[] {
  const out: number[] = [];
  for (let y = canvas.y; y < canvas.y + canvas.h; y++) {
    for (let x = canvas.x; x < canvas.x + canvas.w; x++) {
      const inside = x >= m.x && y >= m.y && x < m.x + m.w && y < m.y + m.h;
      out.push(inside ? m.data[(y - m.y) * m.w + (x - m.x)]! : m.outside);
    }
  }
  return out;
}

describe('a rectangle selection is stored without pixels', () => {
  it('select_rect on a 16000² canvas holds no pixels, and every query answers from the rectangle', () => {
    const m = normaliseSelection(rectMask({ x: 1000, y: 2000, w: 9000, h: 7000 }, HUGE, HUGE), HUGE, HUGE)!;
    expect(uniformInside(m)).toBe(255);
    expect(selectionBounds(m, HUGE, HUGE)).toEqual({ x: 1000, y: 2000, w: 9000, h: 7000 });
    expect(selectsAll(m, HUGE, HUGE)).toBe(false);
    expect(selectedPercent(m, HUGE, HUGE)).toBeCloseTo((9000 * 7000 * 100) / (HUGE * HUGE), 10);
    expect(trimMask(m)).toBe(m);
    expect(sampleMask(m, { x: 5000, y: 5000, w: 100, h: 100 })).toBe(255);
    expect(sampleMask(m, { x: 0, y: 0, w: 100, h: 100 })).toBe(0);
    const inverse = normaliseSelection(invertMask(m), HUGE, HUGE)!;
    expect(uniformInside(inverse)).toBe(0);
    expect(inverse.outside).toBe(255);
    expect(selectionBounds(inverse, HUGE, HUGE)).toEqual({ x: 0, y: 0, w: HUGE, h: HUGE });
    expect(selectedPercent(inverse, HUGE, HUGE)).toBeCloseTo(100 - (9000 * 7000 * 100) / (HUGE * HUGE), 10);
    // None of that made a pixel.
    expect(maskPixelBytes(m)).toBe(0);
    expect(maskPixelBytes(inverse)).toBe(0);
  });

  it('fill_selection over a rectangle on a 16000² canvas touches the rectangle only', () => {
    const sel = rectMask({ x: 15000, y: 300, w: 200, h: 100 }, HUGE, HUGE);
    const empty: Raster = { x: 0, y: 0, w: 0, h: 0, data: new Uint8ClampedArray(0) };
    const out = fillPixels(empty, selectionBounds(sel, HUGE, HUGE), { r: 10, g: 20, b: 30 }, 1, sel, false);
    expect([out.x, out.y, out.w, out.h]).toEqual([15000, 300, 200, 100]);
    expect(out.data.byteLength).toBe(200 * 100 * 4);
    for (let i = 0; i < out.data.length; i += 4) {
      if (out.data[i] !== 10 || out.data[i + 1] !== 20 || out.data[i + 2] !== 30 || out.data[i + 3] !== 255) {
        throw new Error(`pixel ${i / 4} is ${out.data.subarray(i, i + 4).join(',')}`);
      }
    }
    expect(maskPixelBytes(sel)).toBe(0);
  });

  it('reading data gives the pixels, bounded to the rectangle; a spread or a copy reads them too', () => {
    const m = rectMask({ x: 2, y: 1, w: 3, h: 2 }, 8, 5);
    expect(maskPixelBytes(m)).toBe(0);
    expect({ ...m }.data).toEqual(new Uint8Array(6).fill(255));
    expect(maskPixelBytes(m)).toBe(6);
    expect(values(m, { x: 0, y: 0, w: 8, h: 5 })).toEqual(values(plain(m), { x: 0, y: 0, w: 8, h: 5 }));
    const hole = invertMask(rectMask({ x: 2, y: 1, w: 3, h: 2 }, 8, 5));
    expect(Array.from(hole.data)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(structuredClone(hole).data).toEqual(new Uint8Array(6));
  });

  it('answers exactly as the same mask given as pixels', () => {
    const [W, H] = [30, 20];
    for (const rect of [
      { x: 3, y: 4, w: 10, h: 7 },
      { x: -5, y: 15, w: 12, h: 30 },
      { x: 0, y: 0, w: 30, h: 20 },
    ]) {
      for (const m of [rectMask(rect, W, H), invertMask(rectMask(rect, W, H))]) {
        const p = plain(m);
        expect(selectionBounds(m, W, H)).toEqual(selectionBounds(p, W, H));
        expect(selectsAll(m, W, H)).toBe(selectsAll(p, W, H));
        expect(selectedPercent(m, W, H)).toBeCloseTo(selectedPercent(p, W, H), 10);
        const [n, q] = [normaliseSelection(m, W, H), normaliseSelection(p, W, H)];
        expect(n === null).toBe(q === null);
        if (n && q)
          expect(values(n, { x: 0, y: 0, w: W, h: H })).toEqual(values(q, { x: 0, y: 0, w: W, h: H }));
        for (const probe of [
          { x: 0, y: 0, w: 30, h: 20 },
          { x: 2, y: 3, w: 5, h: 5 },
          { x: 5, y: 6, w: 2, h: 2 },
        ]) {
          expect(sampleMask(m, probe)).toEqual(sampleMask(p, probe));
        }
        const runs = (s: Mask) => {
          const seen: string[] = [];
          forEachSelectedRun({ x: 1, y: 2, w: 25, h: 15 }, s, (from, to, mask, mi) => {
            for (let i = from, k = mi; i < to; i += 4, k++) {
              const v = mask === null ? 255 : mask[k]!;
              if (v !== 0) seen.push(`${i}:${v}`);
            }
          });
          return seen.sort();
        };
        expect(runs(m)).toEqual(runs(p));
      }
    }
  });

  it('feathers a rectangle as it feathers the same pixels', async () => {
    for (const m of [
      rectMask({ x: 10, y: 8, w: 30, h: 20 }, 60, 40),
      invertMask(rectMask({ x: 10, y: 8, w: 30, h: 20 }, 60, 40)),
    ]) {
      const mine = await featherMask(m, 4, 60, 40);
      const ref = await featherMask(plain(m), 4, 60, 40);
      expect(values(mine, { x: 0, y: 0, w: 60, h: 40 })).toEqual(values(ref, { x: 0, y: 0, w: 60, h: 40 }));
    }
  });

  it('a crop moves and cuts a rectangle selection without making its pixels', () => {
    const doc = newDocument(HUGE, HUGE, 150);
    const selection = rectMask({ x: 100, y: 100, w: 8000, h: 8000 }, HUGE, HUGE);
    const cropped = reframeCanvas({ ...doc, selection }, { x: 4000, y: 50, w: 6000, h: 6000 }, 'crop');
    expect(cropped.selection).toMatchObject({ x: 0, y: 50, w: 4100, h: 5950, outside: 0 });
    expect(uniformInside(cropped.selection!)).toBe(255);
    expect(maskPixelBytes(cropped.selection!)).toBe(0);
    const away = reframeCanvas({ ...doc, selection }, { x: 9000, y: 9000, w: 100, h: 100 }, 'crop');
    expect(away.selection).toBeNull();
    const hole = reframeCanvas(
      { ...doc, selection: invertMask(selection) },
      { x: 9000, y: 9000, w: 100, h: 100 },
      'crop',
    );
    expect(hole.selection).toMatchObject({ w: 0, h: 0, outside: 255 });
  });
});
