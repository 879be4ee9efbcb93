/**
 * Colour modes (DESIGN.md §4, engine.md §2.1 CMYK). Pixels stay RGB inside; a CMYK document is one whose every
 * colour has been through sRGB → CMYK → sRGB with the press profile (press-profile.ts), so what lies outside the
 * printable gamut is clipped as in Photoshop's Mode › CMYK, and new colours go through the same round trip.
 *
 * The transform is libvips/LittleCMS through sharp with its perceptual intent — the same transform CMYK JPEG and
 * PSD exports use, so the files hold the inks this module reports. With the default SWOP profile, greys stay
 * neutral down to black (sRGB black → 21, 23, 24 after the round trip; 128 → 126, 125, 125).
 *
 * Whole rasters go through one sharp pipeline each (raw RGBA → CMYK+alpha TIFF in memory → sRGB RGBA); alpha
 * is carried through untouched.
 */

import { fail } from './errors.js';
import type { DocState, Effects, Layer, Raster, RGB } from './model.js';
import { pressProfile } from './press-profile.js';
import { sharePixels } from './raster.js';
import sharp from './sharp.js';

/** Ink percentages, 0–100, as Photoshop's Info panel shows them. */
export interface Cmyk {
  readonly c: number;
  readonly m: number;
  readonly y: number;
  readonly k: number;
}

/** TIFF's 32-bit offsets end at 4 GiB; larger intermediates need BigTIFF. */
const TIFF_LIMIT = 0xf000_0000;

/** `w × h` pixels (straight RGBA or RGB, `channels` per pixel) through sRGB → CMYK → sRGB. */
async function roundTripData(
  data: Uint8Array | Uint8ClampedArray,
  w: number,
  h: number,
  channels: 3 | 4,
): Promise<Buffer> {
  const pixels = w * h;
  const input = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const cmyk = await sharp(input, { raw: { width: w, height: h, channels }, limitInputPixels: false })
    .withIccProfile(pressProfile().path)
    .tiff({ compression: 'none', bigtiff: pixels * (channels + 1) > TIFF_LIMIT })
    .toBuffer();
  const { data: out, info } = await sharp(cmyk, { limitInputPixels: false })
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.width !== w || info.height !== h || info.channels !== channels) {
    fail('internal', `CMYK 转换结果异常：${info.width}×${info.height}×${info.channels}`);
  }
  return out;
}

async function roundTripPixels({ data, w, h }: Raster): Promise<Uint8ClampedArray> {
  const buf = await roundTripData(data, w, h, 4);
  const out = sharePixels(buf); // into shared memory, as every document buffer (raster.ts)
  for (let i = 3; i < out.length; i += 4) out[i] = data[i]!;
  return out;
}

/** Colours through the CMYK round trip (the colours a CMYK document can hold). */
export async function roundTripColors(colors: readonly RGB[]): Promise<RGB[]> {
  if (colors.length === 0) return [];
  const rgb = Uint8Array.from(colors.flatMap((c) => [c.r, c.g, c.b]));
  const buf = await roundTripData(rgb, colors.length, 1, 3);
  return colors.map((_, i) => ({ r: buf[i * 3]!, g: buf[i * 3 + 1]!, b: buf[i * 3 + 2]! }));
}

/** The ink values of sRGB colours under the CMYK profile, in percent (whole numbers, as Photoshop shows them). */
export async function cmykOf(colors: readonly RGB[]): Promise<Cmyk[]> {
  if (colors.length === 0) return [];
  const rgb = Buffer.from(colors.flatMap((c) => [c.r, c.g, c.b]));
  const { data, info } = await sharp(rgb, { raw: { width: colors.length, height: 1, channels: 3 } })
    .withIccProfile(pressProfile().path)
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4 || info.width !== colors.length) {
    fail('internal', `CMYK 转换结果异常：${info.width}×${info.height}×${info.channels}`);
  }
  const pct = (v: number) => Math.round((v / 255) * 100);
  return colors.map((_, i) => ({
    c: pct(data[i * 4]!),
    m: pct(data[i * 4 + 1]!),
    y: pct(data[i * 4 + 2]!),
    k: pct(data[i * 4 + 3]!),
  }));
}

/** A colour as the document can hold it: unchanged in RGB mode, through the round trip in CMYK mode. */
export async function documentColor(state: DocState, color: RGB): Promise<RGB> {
  if (state.mode !== 'cmyk') return color;
  return (await roundTripColors([color]))[0]!;
}

function key(c: RGB): string {
  return `${c.r},${c.g},${c.b}`;
}

/**
 * Photoshop's Image › Mode › CMYK: every raster (pixel, text and smart-object renderings, smart-object sources)
 * and every stored colour (fills, text, layer effects, the foreground) through the round trip; layer masks, the
 * selection and alpha are untouched. A raster shared by several layers is converted once and stays shared.
 */
export async function convertStateToCmyk(state: DocState): Promise<DocState> {
  pressProfile(); // a missing profile fails here, before any raster is converted
  const converted = new Map<Uint8ClampedArray, Uint8ClampedArray>();
  const raster = async (r: Raster): Promise<Raster> => {
    if (r.w <= 0 || r.h <= 0 || r.data.length === 0) return r;
    let data = converted.get(r.data);
    if (!data) {
      // One raster at a time: each may be hundreds of megabytes.
      data = await roundTripPixels(r);
      converted.set(r.data, data);
    }
    return { x: r.x, y: r.y, w: r.w, h: r.h, data };
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
    if (layer.kind === 'fill') note(layer.color);
    if (layer.kind === 'text') note(layer.text.color);
  }
  const list = [...colors.values()];
  const mapped = await roundTripColors(list);
  const table = new Map(list.map((c, i) => [key(c), mapped[i]!]));
  const color = (c: RGB): RGB => table.get(key(c)) ?? c;

  const effects = (e: Effects | undefined): { effects?: Effects } => {
    if (!e) return {};
    return {
      effects: {
        ...e,
        ...(e.stroke ? { stroke: { ...e.stroke, color: color(e.stroke.color) } } : {}),
        ...(e.dropShadow ? { dropShadow: { ...e.dropShadow, color: color(e.dropShadow.color) } } : {}),
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
      case 'text':
        next = {
          ...layer,
          text: { ...layer.text, color: color(layer.text.color) },
          raster: await raster(layer.raster),
        };
        break;
      case 'smart':
        next = { ...layer, source: await raster(layer.source), raster: await raster(layer.raster) };
        break;
      case 'fill':
        next = { ...layer, color: color(layer.color) };
        break;
      case 'group':
        next = layer;
        break;
    }
    if (layer.effects) next = { ...next, ...effects(layer.effects) };
    layers.set(id, next);
  }
  return { ...state, mode: 'cmyk', layers, foreground: color(state.foreground) };
}
