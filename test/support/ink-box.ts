import type { Raster } from '../../src/engine/model.js';

/** The ink box [left, top, right, bottom] of a rendering, document pixels: pixels with alpha over `threshold`. */
export function inkBox(r: Raster, threshold = 128): [number, number, number, number] {
  let l = Infinity;
  let t = Infinity;
  let rr = -Infinity;
  let b = -Infinity;
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < r.w; x++) {
      if (r.data[(y * r.w + x) * 4 + 3]! <= threshold) continue;
      l = Math.min(l, r.x + x);
      t = Math.min(t, r.y + y);
      rr = Math.max(rr, r.x + x + 1);
      b = Math.max(b, r.y + y + 1);
    }
  }
  return [l, t, rr, b];
}
