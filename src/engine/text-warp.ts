/**
 * Photoshop's Arc text warp (文字变形 › 扇形), drawn again after an edit. Photoshop bends the text's box — its
 * lines' advance from the leftmost to the rightmost, from an ascent above the first baseline to a descent below
 * the last (the record's `bounds`) — into a ring sector of `bend` × 180° (100 %: a half circle): the box's inner
 * edge (the bottom for an upward bend, the top for a downward one) becomes an arc through its own two corners, the
 * other edge the concentric arc a box's height further out, each a single cubic Bézier (arcOf). Fitted to
 * Photoshop's own renderings at ±10, ±50 and ±100 % (test/fixtures/photoshop-text: every edge of the ink within
 * 2 px). No library draws Photoshop's warps, so the map is written here; the other 14 styles are not.
 */
import type { Raster } from './model.js';

/** The box a warp bends, text-space pixels. */
export interface WarpBox {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** The linear part of a text's transform about its anchor (canvas order a, b, c, d), or none. */
export interface WarpFrame {
  readonly matrix?: readonly [number, number, number, number];
  readonly anchor: { readonly x: number; readonly y: number };
}

/**
 * The arc's geometry for a box and a bend: the sector's centre (cx, cy), the inner edge's radius r0 and the half
 * angle h, and the edges' shape. Photoshop's warp is one bicubic patch, so each edge is a single cubic Bézier through
 * the box's corners (the usual 4/3·tan(θ/4) handles), not a true arc: along a half circle its letters stand up to 4°
 * nearer the middle than an even spread of the angle would put them, as Photoshop's renderings show. `at(u)` is
 * that curve for radius 1 (u from 0 at the left to 1 at the right; centre-relative, y up).
 */
function arcOf(box: WarpBox, bend: number) {
  const half = (box.right - box.left) / 2;
  const cx = (box.left + box.right) / 2;
  const h = ((Math.abs(bend) / 100) * Math.PI) / 2;
  const r0 = half / Math.sin(h);
  const up = bend > 0;
  const cy = up ? box.bottom + r0 * Math.cos(h) : box.top - r0 * Math.cos(h);
  const k = (4 / 3) * Math.tan(h / 2);
  const [s, c] = [Math.sin(h), Math.cos(h)];
  const px = [-s, -s + k * c, s - k * c, s];
  const py = [c, c + k * s, c + k * s, c];
  const at = (u: number): [number, number] => {
    const v = 1 - u;
    const w = [v * v * v, 3 * v * v * u, 3 * v * u * u, u * u * u];
    return [
      w[0]! * px[0]! + w[1]! * px[1]! + w[2]! * px[2]! + w[3]! * px[3]!,
      w[0]! * py[0]! + w[1]! * py[1]! + w[2]! * py[2]! + w[3]! * py[3]!,
    ];
  };
  return { half, cx, cy, h, r0, up, at };
}

/** Samples of the edge curve for u from −U_PAD to 1 + U_PAD, by angle, to find u from a point's direction. */
const U_PAD = 0.25;
const U_STEPS = 4096;

function inverseOf(at: (u: number) => [number, number]) {
  const us = new Float64Array(U_STEPS + 1);
  const angles = new Float64Array(U_STEPS + 1);
  for (let i = 0; i <= U_STEPS; i++) {
    const u = -U_PAD + ((1 + 2 * U_PAD) * i) / U_STEPS;
    const [x, y] = at(u);
    us[i] = u;
    angles[i] = Math.atan2(x, y);
  }
  /** The u whose curve point lies in direction `angle` (from the vertical, clockwise), or NaN beyond the samples. */
  return (angle: number): number => {
    if (!(angle >= angles[0]! && angle <= angles[U_STEPS]!)) return Number.NaN;
    let lo = 0;
    let hi = U_STEPS;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (angles[mid]! <= angle) lo = mid;
      else hi = mid;
    }
    const span = angles[hi]! - angles[lo]!;
    const t = span > 0 ? (angle - angles[lo]!) / span : 0;
    return us[lo]! + t * (us[hi]! - us[lo]!);
  };
}

/**
 * `flat`, the text drawn unwarped and untransformed, bent by `warp` over `box`, then through the text's transform
 * (one resampling for both, bilinear on premultiplied colour). Uncropped: the bent box's bounds plus a margin.
 */
export function warpRaster(
  flat: Raster,
  box: WarpBox,
  bend: number,
  frame: WarpFrame,
  /** Called with the bent raster's size before it is made: throws to refuse it. */
  check: (w: number, h: number) => void = () => {},
): Raster {
  if (bend === 0 || !(box.right > box.left) || flat.w === 0 || flat.h === 0) return flat;
  const { half, cx, cy, r0, up, at } = arcOf(box, bend);
  const uOf = inverseOf(at);
  const [a, b, c, d] = frame.matrix ?? [1, 0, 0, 1];
  const { x: ax, y: ay } = frame.anchor;
  const det = a * d - b * c;
  /** Text-space point → document point (the transform about the anchor). */
  const out = (x: number, y: number): [number, number] => [
    ax + a * (x - ax) + c * (y - ay),
    ay + b * (x - ax) + d * (y - ay),
  ];
  /** Flat (unwarped) point → warped text-space point. */
  const bent = (x: number, y: number): [number, number] => {
    const [ux, uy] = at((x - box.left) / (2 * half));
    const rho = r0 + (up ? box.bottom - y : y - box.top);
    return [cx + rho * ux, up ? cy - rho * uy : cy + rho * uy];
  };
  // The bent raster's bounds: the image of the flat raster's outline (its extremes lie on it).
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const steps = Math.max(8, Math.ceil(Math.max(flat.w, flat.h) / 2));
  for (let k = 0; k <= steps; k++) {
    const t = k / steps;
    for (const [fx, fy] of [
      [flat.x + t * flat.w, flat.y],
      [flat.x + t * flat.w, flat.y + flat.h],
      [flat.x, flat.y + t * flat.h],
      [flat.x + flat.w, flat.y + t * flat.h],
    ] as const) {
      const [px, py] = out(...bent(fx, fy));
      x0 = Math.min(x0, px);
      y0 = Math.min(y0, py);
      x1 = Math.max(x1, px);
      y1 = Math.max(y1, py);
    }
  }
  const left = Math.floor(x0) - 2;
  const top = Math.floor(y0) - 2;
  const w = Math.ceil(x1) + 2 - left;
  const hgt = Math.ceil(y1) + 2 - top;
  check(w, hgt);
  const data = new Uint8ClampedArray(w * hgt * 4);
  const src = flat.data;
  const px = new Float64Array(4);
  for (let oy = 0; oy < hgt; oy++) {
    for (let ox = 0; ox < w; ox++) {
      // Document pixel centre → text space (the transform undone) → the flat text (the bend undone).
      const dx0 = left + ox + 0.5 - ax;
      const dy0 = top + oy + 0.5 - ay;
      const qx = ax + (d * dx0 - c * dy0) / det;
      const qy = ay + (-b * dx0 + a * dy0) / det;
      const vx = qx - cx;
      const vy = up ? cy - qy : qy - cy;
      const u = uOf(Math.atan2(vx, vy));
      if (Number.isNaN(u)) continue;
      const [ux, uy] = at(u);
      const rho = Math.hypot(vx, vy) / Math.hypot(ux, uy);
      const sx = box.left + u * 2 * half - flat.x - 0.5;
      const sy = (up ? box.bottom - (rho - r0) : box.top + (rho - r0)) - flat.y - 0.5;
      if (!(sx > -1 && sy > -1 && sx < flat.w && sy < flat.h)) continue;
      sampleInto(px, src, flat.w, flat.h, sx, sy);
      const alpha = px[3]!;
      if (alpha <= 0) continue;
      const o = (oy * w + ox) * 4;
      data[o] = px[0]! / alpha;
      data[o + 1] = px[1]! / alpha;
      data[o + 2] = px[2]! / alpha;
      data[o + 3] = alpha;
    }
  }
  return { x: left, y: top, w, h: hgt, data };
}

/** Bilinear sample of straight RGBA at (x, y), pixel centres at integers: premultiplied colour and alpha. */
function sampleInto(out: Float64Array, src: Uint8ClampedArray, w: number, h: number, x: number, y: number) {
  out.fill(0);
  const xi = Math.floor(x);
  const yi = Math.floor(y);
  const fx = x - xi;
  const fy = y - yi;
  for (const [dx, dy, wt] of [
    [0, 0, (1 - fx) * (1 - fy)],
    [1, 0, fx * (1 - fy)],
    [0, 1, (1 - fx) * fy],
    [1, 1, fx * fy],
  ] as const) {
    const sx = xi + dx;
    const sy = yi + dy;
    if (wt === 0 || sx < 0 || sy < 0 || sx >= w || sy >= h) continue;
    const i = (sy * w + sx) * 4;
    const al = src[i + 3]! * wt;
    out[0] = out[0]! + src[i]! * al;
    out[1] = out[1]! + src[i + 1]! * al;
    out[2] = out[2]! + src[i + 2]! * al;
    out[3] = out[3]! + al;
  }
}
