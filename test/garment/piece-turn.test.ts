/**
 * How a marker lays each body piece, read by the shape library (src/garment/builtin/piece-turn.ts), measured
 * honestly: for every design, its own prototypes are taken out of the shipped library (each prototype names the
 * training garment it was cut for, in the fixtures' order), and one size of it is laid out upright, a quarter
 * turn clockwise, a half turn, and each copy turned at random (even copies mirrored). The part is given: the turn is read
 * after the part is decided. `npx vitest run test/garment/piece-turn.test.ts` prints the table kept in
 * test/fixtures/freesewing/README.md.
 */
import { describe, expect, it } from 'vitest';
import { type Layout, layOut, loadGarments, TRAINING_PX_PER_MM } from '../../scripts/piece-training.js';
import { PIECE_MODEL } from '../../src/garment/builtin/piece-model-data.js';
import { TURNED_PARTS, turnOf } from '../../src/garment/builtin/piece-turn.js';

const { garments, seamAllowanceMm } = loadGarments();

describe('reading how a body piece lies, left one design out', () => {
  it('puts the grain along the garment for fronts, backs and sleeves, and leaves upright pieces alone', () => {
    expect(PIECE_MODEL.kinds.length, 'one training garment per fixture garment, in order').toBe(
      garments.length,
    );
    const designOf = (garment: number) => garments[garment]!.design;
    const seen = new Set<string>();
    /**
     * Per part: layers, grain axis right, laid upright and of those left so, laid sideways and of those the quarter turn right too, laid upside down
     * and of those the half turn read (sleeves) or left as drawn (fronts and backs: up is not read).
     */
    const tally = new Map<
      string,
      {
        n: number;
        axis: number;
        upright: number;
        kept: number;
        sideways: number;
        turn: number;
        upside: number;
        half: number;
      }
    >();
    for (const g of garments) {
      if (seen.has(g.design)) continue;
      seen.add(g.design);
      const library = PIECE_MODEL.library.filter((p) => designOf(p[6]) !== g.design);
      for (const layout of [{ turns: 0 }, { turns: 1 }, { turns: 2 }, { seed: 1 }] satisfies Layout[]) {
        const laid = layOut(g, layout, TRAINING_PX_PER_MM, seamAllowanceMm);
        const maxArea = Math.max(...laid.shapes.map((s) => s.area));
        laid.shapes.forEach((shape, i) => {
          const label = laid.truth[i]!;
          if (!TURNED_PARTS.has(label)) return;
          const q = laid.lay[i]!.turns;
          const grain = turnOf(library, shape, label, maxArea);
          const t = tally.get(label) ?? {
            n: 0,
            axis: 0,
            upright: 0,
            kept: 0,
            sideways: 0,
            turn: 0,
            upside: 0,
            half: 0,
          };
          const got = (grain?.turn ?? 0) / 90;
          t.n++;
          if (got % 2 === q % 2) t.axis++;
          if (q === 0) {
            t.upright++;
            if (got === 0) t.kept++;
          }
          if (q % 2 === 1) {
            t.sideways++;
            if (got === q) t.turn++;
          }
          if (q === 2) {
            t.upside++;
            if (got === (label === 'sleeve' ? 2 : 0)) t.half++;
          }
          tally.set(label, t);
        });
      }
    }
    const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
    const rows = [...tally].map(
      ([part, t]) =>
        `${part.padEnd(8)} ${String(t.n).padStart(5)} layers   grain axis ${pct(t.axis, t.n).padStart(6)}   upright kept ${pct(t.kept, t.upright).padStart(6)}   sideways ${String(t.sideways).padStart(4)}, quarter turn right ${pct(t.turn, t.sideways).padStart(6)}   upside down ${String(t.upside).padStart(4)}, ${part === 'sleeve' ? 'half turn read' : 'left as drawn'} ${pct(t.half, t.upside).padStart(6)}`,
    );
    console.log(`turns read left one design out (${seen.size} designs, 3 layouts):\n${rows.join('\n')}`);
    for (const [part, t] of tally) {
      expect(t.axis / t.n, `${part}: grain axis`).toBeGreaterThanOrEqual(part === 'sleeve' ? 0.93 : 0.97);
      expect(t.turn / t.sideways, `${part}: which quarter turn`).toBeGreaterThanOrEqual(0.75);
      expect(t.half / t.upside, `${part}: upside down`).toBeGreaterThanOrEqual(0.95);
      expect(t.kept / t.upright, `${part}: upright`).toBeGreaterThanOrEqual(0.95);
    }
  }, 600_000);
});
