/**
 * The photo itself, as verify_pattern_result's reference: the analysed photo and the garment's own silhouette in
 * it (segmented again, not the extraction's reading of it), and both the photo and the result sampled on one
 * grid of fixed physical size, so a measure gives the same figure for the same result at any document DPI.
 */
import { decodeImage } from '../../engine/io/image-codec.js';
import type { Raster, Rect } from '../../engine/model.js';
import type { Lab } from '../color.js';
import { erode, labOf, labPlanes, resizeRaster } from '../image.js';
import type { Extraction, Placement } from '../types.js';
import { segment } from './segment.js';

/** The grid every measure works on: one cell per 1/25 inch (about 1 mm) of fabric. */
export const MEASURE_DPI = 25;
/** A cell counts when this share of its area is inside the piece (or the photo's garment). */
const CELL_FILL = 0.8;

export interface PhotoTruth {
  readonly photo: Raster;
  /** The garment in the photo, eroded off its outline (mixed pixels); the whole photo for a swatch. */
  readonly inside: Uint8Array;
  readonly swatch: boolean;
}

export async function photoTruth(bytes: Buffer, ext: Extraction): Promise<PhotoTruth> {
  let photo = (await decodeImage(bytes)).raster;
  if (photo.w !== ext.width || photo.h !== ext.height)
    photo = await resizeRaster(photo, ext.width, ext.height);
  const seg = segment(photo, labPlanes(photo));
  return { photo, inside: erode(seg.mask, photo.w, photo.h, 3), swatch: seg.swatch };
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

/** Samples `sums` on cells `step` px wide starting at region (x0, y0). */
export function gridOf(sums: BoxSums, step: number, x0 = 0, y0 = 0, w?: number, h?: number): Grid {
  const gw = w ?? Math.max(1, Math.floor((sums.rect.w - x0) / step));
  const gh = h ?? Math.max(1, Math.floor((sums.rect.h - y0) / step));
  const g: Grid = {
    w: gw,
    h: gh,
    L: new Float32Array(gw * gh),
    a: new Float32Array(gw * gh),
    b: new Float32Array(gw * gh),
    ok: new Uint8Array(gw * gh),
  };
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
  const side = 2 * R + 1;
  const out = new Float64Array(side * side);
  // A life-size piece has some 10⁵ cells: every lag is still measured, from an even subset of origins.
  const stride = Math.max(1, Math.ceil(Math.sqrt(n / 40_000)));
  for (let dy = -R; dy <= R; dy++) {
    for (let dx = -R; dx <= R; dx++) {
      let sum = 0;
      let c = 0;
      for (let y = Math.max(0, -dy); y < Math.min(g.h, g.h - dy); y += stride) {
        for (let x = Math.max(0, -dx); x < Math.min(g.w, g.w - dx); x += stride) {
          const i = y * g.w + x;
          const j = (y + dy) * g.w + x + dx;
          if (!g.ok[i] || !g.ok[j]) continue;
          sum += v[i]! * v[j]!;
          c++;
        }
      }
      out[(dy + R) * side + dx + R] = c > 8 ? sum / c / variance : 0;
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
