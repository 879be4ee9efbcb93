/**
 * Repeat detection: masked normalised autocorrelation (Padfield 2012) computed with the FFT, a 2-D lattice
 * search over its peaks (block, half-drop, half-brick), and the repeat tile cut as the per-pixel median over
 * every repeat in the garment (which removes noise, folds and most shading).
 */
import type { Raster } from '../../engine/model.js';
import { autocorrelate, crossCorrelate, nextPow2 } from '../fft.js';
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
export function detectLattice(
  lum: Float64Array,
  mask: Uint8Array,
  w: number,
  h: number,
  holey = false,
): Lattice | null {
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
  // Padded only as far as the lags read (a linear, not circular, correlation), each axis on its own.
  const nx = nextPow2(w + maxX);
  const ny = nextPow2(h + maxY);
  const A = autocorrelate(g, w, h, nx, ny, maxY + 1);
  const M = autocorrelate(m, w, h, nx, ny, maxY + 1);
  const variance = A[0]! / M[0]!;
  if (!(variance > 1)) return null; // flat: nothing repeats
  // A mask with holes through the print (a cut-out's alpha that took the ground for background): the pixels two
  // copies of it share at a lag are not a fair sample of the garment (mostly motif where the ground was cut
  // away), and against the whole garment's variance their product ran to 1.9 at a lag twice the repeat. Each lag
  // is then normalised by the energy of the pixels it pairs (masked normalised cross-correlation).
  const energy = holey ? pairedEnergy(g, m, w, h, nx, ny, maxY + 1) : null;
  const minOverlap = cnt * 0.2;
  const W = 2 * maxX + 1;
  const H = maxY + 1;
  const rho = new Float64Array(W * H).fill(Number.NaN);
  for (let dy = 0; dy <= maxY; dy++) {
    for (let dx = -maxX; dx <= maxX; dx++) {
      const k = dy * nx + ((dx + nx) % nx);
      const overlap = M[k]!;
      if (overlap < minOverlap) continue;
      rho[dy * W + dx + maxX] = energy
        ? A[k]! / Math.sqrt(energy[0][k]! * energy[1][k]!)
        : A[k]! / overlap / variance;
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
  // Compared in log luminance: folds and light falloff multiply the print, so in logs they only add a smooth
  // term, which each cell's mean takes out (see shiftedMsd).
  const shift = fractionalMsd(logLuminance(lum), mask, w, h);
  const msd = shiftedMsd(shift);
  const stripes = stripeLattice(at, maxX, maxY, best, msd, shift, cnt);
  if (stripes) return stripes;
  const ref = Math.min(
    ...[...strong]
      .sort((p, q) => q.rho - p.rho)
      .slice(0, 5)
      .map((p) => msd(p.dx, p.dy)),
  );
  const exact = (p: Peak) => EXACT_RATIO * (sampled(msd, p.dx, p.dy) + MSD_FLOOR) <= ref + MSD_FLOOR;
  const crosses = (p: Peak, q: Peak) => Math.abs(p.dx * q.dy - p.dy * q.dx) >= 0.2 * p.len * q.len;
  const s1 = strong.find(exact);
  if (!s1) return null;
  const s2 = strong.find((p) => crosses(p, s1) && exact(p));
  if (!s2 || !structured(s1, msd) || !structured(s2, msd)) return null;
  const v1 = fullPeriod(s1, at, msd);
  const v2 = fullPeriod(s2, at, msd);
  const lat = roundedLattice([v1.dx, v1.dy], [v2.dx, v2.dy], (v1.rho + v2.rho) / 2, cnt);
  if (!lat) return null;
  // Report the shortest lattice the autocorrelation alone would have taken, when it was rejected.
  const t1 = strong[0]!;
  const t2 = strong.find((p) => crosses(p, t1));
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
  shift: (dx: number, dy: number) => number,
  maskArea: number,
): Lattice | null {
  const ref = Math.min(msd(MIN_LAG, 0), msd(0, MIN_LAG));
  // Against at most 1: the normalisation wobbles above it over a small overlap (1.048 on a striped garment, where
  // the ridge at 0.998 then failed and the stripes were read as a skewed lattice).
  const top = Math.min(best, 1);
  const flat = (dx: number, dy: number) => at(dx, dy) >= top - 0.05 && msd(dx, dy) <= 2 * (ref + MSD_FLOOR);
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
    const acf = (k: number) => at(across[0] * k, across[1] * k);
    const square = (p: number) =>
      latticeFrom([along[0] * p, along[1] * p], [across[0] * p, across[1] * p], acf(p), maskArea);
    // The first stripe period between whole px (see isPeak), kept for when no multiple of it is whole px.
    let between = 0;
    const slack = stripeSlack(shift, across);
    for (let k = MIN_LAG; k <= limit; k++) {
      const dx = across[0] * k;
      const dy = across[1] * k;
      if (!between && isPeak(acf, k, top) && msd(dx, dy) <= 2 * (ref + MSD_FLOOR) + slack) between = k;
      if (!flat(dx, dy)) continue;
      // The first lag that repeats is a peak's shoulder when the stripes are not whole px: take the best nearby.
      let p = k;
      while (p + 1 <= limit && acf(p + 1) > acf(p)) p++;
      // The tile is the fewest stripes (of a period between px) that come within NEAR_WHOLE of whole px: it
      // drifts no more from one repeat to the next than analysePhoto lets a repeat drift, and subPixelBasis
      // reports the one stripe, which the photo is read again at whole px for. The first exact lag can be many
      // stripes (8 × 13.37 ≈ 107, or 10 × 23.7 = 237 on a garment too small to hold three such tiles). Fewer
      // stripes that come to whole px were read as whole px above, and did not repeat exactly.
      const m = between ? Math.round(p / between) : 1;
      for (let n = 1; n < m; n++) {
        const off = Math.abs((n * p) / m - Math.round((n * p) / m));
        if (off > WHOLE && off <= NEAR_WHOLE) return square(Math.round((n * p) / m));
      }
      return square(p);
    }
    // A period between px with no whole-px multiple in reach (31.37 px): the tile drifts, but the stripes are found.
    if (between) return square(between);
  }
  return null;
}

/**
 * Stripes whose period is not whole px: an autocorrelation peak (below the best, as it falls between two lags)
 * at a lag whose best sub-px reading is as exact as misaligning the stripes by STRIPE_SLACK px would leave. Sharp
 * stripe edges sampled by px are not band-limited, so no interpolation reproduces them shifted by a fraction of
 * a px: at 13.37 px the best reading left over ten times the difference of a whole-px lag, and the first lag to
 * pass was 107, eight stripes. A stripe that differs from the next by less than such a misalignment is read as the
 * same stripe.
 */
function stripeSlack(shift: (dx: number, dy: number) => number, across: readonly number[]): number {
  return shift(across[0]! * STRIPE_SLACK, across[1]! * STRIPE_SLACK);
}

/** Whether lag k is a local maximum of the autocorrelation across the stripes, and a strong one. */
function isPeak(acf: (k: number) => number, k: number, best: number): boolean {
  const v = acf(k);
  return v >= 0.75 * best && v >= acf(k - 1) && !(acf(k + 1) > v);
}

const STRIPE_SLACK = 0.25;
/** A number of stripes this close to whole px was tested as whole px by stripeLattice's scan. */
const WHOLE = 0.02;
/** photo.ts's WHOLE_PX: a basis this close to whole px is not read again at another scale. */
const NEAR_WHOLE = 0.15;

/**
 * Whether shifting by half the lag changes the garment clearly more than shifting by the lag: true of a print
 * that repeats, not of a plain fabric whose folds happen to correlate (every shift leaves only noise there once
 * the shading is taken out).
 */
function structured(p: Peak, msd: (dx: number, dy: number) => number): boolean {
  return msd(Math.round(p.dx / 2), Math.round(p.dy / 2)) >= STRUCTURE_RATIO * (msd(p.dx, p.dy) + MSD_FLOOR);
}

/**
 * For each lag, the energy Σ g² of the pixels it pairs on either side: of p where p + lag is in the mask, and of
 * p + lag where p is.
 */
function pairedEnergy(
  g: Float64Array,
  m: Float64Array,
  w: number,
  h: number,
  nx: number,
  ny: number,
  rows: number,
): [Float64Array, Float64Array] {
  const g2 = g.map((v) => v * v);
  return [crossCorrelate(g2, m, w, h, nx, ny, rows), crossCorrelate(m, g2, w, h, nx, ny, rows)];
}

/** How much more half a repeat must change the garment than a whole one. */
const STRUCTURE_RATIO = 2;

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

/**
 * A strong lag passes for a repeat while its squared difference is within 1 / EXACT_RATIO of the best lags'
 * (shading left over after detrending weighs more on some directions than others); whether a shorter lag is the
 * whole repeat is then decided against its own multiples (fullPeriod).
 */
const EXACT_RATIO = 0.45;
/** A multiple of a lag must leave under this share of the lag's own squared difference to replace it. */
const INEXACT_RATIO = 0.6;
/** Added to every squared difference before comparing: 8-bit rounding, so exact renders compare as equal. */
const MSD_FLOOR = 0.5;

/**
 * The full period along `v`. The autocorrelation cannot tell an exact repeat from a shorter lag that only nearly
 * repeats (a plaid's three similar sub-blocks, a large floral's fine weave): both are strong peaks, and its
 * normalisation wobbles by a few hundredths. The mean squared difference between the garment and itself
 * shifted can: at an exact repeat only noise is left, so when a multiple k·v (k ≥ 2, read at its best
 * autocorrelation lag within k/2 px, as v is rounded to whole px) leaves clearly less than v does, v was not
 * the repeat, and the smallest multiple within 15 % of the best takes its place. Each lag is judged without
 * what reading it between px may leave (ShiftedMsd.between).
 */
function fullPeriod(v: Peak, at: (dx: number, dy: number) => number, msd: ShiftedMsd): Peak {
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
    found.push({ p: near, d: sampled(msd, near.dx, near.dy) });
  }
  if (found.length === 0) return v;
  const least = Math.min(...found.map((f) => f.d));
  const fewer = (d: number, own: number) => d + MSD_FLOOR < INEXACT_RATIO * (own + MSD_FLOOR);
  if (!fewer(least, sampled(msd, v.dx, v.dy))) return v;
  // Confirmed between quarter px: a photo levelled a few hundredths of a degree off misaligns each repeat by a
  // little more, and the multiple whose misalignment happened to land on a quarter px compared exact where the
  // repeat itself, a tenth of a px off, did not (an 84 px plaid levelled 0.06° off read 252 px).
  const multiple = found.find((f) => f.d === least)!.p;
  if (!fewer(msd.finer(multiple.dx, multiple.dy), msd.finer(v.dx, v.dy))) return v;
  return found.find((f) => f.d <= least * 1.15)!.p;
}

/** Side of the cells inside which the shifted difference is taken about its own plane (shading drifts slower). */
const DRIFT_CELL = 24;
/** Share of cells, the most different, left out of the shifted difference. */
const OUTLIER_CELLS = 0.15;

/**
 * Mean squared difference of `lum` inside `mask` with itself shifted by (dx, dy), on at most ~60k samples, each
 * taken about the mean difference of its DRIFT_CELL-px cell: a fold or a light falloff shifts the difference
 * smoothly, more at longer lags, and would otherwise outweigh the print's own difference.
 *
 * A whole-px lag stands for every period within half a px of it: a repeat of 61.44 px (a 48 px tile photographed
 * at 1.28 px per px) leaves a 0.44 px misalignment at lag 61 that sharp edges turn into a large difference, so
 * that no lag looked exact (no repeat found) or a multiple falling nearer a whole px (3 × 61.44 ≈ 184.3) looked
 * the full period. Each lag is read at its best sub-px shift (bilinear, within half a px, in quarter px).
 */
function shiftedMsd(at: (dx: number, dy: number) => number): ShiftedMsd {
  const seen = new Map<number, { out: number; fx: number; fy: number }>();
  const read = (dx: number, dy: number) => {
    const key = dy * 65536 + dx;
    const kept = seen.get(key);
    if (kept) return kept;
    // Across, then down at the best shift across: a print's misalignment is mostly separable, and this reads
    // 9 shifts, not 25.
    let fx = 0;
    let fy = 0;
    let out = at(dx, dy);
    for (const f of SUB_PX) {
      const d = f ? at(dx + f, dy) : out;
      if (d < out) [out, fx] = [d, f];
    }
    for (const f of SUB_PX) {
      if (!f) continue;
      const d = at(dx + fx, dy + f);
      if (d < out) [out, fy] = [d, f];
    }
    const r = { out, fx, fy };
    seen.set(key, r);
    return r;
  };
  const msd = (dx: number, dy: number): number => read(dx, dy).out;
  const sampling: number[] = [];
  msd.between = (dx: number, dy: number): number => {
    const { fx, fy } = read(dx, dy);
    const key = (fx ? 1 : 0) + (fy ? 2 : 0);
    if (key && sampling[key] === undefined) sampling[key] = at(fx ? BETWEEN_PX : 0, fy ? BETWEEN_PX : 0);
    return key ? sampling[key]! : 0;
  };
  msd.finer = (dx: number, dy: number): number => {
    let { out, fx, fy } = read(dx, dy);
    const x0 = fx;
    for (const f of [-FINER_PX, FINER_PX]) {
      const d = at(dx + x0 + f, dy + fy);
      if (d < out) [out, fx] = [d, x0 + f];
    }
    for (const f of [-FINER_PX, FINER_PX]) out = Math.min(out, at(dx + fx, dy + fy + f));
    return out;
  };
  return msd;
}

/**
 * A shifted difference (see shiftedMsd) read in quarter px; `finer`: the same read to an eighth of a px about
 * the best quarter px; `between`: how much of it reading between px may account for.
 */
interface ShiftedMsd {
  (dx: number, dy: number): number;
  finer(dx: number, dy: number): number;
  /**
   * What a repeat read between px may leave over a whole-px one: the garment against itself shifted BETWEEN_PX
   * along each axis the lag was read between px (0 for a lag read at whole px). Copies of a print sampled at
   * different phases of the px grid differ by more than bilinear reading takes out (sharp edges, JPEG's 8 px
   * blocks), where a multiple of the repeat that falls back on whole px (and on the blocks) does not: dots
   * 35.2 px apart read 5.2 at 35 and 0.99 at 176 = 5 × 35.2, and the multiple was taken for the repeat.
   */
  between(dx: number, dy: number): number;
}

const BETWEEN_PX = 0.5;

/** A lag's shifted difference less what reading it between px may leave (ShiftedMsd.between). */
function sampled(msd: ShiftedMsd, dx: number, dy: number): number {
  return Math.max(0, msd(dx, dy) - msd.between(dx, dy));
}

/** The step, px, of shiftedMsd's finer reading about its best quarter px. */
const FINER_PX = 0.125;

const SUB_PX = [-0.5, -0.25, 0, 0.25, 0.5];

/**
 * The lattice's basis vectors to a tenth of a px: the whole-px vector moved to the least squared difference
 * among its neighbours, then the parabola's vertex through it and its two neighbours along each axis. Read at
 * whole px only, where the shifted garment keeps its noise: read between px, the interpolation averages the
 * noise away and would draw the estimate towards half px.
 */
export function subPixelBasis(
  lat: Lattice,
  lum: Float64Array,
  mask: Uint8Array,
  w: number,
  h: number,
): [number, number][] {
  // Plain: the squared difference is symmetric about an exact period, msd(P + d) = msd(P − d), and the parabola
  // relies on it; the cells' planes and the outliers left out (see shiftedMsd) are chosen per shift and are not.
  const step = Math.max(1, Math.floor(Math.sqrt((w * h) / 120_000)));
  const seen = new Map<number, number>();
  const at = (dx: number, dy: number): number => {
    const key = dy * 65536 + dx;
    const kept = seen.get(key);
    if (kept !== undefined) return kept;
    let sum = 0;
    let n = 0;
    const x0 = Math.max(0, -dx);
    const x1 = Math.min(w, w - dx);
    const y1 = Math.min(h, h - dy);
    for (let y = Math.max(0, -dy); y < y1; y += step) {
      for (let x = x0; x < x1; x += step) {
        const i = y * w + x;
        const j = i + dy * w + dx;
        if (!mask[i] || !mask[j]) continue;
        sum += (lum[i]! - lum[j]!) ** 2;
        n++;
      }
    }
    const out = n > 50 ? sum / n : Number.POSITIVE_INFINITY;
    seen.set(key, out);
    return out;
  };
  const vertex = (lo: number, mid: number, hi: number) => {
    const curve = lo - 2 * mid + hi;
    return curve > 0 ? Math.max(-0.5, Math.min(0.5, (lo - hi) / (2 * curve))) : 0;
  };
  const refine = (v: readonly [number, number]): [number, number] => {
    let [x, y] = v;
    for (let moves = 0; moves < 3; moves++) {
      let best = at(x, y);
      let next: [number, number] | null = null;
      for (let j = -1; j <= 1; j++) {
        for (let i = -1; i <= 1; i++) {
          const d = at(x + i, y + j);
          if (d < best) {
            best = d;
            next = [x + i, y + j];
          }
        }
      }
      if (!next) break;
      [x, y] = next;
    }
    const mid = at(x, y);
    const fx = x + vertex(at(x - 1, y), mid, at(x + 1, y));
    const fy = y + vertex(at(x, y - 1), mid, at(x, y + 1));
    return [Math.round(fx * 10) / 10, Math.round(fy * 10) / 10];
  };
  const along = alongStripes(lat, at);
  if (along < 0) return [refine(lat.v1), refine(lat.v2)];
  // Stripes: the period across them, and the same length along them (any length repeats there, and a noise-read
  // one would decide the scale the photo is read again at; see analysePhoto).
  const [v, other] = along ? [lat.v2, lat.v1] : [lat.v1, lat.v2];
  const across = [Math.sign(Math.abs(other[0])), Math.sign(Math.abs(other[1]))] as const;
  const period = stripePeriod(
    Math.abs(other[0] + other[1]),
    across,
    lum,
    mask,
    w,
    h,
    (k) => {
      const vv = vertex(
        at(across[0] * (k - 1), across[1] * (k - 1)),
        at(across[0] * k, across[1] * k),
        at(across[0] * (k + 1), across[1] * (k + 1)),
      );
      return k + vv;
    },
    (k) => at(across[0] * k, across[1] * k),
  );
  const p = Math.round(period * 100) / 100;
  const o: [number, number] = [across[0] * p, across[1] * p];
  const run: [number, number] = [Math.sign(v[0]) * p, Math.sign(v[1]) * p];
  return along ? [o, run] : [run, o];
}

/**
 * The period of stripes whose tile is `tile` px across: the tile may hold several stripes (stripeLattice takes a
 * whole-px multiple of a period between px), and the one stripe is the smallest tile / m that passes
 * stripeLattice's test. Then measured over as many stripes as the garment holds: a lag read to a tenth of a px
 * over 8 stripes gives the period to an eightieth.
 */
function stripePeriod(
  tile: number,
  across: readonly [number, number],
  lum: Float64Array,
  mask: Uint8Array,
  w: number,
  h: number,
  vertexAt: (k: number) => number,
  diff: (k: number) => number,
): number {
  const shift = fractionalMsd(logLuminance(lum), mask, w, h);
  const msd = shiftedMsd(shift);
  const ref = msd(across[1] * MIN_LAG, across[0] * MIN_LAG);
  const slack = stripeSlack(shift, across);
  let period = vertexAt(tile);
  for (let m = Math.floor(tile / MIN_LAG); m >= 2; m--) {
    const q = Math.round(period / m);
    if (Math.abs(period / m - q) <= WHOLE) continue; // a whole-px stripe that stripeLattice found inexact
    if (msd(across[0] * q, across[1] * q) <= 2 * (ref + MSD_FLOOR) + slack) {
      period /= m;
      break;
    }
  }
  // Down to the local least difference near n periods, then between px.
  for (let n = 2; ; n *= 2) {
    let k = Math.round(n * period);
    for (let moves = 0; moves < 3; moves++) {
      if (diff(k - 1) < diff(k) && diff(k - 1) <= diff(k + 1)) k--;
      else if (diff(k + 1) < diff(k)) k++;
      else break;
    }
    if (![k - 1, k, k + 1].every((j) => Number.isFinite(diff(j)))) break;
    const next = vertexAt(k) / n;
    if (Math.abs(next - period) > 0.5 / n + 0.05) break;
    period = next;
  }
  return period;
}

/**
 * Which basis vector runs along stripes (0: v1, 1: v2), or −1. Stripes repeat under any shift along them, so
 * their lattice (see stripeLattice) is a period square whose vector along them is only as long as the period
 * across; `diff` is a squared difference at whole-px shifts: a short shift along stripes leaves only noise, a
 * shorter one across them much more.
 */
function alongStripes(lat: Lattice, diff: (dx: number, dy: number) => number): number {
  const vs = [lat.v1, lat.v2] as const;
  for (let k = 0; k < 2; k++) {
    const v = vs[k]!;
    const o = vs[1 - k]!;
    if ((v[0] !== 0 && v[1] !== 0) || v[0] * o[0] + v[1] * o[1] !== 0) continue;
    const ux = Math.sign(v[0]);
    const uy = Math.sign(v[1]);
    const half = Math.ceil(MIN_LAG / 2);
    if (STRUCTURE_RATIO * 5 * diff(ux * MIN_LAG, uy * MIN_LAG) < diff(uy * half, ux * half)) return k;
  }
  return -1;
}

/**
 * Log luminance, in which the shifted differences are taken (see detectLattice). Kept per luminance plane: the
 * lattice's search and its refinement read the same plane. A loop, not `map`: a typed array's `map` with a
 * callback ran five times slower, the photo analysis' largest single cost.
 */
function logLuminance(lum: Float64Array): Float64Array {
  const kept = logged.get(lum);
  if (kept) return kept;
  const out = new Float64Array(lum.length);
  for (let i = 0; i < lum.length; i++) out[i] = 100 * Math.log(Math.max(0, lum[i]!) + 10);
  logged.set(lum, out);
  return out;
}
const logged = new WeakMap<Float64Array, Float64Array>();

/** fractionalMsd's masks of px whose bilinear neighbours are inside, per garment mask (one width each). */
const neighbourMasks = new WeakMap<Uint8Array, (Uint8Array | undefined)[]>();

/**
 * shiftedMsd at one shift, whole or fractional. A fractional shift reads both copies bilinearly, each half the
 * fraction off the px grid in opposite directions: bilinear reading smooths, and reading one copy only compared
 * a smoothed garment with a sharp one, a difference no repeat can remove (a half-drop photographed so that its
 * drop is 13.5 px left 7× the difference of a whole-px repeat; now 4×). Each copy is smoothed alike.
 */
function fractionalMsd(lum: Float64Array, mask: Uint8Array, w: number, h: number) {
  const step = Math.max(1, Math.floor(Math.sqrt((w * h) / 60_000)));
  const cw = Math.ceil(w / DRIFT_CELL);
  const cells = cw * Math.ceil(h / DRIFT_CELL);
  // Per cell: the sums of the least-squares plane d ≈ a + b·u + c·v (u, v local to the cell).
  const acc = new Float64Array(cells * 10);
  // Per kind of shift, the mask of px whose bilinear neighbours are all inside: one read per copy instead of
  // four (this is the photo analysis' hottest loop: ~150 shifts over up to ~150k samples). Kept per mask: the
  // lattice's search and its refinement shift the same garment.
  const whole = neighbourMasks.get(mask) ?? [];
  neighbourMasks.set(mask, whole);
  const within = (nx: number, ny: number): Uint8Array => {
    const key = (nx ? 1 : 0) + (ny ? 2 : 0);
    const kept = whole[key];
    if (kept) return kept;
    // m[i]: i and its neighbours at −nx, −ny and −nx − ny are inside, so m[j + nx + ny] says the same of j and
    // its neighbours at +nx, +ny and +nx + ny.
    const m = new Uint8Array(mask.length);
    for (let i = nx + ny; i < mask.length; i++)
      m[i] = mask[i]! & mask[i - nx]! & mask[i - ny]! & mask[i - nx - ny]!;
    whole[key] = m;
    return m;
  };
  const vs = new Float64Array(cells);
  const ns = new Float64Array(cells);
  const order = new Float64Array(cells);
  const starts = new Int32Array(cw);
  return (dx: number, dy: number): number => {
    const ix = Math.floor(dx);
    const iy = Math.floor(dy);
    const tx = dx - ix;
    const ty = dy - iy;
    // Whole px along an axis read one neighbour only, so a whole-px shift needs no pixel past the edge.
    const nx = tx > 0 ? 1 : 0;
    const ny = ty > 0 ? w : 0;
    const inside = within(nx, ny);
    const far = nx + ny;
    const lag = iy * w + ix;
    acc.fill(0);
    const hx = tx / 2;
    const hy = ty / 2;
    const x0 = Math.max(nx, -ix);
    const x1 = Math.min(w, w - ix - nx);
    // Each cell's first sampled column, the same on every row.
    const cx0 = Math.floor(x0 / DRIFT_CELL);
    for (let cx = cx0; cx * DRIFT_CELL < x1; cx++) {
      starts[cx] = x0 + Math.ceil((Math.max(x0, cx * DRIFT_CELL) - x0) / step) * step;
    }
    const y1 = Math.min(h, h - iy - (ny ? 1 : 0));
    for (let y = Math.max(ny ? 1 : 0, -iy); y < y1; y += step) {
      const row = Math.floor(y / DRIFT_CELL) * cw * 10;
      const v = (y % DRIFT_CELL) - DRIFT_CELL / 2;
      // One row's run through a cell is summed in locals, then added to the cell's sums: v is the same along
      // it, so its terms follow from the run's sums.
      for (let cx = cx0; cx * DRIFT_CELL < x1; cx++) {
        const start = starts[cx]!;
        const end = Math.min(x1, (cx + 1) * DRIFT_CELL);
        const mid = cx * DRIFT_CELL + DRIFT_CELL / 2;
        let n = 0;
        let su = 0;
        let suu = 0;
        let sd = 0;
        let sud = 0;
        let sdd = 0;
        for (let x = start; x < end; x += step) {
          const i = y * w + x;
          const j = i + lag;
          if (!inside[i] || !inside[j + far]) continue;
          // This copy at −(tx, ty)/2, the shifted one at +(tx, ty)/2: the shift between them is (dx, dy).
          // Along an axis shifted by whole px the neighbour is the px itself and its term is zero: not computed.
          let d: number;
          if (ny) {
            const top0 = lum[i]! + hx * (lum[i - nx]! - lum[i]!);
            const bottom0 = lum[i - ny]! + hx * (lum[i - nx - ny]! - lum[i - ny]!);
            const top = lum[j]! + hx * (lum[j + nx]! - lum[j]!);
            const bottom = lum[j + ny]! + hx * (lum[j + nx + ny]! - lum[j + ny]!);
            d = top0 + hy * (bottom0 - top0) - (top + hy * (bottom - top));
          } else if (nx) {
            d = lum[i]! + hx * (lum[i - nx]! - lum[i]!) - (lum[j]! + hx * (lum[j + nx]! - lum[j]!));
          } else {
            d = lum[i]! - lum[j]!;
          }
          const u = x - mid;
          n++;
          su += u;
          suu += u * u;
          sd += d;
          sud += u * d;
          sdd += d * d;
        }
        if (!n) continue;
        const o = row + cx * 10;
        acc[o]! += n;
        acc[o + 1]! += su;
        acc[o + 2]! += v * n;
        acc[o + 3]! += suu;
        acc[o + 4]! += v * v * n;
        acc[o + 5]! += v * su;
        acc[o + 6]! += sd;
        acc[o + 7]! += sud;
        acc[o + 8]! += v * sd;
        acc[o + 9]! += sdd;
      }
    }
    let count = 0;
    for (let c = 0; c < cells; c++) {
      const o = c * 10;
      const n = acc[o]!;
      if (n < 6) continue;
      vs[count] = planeResidual(acc, o) / n;
      ns[count] = n;
      count++;
    }
    return withoutOutliers(vs, ns, count, order);
  };
}

/**
 * The mean over the cells without the OUTLIER_CELLS share that differ most (a placed motif differs from whatever
 * a shift brings onto it, at any lag), each cell weighted by its samples. The cut is found on a numeric sort of
 * the values (sorting the cells as objects cost more than the sums); ties at the cut are kept in cell order.
 * `sorted` is scratch space.
 */
function withoutOutliers(vs: Float64Array, ns: Float64Array, count: number, sorted: Float64Array): number {
  const keep = Math.ceil(count * (1 - OUTLIER_CELLS));
  if (keep === 0) return Number.POSITIVE_INFINITY;
  const values = sorted.subarray(0, count);
  values.set(vs.subarray(0, count));
  values.sort();
  const last = values[keep - 1]!;
  let ties = keep;
  for (let k = 0; k < keep; k++) if (values[k]! < last) ties--;
  let s = 0;
  let n = 0;
  for (let c = 0; c < count; c++) {
    const v = vs[c]!;
    if (v > last || (v === last && ties-- <= 0)) continue;
    s += v * ns[c]!;
    n += ns[c]!;
  }
  return n > 50 ? s / n : Number.POSITIVE_INFINITY;
}

/**
 * Sum of squared residuals of d about its least-squares plane, from the sums [n, Σu, Σv, Σuu, Σvv, Σuv, Σd, Σud,
 * Σvd, Σdd] at a[o…o + 9] (Cramer's rule: read by index, as it runs once per cell and shift).
 */
function planeResidual(a: Float64Array, o: number): number {
  const n = a[o]!;
  const su = a[o + 1]!;
  const sv = a[o + 2]!;
  const suu = a[o + 3]!;
  const svv = a[o + 4]!;
  const suv = a[o + 5]!;
  const sd = a[o + 6]!;
  const sud = a[o + 7]!;
  const svd = a[o + 8]!;
  const sdd = a[o + 9]!;
  const d0 = det3(n, su, sv, su, suu, suv, sv, suv, svv);
  if (Math.abs(d0) < 1e-9) return Math.max(0, sdd - sd ** 2 / n);
  const c0 = det3(sd, su, sv, sud, suu, suv, svd, suv, svv) / d0;
  const c1 = det3(n, sd, sv, su, sud, suv, sv, svd, svv) / d0;
  const c2 = det3(n, su, sd, su, suu, sud, sv, suv, svd) / d0;
  // Residual = Σd² − coefᵀ·r for the least-squares solution.
  return Math.max(0, sdd - (c0 * sd + c1 * sud + c2 * svd));
}

/** The determinant of the 3 × 3 matrix with rows (a, b, c), (d, e, f), (g, h, i). */
function det3(
  a: number,
  b: number,
  c: number,
  d: number,
  e: number,
  f: number,
  g: number,
  h: number,
  i: number,
) {
  return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
}

/**
 * latticeFrom, allowing each vector a one-pixel correction: a repeat whose period is not a whole number of px
 * (a half-drop of 85.2 px drops 42.6) is found at rounded lags that need not close into a tile of ≤ 1024 px;
 * the smallest correction that does (fewest px moved, then the smallest tile) is taken.
 */
function roundedLattice(
  a: readonly [number, number],
  b: readonly [number, number],
  confidence: number,
  maskArea: number,
): Lattice | null {
  const exact = latticeFrom(a, b, confidence, maskArea);
  if (exact) return exact;
  let best: { lat: Lattice; cost: number } | null = null;
  for (let i = 0; i < 81; i++) {
    const d = [(i % 3) - 1, (Math.floor(i / 3) % 3) - 1, (Math.floor(i / 9) % 3) - 1, Math.floor(i / 27) - 1];
    const lat = latticeFrom([a[0] + d[0]!, a[1] + d[1]!], [b[0] + d[2]!, b[1] + d[3]!], confidence, maskArea);
    if (!lat) continue;
    const cost = d.reduce((s, v) => s + Math.abs(v), 0) * 1e7 + lat.tileW * lat.tileH;
    if (!best || cost < best.cost) best = { lat, cost };
  }
  return best?.lat ?? null;
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
    // The sampled px whose shifted px is inside the photo, in the same order as a scan of every sampled px.
    const first = (lo: number) => Math.ceil(Math.max(0, lo) / step) * step;
    const x0 = first(-dx);
    const x1 = Math.min(w, w - dx);
    const y1 = Math.min(h, h - dy);
    const lag = dy * w + dx;
    for (let y = first(-dy); y < y1; y += step) {
      for (let x = x0; x < x1; x += step) {
        const i = y * w + x;
        const j = i + lag;
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
  const along = alongStripes(lat, (dx, dy) => mad(dx, dy) ** 2);
  if (along >= 0) {
    // Stripes: only the period across them is searched, and the tile stays that period square (see subPixelBasis).
    const [v, other] = along ? [lat.v2, lat.v1] : [lat.v1, lat.v2];
    const ax = other[0] ? 1 : 0;
    const ay = 1 - ax;
    let p = Math.abs(other[0] + other[1]);
    let bd = Number.POSITIVE_INFINITY;
    for (let d = -radius; d <= radius; d++) {
      const q = Math.abs(other[0] + other[1]) + d;
      const m = mad(ax * q, ay * q);
      if (m < bd) [bd, p] = [m, q];
    }
    const stripes = latticeFrom(
      [Math.sign(v[0]) * p, Math.sign(v[1]) * p],
      [ax * p, ay * p],
      lat.confidence,
      maskArea,
    );
    return stripes ? { ...stripes, ...(lat.shorter ? { shorter: lat.shorter } : {}) } : lat;
  }
  const refined = latticeFrom(refine(lat.v1), refine(lat.v2), lat.confidence, maskArea);
  if (!refined) return lat;
  const finer = finerLattice(refined, lum, mask, w, h, maskArea);
  return finer === refined && lat.shorter ? { ...refined, shorter: lat.shorter } : finer;
}

/**
 * The finest lattice, at the analysis size, of which `lat` is a multiple: `lat` with a vector (a + j·b) / p or
 * b / p (p = 2, 3, 5, repeatedly) added while that vector is about as exact as the lattice's own (fullPeriod's rule
 * the other way round). The lattice is found on the photo shrunk f times (findLattice), where a repeat that is
 * whole px at the analysis size may not be: a half-drop of 54 px drops 13.5 px there, too far between px to pass
 * as exact, and the lattice found was twice its cell (block 108 × 54 for the 900 px floral). Here it is whole px.
 */
const ROUGH_RATIO = 30;

function finerLattice(
  lat: Lattice,
  lum: Float64Array,
  mask: Uint8Array,
  w: number,
  h: number,
  maskArea: number,
): Lattice {
  const shift = fractionalMsd(logLuminance(lum), mask, w, h);
  const msd = shiftedMsd(shift);
  const cell = (l: Lattice) => Math.abs(l.v1[0] * l.v2[1] - l.v1[1] * l.v2[0]);
  let cur = lat;
  for (let round = 0; round < 4; round++) {
    const [a, b] = [cur.v1, cur.v2];
    const own = Math.min(msd(a[0], a[1]), msd(b[0], b[1]));
    let next: Lattice | null = null;
    for (const p of [2, 3, 5]) {
      for (let j = 0; j <= p && !next; j++) {
        const [whole, other] = j < p ? [[a[0] + j * b[0], a[1] + j * b[1]] as const, b] : [b, a];
        let c: Peak = { dx: Math.round(whole[0] / p), dy: Math.round(whole[1] / p), rho: 0, len: 0 };
        c.len = Math.hypot(c.dx, c.dy);
        // Read at whole px first: a shift that moves the print onto its ground is thousands of times off, and
        // no sub-px reading (9 more) would bring it near.
        if (c.len < MIN_LAG || shift(c.dx, c.dy) > ROUGH_RATIO * (own + MSD_FLOOR)) continue;
        const inexact = (q: Peak) => own + MSD_FLOOR < INEXACT_RATIO * (msd(q.dx, q.dy) + MSD_FLOOR);
        if (inexact(c)) continue;
        // Halved while its half repeats too: a lattice taken at four times its repeat (a half-drop's 58 px
        // diagonal read 232 px, the print 58.5 px apart at the size it was found at) has a half of the vector
        // that is itself a multiple, which is not structured (its half repeats), and stopped the search there.
        for (;;) {
          const half: Peak = { dx: Math.round(c.dx / 2), dy: Math.round(c.dy / 2), rho: 0, len: 0 };
          half.len = Math.hypot(half.dx, half.dy);
          if (half.len < MIN_LAG || inexact(half)) break;
          c = half;
        }
        if (!structured(c, msd)) continue;
        const l = roundedLattice([c.dx, c.dy], other, cur.confidence, maskArea);
        if (l && cell(l) < cell(cur)) next = l;
      }
      if (next) break;
    }
    if (!next) break;
    cur = next;
  }
  return cur;
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
  const mod = (v: number, m: number) => ((v % m) + m) % m;
  // Each garment px's tile positions, one per coset, walked along the row (no modulo per px: this ran twice per
  // photo over every px).
  const rows = new Int32Array(offsets.length);
  const cols = new Int32Array(offsets.length);
  const eachPosition = (visit: (i: number, p: number) => void) => {
    for (let y = 0; y < photo.h; y++) {
      for (let q = 0; q < offsets.length; q++) {
        rows[q] = mod(y - offsets[q]![1], H) * W;
        cols[q] = mod(-offsets[q]![0], W);
      }
      for (let x = 0, i = y * photo.w; x < photo.w; x++, i++) {
        const inside = mask[i];
        for (let q = 0; q < offsets.length; q++) {
          if (inside) visit(i, rows[q]! + cols[q]!);
          if (++cols[q]! === W) cols[q] = 0;
        }
      }
    }
  };
  eachPosition((_, p) => counts[p]!++);
  const start = new Int32Array(W * H + 1);
  for (let i = 0; i < W * H; i++) start[i + 1] = start[i]! + counts[i]!;
  const fill = start.slice(0, W * H);
  const total = start[W * H]!;
  const vals = [new Uint8Array(total), new Uint8Array(total), new Uint8Array(total)];
  eachPosition((i, p) => {
    const k = fill[p]!++;
    for (let c = 0; c < 3; c++) vals[c]![k] = photo.data[i * 4 + c]!;
  });
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
