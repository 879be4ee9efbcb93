/**
 * Dominant colours: deterministic k-means in CIE Lab. Seeds come from the most populated cells of a coarse Lab
 * histogram (8-unit bins), each at least ΔE 12 from the seeds already taken, so the result never depends on
 * a random draw; ten Lloyd iterations follow, clusters closer than ΔE 6 merge and clusters under 1.5 % drop.
 *
 * A photo's print, unlike a document's, has mixed colours along its edges: JPEG blurs the half-size chroma of
 * 4:2:0 over 2 px and rings about every edge. Told which samples lie on an edge (edgeFlags), the palette also
 * seeds from cells that hold a colour only with their neighbours (a small motif's colour spread over several),
 * and counts a cluster that is a mixture (a colour between two others, seen mostly on edges) into the nearer.
 */
import { deltaE76, hexOf, type Lab, labToRgb } from '../color.js';
import type { PaletteEntry } from '../types.js';

/** Lab samples, interleaved L, a, b. */
export type LabSamples = Float32Array;

/** Per sample of a LabSamples (same order), 1 when the pixel lies on an edge of the print. */
export type EdgeFlags = Uint8Array;

/**
 * The image the samples were taken from (sampleLab over `mask`, all of it when null; its edges wrap round for a
 * repeat's tile), for the area each colour covers in it.
 */
export interface SampledImage {
  readonly L: Float32Array;
  readonly a: Float32Array;
  readonly b: Float32Array;
  readonly w: number;
  readonly h: number;
  readonly mask: Uint8Array | null;
  readonly wrap: boolean;
}

export function paletteOf(
  samples: LabSamples,
  k = 5,
  edges?: EdgeFlags,
  image?: SampledImage,
): PaletteEntry[] {
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
    .map(([key, v]) => ({ key, L: v.L / v.count, a: v.a / v.count, b: v.b / v.count, count: v.count }));
  /** The samples in a cell and its 26 neighbours. */
  const around = (key: number) => {
    let sum = 0;
    for (const dL of [-10000, 0, 10000])
      for (const da of [-100, 0, 100])
        for (const db of [-1, 0, 1]) sum += bins.get(key + dL + da + db)?.count ?? 0;
    return sum;
  };
  const centres: Lab[] = [];
  for (const c of ranked) {
    if (centres.length >= k + (edges ? SPARE_SEEDS : 0)) break;
    if (c.count >= n * 0.005 || centres.length === 0) {
      if (centres.every((s) => deltaE76(s, c) >= 12)) centres.push({ L: c.L, a: c.a, b: c.b });
      continue;
    }
    // A photo spreads a small motif's colour over several cells: it counts with its neighbours, when it is far
    // from the colours taken (a red dot on cream), not a shade of one of them (a fold's shadow).
    if (!edges) break;
    if (around(c.key) >= n * 0.005 && centres.every((s) => deltaE76(s, c) >= 2 * 12))
      centres.push({ L: c.L, a: c.a, b: c.b });
  }
  const assign = new Int32Array(n);
  let sums = new Float64Array(centres.length * 4);
  for (let iter = 0; iter < 10; iter++) {
    sums = new Float64Array(centres.length * 4);
    // deltaE76 written out over flat centres: the photo analysis' and verify's largest loop, it allocated a
    // sample object per sample and iteration.
    const flat = Float64Array.from(centres.flatMap((c) => [c.L, c.a, c.b]));
    for (let i = 0; i < n; i++) {
      const L = samples[i * 3]!;
      const a = samples[i * 3 + 1]!;
      const b = samples[i * 3 + 2]!;
      let best = 0;
      let bd = Number.POSITIVE_INFINITY;
      for (let c = 0; c < centres.length; c++) {
        const dL = L - flat[c * 3]!;
        const da = a - flat[c * 3 + 1]!;
        const db = b - flat[c * 3 + 2]!;
        const d = Math.sqrt(dL * dL + da * da + db * db);
        if (d < bd) {
          bd = d;
          best = c;
        }
      }
      assign[i] = best;
      sums[best * 4] = sums[best * 4]! + L;
      sums[best * 4 + 1] = sums[best * 4 + 1]! + a;
      sums[best * 4 + 2] = sums[best * 4 + 2]! + b;
      sums[best * 4 + 3] = sums[best * 4 + 3]! + 1;
    }
    for (let c = 0; c < centres.length; c++) {
      const cnt = sums[c * 4 + 3]!;
      if (cnt > 0)
        centres[c] = { L: sums[c * 4]! / cnt, a: sums[c * 4 + 1]! / cnt, b: sums[c * 4 + 2]! / cnt };
    }
  }
  let clusters = centres.map((lab, c) => ({ lab, count: sums[c * 4 + 3]!, edge: 0 }));
  if (edges) {
    for (let i = 0; i < n; i++) if (edges[i]) clusters[assign[i]!]!.edge++;
  }
  // Merge near-identical clusters (weighted), largest first.
  clusters.sort((p, q) => q.count - p.count);
  const merged: Cluster[] = [];
  for (const c of clusters) {
    const into = merged.find((m) => deltaE76(m.lab, c.lab) < 6);
    if (into) {
      const t = into.count + c.count;
      into.edge += c.edge;
      into.lab = {
        L: (into.lab.L * into.count + c.lab.L * c.count) / t,
        a: (into.lab.a * into.count + c.lab.a * c.count) / t,
        b: (into.lab.b * into.count + c.lab.b * c.count) / t,
      };
      into.count = t;
    } else merged.push({ ...c });
  }
  clusters = (edges ? withoutMixtures(merged, image) : merged).filter((c) => c.count >= n * 0.015);
  clusters = clusters.sort((p, q) => q.count - p.count).slice(0, k);
  const total = clusters.reduce((s, c) => s + c.count, 0);
  return clusters.map((c) => ({
    hex: hexOf(labToRgb(c.lab)),
    lab: roundLab(c.lab),
    share: Math.round((c.count / total) * 1000) / 1000,
  }));
}

/**
 * Seeds taken beyond the `k` colours asked for: a print's edges mixed by JPEG (a pink rim between red and white)
 * fill cells of their own, more of them the larger the photo, and may take the seeds before a small colour of
 * the print (a flower's yellow heart), which then joins the nearest colour taken (a leaf's green turned olive).
 * The mixtures are counted into their neighbours after (withoutMixtures) and the palette cut to `k`. Only for a
 * photo (told its edges).
 */
const SPARE_SEEDS = 2;

/** A cluster within this of the segment between two other clusters' colours (a, b) lies between them. */
const BETWEEN_DE = 10;
/** …and is a mixture of them when more than this share of its pixels lie on the print's edges… */
const MIXTURE_EDGE_SHARE = 0.8;
/** …or when under this share of its pixels lie inside an area of it (all 8 neighbours its own). */
const MIXTURE_INNER_SHARE = 0.1;

interface Cluster {
  lab: Lab;
  count: number;
  edge: number;
}

/**
 * `clusters` with each mixture (smallest first) counted into the nearer of the two colours it lies between.
 * Between in chroma, and in lightness no further out than either: JPEG keeps the lightness sharp and blurs the
 * chroma, so a navy disc's rim on cream is as dark as the disc and half as blue. A mixture lies mostly on the
 * print's edges; or, in `image`, covers no area of its own: JPEG's 4:2:0 blocks carry a red dot's chroma out in
 * a ring round it and in specks across its 16 px block (a pink "halo" beside red and white), each a px or two
 * wide, where a colour of the print fills areas of its own.
 */
function withoutMixtures(clusters: readonly Cluster[], image?: SampledImage): Cluster[] {
  const kept = clusters.map((c) => ({ ...c }));
  let inner: Float64Array | null = null;
  for (const c of [...kept].sort((p, q) => p.count - q.count)) {
    const into = between(c, kept);
    if (!into) continue;
    if (c.edge <= MIXTURE_EDGE_SHARE * c.count) {
      if (!image) continue;
      inner ??= innerShares(image, clusters);
      if (inner[clusters.findIndex((q) => q.lab === c.lab)]! >= MIXTURE_INNER_SHARE) continue;
    }
    into.count += c.count;
    kept.splice(kept.indexOf(c), 1);
  }
  return kept;
}

/** Per cluster, the share of the image's px nearest it whose 8 neighbours (in the image) are nearest it too. */
function innerShares(image: SampledImage, clusters: readonly Cluster[]): Float64Array {
  const { L, a, b, w, h, mask, wrap } = image;
  const nearest = new Int8Array(w * h).fill(-1);
  for (let i = 0; i < w * h; i++) {
    if (mask && !mask[i]) continue;
    let best = 0;
    let bd = Number.POSITIVE_INFINITY;
    for (let c = 0; c < clusters.length; c++) {
      const q = clusters[c]!.lab;
      const d = (L[i]! - q.L) ** 2 + (a[i]! - q.a) ** 2 + (b[i]! - q.b) ** 2;
      if (d < bd) [best, bd] = [c, d];
    }
    nearest[i] = best;
  }
  const all = new Float64Array(clusters.length);
  const inside = new Float64Array(clusters.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = nearest[y * w + x]!;
      if (c < 0) continue;
      all[c]!++;
      let own = true;
      for (let j = -1; j <= 1 && own; j++) {
        for (let i = -1; i <= 1; i++) {
          let nx = x + i;
          let ny = y + j;
          if (wrap) [nx, ny] = [(nx + w) % w, (ny + h) % h];
          else if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          if (nearest[ny * w + nx] !== c) {
            own = false;
            break;
          }
        }
      }
      if (own) inside[c]!++;
    }
  }
  return inside.map((v, c) => (all[c] ? v / all[c]! : 0));
}

/** The nearer of two clusters `c` lies between, or null. */
function between(c: Cluster, all: readonly Cluster[]): Cluster | null {
  for (const p of all) {
    for (const q of all) {
      if (p === c || q === c || p === q) continue;
      if (
        c.lab.L < Math.min(p.lab.L, q.lab.L) - BETWEEN_DE ||
        c.lab.L > Math.max(p.lab.L, q.lab.L) + BETWEEN_DE
      )
        continue;
      const da = q.lab.a - p.lab.a;
      const db = q.lab.b - p.lab.b;
      const va = c.lab.a - p.lab.a;
      const vb = c.lab.b - p.lab.b;
      const t = (va * da + vb * db) / (da * da + db * db || 1);
      if (t <= 0 || t >= 1 || Math.hypot(va - t * da, vb - t * db) > BETWEEN_DE) continue;
      return deltaE76(c.lab, p.lab) <= deltaE76(c.lab, q.lab) ? p : q;
    }
  }
  return null;
}

/** ΔE76 to a pixel near it (NEAR) above which a pixel lies on an edge of the print. */
const EDGE_DE = 8;
/** JPEG's 4:2:0 chroma blurs an edge over 2 px on either side. */
const NEAR = [1, 2].flatMap((d) => [
  [d, 0],
  [-d, 0],
  [0, d],
  [0, -d],
]) as readonly (readonly [number, number])[];

/**
 * Per pixel of `mask` (all when null), in sampleLab's order and sampling, 1 when it lies on an edge of the
 * print: a pixel 1 or 2 px across or along from it (on the mask; across the tile's edges when `wrap`, for a
 * repeat's tile) more than EDGE_DE from it.
 */
export function edgeFlags(
  L: Float32Array,
  a: Float32Array,
  b: Float32Array,
  w: number,
  h: number,
  mask: Uint8Array | null,
  wrap: boolean,
  max = 40_000,
): EdgeFlags {
  const on = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (mask && !mask[i]) continue;
      for (const [dx, dy] of NEAR) {
        let nx = x + dx;
        let ny = y + dy;
        if (wrap) {
          nx = (nx + w) % w;
          ny = (ny + h) % h;
        } else if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
        const j = ny * w + nx;
        if (mask && !mask[j]) continue;
        if ((L[i]! - L[j]!) ** 2 + (a[i]! - a[j]!) ** 2 + (b[i]! - b[j]!) ** 2 > EDGE_DE * EDGE_DE) {
          on[i] = 1;
          break;
        }
      }
    }
  }
  const s = sampleLab(on, on, on, mask, max);
  return Uint8Array.from({ length: s.length / 3 }, (_, i) => s[i * 3]!);
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
