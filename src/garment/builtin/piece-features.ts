/**
 * Shape features of a cut piece that do not depend on how the marker turned it: computed on a proxy of the
 * piece's mask (≤ 128 px on its long side, so a whole marker stays under 1 Mpx whatever its DPI) and
 * unchanged, within rasterisation noise, by rotations of 90°/180°/270° and by mirroring. Nothing here knows
 * which edge is "up": a neckline is found as the deepest notch cut into the convex hull on the piece's axis of
 * symmetry, wherever that axis points.
 */

import { convexHull, polygonArea, signedArea } from '../hull.js';

/** A piece's mask resampled to at most PROXY_SIDE px on its long side. */
export interface MaskProxy {
  readonly w: number;
  readonly h: number;
  readonly data: Uint8Array;
  /** Full-resolution pixels per proxy pixel. */
  readonly scale: number;
}

export const PROXY_SIDE = 128;

/**
 * Majority vote of 3 × 3 samples per proxy pixel, placed symmetrically in the cell so that a rotated or
 * mirrored mask gives the rotated or mirrored proxy. Reads 9 full-resolution pixels per proxy pixel, never the
 * whole mask.
 */
export function proxyOf(mask: Uint8Array, w: number, h: number, side = PROXY_SIDE): MaskProxy {
  const scale = Math.max(1, Math.max(w, h) / side);
  if (scale === 1) return { w, h, data: mask.slice(), scale };
  const pw = Math.max(1, Math.round(w / scale));
  const ph = Math.max(1, Math.round(h / scale));
  const sx = w / pw;
  const sy = h / ph;
  const data = new Uint8Array(pw * ph);
  // Each proxy pixel votes over a 3 × 3 grid of the mask's pixels: their columns and rows, worked out once.
  const columns = new Int32Array(pw * 3);
  for (let x = 0; x < pw; x++)
    for (let i = 0; i < 3; i++) columns[x * 3 + i] = Math.min(w - 1, Math.floor((x + (i + 0.5) / 3) * sx));
  const rows = new Int32Array(ph * 3);
  for (let y = 0; y < ph; y++)
    for (let j = 0; j < 3; j++) rows[y * 3 + j] = Math.min(h - 1, Math.floor((y + (j + 0.5) / 3) * sy)) * w;
  for (let y = 0; y < ph; y++) {
    const r0 = rows[y * 3]!;
    const r1 = rows[y * 3 + 1]!;
    const r2 = rows[y * 3 + 2]!;
    for (let x = 0; x < pw; x++) {
      const c0 = columns[x * 3]!;
      const c1 = columns[x * 3 + 1]!;
      const c2 = columns[x * 3 + 2]!;
      const votes =
        mask[r0 + c0]! +
        mask[r0 + c1]! +
        mask[r0 + c2]! +
        mask[r1 + c0]! +
        mask[r1 + c1]! +
        mask[r1 + c2]! +
        mask[r2 + c0]! +
        mask[r2 + c1]! +
        mask[r2 + c2]!;
      data[y * pw + x] = votes >= 5 ? 1 : 0;
    }
  }
  return { w: pw, h: ph, data, scale };
}

/** One of the eight ways a marker lays a piece down: turns of 90° and mirror images. */
export interface LayDown {
  /** Width and height swap (a quarter turn). */
  readonly swap: boolean;
  readonly mirror: boolean;
  /** Where the piece's pixel (x, y) lands, the piece being w × h before it is laid down. */
  readonly map: (x: number, y: number, w: number, h: number) => [number, number];
  /** The piece's own pixel that lands at (x, y). */
  readonly inverse: (x: number, y: number, w: number, h: number) => [number, number];
}

/** The quarter turns 0–3 clockwise, then the mirror image turned the same. */
export const LAY_DOWNS: readonly LayDown[] = [
  { swap: false, mirror: false, map: (x, y) => [x, y], inverse: (x, y) => [x, y] },
  {
    swap: true,
    mirror: false,
    map: (x, y, _w, h) => [h - 1 - y, x],
    inverse: (x, y, _w, h) => [y, h - 1 - x],
  },
  {
    swap: false,
    mirror: false,
    map: (x, y, w, h) => [w - 1 - x, h - 1 - y],
    inverse: (x, y, w, h) => [w - 1 - x, h - 1 - y],
  },
  { swap: true, mirror: false, map: (x, y, w) => [y, w - 1 - x], inverse: (x, y, w) => [w - 1 - y, x] },
  { swap: false, mirror: true, map: (x, y, w) => [w - 1 - x, y], inverse: (x, y, w) => [w - 1 - x, y] },
  {
    swap: true,
    mirror: true,
    map: (x, y, w, h) => [h - 1 - y, w - 1 - x],
    inverse: (x, y, w, h) => [w - 1 - y, h - 1 - x],
  },
  {
    swap: false,
    mirror: true,
    map: (x, y, _w, h) => [x, h - 1 - y],
    inverse: (x, y, _w, h) => [x, h - 1 - y],
  },
  { swap: true, mirror: true, map: (x, y) => [y, x], inverse: (x, y) => [y, x] },
];

/** The features of one piece on its own (the garment context is added by piece-model.ts). */
export interface ShapeFeatures {
  /** log of major / minor standard deviation (second moments). */
  readonly elongation: number;
  /** Area over the convex hull's area. */
  readonly solidity: number;
  /** Area over the bounding rectangle's area in the principal frame. */
  readonly rectangularity: number;
  /** 4π·area / perimeter². */
  readonly compactness: number;
  /** Hu moments 1–4, log-scaled (1–4 are unchanged by mirroring; 5–7 are noise at this resolution). */
  readonly hu: readonly number[];
  /** Fourier magnitudes 1–8 of the centroid-distance signature over the mean radius. */
  readonly fourier: readonly number[];
  /**
   * The centroid-distance signature itself (SIGNATURE_BINS angular bins, radius over the mean radius): a quarter turn shifts
   * it by 16 bins and a mirror reverses it, so outlines compare under every turn (piece-model.ts' library).
   */
  readonly signature: readonly number[];
  /**
   * The outline's turning function: the direction of its tangent at SIGNATURE_BINS points equally spaced along
   * the perimeter, less the steady turn of a circle, mean removed (radians). Unlike the signature it sees
   * into concave outlines (a facing's inner curve, a U-shaped band) and places corners by arc length (a band's
   * aspect); a turn of the piece leaves it unchanged but for where it starts, a mirror reverses and negates it.
   */
  readonly turning: readonly number[];
  /** Reflective symmetry (IoU) about the best of the principal and image axes, and about its perpendicular. */
  readonly symmetry: number;
  readonly symmetryCross: number;
  /** Notches cut into the convex hull (armholes, necklines, crotch curves): the three deepest, depth / √area. */
  readonly notchDepth: readonly number[];
  /** Their areas over the piece's area. */
  readonly notchArea: readonly number[];
  /**
   * Depth / √area of the deepest notch centred on the axis of symmetry (a neckline), at most its mean width (a
   * vent is not a neckline), 0 when none.
   */
  readonly axisNotch: number;
  /** Notches deeper than 5 % of √area. */
  readonly notches: number;
  /**
   * For a half (not symmetric, with a long straight edge: a centre front or back cut as two pieces), the
   * neckline of the whole panel it is half of — the piece unfolded about that edge — depth / √(its area);
   * for a symmetric piece its own axisNotch.
   */
  readonly unfoldedNeck: number;
  /** Proxy area, px, and the length of the major axis (4 standard deviations), proxy px. */
  readonly proxyArea: number;
  readonly major: number;
  readonly minor: number;
  /**
   * Straight cut edges across the major axis (more than 60° from it) along which the piece lies flush, proxy
   * px, longest first, at most two: a sleeve's or a leg's hem, a waist, a band's square ends. A band is sewn
   * along such an edge, so its length matches one (a cuff the sleeve's hem, a waistband the waists).
   */
  readonly ends: readonly number[];
}

const FOURIER_TERMS = 8;

/**
 * Below this reflective symmetry a piece may be a half: a bodice half reflected about its own axis still
 * overlaps itself by 0.90–0.95 (a straight centre edge on one side, an armhole on the other).
 */
export const HALF_SYMMETRY = 0.97;

/** The proxy's area and centroid. */
function centroidOf({ w, h, data }: MaskProxy): { m00: number; cx: number; cy: number } {
  let m00 = 0;
  let m10 = 0;
  let m01 = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!data[y * w + x]) continue;
      m00++;
      m10 += x;
      m01 += y;
    }
  }
  if (m00 === 0) throw new Error('empty proxy');
  return { m00, cx: m10 / m00, cy: m01 / m00 };
}

const thousandths = (v: number) => Math.round(v * 1000) / 1000;

/** The centroid-distance signature alone, as shapeFeatures gives it: how a layer lies, without its features. */
export function signatureOf(p: MaskProxy): number[] {
  const { cx, cy } = centroidOf(p);
  return radialSignature(boundaryPoints(p).centres, cx, cy).map(thousandths);
}

export function shapeFeatures(p: MaskProxy, unfold = true): ShapeFeatures {
  const { m00, cx, cy } = centroidOf(p);
  const mu = centralMoments(p, cx, cy);
  const { l1, l2, angle } = principal(mu.u20 / m00, mu.u02 / m00, mu.u11 / m00);
  const edges = perimeterEdges(p);
  const boundary = boundaryPoints(p);
  const hull = convexHull(boundary.corners);
  const signature = radialSignature(boundary.centres, cx, cy);
  const hullArea = polygonArea(hull);
  const axes = [angle, angle + Math.PI / 2, 0, Math.PI / 2];
  const syms = axes.map((a) => reflectIoU(p, cx, cy, a, m00));
  let best = 0;
  for (let k = 1; k < 4; k++) if (syms[k]! > syms[best]!) best = k;
  const bestAxis = axes[best]!;
  const cross = reflectIoU(p, cx, cy, bestAxis + Math.PI / 2, m00);
  const notchList = notchesOf(p, hull, cx, cy, bestAxis, Math.sqrt(m00));
  const sorted = [...notchList].sort((a, b) => b.depth - a.depth);
  const top = (k: number, f: (n: Notch) => number) => (sorted[k] ? f(sorted[k]!) : 0);
  const rootArea = Math.sqrt(m00);
  // A neckline is about as wide as it is deep; a vent or a slit up the centre is deep and a pixel or two wide, so a
  // notch counts as a neckline at most as deep as its mean width (area over depth).
  const axisNotch = Math.max(
    0,
    ...notchList
      .filter((n) => n.onAxis)
      .map((n) => Math.min(n.depth, n.area / Math.max(n.depth, 1)) / rootArea),
  );
  let unfoldedNeck = axisNotch;
  if (unfold && syms[best]! < HALF_SYMMETRY) {
    const whole = bestUnfold(p, hull, 4 * Math.sqrt(l1), angle);
    unfoldedNeck = whole ? shapeFeatures(whole, false).axisNotch : 0;
  }
  return {
    elongation: Math.log(Math.sqrt(l1 / Math.max(l2, 1e-9))),
    solidity: m00 / Math.max(hullArea, 1),
    rectangularity: m00 / Math.max(1, principalBox(boundary.corners, angle)),
    compactness: (4 * Math.PI * m00) / (edges * edges),
    hu: hu(mu, m00),
    fourier: fourierMagnitudes(signature),
    signature: signature.map(thousandths),
    turning: turningFunction(outline(p)).map(thousandths),
    symmetry: syms[best]!,
    symmetryCross: cross,
    notchDepth: [0, 1, 2].map((k) => top(k, (n) => n.depth / rootArea)),
    notchArea: [0, 1, 2].map((k) => top(k, (n) => n.area / m00)),
    axisNotch,
    notches: notchList.filter((n) => n.depth > 0.05 * rootArea).length,
    unfoldedNeck,
    proxyArea: m00,
    major: 4 * Math.sqrt(l1),
    minor: 4 * Math.sqrt(l2),
    ends: flushEdges(p, hull)
      .filter((e) => Math.abs(Math.cos(e.angle - angle)) < 0.5)
      .map((e) => e.length)
      .sort((a, b) => b - a)
      .slice(0, 2),
  };
}

interface Moments {
  readonly u20: number;
  readonly u02: number;
  readonly u11: number;
  readonly u30: number;
  readonly u03: number;
  readonly u21: number;
  readonly u12: number;
}

function centralMoments({ w, h, data }: MaskProxy, cx: number, cy: number): Moments {
  let u20 = 0;
  let u02 = 0;
  let u11 = 0;
  let u30 = 0;
  let u03 = 0;
  let u21 = 0;
  let u12 = 0;
  for (let y = 0; y < h; y++) {
    const dy = y - cy;
    for (let x = 0; x < w; x++) {
      if (!data[y * w + x]) continue;
      const dx = x - cx;
      u20 += dx * dx;
      u02 += dy * dy;
      u11 += dx * dy;
      u30 += dx * dx * dx;
      u03 += dy * dy * dy;
      u21 += dx * dx * dy;
      u12 += dx * dy * dy;
    }
  }
  return { u20, u02, u11, u30, u03, u21, u12 };
}

/** Eigenvalues of the covariance and the major axis' angle. */
function principal(a: number, b: number, c: number): { l1: number; l2: number; angle: number } {
  const mean = (a + b) / 2;
  const diff = Math.sqrt(((a - b) / 2) ** 2 + c * c);
  return { l1: mean + diff, l2: Math.max(0, mean - diff), angle: 0.5 * Math.atan2(2 * c, a - b) };
}

/** Hu's invariants 1–4 as −sign·log10|φ| (scale-normalised central moments). */
function hu(m: Moments, m00: number): number[] {
  const n = (u: number, order: number) => u / m00 ** (1 + order / 2);
  const n20 = n(m.u20, 2);
  const n02 = n(m.u02, 2);
  const n11 = n(m.u11, 2);
  const n30 = n(m.u30, 3);
  const n03 = n(m.u03, 3);
  const n21 = n(m.u21, 3);
  const n12 = n(m.u12, 3);
  const phi = [
    n20 + n02,
    (n20 - n02) ** 2 + 4 * n11 * n11,
    (n30 - 3 * n12) ** 2 + (3 * n21 - n03) ** 2,
    (n30 + n12) ** 2 + (n21 + n03) ** 2,
  ];
  return phi.map((v) => -Math.log10(Math.max(Math.abs(v), 1e-12)));
}

export const inside = ({ w, h, data }: MaskProxy, x: number, y: number) =>
  x >= 0 && y >= 0 && x < w && y < h && data[y * w + x] === 1;

/** Pixel edges between the piece and the outside. */
function perimeterEdges(p: MaskProxy): number {
  let n = 0;
  for (let y = 0; y < p.h; y++) {
    for (let x = 0; x < p.w; x++) {
      if (!inside(p, x, y)) continue;
      if (!inside(p, x - 1, y)) n++;
      if (!inside(p, x + 1, y)) n++;
      if (!inside(p, x, y - 1)) n++;
      if (!inside(p, x, y + 1)) n++;
    }
  }
  return n;
}

/** Centres of the boundary pixels, and the corners of the boundary pixels (for the hull). */
function boundaryPoints(p: MaskProxy): { centres: [number, number][]; corners: [number, number][] } {
  const centres: [number, number][] = [];
  const corners: [number, number][] = [];
  for (let y = 0; y < p.h; y++) {
    for (let x = 0; x < p.w; x++) {
      if (!inside(p, x, y)) continue;
      if (inside(p, x - 1, y) && inside(p, x + 1, y) && inside(p, x, y - 1) && inside(p, x, y + 1)) continue;
      centres.push([x, y]);
      corners.push([x - 0.5, y - 0.5], [x + 0.5, y - 0.5], [x + 0.5, y + 0.5], [x - 0.5, y + 0.5]);
    }
  }
  return { centres, corners };
}

/** Directions on the pixel grid, y down: right, down, left, up (a right turn is +1). */
const DX = [1, 0, -1, 0];
const DY = [0, 1, 0, -1];

/**
 * The outer outline of the piece's largest 4-connected region (a stray speck elsewhere in the layer is not
 * its outline) as the ordered corners of the pixel edges between the piece and the outside, walked with the
 * piece on the right (clockwise on screen) from the region's first pixel in reading order. Pixels touching the
 * region only at a corner are walked round as well.
 */
export function outline(p: MaskProxy): [number, number][] {
  const start = largestRegionStart(p);
  if (start < 0) return [];
  const x0 = start % p.w;
  const y0 = Math.floor(start / p.w);
  const path: [number, number][] = [];
  let x = x0;
  let y = y0;
  let d = 0;
  do {
    path.push([x, y]);
    x += DX[d]!;
    y += DY[d]!;
    // Turn towards the piece when the pixel ahead-left of the vertex reached is in it, away when neither is.
    if (pixelAt(p, x, y, (d + 3) % 4, d)) d = (d + 3) % 4;
    else if (!pixelAt(p, x, y, (d + 1) % 4, d)) d = (d + 1) % 4;
  } while ((x !== x0 || y !== y0 || d !== 0) && path.length <= 4 * (p.w + 1) * (p.h + 1));
  return path;
}

/** The first pixel, in reading order, of the largest 4-connected region; -1 when the mask is empty. */
function largestRegionStart(p: MaskProxy): number {
  const seen = new Uint8Array(p.w * p.h);
  const stack: number[] = [];
  let best = -1;
  let bestSize = 0;
  for (let k = 0; k < seen.length; k++) {
    if (!p.data[k] || seen[k]) continue;
    // Reading order: k is the region's first pixel.
    let size = 0;
    seen[k] = 1;
    stack.push(k);
    while (stack.length) {
      const i = stack.pop()!;
      size++;
      const x = i % p.w;
      for (const j of [i - p.w, i + p.w, x > 0 ? i - 1 : -1, x < p.w - 1 ? i + 1 : -1]) {
        if (j < 0 || j >= seen.length || seen[j] || !p.data[j]) continue;
        seen[j] = 1;
        stack.push(j);
      }
    }
    if (size > bestSize) {
      best = k;
      bestSize = size;
    }
  }
  return best;
}

/** Whether the pixel beside vertex (x, y), on side `side` and ahead in direction `ahead`, is in the piece. */
function pixelAt(p: MaskProxy, x: number, y: number, side: number, ahead: number): boolean {
  // A vertex (x, y) touches pixels (x-1|x, y-1|y); half a pixel towards `ahead` and `side` picks one.
  const px = x + (DX[ahead]! + DX[side]! > 0 ? 0 : -1);
  const py = y + (DY[ahead]! + DY[side]! > 0 ? 0 : -1);
  return inside(p, px, py);
}

/** Span of the tangent's chord, in samples either side: smooths the pixel staircase. */
const TANGENT_SPAN = 2;

/** The turning function of an outline (see ShapeFeatures.turning). */
export function turningFunction(path: readonly [number, number][]): number[] {
  const n = SIGNATURE_BINS;
  if (path.length < 4) return new Array<number>(n).fill(0);
  const cum = [0];
  for (let k = 1; k <= path.length; k++) {
    const a = path[k - 1]!;
    const b = path[k % path.length]!;
    cum.push(cum[k - 1]! + Math.hypot(b[0] - a[0], b[1] - a[1]));
  }
  const total = cum[path.length]!;
  const at = (s: number): [number, number] => {
    const t = ((s % total) + total) % total;
    let lo = 0;
    let hi = path.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! <= t) lo = mid;
      else hi = mid;
    }
    const a = path[lo]!;
    const b = path[(lo + 1) % path.length]!;
    const f = (t - cum[lo]!) / Math.max(cum[lo + 1]! - cum[lo]!, 1e-9);
    return [a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])];
  };
  const step = total / n;
  const out: number[] = [];
  let prev = 0;
  for (let k = 0; k < n; k++) {
    const [ax, ay] = at((k - TANGENT_SPAN) * step);
    const [bx, by] = at((k + TANGENT_SPAN) * step);
    let a = Math.atan2(by - ay, bx - ax);
    if (k > 0) a += 2 * Math.PI * Math.round((prev - a) / (2 * Math.PI));
    prev = a;
    out.push(a - (2 * Math.PI * k) / n);
  }
  const mean = out.reduce((s, v) => s + v, 0) / n;
  return out.map((v) => v - mean);
}

/** Area of the bounding rectangle aligned with the principal axes. */
function principalBox(points: readonly [number, number][], angle: number): number {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  let u0 = Infinity;
  let u1 = -Infinity;
  let v0 = Infinity;
  let v1 = -Infinity;
  for (const [x, y] of points) {
    const u = x * c + y * s;
    const v = -x * s + y * c;
    u0 = Math.min(u0, u);
    u1 = Math.max(u1, u);
    v0 = Math.min(v0, v);
    v1 = Math.max(v1, v);
  }
  return (u1 - u0) * (v1 - v0);
}

/** IoU of the mask with its reflection about the line through (cx, cy) at `angle`. */
function reflectIoU(p: MaskProxy, cx: number, cy: number, angle: number, area: number): number {
  const c = Math.cos(2 * angle);
  const s = Math.sin(2 * angle);
  let hit = 0;
  for (let y = 0; y < p.h; y++) {
    for (let x = 0; x < p.w; x++) {
      if (!p.data[y * p.w + x]) continue;
      const dx = x - cx;
      const dy = y - cy;
      if (inside(p, Math.round(cx + dx * c + dy * s), Math.round(cy + dx * s - dy * c))) hit++;
    }
  }
  return hit / (2 * area - hit);
}

/** Angular bins of a piece's centroid-distance signature. */
export const SIGNATURE_BINS = 64;

/**
 * The centroid-distance signature: the farthest boundary pixel per angular bin (gaps interpolated), over the
 * mean radius.
 */
function radialSignature(points: readonly [number, number][], cx: number, cy: number): number[] {
  const bins = SIGNATURE_BINS;
  const r = new Float64Array(bins).fill(-1);
  for (const [x, y] of points) {
    const a = Math.atan2(y - cy, x - cx);
    const k = Math.min(bins - 1, Math.floor(((a + Math.PI) / (2 * Math.PI)) * bins));
    r[k] = Math.max(r[k]!, Math.hypot(x - cx, y - cy));
  }
  for (let k = 0; k < bins; k++) {
    if (r[k]! >= 0) continue;
    let a = 1;
    while (r[(k - a + bins) % bins]! < 0 && a < bins) a++;
    let b = 1;
    while (r[(k + b) % bins]! < 0 && b < bins) b++;
    const ra = r[(k - a + bins) % bins]!;
    const rb = r[(k + b) % bins]!;
    r[k] = ra < 0 || rb < 0 ? 0 : (ra * b + rb * a) / (a + b);
  }
  let mean = 0;
  for (const v of r) mean += v;
  mean /= bins;
  return Array.from(r, (v) => v / Math.max(mean, 1e-9));
}

const COS = Float64Array.from({ length: SIGNATURE_BINS }, (_, j) =>
  Math.cos((2 * Math.PI * j) / SIGNATURE_BINS),
);
const SIN = Float64Array.from({ length: SIGNATURE_BINS }, (_, j) =>
  Math.sin((2 * Math.PI * j) / SIGNATURE_BINS),
);

/**
 * Magnitudes of a signature's discrete Fourier transform, terms 0…n/2 (a real signal's others mirror them): a
 * rotation shifts the signature and a mirror reverses it, neither changes them.
 */
export function signatureSpectrum(r: ArrayLike<number>): Float64Array {
  const n = SIGNATURE_BINS;
  const out = new Float64Array(n / 2 + 1);
  for (let f = 0; f <= n / 2; f++) {
    let re = 0;
    let im = 0;
    for (let k = 0; k < n; k++) {
      const j = (f * k) % n;
      re += r[k]! * COS[j]!;
      im -= r[k]! * SIN[j]!;
    }
    out[f] = Math.hypot(re, im);
  }
  return out;
}

/** Terms 1–8 of the spectrum over the bins (the signature is over its mean already). */
function fourierMagnitudes(r: readonly number[]): number[] {
  return [...signatureSpectrum(r).subarray(1, FOURIER_TERMS + 1)].map((v) => v / SIGNATURE_BINS);
}

interface Notch {
  readonly area: number;
  readonly depth: number;
  /** Its centre lies on the axis of symmetry (within 6 % of √area). */
  readonly onAxis: boolean;
}

/**
 * The regions between the piece and its convex hull, as 4-connected components: area, depth (the farthest
 * pixel from the hull's edge) and whether the region is centred on the axis of symmetry.
 */
function notchesOf(
  p: MaskProxy,
  hull: readonly [number, number][],
  cx: number,
  cy: number,
  axis: number,
  rootArea: number,
): Notch[] {
  const { w, h } = p;
  if (hull.length < 3) return [];
  // Hull edges as inward-facing half-planes; the sign follows the hull's winding.
  const orient = Math.sign(signedArea(hull)) || 1;
  const edges = hull.map((a, i) => {
    const b = hull[(i + 1) % hull.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
    return { a, nx: (-(b[1] - a[1]) / len) * orient, ny: ((b[0] - a[0]) / len) * orient };
  });
  const depthAt = (x: number, y: number) => {
    let d = Infinity;
    for (const e of edges) d = Math.min(d, (x - e.a[0]) * e.nx + (y - e.a[1]) * e.ny);
    return d;
  };
  const gap = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) if (!p.data[y * w + x] && depthAt(x, y) > 0) gap[y * w + x] = 1;
  const seen = new Uint8Array(w * h);
  const out: Notch[] = [];
  const ax = Math.cos(axis);
  const ay = Math.sin(axis);
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (!gap[start] || seen[start]) continue;
    seen[start] = 1;
    stack.push(start);
    let area = 0;
    let depth = 0;
    let sx = 0;
    let sy = 0;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      area++;
      sx += x;
      sy += y;
      depth = Math.max(depth, depthAt(x, y));
      for (const [nx, ny] of [
        [x - 1, y],
        [x + 1, y],
        [x, y - 1],
        [x, y + 1],
      ] as const) {
        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
        const j = ny * w + nx;
        if (gap[j] && !seen[j]) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    const mx = sx / area - cx;
    const my = sy / area - cy;
    out.push({ area, depth, onAxis: Math.abs(-mx * ay + my * ax) <= 0.06 * rootArea });
  }
  return out;
}

/** Share of a hull edge the piece must touch to count as cut straight there (a hem with a slit or pleat does). */
const FLUSH = 0.6;

/**
 * The convex hull's edges merged where they run on within 4° of each other (a straight cut edge that the
 * pixel staircase split), kept when the piece lies flush along at least FLUSH of them.
 */
function flushEdges(p: MaskProxy, hull: readonly [number, number][]): { length: number; angle: number }[] {
  const n = hull.length;
  if (n < 3) return [];
  const dir = (i: number) => {
    const a = hull[i % n]!;
    const b = hull[(i + 1) % n]!;
    return Math.atan2(b[1] - a[1], b[0] - a[0]);
  };
  const turn = (i: number) =>
    Math.abs(Math.atan2(Math.sin(dir(i + 1) - dir(i)), Math.cos(dir(i + 1) - dir(i))));
  const bend = 4 * (Math.PI / 180);
  // Start at a real corner so that no straight run is cut in two by the loop's start.
  let start = 0;
  while (start < n && turn(start + n - 1) < bend) start++;
  if (start === n) return [];
  const orient = Math.sign(signedArea(hull)) || 1;
  const out: { length: number; angle: number }[] = [];
  for (let i = start; i < start + n; ) {
    let j = i + 1;
    while (j < start + n && turn(j - 1) < bend) j++;
    const a = hull[i % n]!;
    const b = hull[j % n]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len >= 3) {
      const along = flushAlong(p, a, b, orient);
      const on = along.filter(Boolean).length;
      if (along.length && on / along.length >= FLUSH)
        out.push({ length: len, angle: Math.atan2(b[1] - a[1], b[0] - a[0]) });
    }
    i = j;
  }
  return out;
}

/**
 * Whether the piece lies under each point 0.8 px inside the hull edge a→b, every 0.5 px along it (the hull runs
 * along the boundary pixels' outer corners). `orient` is the sign of the hull's signed area.
 */
function flushAlong(
  p: MaskProxy,
  a: readonly [number, number],
  b: readonly [number, number],
  orient: number,
): boolean[] {
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
  const nx = (-(b[1] - a[1]) / len) * orient;
  const ny = ((b[0] - a[0]) / len) * orient;
  const out: boolean[] = [];
  for (let t = 0.5; t < len; t += 0.5)
    out.push(
      inside(
        p,
        Math.round(a[0] + ((b[0] - a[0]) * t) / len + nx * 0.8),
        Math.round(a[1] + ((b[1] - a[1]) * t) / len + ny * 0.8),
      ),
    );
  return out;
}

type Line = { readonly a: [number, number]; readonly b: [number, number] };

/**
 * The edges of the convex hull (merged where the pixel staircase split a straight line) along which the piece
 * runs flush for at least 30 % of the major axis: where a half may have its centre front or back. The longest
 * flush run counts, not the share of the hull edge: a neckline or a hem curve may cut into one end of it.
 */
function straightEdges(p: MaskProxy, hull: readonly [number, number][], major: number): Line[] {
  const merged = mergeCollinear(hull, (6 * Math.PI) / 180);
  const orient = Math.sign(signedArea(merged)) || 1;
  const out: Line[] = [];
  for (let i = 0; i < merged.length; i++) {
    const a = merged[i]!;
    const b = merged[(i + 1) % merged.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len <= 0.3 * major) continue;
    let run = 0;
    let gap = 0;
    let longest = 0;
    for (const on of flushAlong(p, a, b, orient)) {
      if (on) {
        run += 0.5 + gap;
        gap = 0;
      } else {
        gap += 0.5;
        // A gap of a pixel or two is the staircase of a slightly tilted edge; a longer one ends the run.
        if (gap > 1.5) {
          run = 0;
          gap = 0;
        }
      }
      longest = Math.max(longest, run);
    }
    if (longest > 0.3 * major) out.push({ a, b });
  }
  return out;
}

/** The hull with vertices whose turn is under `angle` removed: a straight edge's pixel staircase is one edge. */
function mergeCollinear(hull: readonly [number, number][], angle: number): [number, number][] {
  const out = [...hull];
  const turn = (i: number) => {
    const a = out[(i - 1 + out.length) % out.length]!;
    const b = out[i]!;
    const c = out[(i + 1) % out.length]!;
    return Math.abs(
      Math.atan2(
        (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]),
        (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]),
      ),
    );
  };
  while (out.length > 3) {
    let flattest = -1;
    let least = angle;
    for (let i = 0; i < out.length; i++) {
      const t = turn(i);
      if (t < least) {
        least = t;
        flattest = i;
      }
    }
    if (flattest < 0) break;
    out.splice(flattest, 1);
  }
  return out;
}

/**
 * A half unfolded into its whole panel: of the straight edges running along the piece's long axis (a centre
 * front or back does, so does a side seam; a hem runs across), the one giving the most convex panel — a
 * side seam unfolds into a panel with the armholes and waist shaping cut into its middle.
 */
function bestUnfold(
  p: MaskProxy,
  hull: readonly [number, number][],
  major: number,
  axis: number,
): MaskProxy | null {
  const all = straightEdges(p, hull, major);
  const along = all.filter((l) => {
    const a = Math.atan2(l.b[1] - l.a[1], l.b[0] - l.a[0]) - axis;
    return Math.abs(Math.cos(a)) >= Math.cos(Math.PI / 6);
  });
  let best: MaskProxy | null = null;
  let bestSolidity = -1;
  for (const line of along.length ? along : all) {
    const whole = unfoldAbout(p, line);
    let area = 0;
    for (const v of whole.data) area += v;
    const solidity = area / Math.max(1, polygonArea(convexHull(boundaryPoints(whole).corners)));
    if (solidity > bestSolidity) {
      bestSolidity = solidity;
      best = whole;
    }
  }
  return best;
}

/** The piece and its mirror image about `line`, as one mask (a half unfolded into the whole panel). */
function unfoldAbout(p: MaskProxy, line: Line): MaskProxy {
  const dx = line.b[0] - line.a[0];
  const dy = line.b[1] - line.a[1];
  const len = Math.hypot(dx, dy);
  const ux = dx / len;
  const uy = dy / len;
  const reflect = (x: number, y: number): [number, number] => {
    const t = (x - line.a[0]) * ux + (y - line.a[1]) * uy;
    const px = line.a[0] + t * ux;
    const py = line.a[1] + t * uy;
    return [2 * px - x, 2 * py - y];
  };
  let x0 = 0;
  let y0 = 0;
  let x1 = p.w - 1;
  let y1 = p.h - 1;
  for (const [cx, cy] of [
    [0, 0],
    [p.w - 1, 0],
    [0, p.h - 1],
    [p.w - 1, p.h - 1],
  ] as const) {
    const [rx, ry] = reflect(cx, cy);
    x0 = Math.min(x0, Math.floor(rx));
    y0 = Math.min(y0, Math.floor(ry));
    x1 = Math.max(x1, Math.ceil(rx));
    y1 = Math.max(y1, Math.ceil(ry));
  }
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const sx = x + x0;
      const sy = y + y0;
      const [rx, ry] = reflect(sx, sy);
      if (inside(p, sx, sy) || inside(p, Math.round(rx), Math.round(ry))) data[y * w + x] = 1;
    }
  }
  closeFoldCrack(data, w, h, line, x0, y0, -uy, ux);
  return { w, h, data, scale: p.scale };
}

/**
 * Along the fold the cut edge lies a pixel or two inside the hull's line, so the two sides may not meet: fill
 * the pixels within 3 px of the fold that have the panel on both sides (a one-pixel slit would read as a deep
 * notch on the axis).
 */
function closeFoldCrack(
  data: Uint8Array,
  w: number,
  h: number,
  line: Line,
  x0: number,
  y0: number,
  nx: number,
  ny: number,
): void {
  const at = (x: number, y: number) => {
    const i = Math.round(x);
    const j = Math.round(y);
    return i >= 0 && j >= 0 && i < w && j < h && data[j * w + i] === 1;
  };
  const fill: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (data[y * w + x]) continue;
      if (Math.abs((x + x0 - line.a[0]) * nx + (y + y0 - line.a[1]) * ny) > 3) continue;
      let plus = false;
      let minus = false;
      for (let d = 1; d <= 6 && !(plus && minus); d++) {
        plus ||= at(x + nx * d, y + ny * d);
        minus ||= at(x - nx * d, y - ny * d);
      }
      if (plus && minus) fill.push(y * w + x);
    }
  }
  for (const i of fill) data[i] = 1;
}
