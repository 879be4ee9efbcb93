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
