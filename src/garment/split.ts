/**
 * Splitting a marker that holds every cut piece on one layer (a CAD export, a merged PSD, a flat JPG) into one
 * raster per piece, as the garment tools need them (split_pieces). Pieces are the opaque regions of a layer with
 * transparency, or what differs from the border's colour on an opaque one; each is filled through its enclosed
 * holes, so an outline drawing or a piece with a label inside becomes its whole shape. Pieces that touch (a
 * nested CAD marker) are told apart by their cut lines (`separate`).
 */
import type { Raster, Rect, RGB } from '../engine/model.js';
import { blankRaster } from '../engine/raster.js';
import { deltaE76, type Lab, rgbToLab } from './color.js';
import { convexHull, type Point, polygonArea } from './hull.js';
import { components, resampleMask } from './image.js';
import { IntList, labelRuns, type RunComponent, type Runs } from './runs.js';

/**
 * A pixel this far (ΔE76) from the background colour or further is drawing, not paper. Measured on the example
 * marker flattened and saved as JPEG (quality 90, pieces #d0d0d0 on white, ΔE 16.3 apart), 3 px away from the
 * outlines: the paper's JPEG noise reaches ΔE 4.9 and the pieces come as close as ΔE 11.9; at 10 the masks match
 * the original layers' with IoU 0.9999 (0.9988 at 15). A piece paler than ΔE 10 from its paper is found by its
 * drawn outline only (the outline encloses it).
 */
export const BACKGROUND_DELTA_E = 10;

/**
 * Regions smaller than this share of the largest one are specks, notch marks or text, not pieces. Real pieces
 * come small: in the FreeSewing fixtures a jacket's inner pocket welt is 0.27 % of its front, a chest welt or a
 * pocket facing about 1 %; a notch or a letter of a label is under 0.05 % at any resolution.
 */
export const MIN_PIECE_SHARE = 0.002;

/** Pixels at least half opaque belong to a piece on a layer with transparency. */
const OPAQUE = 128;

/** How far (pixels) a piece's soft edge (alpha below half) reaches beyond its half-opaque shape. */
const EDGE_REACH = 2;

export interface SplitPiece {
  /** The piece's pixels, transparent outside it, over its tight bounds (document pixels). */
  readonly raster: Raster;
  /** Pixels of the filled shape (its holes included). */
  readonly area: number;
}

export interface SplitResult {
  /** The pieces in reading order: rows top to bottom, left to right within a row (a column top to bottom). */
  readonly pieces: readonly SplitPiece[];
  /** Regions too small to be a piece, lying outside every piece. */
  readonly ignored: number;
  /** Regions inside a piece's outline (labels, grain lines): part of that piece. */
  readonly enclosed: number;
  /** The paper's colour on an opaque layer; null on a layer with transparency. */
  readonly background: RGB | null;
  /** The layer is a single piece already: the one piece is exactly what the layer shows. */
  readonly unchanged: boolean;
}

/** The pieces of `src` (a layer's raster, document coordinates); none when it shows nothing. */
export function splitRaster(src: Raster): SplitResult {
  const { w, h, data } = src;
  const n = w * h;
  let transparent = false;
  let shown = 0;
  for (let i = 0; i < n; i++) {
    const a = data[i * 4 + 3]!;
    if (a < OPAQUE) transparent = true;
    if (a > 0) shown++;
  }
  const background = transparent ? null : borderColour(src);
  const ink = inkTest(src, background);
  // Labelled as runs, not per pixel: on a 60 Mpx marker a label and a stack per pixel took 480 MB, its runs take
  // a few MB.
  const regions = labelRuns(w, h, (y, row) => ink(y, 0, w, row), true);
  const comps = regions.comps;
  const largest = comps.reduce((m, c) => Math.max(m, c.area), 0);
  const minArea = Math.max(1, largest * MIN_PIECE_SHARE);
  const made: Cut[] = [];
  let ignored = 0;
  let enclosed = 0;
  for (const c of [...comps].sort((p, q) => q.area - p.area)) {
    const first = c.first;
    const fx = regions.x0[first]!;
    const fy = regions.y[first]!;
    if (made.some((p) => inside(p.filled, p.box, fx, fy))) {
      enclosed++;
      continue;
    }
    if (c.area < minArea) {
      ignored++;
      continue;
    }
    const blob = blobOf(regions, c, background === null);
    const parts = separate(src, blob, ink, minArea, background);
    if (parts) for (const part of parts) made.push(cut(src, part, background === null));
    else made.push(cut(src, blob, background === null));
  }
  const pieces = readingOrder(made);
  const unchanged =
    background === null &&
    pieces.length === 1 &&
    ignored === 0 &&
    enclosed === 0 &&
    pieces[0]!.holes === 0 &&
    pieces[0]!.shown === shown;
  return {
    pieces: pieces.map(({ raster, area }) => ({ raster, area })),
    ignored,
    enclosed,
    background,
    unchanged,
  };
}

/**
 * The most common colour along the border, robust to JPEG noise: border pixels are binned at 4 bits a channel,
 * and the mean of the fullest bin is the colour (pieces touching the border take a minority of it).
 */
function borderColour(src: Raster): RGB {
  const { w, h, data } = src;
  const bins = new Map<number, { count: number; r: number; g: number; b: number }>();
  const add = (x: number, y: number) => {
    const i = (y * w + x) * 4;
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
    const bin = bins.get(key) ?? { count: 0, r: 0, g: 0, b: 0 };
    bin.count++;
    bin.r += r;
    bin.g += g;
    bin.b += b;
    bins.set(key, bin);
  };
  for (let x = 0; x < w; x++) {
    add(x, 0);
    if (h > 1) add(x, h - 1);
  }
  for (let y = 1; y < h - 1; y++) {
    add(0, y);
    if (w > 1) add(w - 1, y);
  }
  let best = { count: 0, r: 0, g: 0, b: 0 };
  for (const bin of bins.values()) if (bin.count > best.count) best = bin;
  const k = Math.max(1, best.count);
  return { r: Math.round(best.r / k), g: Math.round(best.g / k), b: Math.round(best.b / k) };
}

/** Writes into `out[0…x1 − x0)` whether each pixel of row `y` from `x0` to `x1` (exclusive) is drawing. */
type InkTest = (y: number, x0: number, x1: number, out: Uint8Array) => void;

/**
 * Drawing on a layer with transparency is what is at least half opaque; on an opaque one, what is at least
 * BACKGROUND_DELTA_E from `paper` (each colour's verdict worked out once).
 */
function inkTest(src: Raster, paper: RGB | null): InkTest {
  const d = src.data;
  const w = src.w;
  if (!paper) {
    return (y, x0, x1, out) => {
      for (let x = x0, i = (y * w + x0) * 4 + 3; x < x1; x++, i += 4) out[x - x0] = d[i]! >= OPAQUE ? 1 : 0;
    };
  }
  const ref: Lab = rgbToLab(paper.r, paper.g, paper.b);
  const verdict = new Uint8Array(1 << 24); // 0 unknown, 1 paper, 2 drawing
  return (y, x0, x1, out) => {
    for (let x = x0, i = (y * w + x0) * 4; x < x1; x++, i += 4) {
      const key = (d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!;
      let v = verdict[key]!;
      if (v === 0) {
        v = deltaE76(rgbToLab(d[i]!, d[i + 1]!, d[i + 2]!), ref) >= BACKGROUND_DELTA_E ? 2 : 1;
        verdict[key] = v;
      }
      out[x - x0] = v - 1;
    }
  };
}

/** A piece's shape being worked out over a box of the source: 1 in it, 0 a hole in it, 2 outside. */
interface Blob {
  readonly state: Uint8Array;
  /** The box, in the source's pixels (it may reach past the source's edges). */
  readonly bx: number;
  readonly by: number;
  readonly bw: number;
  readonly bh: number;
}

/**
 * One component with every hole filled (what the outside cannot reach, moving 4-connected around it: a thin
 * diagonal outline still closes), over its bounds padded by a pixel and, on a layer with transparency, by
 * the soft edge's reach.
 */
function blobOf(runs: Runs, c: RunComponent, soft: boolean): Blob {
  const pad = 1 + (soft ? EDGE_REACH : 0);
  const bx = c.x0 - pad;
  const by = c.y0 - pad;
  const bw = c.x1 - c.x0 + 1 + 2 * pad;
  const bh = c.y1 - c.y0 + 1 + 2 * pad;
  const state = new Uint8Array(bw * bh);
  for (let r = c.first; r >= 0; r = runs.next[r]!) {
    const o = (runs.y[r]! - by) * bw - bx;
    state.fill(1, o + runs.x0[r]!, o + runs.x1[r]! + 1);
  }
  reachOutside(state, bw, bh);
  return { state, bx, by, bw, bh };
}

/**
 * Marks 2 every 0 of `state` that the box's border reaches through 0s, 4-connected: a scanline fill, whose stack
 * holds a few seeds a row where a pixel-by-pixel walk's would grow with the area.
 */
function reachOutside(state: Uint8Array, bw: number, bh: number): void {
  const stack = new IntList();
  for (let u = 0; u < bw; u++) {
    stack.push(u);
    stack.push((bh - 1) * bw + u);
  }
  for (let v = 0; v < bh; v++) {
    stack.push(v * bw);
    stack.push(v * bw + bw - 1);
  }
  while (stack.length > 0) {
    const p = stack.pop();
    if (state[p] !== 0) continue;
    const v = Math.floor(p / bw);
    const row = v * bw;
    let l = p - row;
    let r = l;
    while (l > 0 && state[row + l - 1] === 0) l--;
    while (r < bw - 1 && state[row + r + 1] === 0) r++;
    state.fill(2, row + l, row + r + 1);
    for (const nv of [v - 1, v + 1]) {
      if (nv < 0 || nv >= bh) continue;
      const nrow = nv * bw;
      for (let u = l; u <= r; u++) {
        if (state[nrow + u] !== 0) continue;
        stack.push(nrow + u);
        while (u < r && state[nrow + u + 1] === 0) u++;
      }
    }
  }
}

/**
 * How far (pixels) either side of a line a stroke reaches: strokes up to 2 × LINE_REACH + 1 pixels wide are lines
 * (a cut line, a label's letters, a grain line); wider drawing is a fill. A 150-DPI CAD marker draws its lines
 * 1 to 4 px wide, a scanned or photographed one up to about twice that; an outline drawing in a broader pen
 * gets a reach to match (`strokeReach`).
 */
const LINE_REACH = 5;

/**
 * A line drawn over a fill is this much darker (L*) than the fill around it: a black or dark grey outline on a
 * light or mid fill. Well above JPEG's ringing beside a fill's edge: the tests' quality-90 markers split
 * cleanly at 20.
 */
const LINE_CONTRAST = 20;

/** A region whose mean colour is this close (ΔE76) to the paper's shows the paper (JPEG noise averages to under 1). */
const GAP_DELTA_E = 3;

/**
 * A region whose boundary runs this share or more along one neighbour lies inside it, not beside it: a dart
 * drawn from the cut edge (its legs run along the piece; its mouth, on the cut line, is 1/6 of its boundary or
 * less when it is 2.5 times as long as wide). A piece nested against another shares less of its boundary: a
 * side, or three sides of a square in a notch (3/4) at most.
 */
const ENCLOSED_SHARE = 0.8;

/**
 * Two regions complete each other when the convex hull of the two together exceeds their area by no more than
 * their hulls apart do, give or take this share of the smaller one (and the line between them). An L or a notch
 * adds a quarter of the smaller piece or more; a wedge's or a band's hull adds the line and JPEG's ragged edges.
 */
const CONVEX_SLACK = 0.1;

/**
 * The separate pieces within one blob, when it holds several; null when it is one piece (then the blob is cut
 * whole, exactly as a separate piece is).
 *
 * Pieces that touch in a marker are told apart by their lines, as a pattern maker reads them: lines are thin
 * drawing (an outline drawing's strokes) or thin dark strokes over a fill (an outline drawn round a filled
 * piece, found by a black top-hat: closing minus image). The blob less its lines falls into regions — the
 * enclosed interiors of outline pieces, the fills of filled ones. Every region is a piece unless it lies inside
 * another (ENCLOSED_SHARE): a piece's internal lines — a grain line, a label, a dart drawn inside it — end
 * free or enclose only a small part of it, so they do not split it. A piece carries one label; a region without
 * any marks, or with a grain line but no label, that completes a neighbour's convex shape is part of it (a wide
 * dart, a band between a hip and a knee line), or the paper between two pieces' outlines; unmarked regions that
 * gather no label stay apart across a line drawn as their outline is (two plain waistbands), unless one is
 * a wedge in the other's notch (a dart). A line belongs to every region it lies
 * between (a shared cut line to both pieces), found by growing each region across the lines (its two nearest
 * regions a line pixel keeps), and a piece is filled through its holes as a separate one is.
 */
function separate(
  src: Raster,
  blob: Blob,
  ink: InkTest,
  minArea: number,
  background: RGB | null,
): Blob[] | null {
  const soft = background === null;
  const { state, bx, by, bw, bh } = blob;
  const n = bw * bh;
  const { line, reach, light } = linesOf(src, blob, ink);
  const width = 2 * reach + 1;
  const regions = labelRuns(
    bw,
    bh,
    (v, out) => {
      for (let u = 0, p = v * bw; u < bw; u++, p++) out[u] = state[p] !== 2 && !line[p] ? 1 : 0;
    },
    false,
  );
  const count = regions.comps.length;
  if (regions.comps.filter((c) => c.area >= minArea).length < 2) return null;
  const thin = slivers(regions, line, state, bw, bh, reach);
  if (regions.comps.filter((c, k) => c.area >= minArea && !thin[k]).length < 2) return null;

  // Labels: regions 1…count, the outside count + 1; 0 a line pixel not yet reached.
  const OUT = count + 1;
  const Labels = OUT < 0xffff ? Uint16Array : Uint32Array;
  const lab1 = new Labels(n);
  const lab2 = new Labels(n);
  for (let p = 0; p < n; p++) if (state[p] === 2) lab1[p] = OUT;
  regions.comps.forEach((c, k) => {
    if (thin[k]) return;
    for (let r = c.first; r >= 0; r = regions.next[r]!) {
      const o = regions.y[r]! * bw;
      lab1.fill(k + 1, o + regions.x0[r]!, o + regions.x1[r]! + 1);
    }
  });
  // Steps from each line pixel to its nearest (low 4 bits) and second-nearest region (high 4 bits), at most 15
  // (past a stroke's width it only matters that they are far); 0 for a region's pixel.
  const steps = line.fill(0);
  const queue = new IntList();
  const offer = (q: number, label: number, d: number) => {
    if (lab1[q] === 0) {
      lab1[q] = label;
      steps[q] = d;
      queue.push(q * 2);
    } else if (lab1[q] !== label && lab2[q] === 0 && steps[q]! > 0) {
      lab2[q] = label;
      steps[q]! |= d << 4;
      queue.push(q * 2 + 1);
    }
  };
  // A line pixel is one not reached yet, or reached (steps > 0).
  for (let p = 0; p < n; p++) {
    if (lab1[p] !== 0) continue;
    const u = p % bw;
    if (u > 0 && lab1[p - 1] !== 0 && steps[p - 1] === 0) offer(p, lab1[p - 1]!, 1);
    if (u < bw - 1 && lab1[p + 1] !== 0 && steps[p + 1] === 0) offer(p, lab1[p + 1]!, 1);
    if (p >= bw && lab1[p - bw] !== 0 && steps[p - bw] === 0) offer(p, lab1[p - bw]!, 1);
    if (p < n - bw && lab1[p + bw] !== 0 && steps[p + bw] === 0) offer(p, lab1[p + bw]!, 1);
  }
  for (let head = 0; head < queue.length; head++) {
    const e = queue.a[head]!;
    const p = e >> 1;
    const label = e & 1 ? lab2[p]! : lab1[p]!;
    const d = Math.min(15, (e & 1 ? steps[p]! >> 4 : steps[p]! & 15) + 1);
    const u = p % bw;
    if (u > 0 && (lab1[p - 1] === 0 || steps[p - 1]! > 0)) offer(p - 1, label, d);
    if (u < bw - 1 && (lab1[p + 1] === 0 || steps[p + 1]! > 0)) offer(p + 1, label, d);
    if (p >= bw && (lab1[p - bw] === 0 || steps[p - bw]! > 0)) offer(p - bw, label, d);
    if (p < n - bw && (lab1[p + bw] === 0 || steps[p + bw]! > 0)) offer(p + bw, label, d);
  }
  queue.a = new Int32Array(0);
  // A line pixel lies between its two regions when they are a stroke's width apart through it.
  const between = (p: number) => lab2[p] !== 0 && (steps[p]! & 15) + (steps[p]! >> 4) - 1 <= width;

  // How long each region's boundary runs along each neighbour: line pixels next to it, and pixels where it meets
  // another region directly (a fill against the paper, a hole in a fill).
  const contact = Array.from({ length: OUT + 1 }, () => new Map<number, number>());
  const touch = (a: number, b: number) => {
    if (a !== OUT) contact[a]!.set(b, (contact[a]!.get(b) ?? 0) + 1);
  };
  // The pixels of the line between each region and each neighbour, and their lightness: the pen it is drawn in.
  const pen = Array.from({ length: OUT + 1 }, () => new Map<number, { px: number; light: number }>());
  const inked = (a: number, b: number, l: number) => {
    if (a === OUT) return;
    const e = pen[a]!.get(b) ?? { px: 0, light: 0 };
    e.px++;
    e.light += l;
    pen[a]!.set(b, e);
  };
  for (let p = 0; p < n; p++) {
    const a = lab1[p]!;
    if (a === 0) continue;
    const st = steps[p]!;
    if (st > 0) {
      if (!between(p)) continue;
      inked(a, lab2[p]!, light[p]!);
      inked(lab2[p]!, a, light[p]!);
      if ((st & 15) === 1) touch(a, lab2[p]!);
      if (st >> 4 === 1) touch(lab2[p]!, a);
      continue;
    }
    const right = (p + 1) % bw === 0 ? 0 : p + 1;
    if (right && steps[right] === 0 && lab1[right] !== a && lab1[right] !== 0) {
      touch(a, lab1[right]!);
      touch(lab1[right]!, a);
    }
    const down = p + bw;
    if (down < n && steps[down] === 0 && lab1[down] !== a && lab1[down] !== 0) {
      touch(a, lab1[down]!);
      touch(lab1[down]!, a);
    }
  }

  const group = new Int32Array(OUT + 1).map((_, k) => k);
  const root = (k: number): number => {
    while (group[k] !== k) k = group[k]!;
    return k;
  };
  const comps = regions.comps;
  const order = comps
    .map((_, k) => k + 1)
    .filter((k) => !thin[k - 1])
    .sort((a, b) => comps[a - 1]!.area - comps[b - 1]!.area);
  // A region in another's holes (a letter's counters, a dart or a drill hole drawn closed inside a piece) is part
  // of the smallest region holding it. A region whose holes hold drawing carries marks (MARKS), a label among them
  // (LABEL) or not: a grain line, a closed dart.
  const marked = new Uint8Array(OUT + 1);
  for (const q of order) {
    const c = comps[q - 1]!;
    if (c.area < minArea) continue;
    const qw = c.x1 - c.x0 + 1;
    const qh = c.y1 - c.y0 + 1;
    const shape = new Uint8Array(qw * qh);
    for (let r = c.first; r >= 0; r = regions.next[r]!) {
      const o = (regions.y[r]! - c.y0) * qw - c.x0;
      shape.fill(1, o + regions.x0[r]!, o + regions.x1[r]! + 1);
    }
    reachOutside(shape, qw, qh);
    marked[q] = carriesMarks(shape, qw, qh);
    const held = order.filter((k) => {
      const r = comps[k - 1]!;
      return group[k] === k && k !== q && r.x0 > c.x0 && r.x1 < c.x1 && r.y0 > c.y0 && r.y1 < c.y1;
    });
    for (const k of held) {
      const f = comps[k - 1]!.first;
      if (shape[(regions.y[f]! - c.y0) * qw + regions.x0[f]! - c.x0] === 0) group[k] = q;
    }
  }
  const area = new Float64Array(OUT + 1);
  for (const k of order) area[root(k)]! += comps[k - 1]!.area;
  const hull: Pt[][] = [];
  for (const k of order)
    if (group[k] === k && comps[k - 1]!.area >= minArea) hull[k] = hullOf(regions, comps[k - 1]!);
  const deficit = (h: readonly Pt[], a: number) => polygonArea(h) - a;
  // Joins group k to group g: its area, hull, marks and contacts become g's.
  const join = (k: number, g: number) => {
    group[k] = g;
    area[g]! += area[k]!;
    if (hull[k] && hull[g]) hull[g] = convexHull([...hull[g]!, ...hull[k]!]);
    marked[g] = Math.max(marked[g]!, marked[k]!);
    for (const [b, len] of contact[k]!) contact[g]!.set(b, (contact[g]!.get(b) ?? 0) + len);
    for (const [b, e] of pen[k]!) {
      const f = pen[g]!.get(b) ?? { px: 0, light: 0 };
      pen[g]!.set(b, { px: f.px + e.px, light: f.light + e.light });
    }
  };
  // Whether the line between groups k and g is drawn as their cut line against the outside is: as wide (pixels
  // per pixel of length) within a quarter, and no more than LINE_CONTRAST / 2 lighter. Fills meeting without a
  // line are apart too; with no outline to compare (a region enclosed by others) the line may be either.
  const cutLine = (k: number, g: number) => {
    let inner = 0;
    let innerLight = 0;
    let innerLen = 0;
    let outer = 0;
    let outerLight = 0;
    let outerLen = 0;
    for (const q of [k, g]) {
      for (const [b, e] of pen[q]!) {
        const r = b === OUT || dropped[root(b)] ? OUT : root(b);
        if (r === OUT) {
          outer += e.px;
          outerLight += e.light;
        } else if (r === (q === k ? g : k)) {
          inner += e.px;
          innerLight += e.light;
        }
      }
      for (const [b, len] of contact[q]!) {
        const r = b === OUT || dropped[root(b)] ? OUT : root(b);
        if (r === OUT) outerLen += len;
        else if (r === (q === k ? g : k)) innerLen += len;
      }
    }
    if (inner === 0) return true;
    if (outer === 0 || outerLen === 0 || innerLen === 0) return false;
    return (
      inner / innerLen >= 0.75 * (outer / outerLen) &&
      innerLight / inner <= outerLight / outer + (LINE_CONTRAST * 2.55) / 2
    );
  };
  // How long group k's boundary runs along each other group (OUT for the outside and dropped groups).
  const alongOf = (k: number) => {
    const along = new Map<number, number>();
    let total = 0;
    for (const [b, len] of contact[k]!) {
      const g = b === OUT || dropped[root(b)] ? OUT : root(b);
      if (g === k) continue;
      along.set(g, (along.get(g) ?? 0) + len);
      total += len;
    }
    return { along, total };
  };

  // Smallest first, every other region joins the neighbour it lies along (ENCLOSED_SHARE), or stands as a piece,
  // or, too small to be one (a gap between pieces, a notch's loop), is left out.
  const dropped = new Uint8Array(OUT + 1);
  for (const k of order) {
    if (group[k] !== k) continue;
    const { along, total } = alongOf(k);
    let best = 0;
    let most = 0;
    for (const [g, len] of along) {
      if (g !== OUT && len > most) {
        best = g;
        most = len;
      }
    }
    if (best && most >= ENCLOSED_SHARE * total && area[best]! >= area[k]!) {
      join(k, best);
    } else if (area[k]! < minArea) {
      dropped[k] = 1;
    }
  }
  const paper = comps.map((c) => showsPaper(src, regions, c, bx, by, background));
  // A region without marks is part of a piece, not one: a wide dart drawn from the cut edge, a band of a piece
  // cut by a hip or knee line reaching both its edges. It joins the neighbour it completes — the union is as
  // convex as the two apart, give or take the line between them — where a piece nested against another makes
  // a notch or an L with it. Enclosed by pieces it completes two or more of, and showing the paper, it is the
  // gap where their outlines touch. Smallest first, as a band joins the next band and that one the piece.
  const absorb = (which: number, into: (k: number, g: number) => boolean) => {
    const left = new Set(
      order.filter((k) => group[k] === k && !dropped[k] && marked[k] === which && hull[k]),
    );
    while (left.size > 0) {
      let k = 0;
      for (const q of left) if (!k || area[q]! < area[k]!) k = q;
      left.delete(k);
      const { along } = alongOf(k);
      const fits: { g: number; extra: number }[] = [];
      for (const [g, len] of along) {
        if (g === OUT || !hull[g] || !into(k, g)) continue;
        const extra =
          deficit(convexHull([...hull[k]!, ...hull[g]!]), area[k]! + area[g]!) -
          deficit(hull[k]!, area[k]!) -
          deficit(hull[g]!, area[g]!);
        if (extra <= CONVEX_SLACK * Math.min(area[k]!, area[g]!) + width * len) fits.push({ g, extra });
      }
      if (fits.length === 0) continue;
      if (which === 0 && fits.length >= 2 && !along.has(OUT) && paper[k - 1]) {
        dropped[k] = 1;
        continue;
      }
      fits.sort((a, b) => a.extra - b.extra);
      const g = fits[0]!.g;
      if (which === 0 && cutLine(k, g) && !dartOf(k, g)) across.push(k);
      join(k, g);
    }
  };
  // An unmarked wedge lying in a notch of its neighbour (within its hull, give or take CONVEX_SLACK of the
  // wedge) is a dart of it, whatever pen its legs are drawn in: pieces nest in a notch with blunt ends.
  const dartOf = (k: number, g: number) =>
    polygonArea(hull[k]!) <= WEDGE_FILL * boundingArea(hull[k]!) &&
    polygonArea(convexHull([...hull[g]!, ...hull[k]!])) - polygonArea(hull[g]!) <= CONVEX_SLACK * area[k]!;
  // Unmarked groups joined across a line drawn as a cut line, to be parted again if no mark ever joins them.
  const across: number[] = [];
  absorb(0, () => true);
  // A piece carries one label; a part of it with a grain line or a dart but no label (the label above the hip
  // line, the grain line below the knee line) joins the labelled part it completes, as a band does. Two labelled
  // parts are two pieces, however they fit: two waistbands side by side.
  absorb(MARKS, (_, g) => marked[g] === LABEL);
  // Unmarked parts that no mark gathered into a piece, parted by lines drawn as their cut lines against the
  // outside are, are pieces each: two plain waistbands side by side. Joined to a marked piece, such a line was
  // internal (a hip line, the grain line crossing a band between it and the knee line). A fainter or finer
  // line (a fold or pencil line) keeps an unmarked piece whole, as a dart keeps its wedge (`dartOf`). Limit: an
  // unlabelled piece whose hip line is drawn in the outline's own pen is as two waistbands are (the same pixels
  // when its sides run straight through the line), and comes apart.
  for (const k of across.reverse()) if (!marked[root(k)]) group[k] = k;
  // Among filled pieces, a region showing the paper is a gap the pieces enclose where they touch, not a piece
  // (a pale piece differs from the paper by ΔE 5 or more: it stays).
  if (order.some((k) => group[k] === k && !dropped[k] && !paper[k - 1])) {
    for (const k of order) if (group[k] === k && paper[k - 1]) dropped[k] = 1;
  }
  const pieces = order.filter((k) => group[k] === k && !dropped[k]);
  if (pieces.length < 2) return null;

  // Each piece over its regions' bounds, padded by a stroke's width (its lines) and its soft edge's reach.
  const pad = width + 1 + (soft ? EDGE_REACH : 0);
  return pieces.map((g) => {
    let u0 = bw;
    let v0 = bh;
    let u1 = 0;
    let v1 = 0;
    for (const k of order) {
      if (root(k) !== g) continue;
      const c = comps[k - 1]!;
      u0 = Math.min(u0, c.x0);
      v0 = Math.min(v0, c.y0);
      u1 = Math.max(u1, c.x1);
      v1 = Math.max(v1, c.y1);
    }
    u0 = Math.max(0, u0 - pad);
    v0 = Math.max(0, v0 - pad);
    u1 = Math.min(bw - 1, u1 + pad);
    v1 = Math.min(bh - 1, v1 + pad);
    const gw = u1 - u0 + 1;
    const gh = v1 - v0 + 1;
    const inGroup = new Uint8Array(OUT + 1);
    for (const k of order) if (!dropped[root(k)] && root(k) === g) inGroup[k] = 1;
    const s = new Uint8Array(gw * gh);
    for (let v = 0; v < gh; v++) {
      for (let u = 0, p = (v + v0) * bw + u0; u < gw; u++, p++) {
        const a = lab1[p]!;
        if (inGroup[a] || (inGroup[lab2[p]!] && (a === OUT || between(p)))) s[v * gw + u] = 1;
      }
    }
    // The box's border is outside the piece (a line pixel there would close no hole).
    for (let u = 0; u < gw; u++) s[u] = s[(gh - 1) * gw + u] = 0;
    for (let v = 0; v < gh; v++) s[v * gw] = s[v * gw + gw - 1] = 0;
    reachOutside(s, gw, gh);
    return { state: s, bx: bx + u0, by: by + v0, bw: gw, bh: gh };
  });
}

/**
 * Regions no wider anywhere than a stroke (1 where so): slivers between strokes drawn side by side or along a
 * stroke's anti-aliased edge, and a letter's counters. They are read as part of the lines: no piece is that narrow.
 */
function slivers(
  regions: Runs,
  line: Uint8Array,
  state: Uint8Array,
  bw: number,
  bh: number,
  reach: number,
): Uint8Array {
  // What an erosion by the lines' reach leaves of the regions (the dilation of their complement, inverted).
  const core = new Uint8Array(bw * bh);
  for (let p = 0; p < core.length; p++) core[p] = state[p] === 2 || line[p] ? 1 : 0;
  dilate(core, bw, bh, reach, core);
  return Uint8Array.from(regions.comps, (c) => {
    for (let r = c.first; r >= 0; r = regions.next[r]!) {
      const o = regions.y[r]! * bw;
      for (let p = o + regions.x0[r]!; p <= o + regions.x1[r]!; p++) if (!core[p]) return 0;
    }
    return 1;
  });
}

/** How long (pixels, the sum of each hole's width and height) a region's holes must reach to be marks. */
const MARK_REACH = 8 * (2 * LINE_REACH + 1);

/** A region carries marks (carriesMarks)… */
const MARKS = 1;
/** …a label among them. */
const LABEL = 2;

/**
 * A hole no longer than this many times its width is compact: a letter of a label (a Latin letter, a CJK
 * character or a part of one), where a grain line with its arrowheads (200 by 30), a closed dart (140 by 40) or
 * a label's own grain stroke is long and narrow.
 */
const LETTER_ASPECT = 3;

/**
 * A convex region filling no more than this share of the smallest rectangle round it (any angle) is a wedge: a
 * triangle fills half, a dart's curved legs less; a rectangle fills it, a trapezoid or a piece cut to a point
 * at one corner three quarters or more.
 */
const WEDGE_FILL = 0.6;

/** The area of the smallest rectangle, at any angle, holding a convex polygon (one side lies on an edge of it). */
function boundingArea(hull: readonly Pt[]): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i]!;
    const b = hull[(i + 1) % hull.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len === 0) continue;
    const ex = (b[0] - a[0]) / len;
    const ey = (b[1] - a[1]) / len;
    let lo = 0;
    let hi = 0;
    let far = 0;
    for (const p of hull) {
      const along = (p[0] - a[0]) * ex + (p[1] - a[1]) * ey;
      lo = Math.min(lo, along);
      hi = Math.max(hi, along);
      far = Math.max(far, Math.abs((p[0] - a[0]) * ey - (p[1] - a[1]) * ex));
    }
    best = Math.min(best, (hi - lo) * far);
  }
  return best;
}

/**
 * Whether a region's holes (the 0s of `shape`, a region filled by reachOutside) hold drawing: 0 none, MARKS when
 * their widths and heights add up to MARK_REACH (a grain line, a closed dart; specks of noise add less), LABEL
 * when a compact one of a stroke's size or more is among them (a letter). Drill holes and button marks count for
 * neither (`pointMarks`): a piece whose only marks they are is an unlabelled one.
 */
function carriesMarks(shape: Uint8Array, w: number, h: number): number {
  const holes = labelRuns(
    w,
    h,
    (v, out) => {
      for (let u = 0, p = v * w; u < w; u++, p++) out[u] = shape[p] === 0 ? 1 : 0;
    },
    true,
  );
  const point = pointMarks(holes);
  let reach = 0;
  let letter = false;
  holes.comps.forEach((c, k) => {
    const hw = c.x1 - c.x0 + 1;
    const hh = c.y1 - c.y0 + 1;
    if (hw + hh < 2 * LINE_REACH + 1 || point[k]) return;
    reach += hw + hh;
    if (Math.max(hw, hh) <= LETTER_ASPECT * Math.min(hw, hh)) letter = true;
  });
  if (reach < MARK_REACH) return 0;
  return letter ? LABEL : MARKS;
}

/**
 * A hole this symmetric (`symmetry`) or more has a point mark's shape. On the tests' quality-90 JPEGs, dots, rings,
 * + and × 10 to 16 px across, drawn off the pixel grid, come to 0.92 or more; the bundled font's glyphs standing
 * alone at 14 to 36 px to 0.74 at most, '口' (a square) to 0.85.
 */
const POINT_SYMMETRY = 0.85;

/**
 * Which holes are drill holes or button marks (1): a dot, a ring or a cross, whatever its size — a square-ish
 * shape that turns and mirrors onto itself (POINT_SYMMETRY) — standing alone: no other drawing (a speck of a
 * pixel or two aside) within its own width. A label's glyphs stand within a glyph's width of each other (a CJK
 * character's parts closer still), and a one-glyph label ('A', '里') does not turn or mirror onto itself; only
 * an isolated '口', 'O' or '十' reads as a point.
 */
function pointMarks(holes: Runs): Uint8Array {
  const comps = holes.comps;
  const out = new Uint8Array(comps.length);
  comps.forEach((c, k) => {
    const hw = c.x1 - c.x0 + 1;
    const hh = c.y1 - c.y0 + 1;
    if (hw + hh < 2 * LINE_REACH + 1 || Math.abs(hw - hh) > 0.25 * Math.max(hw, hh)) return;
    const size = Math.max(hw, hh);
    const alone = comps.every(
      (o, j) =>
        j === k ||
        o.x1 - o.x0 + o.y1 - o.y0 < 2 ||
        Math.max(o.x0 - c.x1, c.x0 - o.x1, o.y0 - c.y1, c.y0 - o.y1) > size,
    );
    if (alone && symmetry(holes, c) >= POINT_SYMMETRY) out[k] = 1;
  });
  return out;
}

/**
 * How nearly a component maps onto itself by a quarter turn about its box's centre and by a mirror across either
 * axis: the least share of its pixels that one of them lands on its pixels (on any of the two or four it lands
 * between when the box's sides differ in parity). A dot, a ring, a + or an × comes to 1; a glyph's strokes do
 * not mirror, or do not turn.
 */
function symmetry(runs: Runs, c: RunComponent): number {
  const hw = c.x1 - c.x0 + 1;
  const hh = c.y1 - c.y0 + 1;
  const m = new Uint8Array(hw * hh);
  for (let r = c.first; r >= 0; r = runs.next[r]!) {
    const o = (runs.y[r]! - c.y0) * hw - c.x0;
    m.fill(1, o + runs.x0[r]!, o + runs.x1[r]! + 1);
  }
  const set = (u: number, v: number) => u >= 0 && v >= 0 && u < hw && v < hh && m[v * hw + u] === 1;
  // Lands on (tu, tv), in pixels from the box's corner: a whole or a half pixel.
  const lands = (tu: number, tv: number) =>
    set(Math.floor(tu), Math.floor(tv)) ||
    set(Math.ceil(tu), Math.floor(tv)) ||
    set(Math.floor(tu), Math.ceil(tv)) ||
    set(Math.ceil(tu), Math.ceil(tv));
  let turn = 0;
  let across = 0;
  let down = 0;
  let all = 0;
  for (let v = 0; v < hh; v++) {
    for (let u = 0; u < hw; u++) {
      if (!m[v * hw + u]) continue;
      all++;
      // Doubled coordinates from the box's centre: (du, dv) turns to (−dv, du).
      const du = 2 * u + 1 - hw;
      const dv = 2 * v + 1 - hh;
      if (lands((hw - 1 - dv) / 2, (hh - 1 + du) / 2)) turn++;
      if (m[v * hw + hw - 1 - u]) across++;
      if (m[(hh - 1 - v) * hw + u]) down++;
    }
  }
  return all ? Math.min(turn, across, down) / all : 0;
}

type Pt = Point;

/** The convex hull of a region's pixels (as unit squares). */
function hullOf(runs: Runs, c: RunComponent): Pt[] {
  const pts: Pt[] = [];
  let y = -1;
  let lo = 0;
  let hi = 0;
  const flush = () => {
    if (y >= 0) pts.push([lo, y], [hi + 1, y], [lo, y + 1], [hi + 1, y + 1]);
  };
  for (let r = c.first; r >= 0; r = runs.next[r]!) {
    if (runs.y[r] !== y) {
      flush();
      y = runs.y[r]!;
      lo = runs.x0[r]!;
      hi = runs.x1[r]!;
    } else {
      lo = Math.min(lo, runs.x0[r]!);
      hi = Math.max(hi, runs.x1[r]!);
    }
  }
  flush();
  return convexHull(pts);
}

/**
 * A region's mean colour is the paper's (within GAP_DELTA_E), or on a layer with transparency, it is mostly
 * see-through. The mean: JPEG noise averages out over a region.
 */
function showsPaper(
  src: Raster,
  runs: Runs,
  c: RunComponent,
  bx: number,
  by: number,
  paper: RGB | null,
): boolean {
  const sum = [0, 0, 0, 0];
  const d = src.data;
  for (let r = c.first; r >= 0; r = runs.next[r]!) {
    const y = runs.y[r]! + by;
    for (let x = runs.x0[r]! + bx; x <= runs.x1[r]! + bx; x++) {
      const i = (y * src.w + x) * 4;
      for (let ch = 0; ch < 4; ch++) sum[ch]! += d[i + ch]!;
    }
  }
  const [r, g, b, a] = sum.map((v) => v / c.area) as [number, number, number, number];
  if (!paper) return a < OPAQUE;
  return (
    deltaE76(rgbToLab(Math.round(r), Math.round(g), Math.round(b)), rgbToLab(paper.r, paper.g, paper.b)) <
    GAP_DELTA_E
  );
}

/**
 * The blob's lines: its drawing (its holes' drawing too: labels, a grain line) that an opening (erosion then
 * dilation by a square) removes, or that is dark on its surroundings; and how far either side of a line its
 * strokes reach (reach, or more for an outline drawing in a broad pen: `strokeReach`).
 */
function linesOf(
  src: Raster,
  blob: Blob,
  ink: InkTest,
): { line: Uint8Array; reach: number; light: Uint8Array } {
  const { state, bx, by, bw, bh } = blob;
  const n = bw * bh;
  const drawn = new Uint8Array(n);
  const x0 = Math.max(0, bx);
  const x1 = Math.min(src.w, bx + bw);
  for (let v = 0; v < bh; v++) {
    const y = by + v;
    if (y < 0 || y >= src.h || x1 <= x0) continue;
    ink(y, x0, x1, drawn.subarray(v * bw + x0 - bx, v * bw + x1 - bx));
    for (let p = v * bw; p < (v + 1) * bw; p++) if (state[p] === 2) drawn[p] = 0;
  }
  const light = lightness(src, bx, by, bw, bh);
  const reach = strokeReach(drawn, light, bw, bh);
  // Opening: erosion is dilation of the complement.
  const inverse = new Uint8Array(n);
  for (let p = 0; p < n; p++) inverse[p] = 1 - drawn[p]!;
  const eroded = dilate(inverse, bw, bh, reach, inverse);
  for (let p = 0; p < n; p++) eroded[p] = 1 - eroded[p]!;
  const opened = dilate(eroded, bw, bh, reach, eroded);
  // Black top-hat: closing minus the image, the closing's erosion again the dilation of the complement.
  const lifted = dilate(light, bw, bh, reach);
  for (let p = 0; p < n; p++) lifted[p] = 255 - lifted[p]!;
  const closed = dilate(lifted, bw, bh, reach, lifted);
  const contrast = Math.round(LINE_CONTRAST * 2.55);
  for (let p = 0; p < n; p++) {
    drawn[p] = drawn[p] && (!opened[p] || 255 - closed[p]! - light[p]! >= contrast) ? 1 : 0;
  }
  return { line: drawn, reach, light };
}

/** Runs of drawing longer than this (pixels) are fills or a line's length, not a stroke's width. */
const STROKE_RUN = 64;

/** The widest reach `strokeReach` gives: `separate` counts steps across a line in 4 bits (2 × 14 + 1 ≤ 15 + 15 − 1). */
const MAX_REACH = 14;

/**
 * How far either side of a line the blob's strokes reach. Where most of the drawing lies in short runs across
 * rows or columns (an outline drawing, not fills), the commonest run is the pen's width (a slanted stroke's runs
 * come longer, never shorter); on filled pieces the same is read of their dark drawing alone (LINE_CONTRAST
 * darker than the commonest lightness, the fill's): the outline drawn round them. Strokes too broad for
 * LINE_REACH (a thick pen, a scan at high resolution) widen the reach to three quarters of it beyond, which the
 * opening and the top-hat need to remove them with their junctions.
 */
function strokeReach(drawn: Uint8Array, light: Uint8Array, bw: number, bh: number): number {
  let pen = penWidth(drawn, bw, bh);
  if (pen === 0) {
    const hist = new Float64Array(256);
    for (let p = 0; p < drawn.length; p++) if (drawn[p]) hist[light[p]!]!++;
    let fill = 0;
    for (let l = 1; l < 256; l++) if (hist[l]! > hist[fill]!) fill = l;
    const dark = fill - Math.round(LINE_CONTRAST * 2.55);
    const outline = new Uint8Array(drawn.length);
    for (let p = 0; p < drawn.length; p++) outline[p] = drawn[p] && light[p]! <= dark ? 1 : 0;
    pen = penWidth(outline, bw, bh);
  }
  return Math.min(MAX_REACH, Math.max(LINE_REACH, Math.ceil(0.75 * pen) + 1));
}

/** The commonest run of `a` across rows and columns, or 0 when most of it lies in runs of STROKE_RUN or more. */
function penWidth(a: Uint8Array, bw: number, bh: number): number {
  const hist = new Float64Array(STROKE_RUN);
  let short = 0;
  let all = 0;
  const count = (a: Uint8Array, w: number, h: number) => {
    for (let v = 0; v < h; v++) {
      for (let u = 0, p = v * w; u < w; ) {
        if (!a[p + u]) {
          u++;
          continue;
        }
        const start = u;
        while (u < w && a[p + u]) u++;
        const len = u - start;
        all += len;
        if (len < STROKE_RUN) {
          hist[len]!++;
          short += len;
        }
      }
    }
  };
  count(a, bw, bh);
  count(transpose(a, bw, bh, new Uint8Array(bw * bh)), bh, bw);
  if (all === 0 || short < all / 2) return 0;
  let mode = 1;
  for (let len = 2; len < STROKE_RUN; len++) if (hist[len]! > hist[mode]!) mode = len;
  return mode;
}

/**
 * The maximum over a (2r + 1)-pixel square, as a row pass then a column pass, each in three reads a pixel
 * whatever r is (van Herk / Gil–Werman); beyond the box counts as 0. `into` may be `a`.
 */
function dilate(
  a: Uint8Array,
  w: number,
  h: number,
  r: number,
  into: Uint8Array = new Uint8Array(w * h),
): Uint8Array {
  const k = 2 * r + 1;
  const size = Math.max(w, h) + 2 * r + k;
  const line = new Uint8Array(size);
  const pre = new Uint8Array(size);
  const suf = new Uint8Array(size);
  // Each row padded by r zeros a side and cut into blocks of k: a window is a block's tail and the next
  // block's head.
  const rows = (from: Uint8Array, to: Uint8Array, count: number, lines: number) => {
    const m = count + 2 * r + k;
    for (let l = 0; l < lines; l++) {
      const o = l * count;
      line.fill(0);
      line.set(from.subarray(o, o + count), r);
      for (let b = 0; b < m; b += k) {
        const e = Math.min(b + k, m);
        let acc = 0;
        for (let i = b; i < e; i++) {
          acc = Math.max(acc, line[i]!);
          pre[i] = acc;
        }
        acc = 0;
        for (let i = e - 1; i >= b; i--) {
          acc = Math.max(acc, line[i]!);
          suf[i] = acc;
        }
      }
      for (let i = 0; i < count; i++) to[o + i] = Math.max(suf[i]!, pre[i + 2 * r]!);
    }
  };
  // Columns as the rows of the transposed image: a column walk would miss the cache on every pixel.
  const across = new Uint8Array(w * h);
  rows(a, across, w, h);
  const down = transpose(across, w, h, new Uint8Array(w * h));
  rows(down, across, h, w);
  return transpose(across, h, w, into);
}

/** `a` (`w` × `h`) transposed into `out` (`h` × `w`), in tiles that stay in the cache. */
function transpose(a: Uint8Array, w: number, h: number, out: Uint8Array): Uint8Array {
  const T = 64;
  for (let y0 = 0; y0 < h; y0 += T) {
    const y1 = Math.min(h, y0 + T);
    for (let x0 = 0; x0 < w; x0 += T) {
      const x1 = Math.min(w, x0 + T);
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) out[x * h + y] = a[y * w + x]!;
    }
  }
  return out;
}

/** L* (0…100 scaled to 0…255) over the box, over white where the source is see-through or absent. */
function lightness(src: Raster, bx: number, by: number, bw: number, bh: number): Uint8Array {
  const out = new Uint8Array(bw * bh).fill(255);
  const d = src.data;
  for (let v = 0; v < bh; v++) {
    const y = by + v;
    if (y < 0 || y >= src.h) continue;
    for (let u = Math.max(0, -bx); u < Math.min(bw, src.w - bx); u++) {
      const i = (y * src.w + bx + u) * 4;
      const a = d[i + 3]!;
      let r = d[i]!;
      let g = d[i + 1]!;
      let b = d[i + 2]!;
      if (a < 255) {
        r = Math.round((r * a + 255 * (255 - a)) / 255);
        g = Math.round((g * a + 255 * (255 - a)) / 255);
        b = Math.round((b * a + 255 * (255 - a)) / 255);
      }
      const Y = 0.2126729 * LINEAR[r]! + 0.7151522 * LINEAR[g]! + 0.072175 * LINEAR[b]!;
      out[v * bw + u] = L_OF_Y[Math.round(Y * 4095)]!;
    }
  }
  return out;
}

const LINEAR = new Float64Array(256).map((_, i) => {
  const c = i / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

const L_OF_Y = new Uint8Array(4096).map((_, i) => {
  const t = i / 4095;
  const f = t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116;
  return Math.round((116 * f - 16) * 2.55);
});

function inside(filled: Uint8Array, box: Rect, x: number, y: number): boolean {
  const u = x - box.x;
  const v = y - box.y;
  return u >= 0 && v >= 0 && u < box.w && v < box.h && filled[v * box.w + u] === 1;
}

type Cut = ReturnType<typeof cut>;

/**
 * A blob as a piece: its soft edge on a layer with transparency (outside pixels with some alpha within
 * EDGE_REACH steps of the shape), and the source's pixels there. A hole's pixels are made opaque (over white
 * where the source is see-through: an outline drawn on transparency), so the piece is one solid shape.
 */
function cut(src: Raster, blob: Blob, soft: boolean) {
  const { bx: bx0, by: by0, bw, bh } = blob;
  const state = blob.state;
  const sw = src.w;
  const sh = src.h;
  const alpha = (x: number, y: number) =>
    x < 0 || y < 0 || x >= sw || y >= sh ? 0 : src.data[(y * sw + x) * 4 + 3]!;
  // 0 a hole, 1 in the shape, 2 outside, 3 soft edge.
  // The soft edge: outside pixels with some alpha, within EDGE_REACH steps of the shape.
  if (soft) {
    for (let step = 0; step < EDGE_REACH; step++) {
      const grow: number[] = [];
      for (let v = 1; v < bh - 1; v++) {
        for (let u = 1; u < bw - 1; u++) {
          const p = v * bw + u;
          // Not into another piece's opaque pixels: pieces that touch on a layer with transparency.
          const a = alpha(bx0 + u, by0 + v);
          if (state[p] !== 2 || a === 0 || a >= OPAQUE) continue;
          let near = false;
          for (let dv = -1; dv <= 1 && !near; dv++) {
            for (let du = -1; du <= 1; du++) {
              const s = state[p + dv * bw + du]!;
              if (s !== 2) {
                near = true;
                break;
              }
            }
          }
          if (near) grow.push(p);
        }
      }
      for (const p of grow) state[p] = 3;
    }
  }
  let x0 = bw;
  let y0 = bh;
  let x1 = -1;
  let y1 = -1;
  for (let v = 0; v < bh; v++) {
    for (let u = 0; u < bw; u++) {
      if (state[v * bw + u] === 2) continue;
      if (u < x0) x0 = u;
      if (u > x1) x1 = u;
      if (v < y0) y0 = v;
      y1 = v;
    }
  }
  const box = { x: bx0 + x0, y: by0 + y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
  const raster = blankRaster({ x: src.x + box.x, y: src.y + box.y, w: box.w, h: box.h });
  const filled = new Uint8Array(box.w * box.h);
  const out = raster.data;
  let area = 0;
  let holes = 0;
  let shown = 0;
  for (let v = 0; v < box.h; v++) {
    for (let u = 0; u < box.w; u++) {
      const s = state[(v + y0) * bw + u + x0]!;
      if (s === 2) continue;
      const x = box.x + u;
      const y = box.y + v;
      const i = (y * sw + x) * 4;
      const o = (v * box.w + u) * 4;
      const a = src.data[i + 3]!;
      if (s === 0 && a < 255) {
        // A hole's pixel: over white, opaque.
        const k = a / 255;
        for (let ch = 0; ch < 3; ch++) out[o + ch] = Math.round(src.data[i + ch]! * k + 255 * (1 - k));
        out[o + 3] = 255;
        holes++;
      } else {
        out[o] = src.data[i]!;
        out[o + 1] = src.data[i + 1]!;
        out[o + 2] = src.data[i + 2]!;
        out[o + 3] = a;
        if (s === 0 && soft) holes++;
      }
      if (a > 0) shown++;
      if (s !== 3) {
        filled[v * box.w + u] = 1;
        area++;
      }
    }
  }
  return { raster, area, filled, box, holes, shown };
}

/** Rows top to bottom (pieces sharing at least half the shorter one's height), left to right within a row. */
function readingOrder<T extends { box: Rect }>(pieces: readonly T[]): T[] {
  const overlap = (a0: number, a1: number, b0: number, b1: number) => Math.min(a1, b1) - Math.max(a0, b0);
  const rows: T[][] = [];
  for (const p of [...pieces].sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x)) {
    const row = rows.at(-1);
    const first = row?.[0];
    if (
      row &&
      first &&
      overlap(p.box.y, p.box.y + p.box.h, first.box.y, first.box.y + first.box.h) >=
        Math.min(p.box.h, first.box.h) / 2
    ) {
      row.push(p);
    } else {
      rows.push([p]);
    }
  }
  return rows.flatMap((row) => {
    // Pieces stacked in a column within the row (sharing half the narrower one's width) read top to bottom.
    const columns: T[][] = [];
    for (const p of [...row].sort((a, b) => a.box.x - b.box.x)) {
      const col = columns.find(
        (c) =>
          overlap(p.box.x, p.box.x + p.box.w, c[0]!.box.x, c[0]!.box.x + c[0]!.box.w) >=
          Math.min(p.box.w, c[0]!.box.w) / 2,
      );
      if (col) col.push(p);
      else columns.push([p]);
    }
    return columns.flatMap((c) => c.sort((a, b) => a.box.y - b.box.y));
  });
}

/** The longest side, in pixels, on which pieceSizedRegions counts a layer's regions. */
const REGION_PROXY_SIDE = 1024;

/**
 * How many separate regions of a piece layer's mask (1 = inside, `w` × `h`) are large enough to be pieces by
 * splitRaster's rule: two or more mean the layer holds several pieces.
 */
export function pieceSizedRegions(mask: Uint8Array, w: number, h: number): number {
  // Read on a proxy: identify_pieces asks this of every piece layer, and a 150-DPI marker's masks hold tens of
  // megapixels. A proxy pixel stands for 1.5 mm of a 150-DPI marker's width at most; pieces closer than that
  // (a rare marker) read as one region here, and split_pieces itself reads the full layer.
  const step = Math.max(w, h) / REGION_PROXY_SIDE;
  if (step > 1) {
    const pw = Math.max(1, Math.floor(w / step));
    const ph = Math.max(1, Math.floor(h / step));
    return pieceSizedRegions(resampleMask(mask, w, h, pw, ph), pw, ph);
  }
  const { comps } = components(mask, w, h);
  const largest = comps.reduce((m, c) => Math.max(m, c.area), 0);
  return comps.filter((c) => c.area >= largest * MIN_PIECE_SHARE).length;
}
