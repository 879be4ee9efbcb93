/**
 * The photo itself, as verify_pattern_result's reference: the analysed photo and the garment's own silhouette in
 * it (segmented again, not the extraction's reading of it), and both the photo and the result sampled on one
 * grid of fixed physical size, so a measure gives the same figure for the same result at any document DPI.
 */
import { decodeImage } from '../../engine/io/image-codec.js';
import type { Raster, Rect } from '../../engine/model.js';
import type { Lab } from '../color.js';
import { autocorrelate, nextPow2 } from '../fft.js';
import { erode, labOf, resampleMask, resizeRaster } from '../image.js';
import type { Extraction, Placement } from '../types.js';
import { levelPhoto } from './level.js';

/** The grid every measure works on: one cell per 1/25 inch (about 1 mm) of fabric. */
export const MEASURE_DPI = 25;
/** A cell counts when this share of its area is inside the piece (or the photo's garment). */
const CELL_FILL = 0.8;

export interface PhotoTruth {
  readonly photo: Raster;
  /** The garment in the photo, eroded off its outline (mixed pixels); the whole photo for a swatch. */
  readonly inside: Uint8Array;
  /**
   * The garment's silhouette, eroded as `inside`, where it is more than `inside`: a cut-out's alpha with holes
   * through the garment (segment). Its width is the garment's; its colours are not all the photo's.
   */
  readonly outline?: Uint8Array;
  readonly swatch: boolean;
}

/**
 * The silhouette analysePhoto segmented, per extraction. segment() is deterministic: verify segmenting the same
 * pixels again would find the same garment, so the result is kept rather than computed twice. Only the
 * silhouette is shared — every measure still reads the photo's pixels, never the extraction's reading of them.
 */
const segmented = new WeakMap<Extraction, PhotoTruth>();

export function keepSilhouette(ext: Extraction, truth: PhotoTruth): void {
  segmented.set(ext, truth);
}

/** The silhouette kept for `ext`, if any (to carry it with the extraction to another thread). */
export function keptSilhouette(ext: Extraction): PhotoTruth | null {
  return segmented.get(ext) ?? null;
}

export async function photoTruth(bytes: Buffer, ext: Extraction): Promise<PhotoTruth> {
  const kept = segmented.get(ext);
  if (kept) return kept;
  // Levelled and segmented as analysePhoto did it (the same deterministic steps), then at the extraction's size.
  const { raster, garment } = await levelPhoto((await decodeImage(bytes)).raster);
  const photo =
    raster.w !== ext.width || raster.h !== ext.height
      ? await resizeRaster(raster, ext.width, ext.height)
      : raster;
  const atSize = (m: Uint8Array) =>
    erode(
      garment.w === photo.w && garment.h === photo.h
        ? m
        : resampleMask(m, garment.w, garment.h, photo.w, photo.h),
      photo.w,
      photo.h,
      3,
    );
  return {
    photo,
    inside: atSize(garment.mask),
    ...(garment.silhouette ? { outline: atSize(garment.silhouette) } : {}),
    swatch: garment.swatch,
  };
}

/** Sums of R, G, B and of a mask over a raster region, for box means of any size in constant time. */
export class BoxSums {
  private readonly s: Float64Array;
  private readonly W: number;
  constructor(
    readonly rect: Rect,
    data: Uint8ClampedArray,
    dataW: number,
    dataX: number,
    dataY: number,
    inside: (x: number, y: number) => boolean,
  ) {
    const W = rect.w + 1;
    this.W = W;
    this.s = new Float64Array(W * (rect.h + 1) * 4);
    for (let y = 0; y < rect.h; y++) {
      const row = new Float64Array(4);
      for (let x = 0; x < rect.w; x++) {
        if (inside(x, y)) {
          const o = ((rect.y + y - dataY) * dataW + (rect.x + x - dataX)) * 4;
          row[0]! += data[o]!;
          row[1]! += data[o + 1]!;
          row[2]! += data[o + 2]!;
          row[3]! += 1;
        }
        const d = ((y + 1) * W + x + 1) * 4;
        const u = (y * W + x + 1) * 4;
        for (let k = 0; k < 4; k++) this.s[d + k] = this.s[u + k]! + row[k]!;
      }
    }
  }

  /** Mean colour over [x0, x1) × [y0, y1) (region coordinates, clipped), and the share of it inside. */
  mean(x0: number, y0: number, x1: number, y1: number): { lab: Lab; fill: number } | null {
    const a = Math.max(0, Math.round(x0));
    const b = Math.max(0, Math.round(y0));
    const c = Math.min(this.rect.w, Math.max(a + 1, Math.round(x1)));
    const d = Math.min(this.rect.h, Math.max(b + 1, Math.round(y1)));
    if (a >= c || b >= d) return null;
    const W = this.W;
    const v = [0, 0, 0, 0];
    for (let k = 0; k < 4; k++) {
      v[k] =
        this.s[(d * W + c) * 4 + k]! -
        this.s[(b * W + c) * 4 + k]! -
        this.s[(d * W + a) * 4 + k]! +
        this.s[(b * W + a) * 4 + k]!;
    }
    const area = (Math.round(x1) - Math.round(x0)) * (Math.round(y1) - Math.round(y0));
    if (v[3]! === 0) return { lab: { L: 0, a: 0, b: 0 }, fill: 0 };
    return { lab: labOf(v[0]! / v[3]!, v[1]! / v[3]!, v[2]! / v[3]!), fill: v[3]! / Math.max(1, area) };
  }
}

/** Lab values on a regular grid; `ok` marks the cells that hold fabric. */
export interface Grid {
  readonly w: number;
  readonly h: number;
  readonly L: Float32Array;
  readonly a: Float32Array;
  readonly b: Float32Array;
  readonly ok: Uint8Array;
}

/** A grid of `w × h` cells, none of them fabric yet. */
function emptyGrid(w: number, h: number): Grid {
  const n = w * h;
  return {
    w,
    h,
    L: new Float32Array(n),
    a: new Float32Array(n),
    b: new Float32Array(n),
    ok: new Uint8Array(n),
  };
}

/**
 * How many whole cells `step` px wide fit in `span` px (at least one). A grid counted from a piece's right edge
 * starts at span − k·step, and (span − (span − k·step)) / step comes out a hair under k in floating point: floored,
 * the mirror's grid lost a cell, and symmetry compared each cell with its neighbour's mirror (ΔE 5 on a correctly
 * mirrored plaid, depending on the document's DPI).
 */
function wholeCells(span: number, step: number): number {
  return Math.max(1, Math.floor(span / step + 1e-9));
}

/** Samples `sums` on cells `step` px wide starting at region (x0, y0). */
export function gridOf(sums: BoxSums, step: number, x0 = 0, y0 = 0, w?: number, h?: number): Grid {
  const gw = w ?? wholeCells(sums.rect.w - x0, step);
  const gh = h ?? wholeCells(sums.rect.h - y0, step);
  const g = emptyGrid(gw, gh);
  for (let j = 0; j < gh; j++) {
    for (let i = 0; i < gw; i++) {
      const m = sums.mean(x0 + i * step, y0 + j * step, x0 + (i + 1) * step, y0 + (j + 1) * step);
      if (!m || m.fill < CELL_FILL) continue;
      const k = j * gw + i;
      g.L[k] = m.lab.L;
      g.a[k] = m.lab.a;
      g.b[k] = m.lab.b;
      g.ok[k] = 1;
    }
  }
  return g;
}

/** A piece's mask (1 inside) over its bounds `x, y, w` in canvas pixels. */
export interface PieceMask {
  readonly data: Uint8Array;
  readonly x: number;
  readonly y: number;
  readonly w: number;
}

/**
 * The same grid as gridOf over a BoxSums of `rect`, made in one pass over the pixels: each pixel is added to the
 * cell it falls in (cells are contiguous once they are at least a pixel wide), so a print-resolution piece needs
 * no per-pixel prefix sums (32 bytes a pixel). Cell (i, j) spans [round(x0 + i·step), round(x0 + (i+1)·step))
 * in region coordinates, clipped to the region, and counts when CELL_FILL of its unclipped area is inside.
 */
export function binnedGrid(
  rect: Rect,
  data: Uint8ClampedArray,
  dataW: number,
  mask: PieceMask,
  step: number,
  x0 = 0,
  y0 = 0,
): Grid {
  if (step < 1) {
    const inside = (x: number, y: number) =>
      mask.data[(rect.y - mask.y + y) * mask.w + (rect.x - mask.x + x)] === 1;
    return gridOf(new BoxSums(rect, data, dataW, 0, 0, inside), step, x0, y0);
  }
  const gw = wholeCells(rect.w - x0, step);
  const gh = wholeCells(rect.h - y0, step);
  // Each cell's px span [start, end) along an axis; a later cell starts where the one before it ends at most.
  const cellOf = (n: number, origin: number, cells: number) => {
    const start = new Int32Array(cells);
    const end = new Int32Array(cells);
    const area = new Float64Array(cells);
    for (let i = 0; i < cells; i++) {
      const a = Math.max(0, Math.round(origin + i * step));
      start[i] = a;
      end[i] = Math.min(n, Math.max(a + 1, Math.round(origin + (i + 1) * step)));
      area[i] = Math.round(origin + (i + 1) * step) - Math.round(origin + i * step);
    }
    // A px in two spans (a span forced a px wide past the next one's start) belongs to the later cell.
    for (let i = 0; i + 1 < cells; i++) end[i] = Math.min(end[i]!, start[i + 1]!);
    return { start, end, area };
  };
  const cols = cellOf(rect.w, x0, gw);
  const rows = cellOf(rect.h, y0, gh);
  const acc = new Float64Array(gw * gh * 4);
  // Row by row and cell by cell, each cell's row summed in registers: every px of a print-resolution piece is
  // read once (verify's largest single cost on a production marker), so no per-px cell lookup.
  for (let j = 0; j < gh; j++) {
    for (let y = rows.start[j]!; y < rows.end[j]!; y++) {
      const row = (rect.y + y) * dataW + rect.x;
      const m = (rect.y - mask.y + y) * mask.w + rect.x - mask.x;
      for (let i = 0; i < gw; i++) {
        let r = 0;
        let g = 0;
        let b = 0;
        let n = 0;
        for (let x = cols.start[i]!, e = cols.end[i]!; x < e; x++) {
          if (mask.data[m + x] !== 1) continue;
          const o = (row + x) * 4;
          r += data[o]!;
          g += data[o + 1]!;
          b += data[o + 2]!;
          n++;
        }
        if (n === 0) continue;
        const k = (j * gw + i) * 4;
        acc[k]! += r;
        acc[k + 1]! += g;
        acc[k + 2]! += b;
        acc[k + 3]! += n;
      }
    }
  }
  const g = emptyGrid(gw, gh);
  for (let j = 0; j < gh; j++) {
    for (let i = 0; i < gw; i++) {
      const k = j * gw + i;
      const n = acc[k * 4 + 3]!;
      if (n === 0 || n / Math.max(1, cols.area[i]! * rows.area[j]!) < CELL_FILL) continue;
      const lab = labOf(acc[k * 4]! / n, acc[k * 4 + 1]! / n, acc[k * 4 + 2]! / n);
      g.L[k] = lab.L;
      g.a[k] = lab.a;
      g.b[k] = lab.b;
      g.ok[k] = 1;
    }
  }
  return g;
}

/**
 * The measuring grid's resolution: MEASURE_DPI, or the photo's own resolution on the fabric when that is
 * coarser (finer cells would only interpolate the photo). Both are physical, so neither depends on the
 * document's DPI (the placement's scale, doc px per photo px, grows with it).
 */
export function measureDpi(pl: Placement, dpi: number): number {
  return Math.min(MEASURE_DPI, dpi / pl.scale);
}

/** The photo's garment on the measuring grid: cells `step` document px wide, at the placement's scale. */
export function photoGrid(truth: PhotoTruth, pl: Placement, step: number): Grid {
  const { photo, inside } = truth;
  const sums = new BoxSums(
    { x: 0, y: 0, w: photo.w, h: photo.h },
    photo.data,
    photo.w,
    0,
    0,
    (x, y) => inside[y * photo.w + x] === 1,
  );
  return gridOf(sums, step / pl.scale);
}

/** Luminance autocorrelation for lags in [-R, R]², normalised by the variance (1 at lag 0); null when flat. */
export function autocorrelation(g: Grid, R: number): Float64Array | null {
  let n = 0;
  let s = 0;
  for (let i = 0; i < g.ok.length; i++) {
    if (!g.ok[i]) continue;
    n++;
    s += g.L[i]!;
  }
  if (n < 16) return null;
  const mean = s / n;
  const v = new Float64Array(g.L.length);
  let variance = 0;
  for (let i = 0; i < v.length; i++) {
    if (!g.ok[i]) continue;
    v[i] = g.L[i]! - mean;
    variance += v[i]! ** 2;
  }
  variance /= n;
  if (variance < 4) return null;
  // Σ v(p)·v(p + d) and the number of fabric pairs at every lag, through the FFT: every origin counts.
  const okV = Float64Array.from(g.ok);
  const nx = nextPow2(g.w + R);
  const ny = nextPow2(g.h + R);
  const A = autocorrelate(v, g.w, g.h, nx, ny, R + 1);
  const M = autocorrelate(okV, g.w, g.h, nx, ny, R + 1);
  const side = 2 * R + 1;
  const out = new Float64Array(side * side);
  for (let dy = -R; dy <= R; dy++) {
    for (let dx = -R; dx <= R; dx++) {
      // A(dx, dy) = A(−dx, −dy): the rows below zero are read mirrored.
      const k = dy >= 0 ? dy * nx + ((dx + nx) % nx) : -dy * nx + ((nx - dx) % nx);
      const c = Math.round(M[k]!);
      out[(dy + R) * side + dx + R] = c > 8 ? A[k]! / c / variance : 0;
    }
  }
  return out;
}

/** The same autocorrelation seen in a mirror (left ↔ right). */
export function mirrored(acf: Float64Array, R: number): Float64Array {
  const side = 2 * R + 1;
  const out = new Float64Array(acf.length);
  for (let y = 0; y < side; y++)
    for (let x = 0; x < side; x++) out[y * side + x] = acf[y * side + side - 1 - x]!;
  return out;
}

/** Pearson correlation of two equal-length series (lag 0 excluded by the caller if wanted). */
export function pearson(p: ArrayLike<number>, q: ArrayLike<number>, use?: (i: number) => boolean): number {
  let n = 0;
  let sp = 0;
  let sq = 0;
  for (let i = 0; i < p.length; i++) {
    if (use && !use(i)) continue;
    n++;
    sp += p[i]!;
    sq += q[i]!;
  }
  if (n < 3) return 0;
  const mp = sp / n;
  const mq = sq / n;
  let pq = 0;
  let pp = 0;
  let qq = 0;
  for (let i = 0; i < p.length; i++) {
    if (use && !use(i)) continue;
    pq += (p[i]! - mp) * (q[i]! - mq);
    pp += (p[i]! - mp) ** 2;
    qq += (q[i]! - mq) ** 2;
  }
  return pp > 0 && qq > 0 ? pq / Math.sqrt(pp * qq) : 0;
}
