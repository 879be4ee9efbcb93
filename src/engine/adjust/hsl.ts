/**
 * Hue/Saturation (master channel) and Desaturate, in Photoshop's HSL model (engine.md §1.4, psd-tools
 * `apply_huesaturation`): lightness first, in RGB (L > 0 mixes toward white, L < 0 toward black); then in HSL
 * the hue turns by `hue` degrees (positive: red → yellow → green) and the saturation scales (s < 0: S·(1+s);
 * s > 0: S/(1 − s + 0.01), capped at 1). Alpha is never touched.
 */
import { type ColorKernel, lutKernel, wordKernel } from './lut.js';

/** lightness −100…100 as a table of 0…1 floats (no rounding before the HSL step). */
function lightnessTable(lightness: number): Float64Array {
  const l = lightness / 100;
  const table = new Float64Array(256);
  for (let v = 0; v < 256; v++) {
    const t = v / 255;
    table[v] = l > 0 ? t * (1 - l) + l : t * (1 + l);
  }
  return table;
}

/**
 * The Hue/Saturation kernel. hue in degrees (any value; taken mod 360), saturation and lightness −100…100.
 * When only lightness changes it is a plain lookup table.
 */
export function hueSaturationKernel(hue: number, saturation: number, lightness: number): ColorKernel {
  const light = lightnessTable(lightness);
  let shift = (((hue % 360) + 360) % 360) / 60; // in hue sextants, [0, 6)
  if (shift >= 6) shift = 0;
  const s = saturation / 100;
  if (shift === 0 && s === 0) {
    const lut = new Uint8Array(256);
    for (let v = 0; v < 256; v++) lut[v] = Math.round(light[v]! * 255);
    return lutKernel(lut);
  }
  // Chroma C = (1 − |2L − 1|)·S, so scaling S by k scales C = max − min by k, capped at 1 − |2L − 1| (S ≤ 1).
  // Every output channel then lies in [0, 1]: m = L − C/2 ≥ 0 and C + m = L + C/2 ≤ 1.
  const k = s > 0 ? 1 / (1 - s + 0.01) : 1 + s;
  const capped = k > 1;
  return wordKernel((src, dst, from, to) => {
    for (let p = from; p < to; p++) {
      const v = src[p]!;
      if (v >>> 24 === 0) {
        dst[p] = v;
        continue;
      }
      const r = light[v & 255]!;
      const g = light[(v >>> 8) & 255]!;
      const b = light[(v >>> 16) & 255]!;
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      const d = max - min;
      const l = (max + min) * 0.5;
      const alpha = v & 0xff000000;
      if (d === 0) {
        const q = (l * 255 + 0.5) | 0;
        dst[p] = alpha | (q << 16) | (q << 8) | q;
        continue;
      }
      let h: number;
      if (max === r) h = (g - b) / d + (g < b ? 6 : 0);
      else if (max === g) h = (b - r) / d + 2;
      else h = (r - g) / d + 4;
      h += shift;
      if (h >= 6) h -= 6;
      let c = d * k;
      if (capped) {
        const cap = l > 0.5 ? 2 - 2 * l : 2 * l;
        if (c > cap) c = cap;
      }
      // + 0.5 so that truncation rounds
      const m = (l - c * 0.5) * 255 + 0.5;
      const cc = c * 255;
      const sector = h | 0;
      const f = h - sector;
      // X = C·(1 − |h mod 2 − 1|): rising on even sextants, falling on odd ones.
      const x = sector & 1 ? cc * (1 - f) : cc * f;
      const hi = (cc + m) | 0;
      const mid = (x + m) | 0;
      const lo = m | 0;
      let rgb: number;
      switch (sector) {
        case 0:
          rgb = (lo << 16) | (mid << 8) | hi;
          break;
        case 1:
          rgb = (lo << 16) | (hi << 8) | mid;
          break;
        case 2:
          rgb = (mid << 16) | (hi << 8) | lo;
          break;
        case 3:
          rgb = (hi << 16) | (mid << 8) | lo;
          break;
        case 4:
          rgb = (hi << 16) | (lo << 8) | mid;
          break;
        default:
          rgb = (mid << 16) | (lo << 8) | hi;
      }
      dst[p] = alpha | rgb;
    }
  });
}

/** Photoshop Desaturate: every channel becomes the HSL lightness (max + min)/2, rounded half up. */
export const desaturateKernel: ColorKernel = wordKernel((src, dst, from, to) => {
  for (let p = from; p < to; p++) {
    const v = src[p]!;
    if (v >>> 24 === 0) {
      dst[p] = v;
      continue;
    }
    const r = v & 255;
    const g = (v >>> 8) & 255;
    const b = (v >>> 16) & 255;
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    const q = (max + min + 1) >> 1;
    dst[p] = (v & 0xff000000) | (q << 16) | (q << 8) | q;
  }
});

/**
 * Hue/Saturation with Colorize: every pixel takes one colour, the hue at full HSV value mixed with mid grey by the
 * saturation, made lighter or darker by the pixel's brightness (black at 0, the colour at the middle, white at
 * the top) and by `lightness` (−100…100: all black…all white). Photoshop publishes no formula; this one, from a
 * black-box reconstruction, fits Photoshop's own composite of psd2svg's colorize file (hue 0, saturation 25).
 */
export function colorizeKernel(hue: number, saturation: number, lightness: number): ColorKernel {
  const h = ((((hue % 360) + 360) % 360) / 60) % 6;
  const x = 1 - Math.abs((h % 2) - 1);
  const sextant = Math.floor(h);
  const full = [
    [1, x, 0],
    [x, 1, 0],
    [0, 1, x],
    [0, x, 1],
    [x, 0, 1],
    [1, 0, x],
  ][sextant]!;
  const s = Math.min(1, Math.max(0, saturation / 100));
  const color = full.map((c) => 128 / 255 + (c - 128 / 255) * s);
  const l = Math.min(1, Math.max(-1, lightness / 100));
  // The output of each brightness 0…255: from black through the colour to white.
  const table = new Uint32Array(256);
  for (let v = 0; v < 256; v++) {
    const value = v / 255;
    const pos = l >= 0 ? 2 * (1 - l) * (value - 1) + 1 : 2 * (1 + l) * value - 1;
    const out = color.map((c) => (pos < 0 ? c * (1 + pos) : c + (1 - c) * pos));
    const [r, g, b] = out.map((c) => Math.round(Math.min(1, Math.max(0, c)) * 255));
    table[v] = (b! << 16) | (g! << 8) | r!;
  }
  return wordKernel((src, dst, from, to) => {
    for (let p = from; p < to; p++) {
      const v = src[p]!;
      const r = v & 255;
      const g = (v >>> 8) & 255;
      const b = (v >>> 16) & 255;
      // The brightness is HSL's lightness: HSV's value is 48 levels off the file on average, luminance 11.
      const bright = (Math.max(r, g, b) + Math.min(r, g, b) + 1) >> 1;
      dst[p] = (v & 0xff000000) | table[bright]!;
    }
  });
}
