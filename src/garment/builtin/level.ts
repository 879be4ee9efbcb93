/**
 * A garment photographed askew. A flat lay is rarely square to the camera: a T-shirt laid 10° off turns its
 * print 10° too, and a repeat turned off the pixel grid is no whole-px lattice any more (a block repeat at 4° is
 * not found at all; stripes at 10° are found as a slanted lattice and printed slanted). A garment is
 * mirror-symmetric about its centre line, so the turn is read from the silhouette: the angle whose mirror line
 * through the garment's centroid best folds the silhouette onto itself. The photo is turned back by it before
 * the print is read, and every later step (verify's reference included) works on the levelled photo.
 *
 * The print itself is not the evidence for a garment: a print may run on the bias on a straight garment. But the
 * silhouette reads the turn to a tenth of a degree at best, and a repeat read across a 500 px garment turned back
 * 0.1° off drifts a px (stripes at 12° read as 11.9° were not found at all, a plaid at 5° as 4.9° three tiles
 * wide): where the print's own axes lie within PRINT_AGREES of the silhouette's reading, the print runs square
 * to the garment and its turn, read to hundredths, is taken. A swatch (all fabric) has no outline, and there the
 * print is all the evidence there is: its own axes (printTilt).
 */
import type { Raster } from '../../engine/model.js';
import sharp from '../../engine/sharp.js';
import { autocorrelate, nextPow2 } from '../fft.js';
import { type LabPlanes, labPlanes, luminance, mapBytes, resizeRaster } from '../image.js';
import type { Level } from '../types.js';
import { coloursUnderAlpha, overLeftover, withoutAlpha } from './cutout.js';
import { foldOf } from './fold.js';
import { segment } from './segment.js';

/** Photos are analysed at most this large (long side). */
export const ANALYSIS_SIDE = 1024;
/** Turns searched: a flat lay further off than this is not a garment laid askew but something else. */
const MAX_TILT = 20;
/**
 * Below this the print is read as it lies. Not more: a garment 0.5° askew drifts 5 px over its 600 px, and a
 * block repeat read on it as it lay was not found at all (at 0.5° and 1.3°), stripes as a 114 × 40 px lattice.
 */
const MIN_TILT = 0.3;
/** The silhouette folded on its best line must cover itself this well (IoU) for the line to be its centre line. */
const MIN_SYMMETRY = 0.9;
/** …and this much better than on the photo's vertical, or the photo is taken as level. */
const MIN_GAIN = 0.01;
/** The silhouette is measured at most this large (long side). */
const SYMMETRY_SIDE = 400;

/** The analysis scale of a photo `w × h`. */
export function analysisScale(w: number, h: number): number {
  return Math.min(1, ANALYSIS_SIDE / Math.max(w, h));
}

/** The garment found in the photo at the analysis scale, ready for the print to be read. */
export interface GarmentReading {
  /** The garment's pixels whose colours the photo shows. */
  readonly mask: Uint8Array;
  /** The garment's outline filled, where it is more than `mask` (segment). */
  readonly silhouette?: Uint8Array;
  readonly w: number;
  readonly h: number;
  readonly swatch: boolean;
  readonly neckOpen: boolean;
  /** The garment is worn, its wearer taken off the mask (segment). */
  readonly worn?: boolean;
  /** The photo and its Lab planes at `w × h`, when already made. */
  readonly photo?: Raster;
  readonly lab?: LabPlanes;
}

/**
 * The photo levelled: the garment found at the analysis scale, its turn read from its silhouette and, when it
 * is laid askew, the whole photo (full resolution) and the silhouette turned back. Deterministic: verify, which
 * reads the photo again, levels it the same way.
 */
export async function levelPhoto(
  taken: Raster,
): Promise<{ raster: Raster; level: Level | null; garment: GarmentReading }> {
  const { raster, garment } = await foundIn(taken);
  if (garment.swatch) return levelSwatch(raster, garment);
  const outline = silhouetteTilt(garment.silhouette ?? garment.mask, garment.w, garment.h);
  const degrees = outline && printAlong(garment.photo, garment.mask, outline);
  if (!degrees) return { raster, level: null, garment };
  const turned = await turnRaster(raster, -degrees);
  const m = await turnMask(garment.mask, garment.w, garment.h, -degrees);
  const silhouette =
    garment.silhouette && (await turnMask(garment.silhouette, garment.w, garment.h, -degrees)).mask;
  return {
    raster: turned,
    level: { degrees, original: [raster.w, raster.h], levelled: [turned.w, turned.h] },
    garment: {
      mask: m.mask,
      ...(silhouette ? { silhouette } : {}),
      w: m.w,
      h: m.h,
      swatch: false,
      neckOpen: garment.neckOpen,
      ...(garment.worn ? { worn: true } : {}),
    },
  };
}

/**
 * The garment found in the photo at the analysis scale. A cut-out whose alpha is flawed is read as a photo when
 * it can be (cutout.ts): with its alpha dropped where its colours are still under it, else on the colour of the
 * background it kept; unless nothing but fabric is then found in it.
 */
async function foundIn(
  raster: Raster,
): Promise<{ raster: Raster; garment: GarmentReading & { photo: Raster; lab: LabPlanes } }> {
  const k = analysisScale(raster.w, raster.h);
  const at = async (r: Raster) => {
    const photo = k < 1 ? await resizeRaster(r, Math.round(r.w * k), Math.round(r.h * k)) : r;
    const lab = labPlanes(photo);
    return { ...segment(photo, lab), w: photo.w, h: photo.h, photo, lab };
  };
  const garment = await at(raster);
  if (garment.basis !== 'alpha' || !garment.silhouette) return { raster, garment };
  const whole = coloursUnderAlpha(raster) ? withoutAlpha(raster) : overLeftover(raster);
  if (!whole) return { raster, garment };
  const again = await at(whole);
  return again.swatch ? { raster, garment } : { raster: whole, garment: again };
}

/**
 * The print's turn is taken for the garment's when it lies this close to the silhouette's reading, degrees. Not
 * closer: a plaid's dark bands along the garment's edge are cut off it unevenly, and its silhouette read 7.4°
 * for 8° (the print read 8.00°, and was not believed).
 */
const PRINT_AGREES = 1;

/**
 * The garment's turn, as its silhouette reads it (`outline`), to the hundredth its print reads it when the print's
 * axes (printTilt, on the largest square of the garment) stand out (PRINT_AXIS) and lie within PRINT_AGREES of
 * it; else the silhouette's reading when it is sure of it, and 0 when not (a turn under a degree or so changes
 * the silhouette's fold too little to be told from how unevenly the garment lies).
 */
function printAlong(photo: Raster, mask: Uint8Array, outline: SilhouetteTilt): number {
  const fallback = outline.sure ? outline.degrees : 0;
  const sq = largestSquare(mask, photo.w, photo.h);
  if (!sq || sq.side < MIN_PRINT_SQUARE) return fallback;
  const lum = luminance(photo);
  const crop = new Float64Array(sq.side * sq.side);
  for (let y = 0; y < sq.side; y++)
    crop.set(lum.subarray((sq.y + y) * photo.w + sq.x, (sq.y + y) * photo.w + sq.x + sq.side), y * sq.side);
  const { degrees } = outline;
  const print = printTilt(
    crop,
    sq.side,
    sq.side,
    [degrees - PRINT_AGREES, degrees + PRINT_AGREES],
    PRINT_AXIS,
  );
  return print && Math.abs(print - degrees) <= PRINT_AGREES ? print : fallback;
}

/**
 * The print's axes must stand out this much (printTilt) for its turn to be the garment's: lines that run on along
 * them (stripes, checks, plaids: 0.4) read the turn to a few hundredths, where a block repeat of small motifs (0.1)
 * reads it no better than the silhouette, and askew by their layout in the tile (5.2° for 5°).
 */
const PRINT_AXIS = 0.2;

/** A garment's print is read for its turn on a square of it at least this large, px. */
const MIN_PRINT_SQUARE = 48;

/** The largest square all inside `mask` (the last found of that side, scanning rows), or null when it is empty. */
function largestSquare(
  mask: Uint8Array,
  w: number,
  h: number,
): { x: number; y: number; side: number } | null {
  // side[x] on row y: the side of the largest square whose bottom-right corner is (x, y).
  let above = new Int32Array(w);
  let row = new Int32Array(w);
  let best: { x: number; y: number; side: number } | null = null;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      row[x] = mask[y * w + x]
        ? 1 + (x > 0 && y > 0 ? Math.min(above[x]!, row[x - 1]!, above[x - 1]!) : 0)
        : 0;
      if (row[x]! > (best?.side ?? 0)) best = { x: x - row[x]! + 1, y: y - row[x]! + 1, side: row[x]! };
    }
    [above, row] = [row, above];
  }
  return best;
}

/**
 * A swatch levelled: turned back by its print's own turn (printTilt) and cropped to the largest rectangle of the
 * photo's proportions inside the turned photo, about its middle, so it is still all fabric (inOriginal holds:
 * the middle stays the middle).
 */
async function levelSwatch(
  raster: Raster,
  garment: GarmentReading & { photo: Raster },
): Promise<{ raster: Raster; level: Level | null; garment: GarmentReading }> {
  const { photo } = garment;
  const degrees = printTilt(luminance(photo), photo.w, photo.h);
  if (!degrees) return { raster, level: null, garment };
  const turned = await turnRaster(raster, -degrees);
  const t = (Math.abs(degrees) * Math.PI) / 180;
  const { w, h } = raster;
  const fit = Math.min(w / (w * Math.cos(t) + h * Math.sin(t)), h / (w * Math.sin(t) + h * Math.cos(t)));
  // Two px in from the turned edges, which libvips blends with the background it brings in.
  const cw = Math.max(1, Math.floor(w * fit) - 4);
  const ch = Math.max(1, Math.floor(h * fit) - 4);
  const x0 = Math.round((turned.w - cw) / 2);
  const y0 = Math.round((turned.h - ch) / 2);
  const data = new Uint8ClampedArray(cw * ch * 4);
  for (let y = 0; y < ch; y++)
    data.set(
      turned.data.subarray(((y0 + y) * turned.w + x0) * 4, ((y0 + y) * turned.w + x0 + cw) * 4),
      y * cw * 4,
    );
  const level: Raster = { x: 0, y: 0, w: cw, h: ch, data };
  const k = analysisScale(cw, ch);
  const W = Math.round(cw * k);
  const H = Math.round(ch * k);
  return {
    raster: level,
    level: { degrees, original: [w, h], levelled: [cw, ch] },
    garment: { mask: new Uint8Array(W * H).fill(1), w: W, h: H, swatch: true, neckOpen: false },
  };
}

/** The blur (Gaussian σ, px) that evens out what the turn's interpolation leaves uneven. */
const TURN_BLUR = 0.8;

/**
 * `r` turned `deg` degrees clockwise about its centre onto the canvas that holds it all (the centre stays the
 * centre, as libvips' rotate keeps it, so turnMask's mask lies on it). What the turn brings in is the photo's
 * background: its frame's median colour, or transparent for a cut-out photo. Not libvips' rotate: it is bilinear,
 * whose blur varies with where each px falls between the photo's (a moiré a few px across on a turned photo), so
 * the turned print is no longer exact from one repeat to the next, and its lattice was found as a multiple of
 * itself (192 or 320 px for 64 px), stripes as a skewed 7 × 280 px lattice, or nothing at all — on a swatch and on
 * a garment alike. A spline interpolator alone left some of that; TURN_BLUR takes the rest.
 */
export async function turnRaster(r: Raster, deg: number): Promise<Raster> {
  const a = (deg * Math.PI) / 180;
  const turned = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), {
    raw: { width: r.w, height: r.h, channels: 4 },
  })
    .affine(
      [
        [Math.cos(a), -Math.sin(a)],
        [Math.sin(a), Math.cos(a)],
      ],
      { background: frameColour(r), interpolator: sharp.interpolators.vertexSplitQuadraticBasisSpline },
    )
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = turned.info;
  const data = await sharp(turned.data, { raw: { width, height, channels: 4 } })
    .blur(TURN_BLUR)
    .raw()
    .toBuffer();
  return {
    x: 0,
    y: 0,
    w: width,
    h: height,
    data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
  };
}

/**
 * Degrees clockwise the garment in `mask` is turned from upright (its centre line from the vertical), to 0.1°;
 * 0 when it stands level, or when no line folds it onto itself well enough to say (a worn garment, a folded
 * sleeve, a one-shoulder top).
 */
export function garmentTilt(mask: Uint8Array, w: number, h: number): number {
  const t = silhouetteTilt(mask, w, h);
  return t?.sure ? t.degrees : 0;
}

/** A silhouette's reading of its turn, degrees clockwise, and whether it is sure of it (silhouetteTilt). */
interface SilhouetteTilt {
  readonly degrees: number;
  readonly sure: boolean;
}

/**
 * The silhouette's turn (garmentTilt): `sure` when its best centre line folds it clearly better (MIN_GAIN) than
 * the vertical does; not sure when it folds it well (MIN_SYMMETRY) but hardly better, as a turn of half a degree
 * does (IoU 0.009 better on a plaid, whose outline the segmentation cuts unevenly), and only the print can then
 * say. Null under MIN_TILT or when no line folds the silhouette onto itself.
 */
function silhouetteTilt(mask: Uint8Array, w: number, h: number): SilhouetteTilt | null {
  const s = Math.min(1, SYMMETRY_SIDE / Math.max(w, h));
  const sw = Math.max(1, Math.round(w * s));
  const sh = Math.max(1, Math.round(h * s));
  // Each small pixel is inside when most of the px it covers are. The px a small pixel covers are its rows'
  // times its columns: only the inside ones are counted px by px.
  const colOf = Int32Array.from({ length: w }, (_, x) => Math.min(sw - 1, Math.floor(x * s)));
  const cols = new Int32Array(sw);
  for (let x = 0; x < w; x++) cols[colOf[x]!]!++;
  const rows = new Int32Array(sh);
  const count = new Int32Array(sw * sh);
  for (let y = 0; y < h; y++) {
    const r = Math.min(sh - 1, Math.floor(y * s));
    rows[r]!++;
    const row = r * sw;
    for (let x = 0, i = y * w; x < w; x++, i++) if (mask[i]) count[row + colOf[x]!]! += mask[i]!;
  }
  const small = new Uint8Array(sw * sh);
  for (let i = 0; i < small.length; i++)
    small[i] = count[i]! * 2 > rows[Math.floor(i / sw)]! * cols[i % sw]! ? 1 : 0;
  const folded = foldOf(small, sw, sh);
  if (folded.area < 100) return null;
  /** Intersection over union of the silhouette and its mirror about the line through the centroid at `deg`. */
  const fold = (deg: number, every = 1): number => folded.iou(deg, false, every);
  // The whole degrees on a quarter of the silhouette's px (enough to tell them apart), then the tenths on all.
  let best = 0;
  let coarse = fold(0, 4);
  for (let d = -MAX_TILT; d <= MAX_TILT; d++) {
    const v = fold(d, 4);
    if (v > coarse) [best, coarse] = [d, v];
  }
  const level = fold(0);
  let bestIoU = fold(best);
  for (let d = best - 0.9; d <= best + 0.90001; d += 0.1) {
    const v = fold(d);
    if (v > bestIoU) [best, bestIoU] = [d, v];
  }
  best = Math.round(best * 10) / 10;
  // A best line at the end of the search is not a centre line found but the search running out.
  if (bestIoU < MIN_SYMMETRY || Math.abs(best) >= MAX_TILT || Math.abs(best) < MIN_TILT) return null;
  return { degrees: best, sure: bestIoU - level >= MIN_GAIN };
}

/** A 0/1 mask turned as turnRaster turns a photo, outside it empty. */
export async function turnMask(
  m: Uint8Array,
  w: number,
  h: number,
  deg: number,
): Promise<{ mask: Uint8Array; w: number; h: number }> {
  const { data, info } = await sharp(Buffer.from(mapBytes(m, (v) => v * 255)), {
    raw: { width: w, height: h, channels: 1 },
  })
    .rotate(deg, { background: { r: 0, g: 0, b: 0, alpha: 1 } })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { mask: mapBytes(data, (v) => (v >= 128 ? 1 : 0)), w: info.width, h: info.height };
}

/** The median colour of the frame (opaque), or transparent when the photo is a cut-out. */
function frameColour(r: Raster): { r: number; g: number; b: number; alpha: number } {
  const { w, h, data } = r;
  const ch: number[][] = [[], [], [], []];
  const take = (x: number, y: number) => {
    for (let k = 0; k < 4; k++) ch[k]!.push(data[(y * w + x) * 4 + k]!);
  };
  const step = Math.max(1, Math.floor(Math.max(w, h) / 512));
  for (let x = 0; x < w; x += step) {
    take(x, 0);
    take(x, h - 1);
  }
  for (let y = 0; y < h; y += step) {
    take(0, y);
    take(w - 1, y);
  }
  const med = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1]!;
  if (med(ch[3]!) < 128) return { r: 0, g: 0, b: 0, alpha: 0 };
  return { r: med(ch[0]!), g: med(ch[1]!), b: med(ch[2]!), alpha: 1 };
}

/** Where a point of the levelled photo (full resolution px) lies in the photo as taken. */
export function inOriginal(level: Level, x: number, y: number): [number, number] {
  const t = (level.degrees * Math.PI) / 180;
  const vx = x - level.levelled[0] / 2;
  const vy = y - level.levelled[1] / 2;
  return [
    level.original[0] / 2 + vx * Math.cos(t) - vy * Math.sin(t),
    level.original[1] / 2 + vx * Math.sin(t) + vy * Math.cos(t),
  ];
}

/**
 * Where between the steps `step` apart about `at` the measure `f` peaks: the vertex of the parabola fitted (least
 * squares) to it over VERTEX_STEPS steps either side, within a step of `at`; 0 when it does not bend down. The
 * print's axes peak so broadly that the steps either side of the best differ by a few millionths, and the best
 * step alone was a quarter of its width off (stripes at 8° read 8.025°: 0.06 px of slant over 120 px, which
 * left stripes 16 px apart too inexact along themselves to be found).
 */
function vertexNear(f: (d: number) => number, at: number, step: number): number {
  let [s2, s4, sy, s2y] = [0, 0, 0, 0];
  const n = 2 * VERTEX_STEPS + 1;
  let s0 = 0;
  for (let i = -VERTEX_STEPS; i <= VERTEX_STEPS; i++) {
    const y = f(at + i * step);
    s0 += y;
    s2 += i * i;
    s4 += i ** 4;
    sy += i * y;
    s2y += i * i * y;
  }
  // y ≈ a + b·i + c·i² over symmetric i: b from the odd sums, c from the even ones.
  const b = sy / s2;
  const c = (n * s2y - s2 * s0) / (n * s4 - s2 * s2);
  if (!(c < 0)) return 0;
  return Math.max(-1, Math.min(1, -b / (2 * c))) * step;
}

/** Steps either side of the best the print's turn is fitted over (vertexNear). */
const VERTEX_STEPS = 4;

/** The print's turn is read on a centred square of the photo, box-averaged down to at most this side. */
const TILT_SIDE = 512;
/** …over lags out to this share of it: two repeats of a print whose repeat is a sixth of the swatch. */
const TILT_REACH = 0.4;
/** Turns of the print tried first, degrees apart; then tenths of them around the best. */
const TILT_STEP = 0.25;
/** The print's axes must stand out of its autocorrelation by this much (correlation, mean along them). */
const MIN_AXIS = 0.08;
/**
 * A swatch's print is levelled from this turn on: its turn is read to a few hundredths of a degree, and a swatch
 * is all print (stripes 1° askew were read with a 57 px wide tile).
 */
const MIN_PRINT_TILT = 0.3;

/**
 * Degrees clockwise a swatch's print is turned from the photo's axes, to a few hundredths; 0 when it lies level
 * (under MIN_PRINT_TILT), or when nothing in it runs along a direction (a print without a repeat or stripes). A
 * swatch has no outline to read its turn from, so the print is the evidence: its autocorrelation is high along
 * its axes (the lattice's rows of peaks, or along a stripe), and a turned print turns them. The pair of axes a
 * right angle apart along which the autocorrelation (the radial mean taken off) is highest is the print's; a
 * print whose two axes are not at a right angle (a lattice on the bias by design) finds them no better than
 * elsewhere and is read as it lies. `within`: the turns searched (degrees), when it is known about where they lie;
 * `least`: how far the axes must stand out.
 */
export function printTilt(
  lum: Float64Array,
  w: number,
  h: number,
  within: readonly [number, number] = [-MAX_TILT, MAX_TILT],
  least = MIN_AXIS,
): number {
  const f = Math.max(1, Math.ceil(Math.min(w, h) / TILT_SIDE));
  const s = Math.floor(Math.min(w, h) / f);
  const x0 = Math.floor((w - s * f) / 2);
  const y0 = Math.floor((h - s * f) / 2);
  const v = new Float64Array(s * s);
  let mean = 0;
  for (let y = 0; y < s; y++) {
    for (let x = 0; x < s; x++) {
      let sum = 0;
      for (let j = 0; j < f; j++)
        for (let i = 0; i < f; i++) sum += lum[(y0 + y * f + j) * w + x0 + x * f + i]!;
      v[y * s + x] = sum / (f * f);
      mean += sum / (f * f);
    }
  }
  mean /= s * s;
  for (let i = 0; i < v.length; i++) v[i]! -= mean;
  const reach = Math.floor(s * TILT_REACH);
  const n = nextPow2(s + reach + 1);
  const a = autocorrelate(v, s, s, n, n, reach + 1);
  const zero = a[0]!;
  if (!(zero > 0)) return 0;
  // The correlation at lag (dx, dy), each lag's sum over the overlap it has, bilinear between lags.
  const at = (dx: number, dy: number): number => {
    if (dy < 0) [dx, dy] = [-dx, -dy];
    const x = Math.floor(dx);
    const y = Math.floor(dy);
    const fx = dx - x;
    const fy = dy - y;
    const one = (i: number, j: number) =>
      (a[j * n + ((i + n) % n)]! * s * s) / (zero * (s - Math.abs(i)) * (s - j));
    return (
      (1 - fy) * ((1 - fx) * one(x, y) + fx * one(x + 1, y)) +
      fy * ((1 - fx) * one(x, y + 1) + fx * one(x + 1, y + 1))
    );
  };
  const from = 2;
  const radii = reach - 1;
  // The radial mean: what every direction has (the central peak, a print's overall texture).
  const radial = new Float64Array(radii + 1);
  for (let r = from; r <= radii; r++) {
    let sum = 0;
    for (let k = 0; k < 72; k++)
      sum += at(r * Math.cos((k * Math.PI) / 72), r * Math.sin((k * Math.PI) / 72));
    radial[r] = sum / 72;
  }
  const axes = (deg: number): number => {
    const t = (deg * Math.PI) / 180;
    const [c, sn] = [Math.cos(t), Math.sin(t)];
    let sum = 0;
    for (let r = from; r <= radii; r++) sum += at(r * c, r * sn) + at(-r * sn, r * c) - 2 * radial[r]!;
    return sum / (2 * (radii - from + 1));
  };
  let best = 0;
  let top = within[0] <= 0 && within[1] >= 0 ? axes(0) : Number.NEGATIVE_INFINITY;
  for (let d = within[0]; d <= within[1] + 1e-9; d += TILT_STEP) {
    const v = axes(d);
    if (v > top) [best, top] = [d, v];
  }
  const fine = TILT_STEP / 10;
  for (let d = best - TILT_STEP; d <= best + TILT_STEP + 1e-9; d += fine) {
    const v = axes(d);
    if (v > top) [best, top] = [d, v];
  }
  best = Math.round((best + vertexNear(axes, best, fine)) * 100) / 100;
  if (top < least || Math.abs(best) >= MAX_TILT) return 0;
  return Math.abs(best) >= MIN_PRINT_TILT ? best : 0;
}
