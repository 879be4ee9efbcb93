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
  const strong = peaks.filter((p) => p.rho >= 0.75 * best).sort((p, q) => p.len - q.len || q.rho - p.rho);
  const v1 = strong[0]!;
  const v2 = strong.find((p) => Math.abs(p.dx * v1.dy - p.dy * v1.dx) >= 0.2 * p.len * v1.len);
  if (!v2) return null;
  return latticeFrom([v1.dx, v1.dy], [v2.dx, v2.dy], (v1.rho + v2.rho) / 2, cnt);
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
  return latticeFrom(refine(lat.v1), refine(lat.v2), lat.confidence, maskArea) ?? lat;
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
