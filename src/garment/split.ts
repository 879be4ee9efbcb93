/**
 * Splitting a marker that holds every cut piece on one layer (a CAD export, a merged PSD, a flat JPG) into one
 * raster per piece, as the garment tools need them (split_pieces). Pieces are the opaque regions of a layer with
 * transparency, or what differs from the border's colour on an opaque one; each is filled through its enclosed
 * holes, so an outline drawing or a piece with a label inside becomes its whole shape.
 */
import type { Raster, Rect, RGB } from '../engine/model.js';
import { blankRaster } from '../engine/raster.js';
import { deltaE76, type Lab, rgbToLab } from './color.js';
import { alphaMask, type Component, components, resampleMask } from './image.js';

/**
 * A pixel this far (ΔE76) from the background colour or further is drawing, not paper. Measured on the example
 * marker flattened and saved as JPEG (quality 90, pieces #d0d0d0 on white, ΔE 16.3 apart), 3 px away from the
 * outlines: the paper's JPEG noise reaches ΔE 4.9 and the pieces come as close as ΔE 11.9; at 10 the masks match
 * the original layers' with IoU 0.9999 (0.9988 at 15). A piece paler than ΔE 10 from its paper is not found.
 */
export const BACKGROUND_DELTA_E = 10;

/**
 * Regions smaller than this share of the largest one are specks, notch marks or text, not pieces. Real pieces
 * come small: in the FreeSewing fixtures a jacket's inner pocket welt is 0.27 % of its front, a chest welt or a
 * pocket facing about 1 %; a notch or a letter of a label is under 0.05 % at any resolution.
 */
export const MIN_PIECE_SHARE = 0.002;

/** Pixels at least half opaque belong to a piece on a layer with transparency. */
const OPAQUE = 128;

/** How far (pixels) a piece's soft edge (alpha below half) reaches beyond its half-opaque shape. */
const EDGE_REACH = 2;

export interface SplitPiece {
  /** The piece's pixels, transparent outside it, over its tight bounds (document pixels). */
  readonly raster: Raster;
  /** Pixels of the filled shape (its holes included). */
  readonly area: number;
}

export interface SplitResult {
  /** The pieces in reading order: rows top to bottom, left to right within a row (a column top to bottom). */
  readonly pieces: readonly SplitPiece[];
  /** Regions too small to be a piece, lying outside every piece. */
  readonly ignored: number;
  /** Regions inside a piece's outline (labels, grain lines): part of that piece. */
  readonly enclosed: number;
  /** The paper's colour on an opaque layer; null on a layer with transparency. */
  readonly background: RGB | null;
  /** The layer is a single piece already: the one piece is exactly what the layer shows. */
  readonly unchanged: boolean;
}

/** The pieces of `src` (a layer's raster, document coordinates); none when it shows nothing. */
export function splitRaster(src: Raster): SplitResult {
  const { w, h, data } = src;
  const n = w * h;
  let transparent = false;
  let shown = 0;
  for (let i = 0; i < n; i++) {
    const a = data[i * 4 + 3]!;
    if (a < OPAQUE) transparent = true;
    if (a > 0) shown++;
  }
  const background = transparent ? null : borderColour(src);
  // The binary mask is dropped once labelled: at 60 Mpx each full-size array counts.
  const { comps, labels } = components(background ? differsFrom(src, background) : alphaMask(src).data, w, h);
  const largest = comps.reduce((m, c) => Math.max(m, c.area), 0);
  const minArea = Math.max(1, largest * MIN_PIECE_SHARE);
  const made: ReturnType<typeof cutPiece>[] = [];
  let ignored = 0;
  let enclosed = 0;
  for (const c of [...comps].sort((p, q) => q.area - p.area)) {
    const at = firstPixel(c, labels, w);
    if (made.some((p) => inside(p.filled, p.box, at % w, Math.floor(at / w)))) {
      enclosed++;
      continue;
    }
    if (c.area < minArea) {
      ignored++;
      continue;
    }
    made.push(cutPiece(src, labels, c, background === null));
  }
  const pieces = readingOrder(made);
  const unchanged =
    background === null &&
    pieces.length === 1 &&
    ignored === 0 &&
    enclosed === 0 &&
    pieces[0]!.holes === 0 &&
    pieces[0]!.shown === shown;
  return {
    pieces: pieces.map(({ raster, area }) => ({ raster, area })),
    ignored,
    enclosed,
    background,
    unchanged,
  };
}

/**
 * The most common colour along the border, robust to JPEG noise: border pixels are binned at 4 bits a channel,
 * and the mean of the fullest bin is the colour (pieces touching the border take a minority of it).
 */
function borderColour(src: Raster): RGB {
  const { w, h, data } = src;
  const bins = new Map<number, { count: number; r: number; g: number; b: number }>();
  const add = (x: number, y: number) => {
    const i = (y * w + x) * 4;
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
    const bin = bins.get(key) ?? { count: 0, r: 0, g: 0, b: 0 };
    bin.count++;
    bin.r += r;
    bin.g += g;
    bin.b += b;
    bins.set(key, bin);
  };
  for (let x = 0; x < w; x++) {
    add(x, 0);
    if (h > 1) add(x, h - 1);
  }
  for (let y = 1; y < h - 1; y++) {
    add(0, y);
    if (w > 1) add(w - 1, y);
  }
  let best = { count: 0, r: 0, g: 0, b: 0 };
  for (const bin of bins.values()) if (bin.count > best.count) best = bin;
  const k = Math.max(1, best.count);
  return { r: Math.round(best.r / k), g: Math.round(best.g / k), b: Math.round(best.b / k) };
}

/** 1 where a pixel is at least BACKGROUND_DELTA_E from `paper`; each colour's verdict is worked out once. */
function differsFrom(src: Raster, paper: RGB): Uint8Array {
  const ref: Lab = rgbToLab(paper.r, paper.g, paper.b);
  const verdict = new Uint8Array(1 << 24); // 0 unknown, 1 paper, 2 drawing
  const m = new Uint8Array(src.w * src.h);
  const d = src.data;
  for (let i = 0; i < m.length; i++) {
    const key = (d[i * 4]! << 16) | (d[i * 4 + 1]! << 8) | d[i * 4 + 2]!;
    let v = verdict[key]!;
    if (v === 0) {
      v = deltaE76(rgbToLab(d[i * 4]!, d[i * 4 + 1]!, d[i * 4 + 2]!), ref) >= BACKGROUND_DELTA_E ? 2 : 1;
      verdict[key] = v;
    }
    m[i] = v - 1;
  }
  return m;
}

function firstPixel(c: Component, labels: Int32Array, w: number): number {
  for (let x = c.x0; x <= c.x1; x++) if (labels[c.y0 * w + x] === c.label) return c.y0 * w + x;
  return c.y0 * w + c.x0;
}

function inside(filled: Uint8Array, box: Rect, x: number, y: number): boolean {
  const u = x - box.x;
  const v = y - box.y;
  return u >= 0 && v >= 0 && u < box.w && v < box.h && filled[v * box.w + u] === 1;
}

/**
 * One component as a piece: its shape with every hole filled (what the outside cannot reach, moving 4-connected
 * around it: a thin diagonal outline still closes), its soft edge on a layer with transparency, and the source's
 * pixels there. A hole's pixels are made opaque (over white where the source is see-through: an outline drawn on
 * transparency), so the piece is one solid shape.
 */
function cutPiece(src: Raster, labels: Int32Array, c: Component, soft: boolean) {
  const pad = 1 + (soft ? EDGE_REACH : 0);
  const bx0 = c.x0 - pad;
  const by0 = c.y0 - pad;
  const bw = c.x1 - c.x0 + 1 + 2 * pad;
  const bh = c.y1 - c.y0 + 1 + 2 * pad;
  const sw = src.w;
  const sh = src.h;
  const alpha = (x: number, y: number) =>
    x < 0 || y < 0 || x >= sw || y >= sh ? 0 : src.data[(y * sw + x) * 4 + 3]!;
  // 0 unreached, 1 in the component, 2 outside, 3 soft edge.
  const state = new Uint8Array(bw * bh);
  for (let v = 0; v < bh; v++) {
    const y = by0 + v;
    if (y < 0 || y >= sh) continue;
    for (let u = 0; u < bw; u++) {
      const x = bx0 + u;
      if (x >= 0 && x < sw && labels[y * sw + x] === c.label) state[v * bw + u] = 1;
    }
  }
  const stack = new Int32Array(bw * bh);
  let sp = 0;
  const reach = (q: number) => {
    if (state[q] === 0) {
      state[q] = 2;
      stack[sp++] = q;
    }
  };
  for (let u = 0; u < bw; u++) {
    reach(u);
    reach((bh - 1) * bw + u);
  }
  for (let v = 0; v < bh; v++) {
    reach(v * bw);
    reach(v * bw + bw - 1);
  }
  while (sp > 0) {
    const p = stack[--sp]!;
    const u = p % bw;
    if (u > 0) reach(p - 1);
    if (u < bw - 1) reach(p + 1);
    if (p >= bw) reach(p - bw);
    if (p < (bh - 1) * bw) reach(p + bw);
  }
  // The soft edge: outside pixels with some alpha, within EDGE_REACH steps of the shape.
  if (soft) {
    for (let step = 0; step < EDGE_REACH; step++) {
      const grow: number[] = [];
      for (let v = 1; v < bh - 1; v++) {
        for (let u = 1; u < bw - 1; u++) {
          const p = v * bw + u;
          if (state[p] !== 2 || alpha(bx0 + u, by0 + v) === 0) continue;
          let near = false;
          for (let dv = -1; dv <= 1 && !near; dv++) {
            for (let du = -1; du <= 1; du++) {
              const s = state[p + dv * bw + du]!;
              if (s !== 2) {
                near = true;
                break;
              }
            }
          }
          if (near) grow.push(p);
        }
      }
      for (const p of grow) state[p] = 3;
    }
  }
  let x0 = bw;
  let y0 = bh;
  let x1 = -1;
  let y1 = -1;
  for (let v = 0; v < bh; v++) {
    for (let u = 0; u < bw; u++) {
      if (state[v * bw + u] === 2) continue;
      if (u < x0) x0 = u;
      if (u > x1) x1 = u;
      if (v < y0) y0 = v;
      y1 = v;
    }
  }
  const box = { x: bx0 + x0, y: by0 + y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
  const raster = blankRaster({ x: src.x + box.x, y: src.y + box.y, w: box.w, h: box.h });
  const filled = new Uint8Array(box.w * box.h);
  const out = raster.data;
  let area = 0;
  let holes = 0;
  let shown = 0;
  for (let v = 0; v < box.h; v++) {
    for (let u = 0; u < box.w; u++) {
      const s = state[(v + y0) * bw + u + x0]!;
      if (s === 2) continue;
      const x = box.x + u;
      const y = box.y + v;
      const i = (y * sw + x) * 4;
      const o = (v * box.w + u) * 4;
      const a = src.data[i + 3]!;
      if (s === 0 && a < 255) {
        // A hole's pixel: over white, opaque.
        const k = a / 255;
        for (let ch = 0; ch < 3; ch++) out[o + ch] = Math.round(src.data[i + ch]! * k + 255 * (1 - k));
        out[o + 3] = 255;
        holes++;
      } else {
        out[o] = src.data[i]!;
        out[o + 1] = src.data[i + 1]!;
        out[o + 2] = src.data[i + 2]!;
        out[o + 3] = a;
        if (s === 0 && soft) holes++;
      }
      if (a > 0) shown++;
      if (s !== 3) {
        filled[v * box.w + u] = 1;
        area++;
      }
    }
  }
  return { raster, area, filled, box, holes, shown };
}

/** Rows top to bottom (pieces sharing at least half the shorter one's height), left to right within a row. */
function readingOrder<T extends { box: Rect }>(pieces: readonly T[]): T[] {
  const overlap = (a0: number, a1: number, b0: number, b1: number) => Math.min(a1, b1) - Math.max(a0, b0);
  const rows: T[][] = [];
  for (const p of [...pieces].sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x)) {
    const row = rows.at(-1);
    const first = row?.[0];
    if (
      row &&
      first &&
      overlap(p.box.y, p.box.y + p.box.h, first.box.y, first.box.y + first.box.h) >=
        Math.min(p.box.h, first.box.h) / 2
    ) {
      row.push(p);
    } else {
      rows.push([p]);
    }
  }
  return rows.flatMap((row) => {
    // Pieces stacked in a column within the row (sharing half the narrower one's width) read top to bottom.
    const columns: T[][] = [];
    for (const p of [...row].sort((a, b) => a.box.x - b.box.x)) {
      const col = columns.find(
        (c) =>
          overlap(p.box.x, p.box.x + p.box.w, c[0]!.box.x, c[0]!.box.x + c[0]!.box.w) >=
          Math.min(p.box.w, c[0]!.box.w) / 2,
      );
      if (col) col.push(p);
      else columns.push([p]);
    }
    return columns.flatMap((c) => c.sort((a, b) => a.box.y - b.box.y));
  });
}

/** The longest side, in pixels, on which pieceSizedRegions counts a layer's regions. */
const REGION_PROXY_SIDE = 1024;

/**
 * How many separate regions of a piece layer's mask (1 = inside, `w` × `h`) are large enough to be pieces by
 * splitRaster's rule: two or more mean the layer holds several pieces.
 */
export function pieceSizedRegions(mask: Uint8Array, w: number, h: number): number {
  // Read on a proxy: identify_pieces asks this of every piece layer, and a 150-DPI marker's masks hold tens of
  // megapixels. A proxy pixel stands for 1.5 mm of a 150-DPI marker's width at most; pieces closer than that
  // (a rare marker) read as one region here, and split_pieces itself reads the full layer.
  const step = Math.max(w, h) / REGION_PROXY_SIDE;
  if (step > 1) {
    const pw = Math.max(1, Math.floor(w / step));
    const ph = Math.max(1, Math.floor(h / step));
    return pieceSizedRegions(resampleMask(mask, w, h, pw, ph), pw, ph);
  }
  const { comps } = components(mask, w, h);
  const largest = comps.reduce((m, c) => Math.max(m, c.area), 0);
  return comps.filter((c) => c.area >= largest * MIN_PIECE_SHARE).length;
}
