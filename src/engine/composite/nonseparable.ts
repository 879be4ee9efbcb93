/**
 * Row kernels for the non-separable modes (hue, saturation, color, luminosity; Photoshop's darker/lighter
 * color), which blend the three channels together. Same compositing as `separable.ts`, and one loop per mode
 * for the same reason: the helpers stay monomorphic and inline.
 */
import { lum, sat, setLum, setSat } from './modes.js';
import type { RowKernel } from './separable.js';

const INV255 = 1 / 255;

/** B(Cb, Cs) for the current pixel; module-level so the hot loops allocate nothing. */
const o = new Float64Array(3);

function seed(d: Float32Array, di: number, s: Uint8ClampedArray, si: number, as: number): void {
  const c = as * INV255;
  d[di] = s[si]! * c;
  d[di + 1] = s[si + 1]! * c;
  d[di + 2] = s[si + 2]! * c;
  d[di + 3] = as;
}

function pick(
  out: Float64Array,
  source: boolean,
  sr: number,
  sg: number,
  sb: number,
  br: number,
  bg: number,
  bb: number,
): void {
  out[0] = source ? sr : br;
  out[1] = source ? sg : bg;
  out[2] = source ? sb : bb;
}

export const hueRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
  for (let j = 0; j < n; j++, di += 4, si += 4) {
    let as = s[si + 3]! * k;
    if (cov !== null) as *= cov[j]!;
    if (as === 0) continue;
    const ab = d[di + 3]!;
    if (ab === 0) {
      if (!atop) seed(d, di, s, si, as);
      continue;
    }
    const fa = atop ? ab : 1;
    const ws = fa * as * (1 - ab);
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    const pr = d[di]!;
    const pg = d[di + 1]!;
    const pb = d[di + 2]!;
    const br = pr * ib;
    const bg = pg * ib;
    const bb = pb * ib;
    const sr = s[si]! * INV255;
    const sg = s[si + 1]! * INV255;
    const sb = s[si + 2]! * INV255;
    setSat(o, sr, sg, sb, sat(br, bg, bb));
    setLum(o, o[0]!, o[1]!, o[2]!, lum(br, bg, bb));
    d[di] = ws * sr + wb * o[0]! + wd * pr;
    d[di + 1] = ws * sg + wb * o[1]! + wd * pg;
    d[di + 2] = ws * sb + wb * o[2]! + wd * pb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const saturationRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
  for (let j = 0; j < n; j++, di += 4, si += 4) {
    let as = s[si + 3]! * k;
    if (cov !== null) as *= cov[j]!;
    if (as === 0) continue;
    const ab = d[di + 3]!;
    if (ab === 0) {
      if (!atop) seed(d, di, s, si, as);
      continue;
    }
    const fa = atop ? ab : 1;
    const ws = fa * as * (1 - ab);
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    const pr = d[di]!;
    const pg = d[di + 1]!;
    const pb = d[di + 2]!;
    const br = pr * ib;
    const bg = pg * ib;
    const bb = pb * ib;
    const sr = s[si]! * INV255;
    const sg = s[si + 1]! * INV255;
    const sb = s[si + 2]! * INV255;
    setSat(o, br, bg, bb, sat(sr, sg, sb));
    setLum(o, o[0]!, o[1]!, o[2]!, lum(br, bg, bb));
    d[di] = ws * sr + wb * o[0]! + wd * pr;
    d[di + 1] = ws * sg + wb * o[1]! + wd * pg;
    d[di + 2] = ws * sb + wb * o[2]! + wd * pb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const colorRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
  for (let j = 0; j < n; j++, di += 4, si += 4) {
    let as = s[si + 3]! * k;
    if (cov !== null) as *= cov[j]!;
    if (as === 0) continue;
    const ab = d[di + 3]!;
    if (ab === 0) {
      if (!atop) seed(d, di, s, si, as);
      continue;
    }
    const fa = atop ? ab : 1;
    const ws = fa * as * (1 - ab);
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    const pr = d[di]!;
    const pg = d[di + 1]!;
    const pb = d[di + 2]!;
    const br = pr * ib;
    const bg = pg * ib;
    const bb = pb * ib;
    const sr = s[si]! * INV255;
    const sg = s[si + 1]! * INV255;
    const sb = s[si + 2]! * INV255;
    setLum(o, sr, sg, sb, lum(br, bg, bb));
    d[di] = ws * sr + wb * o[0]! + wd * pr;
    d[di + 1] = ws * sg + wb * o[1]! + wd * pg;
    d[di + 2] = ws * sb + wb * o[2]! + wd * pb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const luminosityRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
  for (let j = 0; j < n; j++, di += 4, si += 4) {
    let as = s[si + 3]! * k;
    if (cov !== null) as *= cov[j]!;
    if (as === 0) continue;
    const ab = d[di + 3]!;
    if (ab === 0) {
      if (!atop) seed(d, di, s, si, as);
      continue;
    }
    const fa = atop ? ab : 1;
    const ws = fa * as * (1 - ab);
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    const pr = d[di]!;
    const pg = d[di + 1]!;
    const pb = d[di + 2]!;
    const br = pr * ib;
    const bg = pg * ib;
    const bb = pb * ib;
    const sr = s[si]! * INV255;
    const sg = s[si + 1]! * INV255;
    const sb = s[si + 2]! * INV255;
    setLum(o, br, bg, bb, lum(sr, sg, sb));
    d[di] = ws * sr + wb * o[0]! + wd * pr;
    d[di + 1] = ws * sg + wb * o[1]! + wd * pg;
    d[di + 2] = ws * sb + wb * o[2]! + wd * pb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const darkerColorRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
  for (let j = 0; j < n; j++, di += 4, si += 4) {
    let as = s[si + 3]! * k;
    if (cov !== null) as *= cov[j]!;
    if (as === 0) continue;
    const ab = d[di + 3]!;
    if (ab === 0) {
      if (!atop) seed(d, di, s, si, as);
      continue;
    }
    const fa = atop ? ab : 1;
    const ws = fa * as * (1 - ab);
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    const pr = d[di]!;
    const pg = d[di + 1]!;
    const pb = d[di + 2]!;
    const br = pr * ib;
    const bg = pg * ib;
    const bb = pb * ib;
    const sr = s[si]! * INV255;
    const sg = s[si + 1]! * INV255;
    const sb = s[si + 2]! * INV255;
    pick(o, lum(sr, sg, sb) < lum(br, bg, bb), sr, sg, sb, br, bg, bb);
    d[di] = ws * sr + wb * o[0]! + wd * pr;
    d[di + 1] = ws * sg + wb * o[1]! + wd * pg;
    d[di + 2] = ws * sb + wb * o[2]! + wd * pb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const lighterColorRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
  for (let j = 0; j < n; j++, di += 4, si += 4) {
    let as = s[si + 3]! * k;
    if (cov !== null) as *= cov[j]!;
    if (as === 0) continue;
    const ab = d[di + 3]!;
    if (ab === 0) {
      if (!atop) seed(d, di, s, si, as);
      continue;
    }
    const fa = atop ? ab : 1;
    const ws = fa * as * (1 - ab);
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    const pr = d[di]!;
    const pg = d[di + 1]!;
    const pb = d[di + 2]!;
    const br = pr * ib;
    const bg = pg * ib;
    const bb = pb * ib;
    const sr = s[si]! * INV255;
    const sg = s[si + 1]! * INV255;
    const sb = s[si + 2]! * INV255;
    pick(o, lum(sr, sg, sb) > lum(br, bg, bb), sr, sg, sb, br, bg, bb);
    d[di] = ws * sr + wb * o[0]! + wd * pr;
    d[di + 1] = ws * sg + wb * o[1]! + wd * pg;
    d[di + 2] = ws * sb + wb * o[2]! + wd * pb;
    d[di + 3] = fa * as + ab * wd;
  }
};
