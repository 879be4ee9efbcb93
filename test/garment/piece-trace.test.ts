/**
 * A facing is traced from the piece it faces: laid over it, a long stretch of its outline lies on that piece's
 * outline, however the marker turned or mirrored it; a pocket or a band of that garment only touches it along a
 * straight edge or into a corner. Real pieces (FreeSewing's Carlton coat, drafted by its own code) rasterised as
 * a marker would.
 */
import { describe, expect, it } from 'vitest';
import { loadGarments } from '../../scripts/piece-training.js';
import { TRACE_SIDE, type TracePiece, tracedOn, tracePiece } from '../../src/garment/builtin/piece-trace.js';
import { measuredPiece } from './freesewing-fixtures.js';

const { garments, seamAllowanceMm } = loadGarments();
const PX_PER_MM = 0.5;
const coat = garments.find((g) => g.id === 'carlton-cisMaleAdult42')!;

const shape = (piece: string, turns = 0, mirrored = false) =>
  measuredPiece(coat.pieces.find((x) => x.name === piece)!, PX_PER_MM, seamAllowanceMm, turns, mirrored);

const front = shape('carlton.front');
/** The garment's common scale: its largest piece TRACE_SIDE px long. */
const scale = Math.max(front.bounds.w, front.bounds.h) / TRACE_SIDE;

function mask(piece: string, turns = 0, mirrored = false): TracePiece {
  const s = shape(piece, turns, mirrored);
  return tracePiece(s.mask, s.bounds.w, s.bounds.h, scale);
}

describe('a piece traced from a body piece', () => {
  const host = mask('carlton.front');

  it('finds the front facing along the front’s edge, whichever way the marker lays it down', () => {
    const seen = [0, 1, 2, 3].flatMap((turns) =>
      [false, true].map((mirrored) => tracedOn(mask('carlton.frontFacing', turns, mirrored), host)),
    );
    for (const t of seen) {
      // The facing runs the front's whole centre front and lapel: about half its perimeter, turning with it.
      expect(t.length).toBeGreaterThan(0.4);
      expect(t.turn).toBeGreaterThan(Math.PI);
    }
    const spread = (v: number[]) => Math.max(...v) - Math.min(...v);
    expect(spread(seen.map((t) => t.length))).toBeLessThan(0.02);
    expect(spread(seen.map((t) => t.turn))).toBeLessThan(0.3);
  });

  it('tells it from the coat’s pockets, flaps, welts and belt', () => {
    const facing = tracedOn(mask('carlton.frontFacing'), host).length;
    for (const piece of [
      'carlton.pocket',
      'carlton.pocketFlap',
      'carlton.chestPocketBag',
      'carlton.chestPocketWelt',
      'carlton.belt',
    ]) {
      const other = tracedOn(mask(piece), host).length;
      expect(other, piece).toBeLessThan(facing * 0.7);
    }
  });

  it('reports nothing for a piece that does not fit inside', () => {
    expect(tracedOn(mask('carlton.tail'), mask('carlton.pocket'))).toEqual({ length: 0, turn: 0 });
  });
});
