/**
 * Dominant colours: deterministic k-means in CIE Lab. Seeds come from the most populated cells of a coarse Lab
 * histogram (8-unit bins), each at least ΔE 12 from the seeds already taken, so the result never depends on
 * a random draw; ten Lloyd iterations follow, clusters closer than ΔE 6 merge and clusters under 1.5 % drop.
 */
import { deltaE76, hexOf, type Lab, labToRgb } from '../color.js';
import type { PaletteEntry } from '../types.js';

/** Lab samples, interleaved L, a, b. */
export type LabSamples = Float32Array;

export function paletteOf(samples: LabSamples, k = 5): PaletteEntry[] {
  const n = samples.length / 3;
  if (n === 0) return [];
  const bins = new Map<number, { count: number; L: number; a: number; b: number }>();
  for (let i = 0; i < n; i++) {
    const L = samples[i * 3]!;
    const a = samples[i * 3 + 1]!;
    const b = samples[i * 3 + 2]!;
    const key = (Math.floor(L / 8) + 2) * 10000 + (Math.floor(a / 8) + 20) * 100 + (Math.floor(b / 8) + 20);
    const bin = bins.get(key);
    if (bin) {
      bin.count++;
      bin.L += L;
      bin.a += a;
      bin.b += b;
    } else bins.set(key, { count: 1, L, a, b });
  }
  const ranked = [...bins.entries()]
    .sort((p, q) => q[1].count - p[1].count || p[0] - q[0])
    .map(([, v]) => ({ L: v.L / v.count, a: v.a / v.count, b: v.b / v.count, count: v.count }));
  const centres: Lab[] = [];
  for (const c of ranked) {
    if (centres.length >= k) break;
    if (c.count < n * 0.005 && centres.length > 0) break;
    if (centres.every((s) => deltaE76(s, c) >= 12)) centres.push({ L: c.L, a: c.a, b: c.b });
  }
  const assign = new Int32Array(n);
  let sums = new Float64Array(centres.length * 4);
  for (let iter = 0; iter < 10; iter++) {
    sums = new Float64Array(centres.length * 4);
    for (let i = 0; i < n; i++) {
      const p = { L: samples[i * 3]!, a: samples[i * 3 + 1]!, b: samples[i * 3 + 2]! };
      let best = 0;
      let bd = Number.POSITIVE_INFINITY;
      for (let c = 0; c < centres.length; c++) {
        const d = deltaE76(p, centres[c]!);
        if (d < bd) {
          bd = d;
          best = c;
        }
      }
      assign[i] = best;
      sums[best * 4] = sums[best * 4]! + p.L;
      sums[best * 4 + 1] = sums[best * 4 + 1]! + p.a;
      sums[best * 4 + 2] = sums[best * 4 + 2]! + p.b;
      sums[best * 4 + 3] = sums[best * 4 + 3]! + 1;
    }
    for (let c = 0; c < centres.length; c++) {
      const cnt = sums[c * 4 + 3]!;
      if (cnt > 0)
        centres[c] = { L: sums[c * 4]! / cnt, a: sums[c * 4 + 1]! / cnt, b: sums[c * 4 + 2]! / cnt };
    }
  }
  let clusters = centres.map((lab, c) => ({ lab, count: sums[c * 4 + 3]! }));
  // Merge near-identical clusters (weighted), largest first.
  clusters.sort((p, q) => q.count - p.count);
  const merged: { lab: Lab; count: number }[] = [];
  for (const c of clusters) {
    const into = merged.find((m) => deltaE76(m.lab, c.lab) < 6);
    if (into) {
      const t = into.count + c.count;
      into.lab = {
        L: (into.lab.L * into.count + c.lab.L * c.count) / t,
        a: (into.lab.a * into.count + c.lab.a * c.count) / t,
        b: (into.lab.b * into.count + c.lab.b * c.count) / t,
      };
      into.count = t;
    } else merged.push({ ...c });
  }
  clusters = merged.filter((c) => c.count >= n * 0.015);
  const total = clusters.reduce((s, c) => s + c.count, 0);
  return clusters
    .sort((p, q) => q.count - p.count)
    .map((c) => ({
      hex: hexOf(labToRgb(c.lab)),
      lab: roundLab(c.lab),
      share: Math.round((c.count / total) * 1000) / 1000,
    }));
}

function roundLab(l: Lab): Lab {
  const r = (v: number) => Math.round(v * 100) / 100;
  return { L: r(l.L), a: r(l.a), b: r(l.b) };
}

/** Up to `max` Lab samples of the pixels where `mask` is set (every k-th pixel, deterministic). */
export function sampleLab(
  L: Float32Array,
  a: Float32Array,
  b: Float32Array,
  mask: Uint8Array | null,
  max = 40_000,
): LabSamples {
  let count = 0;
  for (let i = 0; i < L.length; i++) if (!mask || mask[i]) count++;
  const step = Math.max(1, Math.ceil(count / max));
  const out: number[] = [];
  let seen = 0;
  for (let i = 0; i < L.length; i++) {
    if (mask && !mask[i]) continue;
    if (seen++ % step === 0) out.push(L[i]!, a[i]!, b[i]!);
  }
  return Float32Array.from(out);
}

/** Share-weighted mean distance from each colour of `ref` to its nearest colour in `other` (CIEDE2000). */
export function paletteDistance(
  ref: readonly PaletteEntry[],
  other: readonly PaletteEntry[],
  de: (p: Lab, q: Lab) => number,
): number {
  if (ref.length === 0 || other.length === 0) return Number.POSITIVE_INFINITY;
  let sum = 0;
  let wsum = 0;
  for (const c of ref) {
    let best = Number.POSITIVE_INFINITY;
    for (const o of other) best = Math.min(best, de(c.lab, o.lab));
    sum += c.share * best;
    wsum += c.share;
  }
  return sum / wsum;
}
