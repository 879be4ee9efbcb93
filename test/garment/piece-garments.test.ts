/**
 * Garment matching (piece-model.ts' garmentVotes): a garment's pieces matched one to one with each training
 * garment's, every piece taking the part of its counterparts in the best-matched garments, and the garment
 * read as a top or a bottom as most of them are (garmentKind; measured on held-out designs in
 * piece-model.test.ts). Real drafted garments: a library of three sizes of four designs, queried with the
 * fourth size of each laid out at random turns.
 */
import { describe, expect, it } from 'vitest';
import { describe as describeLaidOut, loadGarments } from '../../scripts/piece-training.js';
import {
  featureDistance,
  garmentCosts,
  garmentKind,
  garmentVotes,
  LABELS,
  matchGarments,
  prototypeOf,
  withFeatures,
} from '../../src/garment/builtin/piece-model.js';

const { garments, seamAllowanceMm } = loadGarments();
const PX_PER_MM = 0.5;
const DESIGNS = ['Shirt', 'Trousers', 'Hoodie', 'Blazer'];

const laidOut = (size: string, seed: number) =>
  DESIGNS.map((design) => {
    const g = garments.find((x) => x.design === design && x.size === size)!;
    return describeLaidOut(g, { seed }, PX_PER_MM, seamAllowanceMm);
  });

const library = ['S', 'M', 'XL-long']
  .flatMap((size, k) => laidOut(size, 3 + k))
  .flatMap((d, garment) => {
    const maxArea = Math.max(...d.types.inputs.map((t) => t.area));
    return d.types.inputs.map((t, i) => prototypeOf(d.labels[i]!, t, maxArea, garment));
  });

const votesOf = (inputs: Parameters<typeof garmentCosts>[1]) =>
  garmentVotes(
    library,
    matchGarments(garmentCosts(library, inputs, Math.max(...inputs.map((t) => t.area)))),
    inputs.length,
  );
const argmax = (v: readonly number[]) => LABELS[v.indexOf(Math.max(...v))]!;

describe('garment matching', () => {
  it('gives every piece of another size the part of its counterpart: bands by their place in the garment', () => {
    const queries = laidOut('L', 5);
    for (const d of queries) {
      const votes = votesOf(d.types.inputs);
      const got = votes.map(argmax);
      expect(got, d.garment.id).toEqual(d.labels);
      // The three sizes of the same design are among the four best-matched garments: at least three votes of four.
      for (const v of votes) expect(Math.max(...v)).toBeGreaterThan(0.7);
    }
    // The rectangles a silhouette alone confuses: a shirt's cuff (cut four times), a hoodie's hem band and cuffs,
    // a trouser waistband.
    const all = queries.flatMap((d) => d.labels);
    for (const part of ['cuff', 'waistband', 'pocket', 'collar', 'hood', 'other'] as const)
      expect(all).toContain(part);
  });

  it('does not depend on the order of the layers', () => {
    const [shirt] = laidOut('XL-long', 7);
    const inputs = shirt!.types.inputs;
    const order = inputs.map((_, i) => i).reverse();
    const forward = votesOf(inputs);
    const backward = votesOf(order.map((i) => inputs[i]!));
    order.forEach((i, k) => {
      expect(backward[k]).toEqual(forward[i]);
    });
  });

  it('reads a garment as a top or a bottom as most of its twelve best-matched garments are', () => {
    const kinds = ['top', 'bottom', 'top', 'bottom'] as const;
    const ranked = (...garmentsInOrder: number[]) =>
      garmentsInOrder.map((garment, k) => ({ garment, distance: k / 10, to: [] }));
    // 7 of the 12 best are bottoms; the 13th onwards do not vote.
    expect(garmentKind(kinds, ranked(1, 3, 1, 3, 1, 3, 1, 0, 2, 0, 2, 0, 0, 0, 0, 0))).toBe('bottom');
    expect(garmentKind(kinds, ranked(0, 2, 0, 2, 0, 2, 0, 1, 3, 1, 3, 1, 1, 1, 1, 1))).toBe('top');
    // A tie reads as a top; so does a library of one garment.
    expect(garmentKind(kinds, ranked(0, 1, 2, 3))).toBe('top');
    expect(garmentKind(kinds, ranked(1))).toBe('bottom');
  });
});

describe('features in garment matching', () => {
  it('measure the root-mean-square difference, a feature counting at most 3 standard deviations', () => {
    expect(featureDistance([0.5, -1, 2, 0], [0.5, -1, 2, 0])).toBe(0);
    expect(featureDistance([1, 0, 0, 0], [0, 0, 0, 0])).toBeCloseTo(0.5, 12);
    expect(featureDistance([10, 0, 0, 0], [0, 0, 0, 0])).toBeCloseTo(1.5, 12);
  });

  it('add a tenth of that distance to every pair, from the vectors the prototypes carry', () => {
    const [shirt, trousers] = laidOut('S', 3);
    const z = (d: typeof shirt) => d!.types.vectors.map((v) => v.map((x, k) => Math.sin(x + k)));
    const maxArea = Math.max(...shirt!.types.inputs.map((t) => t.area));
    const lib = shirt!.types.inputs.map((t, i) => prototypeOf(shirt!.labels[i]!, t, maxArea, 0, z(shirt)[i]));
    const query = trousers!.types.inputs;
    const costs = garmentCosts(lib, query, Math.max(...query.map((t) => t.area)));
    const zq = z(trousers);
    const withZ = withFeatures(lib, costs, zq);
    costs[0]!.pairs.forEach((row, i) => {
      row.forEach((d, j) => {
        const want = d + 0.1 * featureDistance(zq[i]!, z(shirt)[j]!);
        // The prototypes store each feature to 1/40 of a standard deviation.
        expect(Math.abs(withZ[0]!.pairs[i]![j]! - want)).toBeLessThan(0.1 * (1 / 80) + 1e-9);
      });
    });
    // A library without vectors (an older model's, or this file's) is matched by outline alone.
    expect(withFeatures(library, garmentCosts(library, query, 1), zq)).toEqual(
      garmentCosts(library, query, 1),
    );
  });
});
