/** A small radix-2 complex FFT (in place, Float64) and the 2-D transform by row and column passes. */

/** The smallest power of two ≥ n. */
export function nextPow2(n: number): number {
  let p = 1;
  while (p < n) p <<= 1;
  return p;
}

/** In-place FFT of length `re.length` (a power of two); `inverse` divides by n. */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (n !== im.length || (n & (n - 1)) !== 0) throw new Error(`FFT length ${n} is not a power of two`);
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const tr = re[i]!;
      re[i] = re[j]!;
      re[j] = tr;
      const ti = im[i]!;
      im[i] = im[j]!;
      im[j] = ti;
    }
  }
  const sign = inverse ? 1 : -1;
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const ang = (sign * 2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < half; k++) {
        const a = i + k;
        const b = a + half;
        const xr = re[b]! * cr - im[b]! * ci;
        const xi = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a] = re[a]! + xr;
        im[a] = im[a]! + xi;
        const nr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = nr;
      }
    }
  }
  if (inverse) {
    for (let i = 0; i < n; i++) {
      re[i] = re[i]! / n;
      im[i] = im[i]! / n;
    }
  }
}

/** In-place 2-D FFT of an `n × n` row-major complex array (`n` a power of two). */
export function fft2(re: Float64Array, im: Float64Array, n: number, inverse = false): void {
  const rr = new Float64Array(n);
  const ri = new Float64Array(n);
  for (let y = 0; y < n; y++) {
    const o = y * n;
    rr.set(re.subarray(o, o + n));
    ri.set(im.subarray(o, o + n));
    fft(rr, ri, inverse);
    re.set(rr, o);
    im.set(ri, o);
  }
  for (let x = 0; x < n; x++) {
    for (let y = 0; y < n; y++) {
      rr[y] = re[y * n + x]!;
      ri[y] = im[y * n + x]!;
    }
    fft(rr, ri, inverse);
    for (let y = 0; y < n; y++) {
      re[y * n + x] = rr[y]!;
      im[y * n + x] = ri[y]!;
    }
  }
}

/**
 * Linear (not circular) autocorrelation of a real `w × h` image, zero-padded to `n × n` (n ≥ w + maxLag, h + maxLag):
 * out[(dy mod n) · n + (dx mod n)] = Σ v(p) · v(p + d).
 */
export function autocorrelate(values: Float64Array, w: number, h: number, n: number): Float64Array {
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  for (let y = 0; y < h; y++) re.set(values.subarray(y * w, y * w + w), y * n);
  fft2(re, im, n);
  for (let i = 0; i < re.length; i++) {
    re[i] = re[i]! * re[i]! + im[i]! * im[i]!;
    im[i] = 0;
  }
  fft2(re, im, n, true);
  return re;
}
