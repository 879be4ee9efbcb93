/**
 * Pieces laid a few degrees askew. A marker made by hand (pieces pasted from scans, or nudged to fit) tilts them
 * off the canvas's axes, and a print drawn along the canvas then runs across the piece: sewn, the front's stripes
 * slope by the tilt. A symmetric piece (a front or back cut whole, a sleeve, a band) shows its grain as its
 * axis of symmetry, which passes through its centroid: the tilt is the angle that axis makes with the canvas's
 * nearer axis. Halves and other asymmetric pieces show no axis and are taken as drawn.
 */
import type { PieceInfo } from '../types.js';
import { type Fold, foldOf } from './fold.js';
import { type MaskProxy, proxyOf } from './piece-features.js';

/** The largest tilt read: beyond it a piece is turned, not nudged, and pattern makers turn by quarter turns. */
export const MAX_TILT = 15;
/**
 * The least tilt acted on: below it a print moves by under 2 % of a piece's width from its top to its hem. In
 * practice a tilt is read from about 1.5° (GAIN); no FreeSewing or drafted piece laid upright reads one.
 */
export const MIN_TILT = 1;
/**
 * A piece whose mirror IoU about the canvas's vertical is at least this is taken as upright: a piece tilted by
 * MIN_TILT reads lower (a T-shirt front 0.97 at 1°), so the search is spent on asymmetric and tilted ones only.
 */
const UPRIGHT_SYMMETRY = 0.985;
/** The mirror IoU about the best axis a piece needs for its axis to be its grain (a front cut whole: 0.98–1). */
const AXIS_SYMMETRY = 0.985;
/**
 * A thin piece's reflection is less exact on the pixel grid: each outline pixel may land on either side of the
 * edge. Its least mirror IoU is lowered below AXIS_SYMMETRY by this much times its outline's length over its area
 * on the fine proxy (a collar 300 × 40 px askew by 7°: least 0.96, read 0.974).
 */
const EDGE_SLACK = 0.6;
/** The coarse search's least: on its smaller proxy a thin band reflects less exactly still (that collar 0.956). */
const COARSE_SYMMETRY = 0.9;
/** The best axis must be this much more symmetric than the canvas's own axes: else nothing says it is tilted. */
const GAIN = 0.02;
/**
 * A piece with a straight edge along the canvas's axes this long (share of its longer side) stands as drawn: a
 * flared skirt's half or a gore is symmetric about a slanted line, but its centre edge runs down the canvas.
 * An edge tilted by MIN_TILT steps across a pixel every 57 px.
 */
const UPRIGHT_EDGE = 0.25;
/** Proxy sides of the coarse search (3°, then 1° steps) and of the fine one (0.1° about the coarse best). */
const COARSE_SIDE = 128;
const FINE_SIDE = 256;

/** The proxy's outline length: its pixel edges between inside and outside. */
function perimeterOf({ w, h, data }: MaskProxy): number {
  let edges = 0;
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      if (!data[i]) continue;
      if (x === 0 || !data[i - 1]) edges++;
      if (x === w - 1 || !data[i + 1]) edges++;
      if (y === 0 || !data[i - w]) edges++;
      if (y === h - 1 || !data[i + w]) edges++;
    }
  }
  return edges;
}

/** The best of `angles` about either axis (or the one given), with its IoU. */
function bestAxis(
  fold: Fold,
  angles: readonly number[],
  axes: readonly boolean[],
): { deg: number; across: boolean; iou: number; at: (deg: number) => number } {
  let best = { deg: 0, across: false, iou: -1 };
  for (const across of axes) {
    for (const deg of angles) {
      const iou = fold.iou(deg, across);
      if (iou > best.iou) best = { deg, across, iou };
    }
  }
  return { ...best, at: (deg) => fold.iou(deg, best.across) };
}

/** The longest run of the outline along one column or row boundary of the mask, px. */
function longestAxisEdge(mask: Uint8Array, w: number, h: number): number {
  let best = 0;
  // Runs of vertical edges (between x − 1 and x, the mask's sides included), carried down the rows.
  const down = new Int32Array(w + 1);
  let across = 0;
  for (let y = 0; y <= h; y++) {
    const row = y * w;
    across = 0;
    for (let x = 0; x < w; x++) {
      // A horizontal edge between rows y − 1 and y, run along the row.
      const a = y > 0 ? mask[row - w + x]! : 0;
      const b = y < h ? mask[row + x]! : 0;
      across = a !== b ? across + 1 : 0;
      if (across > best) best = across;
    }
    if (y === h) break;
    for (let x = 0; x <= w; x++) {
      const l = x > 0 ? mask[row + x - 1]! : 0;
      const r = x < w ? mask[row + x]! : 0;
      down[x] = l !== r ? down[x]! + 1 : 0;
      if (down[x]! > best) best = down[x]!;
    }
  }
  return best;
}

const range = (from: number, to: number, step: number) =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, k) => from + k * step);

/**
 * How far (degrees, clockwise, within ±MAX_TILT) a piece's axis of symmetry is turned off the canvas's vertical
 * or horizontal, with its mirror IoU about that axis; null when the piece stands on the canvas's axes (within
 * MIN_TILT) or shows no axis (a half, a pocket bag, a facing). `symmetry`: its mirror IoU about the canvas's
 * vertical, measured already.
 */
export function tiltOf(
  mask: Uint8Array,
  w: number,
  h: number,
  symmetry: number,
): { readonly deg: number; readonly symmetry: number } | null {
  if (symmetry >= UPRIGHT_SYMMETRY || Math.min(w, h) < 8) return null;
  // 3° steps about both axes, then 1° about the better (mirror IoU falls off smoothly over a few degrees).
  const small = proxyOf(mask, w, h, COARSE_SIDE);
  const folded = foldOf(small.data, small.w, small.h);
  const rough = bestAxis(folded, range(-MAX_TILT, MAX_TILT, 3), [false, true]);
  const coarse = bestAxis(folded, range(rough.deg - 2, rough.deg + 2, 1), [rough.across]);
  // Best along the canvas's axes to the nearest degree: within half a degree of them, under MIN_TILT.
  if (coarse.iou < COARSE_SYMMETRY || coarse.deg === 0) return null;
  const large = proxyOf(mask, w, h, FINE_SIDE);
  const unfolded = foldOf(large.data, large.w, large.h);
  const fine = bestAxis(unfolded, range(coarse.deg - 1, coarse.deg + 1, 0.1), [coarse.across]);
  const level = Math.max(fine.at(0), symmetry);
  const least = Math.min(AXIS_SYMMETRY, 1 - (EDGE_SLACK * perimeterOf(large)) / Math.max(1, unfolded.area));
  if (fine.iou < least || fine.iou - level < GAIN) return null;
  // The peak between the grid's steps, from the parabola through the best step and its neighbours.
  const [a, b, c] = [fine.at(fine.deg - 0.1), fine.iou, fine.at(fine.deg + 0.1)];
  const bend = a - 2 * b + c;
  const deg = fine.deg + (bend < 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / bend)) * 0.1 : 0);
  const rounded = Math.round(deg * 100) / 100;
  if (Math.abs(rounded) < MIN_TILT || Math.abs(rounded) > MAX_TILT) return null;
  if (longestAxisEdge(mask, w, h) >= UPRIGHT_EDGE * Math.max(w, h)) return null;
  return { deg: rounded, symmetry: Math.round(fine.iou * 1000) / 1000 };
}

/**
 * The pieces with the tilts the user stated (layer id → degrees clockwise, 0 along the canvas) in place of those
 * read: a half or a two-piece sleeve has no axis to read, and a piece may mirror about a slanted line of its own.
 */
export function withTilts(pieces: readonly PieceInfo[], stated: ReadonlyMap<number, number>): PieceInfo[] {
  return pieces.map((p) => {
    const user = stated.get(p.layerId);
    if (user === undefined) return p;
    const { tilt: _read, ...rest } = p;
    return { ...rest, ...(user ? { tilt: user } : {}), tiltBy: 'user' as const };
  });
}
