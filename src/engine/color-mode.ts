/**
 * Colour modes (DESIGN.md §4, engine.md §2.1 CMYK). Pixels stay RGB inside; a CMYK document is one whose every
 * colour has been through sRGB → CMYK → sRGB with the press profile (press-profile.ts), so what lies outside the
 * printable gamut is clipped as in Photoshop's Mode › CMYK, and new colours go through the same round trip.
 *
 * The transform is libvips/LittleCMS through sharp with its perceptual intent — the same transform CMYK JPEG and
 * PSD exports use, so the files hold the inks this module reports. With the default SWOP profile, greys stay
 * neutral down to black (sRGB black → 21, 23, 24 after the round trip; 128 → 126, 125, 125).
 *
 * Each raster is separated once (cmyk-pixels.ts) and keeps the inks of that separation for the files it is saved
 * to (raster-inks.ts); alpha is carried through untouched.
 */

import { cmykaFromRgba, rgbaFromCmyk } from './cmyk-pixels.js';
import type { DocState, Effects, InkTable, Layer, Raster, RGB } from './model.js';
import { documentProfile, type PressProfile, pressProfile } from './press-profile.js';
import {
  documentInkSources,
  inksOf,
  newInkTable,
  recordInk,
  recordPixels,
  tableApplies,
  takeKeptInks,
} from './raster-inks.js';
import { recoloured } from './text-runs.js';

/** Ink percentages, 0–100, as Photoshop's Info panel shows them. */
export interface Cmyk {
  readonly c: number;
  readonly m: number;
  readonly y: number;
  readonly k: number;
}

/**
 * A raster through the round trip, keeping the inks of its separation: saving writes those (raster-inks.ts), not
 * a second separation of the round-tripped pixels, which would differ.
 */
async function roundTripRaster(r: Raster, profile: PressProfile, table: InkTable): Promise<Raster> {
  const { w, h } = r;
  const cmyka = await cmykaFromRgba(r.data, w, h, profile.path);
  const data = await rgbaFromCmyk(cmyka, w, h, 5, profile.bytes);
  recordPixels(table, data, cmyka, 5);
  for (let i = 3; i < data.length; i += 4) data[i] = r.data[i]!;
  return { x: r.x, y: r.y, w, h, data, inks: inksOf(cmyka, w, h, data, profile.bytes) };
}

/** Colours through the CMYK round trip (the colours a CMYK document can hold), the same transform as rasters'. */
export async function roundTripColors(colors: readonly RGB[], profile = pressProfile()): Promise<RGB[]> {
  return (await separateColors(colors, profile)).map((c) => c.color);
}

/** Colours through the round trip, each with the inks of its separation. */
async function separateColors(
  colors: readonly RGB[],
  profile: PressProfile,
): Promise<{ color: RGB; cmyk: [number, number, number, number] }[]> {
  if (colors.length === 0) return [];
  const rgba = Uint8Array.from(colors.flatMap((c) => [c.r, c.g, c.b, 255]));
  const cmyka = await cmykaFromRgba(rgba, colors.length, 1, profile.path);
  const out = await rgbaFromCmyk(cmyka, colors.length, 1, 5, profile.bytes);
  return colors.map((_, i) => {
    const color = { r: out[i * 4]!, g: out[i * 4 + 1]!, b: out[i * 4 + 2]! };
    const o = i * 5;
    return { color, cmyk: [cmyka[o]!, cmyka[o + 1]!, cmyka[o + 2]!, cmyka[o + 3]!] };
  });
}

const percent = (v: number) => Math.round((v / 255) * 100);

/** The ink values of sRGB colours under a CMYK profile, in percent (whole numbers, as Photoshop shows them). */
export async function cmykOf(colors: readonly RGB[], profile = pressProfile()): Promise<Cmyk[]> {
  if (colors.length === 0) return [];
  const rgba = Uint8Array.from(colors.flatMap((c) => [c.r, c.g, c.b, 255]));
  const cmyka = await cmykaFromRgba(rgba, colors.length, 1, profile.path);
  return colors.map((_, i) => inkPercent(cmyka, i * 5));
}

function inkPercent(cmyka: Uint8Array, at: number): Cmyk {
  const [c, m, y, k] = [0, 1, 2, 3].map((o) => percent(cmyka[at + o]!)) as [number, number, number, number];
  return { c, m, y, k };
}

/**
 * The inks of the composite pixel `color` (alpha `alpha`) at document point (x, y), in percent: those a layer
 * keeps (raster-inks.ts) when the pixel shows that layer, as the saved file holds them; else its separation.
 */
export async function cmykAt(
  state: DocState,
  x: number,
  y: number,
  color: RGB,
  alpha: number,
): Promise<Cmyk> {
  const rgba = Uint8Array.of(color.r, color.g, color.b, alpha);
  const cmyka = new Uint8Array(5);
  const profile = documentProfile(state);
  // Only the rasters showing this very pixel are fingerprinted.
  const sources = documentInkSources(state, profile.bytes, (r) => {
    const i = ((y - r.y) * r.w + x - r.x) * 4;
    const inside = x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
    return inside && rgba.every((v, c) => r.data[i + c] === v);
  });
  if (takeKeptInks(rgba, cmyka, x, y, 1, 1, sources) === 1) return inkPercent(cmyka, 0);
  return (await cmykOf([color], profile))[0]!;
}

/** A colour as the document can hold it: unchanged in RGB mode, through the round trip in CMYK mode. */
export async function documentColor(state: DocState, color: RGB): Promise<RGB> {
  if (state.mode !== 'cmyk') return color;
  const profile = documentProfile(state);
  const [separated] = await separateColors([color], profile);
  // Whatever is drawn in it is written with the inks it came from (the document's ink table).
  const table = state.inkTable;
  if (tableApplies(table, profile.bytes)) {
    const { r, g, b } = separated!.color;
    recordInk(table, r, g, b, ...separated!.cmyk);
  }
  return separated!.color;
}

/** The inks in bytes, the profile that shows them in `state` and the sRGB colour they show as. */
async function inksShown(state: DocState | null, inks: Cmyk) {
  const profile = state?.mode === 'cmyk' ? documentProfile(state) : pressProfile();
  const bytes = [inks.c, inks.m, inks.y, inks.k].map((p) => Math.round((p / 100) * 255)) as [
    number,
    number,
    number,
    number,
  ];
  const rgba = await rgbaFromCmyk(Uint8Array.from(bytes), 1, 1, 4, profile.bytes);
  return { color: { r: rgba[0]!, g: rgba[1]!, b: rgba[2]! }, bytes, profile };
}

/**
 * The colour press inks (percent) show as in `state` (none: no document open), without recording them: what a
 * colour field shows before the inks are painted with (inkColor).
 */
export async function inkPreview(state: DocState | null, inks: Cmyk): Promise<RGB> {
  return (await inksShown(state, inks)).color;
}

/**
 * Press inks asked for (percent) as the document holds them: the sRGB colour they print as, through the
 * document's profile (the press profile in an RGB document, as Photoshop's picker converts CMYK values); in a
 * CMYK document every pixel drawn in that colour is written with exactly these inks (the ink table).
 */
export async function inkColor(state: DocState, inks: Cmyk): Promise<RGB> {
  const { color, bytes, profile } = await inksShown(state, inks);
  const table = state.inkTable;
  if (state.mode === 'cmyk' && tableApplies(table, profile.bytes)) {
    recordInk(table, color.r, color.g, color.b, ...bytes, true);
  }
  return color;
}

function key(c: RGB): string {
  return `${c.r},${c.g},${c.b}`;
}

/**
 * Photoshop's Image › Mode › CMYK: every raster (pixel, text and smart-object renderings, not a smart object's contents)
 * and every stored colour (fills, text, layer effects, the foreground) through the round trip; layer masks, the
 * selection and alpha are untouched. A raster shared by several layers is converted once and stays shared.
 */
export async function convertStateToCmyk(state: DocState): Promise<DocState> {
  const profile = pressProfile(); // a missing profile fails here, before any raster is converted
  const inkTable = newInkTable(profile.bytes);
  const converted = new Map<Uint8ClampedArray, Raster>();
  const raster = async (r: Raster): Promise<Raster> => {
    if (r.w <= 0 || r.h <= 0 || r.data.length === 0) return r;
    let done = converted.get(r.data);
    if (!done) {
      // One raster at a time: each may be hundreds of megabytes.
      done = await roundTripRaster(r, profile, inkTable);
      converted.set(r.data, done);
    }
    return { ...done, x: r.x, y: r.y };
  };

  // Every stored colour, converted in one batch.
  const colors = new Map<string, RGB>();
  const note = (c: RGB | undefined) => {
    if (c) colors.set(key(c), c);
  };
  note(state.foreground);
  for (const layer of state.layers.values()) {
    note(layer.effects?.stroke?.color);
    note(layer.effects?.dropShadow?.color);
    for (const o of layer.effects?.colorOverlays ?? []) note(o.color);
    for (const g of layer.effects?.gradientOverlays ?? []) for (const c of g.colors) note(c.value);
    for (const d of layer.effects?.innerShadows ?? []) note(d.color);
    note(layer.effects?.innerGlow?.color);
    note(layer.effects?.outerGlow?.color);
    if (layer.kind === 'fill') note(layer.color);
    if (layer.kind === 'text') {
      for (const spec of [layer.text, layer.psdText?.spec]) {
        note(spec?.color);
        for (const run of spec?.runs ?? []) note(run.color);
      }
    }
  }
  const list = [...colors.values()];
  const mapped = await separateColors(list, profile);
  // Fill layers' colours among them: their inks are written from the table.
  for (const { color: c, cmyk } of mapped) recordInk(inkTable, c.r, c.g, c.b, ...cmyk);
  const table = new Map(list.map((c, i) => [key(c), mapped[i]!]));
  const color = (c: RGB): RGB => table.get(key(c))?.color ?? c;

  const effects = (e: Effects | undefined): { effects?: Effects } => {
    if (!e) return {};
    return {
      effects: {
        ...e,
        ...(e.stroke ? { stroke: { ...e.stroke, color: color(e.stroke.color) } } : {}),
        ...(e.dropShadow ? { dropShadow: { ...e.dropShadow, color: color(e.dropShadow.color) } } : {}),
        ...(e.colorOverlays
          ? { colorOverlays: e.colorOverlays.map((o) => ({ ...o, color: color(o.color) })) }
          : {}),
        ...(e.gradientOverlays
          ? {
              gradientOverlays: e.gradientOverlays.map((g) => ({
                ...g,
                colors: g.colors.map((c) => ({ ...c, value: color(c.value) })),
              })),
            }
          : {}),
        ...(e.innerShadows
          ? { innerShadows: e.innerShadows.map((d) => ({ ...d, color: color(d.color) })) }
          : {}),
        ...(e.innerGlow ? { innerGlow: { ...e.innerGlow, color: color(e.innerGlow.color) } } : {}),
        ...(e.outerGlow ? { outerGlow: { ...e.outerGlow, color: color(e.outerGlow.color) } } : {}),
      },
    };
  };

  const layers = new Map<number, Layer>();
  for (const [id, layer] of state.layers) {
    let next: Layer;
    switch (layer.kind) {
      case 'pixel':
        next = { ...layer, raster: await raster(layer.raster) };
        break;
      case 'text': {
        // The text a PSD gave it is converted alike, so the conversion is not an edit of the text: the file's own
        // text record (paragraph box, alignment, style runs) is still written back, in CMYK (io/psd.ts).
        const read = layer.psdText;
        next = {
          ...layer,
          text: recoloured(layer.text, color),
          raster: await raster(layer.raster),
          ...(read ? { psdText: { ...read, spec: recoloured(read.spec, color) } } : {}),
        };
        break;
      }
      case 'smart':
        // Its contents stay as they are, as Photoshop's mode change leaves a smart object's file: the embedded
        // file is written back as it was, and a rendering made from it later is separated when saved.
        next = { ...layer, raster: await raster(layer.raster) };
        break;
      case 'fill':
        next = { ...layer, color: color(layer.color) };
        break;
      case 'adjustment':
      case 'group':
        next = layer;
        break;
    }
    if (layer.effects) next = { ...next, ...effects(layer.effects) };
    layers.set(id, next);
  }
  return { ...state, mode: 'cmyk', layers, foreground: color(state.foreground), inkTable };
}
