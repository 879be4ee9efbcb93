import { describe, expect, it } from 'vitest';
import type { LayerMask, Raster, SmartTransform } from '../../src/engine/model.js';
import { flipSmart, renderSmart, rotateSmart, scaleSmart, smartFromRaster } from '../../src/engine/smart.js';
import {
  flipMask,
  flipRaster,
  rotateMask,
  rotatePoint,
  rotateRaster,
  scaleMask,
  scaleRaster,
} from '../../src/engine/transform.js';

/** A raster whose every pixel is distinct: r = x, g = y, b = x ^ y, opaque. */
function pattern(x: number, y: number, w: number, h: number, alpha = 255): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const o = (j * w + i) * 4;
      data[o] = i & 255;
      data[o + 1] = j & 255;
      data[o + 2] = (i ^ j) & 255;
      data[o + 3] = alpha;
    }
  }
  return { x, y, w, h, data };
}

/** An opaque colour rectangle `inset` pixels inside a transparent w × h raster. */
function block(x: number, y: number, w: number, h: number, inset = 0, rgb = [230, 120, 30]): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let j = inset; j < h - inset; j++) {
    for (let i = inset; i < w - inset; i++) {
      const o = (j * w + i) * 4;
      data.set([rgb[0]!, rgb[1]!, rgb[2]!, 255], o);
    }
  }
  return { x, y, w, h, data };
}

function px(r: Raster, x: number, y: number): number[] {
  const o = ((y - r.y) * r.w + (x - r.x)) * 4;
  return [...r.data.subarray(o, o + 4)];
}

/** Alpha-weighted centroid in document coordinates (pixel centres at +0.5). */
function centroid(r: Raster): { x: number; y: number } {
  let sx = 0;
  let sy = 0;
  let s = 0;
  for (let j = 0; j < r.h; j++) {
    for (let i = 0; i < r.w; i++) {
      const a = r.data[(j * r.w + i) * 4 + 3]!;
      sx += a * (r.x + i + 0.5);
      sy += a * (r.y + j + 0.5);
      s += a;
    }
  }
  return { x: sx / s, y: sy / s };
}

/** A mask revealing exactly the opaque pixels of `r`, hiding beyond it. */
function maskOf(r: Raster): LayerMask {
  const data = new Uint8Array(r.w * r.h);
  for (let i = 0; i < data.length; i++) data[i] = r.data[i * 4 + 3]!;
  return { x: r.x, y: r.y, w: r.w, h: r.h, data, outside: 0, enabled: true };
}

/** Value-weighted centroid of a mask, as `centroid`. */
function maskCentroid(m: LayerMask): { x: number; y: number } {
  let [sx, sy, s] = [0, 0, 0];
  for (let j = 0; j < m.h; j++) {
    for (let i = 0; i < m.w; i++) {
      const v = m.data[j * m.w + i]!;
      sx += v * (m.x + i + 0.5);
      sy += v * (m.y + j + 0.5);
      s += v;
    }
  }
  return { x: sx / s, y: sy / s };
}

/**
 * Largest visible colour deviation from `rgb` over the edge pixels, weighted by their alpha: a dark fringe
 * (straight colour darkened where alpha is partial) shows as a large value. Resampling ringing leaves a few
 * alpha-1 pixels whose colour means nothing; weighting makes them count for what they show (≤ 1 level).
 */
function worstFringe(r: Raster, rgb: number[]): number {
  let worst = 0;
  for (let i = 0; i < r.data.length; i += 4) {
    const a = r.data[i + 3]!;
    if (a === 0) continue;
    for (let c = 0; c < 3; c++) worst = Math.max(worst, (Math.abs(r.data[i + c]! - rgb[c]!) * a) / 255);
  }
  return worst;
}

/** Largest colour deviation over pixels at least 1/8 opaque. */
function worstSolidFringe(r: Raster, rgb: number[]): number {
  let worst = 0;
  for (let i = 0; i < r.data.length; i += 4) {
    if (r.data[i + 3]! < 32) continue;
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(r.data[i + c]! - rgb[c]!));
  }
  return worst;
}

function sameRaster(a: Raster, b: Raster): boolean {
  return (
    a.x === b.x &&
    a.y === b.y &&
    a.w === b.w &&
    a.h === b.h &&
    Buffer.compare(Buffer.from(a.data), Buffer.from(b.data)) === 0
  );
}

describe('flip', () => {
  it('mirrors exactly in place about the raster centre', () => {
    const r = pattern(10, 20, 7, 5);
    const c = { x: 10 + 3.5, y: 20 + 2.5 };
    const h = flipRaster(r, 'horizontal', c);
    const v = flipRaster(r, 'vertical', c);
    expect([h.x, h.y, h.w, h.h]).toEqual([10, 20, 7, 5]);
    expect([v.x, v.y, v.w, v.h]).toEqual([10, 20, 7, 5]);
    for (let y = 20; y < 25; y++) {
      for (let x = 10; x < 17; x++) {
        expect(px(h, x, y)).toEqual(px(r, 10 + 16 - x, y));
        expect(px(v, x, y)).toEqual(px(r, x, 20 + 24 - y));
      }
    }
    expect(sameRaster(flipRaster(h, 'horizontal', c), r)).toBe(true);
    expect(h.data).not.toBe(r.data);
  });

  it('mirrors about a pivot outside the raster (a child of a flipped group)', () => {
    const r = pattern(10, 0, 4, 2);
    const f = flipRaster(r, 'horizontal', { x: 20, y: 0 });
    expect([f.x, f.w]).toEqual([26, 4]);
    expect(px(f, 29, 1)).toEqual(px(r, 10, 1));
  });

  it('mirrors a mask and keeps its outside value', () => {
    const m: LayerMask = {
      x: 0,
      y: 0,
      w: 3,
      h: 1,
      data: new Uint8Array([0, 100, 255]),
      outside: 255,
      enabled: true,
    };
    const f = flipMask(m, 'horizontal', { x: 1.5, y: 0.5 });
    expect([...f.data]).toEqual([255, 100, 0]);
    expect(f.outside).toBe(255);
    expect(f.enabled).toBe(true);
  });
});

describe('rotate by quarter turns', () => {
  it('is an exact pixel move: 90° clockwise sends (x, y) to (h-1-y, x)', async () => {
    const r = pattern(0, 0, 6, 4);
    const t = await rotateRaster(r, 90, { x: 3, y: 2 });
    expect([t.w, t.h]).toEqual([4, 6]);
    // centre stays at (3, 2)
    expect(t.x + t.w / 2).toBe(3);
    expect(t.y + t.h / 2).toBe(2);
    for (let y = 0; y < 4; y++) {
      for (let x = 0; x < 6; x++) expect(px(t, t.x + (3 - y), t.y + x)).toEqual(px(r, x, y));
    }
  });

  it('four quarter turns and two half turns give back the original exactly', async () => {
    const r = pattern(5, 7, 8, 6);
    const c = { x: 9, y: 10 };
    let t = r;
    for (let i = 0; i < 4; i++) t = await rotateRaster(t, 90, c);
    expect(sameRaster(t, r)).toBe(true);
    const half = await rotateRaster(await rotateRaster(r, 180, c), -180, c);
    expect(sameRaster(half, r)).toBe(true);
    expect(sameRaster(await rotateRaster(r, -90, c), await rotateRaster(r, 270, c))).toBe(true);
  });

  it('rotates points exactly for quarter turns', () => {
    expect(rotatePoint({ x: 1, y: 0 }, { x: 0, y: 0 }, 90)).toEqual({ x: 0, y: 1 });
    expect(rotatePoint({ x: 1, y: 0 }, { x: 0, y: 0 }, -90)).toEqual({ x: 0, y: -1 });
  });
});

describe('rotate by any angle', () => {
  it('grows the bounds (200×100 at 33° → about 222×193) and keeps the centre', async () => {
    const r = block(0, 0, 200, 100);
    const t = await rotateRaster(r, 33, { x: 100, y: 50 });
    // exact box 222.2 × 192.8; bicubic adds at most a faint pixel row or column on a side
    expect(Math.abs(t.w - 222)).toBeLessThanOrEqual(2);
    expect(Math.abs(t.h - 193)).toBeLessThanOrEqual(2);
    expect(Math.abs(t.x + t.w / 2 - 100)).toBeLessThanOrEqual(1);
    expect(Math.abs(t.y + t.h / 2 - 50)).toBeLessThanOrEqual(1);
    // corners of the result are transparent, the centre is opaque
    expect(px(t, t.x, t.y)[3]).toBe(0);
    expect(px(t, 100, 50)).toEqual([230, 120, 30, 255]);
  });

  it('places the content where the rotation sends it (libvips placement convention)', async () => {
    for (const [w, h] of [
      [200, 100],
      [201, 101],
      [57, 33],
      [40, 91],
    ] as const) {
      for (const deg of [10, 33, 45, 100, 170, 200, 240, 300, -17.5, 60]) {
        // An off-centre blob: its centroid must land where the rotation about the pivot sends it.
        const r = block(13, -7, w, h, 0);
        const pivot = { x: 40, y: 25 };
        const t = await rotateRaster(r, deg, pivot);
        const before = centroid(r);
        const want = rotatePoint(before, pivot, deg);
        const got = centroid(t);
        // Exactly: the sub-pixel part of the placement goes into the resampling, not into a rounded position.
        expect(Math.hypot(got.x - want.x, got.y - want.y), `${w}×${h} at ${deg}°`).toBeLessThan(0.05);
        // A mask of the same rectangle lands on the same spot, so a layer's mask stays aligned with it.
        const m = await rotateMask(maskOf(r), deg, pivot);
        const shown = maskCentroid(m);
        expect(Math.hypot(shown.x - want.x, shown.y - want.y), `mask ${w}×${h} at ${deg}°`).toBeLessThan(
          0.05,
        );
      }
    }
  });

  it('leaves no dark fringe on transparent edges', async () => {
    const rgb = [230, 120, 30];
    const r = block(0, 0, 60, 40, 5, rgb);
    for (const deg of [1, 33, 45, 123.4]) {
      const t = await rotateRaster(r, deg, { x: 30, y: 20 });
      expect(worstFringe(t, rgb), `${deg}°`).toBeLessThanOrEqual(2);
      expect(worstSolidFringe(t, rgb), `${deg}°`).toBeLessThanOrEqual(2);
    }
  });

  it('rotates a mask, filling new area with its outside value', async () => {
    const m: LayerMask = {
      x: 0,
      y: 0,
      w: 20,
      h: 10,
      data: new Uint8Array(200).fill(255),
      outside: 255,
      enabled: true,
    };
    const t = await rotateMask(m, 30, { x: 10, y: 5 });
    expect(t.w).toBeGreaterThan(20);
    expect(t.data.every((v) => v === 255)).toBe(true);
    const hidden = { ...m, data: new Uint8Array(200), outside: 0 as const };
    const u = await rotateMask(hidden, 30, { x: 10, y: 5 });
    expect(u.data.every((v) => v === 0)).toBe(true);
  });
});

describe('scale', () => {
  it('scales about the pivot with lanczos3 and no dark fringe', async () => {
    const rgb = [230, 120, 30];
    const r = block(0, 0, 200, 100, 10, rgb);
    const half = await scaleRaster(r, 0.5, 0.5, { x: 100, y: 50 });
    expect([half.x, half.y, half.w, half.h]).toEqual([50, 25, 100, 50]);
    expect(worstFringe(half, rgb)).toBeLessThanOrEqual(2);
    expect(worstSolidFringe(half, rgb)).toBeLessThanOrEqual(2);
    const up = await scaleRaster(r, 3, 1.5, { x: 100, y: 50 });
    expect([up.x, up.y, up.w, up.h]).toEqual([-200, -25, 600, 150]);
    expect(worstFringe(up, rgb)).toBeLessThanOrEqual(2);
    expect(worstSolidFringe(up, rgb)).toBeLessThanOrEqual(2);
  });

  it('keeps flat colours exact, opaque or semi-transparent', async () => {
    for (const a of [255, 128]) {
      const r = block(0, 0, 30, 20, 0, [10, 200, 90]);
      for (let i = 3; i < r.data.length; i += 4) r.data[i] = a;
      for (const k of [0.37, 2.5]) {
        const t = await scaleRaster(r, k, k, { x: 15, y: 10 });
        for (let i = 0; i < t.data.length; i += 4) {
          expect([...t.data.subarray(i, i + 4)]).toEqual([10, 200, 90, a]);
        }
      }
    }
  });

  it('shares the buffer when the size does not change, and never goes below one pixel', async () => {
    const r = pattern(0, 0, 10, 10);
    const same = await scaleRaster(r, 1.01, 1.01, { x: 5, y: 5 });
    expect(same.data).toBe(r.data);
    const tiny = await scaleRaster(r, 0.01, 0.01, { x: 5, y: 5 });
    expect([tiny.w, tiny.h]).toEqual([1, 1]);
  });

  it('loses detail when a pixel raster goes down and back up', async () => {
    const r = pattern(0, 0, 64, 64);
    const c = { x: 32, y: 32 };
    const back = await scaleRaster(await scaleRaster(r, 0.5, 0.5, c), 2, 2, c);
    expect([back.x, back.y, back.w, back.h]).toEqual([0, 0, 64, 64]);
    expect(sameRaster(back, r)).toBe(false);
  });

  it('scales a mask with the same geometry', async () => {
    const m: LayerMask = {
      x: 0,
      y: 0,
      w: 20,
      h: 10,
      data: new Uint8Array(200).fill(200),
      outside: 0,
      enabled: true,
    };
    const s = await scaleMask(m, 2, 3, { x: 10, y: 5 });
    expect([s.x, s.y, s.w, s.h]).toEqual([-10, -10, 40, 30]);
    expect(s.data.length).toBe(1200);
    expect(s.data[600]).toBe(200);
  });
});

describe('smart objects', () => {
  it('render the source exactly at the identity transform (buffer shared)', async () => {
    const r = pattern(3, 4, 20, 10);
    const { source, transform } = smartFromRaster(r);
    expect(transform).toEqual({ cx: 13, cy: 9, scaleX: 1, scaleY: 1, angle: 0 });
    const out = await renderSmart(source, transform);
    expect(sameRaster(out, r)).toBe(true);
    expect(out.data).toBe(source.data);
  });

  it('scale 50 % then 200 % gives back the source exactly', async () => {
    const r = pattern(0, 0, 64, 48);
    const { source, transform } = smartFromRaster(r);
    const pivot = { x: transform.cx, y: transform.cy };
    const down = scaleSmart(transform, 0.5, 0.5, pivot).transform;
    const small = await renderSmart(source, down);
    expect([small.w, small.h]).toEqual([32, 24]);
    const up = scaleSmart(down, 2, 2, pivot).transform;
    expect(sameRaster(await renderSmart(source, up), r)).toBe(true);
  });

  it('rotate 30° then -30°, and a flip twice, give back the source exactly', async () => {
    const r = pattern(0, 0, 30, 20);
    const { source, transform } = smartFromRaster(r);
    const pivot = { x: transform.cx, y: transform.cy };
    const t1 = rotateSmart(transform, 30, pivot);
    const turned = await renderSmart(source, t1);
    expect(turned.w).toBeGreaterThan(30);
    const t2 = rotateSmart(t1, -30, pivot);
    expect(sameRaster(await renderSmart(source, t2), r)).toBe(true);
    const f = flipSmart(flipSmart(transform, 'horizontal', pivot), 'horizontal', pivot);
    expect(sameRaster(await renderSmart(source, f), r)).toBe(true);
  });

  it('flip and quarter turns render as exact pixel moves', async () => {
    const r = pattern(0, 0, 8, 6);
    const { source, transform } = smartFromRaster(r);
    const pivot = { x: transform.cx, y: transform.cy };
    const flipped = await renderSmart(source, flipSmart(transform, 'horizontal', pivot));
    expect(sameRaster(flipped, flipRaster(r, 'horizontal', pivot))).toBe(true);
    const turned = await renderSmart(source, rotateSmart(transform, 90, pivot));
    expect(sameRaster(turned, await rotateRaster(r, 90, pivot))).toBe(true);
  });

  it('a horizontal flip of a turned object mirrors its rendering', async () => {
    const r = block(0, 0, 60, 20, 0);
    const { source, transform } = smartFromRaster(r);
    const pivot = { x: transform.cx, y: transform.cy };
    const turned: SmartTransform = rotateSmart(transform, 25, pivot);
    const a = flipRaster(await renderSmart(source, turned), 'horizontal', pivot);
    const b = await renderSmart(source, flipSmart(turned, 'horizontal', pivot));
    expect(flipSmart(turned, 'horizontal', pivot)).toMatchObject({ angle: -25, scaleX: -1 });
    const ca = centroid(a);
    const cb = centroid(b);
    expect(Math.hypot(ca.x - cb.x, ca.y - cb.y)).toBeLessThan(0.75);
    expect(Math.abs(a.w - b.w)).toBeLessThanOrEqual(1);
  });

  it('non-uniform scale of a quarter-turned object follows the document axes', () => {
    const t: SmartTransform = { cx: 0, cy: 0, scaleX: 1, scaleY: 1, angle: 90 };
    const s = scaleSmart(t, 2, 1, { x: 0, y: 0 });
    expect(s.transform).toMatchObject({ scaleX: 1, scaleY: 2 });
    expect(s.alongObjectAxes).toBe(false);
    expect(scaleSmart({ ...t, angle: 30 }, 2, 1, { x: 0, y: 0 }).alongObjectAxes).toBe(true);
  });
});
