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
  if (w > nx || h > ny || rows > ny) throw new Error(`autocorrelate: ${w}×${h} does not fit ${nx}×${ny}`);
  const half = nx / 2 + 1;
  const rowFft = plan(nx);
  const colFft = plan(ny);
  // The half spectrum of every row, stored by column (kx), each column ny complex values interleaved.
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
  // Down each column: forward, power spectrum, back (the power spectrum is real).
  const colOut = new Float64Array(2 * ny);
  const power = new Float64Array(2 * ny);
  for (let kx = 0; kx < half; kx++) {
    const col = cols.subarray(kx * ny * 2, (kx + 1) * ny * 2);
    colFft.transform(colOut, col);
    for (let k = 0; k < ny; k++) power[2 * k] = colOut[2 * k]! ** 2 + colOut[2 * k + 1]! ** 2;
    colFft.inverseTransform(col, power);
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
