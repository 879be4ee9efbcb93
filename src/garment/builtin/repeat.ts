/**
 * Repeat detection: masked normalised autocorrelation (Padfield 2012) computed with the FFT, a 2-D lattice
 * search over its peaks (block, half-drop, half-brick), and the repeat tile cut as the per-pixel median over
 * every repeat in the garment (which removes noise, folds and most shading).
 */
import type { Raster } from '../../engine/model.js';
import { autocorrelate, nextPow2 } from '../fft.js';
import type { Lattice } from '../types.js';

const MIN_LAG = 6;

interface Peak {
  dx: number;
  dy: number;
  rho: number;
  len: number;
}

/**
 * The lattice of the luminance `lum` (w × h) inside `mask`, or null when no repeat is strong enough. Lags reach
 * half the mask's extent, so a repeat must show at least twice across the garment (three times to be trusted).
 */
export function detectLattice(lum: Float64Array, mask: Uint8Array, w: number, h: number): Lattice | null {
  let sum = 0;
  let cnt = 0;
  for (let i = 0; i < lum.length; i++) {
    if (mask[i]) {
      sum += lum[i]!;
      cnt++;
    }
  }
  if (cnt < 400) return null;
  const mean = sum / cnt;
  const g = new Float64Array(w * h);
  const m = new Float64Array(w * h);
  for (let i = 0; i < g.length; i++) {
    if (mask[i]) {
      g[i] = lum[i]! - mean;
      m[i] = 1;
    }
  }
  const maxX = Math.floor(w / 2);
  const maxY = Math.floor(h / 2);
  const n = nextPow2(Math.max(w + maxX, h + maxY));
  const A = autocorrelate(g, w, h, n);
  const M = autocorrelate(m, w, h, n);
  const variance = A[0]! / M[0]!;
  if (!(variance > 1)) return null; // flat: nothing repeats
  const minOverlap = cnt * 0.2;
  const W = 2 * maxX + 1;
  const H = maxY + 1;
  const rho = new Float64Array(W * H).fill(Number.NaN);
  for (let dy = 0; dy <= maxY; dy++) {
    for (let dx = -maxX; dx <= maxX; dx++) {
      const k = ((dy + n) % n) * n + ((dx + n) % n);
      const overlap = M[k]!;
      if (overlap < minOverlap) continue;
      rho[dy * W + dx + maxX] = A[k]! / overlap / variance;
    }
  }
  const at = (dx: number, dy: number): number => {
    if (dy < 0) {
      dx = -dx;
      dy = -dy;
    }
    if (dx < -maxX || dx > maxX || dy > maxY) return Number.NaN;
    return rho[dy * W + dx + maxX]!;
  };
  const peaks: Peak[] = [];
  for (let dy = 0; dy <= maxY; dy++) {
    for (let dx = dy === 0 ? 1 : -maxX; dx <= maxX; dx++) {
      const v = at(dx, dy);
      if (!(v > 0)) continue;
      const len = Math.hypot(dx, dy);
      if (len < MIN_LAG) continue;
      let isMax = true;
      for (let j = -1; j <= 1 && isMax; j++) {
        for (let i = -1; i <= 1; i++) {
          if (i === 0 && j === 0) continue;
          const u = at(dx + i, dy + j);
          if (u > v || (u === v && (j < 0 || (j === 0 && i < 0)))) {
            isMax = false;
            break;
          }
        }
      }
      if (isMax) peaks.push({ dx, dy, rho: v, len });
    }
  }
  if (peaks.length === 0) return null;
  const best = Math.max(...peaks.map((p) => p.rho));
  if (best < 0.3) return null;
  const strong = peaks
    .filter((p) => p.rho >= 0.75 * best && dominates(p, at))
    .sort((p, q) => p.len - q.len || q.rho - p.rho);
  // A strong lag is a repeat only when it is about as exact as the best-correlated lags (see fullPeriod).
  const msd = shiftedMsd(lum, mask, w, h);
  const stripes = stripeLattice(at, maxX, maxY, best, msd, cnt);
  if (stripes) return stripes;
  const ref = Math.min(
    ...[...strong]
      .sort((p, q) => q.rho - p.rho)
      .slice(0, 5)
      .map((p) => msd(p.dx, p.dy)),
  );
  const exact = (p: Peak) => INEXACT_RATIO * (msd(p.dx, p.dy) + MSD_FLOOR) <= ref + MSD_FLOOR;
  const s1 = strong.find(exact);
  if (!s1) return null;
  const s2 = strong.find((p) => Math.abs(p.dx * s1.dy - p.dy * s1.dx) >= 0.2 * p.len * s1.len && exact(p));
  if (!s2) return null;
  const v1 = fullPeriod(s1, at, msd);
  const v2 = fullPeriod(s2, at, msd);
  const lat = latticeFrom([v1.dx, v1.dy], [v2.dx, v2.dy], (v1.rho + v2.rho) / 2, cnt);
  if (!lat) return null;
  // Report the shortest lattice the autocorrelation alone would have taken, when it was rejected.
  const t1 = strong[0]!;
  const t2 = strong.find((p) => Math.abs(p.dx * t1.dy - p.dy * t1.dx) >= 0.2 * p.len * t1.len);
  const shorter = t2 ? latticeFrom([t1.dx, t1.dy], [t2.dx, t2.dy], (t1.rho + t2.rho) / 2, cnt) : null;
  return shorter && shorter.tileW * shorter.tileH < lat.tileW * lat.tileH
    ? { ...lat, shorter: { v1: shorter.v1, v2: shorter.v2, confidence: shorter.confidence } }
    : lat;
}

/**
 * Stripes along an axis repeat under any shift along them, so their autocorrelation is a ridge, not peaks, and
 * the peak search would return a skewed lattice with a tile hundreds of px long. Horizontal stripes: every
 * horizontal lag correlates as well as the best and leaves only noise; their period is the first vertical lag
 * that does too, and the tile is that period square (likewise for vertical stripes).
 */
function stripeLattice(
  at: (dx: number, dy: number) => number,
  maxX: number,
  maxY: number,
  best: number,
  msd: (dx: number, dy: number) => number,
  maskArea: number,
): Lattice | null {
  const ref = Math.min(msd(MIN_LAG, 0), msd(0, MIN_LAG));
  const flat = (dx: number, dy: number) => at(dx, dy) >= best - 0.05 && msd(dx, dy) <= 2 * (ref + MSD_FLOOR);
  for (const [along, across] of [
    [
      [1, 0],
      [0, 1],
    ],
    [
      [0, 1],
      [1, 0],
    ],
  ] as const) {
    const reach = Math.floor((along[0] ? maxX : maxY) / 2);
    let ridge = reach >= MIN_LAG;
    for (let k = MIN_LAG; k <= reach && ridge; k += MIN_LAG) ridge = flat(along[0] * k, along[1] * k);
    if (!ridge) continue;
    const limit = across[0] ? maxX : maxY;
    for (let k = MIN_LAG; k <= limit; k++) {
      const dx = across[0] * k;
      const dy = across[1] * k;
      if (!flat(dx, dy)) continue;
      // The first lag that repeats is a peak's shoulder when the stripes are not whole px: take the best nearby.
      let p = k;
      while (
        p + 1 <= limit &&
        at(across[0] * (p + 1), across[1] * (p + 1)) > at(across[0] * p, across[1] * p)
      )
        p++;
      return latticeFrom(
        [along[0] * p, along[1] * p],
        [across[0] * p, across[1] * p],
        at(across[0] * p, across[1] * p),
        maskArea,
      );
    }
  }
  return null;
}

/**
 * Whether no lag within MIN_LAG − 1 px (in x and y) correlates more than `p`. Two points of one lattice lie at
 * least MIN_LAG apart, so this keeps every lattice point and drops the side peaks a fine texture (a weave)
 * raises around the real repeat, which would otherwise pass for a short lattice vector.
 */
function dominates(p: Peak, at: (dx: number, dy: number) => number): boolean {
  const r = MIN_LAG - 1;
  for (let j = -r; j <= r; j++) {
    for (let i = -r; i <= r; i++) if ((i || j) && at(p.dx + i, p.dy + j) > p.rho) return false;
  }
  return true;
}

/** A multiple of a lag must leave under this share of the lag's own squared difference to replace it. */
const INEXACT_RATIO = 0.6;
/** Added to every squared difference before comparing: 8-bit rounding, so exact renders compare as equal. */
const MSD_FLOOR = 2;

/**
 * The full period along `v`. The autocorrelation cannot tell an exact repeat from a shorter lag that only nearly
 * repeats (a plaid's three similar sub-blocks, a large floral's fine weave): both are strong peaks, and its
 * normalisation wobbles by a few hundredths. The mean squared difference between the garment and itself
 * shifted can: at an exact repeat only noise is left, so when a multiple k·v (k ≥ 2, read at its best
 * autocorrelation lag within k/2 px, as v is rounded to whole px) leaves clearly less than v does, v was not
 * the repeat, and the smallest multiple within 15 % of the best takes its place.
 */
function fullPeriod(
  v: Peak,
  at: (dx: number, dy: number) => number,
  msd: (dx: number, dy: number) => number,
): Peak {
  const found: { p: Peak; d: number }[] = [];
  for (let k = 2; k <= 16; k++) {
    const r = Math.ceil(k / 2);
    let near: Peak | null = null;
    for (let j = -r; j <= r; j++) {
      for (let i = -r; i <= r; i++) {
        const dx = v.dx * k + i;
        const dy = v.dy * k + j;
        const rho = at(dx, dy);
        if (rho > (near?.rho ?? Number.NEGATIVE_INFINITY)) near = { dx, dy, rho, len: Math.hypot(dx, dy) };
      }
    }
    if (!near) break; // beyond the lags measured
    found.push({ p: near, d: msd(near.dx, near.dy) });
  }
  if (found.length === 0) return v;
  const least = Math.min(...found.map((f) => f.d));
  if (!(least + MSD_FLOOR < INEXACT_RATIO * (msd(v.dx, v.dy) + MSD_FLOOR))) return v;
  return found.find((f) => f.d <= least * 1.15)!.p;
}

/** Side of the cells inside which the shifted difference is taken about its own mean (shading drifts slower). */
const DRIFT_CELL = 24;
/** Share of cells, the most different, left out of the shifted difference. */
const OUTLIER_CELLS = 0.15;

/**
 * Mean squared difference of `lum` inside `mask` with itself shifted by (dx, dy), on at most ~60k samples, each
 * taken about the mean difference of its DRIFT_CELL-px cell: a fold or a light falloff shifts the difference
 * smoothly, more at longer lags, and would otherwise outweigh the print's own difference.
 */
function shiftedMsd(lum: Float64Array, mask: Uint8Array, w: number, h: number) {
  const step = Math.max(1, Math.floor(Math.sqrt((w * h) / 60_000)));
  const cw = Math.ceil(w / DRIFT_CELL);
  const cells = cw * Math.ceil(h / DRIFT_CELL);
  const sum = new Float64Array(cells);
  const sq = new Float64Array(cells);
  const count = new Int32Array(cells);
  const seen = new Map<number, number>();
  return (dx: number, dy: number): number => {
    const key = dy * 65536 + dx;
    const kept = seen.get(key);
    if (kept !== undefined) return kept;
    sum.fill(0);
    sq.fill(0);
    count.fill(0);
    for (let y = Math.max(0, -dy); y < Math.min(h, h - dy); y += step) {
      const row = Math.floor(y / DRIFT_CELL) * cw;
      for (let x = Math.max(0, -dx); x < Math.min(w, w - dx); x += step) {
        const i = y * w + x;
        const j = i + dy * w + dx;
        if (!mask[i] || !mask[j]) continue;
        const d = lum[i]! - lum[j]!;
        const c = row + Math.floor(x / DRIFT_CELL);
        sum[c] = sum[c]! + d;
        sq[c] = sq[c]! + d * d;
        count[c]!++;
      }
    }
    const per: { v: number; n: number }[] = [];
    for (let c = 0; c < cells; c++) {
      if (count[c]! < 2) continue;
      per.push({ v: (sq[c]! - sum[c]! ** 2 / count[c]!) / count[c]!, n: count[c]! });
    }
    // Without the worst cells: a placed motif differs from whatever a shift brings onto it, at any lag.
    per.sort((p, q) => p.v - q.v);
    let s = 0;
    let n = 0;
    for (const c of per.slice(0, Math.ceil(per.length * (1 - OUTLIER_CELLS)))) {
      s += c.v * c.n;
      n += c.n;
    }
    const out = n > 50 ? s / n : Number.POSITIVE_INFINITY;
    seen.set(key, out);
    return out;
  };
}

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

/** A lattice from two basis vectors: Lagrange-reduced, with its rectangular super-tile and layout name. */
export function latticeFrom(
  a: readonly [number, number],
  b: readonly [number, number],
  confidence: number,
  maskArea: number,
): Lattice | null {
  let u: [number, number] = [a[0], a[1]];
  let v: [number, number] = [b[0], b[1]];
  for (let k = 0; k < 20; k++) {
    if (u[0] ** 2 + u[1] ** 2 > v[0] ** 2 + v[1] ** 2) [u, v] = [v, u];
    const uu = u[0] ** 2 + u[1] ** 2;
    const q = Math.round((u[0] * v[0] + u[1] * v[1]) / uu);
    if (q === 0) break;
    v = [v[0] - q * u[0], v[1] - q * u[1]];
  }
  const det = u[0] * v[1] - u[1] * v[0];
  if (det === 0) return null;
  // Shorter than the smallest lag searched: a noise texture, not a repeat.
  if (Math.hypot(u[0], u[1]) < MIN_LAG || Math.hypot(v[0], v[1]) < MIN_LAG) return null;
  const tileW = Math.abs(det) / gcd(u[1], v[1]);
  const tileH = Math.abs(det) / gcd(u[0], v[0]);
  if (tileW > 1024 || tileH > 1024) return null;
  // Canonical orientation: vectors pointing down (or right when horizontal).
  const canon = (p: [number, number]): [number, number] =>
    p[1] < 0 || (p[1] === 0 && p[0] < 0) ? [-p[0], -p[1]] : p;
  u = canon(u);
  v = canon(v);
  const layout = layoutName(u, v, tileW, tileH, Math.abs(det));
  return {
    v1: u,
    v2: v,
    confidence: Math.round(Math.min(1, confidence) * 1000) / 1000,
    tileW,
    tileH,
    repeats: Math.round((maskArea / Math.abs(det)) * 10) / 10,
    layout,
  };
}

function layoutName(u: number[], v: number[], tw: number, th: number, det: number): string {
  if (tw * th === det) return 'block';
  if (tw * th === 2 * det) {
    // Half-drop: columns of height th shifted by th/2, so (0, th) is a short lattice vector; half-brick: rows.
    const vecs = [u, v, [u[0]! + v[0]!, u[1]! + v[1]!], [u[0]! - v[0]!, u[1]! - v[1]!]];
    if (vecs.some((p) => p[0] === 0 && Math.abs(p[1]!) === th)) return 'half_drop';
    if (vecs.some((p) => p[1] === 0 && Math.abs(p[0]!) === tw)) return 'half_brick';
  }
  return 'lattice';
}

/**
 * Refines a lattice found at a coarser scale: each basis vector (already multiplied up) is searched ±`radius`
 * px for the smallest mean absolute luminance difference between the garment and itself shifted.
 */
export function refineLattice(
  lat: Lattice,
  lum: Float64Array,
  mask: Uint8Array,
  w: number,
  h: number,
  radius: number,
  maskArea: number,
): Lattice {
  const mad = (dx: number, dy: number): number => {
    let s = 0;
    let c = 0;
    const step = Math.max(1, Math.floor(Math.sqrt((w * h) / 60_000)));
    for (let y = 0; y < h; y += step) {
      const y2 = y + dy;
      if (y2 < 0 || y2 >= h) continue;
      for (let x = 0; x < w; x += step) {
        const x2 = x + dx;
        if (x2 < 0 || x2 >= w) continue;
        const i = y * w + x;
        const j = y2 * w + x2;
        if (mask[i] && mask[j]) {
          s += Math.abs(lum[i]! - lum[j]!);
          c++;
        }
      }
    }
    return c > 50 ? s / c : Number.POSITIVE_INFINITY;
  };
  const refine = (v: readonly [number, number]): [number, number] => {
    let best: [number, number] = [v[0], v[1]];
    let bd = Number.POSITIVE_INFINITY;
    for (let j = -radius; j <= radius; j++) {
      for (let i = -radius; i <= radius; i++) {
        const d = mad(v[0] + i, v[1] + j);
        if (d < bd) {
          bd = d;
          best = [v[0] + i, v[1] + j];
        }
      }
    }
    return best;
  };
  const refined = latticeFrom(refine(lat.v1), refine(lat.v2), lat.confidence, maskArea);
  return refined ? { ...refined, ...(lat.shorter ? { shorter: lat.shorter } : {}) } : lat;
}

/** The lattice vectors inside the super-tile: the offsets under which one tile position repeats within it. */
function cosets(lat: Lattice): [number, number][] {
  const want = (lat.tileW * lat.tileH) / Math.abs(lat.v1[0] * lat.v2[1] - lat.v1[1] * lat.v2[0]);
  const seen = new Map<string, [number, number]>();
  for (let r = 2; r <= 32 && seen.size < want; r *= 2) {
    for (let i = -r; i <= r; i++) {
      for (let j = -r; j <= r; j++) {
        const x = (((i * lat.v1[0] + j * lat.v2[0]) % lat.tileW) + lat.tileW) % lat.tileW;
        const y = (((i * lat.v1[1] + j * lat.v2[1]) % lat.tileH) + lat.tileH) % lat.tileH;
        seen.set(`${x},${y}`, [x, y]);
      }
    }
  }
  return [...seen.values()];
}

/**
 * The repeat tile (tileW × tileH, opaque) whose pixel (u, v) is the per-channel median of every garment pixel
 * at photo position (u, v) + a lattice vector — photo origin is the tile origin.
 */
export function medianTile(photo: Raster, mask: Uint8Array, lat: Lattice): Raster {
  const { tileW: W, tileH: H } = lat;
  const offsets = cosets(lat);
  const counts = new Int32Array(W * H);
  const pos = (x: number, y: number, o: [number, number]) =>
    ((((y - o[1]) % H) + H) % H) * W + ((((x - o[0]) % W) + W) % W);
  for (let y = 0; y < photo.h; y++) {
    for (let x = 0; x < photo.w; x++) {
      if (!mask[y * photo.w + x]) continue;
      for (const o of offsets) counts[pos(x, y, o)]!++;
    }
  }
  const start = new Int32Array(W * H + 1);
  for (let i = 0; i < W * H; i++) start[i + 1] = start[i]! + counts[i]!;
  const fill = start.slice(0, W * H);
  const total = start[W * H]!;
  const vals = [new Uint8Array(total), new Uint8Array(total), new Uint8Array(total)];
  for (let y = 0; y < photo.h; y++) {
    for (let x = 0; x < photo.w; x++) {
      const i = y * photo.w + x;
      if (!mask[i]) continue;
      for (const o of offsets) {
        const k = fill[pos(x, y, o)]!++;
        for (let c = 0; c < 3; c++) vals[c]![k] = photo.data[i * 4 + c]!;
      }
    }
  }
  const out: Raster = { x: 0, y: 0, w: W, h: H, data: new Uint8ClampedArray(W * H * 4) };
  const hist = new Int32Array(256);
  for (let p = 0; p < W * H; p++) {
    const s = start[p]!;
    const e = start[p + 1]!;
    for (let c = 0; c < 3; c++) {
      let v = 128;
      if (e > s) {
        hist.fill(0);
        const arr = vals[c]!;
        for (let k = s; k < e; k++) hist[arr[k]!]!++;
        const half = (e - s) / 2;
        let acc = 0;
        for (v = 0; v < 255; v++) {
          acc += hist[v]!;
          if (acc > half) break;
        }
      }
      out.data[p * 4 + c] = v;
    }
    out.data[p * 4 + 3] = 255;
  }
  return out;
}
