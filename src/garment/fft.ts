/**
 * Linear autocorrelation of real images through fft.js (radix-4, real-input transforms). The image is real, so
 * only half of each row's spectrum is kept (Hermitian symmetry), only the image's own rows are transformed (the
 * zero padding below them transforms to zero), and only the lag rows the caller reads are transformed back.
 */
import FFT from 'fft.js';

/** The smallest power of two ≥ n (and ≥ 2, fft.js's smallest size). */
export function nextPow2(n: number): number {
  let p = 2;
  while (p < n) p <<= 1;
  return p;
}

const plans = new Map<number, FFT>();

/** fft.js precomputes its twiddle table per size: one instance per size, kept. */
function plan(n: number): FFT {
  let p = plans.get(n);
  if (!p) {
    p = new FFT(n);
    plans.set(n, p);
  }
  return p;
}

/**
 * Linear (not circular) autocorrelation of a real `w × h` image zero-padded to `nx × ny` (powers of two, with
 * nx ≥ w + the largest |dx| wanted and ny ≥ h + the largest dy wanted). Returns the lag rows dy = 0..rows − 1,
 * each `nx` long: out[dy · nx + (dx mod nx)] = Σ v(p) · v(p + (dx, dy)). Negative dy are the same values
 * mirrored: A(−dx, −dy) = A(dx, dy).
 */
export function autocorrelate(
  values: Float64Array,
  w: number,
  h: number,
  nx: number,
  ny: number,
  rows: number,
): Float64Array {
  return crossCorrelate(values, values, w, h, nx, ny, rows);
}

/** The half spectrum of every row of `values`, stored by column (kx), each column ny complex values interleaved. */
function rowSpectra(values: Float64Array, w: number, h: number, nx: number, ny: number): Float64Array {
  const half = nx / 2 + 1;
  const rowFft = plan(nx);
  const cols = new Float64Array(half * ny * 2);
  const rowIn = new Float64Array(nx);
  const rowOut = new Float64Array(2 * nx);
  for (let y = 0; y < h; y++) {
    rowIn.set(values.subarray(y * w, y * w + w));
    rowFft.realTransform(rowOut, rowIn);
    for (let kx = 0; kx < half; kx++) {
      const o = (kx * ny + y) * 2;
      cols[o] = rowOut[2 * kx]!;
      cols[o + 1] = rowOut[2 * kx + 1]!;
    }
  }
  return cols;
}

/**
 * The same for two images: out[dy · nx + (dx mod nx)] = Σ a(p) · b(p + (dx, dy)), for dy = 0..rows − 1. The
 * rows of negative dy are crossCorrelate(b, a)'s, mirrored. With b = a, autocorrelate.
 */
export function crossCorrelate(
  a: Float64Array,
  b: Float64Array,
  w: number,
  h: number,
  nx: number,
  ny: number,
  rows: number,
): Float64Array {
  if (w > nx || h > ny || rows > ny) throw new Error(`crossCorrelate: ${w}×${h} does not fit ${nx}×${ny}`);
  const half = nx / 2 + 1;
  const rowFft = plan(nx);
  const colFft = plan(ny);
  const cols = rowSpectra(a, w, h, nx, ny);
  const other = b === a ? null : rowSpectra(b, w, h, nx, ny);
  // Down each column: forward, conj(A)·B (the power spectrum for one image, real), back.
  const colOut = new Float64Array(2 * ny);
  const otherOut = new Float64Array(2 * ny);
  const product = new Float64Array(2 * ny);
  for (let kx = 0; kx < half; kx++) {
    const col = cols.subarray(kx * ny * 2, (kx + 1) * ny * 2);
    colFft.transform(colOut, col);
    if (other) {
      colFft.transform(otherOut, other.subarray(kx * ny * 2, (kx + 1) * ny * 2));
      for (let k = 0; k < ny; k++) {
        const [ar, ai, br, bi] = [colOut[2 * k]!, colOut[2 * k + 1]!, otherOut[2 * k]!, otherOut[2 * k + 1]!];
        product[2 * k] = ar * br + ai * bi;
        product[2 * k + 1] = ar * bi - ai * br;
      }
    } else {
      for (let k = 0; k < ny; k++) product[2 * k] = colOut[2 * k]! ** 2 + colOut[2 * k + 1]! ** 2;
    }
    colFft.inverseTransform(col, product);
  }
  // Along the rows wanted: rebuild the full row spectrum from its half (X(nx − k) = conj X(k)), back to real.
  const out = new Float64Array(rows * nx);
  const full = new Float64Array(2 * nx);
  const back = new Float64Array(2 * nx);
  for (let dy = 0; dy < rows; dy++) {
    for (let kx = 0; kx < half; kx++) {
      const o = (kx * ny + dy) * 2;
      full[2 * kx] = cols[o]!;
      full[2 * kx + 1] = cols[o + 1]!;
    }
    for (let kx = 1; kx < nx / 2; kx++) {
      full[2 * (nx - kx)] = full[2 * kx]!;
      full[2 * (nx - kx) + 1] = -full[2 * kx + 1]!;
    }
    rowFft.inverseTransform(back, full);
    for (let x = 0; x < nx; x++) out[dy * nx + x] = back[2 * x]!;
  }
  return out;
}
