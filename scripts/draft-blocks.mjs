/**
 * Geometry helpers, blocks (a bodice half, a sleeve half) and the sizes shared by the drafted garments
 * (scripts/draft-garments.mjs and the design files it gathers). Seam lines in mm, y down.
 */
export const SA = 10;
export const DP_MM = 0.8;

// --- geometry helpers -------------------------------------------------------------------------------------

/** Quadratic Bézier from a via control c to b, without its first point. */
export function quad(a, c, b, n = 16) {
  const out = [];
  for (let i = 1; i <= n; i++) {
    const t = i / n;
    const u = 1 - t;
    out.push([
      u * u * a[0] + 2 * u * t * c[0] + t * t * b[0],
      u * u * a[1] + 2 * u * t * c[1] + t * t * b[1],
    ]);
  }
  return out;
}

/** Cubic Bézier a → b with controls c1, c2, without its first point. */
export function cubic(a, c1, c2, b, n = 24) {
  const out = [];
  for (let i = 1; i <= n; i++) {
    const t = i / n;
    const u = 1 - t;
    out.push([
      u * u * u * a[0] + 3 * u * u * t * c1[0] + 3 * u * t * t * c2[0] + t * t * t * b[0],
      u * u * u * a[1] + 3 * u * u * t * c1[1] + 3 * u * t * t * c2[1] + t * t * t * b[1],
    ]);
  }
  return out;
}

/** A path of segments: points and curves, each continuing from the last point. */
export function path(start, ...segments) {
  const pts = [start];
  for (const s of segments) {
    const last = pts.at(-1);
    if (s.q) pts.push(...quad(last, s.q, s.to));
    else if (s.c) pts.push(...cubic(last, s.c[0], s.c[1], s.to));
    else pts.push(s);
  }
  return pts;
}

/**
 * A half drafted from the centre line x = 0 (first and last point on it) → the full, symmetric piece.
 */
export function mirrorHalf(half) {
  const other = half
    .slice(1, -1)
    .reverse()
    .map(([x, y]) => [-x, y]);
  return half.concat(other);
}

export const rect = (w, h) => [
  [0, 0],
  [w, 0],
  [w, h],
  [0, h],
];

/** Douglas–Peucker on a closed ring. */
export function simplify(poly, tol) {
  const dp = (pts) => {
    if (pts.length < 3) return pts;
    const [a, b] = [pts[0], pts.at(-1)];
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const len = Math.hypot(dx, dy) || 1;
    let best = -1;
    let at = 0;
    for (let k = 1; k < pts.length - 1; k++) {
      const d = Math.abs((pts[k][0] - a[0]) * dy - (pts[k][1] - a[1]) * dx) / len;
      if (d > best) {
        best = d;
        at = k;
      }
    }
    if (best <= tol) return [a, b];
    return dp(pts.slice(0, at + 1)).concat(dp(pts.slice(at)).slice(1));
  };
  // Split the ring at its two farthest-apart points (first point and the one farthest from it).
  let far = 0;
  let fd = -1;
  for (let k = 0; k < poly.length; k++) {
    const d = Math.hypot(poly[k][0] - poly[0][0], poly[k][1] - poly[0][1]);
    if (d > fd) {
      fd = d;
      far = k;
    }
  }
  const a = dp(poly.slice(0, far + 1));
  const b = dp(poly.slice(far).concat([poly[0]]));
  return a.concat(b.slice(1, -1));
}

export const round = (v) => Math.round(v * 10) / 10;

export function piece(name, label, zh, en, cut, poly) {
  const dedup = poly.filter(
    (p, i) => i === 0 || Math.hypot(p[0] - poly[i - 1][0], p[1] - poly[i - 1][1]) > 1e-6,
  );
  const s = simplify(dedup, DP_MM);
  const xs = s.map((p) => p[0]);
  const ys = s.map((p) => p[1]);
  const x0 = Math.min(...xs);
  const y0 = Math.min(...ys);
  return {
    name,
    label,
    zh,
    en,
    cut,
    onFold: false,
    grainDeg: 90,
    widthMm: round(Math.max(...xs) - x0),
    heightMm: round(Math.max(...ys) - y0),
    poly: s.map(([x, y]) => [round(x - x0), round(y - y0)]),
  };
}

// --- blocks -----------------------------------------------------------------------------------------------

/** A pocket bag w wide: straight sides `side` deep, a bottom rounded down to `bottom` at x = mid. */
export function pocketBag(w, side, bottom, mid) {
  return path(
    [0, 0],
    [w, 0],
    [w, side],
    { q: [w, bottom - 5], to: [mid, bottom] },
    { q: [0, bottom - 5], to: [0, side] },
  );
}

/**
 * Half a bodice from the centre: neckline (width nw, depth nd), shoulder to (sw, sd), armhole down to the
 * side at (hw, ad), side seam to the hem at length len (flare outwards), hem (curved up by `tail` at the side).
 */
export function bodiceHalf({ hw, len, sw, sd, nw, nd, ad, flare = 0, tail = 0 }) {
  return path(
    [0, nd],
    { q: [nw * 0.9, nd], to: [nw, 0] },
    [sw, sd],
    {
      c: [
        [sw - 12, sd + (ad - sd) * 0.55],
        [sw + (hw - sw) * 0.2, ad - 5],
      ],
      to: [hw, ad],
    },
    [hw + flare, len - tail],
    { q: [hw * 0.6, len], to: [0, len] },
  );
}

/** Half a sleeve from the cap's top: cap height ch, half bicep bw, length sl, half wrist ww. */
export function sleeveHalf({ ch, bw, sl, ww }) {
  return path(
    [0, 0],
    {
      c: [
        [bw * 0.45, 0],
        [bw * 0.7, ch * 0.85],
      ],
      to: [bw, ch],
    },
    [ww, sl],
    [0, sl],
  );
}

/** Sizes and proportions: girth scale, length scale, and a shape variation per size. */
export const SIZES = [
  { id: 'S', g: 0.9, l: 0.94, v: 0 },
  { id: 'M', g: 1.0, l: 1.0, v: 1 },
  { id: 'L', g: 1.1, l: 1.03, v: 2 },
  { id: 'XL-long', g: 1.2, l: 1.12, v: 3 },
];
