/**
 * Spot plates on the screen, as Photoshop shows them over the colour channels: each spot channel's ink in its
 * display colour at its solidity, in the Channels panel's order. Only for what a person looks at (the studio's
 * canvas, get_canvas_image): the merged image a PSD stores and a flattened export hold the colour channels only,
 * as Photoshop's do.
 *
 * An ink covering a fraction `a` of a pixel (0 where the plate is white, 1 where it is black) at solidity `s`
 * turns the colour under it, `base`, into `base·(1 − a) + a·(s·ink + (1 − s)·base·ink)`: a transparent ink
 * (solidity 0) darkens what it is printed over as an overprint does, an opaque one (100 %) covers it.
 *
 * The display colour is the channel's own (resource 1077) when it is in RGB or Lab; otherwise Photoshop's
 * alternate spot colour for the channel (resource 1067, keyed by the channel's identifier), a Lab value. A
 * channel whose colour is in neither (a CMYK or HSB display colour, a colour book's name) is not drawn, and the
 * open call says so (`spotColourOf` returning undefined).
 */

import { planeFitted } from './channels.js';
import { channelResourcesOf } from './io/psd-carry.js';
import { type CarriedResource, RES_ALTERNATE_SPOT_COLOURS } from './io/psd-channels.js';
import type { DocChannel, DocState, RGB } from './model.js';

const RGB_SPACE = 0;
const LAB_SPACE = 7;

/** A spot ink's colour: as the screen shows it, and as CIE Lab (D50) for a PDF's separation. */
export interface SpotInk {
  readonly rgb: RGB;
  readonly lab: readonly [number, number, number];
}

/** A Photoshop colour structure (space word, four 16-bit words), when it is RGB or Lab. */
function colourOf(bytes: Uint8Array, at: number): SpotInk | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (at + 10 > bytes.length) return undefined;
  const space = view.getUint16(at);
  if (space === RGB_SPACE) {
    const c = (k: number) => Math.round(view.getUint16(at + 2 + k * 2) / 257);
    const rgb = { r: c(0), g: c(1), b: c(2) };
    return { rgb, lab: srgbToLabD50(rgb) };
  }
  if (space === LAB_SPACE) {
    const lab = [
      view.getInt16(at + 2) / 100,
      view.getInt16(at + 4) / 100,
      view.getInt16(at + 6) / 100,
    ] as const;
    return { rgb: labD50ToSrgb(...lab), lab };
  }
  return undefined;
}

/** sRGB as CIE Lab under D50: the inverse of labD50ToSrgb (sRGB's curve and matrix, Bradford-adapted to D50). */
function srgbToLabD50({ r, g, b }: RGB): [number, number, number] {
  const linear = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [R, G, B] = [linear(r), linear(g), linear(b)];
  const X = (0.4360747 * R + 0.3850649 * G + 0.1430804 * B) / 0.96422;
  const Y = 0.2225045 * R + 0.7168786 * G + 0.0606169 * B;
  const Z = (0.0139322 * R + 0.0971045 * G + 0.7141733 * B) / 0.82521;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const [fx, fy, fz] = [f(X), f(Y), f(Z)];
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/**
 * CIE Lab under D50 (Photoshop's and ICC's reference white) as sRGB: Lab → XYZ (D50), Bradford-adapted to
 * D65, then sRGB's matrix and transfer curve, clipped to the gamut. The standard formulas (IEC 61966-2-1, ICC).
 */
function labD50ToSrgb(L: number, a: number, b: number): RGB {
  const fy = (L + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const inv = (t: number) => (t ** 3 > 216 / 24389 ? t ** 3 : (116 * t - 16) / (24389 / 27));
  const X = inv(fx) * 0.96422;
  const Y = inv(fy);
  const Z = inv(fz) * 0.82521;
  // XYZ (D50) straight to linear sRGB: the Bradford adaptation to D65 folded into sRGB's matrix.
  const r = 3.1338561 * X - 1.6168667 * Y - 0.4906146 * Z;
  const g = -0.9787684 * X + 1.9161415 * Y + 0.033454 * Z;
  const bl = 0.0719453 * X - 0.2289914 * Y + 1.4052427 * Z;
  const encode = (c: number) => {
    const v = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.max(0, c) ** (1 / 2.4) - 0.055;
    return Math.max(0, Math.min(255, Math.round(v * 255)));
  };
  return { r: encode(r), g: encode(g), b: encode(bl) };
}

/** The ink a spot channel is printed in, or undefined when neither of its records gives one in RGB or Lab. */
export function spotInkOf(channel: DocChannel, alternates: readonly CarriedResource[]): SpotInk | undefined {
  const own = channel.display && colourOf(channel.display, 0);
  if (own) return own;
  const table = alternates.find((r) => r.id === RES_ALTERNATE_SPOT_COLOURS)?.data;
  if (!table || channel.identifier === undefined || table.length < 4) return undefined;
  // Version word, count word, then per channel its identifier (4 bytes) and a colour structure (10 bytes).
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const count = view.getUint16(2);
  for (let k = 0, at = 4; k < count && at + 14 <= table.length; k++, at += 14) {
    if (view.getUint32(at) === channel.identifier) return colourOf(table, at + 4);
  }
  return undefined;
}

/** The colour a spot channel is shown in (spotInkOf). */
export function spotColourOf(channel: DocChannel, alternates: readonly CarriedResource[]): RGB | undefined {
  return spotInkOf(channel, alternates)?.rgb;
}

/** A spot channel's solidity, 0–1 (display record: its opacity word). */
function solidityOf(channel: DocChannel): number {
  const d = channel.display;
  if (!d || d.length < 12) return 0;
  return Math.min(100, (d[10]! << 8) | d[11]!) / 100;
}

/**
 * `shown` (straight RGBA: the canvas of `state` scaled to `w × h`) with the document's spot plates printed over
 * it, in place. Alpha channels are not shown, as in Photoshop while they are hidden.
 */
export async function showSpotInks(
  state: DocState,
  shown: Uint8Array | Uint8ClampedArray,
  w: number,
  h: number,
): Promise<void> {
  for (const channel of state.channels ?? []) {
    if (channel.kind !== 'spot') continue;
    const ink = spotColourOf(channel, channelResourcesOf(state));
    if (!ink) continue;
    const plane = await planeFitted(channel.data, state.width, state.height, w, h);
    const s = solidityOf(channel);
    const C = [ink.r / 255, ink.g / 255, ink.b / 255] as const;
    for (let p = 0, o = 0; p < plane.length; p++, o += 4) {
      const a = 1 - plane[p]! / 255;
      if (a <= 0) continue;
      // Ink lands on paper where the picture is transparent.
      const alpha = shown[o + 3]! / 255;
      for (let c = 0; c < 3; c++) {
        const base = (shown[o + c]! / 255) * alpha + (1 - alpha);
        const inked = s * C[c]! + (1 - s) * base * C[c]!;
        shown[o + c] = Math.round((base * (1 - a) + a * inked) * 255);
      }
      shown[o + 3] = Math.round(255 - (1 - alpha) * (1 - a) * 255);
    }
  }
}
