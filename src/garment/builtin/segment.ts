/**
 * Finding the garment in a photo: its alpha when it has one; otherwise the background is what can be reached
 * from the photo's border without crossing an outline or leaving the background's colour. The background's
 * colour is modelled as a plane over the border (studio sweeps are gradients) and the colour tolerance follows
 * the border's own noise, so a white print on a white sweep still differs where it can; where it cannot, the
 * garment's outline stops the fill: fabric turning away along its edge, seams and cast shadows all make a
 * luminance edge that a seamless background does not have. Only a photo whose border is not one background
 * is a swatch (all fabric): a garment cut by the frame (a cropped product photo) leaves the rest of the border
 * to the background, which is fitted to the border's majority; where such a garment is of the background's
 * colour (a white shirt on a white sweep), the frame's stretch between the outline's two meetings with it is told
 * by its colour off the background's plane (cutByFrame). What a photo adds along the outline is taken off again:
 * JPEG's ringing (clearFringe) and parts too thin to be garment (withoutThinParts), and a hanger wherever it lies,
 * followed from its thin parts by its colour (hangerOf).
 */
import type { Raster } from '../../engine/model.js';
import { deltaE76, type Lab } from '../color.js';
import { components, countMask, erode, type LabPlanes, mapBytes, maskBounds } from '../image.js';
import { isCutout, readCutout } from './cutout.js';
import { close, grow, largest, opening, THIN, withoutThinParts } from './morphology.js';
import { atNeck } from './shading.js';
import { type Wearer, withoutWearer } from './wearer.js';

/** Most ΔE76 from the background (plane) that still counts as background, however noisy the border. */
const MAX_BACKGROUND_DE = 12;
/** Median ΔE76 of the border from its plane above which the border is not one background: a swatch. */
const SWATCH_SPREAD = 10;
/**
 * The long side (px) of the photos the outline's gradient was tuned on: a photo analysed larger shows the
 * garment's shading along its outline (fabric turning away) that many times wider, and as many times shallower.
 */
const REFERENCE_SIDE = 640;
/**
 * A product photo is often cropped, its garment cut by the frame and so larger than the frame's size implies:
 * 1.28 times in a crop of 0.78 of the frame, where the outline's shading read at the frame's scale falls under
 * the gradient it must pass. Read as this much larger, it passes; the soft edge of a cast shadow, which may then
 * pass too, is still cleared with the background (clearShadow): measured so up to twice the scale.
 */
const CROPPED = 1.25;

/** Photo px per reference px, as a cropped photo shows its garment (CROPPED); 1 up to REFERENCE_SIDE. */
function unitOf(w: number, h: number): number {
  const side = Math.max(w, h);
  return side > REFERENCE_SIDE ? (CROPPED * side) / REFERENCE_SIDE : 1;
}

/** Half the narrowest gap the background is followed through, px. */
const GAP = 2;
/** The neck opening is at most this share of the garment's bounds (a larger "hole" is the garment itself). */
const NECK_MAX_SHARE = 0.06;

export interface Segmentation {
  /** The garment's pixels whose colours the photo shows. */
  readonly mask: Uint8Array;
  /** The garment's outline filled, where it is more than `mask` (a cut-out's alpha with holes through it). */
  readonly silhouette?: Uint8Array;
  readonly swatch: boolean;
  /** The neck opening showed the background and was cleared from the mask. */
  readonly neckOpen: boolean;
  /** How the garment was told from the background. */
  readonly basis: 'alpha' | 'background' | 'textured_background' | 'swatch';
  /** The garment is worn: the person wearing it was taken off the mask (wearer.ts). */
  readonly worn?: boolean;
}

/** The radius (px) the garment found against a background is closed by: notches the fill bit into it. */
const closedBy = (w: number, h: number) => Math.max(3, Math.round(Math.min(w, h) / 100));

/** The neck opening lies within this share of the garment's height from its top (shading.ts reads it so). */
const NECK_ROWS = 0.12;

/** The wearer fills the garment's neck opening (a neck through it): what shows there is not the garment. */
function neckShown(worn: Wearer, w: number, h: number): boolean {
  const g = maskBounds(worn.mask, w, h);
  if (!g) return false;
  const x0 = Math.round(g.x + 0.35 * g.w);
  const x1 = Math.round(g.x + 0.65 * g.w);
  const y1 = Math.round(g.y + NECK_ROWS * g.h);
  for (let y = g.y; y < y1; y++) for (let x = x0; x < x1; x++) if (worn.wearer[y * w + x]) return true;
  return false;
}

export function segment(photo: Raster, lab: LabPlanes): Segmentation {
  const { w, h } = photo;
  const n = w * h;
  if (isCutout(photo)) {
    const { mask, silhouette } = readCutout(photo);
    const worn = withoutWearer(mask, lab);
    const off = (m: Uint8Array) => (worn ? mapBytes(m, (v, i) => (worn.wearer[i] ? 0 : v)) : m);
    return {
      mask: worn?.mask ?? mask,
      ...(silhouette !== mask ? { silhouette: largest(off(silhouette), w, h) } : {}),
      swatch: false,
      neckOpen: worn ? neckShown(worn, w, h) : false,
      basis: 'alpha',
      ...(worn ? { worn: true } : {}),
    };
  }
  const swatch = (): Segmentation => ({
    mask: new Uint8Array(n).fill(1),
    swatch: true,
    neckOpen: false,
    basis: 'swatch',
  });
  // A border that is not one colour belongs to a patterned surface (floor planks, a check, a carpet) or to a
  // photo that is all fabric. The surface's few colours are learnt from the border and followed in; all fabric
  // is all such colours, and nothing is left of it. A plain garment of one of the surface's own colours (a white
  // shirt on a white-and-red check) is told from it by texture: it is even where the surface never is at the
  // scale of its pattern. A garment that is both of the surface's colours and as even as it (a plank-coloured
  // shirt on planks, whose windows a plank high are even too) is read as a swatch. A border that is one colour
  // but not a clean one (a sweep's noise is ΔE 1–2) is read as such a surface first: floor planks vary too
  // little between them to fail the one-colour model and too much to pass it whole.
  const plain = () => onPlainBackground(lab);
  const patterned = () => onPatternedBackground(lab);
  const order = borderSpread(lab) > CLEAN_BORDER_DE ? [patterned, plain] : [plain, patterned];
  for (const attempt of order) {
    const found = attempt();
    if (!found) continue;
    const basis = attempt === plain ? 'background' : 'textured_background';
    const { mask, neckOpen, background } = found;
    const worn = withoutWearer(mask, lab, { closed: closedBy(w, h), ...(background ? { background } : {}) });
    if (!worn) return { mask, neckOpen, swatch: false, basis };
    return { mask: worn.mask, neckOpen: neckOpen || neckShown(worn, w, h), swatch: false, basis, worn: true };
  }
  return swatch();
}

/** The least share of the photo a garment on a patterned surface covers (our T-shirt flat lay: 41 %). */
const MIN_FLAT_LAY_SHARE = 0.2;
/** The least share of a garment found on a patterned surface by its colours that is off the surface's colours. */
const MIN_OWN_COLOUR = 0.5;
/** The most of the photo inside the surface's band a garment on it covers: more is fabric all over, a swatch. */
const MAX_FLAT_LAY_COVER = 0.9;
/** Garment of the background's colour along more of the frame than this share is background taken for garment. */
const MAX_FRAME_SHARE = 0.25;
/** A garment cut by the frame along more of it than this share is not in view enough to be read as one. */
const MAX_CUT_SHARE = 0.6;
/** Median ΔE76 of a clean background's border from its plane: studio sweeps measure 1–2, floor planks 6. */
const CLEAN_BORDER_DE = 4;

/** Median ΔE76 of the border from its background plane. */
function borderSpread(lab: LabPlanes, bgAt = borderPlane(lab)): number {
  const border = frame(lab.w, lab.h, 2);
  return median(border.map((i) => deltaE76({ L: lab.L[i]!, a: lab.a[i]!, b: lab.b[i]! }, bgAt(i))));
}

/** At most this many colours make a patterned background (a check's three, a floor's shades and joints). */
const MAX_SURFACE_COLOURS = 6;
/** The band along the frame a surface's colours are learnt from, as a share of the photo's shorter side. */
const SURFACE_BAND = 0.04;
/** Median ΔE76 of the border from its nearest surface colour at which that many colours describe it. */
const SURFACE_FIT_DE = 4;

interface Found {
  readonly mask: Uint8Array;
  readonly neckOpen: boolean;
  /** Whether a pixel has the background's colour, where that is known (a plain background). */
  readonly background?: (i: number) => boolean;
}

/** The garment on a background of one colour (a plane: studio sweeps are gradients), or null. */
function onPlainBackground(lab: LabPlanes): Found | null {
  const { w, h } = lab;
  const n = w * h;
  const border = frame(w, h, 2);
  const bgAt = borderPlane(lab);
  const spread = borderSpread(lab, bgAt);
  if (spread > SWATCH_SPREAD) return null;
  const tolerance = Math.min(MAX_BACKGROUND_DE, Math.max(3, 4 * spread + 1));
  const fg = new Uint8Array(n);
  const fromBackground = new Float32Array(n);
  const plane = bgAt.planes;
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      const dL = lab.L[i]! - (plane[0]![0] + plane[0]![1] * x + plane[0]![2] * y);
      const da = lab.a[i]! - (plane[1]![0] + plane[1]![1] * x + plane[1]![2] * y);
      const db = lab.b[i]! - (plane[2]![0] + plane[2]![1] * x + plane[2]![2] * y);
      fromBackground[i] = Math.sqrt(dL * dL + da * da + db * db);
      fg[i] = fromBackground[i]! > tolerance ? 1 : 0;
    }
  }
  const smooth = smoothed(lab.L, w, h);
  // A photo analysed larger than the reference shows an outline's shading (fabric turning away) as many times
  // wider and as many times shallower a px: it is read at its own scale, where it is as steep as at the reference.
  const unit = unitOf(w, h);
  const d = Math.round(unit);
  const outline = edges(d > 1 ? boxMean(lab.L, w, h, d) : smooth, w, h, border, d, unit);
  const cut = cutByFrame(lab, plane, outline);
  // The garment's ground is told from the background by a stretch's median only on a border cleaner than that.
  const ground = cut && spread < CUT_DE ? { cut, outline } : null;
  if (cutsAlongFrame(fg, w, h, ground) > MAX_CUTS) return null;
  const within = (front: Uint8Array, lit = false) =>
    garmentWithin(front, outline, w, h, {
      refine: (mask) => {
        if (!clearFringe(mask, lab, fromBackground))
          clearChromaFringe(mask, lab, plane, outline, { tolerance, fromBackground }, border);
        clearShadow(mask, lab, smooth, plane, { tolerance, fromBackground }, border, lit ? outline : null);
      },
      cut,
      hanger: { lab, fromBackground },
      noiseless: spread <= NOISELESS,
    });
  const found = within(fg);
  const followed = found && followedBackground(found.mask, lab, fg, outline, fromBackground);
  const again = followed && within(followed);
  if (again) return { ...again, background: (i) => !followed[i] };
  const lit = found && spread <= NOISELESS && litIntoBackground(found.mask, fromBackground);
  const relit = lit && within(lit, true);
  const gained = relit && mirroredGain(found.mask, relit.mask, w, h);
  if (gained) return { mask: gained, neckOpen: found.neckOpen || relit.neckOpen, background: (i) => !lit[i] };
  return found && { ...found, background: (i) => !fg[i] };
}

/**
 * A border that differs from its plane by no more than this (median ΔE76) has no noise at all: a garment cut out
 * and put on a flat colour, as web shops' product photos on pure white are.
 */
const NOISELESS = 0.05;
/** On such a background, a px this far from it (ΔE76) is not background: the garment's lit side, nearly white. */
const LIT_TOLERANCE = 0.8;

/**
 * On a noiseless background, a light garment's side lit towards white (a white shirt on white) is within the
 * tolerance a photo's noise asks for, and was lost from the silhouette with its sleeve: where the background is
 * exact, the fabric's weave and shading set it apart by a ΔE76 of one or two. The foreground read at
 * LIT_TOLERANCE, for a garment near the background's colour (nearBackground); else null.
 */
function litIntoBackground(mask: Uint8Array, fromBackground: Float32Array): Uint8Array | null {
  if (!nearBackground(mask, fromBackground)) return null;
  return mapBytes(fromBackground, (d) => (d > LIT_TOLERANCE ? 1 : 0));
}

/** The lit reading is kept when what it adds of the garment's mirror image is at least this share of the garment. */
const MIRRORED_LEAST = 0.005;

/**
 * `found` with what the lit reading (`lit`, read at LIT_TOLERANCE) adds where its mirror image is garment
 * already, or null when that is too little to matter. At that tolerance a soft cast shadow is garment as much as
 * a lit side is, and clearShadow, which follows a shadow in by its darkening, follows a white shirt's lit side in
 * the same way. A product photo shows the garment from the front, nearly symmetric about its middle, lit from one
 * side and shadowed below or on the far side: its lit side mirrors the shaded side found, a shadow below mirrors
 * itself and one to the side mirrors background. Read px by px, as a shadow may touch the lit side it runs into;
 * what is left thinner than the opening's square is dropped with the slivers an asymmetric pose leaves.
 */
function mirroredGain(found: Uint8Array, lit: Uint8Array, w: number, h: number): Uint8Array | null {
  const axis = mirrorLine(lit, w, h);
  if (axis === null) return null;
  const added = new Uint8Array(w * h);
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      if (!lit[i] || found[i]) continue;
      const mx = 2 * axis - x;
      if (mx >= 0 && mx < w && found[y * w + mx]) added[i] = 1;
    }
  }
  const kept = opening(added, w, h, GAP);
  if (countMask(kept) < MIRRORED_LEAST * countMask(found)) return null;
  return largest(
    mapBytes(found, (v, i) => v | kept[i]!),
    w,
    h,
  );
}

/**
 * The vertical line (x, in half px) about which `mask` overlaps its mirror image most, read on every fourth row
 * and column within the mask's middle half; null for an empty mask.
 */
function mirrorLine(mask: Uint8Array, w: number, h: number): number | null {
  const g = maskBounds(mask, w, h);
  if (!g) return null;
  const step = 4;
  let best = -1;
  let line: number | null = null;
  for (let a2 = 2 * g.x + Math.round(g.w / 2); a2 <= 2 * g.x + (3 * g.w) / 2; a2 += 2) {
    let overlap = 0;
    for (let y = g.y; y < g.y + g.h; y += step) {
      const row = y * w;
      for (let x = g.x; x < g.x + g.w; x += step) {
        const mx = Math.round(a2 - x);
        if (mask[row + x] && mx >= 0 && mx < w && mask[row + mx]) overlap++;
      }
    }
    if (overlap > best) {
      best = overlap;
      line = a2 / 2;
    }
  }
  return line;
}

/** A garment this far (median ΔE76) from the background's plane or more has a background followed past the plane. */
const APART_DE = 12;
/**
 * Followed background: at most this share of the garment's median ΔE76 from the plane (a glow of the sweep's own
 * colour behind the garment, 3–8 beside a white shirt 16 from a pale blue sweep), changing by at most FOLLOW_STEP
 * a px (ΔE76, Lab box-smoothed over 5 × 5 px: JPEG's noise is more a px, a sweep's light far less). At half the
 * garment's distance, a strong glow's middle (0.55 of the way to white) was left over beside a cast shadow, which
 * cuts off the way round it: read as garment, it ran the bounds out to it (photo-glow.test.ts).
 */
const FOLLOW_SHARE = 0.7;
const FOLLOW_STEP = 1.5;
/** The least share of the photo followed past the plane for the garment to be read again: specks along it do not. */
const FOLLOWED_LEAST = 0.005;

/**
 * `fg` without the background that differs from its plane by more than the tolerance but runs on from it smoothly,
 * with no outline between (a sweep lit in a round glow behind the garment, which a plane fitted to the frame does
 * not follow: its brighter middle was read as garment, beside a white shirt a third of the photo), or null when
 * there is not enough of it to matter (FOLLOWED_LEAST). Only beside a garment clearly apart from the background
 * (APART_DE): a light garment on a light sweep shades as smoothly as a glow into colours as near the sweep's, and
 * would be followed into. Followed from the frame through pixels 2·GAP + 1 px wide of such background, as
 * garmentWithin's fill is.
 */
function followedBackground(
  mask: Uint8Array,
  lab: LabPlanes,
  fg: Uint8Array,
  outline: Uint8Array,
  fromBackground: Float32Array,
): Uint8Array | null {
  const { w, h } = lab;
  const n = w * h;
  const apart = offBackground(mask, fromBackground);
  if (apart < APART_DE) return null;
  const limit = FOLLOW_SHARE * apart;
  const allowed = new Uint8Array(n);
  for (let i = 0; i < n; i++) allowed[i] = !outline[i] && fromBackground[i]! <= limit ? 1 : 0;
  const wide = erode(allowed, w, h, GAP);
  const [L, a, b] = [lab.L, lab.a, lab.b].map((ch) => boxMean(ch, w, h, 2)) as [
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  const reached = new Uint8Array(n);
  // Each px enters the stack once (reached is set as it does).
  const stack = new Int32Array(n);
  let top = 0;
  for (const i of frame(w, h, GAP + 1)) {
    if (!wide[i] || fg[i] || reached[i]) continue;
    reached[i] = 1;
    stack[top++] = i;
  }
  let taken = 0;
  const visit = (p: number, q: number) => {
    if (!wide[q] || reached[q]) return;
    const dL = L[q]! - L[p]!;
    const da = a[q]! - a[p]!;
    const db = b[q]! - b[p]!;
    if (dL * dL + da * da + db * db > FOLLOW_STEP * FOLLOW_STEP) return;
    reached[q] = 1;
    if (fg[q]) taken++;
    stack[top++] = q;
  };
  while (top) {
    const p = stack[--top]!;
    const x = p % w;
    if (x > 0) visit(p, p - 1);
    if (x < w - 1) visit(p, p + 1);
    if (p >= w) visit(p, p - w);
    if (p < n - w) visit(p, p + w);
  }
  if (taken < FOLLOWED_LEAST * n) return null;
  return mapBytes(fg, (v, i) => (reached[i] ? 0 : v));
}

/** How far in from the frame (px) its stretches are read: the fill's seeds lie within it. */
const CUT_DEPTH = GAP + 2;
/** Median ΔE76 of a stretch of the frame from the background's plane at which it is not background. */
const CUT_DE = 1;

/** The frame's outermost pixels in order round it, each with the step that goes into the photo. */
function frameLoop(w: number, h: number): { loop: number[]; inward: number[] } {
  const loop: number[] = [];
  const inward: number[] = [];
  const add = (i: number, step: number) => {
    loop.push(i);
    inward.push(step);
  };
  for (let x = 0; x < w; x++) add(x, w);
  for (let y = 1; y < h; y++) add(y * w + w - 1, -1);
  for (let x = w - 2; x >= 0; x--) add((h - 1) * w + x, -w);
  for (let y = h - 2; y > 0; y--) add(y * w, 1);
  return { loop, inward };
}

/**
 * The stretches of the frame (CUT_DEPTH px deep) that are a garment cut by the frame, though of the background's
 * colour (a white shirt on a light or white sweep), or null when there are none. The garment's outline meets
 * the frame where the garment crosses it; between two such meetings the frame is all background or all garment,
 * and a stretch whose colour is off the background's plane (the plane is fitted to the border's majority, the
 * background) is garment. Without this the fill started from the frame enters the garment where the frame cuts
 * it, and nothing of it is left. A component-wise median reads a stretch's colour, so a cast shadow over part of
 * a stretch of background does not make it garment.
 */
function cutByFrame(
  lab: LabPlanes,
  plane: readonly [number, number, number][],
  outline: Uint8Array,
): Uint8Array | null {
  const { w, h } = lab;
  const { loop, inward } = frameLoop(w, h);
  const depth = Math.min(CUT_DEPTH, w >> 1, h >> 1);
  const meets = loop.map((i, k) => {
    for (let d = 0; d < depth; d++) if (outline[i + d * inward[k]!]) return true;
    return false;
  });
  const start = meets.indexOf(true);
  if (start < 0) return null;
  const least = Math.max(3, Math.round(MIN_CUT * loop.length));
  const stretches: number[][] = [];
  let run: number[] = [];
  for (let k = 1; k <= loop.length; k++) {
    const at = (start + k) % loop.length;
    if (!meets[at]) run.push(at);
    else if (run.length) {
      stretches.push(run);
      run = [];
    }
  }
  const band = (s: readonly number[]) =>
    s.flatMap((k) => Array.from({ length: depth }, (_, d) => loop[k]! + d * inward[k]!));
  const channels = [lab.L, lab.a, lab.b];
  const offset = (px: readonly number[], planes: readonly (readonly [number, number, number])[]) =>
    Math.hypot(
      ...channels.map((ch, c) => {
        const p = planes[c]!;
        return median(px.map((i) => ch[i]! - (p[0] + p[1] * (i % w) + p[2] * Math.floor(i / w))));
      }),
    );
  // The plane is fitted again to the background's stretches alone: a light garment cut along a whole edge is
  // near enough the background's colour to have pulled the first fit its way (a stretch of background between a
  // sleeve and the hem then reads 1.5 ΔE off it, the garment 2.3 instead of 5).
  const longest = stretches.reduce((p, q) => (q.length > p.length ? q : p), [] as number[]);
  const clear = stretches.filter((s) => s === longest || offset(band(s), plane) <= CUT_DE).flatMap(band);
  const refit = channels.map((ch) => planeFit(ch, clear, w));
  const garment = stretches.filter((s) => {
    if (s === longest || s.length < least) return false;
    return offset(band(s), refit) > CUT_DE;
  });
  const length = garment.reduce((sum, s) => sum + s.length, 0);
  if (!length || length > loop.length * MAX_CUT_SHARE) return null;
  const out = new Uint8Array(w * h);
  for (const s of garment)
    for (const k of s) for (let d = 0; d < depth; d++) out[loop[k]! + d * inward[k]!] = 1;
  return out;
}

/** A garment cut by the frame crosses it this many times at most (two sleeves, the hem, the neck). */
const MAX_CUTS = 6;
/** A run along the frame shorter than this share of it is a speck, not the garment crossing it. */
const MIN_CUT = 0.005;

/**
 * How many times something off the background's colour (`fg`) crosses the frame: its runs along the photo's
 * outermost pixels, a speck excepted. The background's plane is fitted to the border's majority, so a border
 * of stripes or a check is read as a background of its main colour cut many times by "garment", where a
 * garment cut by the frame (a cropped product photo) crosses it a few times. A garment near the background's
 * colour (a white shirt on white) crosses it as its print's runs with its own ground between them, each run a
 * crossing (a crop of flowers on white, cut at a sleeve and the hem, crossed it 7 times): that ground, where
 * cutByFrame found it garment (`on.cut`), and the outline where the print meets it (`on.outline`) end no run.
 * They never start one either, so the count is never more than `fg`'s alone.
 */
function cutsAlongFrame(
  fg: Uint8Array,
  w: number,
  h: number,
  on: { readonly cut: Uint8Array; readonly outline: Uint8Array } | null = null,
): number {
  const { loop, inward } = frameLoop(w, h);
  const depth = Math.min(CUT_DEPTH, w >> 1, h >> 1);
  /** 1 off the background, 0 background, -1 the garment's ground or an outline: a run goes on through it. */
  const state = (k: number): number => {
    const i = loop[k]!;
    if (fg[i]) return 1;
    if (!on) return 0;
    if (on.cut[i]) return -1;
    for (let d = 0; d < depth; d++) if (on.outline[i + d * inward[k]!]) return -1;
    return 0;
  };
  const least = Math.max(3, Math.round(MIN_CUT * loop.length));
  // Start where the loop is background, so a run through the starting corner is counted once.
  let start = -1;
  for (let k = 0; k < loop.length && start < 0; k++) if (state(k) === 0) start = k;
  if (start < 0) return 0;
  let cuts = 0;
  let run = 0;
  for (let k = 1; k <= loop.length; k++) {
    const s = state((start + k) % loop.length);
    if (s === 1) run++;
    else if (s === 0) {
      if (run >= least) cuts++;
      run = 0;
    }
  }
  return cuts;
}

/** How far (px) from the background a fringe of its own colour is looked for along the garment's outline. */
const FRINGE = 16;
/**
 * ΔE76 of the garment from the background above which a fringe pixel is told from the garment by its colour
 * alone; a garment nearer the background's colour (a white shirt on white) keeps its outline as found.
 */
const FRINGE_CONTRAST = 2 * MAX_BACKGROUND_DE;
/** A fringe pixel lies at most this share of the way from the background's colour to the garment's. */
const FRINGE_SHARE = 0.4;

/**
 * Clears from `mask` the fringe a lossy photo leaves along the garment's outline: JPEG rings and bleeds the
 * garment's colour into the background over its 8 px blocks (16 px for the half-size chroma of 4:2:0), beyond
 * the border's own noise, and the fill stops there. A pixel within FRINGE px of the background is background
 * when it is nearer the background's colour (`fromBackground`, ΔE76) than the garment's just inside it, at
 * most FRINGE_SHARE of the way from the one to the other, and reached from the background through such
 * pixels. Only a garment that differs clearly from its background (FRINGE_CONTRAST, typically along its
 * outline) is cut so, and then true is returned: a white shirt on white keeps the outline its shading gave it
 * (clearChromaFringe clears its fringe). The luminance outline does not stop this: JPEG's ringing makes edges of
 * its own beside the garment's.
 */
function clearFringe(mask: Uint8Array, lab: LabPlanes, fromBackground: Float32Array): boolean {
  const { w, h } = lab;
  const n = w * h;
  // Chessboard distance from the background, up to FRINGE + 2; the garment's colour at that depth is carried out.
  const depth = new Uint8Array(n).fill(255);
  for (let i = 0; i < n; i++) if (!mask[i]) depth[i] = 0;
  const neighbours = (p: number, visit: (q: number) => void) => {
    const x = p % w;
    const y = (p - x) / w;
    for (let j = Math.max(0, y - 1); j <= Math.min(h - 1, y + 1); j++)
      for (let i = Math.max(0, x - 1); i <= Math.min(w - 1, x + 1); i++) visit(j * w + i);
  };
  // The distance grows from the background's pixels beside the garment only: the others reach no garment first.
  let ring: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (mask[i]) continue;
      const beside =
        (x > 0 && mask[i - 1]) ||
        (x < w - 1 && mask[i + 1]) ||
        (y > 0 && (mask[i - w] || (x > 0 && mask[i - w - 1]) || (x < w - 1 && mask[i - w + 1]))) ||
        (y < h - 1 && (mask[i + w] || (x > 0 && mask[i + w - 1]) || (x < w - 1 && mask[i + w + 1])));
      if (beside) ring.push(i);
    }
  }
  for (let d = 1; d <= FRINGE + 2 && ring.length; d++) {
    const next: number[] = [];
    for (const p of ring) {
      neighbours(p, (q) => {
        if (depth[q] !== 255) return;
        depth[q] = d;
        next.push(q);
      });
    }
    ring = next;
  }
  // The garment's colour just inside the fringe, carried outwards to each pixel of it.
  const source = new Int32Array(n).fill(-1);
  for (const p of ring) source[p] = p;
  // The garment's contrast with the background, typically (one pixel may be a print's blurred edge).
  const typical = median(ring.map((p) => fromBackground[p]!));
  if (typical < FRINGE_CONTRAST) return false;
  while (ring.length) {
    const next: number[] = [];
    for (const p of ring) {
      neighbours(p, (q) => {
        if (!mask[q] || depth[q]! > FRINGE + 1 || source[q] !== -1) return;
        source[q] = source[p]!;
        next.push(q);
      });
    }
    ring = next;
  }
  const background = (i: number): boolean => {
    if (!mask[i] || depth[i]! > FRINGE) return false;
    const s = source[i]!;
    // Where the garment just inside has the background's colour itself (a plaid's grey band), its outline stays.
    if (s < 0 || fromBackground[s]! < MAX_BACKGROUND_DE) return false;
    if (fromBackground[i]! > FRINGE_SHARE * Math.max(typical, fromBackground[s]!)) return false;
    const toGarment = Math.hypot(lab.L[i]! - lab.L[s]!, lab.a[i]! - lab.a[s]!, lab.b[i]! - lab.b[s]!);
    return fromBackground[i]! < toGarment;
  };
  // Each px enters the stack once (it leaves the mask as it does).
  const stack = new Int32Array(n);
  let top = 0;
  for (let i = 0; i < n; i++) if (depth[i] === 1 && background(i)) stack[top++] = i;
  for (let k = 0; k < top; k++) mask[stack[k]!] = 0;
  const visit = (q: number) => {
    if (q < 0 || q >= n || !background(q)) return;
    mask[q] = 0;
    stack[top++] = q;
  };
  while (top) {
    const p = stack[--top]!;
    const x = p % w;
    visit(x > 0 ? p - 1 : -1);
    visit(x < w - 1 ? p + 1 : -1);
    visit(p - w);
    visit(p + w);
  }
  return true;
}

/**
 * Clears from `mask` the fringe a lossy photo leaves beside a garment close to the background's colour all over
 * (a white shirt on white or light grey, which clearFringe leaves alone): 4:2:0 JPEG blurs and rings the chroma of a print
 * near the outline (a red dot by the hem) over its 16 px blocks into the background, but keeps the lightness
 * sharp. What such a garment is told from the background by is its lightness (its outline: fabric turning away);
 * a pixel outside the outline (not on it) of the background's lightness (within three times the border's
 * lightness noise, at least LIGHT_FRINGE_L) is background, whatever its chroma, when it is reached from the
 * background through such pixels within FRINGE px. Only what its chroma made garment (`fromBackground` over
 * `tolerance`) and the way there is cleared, and nothing of a stretch that runs on FRINGE px in: that is a garment
 * told by its chroma alone (a pale pink shirt on white), not JPEG's reach.
 */
function clearChromaFringe(
  mask: Uint8Array,
  lab: LabPlanes,
  plane: readonly [number, number, number][],
  outline: Uint8Array,
  colour: { readonly tolerance: number; readonly fromBackground: Float32Array },
  border: readonly number[],
): void {
  const { w, h } = lab;
  // Only a garment close to the background's colour all over: one that is so only along its outline (a plaid's
  // band of the background's grey there) is clearFringe's, and its band is print.
  if (!nearBackground(mask, colour.fromBackground)) return;
  const pL = plane[0]!;
  const off = (i: number) => {
    const x = i % w;
    return lab.L[i]! - (pL[0] + pL[1] * x + pL[2] * ((i - x) / w));
  };
  const near = Math.max(LIGHT_FRINGE_L, 3 * median(border.map((i) => Math.abs(off(i)))));
  const like = (i: number) => mask[i] === 1 && !outline[i] && Math.abs(off(i)) <= near;
  const from = new Int32Array(w * h).fill(-2);
  let ring: number[] = [];
  for (let i = 0; i < mask.length; i++) {
    if (mask[i]) continue;
    const x = i % w;
    if ((x > 0 && mask[i - 1]) || (x < w - 1 && mask[i + 1]) || mask[i - w] || mask[i + w]) ring.push(i);
  }
  const reached: number[] = [];
  for (let d = 1; d <= FRINGE && ring.length; d++) {
    const next: number[] = [];
    for (const p of ring) {
      const x = p % w;
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
        if (q < 0 || q >= mask.length || from[q] !== -2 || !like(q)) continue;
        from[q] = p;
        next.push(q);
        reached.push(q);
      }
    }
    ring = next;
  }
  // Stretches that run on past JPEG's reach (still growing at FRINGE px) are garment, and stay.
  const reachedMask = new Uint8Array(w * h);
  for (const i of reached) reachedMask[i] = 1;
  const { comps, labels } = components(reachedMask, w, h);
  const deep = new Uint8Array(comps.length + 1);
  for (const i of ring) deep[labels[i]!] = 1;
  const clear = new Uint8Array(w * h);
  for (let k = reached.length - 1; k >= 0; k--) {
    const q = reached[k]!;
    if (deep[labels[q]!]) continue;
    if (colour.fromBackground[q]! > colour.tolerance) clear[q] = 1;
    if (!clear[q]) continue;
    mask[q] = 0;
    if (from[q]! >= 0) clear[from[q]!] = 1;
  }
}

/** Whether the garment in `mask` is typically (its median px) within FRINGE_CONTRAST of the background. */
function nearBackground(mask: Uint8Array, fromBackground: Float32Array): boolean {
  return offBackground(mask, fromBackground) < FRINGE_CONTRAST;
}

/** The garment's median ΔE76 from the background, read on some 4000 px of it, an odd step apart. */
function offBackground(mask: Uint8Array, fromBackground: Float32Array): number {
  const body: number[] = [];
  const step = Math.max(7, 2 * Math.floor(mask.length / 8000) + 1);
  for (let i = 0; i < mask.length; i += step) if (mask[i]) body.push(fromBackground[i]!);
  return median(body);
}

/** The least lightness difference (L) from the background's plane a JPEG chroma fringe may show: its ringing. */
const LIGHT_FRINGE_L = 1.5;

/** The most a cast shadow darkens going in towards the garment, L per px (3 × 3 smoothed): its soft edge. */
const SHADOW_SOFT = 1.5;
/** How far (share of the garment's longer side) a cast shadow reaches out from it at most. */
const SHADOW_REACH = 0.1;
/**
 * Beside a garment that differs clearly from the background, a cast shadow is cleared only where it is at least
 * this thick (px; an opening of what the test takes): a dark garment's shadow on a white sweep is a band tens of px
 * deep below its hem, while the test also follows a grey garment's own darker rim in a px or two as it turns away.
 */
const SHADOW_THICK = 3;
/** A shadow is at least this much darker (L, 3 × 3 smoothed) than the background somewhere: else it shows not. */
const SHADOW_DEPTH = 3;
/** Least lightening (L, 3 × 3 smoothed) going inwards that ends a shadow, above twice the border's noise. */
const SHADOW_NOISE = 0.5;

/**
 * Clears from `mask` the garment's cast shadow on the background: what a colour threshold alone takes for garment
 * beside a white garment on white, where the shadow is as far from the background as the garment and no outline
 * parts the two. A shadow is the background darker: of its chroma (within `tolerance` of the plane's a, b, or of
 * the lit background's it is followed in from), darker than the plane (or than that lit background), with a
 * soft edge (darkening by at most SHADOW_SOFT a px) and no print, growing darker towards what casts it. So it is
 * followed in from the background while each px is of the background's chroma and no lighter than the darkest
 * already passed (SHADOW_NOISE and the border's noise aside): it ends at the garment, which is lighter inside its
 * outline (a white garment: a shadow's darkest is where it meets the garment's edge turning away), of another
 * chroma, or a sharp step darker (a grey garment beside a light shadow). Gradients of light on the background do
 * not reach so far (SHADOW_REACH); a fringe of JPEG ringing is clearFringe's. Given an `outline`, the shadow
 * does not cross it: a soft shadow has none, while a white garment's lit side, which darkens inwards as a shadow
 * does, is parted from a noiseless background by one (the lit reading, mirroredGain).
 */
function clearShadow(
  mask: Uint8Array,
  lab: LabPlanes,
  smooth: Float32Array,
  plane: readonly [number, number, number][],
  colour: { readonly tolerance: number; readonly fromBackground: Float32Array },
  border: readonly number[],
  outline: Uint8Array | null = null,
): void {
  const { w, h } = lab;
  const { tolerance, fromBackground } = colour;
  // Beside a garment that differs clearly from the background (a black T-shirt on white), clearFringe takes the
  // shadow's edge only: the rest, lighter than the garment and unlike it, was read as its print (a motif along
  // the hem). There the test may also follow a grey garment's darker rim, or a band of the background's grey at
  // its edge (a plaid), a px or two in: only the shadow's thick parts are cleared (SHADOW_THICK).
  const thickOnly = !nearBackground(mask, fromBackground);
  const g = maskBounds(mask, w, h);
  if (!g) return;
  const [pL, pa, pb] = plane as [
    [number, number, number],
    [number, number, number],
    [number, number, number],
  ];
  /** The smoothed L off the background's plane (negative: darker). */
  const below = (i: number) => {
    const x = i % w;
    const y = (i - x) / w;
    return smooth[i]! - (pL[0] + pL[1] * x + pL[2] * y);
  };
  /** Of the background's chroma: the plane's, or that of the background px the shadow was followed in from. */
  const neutral = (i: number, start: number) => {
    const x = i % w;
    const y = (i - x) / w;
    return (
      Math.hypot(lab.a[i]! - (pa[0] + pa[1] * x + pa[2] * y), lab.b[i]! - (pb[0] + pb[1] * x + pb[2] * y)) <=
        tolerance ||
      (below(start) > noise && Math.hypot(lab.a[i]! - lab.a[start]!, lab.b[i]! - lab.b[start]!) <= tolerance)
    );
  };
  const noise = Math.max(
    SHADOW_NOISE,
    2 * median(border.filter((_, k) => k % 4 === 0).map((i) => Math.abs(below(i)))),
  );
  const reach = Math.max(2, Math.round(SHADOW_REACH * Math.max(g.w, g.h)));
  // Per px taken (few: a shadow's band), the most L the next one in may have (the darkest passed, plus the
  // noise), and the px it was reached from.
  const cap = new Map<number, number>();
  const from = new Map<number, number>();
  // The background px each was followed in from, and the L (off the plane) a shadow is darker than: the plane's,
  // or that px's where the background is lit above the plane there (a glow on the sweep, which the plane fitted
  // to the frame does not follow: a shadow cast into it is darker than the glow, not than the plane).
  const start = new Map<number, number>();
  const lightOf = (i: number) => {
    const v = below(start.get(i)!);
    return v > noise ? v : 0;
  };
  let ring: number[] = [];
  for (let y = Math.max(0, g.y - 1); y <= Math.min(h - 1, g.y + g.h); y++) {
    for (let x = Math.max(0, g.x - 1), i = y * w + x; x <= Math.min(w - 1, g.x + g.w); x++, i++) {
      if (mask[i]) continue;
      if ((x > 0 && mask[i - 1]) || (x < w - 1 && mask[i + 1]) || mask[i - w] || mask[i + w]) {
        cap.set(i, below(i) + noise);
        start.set(i, i);
        ring.push(i);
      }
    }
  }
  const shadow: number[] = [];
  for (let d = 1; d <= reach && ring.length; d++) {
    const next: number[] = [];
    for (const p of ring) {
      const x = p % w;
      const limit = cap.get(p)!;
      const at = below(p);
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
        if (q < 0 || q >= mask.length || !mask[q] || cap.has(q) || outline?.[q]) continue;
        const v = below(q);
        if (v > limit || at - v > SHADOW_SOFT || v >= lightOf(p) || !neutral(q, start.get(p)!)) continue;
        cap.set(q, Math.min(limit, v + noise));
        from.set(q, p);
        start.set(q, start.get(p)!);
        next.push(q);
        shadow.push(q);
      }
    }
    ring = next;
  }
  // The shadow: where its darkness (SHADOW_DEPTH) made garment of the background (`fromBackground` over
  // `tolerance`) and the way there from the background; not the garment's own rim followed elsewhere, a little
  // darker than the background as it turns away, nor a print's band of the background's colour beside it.
  const dark = new Set<number>();
  const cleared = new Uint8Array(mask.length);
  for (let k = shadow.length - 1; k >= 0; k--) {
    const q = shadow[k]!;
    if (!dark.has(q) && (fromBackground[q]! <= tolerance || below(q) > lightOf(q) - SHADOW_DEPTH)) continue;
    cleared[q] = 1;
    dark.add(from.get(q)!);
  }
  if (!dark.size) return;
  // Beside the shadow cleared, its lighter part, of the background's colour, followed in from other px of the
  // background: the darker part had closed it off from the frame, so it was found inside the garment (a shadow
  // cast into a glow, or a band only a few px deep below a hem, which the opening below would drop whole).
  // Only beside a garment clearly apart from the background: a white shirt's lit side on white is of the
  // background's colour too, and is followed in as a shadow is.
  const beside = thickOnly ? shadow.filter((q) => cleared[q]) : [];
  while (beside.length) {
    const p = beside.pop()!;
    const x = p % w;
    for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
      if (q < 0 || q >= mask.length || cleared[q] || !cap.has(q) || !mask[q]) continue;
      if (fromBackground[q]! > tolerance) continue;
      cleared[q] = 1;
      beside.push(q);
    }
  }
  const thick = thickOnly ? opening(cleared, w, h, SHADOW_THICK) : cleared;
  for (let i = 0; i < mask.length; i++) if (thick[i]) mask[i] = 0;
}

/**
 * The garment on a surface of a few colours (k-means of the border), or null. No outline stops the fill here:
 * the surface's own pattern is all edges.
 */
function onPatternedBackground(lab: LabPlanes): Found | null {
  const { w, h } = lab;
  // A band as wide as a pattern's cell, not the frame's few pixels: a check aligned with the frame shows only
  // some of its colours along the edge.
  const band = Math.max(2, Math.round(Math.min(w, h) * SURFACE_BAND));
  const border = frame(w, h, band);
  const colours = border.map((i) => [lab.L[i]!, lab.a[i]!, lab.b[i]!] as const);
  for (let k = 2; k <= MAX_SURFACE_COLOURS; k++) {
    const centres = kMeans(colours, k);
    const nearest = (c: readonly [number, number, number]) =>
      Math.min(...centres.map((m) => Math.hypot(c[0] - m[0], c[1] - m[1], c[2] - m[2])));
    const spread = median(colours.map(nearest));
    if (spread > SURFACE_FIT_DE) continue;
    const tolerance = Math.min(MAX_BACKGROUND_DE, Math.max(3, 4 * spread + 1));
    const fg = new Uint8Array(w * h);
    for (let i = 0; i < fg.length; i++)
      fg[i] = nearest([lab.L[i]!, lab.a[i]!, lab.b[i]!]) > tolerance ? 1 : 0;
    // A flat lay fills a good part of the frame; a smaller patch on a patterned border is a motif of a swatch.
    // And it leaves some of the surface in view inside the band: a "garment" that is all the photo within it is
    // fabric whose colours the band did not all show (a fine plaid, whose blended edges net it over).
    const flatLay = (f: Found | null) => {
      if (!f || countMask(f.mask) < w * h * MIN_FLAT_LAY_SHARE) return null;
      let inner = 0;
      let covered = 0;
      for (let y = band; y < h - band; y++) {
        for (let x = band; x < w - band; x++) {
          inner++;
          covered += f.mask[y * w + x]!;
        }
      }
      return covered <= inner * MAX_FLAT_LAY_COVER ? f : null;
    };
    // Found by its own colours (or its own evenness, below), which most of it has: what the surface's colours make
    // up, closed off by lines of another (a plaid's accent lines enclosing its cells), is the surface itself.
    const own = (f: Found | null) => {
      let n = 0;
      let off = 0;
      for (let i = 0; i < fg.length; i++) {
        if (!f?.mask[i]) continue;
        n++;
        off += fg[i]!;
      }
      return f && off >= n * MIN_OWN_COLOUR ? f : null;
    };
    const found = own(flatLay(garmentWithin(fg, null, w, h)));
    if (found) return found;
    // Nothing of another colour: the garment may be of one of the surface's own colours (a white shirt on a
    // white-and-red check, a brown one on brown planks). What tells it from the surface is then its texture: the
    // surface mixes its colours at the scale of its pattern everywhere, a plain garment does not.
    const plain = plainPatches(lab);
    if (!plain) return null;
    for (let i = 0; i < fg.length; i++) fg[i] = fg[i] || plain[i]! ? 1 : 0;
    return own(flatLay(garmentWithin(fg, null, w, h)));
  }
  return null;
}

/** Most share of windows along the frame that may be plain at the window size chosen (noise, a stray fold). */
const PLAIN_AT_FRAME = 0.01;
/** The share of 5 px windows whose colour spread is taken as the photo's smooth-fabric noise (its low tail). */
const NOISE_QUANTILE = 0.1;
/** The windows that find the garment, against the smallest that finds the surface mixed. */
const PLAIN_WIDER = 1.5;

/**
 * Where the photo is plain at the surface pattern's scale, or null when no scale makes the surface mixed. A
 * window is plain when the colours in it spread (root-mean-square ΔE76 from their mean) no more than twice what
 * smooth fabric shows over 5 px (noise and shading, read from the photo's least textured tenth), plus one. The
 * scale is the smallest square window that is never (≤ PLAIN_AT_FRAME) plain along the frame, which is surface;
 * each plain window of the photo is then garment whole, and their union keeps the garment's outline to within
 * the few pixels of surface a window may hold and still be plain.
 */
function plainPatches(lab: LabPlanes): Uint8Array | null {
  const { w, h } = lab;
  const W1 = w + 1;
  const sums = [lab.L, lab.a, lab.b].map(() => new Float64Array(W1 * (h + 1)));
  const squares = new Float64Array(W1 * (h + 1));
  const planes = [lab.L, lab.a, lab.b];
  for (let y = 0; y < h; y++) {
    const row = [0, 0, 0];
    let sq = 0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const o = (y + 1) * W1 + x + 1;
      for (let c = 0; c < 3; c++) {
        const v = planes[c]![i]!;
        row[c]! += v;
        sums[c]![o] = sums[c]![o - W1]! + row[c]!;
        sq += v * v;
      }
      squares[o] = squares[o - W1]! + sq;
    }
  }
  const box = (s: Float64Array, x: number, y: number, r: number) =>
    s[(y + r + 1) * W1 + x + r + 1]! -
    s[(y - r) * W1 + x + r + 1]! -
    s[(y + r + 1) * W1 + x - r]! +
    s[(y - r) * W1 + x - r]!;
  /** Root-mean-square ΔE76 from the mean colour in the window of side 2r + 1 centred on (x, y). */
  const spread = (x: number, y: number, r: number): number => {
    const n = (2 * r + 1) ** 2;
    let mean2 = 0;
    for (const s of sums) mean2 += (box(s, x, y, r) / n) ** 2;
    return Math.sqrt(Math.max(0, box(squares, x, y, r) / n - mean2));
  };
  const small: number[] = [];
  for (let y = 2; y < h - 2; y += 3) for (let x = 2; x < w - 2; x += 3) small.push(spread(x, y, 2));
  small.sort((p, q) => p - q);
  const limit = 2 * small[Math.floor(small.length * NOISE_QUANTILE)]! + 1;
  for (let r = 2; 2 * r + 1 <= Math.min(w, h) / 6; r = Math.max(r + 1, Math.round(r * 1.15))) {
    // Window centres on the ring r + 1 from the frame: windows along it lie on the surface's band.
    const step = Math.max(1, r >> 1);
    let seen = 0;
    let plain = 0;
    const at = (x: number, y: number) => {
      seen++;
      if (spread(x, y, r) <= limit) plain++;
    };
    for (let x = r + 1; x < w - r - 1; x += step) {
      at(x, r + 1);
      at(x, h - r - 2);
    }
    for (let y = r + 1; y < h - r - 1; y += step) {
      at(r + 1, y);
      at(w - r - 2, y);
    }
    if (plain > seen * PLAIN_AT_FRAME) continue;
    // Half as wide again as the pattern's scale: a window just wider than a surface cell of the garment's colour
    // holds one column of other colour per row it reaches past the garment, and could reach rows out unseen.
    const R = Math.round(r * PLAIN_WIDER);
    const centres = new Uint8Array(w * h);
    for (let y = R; y < h - R; y++)
      for (let x = R; x < w - R; x++) centres[y * w + x] = spread(x, y, R) <= limit ? 1 : 0;
    return grow(centres, w, h, R);
  }
  return null;
}

/** k-means (Lloyd, 12 rounds) of Lab colours, seeded by the farthest-point rule from the first: deterministic. */
function kMeans(
  colours: readonly (readonly [number, number, number])[],
  k: number,
): [number, number, number][] {
  const step = Math.max(1, Math.floor(colours.length / 2000));
  const sample = colours.filter((_, i) => i % step === 0);
  const d2 = (p: readonly number[], q: readonly number[]) =>
    (p[0]! - q[0]!) ** 2 + (p[1]! - q[1]!) ** 2 + (p[2]! - q[2]!) ** 2;
  const centres: [number, number, number][] = [[...sample[0]!]];
  while (centres.length < k) {
    let far = sample[0]!;
    let best = -1;
    for (const c of sample) {
      const d = Math.min(...centres.map((m) => d2(c, m)));
      if (d > best) {
        best = d;
        far = c;
      }
    }
    centres.push([...far]);
  }
  for (let round = 0; round < 12; round++) {
    const sums = centres.map(() => [0, 0, 0, 0]);
    for (const c of sample) {
      let j = 0;
      for (let m = 1; m < k; m++) if (d2(c, centres[m]!) < d2(c, centres[j]!)) j = m;
      const acc = sums[j]!;
      acc[0]! += c[0];
      acc[1]! += c[1];
      acc[2]! += c[2];
      acc[3]! += 1;
    }
    sums.forEach((acc, m) => {
      if (acc[3]! > 0) centres[m] = [acc[0]! / acc[3]!, acc[1]! / acc[3]!, acc[2]! / acc[3]!];
    });
  }
  return centres;
}

/**
 * The garment: what cannot be reached from the border through background (`fg` 0) without crossing `outline`,
 * or null when that is not a garment — too small or too large, or along the frame.
 */
function garmentWithin(
  fg: Uint8Array,
  outline: Uint8Array | null,
  w: number,
  h: number,
  how: {
    /** Takes off what the photo adds along the outline (clearFringe). */
    readonly refine?: (mask: Uint8Array) => void;
    /** Where the frame cuts the garment (cutByFrame): the fill does not start there. */
    readonly cut?: Uint8Array | null;
    /** The photo and each pixel's ΔE76 from the background, to follow a hanger by its colour (hangerOf). */
    readonly hanger?: { readonly lab: LabPlanes; readonly fromBackground: Float32Array };
    /** The background is noiseless (NOISELESS): what has its exact colour is background (withPockets). */
    readonly noiseless?: boolean;
  } = {},
): Found | null {
  const { refine, cut } = how;
  const n = w * h;
  const border = frame(w, h, 2);
  const borderSet = new Set(border);
  // Background: reachable from the border through background colour without crossing an outline, and never
  // through a gap narrower than 2·GAP + 1 px — where a shadowed edge of the garment happens to match the
  // background, its outline fades for a few pixels; the fringe along the outline is given back afterwards.
  const open = new Uint8Array(n);
  for (let i = 0; i < n; i++) open[i] = !fg[i] && !outline?.[i] ? 1 : 0;
  const wide = erode(open, w, h, GAP);
  const reached = new Uint8Array(n);
  // Each px enters the stack once (reached is set as it does).
  const stack = new Int32Array(n);
  let top = 0;
  const visit = (i: number) => {
    if (wide[i] !== 1 || reached[i]) return;
    reached[i] = 1;
    stack[top++] = i;
  };
  // Not from where the frame cuts the garment: the fill would enter it there.
  for (const i of frame(w, h, GAP + 1)) if (!cut?.[i]) visit(i);
  while (top) {
    const p = stack[--top]!;
    const x = p % w;
    if (x > 0) visit(p - 1);
    if (x < w - 1) visit(p + 1);
    if (p >= w) visit(p - w);
    if (p < n - w) visit(p + w);
  }
  const background = grow(reached, w, h, GAP + 1);
  const garment = new Uint8Array(n);
  // The fringe given back is background where it has the background's colour: the outline's own band of
  // pixels, on its outer side, is background too.
  for (let i = 0; i < n; i++) garment[i] = background[i] && (!fg[i] || borderSet.has(i)) ? 0 : 1;
  const whole = largest(garment, w, h);
  let mask = close(whole, w, h, closedBy(w, h));
  const fromBackground = how.hanger?.fromBackground;
  if (how.noiseless && fromBackground) withoutBackgroundClosed(mask, whole, w, (i) => fromBackground[i]!);
  if (refine) {
    refine(mask);
    mask = largest(mask, w, h);
  }
  const area = countMask(mask);
  if (area < n * 0.05 || area > n * 0.97) return null;
  // The ring just inside the border (which is background by definition).
  const ring = frame(w, h, 4).filter((i) => !borderSet.has(i));
  const atFrame = ring.filter((i) => mask[i]);
  // Against a plain background, garment along the frame that differs from it is the garment cut by the frame
  // (a cropped product photo); only what has the background's colour there may be background taken for garment.
  const unlike = outline ? atFrame.filter((i) => !fg[i] && !cut?.[i]).length : atFrame.length;
  if (unlike > ring.length * MAX_FRAME_SHARE || atFrame.length > ring.length * MAX_CUT_SHARE) return null;
  // The neck opening first: a hanger's arms close it above, and are thin only with it open.
  const neckOpen = openNeck(mask, fg, w, h);
  const kept = withoutThinParts(mask, w, h);
  const hanger = how.hanger ? hangerOf(mask, kept, how.hanger.lab, how.hanger.fromBackground) : null;
  if (hanger) {
    // Read again with the hanger as background: where it lay, and what it enclosed with the garment.
    const free = (m: Uint8Array) => mapBytes(m, (v, i) => (hanger[i] ? 0 : v));
    const again = garmentWithin(free(fg), outline && free(outline), w, h, {
      refine,
      cut,
      noiseless: how.noiseless,
    });
    if (again) return again;
  }
  // No hanger: on a garment that differs clearly from the background, the pockets the fill bit into a print of
  // the background's colour along the outline are filled before the thin parts are taken off, else the print's
  // teeth between them are thin parts too. Not on one close to the background's colour all over (a white shirt
  // on white): what stands off its outline there is what clearShadow left of its cast shadow, not print.
  const clear = fromBackground && !nearBackground(mask, fromBackground);
  return {
    mask: clear
      ? inBounds(mask, w, h, (m, cw, ch, at) =>
          withoutThinParts(
            withPockets(m, cw, ch, how.noiseless && fromBackground ? (i) => fromBackground[at(i)]! : null),
            cw,
            ch,
          ),
        )
      : kept,
    neckOpen,
  };
}

/**
 * `mask` with the pockets filled that were cut into a print of the background's colour along the outline (a
 * plaid's grey cells on a grey sweep, nearer the background's colour than the garment's: clearFringe takes them
 * off as its fringe, a staircase along the shoulders a cell deep): what closing with the opening's square
 * (withoutThinParts) adds, where it adds 2·GAP + 1 px across. Not the tip of an acute corner of the silhouette
 * (an armpit), which closing fills only in a sliver. The print's teeth between such pockets are a cell wide; the
 * specks a JPEG leaves beside the outline are narrower, and are opened off first (else closing joins them to the
 * garment in a band too wide to be opened off after).
 */
function withPockets(
  mask: Uint8Array,
  w: number,
  h: number,
  fromBackground: ((i: number) => number) | null,
): Uint8Array {
  const g = maskBounds(mask, w, h);
  if (!g) return mask;
  const r = Math.max(2, Math.round(THIN * Math.max(g.w, g.h)));
  const base = opening(mask, w, h, GAP + 1);
  const closed = close(base, w, h, r);
  const added = new Uint8Array(w * h);
  for (let i = 0; i < added.length; i++) added[i] = closed[i] && !base[i] ? 1 : 0;
  // Each addition with a core 2·GAP + 1 px across is kept whole, followed from its core (8-connected).
  const core = erode(added, w, h, GAP);
  const stack: number[] = [];
  for (let i = 0; i < core.length; i++) {
    if (!core[i]) continue;
    added[i] = 2;
    stack.push(i);
  }
  while (stack.length) {
    const p = stack.pop()!;
    const x = p % w;
    const y = (p - x) / w;
    for (let j = Math.max(0, y - 1); j <= Math.min(h - 1, y + 1); j++) {
      for (let i = Math.max(0, x - 1); i <= Math.min(w - 1, x + 1); i++) {
        const q = j * w + i;
        if (added[q] !== 1) continue;
        added[q] = 2;
        stack.push(q);
      }
    }
  }
  for (let i = 0; i < added.length; i++) if (added[i] === 1) closed[i] = base[i]!;
  // The notches a silhouette has (a hem folded at its corners), which the square closes as it closes a pocket.
  if (fromBackground) withoutBackgroundClosed(closed, base, w, fromBackground);
  return closed;
}

/**
 * `closed` without what closing added to `before` where it has the background's own colour (POCKET_BACKGROUND_DE,
 * on a noiseless background; `fromBackground` per px of `closed`): each added part (8-connected) judged by its
 * median. Both of garmentWithin's closings, which give back the notches a print of the background's colour leaves
 * along the outline, filled the silhouette's own notches too (withPockets; and the first closing where the
 * outline's band narrowed a notch's mouth below the fill's 2·GAP + 1 px, at 1024 px).
 */
function withoutBackgroundClosed(
  closed: Uint8Array,
  before: Uint8Array,
  w: number,
  fromBackground: (i: number) => number,
): void {
  const added = mapBytes(closed, (v, i) => (v && !before[i] ? 1 : 0));
  const { comps, labels } = components(added, w, added.length / w);
  const values = comps.map(() => [] as number[]);
  for (let i = 0; i < added.length; i++) if (added[i]) values[labels[i]! - 1]!.push(fromBackground(i));
  const background = new Set(
    comps.filter((_, k) => median(values[k]!) <= POCKET_BACKGROUND_DE).map((c) => c.label),
  );
  if (background.size) for (let i = 0; i < added.length; i++) if (background.has(labels[i]!)) closed[i] = 0;
}

/**
 * On a noiseless background (NOISELESS), an addition of a closing whose median ΔE76 from the background is
 * within this is background, or the soft shadow the garment casts on it, not print: on dark tees cut out onto
 * pure white, the hem's folded corners measured 0.00 and the shadow under the hem 1.04, where a print's cells
 * bitten into by the background's fill measured 1.5–7 on a sweep whose own noise is 1.5–1.9 (the plaid).
 */
const POCKET_BACKGROUND_DE = 2 * LIT_TOLERANCE;

/**
 * `f` applied to `mask` within its bounds and a margin (a garment's opening and closing reach no further, and a
 * smaller area costs less), put back in place.
 */
function inBounds(
  mask: Uint8Array,
  w: number,
  h: number,
  f: (m: Uint8Array, w: number, h: number, at: (i: number) => number) => Uint8Array,
): Uint8Array {
  const g = maskBounds(mask, w, h);
  if (!g) return mask;
  const margin = Math.max(2, Math.round(THIN * Math.max(g.w, g.h))) + 2;
  const x0 = Math.max(0, g.x - margin);
  const y0 = Math.max(0, g.y - margin);
  const cw = Math.min(w, g.x + g.w + margin) - x0;
  const ch = Math.min(h, g.y + g.h + margin) - y0;
  const crop = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) crop.set(mask.subarray((y0 + y) * w + x0, (y0 + y) * w + x0 + cw), y * cw);
  const done = f(crop, cw, ch, (i) => (y0 + Math.floor(i / cw)) * w + x0 + (i % cw));
  const out = new Uint8Array(w * h);
  for (let y = 0; y < ch; y++) out.set(done.subarray(y * cw, (y + 1) * cw), (y0 + y) * w + x0);
  return out;
}

/** ΔE76 from the hanger's colour within which a pixel is the hanger's (JPEG spreads a dark wire's colour so far). */
const HANGER_DE = 15;
/** The thin parts' colour is a hanger's only this far (ΔE76) from the garment's: else they are the garment's own. */
const HANGER_CONTRAST = 2 * HANGER_DE;
/**
 * The least share of the garment the thin parts cover to be a hanger: the hook and arms over a dark garment are
 * 1.5 % of it, the end of the hook alone over a light one (its arms enclose the background, and are not thin)
 * 0.3 %; a sleeve's corner rounded off by the opening 0.08 %.
 */
const HANGER_LEAST = 0.002;
/** The least share of the thin parts' core within HANGER_DE of its median colour: a hanger is of one material. */
const HANGER_EVEN = 0.6;
/** The most share of the garment's body within HANGER_DE of the hanger's colour: it is not the garment's. */
const HANGER_ABSENT = 0.01;

/**
 * The hanger over the garment, grown by four px (its edge mixed with the background, JPEG's ringing and chroma
 * bleeding), or null: what is of the colour of the thin parts withoutThinParts took off (`mask` without `kept`),
 * connected to them, along the garment's rim. The opening takes off the hook and the arms over the background,
 * but not the arms' ends lying on the shoulders with the background between them and the shoulder and, in a
 * JPEG, the ringing around them (a garment 8–22 px too high), nor, on a light garment, the arms themselves with
 * the background they enclose. Followed by its colour, the hanger is all found, and the garment is read again
 * with it as background. Thin parts of one colour that the garment's body has nowhere are a hanger; slivers of
 * the garment's own colours (a sleeve's corner, a print's band cut by JPEG's ringing) are not.
 */
function hangerOf(
  mask: Uint8Array,
  kept: Uint8Array,
  lab: LabPlanes,
  fromBackground: Float32Array,
): Uint8Array | null {
  const { w, h } = lab;
  const n = w * h;
  const g = maskBounds(kept, w, h);
  if (!g) return null;
  const thin = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (!mask[i] || kept[i]) continue;
    thin[i] = 1;
    count++;
  }
  if (count < HANGER_LEAST * countMask(kept)) return null;
  const r = Math.max(2, Math.round(THIN * Math.max(g.w, g.h)));
  const medianLab = (m: Uint8Array, most: number): Lab => {
    const step = Math.max(1, Math.floor(countMask(m) / most));
    const px: number[] = [];
    for (let i = 0, k = 0; i < n; i++) if (m[i] && k++ % step === 0) px.push(i);
    const [L, a, b] = [lab.L, lab.a, lab.b].map((ch) => median(px.map((i) => ch[i]!)));
    return { L: L!, a: a!, b: b! };
  };
  // The wire's core: off its edge mixed with the background, and off the background the thin parts hold (the
  // wedge between an arm and the shoulder, JPEG's ringing).
  const core = erode(thin, w, h, 1);
  for (let i = 0; i < n; i++) if (fromBackground[i]! <= MAX_BACKGROUND_DE) core[i] = 0;
  const cored = countMask(core);
  if (cored < 16) return null;
  const colour = medianLab(core, 4000);
  const near = (i: number) => {
    const d = Math.hypot(lab.L[i]! - colour.L, lab.a[i]! - colour.a, lab.b[i]! - colour.b);
    return d < HANGER_DE && d < fromBackground[i]!;
  };
  let even = 0;
  for (let i = 0; i < n; i++) if (core[i] && near(i)) even++;
  if (even < cored * HANGER_EVEN) return null;
  // The garment deeper than 2r from its outline (grown background: erode's rounds would cost 2r passes). The
  // thin parts' colour is a hanger's only far from the garment's (else they are the garment's own slivers).
  // (Plain loops: a typed array's from and map with a callback cost some 80 ms a megapixel each.)
  const outside = new Uint8Array(n);
  for (let i = 0; i < n; i++) outside[i] = 1 - kept[i]!;
  const body = grow(outside, w, h, 2 * r);
  for (let i = 0; i < n; i++) body[i] = 1 - body[i]!;
  if (!countMask(body) || deltaE76(colour, medianLab(body, 4000)) < HANGER_CONTRAST) return null;
  // Nor a colour of the garment's own (a plaid's navy band, cut into slivers along its outline by JPEG's ringing).
  let inBody = 0;
  let bodied = 0;
  for (let i = 0; i < n; i += 7) {
    if (!body[i]) continue;
    bodied++;
    if (Math.hypot(lab.L[i]! - colour.L, lab.a[i]! - colour.a, lab.b[i]! - colour.b) < HANGER_DE) inBody++;
  }
  if (inBody > bodied * HANGER_ABSENT) return null;
  // Followed along the rim only (no deeper into the garment than the arms' ends lie, with the background between
  // them and the shoulder and JPEG's ringing over them): a print of the hanger's colour is not followed far in.
  const hanger = new Uint8Array(n);
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    if (thin[i] && near(i)) {
      hanger[i] = 1;
      stack.push(i);
    }
  }
  if (!stack.length) return null;
  while (stack.length) {
    const p = stack.pop()!;
    const x = p % w;
    const y = (p - x) / w;
    for (let j = Math.max(0, y - 1); j <= Math.min(h - 1, y + 1); j++) {
      for (let i = Math.max(0, x - 1); i <= Math.min(w - 1, x + 1); i++) {
        const q = j * w + i;
        if (hanger[q] || body[q] || !near(q)) continue;
        hanger[q] = 1;
        stack.push(q);
      }
    }
  }
  return grow(hanger, w, h, 4);
}

/** Indices of the pixels within `t` of the image's edge. */
function frame(w: number, h: number, t: number): number[] {
  const out: number[] = [];
  // In row order, as callers that thin it out (every fourth) expect; only the frame's rows and columns read.
  for (let y = 0; y < h; y++) {
    if (y < t || y >= h - t) {
      for (let x = 0; x < w; x++) out.push(y * w + x);
      continue;
    }
    for (let x = 0; x < Math.min(t, w); x++) out.push(y * w + x);
    for (let x = Math.max(t, w - t); x < w; x++) out.push(y * w + x);
  }
  return out;
}

function median(v: readonly number[]): number {
  // A typed array sorts numerically without a comparator call per comparison (the border's medians are hot).
  const s = Float64Array.from(v).sort();
  return s[s.length >> 1] ?? 0;
}

/**
 * The background colour at each pixel: a plane a + b·x + c·y per Lab channel, fitted by least squares to the
 * border pixels near the background, found from the border's median colour (a garment cut by the frame along a
 * whole edge pulls a plane fitted to all the border half-way to its own colour, and then nothing is near it)
 * and fitted again without the pixels far from each fit.
 */
type BackgroundModel = ((i: number) => Lab) & { readonly planes: readonly [number, number, number][] };

/** Fits of the background plane after the first, each without the border pixels far from the one before. */
const PLANE_ROUNDS = 3;

/** The background plane fitted to the photo's 2 px frame, once per photo (the order of attempts reads it twice). */
function borderPlane(lab: LabPlanes): BackgroundModel {
  const kept = borderPlanes.get(lab);
  if (kept) return kept;
  const model = backgroundPlane(lab, frame(lab.w, lab.h, 2), lab.w);
  borderPlanes.set(lab, model);
  return model;
}
const borderPlanes = new WeakMap<LabPlanes, BackgroundModel>();

function backgroundPlane(lab: LabPlanes, border: readonly number[], w: number): BackgroundModel {
  const modelOf = (planes: [number, number, number][]): BackgroundModel => {
    const [pL, pa, pb] = planes as [
      [number, number, number],
      [number, number, number],
      [number, number, number],
    ];
    const at = (i: number): Lab => {
      const x = i % w;
      const y = (i - x) / w;
      return {
        L: pL[0] + pL[1] * x + pL[2] * y,
        a: pa[0] + pa[1] * x + pa[2] * y,
        b: pb[0] + pb[1] * x + pb[2] * y,
      };
    };
    return Object.assign(at, { planes });
  };
  const channels = [lab.L, lab.a, lab.b];
  let model = modelOf(channels.map((ch) => [median(border.map((i) => ch[i]!)), 0, 0]));
  for (let round = 0; round < PLANE_ROUNDS; round++) {
    const previous = model;
    const dist = border.map((i) => deltaE76({ L: lab.L[i]!, a: lab.a[i]!, b: lab.b[i]! }, previous(i)));
    const cut = Math.max(2, 3 * median(dist));
    const kept = border.filter((_, k) => dist[k]! <= cut);
    if (kept.length < 16) break;
    model = modelOf(channels.map((ch) => planeFit(ch, kept, w)));
  }
  return model;
}

/** Least-squares plane [a, b, c] of v = a + b·x + c·y over the pixels `idx`. */
function planeFit(v: Float32Array, idx: readonly number[], w: number): [number, number, number] {
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  let sv = 0;
  let sxv = 0;
  let syv = 0;
  for (const i of idx) {
    const x = i % w;
    const y = (i - x) / w;
    const z = v[i]!;
    n++;
    sx += x;
    sy += y;
    sxx += x * x;
    syy += y * y;
    sxy += x * y;
    sv += z;
    sxv += x * z;
    syv += y * z;
  }
  // Solve the 3 × 3 normal equations by Cramer's rule.
  const m = [
    [n, sx, sy],
    [sx, sxx, sxy],
    [sy, sxy, syy],
  ];
  const r = [sv, sxv, syv];
  const det3 = (a: number[][]) =>
    a[0]![0]! * (a[1]![1]! * a[2]![2]! - a[1]![2]! * a[2]![1]!) -
    a[0]![1]! * (a[1]![0]! * a[2]![2]! - a[1]![2]! * a[2]![0]!) +
    a[0]![2]! * (a[1]![0]! * a[2]![1]! - a[1]![1]! * a[2]![0]!);
  const d = det3(m);
  if (Math.abs(d) < 1e-9) return [n ? sv / n : 0, 0, 0];
  const col = (k: number) => det3(m.map((row, j) => row.map((c, i) => (i === k ? r[j]! : c)))) / d;
  return [col(0), col(1), col(2)];
}

/** `L` as its 3 × 3 box mean, separable (rows, then columns), clamped at the edges. */
function smoothed(L: Float32Array, w: number, h: number): Float32Array {
  const rows = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const l = x > 0 ? L[i - 1]! : L[i]!;
      const r = x < w - 1 ? L[i + 1]! : L[i]!;
      rows[i] = (l + L[i]! + r) / 3;
    }
  }
  const s = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const u = y > 0 ? rows[i - w]! : rows[i]!;
      const d = y < h - 1 ? rows[i + w]! : rows[i]!;
      s[i] = (u + rows[i]! + d) / 3;
    }
  }
  return s;
}

/** `L` as its box mean over (2r + 1)², separable (running sums along rows, then columns), clamped at the edges. */
function boxMean(L: Float32Array, w: number, h: number, r: number): Float32Array {
  const rows = new Float32Array(w * h);
  for (let y = 0, o = 0; y < h; y++, o += w) {
    let sum = 0;
    for (let x = -r; x <= r; x++) sum += L[o + Math.min(w - 1, Math.max(0, x))]!;
    for (let x = 0; x < w; x++) {
      rows[o + x] = sum;
      sum += L[o + Math.min(w - 1, x + r + 1)]! - L[o + Math.max(0, x - r)]!;
    }
  }
  const s = new Float32Array(w * h);
  const col = new Float64Array(w);
  for (let y = -r; y <= r; y++) {
    const o = Math.min(h - 1, Math.max(0, y)) * w;
    for (let x = 0; x < w; x++) col[x]! += rows[o + x]!;
  }
  const area = (2 * r + 1) ** 2;
  for (let y = 0, o = 0; y < h; y++, o += w) {
    const add = Math.min(h - 1, y + r + 1) * w;
    const drop = Math.max(0, y - r) * w;
    for (let x = 0; x < w; x++) {
      s[o + x] = col[x]! / area;
      col[x]! += rows[add + x]! - rows[drop + x]!;
    }
  }
  return s;
}

/**
 * Outline pixels: where the luminance `s`, box-smoothed over (2d + 1)² (smoothed, boxMean), changes across ±d px
 * faster than the border's noise allows (five times its median gradient, at least 0.8 L per reference px, which
 * is `unit` px of the photo), grown by one pixel so a 4-connected fill cannot slip through a diagonal gap.
 */
function edges(
  s: Float32Array,
  w: number,
  h: number,
  border: readonly number[],
  d = 1,
  unit = 1,
): Uint8Array {
  const grad = new Float32Array(w * h);
  const per = unit / (2 * d);
  const dw = d * w;
  for (let y = d; y < h - d; y++) {
    for (let x = d; x < w - d; x++) {
      const i = y * w + x;
      const gx = (s[i + d]! - s[i - d]!) * per;
      const gy = (s[i + dw]! - s[i - dw]!) * per;
      grad[i] = Math.sqrt(gx * gx + gy * gy);
    }
  }
  const limit = Math.max(0.8, 5 * median(border.map((i) => grad[i]!)));
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (grad[y * w + x]! <= limit) continue;
      for (let j = Math.max(0, y - 1); j <= Math.min(h - 1, y + 1); j++)
        for (let i = Math.max(0, x - 1); i <= Math.min(w - 1, x + 1); i++) out[j * w + i] = 1;
    }
  }
  return out;
}

/**
 * Clears the neck opening from the garment mask when it shows the background: an enclosed hole of background
 * colour (a back neck band closes it above) where the neck is, and small. Other background-coloured holes stay
 * garment: they are print (a white motif on a white-background photo).
 */
function openNeck(mask: Uint8Array, fg: Uint8Array, w: number, h: number): boolean {
  const g = maskBounds(mask, w, h);
  if (!g) return false;
  const hole = new Uint8Array(w * h);
  for (let i = 0; i < hole.length; i++) hole[i] = mask[i] && !fg[i] ? 1 : 0;
  // Read a px in from its edge: a print's cells of the background's colour meet at their corners (a plaid's
  // grey cells, a checkerboard of them), and would be one "hole" with the opening.
  const { comps, labels } = components(erode(hole, w, h, 1), w, h);
  const box = g.w * g.h;
  const neck = new Set(
    comps
      .filter((c) => c.area >= box * 0.002 && c.area <= box * NECK_MAX_SHARE && atNeck(c, g))
      .map((c) => c.label),
  );
  if (neck.size === 0) return false;
  const core = new Uint8Array(w * h);
  for (let i = 0; i < mask.length; i++) if (neck.has(labels[i]!)) core[i] = 1;
  const grown = grow(core, w, h, 1);
  for (let i = 0; i < mask.length; i++) if (grown[i] && hole[i]) mask[i] = 0;
  return true;
}
