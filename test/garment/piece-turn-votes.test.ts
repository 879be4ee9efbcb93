/**
 * turnVotes finds its nearest prototypes by a bounded search (piece-turn.ts); the votes must be exactly those of
 * aligning every prototype of the part and sorting them all, the code it replaced, kept here as the reference.
 */
import { describe, expect, it } from 'vitest';
import { layOut, loadGarments, TRAINING_PX_PER_MM } from '../../scripts/piece-training.js';
import { proxyOf, signatureOf } from '../../src/garment/builtin/piece-features.js';
import {
  bestAlignment,
  decode,
  LABELS,
  type Label,
  type Prototype,
  SIZE_WEIGHT,
} from '../../src/garment/builtin/piece-model.js';
import { PIECE_MODEL } from '../../src/garment/builtin/piece-model-data.js';
import { TURNED_PARTS, turnVotes } from '../../src/garment/builtin/piece-turn.js';

function allVotes(library: readonly Prototype[], signature: readonly number[], label: Label, rel: number) {
  const decoded = decode(library);
  const index = LABELS.indexOf(label);
  const near: { d: number; q: number }[] = [];
  library.forEach((p, k) => {
    const lay = p[8];
    if (p[0] !== index || lay === undefined) return;
    const a = bestAlignment(signature, decoded[k]!.signature);
    const d = a.distance + SIZE_WEIGHT * Math.abs(rel - p[1] / 1000);
    const theta = a.dir === 1 ? -a.shift * (360 / 64) : (a.shift - 31) * (360 / 64);
    const own = (lay % 4) * 90;
    const degrees = a.dir === 1 ? theta + own : theta - own;
    near.push({ d, q: ((Math.round(degrees / 90) % 4) + 4) % 4 });
  });
  near.sort((x, y) => x.d - y.d);
  const out = [0, 0, 0, 0];
  for (const n of near.slice(0, 5)) out[n.q]! += 1 / (n.d + 0.02);
  return out;
}

describe('turnVotes', () => {
  it('votes as aligning every prototype does, on fronts, backs and sleeves laid every way', () => {
    const { garments, seamAllowanceMm } = loadGarments();
    let compared = 0;
    for (const g of garments.filter((_, i) => i % 30 === 0)) {
      for (const layout of [{ turns: 1 }, { seed: 3 }] as const) {
        const laid = layOut(g, layout, TRAINING_PX_PER_MM, seamAllowanceMm);
        const maxArea = Math.max(...laid.shapes.map((s) => s.area));
        laid.shapes.forEach((shape, i) => {
          const label = laid.truth[i]!;
          if (!TURNED_PARTS.has(label)) return;
          const signature = signatureOf(proxyOf(shape.mask, shape.bounds.w, shape.bounds.h));
          const rel = Math.log(shape.area / maxArea);
          // The shipped library, and one without the garment's own design (its nearest prototypes gone).
          for (const library of [PIECE_MODEL.library, PIECE_MODEL.library.filter((p) => p[6] !== i % 7)]) {
            expect(turnVotes(library, signature, label, rel)).toEqual(
              allVotes(library, signature, label, rel),
            );
            compared++;
          }
        });
      }
    }
    expect(compared).toBeGreaterThan(40);
  }, 300_000);
});
