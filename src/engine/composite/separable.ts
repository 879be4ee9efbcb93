/**
 * Row kernels for the separable blend modes: straight RGBA8 source pixels composited onto a premultiplied float
 * accumulator with W3C source-over (or source-atop, for clipped layers), blending with B(Cb, Cs) from `modes.ts`.
 *
 * Every mode has its own loop on purpose. A shared loop taking B as a callback makes the call site
 * megamorphic once several modes have run, and V8 then stops inlining B: measured 4–6× slower per pixel.
 * With one loop per mode each call to B is monomorphic and inlined. The loops differ only in the function
 * they call: they are written from one template, so edit them all alike.
 *
 * Accumulator layout: r, g, b premultiplied by a, all in 0..1. Per pixel, with αs = src α · k · cov[j]:
 *   co = Fa·αs·((1 − αb)·Cs + αb·B(Cb, Cs)) + (1 − αs)·cb     (cb premultiplied, Cb = cb / αb)
 *   αo = Fa·αs + αb·(1 − αs)
 * where Fa = 1 for source-over and Fa = αb for source-atop (result keeps the backdrop's alpha).
 */
import {
  colorBurn,
  colorDodge,
  darken,
  difference,
  divide,
  exclusion,
  hardLight,
  hardMix,
  lighten,
  linearBurn,
  linearDodge,
  linearLight,
  multiply,
  overlay,
  pinLight,
  screen,
  softLight,
  subtract,
  vividLight,
} from './modes.js';

/**
 * Composites `n` pixels of `src` (straight RGBA8, from byte `si`) onto `acc` (from float `ai`).
 * `k` scales the source alpha byte to the effective 0..1 alpha (opacity / 255); `cov`, when given, holds one
 * more alpha factor per pixel (mask), indexed from 0.
 */
export type RowKernel = (
  acc: Float32Array,
  ai: number,
  src: Uint8ClampedArray,
  si: number,
  n: number,
  k: number,
  cov: Float32Array | null,
  atop: boolean,
) => void;

const INV255 = 1 / 255;

/** The backdrop is empty: source-over copies the source in; source-atop leaves nothing. */
function seed(d: Float32Array, di: number, s: Uint8ClampedArray, si: number, as: number): void {
  const c = as * INV255;
  d[di] = s[si]! * c;
  d[di + 1] = s[si + 1]! * c;
  d[di + 2] = s[si + 2]! * c;
  d[di + 3] = as;
}

/** Normal needs no un-premultiplied backdrop: (1 − αb)·Cs + αb·Cs = Cs. */
export const normalRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
  for (let j = 0; j < n; j++, di += 4, si += 4) {
    let as = s[si + 3]! * k;
    if (cov !== null) as *= cov[j]!;
    if (as === 0) continue;
    if (as === 1 && !atop) {
      // Opaque pixels (most of a typical layer) simply replace the backdrop.
      d[di] = s[si]! * INV255;
      d[di + 1] = s[si + 1]! * INV255;
      d[di + 2] = s[si + 2]! * INV255;
      d[di + 3] = 1;
      continue;
    }
    const ab = d[di + 3]!;
    const fa = atop ? ab : 1;
    const c = fa * as * INV255;
    const w = 1 - as;
    d[di] = s[si]! * c + d[di]! * w;
    d[di + 1] = s[si + 1]! * c + d[di + 1]! * w;
    d[di + 2] = s[si + 2]! * c + d[di + 2]! * w;
    d[di + 3] = fa * as + ab * w;
  }
};

export const multiplyRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * multiply(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * multiply(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * multiply(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const screenRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * screen(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * screen(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * screen(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const overlayRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * overlay(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * overlay(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * overlay(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const darkenRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * darken(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * darken(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * darken(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const lightenRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * lighten(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * lighten(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * lighten(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const colorDodgeRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * colorDodge(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * colorDodge(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * colorDodge(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const colorBurnRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * colorBurn(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * colorBurn(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * colorBurn(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const softLightRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * softLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * softLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * softLight(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const hardLightRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * hardLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * hardLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * hardLight(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const differenceRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * difference(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * difference(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * difference(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const exclusionRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * exclusion(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * exclusion(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * exclusion(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const linearBurnRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * linearBurn(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * linearBurn(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * linearBurn(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const linearDodgeRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * linearDodge(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * linearDodge(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * linearDodge(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const subtractRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * subtract(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * subtract(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * subtract(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const divideRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * divide(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * divide(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * divide(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const vividLightRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * vividLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * vividLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * vividLight(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const linearLightRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * linearLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * linearLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * linearLight(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const pinLightRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * pinLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * pinLight(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * pinLight(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};

export const hardMixRow: RowKernel = (d, di, s, si, n, k, cov, atop) => {
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
    const ws = fa * as * (1 - ab) * INV255;
    const wb = fa * as * ab;
    const wd = 1 - as;
    const ib = 1 / ab;
    let cb = d[di]!;
    let cs = s[si]!;
    d[di] = ws * cs + wb * hardMix(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 1]!;
    cs = s[si + 1]!;
    d[di + 1] = ws * cs + wb * hardMix(cb * ib, cs * INV255) + wd * cb;
    cb = d[di + 2]!;
    cs = s[si + 2]!;
    d[di + 2] = ws * cs + wb * hardMix(cb * ib, cs * INV255) + wd * cb;
    d[di + 3] = fa * as + ab * wd;
  }
};
