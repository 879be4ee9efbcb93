/**
 * The part classifier's nets fitted to their samples: everything they are a function of besides the samples,
 * their standardisation and the options is in this file and the PRNG's (FIT_SOURCES), which is what a store of
 * fitted nets (scripts/fold-nets.ts) keys on.
 */
import { LABELS, type Net } from '../src/garment/builtin/piece-model.js';
import { rng } from '../test/support/rng.js';

/** The source files whose text decides the fitted nets, beside the fitter's arguments. */
export const FIT_SOURCES: readonly URL[] = [
  new URL('./fit-net.ts', import.meta.url),
  new URL('../test/support/rng.ts', import.meta.url),
];

export interface Sample {
  readonly x: readonly number[];
  readonly y: number;
  readonly weight: number;
}

export interface FitOptions {
  /** Nets averaged, each from its own random start. */
  readonly nets: number;
  readonly hidden: number;
  readonly l2: number;
  readonly iterations: number;
  readonly rate: number;
}

/** What trains the nets of a model: the samples, their standardisation and the options in, the nets out. */
export type NetFitter = (
  samples: readonly Sample[],
  mean: readonly number[],
  std: readonly number[],
  opt: FitOptions,
) => Net[];

/** The nets, each from its own seeded start. */
export const fitNets: NetFitter = (samples, mean, std, opt) =>
  Array.from({ length: opt.nets }, (_, seed) => fitNet(samples, mean, std, opt, 12345 + seed));

/**
 * A one-hidden-layer perceptron (tanh) on standardised features, full-batch Adam with L2, classes weighted by
 * the inverse square root of their frequency so that rare parts (hoods, waistbands) count. Seeded: the same
 * samples give the same net.
 */
function fitNet(
  samples: readonly Sample[],
  mean: readonly number[],
  std: readonly number[],
  opt: FitOptions,
  seed: number,
): Net {
  const d = samples[0]!.x.length;
  const k = LABELS.length;
  const H = opt.hidden;
  const xs = samples.map((r) => Float64Array.from(r.x, (v, j) => (v - mean[j]!) / std[j]!));
  const freq = new Array(k).fill(0);
  for (const r of samples) freq[r.y] = freq[r.y]! + r.weight;
  const cw = freq.map((f) => (f ? 1 / Math.sqrt(f) : 0));
  const sw = samples.map((r) => r.weight * cw[r.y]!);
  const total = sw.reduce((a, b) => a + b, 0);
  const rnd = rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
  // Parameters in one array: W1 (H × (d+1)), then W2 (k × (H+1)).
  const n1 = H * (d + 1);
  const P = new Float64Array(n1 + k * (H + 1));
  for (let i = 0; i < n1; i++) P[i] = (i % (d + 1) === d ? 0 : gauss()) / Math.sqrt(d);
  for (let i = n1; i < P.length; i++) P[i] = ((i - n1) % (H + 1) === H ? 0 : gauss()) / Math.sqrt(H);
  const M = new Float64Array(P.length);
  const V = new Float64Array(P.length);
  const G = new Float64Array(P.length);
  const h = new Float64Array(H);
  const z = new Float64Array(k);
  const dh = new Float64Array(H);
  for (let it = 1; it <= opt.iterations; it++) {
    G.fill(0);
    for (let n = 0; n < xs.length; n++) {
      const x = xs[n]!;
      for (let u = 0; u < H; u++) {
        const o = u * (d + 1);
        let s = P[o + d]!;
        for (let j = 0; j < d; j++) s += P[o + j]! * x[j]!;
        h[u] = Math.tanh(s);
      }
      let max = -Infinity;
      for (let c = 0; c < k; c++) {
        const o = n1 + c * (H + 1);
        let s = P[o + H]!;
        for (let u = 0; u < H; u++) s += P[o + u]! * h[u]!;
        z[c] = s;
        if (s > max) max = s;
      }
      let sum = 0;
      for (let c = 0; c < k; c++) {
        z[c] = Math.exp(z[c]! - max);
        sum += z[c]!;
      }
      dh.fill(0);
      for (let c = 0; c < k; c++) {
        const g = (sw[n]! / total) * (z[c]! / sum - (c === samples[n]!.y ? 1 : 0));
        const o = n1 + c * (H + 1);
        for (let u = 0; u < H; u++) {
          G[o + u] = G[o + u]! + g * h[u]!;
          dh[u] = dh[u]! + g * P[o + u]!;
        }
        G[o + H] = G[o + H]! + g;
      }
      for (let u = 0; u < H; u++) {
        const g = dh[u]! * (1 - h[u]! * h[u]!);
        const o = u * (d + 1);
        for (let j = 0; j < d; j++) G[o + j] = G[o + j]! + g * x[j]!;
        G[o + d] = G[o + d]! + g;
      }
    }
    for (let i = 0; i < P.length; i++) {
      const g = G[i]! + opt.l2 * P[i]!;
      M[i] = 0.9 * M[i]! + 0.1 * g;
      V[i] = 0.999 * V[i]! + 0.001 * g * g;
      P[i] = P[i]! - (opt.rate * (M[i]! / (1 - 0.9 ** it))) / (Math.sqrt(V[i]! / (1 - 0.999 ** it)) + 1e-8);
    }
  }
  const r = (v: number) => Math.round(v * 1e5) / 1e5;
  const rows = (from: number, count: number, len: number) =>
    Array.from({ length: count }, (_, c) => [...P.subarray(from + c * len, from + (c + 1) * len)].map(r));
  return { hidden: rows(0, H, d + 1), output: rows(n1, k, H + 1) };
}
