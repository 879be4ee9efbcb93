/**
 * The press inks kept with a raster (model.ts `RasterInks`): made when a CMYK file is read or a document is
 * converted to CMYK, recognised when a file is written, and found again for the pixels of a composite.
 *
 * Why they are kept: the engine edits sRGB, and sRGB → CMYK is not the inverse of CMYK → sRGB. Separating a
 * colour that has already been through the round trip gives other inks than the first separation did (up to
 * 32/255 on one ink with the default SWOP profile, the black generation drifting), so a converted document saved
 * by separating its pixels again would not hold the inks Image › Mode › CMYK made, as Photoshop's file does.
 */
import { createHash } from 'node:crypto';
import { cmykaFromRgba } from './cmyk-pixels.js';
import type { DocState, InkTable, Raster, RasterInks, RGB } from './model.js';
import { allocMask } from './raster.js';
import { topDown } from './tree.js';

/** A fingerprint of byte arrays (SHA-256: ~40 ms for a 4000² layer, beside seconds of separating it). */
function fingerprint(...parts: readonly (Uint8Array | Uint8ClampedArray | string)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('base64');
}

const profileFingerprints = new WeakMap<Uint8Array, string>();
function profileFingerprint(icc: Uint8Array): string {
  let known = profileFingerprints.get(icc);
  if (known === undefined) {
    known = fingerprint(icc);
    profileFingerprints.set(icc, known);
  }
  return known;
}

/** A raster's size and pixels, fingerprinted: what its inks were made with (RasterInks.pixels). */
export function pixelFingerprint(r: Pick<Raster, 'w' | 'h' | 'data'>): string {
  return fingerprint(`${r.w}×${r.h}`, r.data);
}

/** The inks of interleaved C M Y K A ink amounts, for the raster pixels `rgba` they were converted to or from. */
export function inksOf(
  cmyka: Uint8Array,
  w: number,
  h: number,
  rgba: Uint8ClampedArray,
  icc: Uint8Array,
): RasterInks {
  const cmyk = allocMask(w * h * 4);
  for (let i = 0, j = 0; i < cmyk.length; i += 4, j += 5) {
    cmyk[i] = cmyka[j]!;
    cmyk[i + 1] = cmyka[j + 1]!;
    cmyk[i + 2] = cmyka[j + 2]!;
    cmyk[i + 3] = cmyka[j + 3]!;
  }
  return { cmyk, profile: profileFingerprint(icc), pixels: pixelFingerprint({ w, h, data: rgba }) };
}

/**
 * The raster's inks (C M Y K per pixel) when they still apply: made with the profile the file is written with,
 * and the pixels unchanged since. Otherwise undefined, and the pixels are separated afresh.
 */
export function keptInks(r: Raster, profile: Uint8Array): Uint8Array | undefined {
  const inks = r.inks;
  if (!inks || inks.cmyk.length !== r.w * r.h * 4) return undefined;
  if (inks.profile !== profileFingerprint(profile) || inks.pixels !== pixelFingerprint(r)) return undefined;
  return inks.cmyk;
}

/** Pixels whose kept inks still apply: a raster's, or any pixel of a colour the document's ink table holds. */
export type InkSource = { readonly raster: Raster; readonly cmyk: Uint8Array } | { readonly table: InkTable };

/** The most colours a table holds (32 MiB at most); colours beyond are separated afresh when saved. */
const MAX_TABLE_COLOURS = 1 << 21;

export function newInkTable(icc: Uint8Array): InkTable {
  return {
    profile: profileFingerprint(icc),
    keys: new Uint32Array(1024),
    values: new Uint32Array(1024),
    count: 0,
  };
}

/** Whether the table's inks are for the press profile `icc`. */
export function tableApplies(t: InkTable | undefined, icc: Uint8Array): t is InkTable {
  return t !== undefined && t.profile === profileFingerprint(icc);
}

const slotOf = (key: number, mask: number) => (Math.imul(key, 0x9e3779b1) >>> 0) & mask;

/** The packed inks recorded for r, g, b, or -1. */
export function inkOf(t: InkTable, r: number, g: number, b: number): number {
  const key = (0x1000000 | (r << 16) | (g << 8) | b) >>> 0;
  const mask = t.keys.length - 1;
  for (let i = slotOf(key, mask); ; i = (i + 1) & mask) {
    const k = t.keys[i]!;
    if (k === key) return t.values[i]!;
    if (k === 0) return -1;
  }
}

/**
 * Records the inks c, m, y, k (0–255) for the colour r, g, b unless it has some already — or, with `replace`,
 * in their place: inks a user asked for (a `cmyk(…)` colour) win over a separation's, for every pixel of that
 * colour (they look the same on screen, so which one a pixel came from is not known).
 */
export function recordInk(
  t: InkTable,
  r: number,
  g: number,
  b: number,
  c: number,
  m: number,
  y: number,
  k: number,
  replace = false,
): void {
  const key = (0x1000000 | (r << 16) | (g << 8) | b) >>> 0;
  let mask = t.keys.length - 1;
  let i = slotOf(key, mask);
  for (; t.keys[i] !== 0; i = (i + 1) & mask) {
    if (t.keys[i] !== key) continue;
    if (replace) t.values[i] = ((c << 24) | (m << 16) | (y << 8) | k) >>> 0;
    return;
  }
  if (t.count >= MAX_TABLE_COLOURS) return;
  if ((t.count + 1) * 2 > t.keys.length) {
    const { keys, values } = t;
    t.keys = new Uint32Array(keys.length * 2);
    t.values = new Uint32Array(keys.length * 2);
    mask = t.keys.length - 1;
    for (let j = 0; j < keys.length; j++) {
      if (keys[j] === 0) continue;
      let s = slotOf(keys[j]!, mask);
      while (t.keys[s] !== 0) s = (s + 1) & mask;
      t.keys[s] = keys[j]!;
      t.values[s] = values[j]!;
    }
    i = slotOf(key, mask);
    while (t.keys[i] !== 0) i = (i + 1) & mask;
  }
  t.keys[i] = key;
  t.values[i] = ((c << 24) | (m << 16) | (y << 8) | k) >>> 0;
  t.count++;
}

/**
 * Records every visible pixel of `rgba` (straight RGBA) with its inks in `inks`: C M Y K A from a separation
 * (`stride` 5), or a raster's kept C M Y K (`stride` 4).
 */
export function recordPixels(
  t: InkTable,
  rgba: Uint8Array | Uint8ClampedArray,
  inks: Uint8Array,
  stride: 4 | 5,
): void {
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += stride) {
    if (rgba[i + 3] === 0) continue;
    recordInk(t, rgba[i]!, rgba[i + 1]!, rgba[i + 2]!, inks[j]!, inks[j + 1]!, inks[j + 2]!, inks[j + 3]!);
  }
}

/** The inks the table holds for `c` (C, M, Y, K), if any. */
export function inksOfColour(t: InkTable | undefined, c: RGB): [number, number, number, number] | undefined {
  const v = t ? inkOf(t, c.r, c.g, c.b) : -1;
  return v < 0 ? undefined : [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
}

/** takeKeptInks for the table: every untaken visible pixel whose colour it holds. */
function takeTableInks(
  rgba: Uint8Array | Uint8ClampedArray,
  cmyka: Uint8Array,
  n: number,
  t: InkTable,
  taken: Uint8Array,
): number {
  let count = 0;
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    if (taken[p] || rgba[i + 3] === 0) continue;
    const v = inkOf(t, rgba[i]!, rgba[i + 1]!, rgba[i + 2]!);
    if (v < 0) continue;
    const o = p * 5;
    cmyka[o] = v >>> 24;
    cmyka[o + 1] = (v >>> 16) & 255;
    cmyka[o + 2] = (v >>> 8) & 255;
    cmyka[o + 3] = v & 255;
    taken[p] = 1;
    count++;
  }
  return count;
}

/**
 * Inks for a composite's pixels: `rgba` (straight RGBA) and `cmyka` (C M Y K A, 5 bytes per pixel) both cover the
 * `w × h` rectangle at document point (x, y). Each pixel that is exactly (all four bytes) a source's pixel at that
 * point takes that source's inks: it shows that source's colour, and those inks are its first separation.
 * Sources earlier in the list win. A transparent pixel takes no ink (the merged image and JPEG matte it away).
 * Returns how many pixels were given inks; the others are left as they were, for a fresh separation.
 */
export function takeKeptInks(
  rgba: Uint8Array | Uint8ClampedArray,
  cmyka: Uint8Array,
  x: number,
  y: number,
  w: number,
  h: number,
  sources: readonly InkSource[],
): number {
  const taken = new Uint8Array(w * h);
  let count = 0;
  for (let p = 0; p < w * h; p++) {
    if (rgba[p * 4 + 3] !== 0) continue;
    cmyka.fill(0, p * 5, p * 5 + 4);
    taken[p] = 1;
    count++;
  }
  for (let s = sources.length - 1; s >= 0; s--) {
    const source = sources[s]!;
    if ('table' in source) continue;
    const { raster: r, cmyk } = source;
    const d = r.data;
    const x0 = Math.max(x, r.x);
    const x1 = Math.min(x + w, r.x + r.w);
    const y0 = Math.max(y, r.y);
    const y1 = Math.min(y + h, r.y + r.h);
    for (let py = y0; py < y1; py++) {
      for (let px = x0; px < x1; px++) {
        const p = (py - y) * w + px - x;
        const i = p * 4;
        const j = ((py - r.y) * r.w + px - r.x) * 4;
        const a = rgba[i + 3]!;
        if (
          a === 0 ||
          d[j] !== rgba[i] ||
          d[j + 1] !== rgba[i + 1] ||
          d[j + 2] !== rgba[i + 2] ||
          d[j + 3] !== a
        )
          continue;
        const o = p * 5;
        cmyka[o] = cmyk[j]!;
        cmyka[o + 1] = cmyk[j + 1]!;
        cmyka[o + 2] = cmyk[j + 2]!;
        cmyka[o + 3] = cmyk[j + 3]!;
        if (!taken[p]) {
          taken[p] = 1;
          count++;
        }
      }
    }
  }
  // The table last: only pixels no layer's own inks gave.
  for (const source of sources) {
    if ('table' in source) count += takeTableInks(rgba, cmyka, w * h, source.table, taken);
  }
  return count;
}

/**
 * The document's layers whose kept inks still apply, from the top of the stack down (the top one wins), then its
 * ink table (which also holds its fill layers' colours). `wanted` picks rasters before their fingerprint (a hash of every pixel) is taken.
 */
export function documentInkSources(
  state: DocState,
  profile: Uint8Array,
  wanted: (r: Raster) => boolean = () => true,
): InkSource[] {
  const seen = new Set<Uint8ClampedArray>();
  const out: InkSource[] = [];
  for (const { layer } of topDown(state)) {
    if (!('raster' in layer) || !layer.raster.inks || seen.has(layer.raster.data) || !wanted(layer.raster))
      continue;
    seen.add(layer.raster.data);
    const cmyk = keptInks(layer.raster, profile);
    if (cmyk) out.push({ raster: layer.raster, cmyk });
  }
  if (tableApplies(state.inkTable, profile)) out.push({ table: state.inkTable });
  return out;
}

/**
 * C M Y K A of a composite's `w × h` pixels at document point (x, y): the kept inks of the layers it shows
 * (above), a fresh separation for the rest.
 */
export async function separateComposite(
  rgba: Uint8Array | Uint8ClampedArray,
  x: number,
  y: number,
  w: number,
  h: number,
  profile: { readonly path: string },
  sources: readonly InkSource[],
): Promise<Uint8Array> {
  const n = w * h;
  if (sources.length > 0) {
    const cmyka = new Uint8Array(n * 5);
    for (let p = 0; p < n; p++) cmyka[p * 5 + 4] = rgba[p * 4 + 3]!;
    const taken = takeKeptInks(rgba, cmyka, x, y, w, h, sources);
    if (taken === n) return cmyka;
    if (taken === 0) return cmykaFromRgba(rgba, w, h, profile.path);
  }
  const fresh = await cmykaFromRgba(rgba, w, h, profile.path);
  takeKeptInks(rgba, fresh, x, y, w, h, sources);
  return fresh;
}
