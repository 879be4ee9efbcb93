/**
 * Training and evaluation of the part classifier (src/garment/builtin/piece-model.ts), shared by
 * scripts/train-piece-model.ts (which ships the model) and test/garment/piece-model.test.ts (which trains the
 * same way inside each leave-one-design-out fold): the drafted garments of test/fixtures/freesewing rasterised
 * as marker layers — every cut copy, even copies mirrored, pieces turned by quarter turns — measured by the
 * same code identify_pieces runs.
 */
import { readFileSync } from 'node:fs';
import type { PixelLayer } from '../src/engine/model.js';
import {
  FEATURES,
  frontnessVector,
  type GarmentKind,
  LABELS,
  type Label,
  type PieceModel,
  prototypeOf,
  scores,
  standardise,
} from '../src/garment/builtin/piece-model.js';
import { describeGarment, type GarmentTypes, measure } from '../src/garment/builtin/pieces.js';
import type { PieceShape } from '../src/garment/types.js';
import { rng } from '../test/support/rng.js';
import { type FitOptions, fitNets, type NetFitter, type Sample } from './fit-net.js';
import { rasterisePiece } from './piece-raster.js';

export { type FitOptions, fitNets, type NetFitter, type Sample };

export interface DraftedPiece {
  readonly name: string;
  readonly label: Label;
  readonly zh: string;
  readonly en: string;
  readonly cut: number;
  readonly widthMm: number;
  readonly heightMm: number;
  readonly poly: readonly (readonly [number, number])[];
}

export interface DraftedGarment {
  readonly id: string;
  readonly design: string;
  readonly size: string;
  readonly set: 'freesewing' | 'drafted';
  readonly kind: GarmentKind;
  readonly pieces: readonly DraftedPiece[];
}

interface FixtureFile {
  readonly seamAllowanceMm: number;
  readonly versions: Readonly<Record<string, string>>;
  readonly garments: readonly DraftedGarment[];
}

const FIXTURES = new URL('../test/fixtures/freesewing/', import.meta.url);

/** FreeSewing's designs (pieces.json) and ours (drafted.json). */
export function loadGarments(): {
  garments: DraftedGarment[];
  seamAllowanceMm: number;
  versions: Record<string, string>;
} {
  const files = ['pieces.json', 'drafted.json'].map(
    (f) => JSON.parse(readFileSync(new URL(f, FIXTURES), 'utf8')) as FixtureFile,
  );
  return {
    garments: files.flatMap((f) => f.garments),
    seamAllowanceMm: files[0]!.seamAllowanceMm,
    versions: { ...files[0]!.versions },
  };
}

/** How the marker lays the pieces down: every piece turned by `turns` quarter turns, or each copy at random. */
export type Layout = { readonly turns: 0 | 1 | 2 | 3 } | { readonly seed: number };

export const LAYOUTS: readonly Layout[] = [
  { turns: 0 },
  { turns: 1 },
  { turns: 2 },
  { turns: 3 },
  { seed: 1 },
];

export interface LaidOut {
  readonly shapes: PieceShape[];
  readonly truth: Label[];
  /** FreeSewing or drafter part name and copy, e.g. "simon.cuff#3". */
  readonly sources: string[];
  /** How each layer was laid down: quarter turns clockwise, and whether it was mirrored first. */
  readonly lay: { readonly turns: number; readonly mirrored: boolean }[];
}

/** The garment's layers as identify_pieces measures them (each copy at its own place, named meaninglessly). */
export function layOut(g: DraftedGarment, layout: Layout, pxPerMm: number, saMm: number): LaidOut {
  const rnd = 'seed' in layout ? rng(layout.seed * 7919 + g.id.length * 31 + g.pieces.length) : null;
  const shapes: PieceShape[] = [];
  const truth: Label[] = [];
  const sources: string[] = [];
  const lay: { turns: number; mirrored: boolean }[] = [];
  let x = 0;
  for (const p of g.pieces) {
    for (let c = 1; c <= p.cut; c++) {
      const turns = rnd ? Math.floor(rnd() * 4) : (layout as { turns: number }).turns;
      const r = rasterisePiece(p, pxPerMm, saMm, turns, c % 2 === 0);
      lay.push({ turns, mirrored: c % 2 === 0 });
      const layer = {
        kind: 'pixel',
        id: shapes.length + 1,
        name: `图层 ${shapes.length + 1}`,
        raster: { x, y: 0, w: r.w, h: r.h, data: r.data },
      } as unknown as PixelLayer;
      x += r.w + 10;
      const s = measure(layer);
      if (!s) throw new Error(`${g.id}: ${p.name} rasterised empty`);
      shapes.push(s);
      truth.push(p.label);
      sources.push(`${p.name}#${c}`);
    }
  }
  return { shapes, truth, sources, lay };
}

/** A garment laid out and described: its distinct pieces with their features and true labels. */
export interface Described {
  readonly garment: DraftedGarment;
  readonly layout: Layout;
  readonly laid: LaidOut;
  readonly types: GarmentTypes;
  /** The true label of each distinct piece (its first copy's). */
  readonly labels: Label[];
}

export function describe(g: DraftedGarment, layout: Layout, pxPerMm: number, saMm: number): Described {
  const laid = layOut(g, layout, pxPerMm, saMm);
  const types = describeGarment(laid.shapes);
  return { garment: g, layout, laid, types, labels: types.members.map((m) => laid.truth[m[0]!]!) };
}

export function samplesOf(described: readonly Described[]): Sample[] {
  return described.flatMap((d) =>
    d.types.vectors.map((x, i) => ({
      x,
      y: LABELS.indexOf(d.labels[i]!),
      // Accuracy counts layers: a piece cut four times weighs more, but not four times.
      weight: Math.sqrt(d.types.inputs[i]!.copies),
    })),
  );
}

export const FIT: FitOptions = { nets: 3, hidden: 16, l2: 0.003, iterations: 300, rate: 0.01 };

/**
 * A one-hidden-layer perceptron (tanh) on standardised features, full-batch Adam with L2, classes weighted by
 * the inverse square root of their frequency so that rare parts (hoods, waistbands) count. Seeded: the same
 * samples give the same model.
 */
export function trainModel(
  described: readonly Described[],
  trainedOn: string,
  opt: FitOptions = FIT,
  temperature = 1,
  fitter: NetFitter = fitNets,
): PieceModel {
  const samples = samplesOf(described);
  const d = samples[0]!.x.length;
  const mean = Array.from({ length: d }, (_, j) => samples.reduce((s, r) => s + r.x[j]!, 0) / samples.length);
  const std = mean.map((m, j) => {
    const v = samples.reduce((s, r) => s + (r.x[j]! - m) ** 2, 0) / samples.length;
    return Math.sqrt(v) || 1;
  });
  const r = (v: number) => Math.round(v * 1e5) / 1e5;
  const standard = { mean: mean.map(r), std: std.map(r) };
  return {
    version: 9,
    features: FEATURES.map((f) => f[0]),
    ...standard,
    nets: fitter(samples, mean, std, opt),
    temperature,
    frontness: fitFrontness(described),
    library: described.flatMap((d, garment) => {
      const maxArea = Math.max(...d.types.inputs.map((t) => t.area));
      return d.types.inputs.map((t, i) =>
        prototypeOf(
          d.labels[i]!,
          t,
          maxArea,
          garment,
          standardise(standard, d.types.vectors[i]!),
          d.laid.lay[d.types.reps[i]!],
        ),
      );
    }),
    kinds: described.map((d) => d.garment.kind),
    trainedOn,
  };
}

/**
 * The pairwise front/back model: logistic regression without intercept on s(front) − s(back) over every
 * front–back pair of pieces of each training garment (and the reversed pair as a negative), standardised.
 */
export function fitFrontness(described: readonly Described[]): PieceModel['frontness'] {
  const pairs: number[][] = [];
  const bodies: number[][] = [];
  for (const g of described) {
    const v = g.types.inputs.map((t) => frontnessVector(t, g.types.inputs, g.garment.kind));
    const fronts = g.labels.flatMap((l, i) => (l === 'front' ? [i] : []));
    const backs = g.labels.flatMap((l, i) => (l === 'back' ? [i] : []));
    for (const i of [...fronts, ...backs]) bodies.push(v[i]!);
    for (const f of fronts) for (const b of backs) pairs.push(v[f]!.map((x, k) => x - v[b]![k]!));
  }
  const d = bodies[0]!.length;
  const mean = Array.from({ length: d }, (_, j) => bodies.reduce((s, r) => s + r[j]!, 0) / bodies.length);
  const std = mean.map(
    (m, j) => Math.sqrt(bodies.reduce((s, r) => s + (r[j]! - m) ** 2, 0) / bodies.length) || 1,
  );
  // Differences: the mean cancels, only the scale matters.
  const xs = pairs.map((p) => p.map((x, j) => x / std[j]!));
  const w = new Float64Array(d);
  for (let it = 0; it < 500; it++) {
    const g = new Float64Array(d);
    for (const x of xs) {
      // Label 1 for (front − back); the mirrored pair (back − front) with label 0 gives the same gradient.
      let z = 0;
      for (let j = 0; j < d; j++) z += w[j]! * x[j]!;
      const e = 1 / (1 + Math.exp(z));
      for (let j = 0; j < d; j++) g[j] = g[j]! - (e * x[j]!) / xs.length;
    }
    for (let j = 0; j < d; j++) w[j] = w[j]! - 0.5 * (g[j]! + 0.01 * w[j]!);
  }
  const r = (v: number) => Math.round(v * 1e5) / 1e5;
  return { mean: mean.map(r), std: std.map(r), weights: [...w].map(r) };
}

/**
 * What the model is trained on: each garment with every copy turned at random, as a marker lays it. One layout
 * is enough: the features do not change with turns and mirrors (a second, as-drafted copy of every garment
 * doubled the training time for rasterisation noise).
 */
export const TRAINING_LAYOUTS: readonly Layout[] = [{ seed: 1 }];

/**
 * The layouts a held-out garment is measured in: as drafted, one quarter turn (90°, 180°, 270° in turn over the
 * sizes of a design, so each design is seen in all of them) and every copy turned at random — three of the
 * five LAYOUTS per garment, which keeps the leave-one-design-out test within its time on two cores.
 */
export function evaluationLayouts(sizeIndex: number): Layout[] {
  return [{ turns: 0 }, { turns: (1 + (sizeIndex % 3)) as 1 | 2 | 3 }, { seed: 1 }];
}
/** Rasterised at 0.5 px/mm: the proxy resolution identify works at anyway. */
export const TRAINING_PX_PER_MM = 0.5;

/**
 * The softmax temperature that makes held-out probabilities honest: each design's pieces scored by a model
 * trained on the other designs, then the temperature (1…8) maximising the log-likelihood of their true parts.
 */
export function fitTemperature(
  described: readonly Described[],
  opt: FitOptions = FIT,
  fitter: NetFitter = fitNets,
): number {
  const held: { z: number[][]; y: number }[] = [];
  for (const design of new Set(described.map((d) => d.garment.design))) {
    const model = trainModel(
      described.filter((d) => d.garment.design !== design),
      'fold',
      opt,
      1,
      fitter,
    );
    for (const d of described.filter((x) => x.garment.design === design)) {
      d.types.vectors.forEach((x, i) => {
        const z = standardise(model, x);
        held.push({ z: model.nets.map((net) => scores(net, z)), y: LABELS.indexOf(d.labels[i]!) });
      });
    }
  }
  let best = 1;
  let bestLl = -Infinity;
  for (let t = 1; t <= 8; t += 0.25) {
    let ll = 0;
    for (const h of held) {
      let p = 0;
      for (const s of h.z) {
        const m = Math.max(...s);
        const e = s.map((v) => Math.exp((v - m) / t));
        p += e[h.y]! / e.reduce((a, b) => a + b, 0) / h.z.length;
      }
      ll += Math.log(Math.max(p, 1e-12));
    }
    if (ll > bestLl) {
      bestLl = ll;
      best = t;
    }
  }
  return best;
}
