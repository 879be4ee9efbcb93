/**
 * The print extraction from a garment photo (classical CV, deterministic): garment segmentation, repeat lattice
 * and median tile, palette, motif, and the photo-level type (solid / fill / theme / mixed).
 */
import { type DecodedImage, decodeImage } from '../../engine/io/image-codec.js';
import type { Raster, Rect } from '../../engine/model.js';
import sharp from '../../engine/sharp.js';
import { type Lab, labToRgb } from '../color.js';
import {
  type Component,
  components,
  countMask,
  erode,
  type LabPlanes,
  labPlanes,
  luminance,
  mapBytes,
  maskBounds,
  mirrored,
  resampleMask,
  resizeRaster,
} from '../image.js';
import type { Extraction, Lattice, Level, Motif, PaletteEntry, PieceType } from '../types.js';
import { keepSilhouette } from './against-photo.js';
import { analysisScale, type GarmentReading, levelPhoto } from './level.js';
import { edgeFlags, paletteOf, sampleLab } from './palette.js';
import { detectLattice, latticeFrom, medianTile, refineLattice, subPixelBasis } from './repeat.js';
import { lightField, type RegionContext, type ShadingKind, shadingKind, withoutLight } from './shading.js';

/** Lattice detection runs at most at this size (long side); the photo is analysed at most at ANALYSIS_SIDE. */
const LATTICE_SIDE = 640;
/** ΔE76 from the background colour that counts as garment. */
const SEGMENT_DE = 12;
/** ΔE76 from the expected colour (ground or repeat) that counts as motif. */
const MOTIF_DE = 20;
/** The least share of the garment a motif's pixels cover, however they lie. */
const MOTIF_SHARE = 0.01;
/**
 * Smaller motifs count from this share when they fill SMALL_MOTIF_FILL of their box. A chest logo or a line of
 * lettering on a real product photo's T-shirt covers 0.5–0.9 % of it, its strokes 30–60 % of their box; what a
 * plain garment's folds and JPEG leave, grouped as a motif is, covers at most 0.1 %, and what a repeat leaves
 * where the photo distorts it (a keystone's sleeve) 0.5 % scattered over a box ten times larger.
 */
const SMALL_MOTIF_SHARE = 0.003;
const SMALL_MOTIF_FILL = 0.2;
/** Ground measured for a motif's light: this share of the motif's longer side around it (at least 6 px). */
const LIGHT_MARGIN = 0.2;
/** Print kept this far (px) from where the light on a motif is measured: its anti-aliased edge is not ground. */
const LIGHT_CLEARANCE = 2;
/** A motif whose light is everywhere within this of the expected colours' keeps the photo's pixels as they are. */
const EVEN_LIGHT = 0.02;

export async function analysePhoto(buf: Buffer, photoPath: string, photoHash: string): Promise<Extraction> {
  const taken = await decodeImage(buf);
  const { raster, level, garment } = await levelPhoto(taken.raster);
  const decoded = { ...taken, raster };
  const k = analysisScale(raster.w, raster.h);
  const first = await readRepeat(decoded, k, garment, level !== null);
  // The lattice, its tile and the median over repeats are whole px, and the lattice is first found at 1/f of
  // the analysis size (findLattice): a repeat of 61.44 px is cut at 61 or 62 and drifts 0.44 px a repeat (a
  // blurred tile, a half-drop read with the wrong drop), or is found only as a multiple that falls nearer a
  // whole px (a tile three repeats wide, side seams matched three times as coarsely), or not at all. So the
  // repeat is read again at the scale, a little smaller, that makes it whole px at both sizes; the rest of the
  // analysis (palette, motif, shading) is done once, at the scale kept.
  // Each reading's median tile is taken only for the reading kept: the first's is not needed when the second
  // finds the repeat (and at a sub-px period it was blurred by the drift the second takes out).
  const shrink = first.basis ? wholePxScale(first.basis) : 1;
  if (shrink === 1) return finish(tiled(first), decoded, photoPath, photoHash, level);
  const again = tiled(await readRepeat(decoded, k * shrink, garment, level !== null, first));
  // Kept only when it found the repeat again, not a multiple of it: a basis misread (stripes run on along
  // themselves, so their length along them is anyone's) brings no whole px, and the second reading may then
  // take several stripes for one tile.
  const kept =
    again.lattice && first.lattice && cellArea(again) <= MULTIPLE_CELL * cellArea(first)
      ? again
      : tiled(first);
  return finish(kept, decoded, photoPath, photoHash, level);
}

/**
 * The reading with its repeat's median tile (the print without its light, median over the repeats); without
 * its lattice when the tile comes out flat: a real repeat survives the median over its repeats, noise does not.
 */
function tiled(r: RepeatReading): TiledReading {
  const empty: Raster = { x: 0, y: 0, w: 0, h: 0, data: new Uint8ClampedArray(0) };
  const { lattice, photo, mask } = r;
  if (!lattice) return { ...r, tile: empty };
  const tile = medianTile(withoutLight(photo, mask, lattice.tileW, lattice.tileH), mask, lattice);
  return lumStd(tile) < 4 ? { ...r, lattice: null, tile: empty } : { ...r, tile };
}

/** The area of the lattice's cell in the photo's own px. */
function cellArea(r: RepeatReading): number {
  const l = r.lattice!;
  return Math.abs(l.v1[0] * l.v2[1] - l.v1[1] * l.v2[0]) / r.k ** 2;
}

/** A second reading whose cell is this much larger than the first's found a multiple of the repeat. */
const MULTIPLE_CELL = 1.25;

/**
 * The largest scale in [MIN_SHRINK, 1] at which every basis component falls within CLOSE_PX of whole px (else
 * within WHOLE_PX), followed down to where they are closest; 1 if none. The closer the better: the repeat is then read as that whole px, and a stripe 13.37 px
 * apart taken at 0.15 px off would come out 1.1 % long, an 11.1 px one not read again at all (its 0.1 px drift
 * a stripe then blurring the tile into a "motif").
 */
function wholePxScale(basis: readonly (readonly [number, number])[]): number {
  const off = (s: number) =>
    Math.max(...basis.flatMap((v) => v.map((c) => Math.abs(c * s - Math.round(c * s)))));
  for (const within of [CLOSE_PX, WHOLE_PX]) {
    if (off(1) <= within) return 1;
    for (let s = 1; s >= MIN_SHRINK; s -= SCALE_STEP) {
      if (off(s) > within) continue;
      // On to where it is closest: 0.03 px a repeat is still a px of drift over 33 stripes.
      while (s - SCALE_STEP >= MIN_SHRINK && off(s - SCALE_STEP) < off(s)) s -= SCALE_STEP;
      return s;
    }
  }
  return 1;
}

const SCALE_STEP = 0.0002;

/** A basis component measured to a thousandth of a px (stripes) is taken as whole this close to it. */
const CLOSE_PX = 0.03;
/** A basis component this close to whole px (after the lattice's tenth-of-a-px estimate) is taken as whole. */
const WHOLE_PX = 0.15;
/** The photo is read at no less than this share of its analysis size to bring its repeat to whole px. */
const MIN_SHRINK = 0.8;

/** The photo at one analysis scale, the garment in it and its repeat: what deciding the scale needs. */
interface RepeatReading {
  readonly k: number;
  readonly photo: Raster;
  readonly lab: ReturnType<typeof labPlanes>;
  readonly mask: Uint8Array;
  /** The garment's outline filled (GarmentReading), at this scale. */
  readonly silhouette: Uint8Array;
  readonly swatch: boolean;
  readonly neckOpen: boolean;
  readonly worn: boolean;
  readonly area: number;
  readonly g: Rect;
  readonly inside: Uint8Array;
  /** The repeat found (not yet checked against its median tile: tiled). */
  readonly lattice: Lattice | null;
  /** The lattice's basis to a tenth of a px (first reading only), or null without a lattice. */
  readonly basis: [number, number][] | null;
}

/** A reading with its repeat's median tile taken (empty without a repeat). */
interface TiledReading extends RepeatReading {
  readonly tile: Raster;
}

/**
 * Reads the repeat at scale `k` inside `garment` (found at about this scale: its mask is resampled, the outline
 * does not change with so small a step). With `seen`, a reading at a scale a few per cent away where the repeat
 * was found, it is not searched for again: its repeat is its basis at this scale, whole px by the choice of `k`,
 * checked against the px around it.
 */
async function readRepeat(
  decoded: DecodedImage,
  k: number,
  garment: GarmentReading,
  levelled: boolean,
  seen?: RepeatReading,
): Promise<RepeatReading> {
  const W = Math.round(decoded.raster.w * k);
  const H = Math.round(decoded.raster.h * k);
  const made = garment.photo && garment.lab && garment.w === W && garment.h === H;
  const photo = made ? garment.photo! : k < 1 ? await resizeRaster(decoded.raster, W, H) : decoded.raster;
  const { w, h } = photo;
  const lab = made ? garment.lab! : labPlanes(photo);
  const { swatch, neckOpen } = garment;
  const atScale = (m: Uint8Array) =>
    garment.w === w && garment.h === h ? m : resampleMask(m, garment.w, garment.h, w, h);
  const mask = atScale(garment.mask);
  const silhouette = garment.silhouette ? atScale(garment.silhouette) : mask;
  const area = countMask(mask);
  const g = maskBounds(silhouette, w, h) ?? { x: 0, y: 0, w, h };
  // The outline's few pixels are fabric turning away and background mixed in (anti-aliasing, JPEG ringing):
  // the repeat and the colours are read inside them.
  const inside = erode(mask, w, h, 3);
  const lum = levelled ? await levelledLuminance(photo) : luminance(photo);
  // A garment the photo shows with holes through it (a cut-out's alpha, segment) has its lags normalised by
  // what each pairs (detectLattice).
  const lattice = seen
    ? scaledLattice(seen, k, lum, inside, w, h, area)
    : findLattice(lum, w, inside, g, area, silhouette !== mask);
  // Only the first reading's basis decides the scale: the second's is not needed.
  const basis = lattice && !seen ? subPixelBasis(lattice, lum, inside, w, h) : null;
  const worn = garment.worn === true;
  return { k, photo, lab, mask, silhouette, swatch, neckOpen, worn, area, g, inside, lattice, basis };
}

/** The rest of the analysis at the scale kept: palette, motif, flatness, the photo-level type. */
function finish(
  r: TiledReading,
  decoded: DecodedImage,
  photoPath: string,
  photoHash: string,
  level: Level | null,
): Extraction {
  const { k, photo, lab, mask, silhouette, swatch, neckOpen, worn, area, g, inside, lattice } = r;
  const { w, h } = photo;
  let tile = r.tile;
  let palette: PaletteEntry[];
  let printArea: Rect | null = null;
  if (lattice) {
    const t = labPlanes(tile);
    palette = paletteOf(
      sampleLab(t.L, t.a, t.b, null),
      5,
      edgeFlags(t.L, t.a, t.b, tile.w, tile.h, null, true),
      { ...t, mask: null, wrap: true },
    );
  } else {
    printArea = largestRect(inside, w, g);
    tile = garmentCrop(photo, inside, g, printArea ?? g);
    palette = paletteOf(
      sampleLab(lab.L, lab.a, lab.b, inside),
      5,
      edgeFlags(lab.L, lab.a, lab.b, w, h, inside, false),
      { ...lab, mask: inside, wrap: false },
    );
  }
  let ground = palette[0] ?? { hex: '#808080', lab: { L: 53.6, a: 0, b: 0 }, share: 1 };

  const expected = lattice ? tilePlanes(tile) : null;
  const refAt = (x: number, y: number): Lab => {
    if (!expected) return ground.lab;
    const i = (y % lattice!.tileH) * lattice!.tileW + (x % lattice!.tileW);
    return { L: expected.L[i]!, a: expected.a[i]!, b: expected.b[i]! };
  };
  const groundRgb = labToRgb(ground.lab);
  const expectedRgb = (x: number, y: number): readonly [number, number, number] => {
    if (!lattice) return [groundRgb.r, groundRgb.g, groundRgb.b];
    const o = ((y % lattice.tileH) * lattice.tileW + (x % lattice.tileW)) * 4;
    return [tile.data[o]!, tile.data[o + 1]!, tile.data[o + 2]!];
  };
  const light = { photo, lab, expected: expectedRgb, garment: g };
  const ignored = new Set<ShadingKind>(neckOpen ? ['neck_opening'] : []);
  const motif = findMotif(photo, lab, mask, g, area, refAt, tile, lattice, light, ignored);

  // Flat: the garment where it is the ground colour, or the ground colour in shadow (folds, the neck opening).
  const { print, shading } = offGround(photo, lab, mask, ground.lab, light, ignored);
  const flatness = area ? (area - print) / area : 1;
  if (!lattice && shading) {
    // The ground's palette without its shadows, which are light, not colours of the garment.
    const lit = mapBytes(inside, (m, i) => (m && !shading[i] ? 1 : 0));
    const again = paletteOf(
      sampleLab(lab.L, lab.a, lab.b, lit),
      5,
      edgeFlags(lab.L, lab.a, lab.b, w, h, lit, false),
      { ...lab, mask: lit, wrap: false },
    );
    if (again.length) {
      palette = again;
      ground = again[0]!;
    }
  }
  const kind: PieceType =
    lattice && motif
      ? 'mixed_pattern'
      : lattice
        ? 'fill_pattern'
        : motif
          ? 'theme_pattern'
          : flatness >= 0.9
            ? 'solid'
            : 'fill_pattern';

  const ext: Extraction = {
    photoPath,
    photoHash,
    width: w,
    height: h,
    analysisScale: k,
    level,
    garment: g,
    swatch,
    photoDpi: decoded.dpi,
    bodyWidth: bodyWidth(silhouette, w, g),
    palette,
    ground,
    lattice,
    tile,
    tileIsRepeat: lattice !== null,
    printArea,
    motif,
    kind,
    flatness: Math.round(flatness * 1000) / 1000,
    notPrint: [...ignored].sort(),
    ...(worn ? { worn } : {}),
  };
  keepSilhouette(ext, {
    photo,
    inside,
    ...(silhouette !== mask ? { outline: erode(silhouette, w, h, 3) } : {}),
    swatch,
  });
  return ext;
}

/** `seen`'s repeat at scale `k`: its sub-px basis scaled and rounded, refined ±1 px; null when it is lost. */
function scaledLattice(
  seen: RepeatReading,
  k: number,
  lum: Float64Array,
  inside: Uint8Array,
  w: number,
  h: number,
  area: number,
): Lattice | null {
  if (!seen.lattice || !seen.basis) return null;
  const s = k / seen.k;
  const at = (v: readonly [number, number]): [number, number] => [Math.round(v[0] * s), Math.round(v[1] * s)];
  const lat = latticeFrom(at(seen.basis[0]!), at(seen.basis[1]!), seen.lattice.confidence, area);
  if (!lat) return null;
  const shorter = seen.lattice.shorter;
  const refined = refineLattice(
    shorter ? { ...lat, shorter: { ...shorter, v1: at(shorter.v1), v2: at(shorter.v2) } } : lat,
    lum,
    inside,
    w,
    h,
    1,
    area,
  );
  return refined.repeats >= 3 ? refined : null;
}

/**
 * The luminance a levelled photo's repeat is read on: smoothed by LEVELLED_BLUR. The photo as taken sampled the
 * print on its own px grid, and a line a px or two wide came out of it as the grid cut it (a camera's px covers
 * part of the line, and how much depends on where the line falls); turned back, that grid runs at the turn's
 * angle, so one repeat and the next fall on it differently and differ by more than noise. Only a multiple of the
 * repeat that falls back on the grid within a tenth of a px compared exact, and it was taken for the repeat: a
 * plaid of 24 px at 8° was read 216 px (9 × 24 ≈ (213.9, 30.1) on the grid), of 32 px at 12° 96, stripes of
 * 16 px at 8° not at all. Smoothed, what the grid cut is near the px size and goes, and the print's own shapes
 * stay. The median tile is still taken from the photo's own px.
 */
async function levelledLuminance(photo: Raster): Promise<Float64Array> {
  const { data } = photo;
  const out = await sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), {
    raw: { width: photo.w, height: photo.h, channels: 4 },
  })
    .blur(LEVELLED_BLUR)
    .raw()
    .toBuffer();
  return luminance({ ...photo, data: new Uint8ClampedArray(out.buffer, out.byteOffset, out.length) });
}

/** The Gaussian σ (analysis px) a levelled photo's luminance is smoothed by before its repeat is read. */
const LEVELLED_BLUR = 1.2;

/** The lattice inside the garment: detected at ≤ 640 px, then refined at the analysis size. */
function findLattice(
  full: Float64Array,
  w: number,
  mask: Uint8Array,
  g: Rect,
  area: number,
  holey: boolean,
): Lattice | null {
  const h = full.length / w;
  const f = Math.max(1, Math.ceil(Math.max(g.w, g.h) / LATTICE_SIDE));
  const cw = Math.floor(g.w / f);
  const ch = Math.floor(g.h / f);
  const lum = new Float64Array(cw * ch);
  const m = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      let s = 0;
      let inside = 1;
      for (let j = 0; j < f; j++) {
        for (let i = 0; i < f; i++) {
          const p = (g.y + y * f + j) * w + g.x + x * f + i;
          s += full[p]!;
          inside &= mask[p]!;
        }
      }
      lum[y * cw + x] = s / (f * f);
      m[y * cw + x] = inside;
    }
  }
  let lat = detectLattice(lum, m, cw, ch, holey);
  if (!lat) return null;
  if (f > 1) {
    const times = (v: readonly [number, number]) => [v[0] * f, v[1] * f] as const;
    // The super-tile too: refineLattice may hand the lattice back as it came (stripes it could not refine).
    const up = {
      ...lat,
      v1: times(lat.v1),
      v2: times(lat.v2),
      tileW: lat.tileW * f,
      tileH: lat.tileH * f,
      ...(lat.shorter
        ? { shorter: { ...lat.shorter, v1: times(lat.shorter.v1), v2: times(lat.shorter.v2) } }
        : {}),
    };
    lat = refineLattice(up, full, mask, w, h, f, area);
  } else {
    lat = {
      ...lat,
      repeats: Math.round((area / Math.abs(lat.v1[0] * lat.v2[1] - lat.v1[1] * lat.v2[0])) * 10) / 10,
    };
  }
  // Fewer than three repeats is not evidence of a repeat (research: two repeats mostly fail).
  return lat.repeats >= 3 ? lat : null;
}

function lumStd(r: Raster): number {
  const l = luminance(r);
  const mean = l.reduce((a, b) => a + b, 0) / l.length;
  return Math.sqrt(l.reduce((a, b) => a + (b - mean) ** 2, 0) / l.length);
}

function tilePlanes(tile: Raster): LabPlanes {
  return labPlanes(tile);
}

/**
 * The garment's print as a tile for a photo without a repeat: the crop of its bounds, the photo's own pixels on
 * the garment (`inside`, off its mixed outline) and, off it (beside the body under the sleeves, the neck
 * opening, the corners), `body` (its largest clean rectangle) mirrored out to there. Drawn mirrored past its own
 * edges too (render.ts), it continues the print over pieces larger than the photo shows without the streaks a
 * stretched edge pixel makes; where a piece lies beyond the photo, its print is the photo's mirrored.
 */
function garmentCrop(photo: Raster, inside: Uint8Array, g: Rect, body: Rect): Raster {
  const out: Raster = { x: 0, y: 0, w: g.w, h: g.h, data: new Uint8ClampedArray(g.w * g.h * 4) };
  for (let y = 0; y < g.h; y++) {
    for (let x = 0; x < g.w; x++) {
      const X = g.x + x;
      const Y = g.y + y;
      const on = inside[Y * photo.w + X] === 1;
      const sx = on ? X : body.x + mirrored(X - body.x, body.w);
      const sy = on ? Y : body.y + mirrored(Y - body.y, body.h);
      const o = (y * g.w + x) * 4;
      out.data.set(photo.data.subarray((sy * photo.w + sx) * 4, (sy * photo.w + sx) * 4 + 3), o);
      out.data[o + 3] = 255;
    }
  }
  return out;
}

/** The largest axis-aligned rectangle of `mask` (`w` wide) within `g`, by area; null when it is empty. */
function largestRect(mask: Uint8Array, w: number, g: Rect): Rect | null {
  const heights = new Int32Array(g.w);
  let best: Rect | null = null;
  const stack: number[] = [];
  for (let y = 0; y < g.h; y++) {
    for (let x = 0; x < g.w; x++) heights[x] = mask[(g.y + y) * w + g.x + x] ? heights[x]! + 1 : 0;
    // The largest rectangle under the histogram of run heights ending on this row.
    stack.length = 0;
    for (let x = 0; x <= g.w; x++) {
      const hx = x < g.w ? heights[x]! : 0;
      while (stack.length && heights[stack[stack.length - 1]!]! >= hx) {
        const top = stack.pop()!;
        const ht = heights[top]!;
        const left = stack.length ? stack[stack.length - 1]! + 1 : 0;
        const width = x - left;
        if (ht > 0 && (!best || width * ht > best.w * best.h))
          best = { x: g.x + left, y: g.y + y - ht + 1, w: width, h: ht };
      }
      stack.push(x);
    }
  }
  return best;
}

/** Width of the longest garment run on the row at 65 % of the garment height (the body below the sleeves). */
function bodyWidth(mask: Uint8Array, w: number, g: Rect): number {
  const y = g.y + Math.floor(g.h * 0.65);
  let best = 0;
  let run = 0;
  for (let x = g.x; x < g.x + g.w; x++) {
    run = mask[y * w + x] ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best || g.w;
}

/**
 * Garment pixels off the ground colour (ΔE76 > 12), split into print and shading: the area of the regions
 * that are print, and a mask of those that are shading (null when there are none).
 */
function offGround(
  photo: Raster,
  lab: LabPlanes,
  mask: Uint8Array,
  ground: Lab,
  light: Omit<RegionContext, 'labels'>,
  ignored: Set<ShadingKind>,
): { print: number; shading: Uint8Array | null } {
  const { w, h } = photo;
  const off = new Uint8Array(w * h);
  // ΔE76 > SEGMENT_DE, compared squared.
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const dL = lab.L[i]! - ground.L;
    const da = lab.a[i]! - ground.a;
    const db = lab.b[i]! - ground.b;
    if (dL * dL + da * da + db * db > SEGMENT_DE * SEGMENT_DE) off[i] = 1;
  }
  const { comps, labels } = components(off, w, h);
  let print = 0;
  const dark = new Set<number>();
  for (const c of comps) {
    const why = shadingKind(c, { ...light, labels });
    if (why) {
      ignored.add(why);
      dark.add(c.label);
    } else print += c.area;
  }
  if (dark.size === 0) return { print, shading: null };
  const shading = new Uint8Array(w * h);
  for (let i = 0; i < labels.length; i++) if (dark.has(labels[i]!)) shading[i] = 1;
  return { print, shading };
}

/**
 * The components gathered into groups, each from its largest member on, taking in every component within `gap`
 * of its box as it grows; the group covering the most pixels. A line of lettering is many small letters and a
 * brand label inside the neck one solid patch: the letters together are the motif, not the label, the largest
 * single part.
 */
function largestGroup(
  comps: readonly Component[],
  gap: number,
): { group: Set<number>; box: { x0: number; y0: number; x1: number; y1: number }; area: number } {
  const taken = new Set<number>();
  let best: ReturnType<typeof largestGroup> | null = null;
  // What the groups not yet made can cover at most: once no more than the best's, none can beat it.
  let left = comps.reduce((s, c) => s + c.area, 0);
  for (const seed of [...comps].sort((p, q) => q.area - p.area)) {
    if (best && left <= best.area) break;
    if (taken.has(seed.label)) continue;
    const group = new Set<number>([seed.label]);
    let box = { x0: seed.x0, y0: seed.y0, x1: seed.x1, y1: seed.y1 };
    for (let changed = true; changed; ) {
      changed = false;
      for (const c of comps) {
        if (group.has(c.label) || taken.has(c.label) || !near(c, box, gap)) continue;
        group.add(c.label);
        box = {
          x0: Math.min(box.x0, c.x0),
          y0: Math.min(box.y0, c.y0),
          x1: Math.max(box.x1, c.x1),
          y1: Math.max(box.y1, c.y1),
        };
        changed = true;
      }
    }
    let area = 0;
    for (const c of comps) if (group.has(c.label)) area += c.area;
    for (const l of group) taken.add(l);
    left -= area;
    if (!best || area > best.area) best = { group, box, area };
  }
  return best!;
}

/**
 * The placed motif: garment pixels far (ΔE76 > 20) from what the ground or the repeat predicts there, the group
 * of components covering most (largestGroup). None when it covers under MOTIF_SHARE of the garment, unless it
 * covers SMALL_MOTIF_SHARE and fills SMALL_MOTIF_FILL of its box (a chest logo, a line of lettering).
 */
function findMotif(
  photo: Raster,
  lab: LabPlanes,
  mask: Uint8Array,
  g: Rect,
  area: number,
  refAt: (x: number, y: number) => Lab,
  tile: Raster,
  lattice: Lattice | null,
  light: Omit<RegionContext, 'labels'>,
  ignored: Set<ShadingKind>,
): Motif | null {
  const { w, h } = photo;
  const inner = erode(mask, w, h, 3);
  const fg = new Uint8Array(w * h);
  for (let y = g.y; y < g.y + g.h; y++) {
    for (let x = g.x; x < g.x + g.w; x++) {
      const i = y * w + x;
      if (!inner[i]) continue;
      const r = refAt(x, y);
      const dL = lab.L[i]! - r.L;
      const da = lab.a[i]! - r.a;
      const db = lab.b[i]! - r.b;
      if (dL * dL + da * da + db * db > MOTIF_DE * MOTIF_DE) fg[i] = 1;
    }
  }
  const found = components(fg, w, h);
  const labels = found.labels;
  const comps = found.comps.filter((c) => {
    const why = shadingKind(c, { ...light, labels });
    if (why) ignored.add(why);
    return why === null;
  });
  if (comps.length === 0) return null;
  const { group, box, area: motifArea } = largestGroup(comps, Math.max(2, Math.round(g.w * 0.03)));
  const bw = box.x1 - box.x0 + 1;
  const bh = box.y1 - box.y0 + 1;
  const small = motifArea >= area * SMALL_MOTIF_SHARE && motifArea >= SMALL_MOTIF_FILL * bw * bh;
  if ((motifArea < area * MOTIF_SHARE && !small) || bw > g.w * 0.8 || bh > g.h * 0.8) return null;
  // A repeat's own elements (the fill's dots) are not a motif: a motif is larger than one repeat cell.
  if (lattice && bw * bh < Math.abs(lattice.v1[0] * lattice.v2[1] - lattice.v1[1] * lattice.v2[0]))
    return null;
  const bounds = { x: box.x0, y: box.y0, w: bw, h: bh };
  const onWhite: Raster = { ...bounds, x: 0, y: 0, data: new Uint8ClampedArray(bw * bh * 4).fill(255) };
  const crop: Raster = { ...bounds, x: 0, y: 0, data: new Uint8ClampedArray(bw * bh * 4) };
  const lit = motifLight(
    photo,
    inner,
    labels,
    new Set(comps.map((c) => c.label)),
    group,
    bounds,
    light.expected,
  );
  const print: Raster = lit ? { ...crop, data: new Uint8ClampedArray(bw * bh * 4) } : crop;
  const under: Raster = { ...bounds, x: 0, y: 0, data: new Uint8ClampedArray(bw * bh * 4) };
  const core = new Uint8Array(bw * bh);
  // Without a repeat, the ground colour is predicted everywhere.
  const groundRgb = lattice ? null : labToRgb(refAt(box.x0, box.y0));
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const si = (box.y0 + y) * w + box.x0 + x;
      const o = (y * bw + x) * 4;
      crop.data.set(photo.data.subarray(si * 4, si * 4 + 3), o);
      crop.data[o + 3] = 255;
      if (lit) {
        const k = lit[y * bw + x]!;
        for (let c = 0; c < 3; c++) print.data[o + c] = photo.data[si * 4 + c]! / k;
        print.data[o + 3] = 255;
      }
      const below = lattice
        ? tile.data.subarray(
            (((box.y0 + y) % lattice.tileH) * lattice.tileW + ((box.x0 + x) % lattice.tileW)) * 4,
            (((box.y0 + y) % lattice.tileH) * lattice.tileW + ((box.x0 + x) % lattice.tileW)) * 4 + 3,
          )
        : [groundRgb!.r, groundRgb!.g, groundRgb!.b];
      under.data.set(below, o);
      under.data[o + 3] = 255;
      if (!group.has(labels[si]!)) continue;
      core[y * bw + x] = 1;
      // Colour divided by what lies under it, so that multiplying it back over the fill gives the print's colour.
      for (let c = 0; c < 3; c++) {
        onWhite.data[o + c] = Math.min(255, Math.round((255 * print.data[o + c]!) / Math.max(1, below[c]!)));
      }
    }
  }
  return {
    bounds,
    onWhite,
    photo: crop,
    print,
    mask: dilate(core, bw, bh),
    under,
    share: Math.round((motifArea / area) * 1000) / 1000,
    dx: box.x0 + bw / 2 - (g.x + g.w / 2),
    dy: box.y0 - g.y,
  };
}

/**
 * The light on a motif's pixels (bounds-sized, 1 = the light the expected colours were read under), or null
 * when it is even (or cannot be measured): the smooth field of the ground or repeat around the motif and between
 * its parts (shading.ts lightField), where the garment shows neither print (`printLabels`, kept LIGHT_CLEARANCE
 * px away) nor the garment's edge. Fold shadows are not print (not in `printLabels`): they are the light itself.
 */
function motifLight(
  photo: Raster,
  inner: Uint8Array,
  labels: Int32Array,
  printLabels: ReadonlySet<number>,
  group: ReadonlySet<number>,
  bounds: Rect,
  expected: (x: number, y: number) => readonly [number, number, number],
): Float32Array | null {
  const { w, h } = photo;
  const margin = Math.max(6, Math.round(LIGHT_MARGIN * Math.max(bounds.w, bounds.h)));
  const x0 = Math.max(0, bounds.x - margin);
  const y0 = Math.max(0, bounds.y - margin);
  const rect = {
    x: x0,
    y: y0,
    w: Math.min(w, bounds.x + bounds.w + margin) - x0,
    h: Math.min(h, bounds.y + bounds.h + margin) - y0,
  };
  const isPrint = new Uint8Array(rect.w * rect.h);
  for (let y = 0; y < rect.h; y++) {
    for (let x = 0; x < rect.w; x++) {
      if (printLabels.has(labels[(rect.y + y) * w + rect.x + x]!)) isPrint[y * rect.w + x] = 1;
    }
  }
  const clear = erode(
    mapBytes(isPrint, (v) => 1 - v),
    rect.w,
    rect.h,
    LIGHT_CLEARANCE,
  );
  const known = new Uint8Array(rect.w * rect.h);
  for (let y = 0; y < rect.h; y++) {
    for (let x = 0; x < rect.w; x++) {
      const i = y * rect.w + x;
      if (clear[i] && inner[(rect.y + y) * w + rect.x + x]) known[i] = 1;
    }
  }
  const field = lightField(photo, known, rect, expected);
  if (!field) return null;
  const out = new Float32Array(bounds.w * bounds.h);
  let uneven = false;
  for (let y = 0; y < bounds.h; y++) {
    for (let x = 0; x < bounds.w; x++) {
      const k = field[(bounds.y - rect.y + y) * rect.w + bounds.x - rect.x + x]!;
      out[y * bounds.w + x] = k;
      if (group.has(labels[(bounds.y + y) * w + bounds.x + x]!) && Math.abs(k - 1) > EVEN_LIGHT)
        uneven = true;
    }
  }
  return uneven ? out : null;
}

/** `m` grown by one pixel (8-neighbourhood). */
function dilate(m: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(m.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!m[y * w + x]) continue;
      for (let j = Math.max(0, y - 1); j <= Math.min(h - 1, y + 1); j++)
        for (let i = Math.max(0, x - 1); i <= Math.min(w - 1, x + 1); i++) out[j * w + i] = 1;
    }
  }
  return out;
}

function near(c: Component, box: { x0: number; y0: number; x1: number; y1: number }, gap: number): boolean {
  return c.x1 >= box.x0 - gap && c.x0 <= box.x1 + gap && c.y1 >= box.y0 - gap && c.y0 <= box.y1 + gap;
}
