/**
 * One-channel float planes for layer effects: an exact Euclidean distance transform (for strokes and spread,
 * where a square structuring element would give square corners) and a Gaussian blur approximated by three
 * box blurs (for shadows).
 */

/** Stand-in for infinity that keeps the parabola arithmetic finite. */
const FAR = 1e20;

/**
 * Distance from each pixel centre of a `w × h` plane to the nearest pixel where `feature` is true
 * (0 on feature pixels; very large when there is none). Felzenszwalb & Huttenlocher's linear-time
 * transform: squared distances along columns, then along rows.
 */
export function distanceTransform(w: number, h: number, feature: (i: number) => boolean): Float32Array {
  // Float32 halves the memory of a large layer's transform; only short distances matter to the effects.
  const d = new Float32Array(w * h);
  for (let i = 0; i < d.length; i++) d[i] = feature(i) ? 0 : FAR;
  const n = Math.max(w, h);
  const f = new Float64Array(n);
  const out = new Float64Array(n);
  const v = new Int32Array(n);
  const z = new Float64Array(n + 1);
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) f[y] = d[y * w + x]!;
    transform1d(f, h, out, v, z);
    for (let y = 0; y < h; y++) d[y * w + x] = out[y]!;
  }
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) f[x] = d[row + x]!;
    transform1d(f, w, out, v, z);
    for (let x = 0; x < w; x++) d[row + x] = Math.sqrt(out[x]!);
  }
  return d;
}

/** The lower envelope of the parabolas (q − p)² + f(p), sampled at every q. */
function transform1d(f: Float64Array, n: number, out: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -FAR;
  z[1] = FAR;
  for (let q = 1; q < n; q++) {
    const fq = f[q]! + q * q;
    let p = v[k]!;
    let s = (fq - (f[p]! + p * p)) / (2 * (q - p));
    while (s <= z[k]!) {
      k--;
      p = v[k]!;
      s = (fq - (f[p]! + p * p)) / (2 * (q - p));
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = FAR;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1]! < q) k++;
    const p = v[k]!;
    out[q] = (q - p) * (q - p) + f[p]!;
  }
}

/** Radii of the three box blurs whose succession best approximates a Gaussian of `sigma` (Kutskir). */
export function gaussBoxRadii(sigma: number): [number, number, number] {
  if (!(sigma > 0)) return [0, 0, 0];
  const n = 3;
  const ideal = Math.sqrt((12 * sigma * sigma) / n + 1);
  let wl = Math.floor(ideal);
  if (wl % 2 === 0) wl--;
  const wu = wl + 2;
  const m = Math.round((12 * sigma * sigma - n * wl * wl - 4 * n * wl - 3 * n) / (-4 * wl - 4));
  const radius = (i: number): number => ((i < m ? wl : wu) - 1) / 2;
  return [radius(0), radius(1), radius(2)];
}

/** Blurs a `w × h` plane in place (zero beyond its edges), approximately Gaussian with the given radii. */
export function boxBlur3(plane: Float32Array, w: number, h: number, radii: readonly number[]): void {
  const tmp = new Float32Array(Math.max(w, h));
  for (const r of radii) {
    if (r <= 0) continue;
    for (let y = 0; y < h; y++) boxPass(plane, y * w, 1, w, r, tmp);
    for (let x = 0; x < w; x++) boxPass(plane, x, w, h, r, tmp);
  }
}

/** One running-sum box pass over `n` samples starting at `start`, `step` apart. */
function boxPass(
  p: Float32Array,
  start: number,
  step: number,
  n: number,
  r: number,
  tmp: Float32Array,
): void {
  for (let i = 0; i < n; i++) tmp[i] = p[start + i * step]!;
  const k = 1 / (2 * r + 1);
  let sum = 0;
  for (let i = 0; i < r && i < n; i++) sum += tmp[i]!;
  for (let i = 0; i < n; i++) {
    const add = i + r;
    const drop = i - r - 1;
    if (add < n) sum += tmp[add]!;
    if (drop >= 0) sum -= tmp[drop]!;
    p[start + i * step] = sum * k;
  }
}
