/**
 * Whether a piece was traced from a larger one: a facing copies the edge of the piece it faces (a front facing
 * the front's centre front, lapel and shoulder, a neck or armhole facing the neckline or the armhole, a fly facing
 * the trouser front's fly), so laid over that piece it lies inside it with one long stretch of its outline on the
 * piece's outline, turning as that outline turns. A band or a pocket of the same size touches a body piece's
 * outline along a straight edge or into one corner at most, wherever it is put. Both pieces are read at one
 * scale (they share the document's resolution), the smaller one in each of the eight ways a marker can lay it
 * down and at every offset.
 */
import { inside, LAY_DOWNS, type MaskProxy, outline, proxyOf } from './piece-features.js';

/** The larger piece's long side at the common scale, px: a facing's width is then still several pixels. */
export const TRACE_SIDE = 128;
/** Share of the smaller piece's outline that may stick out of the larger one (resampling noise). */
const OUTSIDE = 0.04;
const SPAN = 4;

/** The longest stretch of a piece's outline lying on a larger piece's outline. */
export interface Traced {
  /** Its length over the larger piece's perimeter. */
  readonly length: number;
  /** How far the outline's direction turns along it, radians (max − min of the tangent's angle). */
  readonly turn: number;
}

/**
 * A piece read at the garment's common scale, with what tracing reads of it — its outline as a smaller piece, its
 * inside and outline band as a larger one — each worked out once however many pieces it is compared with.
 */
export class TracePiece {
  private walked?: ReturnType<typeof walk>;
  private hosted?: ReturnType<typeof host>;
  constructor(readonly mask: MaskProxy) {}
  get edge(): ReturnType<typeof walk> {
    this.walked ??= walk(this.mask);
    return this.walked;
  }
  get host(): ReturnType<typeof host> {
    this.hosted ??= host(this.mask);
    return this.hosted;
  }
}

/** A piece's mask read at the garment's common scale (full-resolution px per px). */
export function tracePiece(mask: Uint8Array, w: number, h: number, scale: number): TracePiece {
  return new TracePiece(proxyOf(mask, w, h, Math.max(w, h) / Math.max(1, scale)));
}

/**
 * The piece's outline as its boundary pixels in walking order, with the tangent's angle at each unwrapped from
 * the first (0 there), and the outline's whole turn (±2π): a stretch past the last point goes on from the first
 * with the whole turn added.
 */
function walk(m: MaskProxy): { points: { x: number; y: number; angle: number }[]; whole: number } {
  const path = outline(m);
  const n = path.length;
  if (n < 2 * SPAN + 2) return { points: [], whole: 0 };
  const tangent = (k: number) => {
    const [ax, ay] = path[(k - SPAN + n) % n]!;
    const [bx, by] = path[(k + SPAN) % n]!;
    return Math.atan2(by - ay, bx - ax);
  };
  const turnBetween = (a: number, b: number) => Math.atan2(Math.sin(b - a), Math.cos(b - a));
  let angle = 0;
  const points = path.map(([x, y], k) => {
    if (k) angle += turnBetween(tangent(k - 1), tangent(k));
    const [nx, ny] = path[(k + 1) % n]!;
    // The piece lies on the right of each step (clockwise on screen): the pixel beside the step.
    if (nx > x) return { x, y, angle };
    if (ny > y) return { x: x - 1, y, angle };
    if (nx < x) return { x: x - 1, y: y - 1, angle };
    return { x, y: y - 1, angle };
  });
  return { points, whole: angle + turnBetween(tangent(n - 1), tangent(0)) };
}

/** The larger piece's inside grown by one pixel (containment tolerance) and the band along its outline. */
function host(m: MaskProxy): {
  w: number;
  h: number;
  allowed: Uint8Array;
  band: Uint8Array;
  perimeter: number;
} {
  const w = m.w + 4;
  const h = m.h + 4;
  const allowed = new Uint8Array(w * h);
  const band = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let ins = 0;
      let outs = 0;
      for (let j = -1; j <= 1; j++) {
        for (let i = -1; i <= 1; i++) {
          if (inside(m, x - 2 + i, y - 2 + j)) ins++;
          else outs++;
        }
      }
      if (ins) allowed[y * w + x] = 1;
      if (ins && outs) band[y * w + x] = 1;
    }
  }
  return { w, h, allowed, band, perimeter: outline(m).length };
}

/** The longest circular run of true flags: its start and length. */
function longestRun(on: Uint8Array): { start: number; length: number } {
  const n = on.length;
  const first = on.indexOf(0);
  if (first < 0) return { start: 0, length: n };
  let best = { start: 0, length: 0 };
  let run = 0;
  for (let s = 1; s <= n; s++) {
    const k = (first + s) % n;
    if (on[k]) {
      run++;
      if (run > best.length) best = { start: (k - run + 1 + n) % n, length: run };
    } else run = 0;
  }
  return best;
}

/** 0 … n − 1 in steps of a stride coprime with n near n / φ, so that consecutive visits land far apart. */
function spreadOrder(n: number): Int32Array {
  let stride = Math.max(1, Math.round(n * 0.618));
  while (gcd(stride, n) !== 1) stride++;
  const order = new Int32Array(n);
  for (let r = 0, q = 0; r < n; r++, q = (q + stride) % n) order[r] = q;
  return order;
}

function gcd(a: number, b: number): number {
  return b ? gcd(b, a % b) : a;
}

/**
 * Outline points every `stride` along the outline, stride half of a run longer than `bestRun`: such a run covers
 * two samples in a row, so a placement with no two consecutive samples on the band cannot beat the best so far and
 * need not be checked point by point (most placements lie in the larger piece's inside, off its outline). Null
 * while any run would beat it.
 */
function samplesFor(bestRun: number, n: number): Int32Array | null {
  const stride = (bestRun + 1) >> 1;
  if (stride < 1) return null;
  const samples = new Int32Array(Math.ceil(n / stride));
  for (let k = 0; k < samples.length; k++) samples[k] = k * stride;
  return samples;
}

/** Whether two consecutive samples (circularly: the gap from the last back to the first is at most a stride) lie on the band. */
function mayBeat(samples: Int32Array | null, base: number, at: Int32Array, band: Uint8Array): boolean {
  if (!samples) return true;
  let prev = band[base + at[samples[samples.length - 1]!]!];
  for (let k = 0; k < samples.length; k++) {
    const cur = band[base + at[samples[k]!]!];
    if (cur && prev) return true;
    prev = cur;
  }
  return false;
}

/** Where `piece` lies inside `larger` with the longest stretch of its outline on `larger`'s outline. */
export function tracedOn(piece: TracePiece, larger: TracePiece): Traced {
  const { points: edge, whole } = piece.edge;
  const none: Traced = { length: 0, turn: 0 };
  if (!edge.length) return none;
  const H = larger.host;
  const { w, h } = piece.mask;
  const limit = Math.floor(edge.length * OUTSIDE);
  const on = new Uint8Array(edge.length);
  let best = none;
  let bestRun = 0;
  const n = edge.length;
  // Points visited spread over the outline rather than along it: a placement that sticks out of the larger piece
  // does so along one side, which a walk along the outline would reach last. Every verdict is the same in any order.
  const order = spreadOrder(n);
  const at = new Int32Array(n);
  let samples = samplesFor(bestRun, n);
  for (const lay of LAY_DOWNS) {
    const pw = lay.swap ? h : w;
    const ph = lay.swap ? w : h;
    if (pw > H.w || ph > H.h) continue;
    edge.forEach((p, q) => {
      const [x, y] = lay.map(p.x, p.y, w, h);
      at[q] = y * H.w + x;
    });
    for (let oy = 0; oy + ph <= H.h; oy++) {
      for (let ox = 0; ox + pw <= H.w; ox++) {
        const base = oy * H.w + ox;
        if (!mayBeat(samples, base, at, H.band)) continue;
        let out = 0;
        let count = 0;
        let ok = true;
        for (let r = 0; r < n; r++) {
          const q = order[r]!;
          const i = base + at[q]!;
          if (!H.allowed[i] && ++out > limit) {
            ok = false;
            break;
          }
          on[q] = H.band[i]!;
          count += on[q]!;
          // A placement whose points left could not make a longer stretch is not worth finishing.
          if (count + n - 1 - r <= bestRun) {
            ok = false;
            break;
          }
        }
        if (!ok || count <= bestRun) continue;
        const run = longestRun(on);
        if (run.length <= bestRun) continue;
        bestRun = run.length;
        samples = samplesFor(bestRun, n);
        let lo = Infinity;
        let hi = -Infinity;
        for (let s = 0; s < run.length; s++) {
          const k2 = run.start + s;
          const a = k2 < n ? edge[k2]!.angle : edge[k2 - n]!.angle + whole;
          lo = Math.min(lo, a);
          hi = Math.max(hi, a);
        }
        best = { length: run.length / H.perimeter, turn: hi - lo };
      }
    }
  }
  return best;
}
