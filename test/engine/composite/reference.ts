/**
 * An independent, deliberately plain implementation of W3C Compositing and Blending Level 1 (straight alpha,
 * source-over) for one pixel, written from the spec's text and research/engine.md §1.1 — not from the
 * production kernels — to check them against.
 */
import type { BlendMode } from '../../../src/engine/model.js';
import type { Px } from './support.js';

type C3 = [number, number, number];

function separable(mode: BlendMode, b: number, s: number): number {
  switch (mode) {
    case 'normal':
    case 'dissolve':
      return s;
    case 'multiply':
      return b * s;
    case 'screen':
      return b + s - b * s;
    case 'overlay':
      return separable('hard light', s, b);
    case 'darken':
      return Math.min(b, s);
    case 'lighten':
      return Math.max(b, s);
    case 'color dodge':
      if (b === 0) return 0;
      if (s === 1) return 1;
      return Math.min(1, b / (1 - s));
    case 'color burn':
      if (b === 1) return 1;
      if (s === 0) return 0;
      return 1 - Math.min(1, (1 - b) / s);
    case 'hard light':
      return s <= 0.5 ? b * (2 * s) : separable('screen', b, 2 * s - 1);
    case 'soft light': {
      if (s <= 0.5) return b - (1 - 2 * s) * b * (1 - b);
      const d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : Math.sqrt(b);
      return b + (2 * s - 1) * (d - b);
    }
    case 'difference':
      return Math.abs(b - s);
    case 'exclusion':
      return b + s - 2 * b * s;
    case 'linear burn':
      return Math.max(0, b + s - 1);
    case 'linear dodge':
      return Math.min(1, b + s);
    case 'subtract':
      return Math.max(0, b - s);
    case 'divide':
      if (b === 0) return 0;
      if (s === 0) return 1;
      return Math.min(1, b / s);
    case 'vivid light':
      if (s === 0) return 0;
      if (s === 1) return 1;
      return s <= 0.5 ? 1 - Math.min(1, (1 - b) / (2 * s)) : Math.min(1, b / (2 * (1 - s)));
    case 'linear light':
      return s <= 0.5 ? Math.max(0, b + 2 * s - 1) : Math.min(1, b + 2 * s - 1);
    case 'pin light':
      return s <= 0.5 ? Math.min(b, 2 * s) : Math.max(b, 2 * s - 1);
    case 'hard mix':
      return b + s > 1 || (b + s === 1 && b > 0.5) ? 1 : 0;
    default:
      throw new Error(`not separable: ${mode}`);
  }
}

const Lum = (c: C3): number => 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];

function ClipColor(c: C3): C3 {
  const l = Lum(c);
  const n = Math.min(...c);
  const x = Math.max(...c);
  let out = c.slice() as C3;
  if (n < 0) out = out.map((v) => l + ((v - l) * l) / (l - n)) as C3;
  if (x > 1) out = out.map((v) => l + ((v - l) * (1 - l)) / (x - l)) as C3;
  return out;
}

function SetLum(c: C3, l: number): C3 {
  const d = l - Lum(c);
  return ClipColor([c[0] + d, c[1] + d, c[2] + d]);
}

const Sat = (c: C3): number => Math.max(...c) - Math.min(...c);

/** The spec's version: sort the channels, name them max/mid/min, rewrite them. */
function SetSat(c: C3, s: number): C3 {
  const idx = [0, 1, 2].sort((i, j) => c[i]! - c[j]!);
  const [iMin, iMid, iMax] = idx as [number, number, number];
  const out: C3 = [0, 0, 0];
  const [min, mid, max] = [c[iMin]!, c[iMid]!, c[iMax]!];
  if (max > min) {
    out[iMid] = ((mid - min) * s) / (max - min);
    out[iMax] = s;
  } else {
    out[iMid] = 0;
    out[iMax] = 0;
  }
  out[iMin] = 0;
  return out;
}

export function blendRef(mode: BlendMode, cb: C3, cs: C3): C3 {
  switch (mode) {
    case 'hue':
      return SetLum(SetSat(cs, Sat(cb)), Lum(cb));
    case 'saturation':
      return SetLum(SetSat(cb, Sat(cs)), Lum(cb));
    case 'color':
      return SetLum(cs, Lum(cb));
    case 'luminosity':
      return SetLum(cb, Lum(cs));
    case 'darker color':
      return Lum(cs) < Lum(cb) ? cs : cb;
    case 'lighter color':
      return Lum(cs) > Lum(cb) ? cs : cb;
    default:
      return [0, 1, 2].map((i) => separable(mode, cb[i]!, cs[i]!)) as C3;
  }
}

/** Source `s` (with extra `opacity`) over backdrop `b`, both straight RGBA8; result straight, unrounded. */
export function compositeRef(mode: BlendMode, b: Px, s: Px, opacity = 1): Px {
  const as = (s[3] / 255) * opacity;
  const ab = b[3] / 255;
  const Cs: C3 = [s[0] / 255, s[1] / 255, s[2] / 255];
  const Cb: C3 = [b[0] / 255, b[1] / 255, b[2] / 255];
  const B = blendRef(mode, Cb, Cs);
  const ao = as + ab * (1 - as);
  if (ao === 0) return [0, 0, 0, 0];
  const co = [0, 1, 2].map((i) => {
    const cr = (1 - ab) * Cs[i]! + ab * B[i]!;
    return as * cr + ab * Cb[i]! * (1 - as);
  });
  return [(co[0]! / ao) * 255, (co[1]! / ao) * 255, (co[2]! / ao) * 255, ao * 255];
}

/** Source-atop with blending (clipped layers): the backdrop's alpha is kept, Co = αs·Cr + (1 − αs)·Cb. */
export function atopRef(mode: BlendMode, b: Px, s: Px, opacity = 1): Px {
  const as = (s[3] / 255) * opacity;
  const ab = b[3] / 255;
  if (ab === 0) return [0, 0, 0, 0];
  const Cs: C3 = [s[0] / 255, s[1] / 255, s[2] / 255];
  const Cb: C3 = [b[0] / 255, b[1] / 255, b[2] / 255];
  const B = blendRef(mode, Cb, Cs);
  const co = [0, 1, 2].map((i) => as * ((1 - ab) * Cs[i]! + ab * B[i]!) + (1 - as) * Cb[i]!);
  return [co[0]! * 255, co[1]! * 255, co[2]! * 255, b[3]];
}
