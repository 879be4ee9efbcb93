/** Rectangles and bounded RGBA rasters: the small shared vocabulary of every pixel operation. */
import type { Mask, Raster, Rect, RGB } from './model.js';

export const EMPTY_RECT: Rect = Object.freeze({ x: 0, y: 0, w: 0, h: 0 });

export function isEmptyRect(r: Rect): boolean {
  return r.w <= 0 || r.h <= 0;
}

export function intersectRect(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const w = Math.min(a.x + a.w, b.x + b.w) - x;
  const h = Math.min(a.y + a.h, b.y + b.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : EMPTY_RECT;
}

export function unionRect(a: Rect, b: Rect): Rect {
  if (isEmptyRect(a)) return b;
  if (isEmptyRect(b)) return a;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

export function rectOf(r: Rect): Rect {
  return { x: r.x, y: r.y, w: r.w, h: r.h };
}

export function emptyRaster(): Raster {
  return { x: 0, y: 0, w: 0, h: 0, data: new Uint8ClampedArray(0) };
}

/** A transparent raster covering `rect`. */
export function blankRaster(rect: Rect): Raster {
  return { ...rectOf(rect), data: new Uint8ClampedArray(Math.max(0, rect.w * rect.h * 4)) };
}

export function solidRaster(rect: Rect, color: RGB, alpha = 255): Raster {
  const out = blankRaster(rect);
  const d = out.data;
  for (let i = 0; i < d.length; i += 4) {
    d[i] = color.r;
    d[i + 1] = color.g;
    d[i + 2] = color.b;
    d[i + 3] = alpha;
  }
  return out;
}

/** The part of `src` inside `rect` (transparent where `src` has no pixels). */
export function cropRaster(src: Raster, rect: Rect): Raster {
  const out = blankRaster(rect);
  const common = intersectRect(src, rect);
  for (let row = 0; row < common.h; row++) {
    const sy = common.y + row - src.y;
    const dy = common.y + row - rect.y;
    const s = (sy * src.w + (common.x - src.x)) * 4;
    const d = (dy * rect.w + (common.x - rect.x)) * 4;
    out.data.set(src.data.subarray(s, s + common.w * 4), d);
  }
  return out;
}

/** The tight bounds of pixels with alpha > 0, in document coordinates; empty when all transparent. */
export function alphaBounds(r: Raster): Rect {
  let minX = r.w;
  let minY = r.h;
  let maxX = -1;
  let maxY = -1;
  const d = r.data;
  for (let y = 0; y < r.h; y++) {
    const row = y * r.w * 4;
    for (let x = 0; x < r.w; x++) {
      if (d[row + x * 4 + 3] !== 0) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        maxY = y;
      }
    }
  }
  if (maxX < 0) return EMPTY_RECT;
  return { x: r.x + minX, y: r.y + minY, w: maxX - minX + 1, h: maxY - minY + 1 };
}

/** `r` cropped to its non-transparent pixels (the same object when already tight). */
export function trimRaster(r: Raster): Raster {
  const b = alphaBounds(r);
  if (isEmptyRect(b)) return emptyRaster();
  if (b.x === r.x && b.y === r.y && b.w === r.w && b.h === r.h) return r;
  return cropRaster(r, b);
}

/** The mask value at document position x, y. */
export function maskAt(m: Mask, x: number, y: number): number {
  const mx = x - m.x;
  const my = y - m.y;
  if (mx < 0 || my < 0 || mx >= m.w || my >= m.h) return m.outside;
  return m.data[my * m.w + mx]!;
}

export function hexToRgb(hex: string): RGB {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function rgbToHex(c: RGB): string {
  return `#${[c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
}
