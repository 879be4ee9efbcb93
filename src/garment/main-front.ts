/**
 * The garment's main front among the pieces read as fronts. A marker lays out more than one: a front cut as two
 * halves or as a left and a right, princess and side panels, a jacket's side body. Taking the first in layer order
 * measured the print's scale on whichever came first (a blazer's side panel: the print came out 4.5× too small)
 * and put a placement motif there.
 */
import type { PieceInfo } from './types.js';

/**
 * The largest front of size `size` (a graded marker's) or of any size; undefined when none is a front. Of a
 * mirrored pair of fronts (a zip front's halves) it is the one whose print is drawn as the placement lays it, not
 * the copy that mirrors it: the placement maps the main front onto the photo, and verify compares the main front
 * with the photo there. The two are one outline, so which came out larger was down to rasterising; a gilet whose
 * copy won scored 3.9 for a correct application, its mirrored print read as the wrong colours.
 */
export function mainFront<P extends PieceInfo>(pieces: readonly P[], size?: number): P | undefined {
  const fronts = pieces.filter(
    (p) => p.part === 'front' && !p.duplicateOf && (size === undefined || p.size === size),
  );
  const mirrorsAFront = (p: P) => p.mirrorOf !== null && fronts.some((q) => q.layerId === p.mirrorOf);
  let best: P | undefined;
  for (const p of fronts) {
    if (mirrorsAFront(p)) continue;
    if (!best || p.area > best.area) best = p;
  }
  return best;
}

/** Full panels are symmetric about their centre line; a half cut on the fold is not. */
export const FULL_PANEL_SYMMETRY = 0.85;

/**
 * The most front panels one garment's front has in the fixtures' 60 designs but for a corset (Cathrin's 7): whole,
 * two halves, or a centre with side panels (a jacket's fronts and side bodies).
 */
export const MAX_FRONT_PANELS = 4;

/**
 * How many front and back panels a marker read as one garment holds (copies stacked in place not counted), when
 * they are more than one garment's: more fronts than one garment's front has, or two whole backs (a whole back,
 * symmetric and not one of a mirrored pair, is cut once per garment; not fronts: a shirt's left and right fronts
 * read as symmetric as a whole panel, 0.85 and more) — and no sizes were told (a graded
 * marker whose sizes' outlines did not match when stretched onto each other, or several garments on one marker).
 * The scale, taken from all the fronts as one front, is then off. Their counts, or null.
 */
export function crowdedFronts(pieces: readonly PieceInfo[]): { fronts: number; backs: number } | null {
  if (pieces.some((p) => p.size !== undefined)) return null;
  const own = pieces.filter((p) => !p.duplicateOf);
  const fronts = own.filter((p) => p.part === 'front');
  const backs = own.filter((p) => p.part === 'back');
  const wholeBacks = backs.filter(
    (p) => p.mirrorOf === null && p.symmetry >= FULL_PANEL_SYMMETRY && !partnered(own, p),
  ).length;
  return fronts.length > MAX_FRONT_PANELS || wholeBacks > 1
    ? { fronts: fronts.length, backs: backs.length }
    : null;
}

/** Whether another piece mirrors `p` (the first of a mirrored pair has mirrorOf null, its partner points at it). */
const partnered = (pieces: readonly PieceInfo[], p: PieceInfo) =>
  pieces.some((q) => q.mirrorOf === p.layerId);

/**
 * How much of the garment's front the main front is: every front layer of its size (a half's other half, the
 * side panels; copies stacked in place not counted) against it by area. 1 for a front cut whole; about 2 for one
 * cut in halves. The front seen in a photo is all of them side by side.
 */
export function frontSpread(pieces: readonly PieceInfo[], main: PieceInfo): number {
  let area = 0;
  for (const p of pieces) {
    if (p.part === 'front' && !p.duplicateOf && p.size === main.size) area += p.area;
  }
  return Math.max(1, area / main.area);
}
