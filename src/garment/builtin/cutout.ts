/**
 * A cut-out product photo: the garment on transparency, as a background remover leaves it. Its alpha is the
 * garment's silhouette when the remover did its work cleanly. It does not always: a remover keyed on colour
 * takes a cream fabric on a white sweep for background (holes through the garment, down to its seam lines) or
 * leaves a darker stretch of the sweep in (a field of specks joined to the hem). The garment read from such an
 * alpha is a strip between the holes or the garment and a band of floor, and its scale is off several times.
 *
 * A flawed alpha is read for what it still says (levelPhoto). Where the remover kept the photo's colours under
 * its transparency (colour keys only set alpha), the photo is whole and the alpha is dropped: the garment is
 * found in it as in any photo. Where it cleared them (to black, as rembg does) but left a stretch of the
 * background in, the transparency is given that stretch's colour and the garment is found the same way. Where
 * it left no background, the silhouette is the alpha with its holes filled, and the colours are read only where
 * the photo still has them.
 */
import type { Raster } from '../../engine/model.js';
import { alphaMask, components, countMask, mapBytes, maskBounds } from '../image.js';
import { close, fillHoles, largest, THIN, withoutThinParts } from './morphology.js';

/** A photo with more than this share of it transparent is a cut-out. */
const CUTOUT_SHARE = 0.05;
/**
 * A cut-out's alpha is flawed when its specks and holes come to more than this share of its silhouette. Clean
 * alphas of our example photos measured 0.3–0.4 % (a few stray pixels along the outline); flawed ones (colour
 * keys, a flood fill through the seam line, a sweep's darker stretch left in) 1.5 % to several times the
 * silhouette.
 */
const FLAW_SHARE = 0.01;
/**
 * A flawed alpha's largest solid part under this share of the outline its parts make when joined is a garment
 * holes ate apart (our flood fill through the seam line: 3 %, a colour key: 20 %); over it, a whole garment with
 * background specks around it (70–80 %).
 */
const JOINED_SHARE = 0.5;
/**
 * Transparent pixels carry none of the photo's colours when this share of them is one colour (a remover's black:
 * 97–100 % of them, the rest where a resize spread the edge's colours); a photo's own background's most common
 * colour is a few per cent of it.
 */
const BLANK_SHARE = 0.9;
/** …and they do when they are of more colours than this (the most a blanked one's 10 % could hold, and more). */
const MANY_COLOURS = 65536;

export function isCutout(photo: Raster): boolean {
  const n = photo.w * photo.h;
  let transparent = 0;
  for (let i = 0; i < n; i++) if (photo.data[i * 4 + 3]! < 128) transparent++;
  return transparent > n * CUTOUT_SHARE;
}

/**
 * A flawed alpha's opaque parts smaller than this share of the photo are specks (a sweep's, left in: 1–3 px at
 * 800 px; 16 px here).
 */
const SPECK_SHARE = 2.5e-5;

/** `m` without its parts of fewer than `least` px. */
function withoutSpecks(m: Uint8Array, w: number, h: number, least: number): Uint8Array {
  const { comps, labels } = components(m, w, h);
  const kept = new Set(comps.filter((c) => c.area >= least).map((c) => c.label));
  return mapBytes(labels, (l) => (kept.has(l) ? 1 : 0));
}

export interface CutoutReading {
  /** The garment's pixels the photo shows: the silhouette where the alpha is opaque. */
  readonly mask: Uint8Array;
  /** The garment's outline filled: the mask and its holes. */
  readonly silhouette: Uint8Array;
  /** Specks outside the garment and holes through it, as a share of the silhouette. */
  readonly flaws: number;
}

/** The garment of a cut-out photo (isCutout), as its alpha gives it. */
export function readCutout(photo: Raster): CutoutReading {
  const { w, h } = photo;
  const seen = alphaMask(photo).data;
  const body = withoutThinParts(largest(seen, w, h), w, h);
  const filled = fillHoles(body, w, h);
  const area = countMask(filled);
  const holes = area - countMask(body);
  const specks = countMask(seen) - countMask(body);
  const flaws = area ? (holes + specks) / area : 1;
  if (flaws <= FLAW_SHARE) return { mask: body, silhouette: body, flaws };
  // The holes may reach the outside through breaks in what is left of the outline, and the garment's bits
  // between them be parted from each other: they are joined across gaps as wide as a hanger is thin before the
  // holes are filled. So are specks of background left around a whole garment, to it: the joined outline is
  // taken only when the largest solid part is less than JOINED_SHARE of it (holes ate the garment apart).
  // Specks of a sweep left in around the hem would be joined to it: they go first (a few px each, where the
  // garment's own bits between its holes are a flower's size or larger; the small ones among them are covered
  // again by the joining).
  const bits = withoutSpecks(seen, w, h, Math.max(4, Math.round(SPECK_SHARE * w * h)));
  const g = maskBounds(bits, w, h) ?? maskBounds(seen, w, h)!;
  const r = Math.max(2, Math.round(THIN * Math.max(g.w, g.h)));
  const joined = withoutThinParts(largest(fillHoles(close(bits, w, h, r), w, h), w, h), w, h);
  const silhouette = area < JOINED_SHARE * countMask(joined) ? joined : filled;
  const mask = mapBytes(silhouette, (s, i) => s & seen[i]!);
  return { mask, silhouette, flaws };
}

/**
 * The photo's colours are still there under its transparency: not all of one colour, as a remover that clears
 * what it cuts away leaves them. Read at full size: a resize weighs colours by alpha, and clears them.
 */
export function coloursUnderAlpha(raster: Raster): boolean {
  const d = raster.data;
  const counts = new Map<number, number>();
  let transparent = 0;
  for (let o = 0; o < d.length; o += 4) {
    // Only the fully transparent: a soft edge's pixels keep the garment's colours whatever the remover does.
    if (d[o + 3]! > 0) continue;
    transparent++;
    const key = (d[o]! << 16) | (d[o + 1]! << 8) | d[o + 2]!;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (counts.size > MANY_COLOURS) return true;
  }
  let mode = 0;
  for (const n of counts.values()) mode = Math.max(mode, n);
  return transparent > 0 && mode < transparent * BLANK_SHARE;
}

/** The raster with its alpha dropped (every pixel opaque). */
export function withoutAlpha(raster: Raster): Raster {
  const data = Uint8ClampedArray.from(raster.data);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { ...raster, data };
}

/** A flawed cut-out whose frame is opaque along at least this share of it kept some of its background. */
const LEFTOVER_FRAME = 0.1;

/**
 * A flawed cut-out that kept a stretch of its background (a darker sweep along the frame, in specks) put back
 * on a background of that stretch's colour, without alpha: the garment is then found in it by its colours, as
 * in a photo. Null when the frame is transparent nearly all along: nothing of the background is left to go by.
 */
export function overLeftover(raster: Raster): Raster | null {
  const { w, h, data } = raster;
  const ch: number[][] = [[], [], []];
  let frame = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (x > 0 && y > 0 && x < w - 1 && y < h - 1) continue;
      frame++;
      const o = (y * w + x) * 4;
      if (data[o + 3]! < 128) continue;
      for (let c = 0; c < 3; c++) ch[c]!.push(data[o + c]!);
    }
  }
  if (ch[0]!.length < frame * LEFTOVER_FRAME) return null;
  const [r, g, b] = ch.map((v) => v.sort((p, q) => p - q)[v.length >> 1]!) as [number, number, number];
  const out = Uint8ClampedArray.from(data);
  for (let o = 0; o < out.length; o += 4) {
    const a = out[o + 3]! / 255;
    out[o] = out[o]! * a + r * (1 - a);
    out[o + 1] = out[o + 1]! * a + g * (1 - a);
    out[o + 2] = out[o + 2]! * a + b * (1 - a);
    out[o + 3] = 255;
  }
  return { ...raster, data: out };
}
