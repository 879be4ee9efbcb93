/**
 * The part classifier's shape features do not depend on how a marker lays a piece down: real pieces
 * (FreeSewing's and drafted ones) rasterised turned by 90°, 180°, 270° and mirrored give the same features,
 * within a stated tolerance, as the piece as drafted — while different pieces give different ones.
 */
import { describe, expect, it } from 'vitest';
import { loadGarments } from '../../scripts/piece-training.js';
import {
  LAY_DOWNS,
  outline,
  type ShapeFeatures,
  shapeFeatures,
  turningFunction,
} from '../../src/garment/builtin/piece-features.js';
import {
  assertFeaturesMatch,
  FEATURES,
  type PieceModel,
  signatureDistance,
  turningDistance,
} from '../../src/garment/builtin/piece-model.js';
import { PIECE_MODEL } from '../../src/garment/builtin/piece-model-data.js';
import { proxyOfShape } from '../../src/garment/builtin/pieces.js';
import { measuredPiece } from './freesewing-fixtures.js';

const { garments, seamAllowanceMm } = loadGarments();
const PX_PER_MM = 1;

function featuresOf(garment: string, piece: string, turns: number, mirrored: boolean): ShapeFeatures {
  const g = garments.find((x) => x.id === garment)!;
  const p = g.pieces.find((x) => x.name === piece)!;
  return shapeFeatures(proxyOfShape(measuredPiece(p, PX_PER_MM, seamAllowanceMm, turns, mirrored)));
}

/**
 * The features as one flat list of named numbers — but the signature, which a turn shifts, and the straight
 * ends, whose count and order can change on a squat piece whose long axis is barely defined (both checked below).
 */
function flat(f: ShapeFeatures): [string, number][] {
  return Object.entries(f)
    .filter(([k]) => k !== 'signature' && k !== 'turning' && k !== 'ends')
    .flatMap(([k, v]) =>
      Array.isArray(v) ? v.map((x, i): [string, number] => [`${k}${i + 1}`, x]) : [[k, v as number]],
    );
}

/**
 * Tolerance: 0.04 absolute or 4 % relative, whichever is larger (the proxy is resampled from a raster that
 * a turn or a mirror rasterises anew, so edges move by up to a pixel); counts (notches) within 1; areas
 * and axis lengths in proxy px within 3 %.
 */
function close(name: string, a: number, b: number): boolean {
  if (name === 'notches') return Math.abs(a - b) <= 1;
  if (name === 'proxyArea' || name === 'major' || name === 'minor')
    return Math.abs(a - b) <= 0.03 * Math.abs(a);
  return Math.abs(a - b) <= Math.max(0.04, 0.04 * Math.abs(a));
}

const PIECES: readonly [string, string][] = [
  ['teagan-cisMaleAdult42', 'teagan.front'],
  ['teagan-cisMaleAdult42', 'teagan.back'],
  ['simon-cisFemaleAdult34', 'simon.frontLeft'],
  ['simon-cisFemaleAdult34', 'simon.collarStand'],
  ['titan-cisMaleAdult36', 'titan.back'],
  ['hoodie-M', 'hoodie.hood'],
  ['hoodie-M', 'hoodie.pocket'],
  ['trousers-L', 'trousers.front'],
];

/** A proxy from rows of '#' (in the piece) and '.' (outside). */
function proxy(rows: string[]) {
  const w = rows[0]!.length;
  const data = Uint8Array.from(rows.join(''), (c) => (c === '#' ? 1 : 0));
  return { w, h: rows.length, data, scale: 1 };
}

/** Each of PIECES against itself turned by 90°, 180° mirrored and 270° mirrored. */
function againstTurned(distance: (a: ShapeFeatures, b: ShapeFeatures) => number) {
  return PIECES.flatMap(([g, p]) => {
    const base = featuresOf(g, p, 0, false);
    return (
      [
        [1, false],
        [2, true],
        [3, true],
      ] as const
    ).map(([turns, mirrored]) => ({
      copy: `${p} ${turns} ${mirrored}`,
      d: distance(base, featuresOf(g, p, turns, mirrored)),
    }));
  });
}

describe('the eight lay-downs', () => {
  it('are the eight distinct turns and mirrors, each landing inside its frame and undone by its inverse', () => {
    const [w, h] = [5, 3];
    const images = LAY_DOWNS.map((t) => {
      const [fw, fh] = t.swap ? [h, w] : [w, h];
      const image: string[] = [];
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const [u, v] = t.map(x, y, w, h);
          expect(u >= 0 && u < fw && v >= 0 && v < fh).toBe(true);
          expect(t.inverse(u, v, w, h)).toEqual([x, y]);
          image[v * fw + u] = `${x},${y}`;
        }
      }
      // A mirror image reverses the order of three corners: (0,0) → (w−1,0) → (0,h−1).
      const at = (x: number, y: number) => t.map(x, y, w, h);
      const [a, b, c] = [at(0, 0), at(w - 1, 0), at(0, h - 1)];
      const cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
      expect(cross < 0).toBe(t.mirror);
      return image.join(' ');
    });
    expect(new Set(images).size).toBe(8);
  });
});

describe('outline tracing', () => {
  it('walks the pixel edges around the piece, clockwise on screen, and back to its start', () => {
    expect(outline(proxy(['...', '.#.', '...']))).toEqual([
      [1, 1],
      [2, 1],
      [2, 2],
      [1, 2],
    ]);
    // An L: 12 unit edges around 5 pixels; pixels touching at a corner are one outline (8-connected).
    expect(outline(proxy(['#..', '#..', '###'])).length).toBe(12);
    expect(outline(proxy(['#.', '.#'])).length).toBe(8);
    // A speck before the piece in reading order is not its outline.
    expect(outline(proxy(['#....', '.....', '..###', '..###']))[0]).toEqual([2, 2]);
  });

  it('turns a rectangle into four quarter turns placed by arc length, whichever way it lies', () => {
    const wide = turningFunction(outline(proxy(['........', '.######.', '.######.', '........'])));
    const tall = turningFunction(
      outline(proxy(['....', '.##.', '.##.', '.##.', '.##.', '.##.', '.##.', '....'])),
    );
    expect(wide).toHaveLength(64);
    expect(turningDistance(wide, tall)).toBeLessThan(0.1);
    // A square places its corners a quarter of the perimeter apart, not a sixth and a third.
    const square = turningFunction(
      outline(proxy(['......', '.####.', '.####.', '.####.', '.####.', '......'])),
    );
    expect(turningDistance(wide, square)).toBeGreaterThan(0.2);
  });
});

describe('piece features', () => {
  it('are the same, within tolerance, for a piece turned by 90°, 180°, 270° and mirrored', () => {
    for (const [g, p] of PIECES) {
      const base = flat(featuresOf(g, p, 0, false));
      for (const [turns, mirrored] of [
        [1, false],
        [2, false],
        [3, false],
        [0, true],
        [1, true],
        [2, true],
      ] as const) {
        const other = flat(featuresOf(g, p, turns, mirrored));
        for (const [k, [name, v]] of base.entries()) {
          expect(
            close(name, v, other[k]![1]),
            `${p} turned ${turns * 90}°${mirrored ? ' mirrored' : ''}: ${name} ${v} vs ${other[k]![1]}`,
          ).toBe(true);
        }
      }
    }
  });

  it('give an outline signature that matches itself under every turn and mirror, and not another piece', () => {
    const nearest = (a: ShapeFeatures, b: ShapeFeatures) => signatureDistance(a.signature, b.signature);
    // Rasterisation moves the edge by up to a pixel of the proxy: well under the distance between parts.
    for (const { copy, d } of againstTurned(nearest)) expect(d, copy).toBeLessThan(0.02);
    const front = featuresOf('teagan-cisMaleAdult42', 'teagan.front', 0, false);
    const sleeve = featuresOf('teagan-cisMaleAdult42', 'teagan.sleeve', 1, true);
    const cuff = featuresOf('simon-cisFemaleAdult34', 'simon.cuff', 0, false);
    expect(nearest(front, sleeve)).toBeGreaterThan(0.15);
    expect(nearest(front, cuff)).toBeGreaterThan(0.3);
  });

  it('give a turning function that matches itself under every turn and mirror, and tells a curved band from a straight one', () => {
    const self = againstTurned((a, b) => turningDistance(a.turning, b.turning)).map((r) => r.d);
    const stand = featuresOf('simon-cisFemaleAdult34', 'simon.collarStand', 0, false);
    const cuff = featuresOf('simon-cisFemaleAdult34', 'simon.cuff', 1, true);
    const front = featuresOf('teagan-cisMaleAdult42', 'teagan.front', 0, false);
    const sleeve = featuresOf('teagan-cisMaleAdult42', 'teagan.sleeve', 3, true);
    const worst = Math.max(...self);
    expect(worst).toBeLessThan(0.15);
    expect(turningDistance(stand.turning, cuff.turning)).toBeGreaterThan(2 * worst);
    expect(turningDistance(front.turning, sleeve.turning)).toBeGreaterThan(2 * worst);
    // A mirror reverses and negates it: reversed alone, an asymmetric piece would not match its mirror image.
    const left = featuresOf('simon-cisFemaleAdult34', 'simon.frontLeft', 0, false);
    const mirrored = featuresOf('simon-cisFemaleAdult34', 'simon.frontLeft', 1, true);
    expect(signatureDistance(left.turning, mirrored.turning)).toBeGreaterThan(
      2 * turningDistance(left.turning, mirrored.turning),
    );
  });

  it('find both square ends of a band, the same length, under every turn and mirror', () => {
    for (const [g, p] of [
      ['simon-cisFemaleAdult34', 'simon.cuff'],
      ['trousers-L', 'trousers.waistband'],
      ['simon-cisFemaleAdult34', 'simon.collarStand'],
    ] as const) {
      const base = featuresOf(g, p, 0, false).ends;
      for (const [turns, mirrored] of [
        [1, false],
        [2, true],
        [3, false],
      ] as const) {
        const ends = featuresOf(g, p, turns, mirrored).ends;
        expect(ends.length, `${p} ${turns} ${mirrored}`).toBe(base.length);
        expect(Math.abs(ends[0]! - base[0]!)).toBeLessThanOrEqual(Math.max(1, 0.06 * base[0]!));
      }
    }
    expect(featuresOf('simon-cisFemaleAdult34', 'simon.cuff', 0, false).ends).toHaveLength(2);
  });

  it('tell pieces apart: a front has the deeper neckline on its axis, a cuff is rectangular, a leg is long', () => {
    const front = featuresOf('teagan-cisMaleAdult42', 'teagan.front', 2, false);
    const back = featuresOf('teagan-cisMaleAdult42', 'teagan.back', 1, true);
    expect(front.axisNotch).toBeGreaterThan(back.axisNotch + 0.05);
    expect(front.symmetry).toBeGreaterThan(0.9);
    const cuff = featuresOf('simon-cisFemaleAdult34', 'simon.cuff', 1, false);
    expect(cuff.rectangularity).toBeGreaterThan(0.9);
    expect(cuff.solidity).toBeGreaterThan(0.95);
    const leg = featuresOf('titan-cisMaleAdult36', 'titan.front', 3, false);
    expect(leg.elongation).toBeGreaterThan(front.elongation + 0.5);
    const hood = featuresOf('hoodie-M', 'hoodie.hood', 0, false);
    expect(hood.symmetry).toBeLessThan(0.9);
  });

  it('do not read a vent (a narrow slit up the centre back) as a neckline, whichever way the piece lies', () => {
    // Jaeger's back is cut whole with a vent as deep as a third of the piece; its neckline is a back's.
    for (const turns of [0, 1, 2, 3]) {
      const back = featuresOf('jaeger-cisMaleAdult42', 'jaeger.back', turns, turns === 3);
      expect(back.axisNotch).toBeLessThan(0.08);
      expect(back.notchDepth[0]).toBeGreaterThan(0.3);
    }
    expect(featuresOf('teagan-cisMaleAdult42', 'teagan.front', 1, true).axisNotch).toBeGreaterThan(0.15);
  });

  it('are the ones the shipped model was trained on, and a model trained on others is refused', () => {
    expect(PIECE_MODEL.features).toEqual(FEATURES.map((f) => f[0]));
    expect(() => assertFeaturesMatch(PIECE_MODEL)).not.toThrow();
    const stale = { ...PIECE_MODEL, features: PIECE_MODEL.features.slice(0, -1) };
    expect(() => assertFeaturesMatch(stale)).toThrow(/train-piece-model/);
    const reordered = { ...PIECE_MODEL, features: [...PIECE_MODEL.features].reverse() };
    expect(() => assertFeaturesMatch(reordered)).toThrow(/other features/);
    const older = { ...PIECE_MODEL, version: 5 } as unknown as PieceModel;
    expect(() => assertFeaturesMatch(older)).toThrow(/version 5/);
  });
});
