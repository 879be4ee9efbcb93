/**
 * How a marker laid each body piece down: turned a quarter turn either way, or upright. The training drafts stand
 * upright on the garment (neck or waist up, grain down the page) and each prototype of the shape library carries
 * how its training layout turned it, so a piece's outline aligned with its nearest prototypes of the same part
 * says how far it is turned from upright.
 *
 * Measured left one design out (the part given; 60 designs, six layouts of each, mirrored copies included): the
 * grain's axis — along the canvas or across it — is right for 98 % of fronts, 100 % of backs and 97 % of
 * sleeves, so a piece laid sideways is turned back. A sleeve's up is as sure (its cap against its hem), so a
 * sleeve laid head to toe is turned back too. A front's or back's up is not (78–89 %; narrow princess and corset
 * panels and skirts, whose two ends look alike): one along the canvas is taken as drawn, and a designer states a
 * half turn with confirm_piece_parts. Bands, collars, pockets and facings are drafted whichever way fits the page, so the
 * library cannot say which way is up for them: they are taken as drawn too.
 */
import { type Grain, type PieceInfo, type PieceShape, TURNS, type Turn } from '../types.js';
import { signatureOf, signatureSpectrum } from './piece-features.js';
import {
  bestAlignment,
  decode,
  LABELS,
  type Label,
  type Prototype,
  SIZE_WEIGHT,
  spectrumBound,
} from './piece-model.js';
import { PIECE_MODEL } from './piece-model-data.js';
import { labelOfPart, maskedOutline, proxyOfShape } from './pieces.js';

/** The parts drafted upright on the garment, whose turn the library can read. */
export const TURNED_PARTS: ReadonlySet<Label> = new Set(['front', 'back', 'sleeve']);

/** Prototypes voting; their votes weigh 1 / (distance + VOTE_FLOOR). */
const VOTERS = 5;
const VOTE_FLOOR = 0.02;

/** Degrees per signature bin. */
const BIN_DEGREES = 360 / 64;
/** A horizontal mirror maps signature bin k to bin 31 − k (bins start at −π, y down). */
const MIRROR_BIN = 31;

/**
 * Quarter turns clockwise from upright for each of the VOTERS nearest prototypes of `label`, with their weights.
 * The alignment reads the piece as the prototype turned (and mirrored when dir is −1); composing that with how
 * the prototype itself was laid down gives the piece's own turn.
 */
export function turnVotes(
  library: readonly Prototype[],
  signature: readonly number[],
  label: Label,
  rel: number,
): number[] {
  const decoded = decode(library);
  const index = LABELS.indexOf(label);
  // The VOTERS nearest exactly, without aligning every prototype of the part (a tenth of identify's main-thread
  // time): in the order of a lower bound of their distance (the spectra's, piece-model.ts spectrumBound), until
  // the bound passes the farthest of the nearest found. Ties keep the library's order, as a full sort's would.
  const spectrum = signatureSpectrum(signature);
  const order: { k: number; size: number; bound: number }[] = [];
  library.forEach((p, k) => {
    if (p[0] !== index || p[8] === undefined) return;
    const size = SIZE_WEIGHT * Math.abs(rel - p[1] / 1000);
    order.push({ k, size, bound: size + spectrumBound(spectrum, decoded[k]!.spectrum) });
  });
  order.sort((x, y) => x.bound - y.bound || x.k - y.k);
  const near: { d: number; q: number; k: number }[] = [];
  let farthest = Number.POSITIVE_INFINITY;
  for (const { k, size, bound } of order) {
    // The margin covers the bound's rounding, which may put it a hair above a distance it equals.
    if (near.length >= VOTERS && bound > farthest + 1e-9) break;
    const a = bestAlignment(signature, decoded[k]!.signature);
    const d = a.distance + size;
    const theta = a.dir === 1 ? -a.shift * BIN_DEGREES : (a.shift - MIRROR_BIN) * BIN_DEGREES;
    const own = (library[k]![8]! % 4) * 90;
    const degrees = a.dir === 1 ? theta + own : theta - own;
    near.push({ d, q: ((Math.round(degrees / 90) % 4) + 4) % 4, k });
    if (near.length >= VOTERS) farthest = near.map((n) => n.d).sort((x, y) => x - y)[VOTERS - 1]!;
  }
  near.sort((x, y) => x.d - y.d || x.k - y.k);
  const out = [0, 0, 0, 0];
  for (const n of near.slice(0, VOTERS)) out[n.q]! += 1 / (n.d + VOTE_FLOOR);
  return out;
}

/**
 * The parts whose up the library reads as well as their axis: a sleeve's cap against its hem (left one design
 * out, given the axis, 100 % of sleeves; fronts and backs 78–89 %, a hem against a neckline being far less
 * distinct in a centroid-distance signature than a cap against a hem).
 */
const UP_READ: ReadonlySet<Label> = new Set(['sleeve']);

/**
 * The turn of a piece of part `label` (its garment's largest piece `maxArea`), or null when it is upright or
 * not a part the library can turn: for a sleeve, the turn the votes give; for a front or back, a quarter turn
 * when the votes put the grain across the canvas (which one by the votes), never a half turn. The votes' share
 * is the confidence.
 */
export function turnOf(
  library: readonly Prototype[],
  shape: PieceShape,
  label: Label,
  maxArea: number,
): Grain | null {
  if (!TURNED_PARTS.has(label)) return null;
  const v = turnVotes(library, signatureOf(proxyOfShape(shape)), label, Math.log(shape.area / maxArea));
  if (UP_READ.has(label)) {
    const best = v.indexOf(Math.max(...v));
    const sum = v.reduce((a, b) => a + b, 0);
    return best === 0
      ? null
      : { turn: TURNS[best]!, by: 'shape', confidence: Math.round((v[best]! / sum) * 100) / 100 };
  }
  const across = v[1]! + v[3]!;
  if (across <= v[0]! + v[2]!) return null;
  const turn: Turn = v[1]! >= v[3]! ? 90 : 270;
  return { turn, by: 'shape', confidence: Math.round((Math.max(v[1]!, v[3]!) / across) * 100) / 100 };
}

/**
 * Every piece with how it lies on the marker: the user's turn where they stated one (0 included), else the
 * library's reading for the parts it can turn. The parts must be decided first: the turn is read against
 * prototypes of the piece's own part.
 */
export function withGrains(
  pieces: readonly PieceInfo[],
  stated: ReadonlyMap<number, Turn> = new Map(),
  library: readonly Prototype[] = PIECE_MODEL.library,
): PieceInfo[] {
  // Sizes relative to the piece's own garment, as the prototypes' are (one size of a graded marker).
  const maxArea = new Map<number | undefined, number>();
  for (const p of pieces) maxArea.set(p.size, Math.max(maxArea.get(p.size) ?? 0, p.area));
  return pieces.map((p) => {
    const { grain: _old, ...rest } = p;
    const user = stated.get(p.layerId);
    const grain: Grain | null =
      user !== undefined
        ? user === 0
          ? null
          : { turn: user, by: 'user', confidence: 1 }
        : // A layer cut by its mask lies as the outline it was cut from: what shows may be a band across it.
          turnOf(library, (p.cutFrom && maskedOutline(p)) || p, labelOfPart(p.part), maxArea.get(p.size)!);
    return grain ? { ...rest, grain } : rest;
  });
}
