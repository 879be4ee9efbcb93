/**
 * A garment photographed on a person (an on-model product photo, or a cut-out of one) shows the wearer beside it:
 * the head and neck through the neck opening, arms out of the sleeves, trousers or legs below the hem. Found as
 * the background is not, they were read as garment: its bounds ran from the hair to the frame's foot, the skin
 * and the trousers came into the palette, and a plain shirt read as a motif print.
 *
 * The wearer is told by where it lies and what it is, not by a model (none that parses a person ships in an npm
 * package to run offline). The garment's own colours are those of the middle of the foreground (the torso, which
 * the garment covers whoever wears it). A region of other colours is the wearer when it hangs off the garment —
 * most of its outline on the background, the frame or another such region, not on the garment — and it is skin
 * meeting the garment only at a sleeve's end or rising above its top (arms, a neck), or it lies above the garment's
 * top (hair, a hat) or below its hem (legs), cut there by the frame or reaching well beyond. A garment's own parts
 * of another colour (contrast sleeves, even skin-like camel ones, cuffs, a hem band, a print along its edge) are
 * sewn on along the garment rather than hanging off it, even where the frame cuts them.
 */
import { type Component, components, countMask, type LabPlanes, maskBounds } from '../image.js';
import { grow, largest, opening } from './morphology.js';

/** The foreground's middle that the garment covers: rows and columns as shares of its bounds. */
const CORE_ROWS = [0.3, 0.7] as const;
const CORE_COLS = [0.35, 0.65] as const;
/** A colour cell is the garment's when this share of the middle's samples fall in it. */
const CELL_SHARE = 0.002;
/** Lab cells: L in steps of 4, a and b in steps of 4. */
const CELL = 4;
/**
 * Farther than this from every colour of the garment's middle a pixel is another colour (ΔE76 with L at half
 * weight: folds and shading change the lightness of one colour far more than its hue).
 */
const FOREIGN_DE = 10;
/** The least share of the foreground a wearer's part covers (a hand below a long sleeve is 0.3 %). */
const MIN_PART = 0.004;
/** The least share of a part's outline that is off the garment for it to hang off the garment. */
const HANGS_OFF = 0.5;
/** The least share of a limb's surroundings off the garment: it meets the garment only at a sleeve's end. */
const LIMB_OFF = 0.8;
/** How far in from the photo's edge (px) a part counts as cut by the frame (its outermost pixels are background). */
const FRAME = 4;
/**
 * How wide (px) the fringe along a part's outline is that is of neither its colours nor the background's (its
 * edge mixed with the background, JPEG's ringing): it is of the garment's colours by chance, a limb's outline
 * left as a shell about it, and is opened off.
 */
const FRINGE = 4;
/** How far past its fringe and shell (px) a part's surroundings are read. */
const RING_PAST = 4;
/** The least share of a part's rows outside the garment's for it to lie beyond the garment (above or below). */
const BEYOND = 0.8;
/**
 * Hair and hats rise this share of the garment's height above its top; a collar of another colour rises less (a
 * stand 4 cm on a 70 cm shirt: 6 %).
 */
const ABOVE_TOP = 0.1;
/**
 * Legs cut by the frame below the hem show at least this share of the garment's height (a waist-up crop still shows
 * 12 % of our shirt's); a band of the garment's own, cut by the frame with it, is lower (a hem band: 5–8 %).
 */
const LEGS_SHOWN = 0.1;
/** Legs reach at least this share of the garment's height below its hem. */
const BELOW_HEM = 0.2;

export interface Wearer {
  /** The foreground without the wearer. */
  readonly mask: Uint8Array;
  /** The wearer's pixels, grown over their fringe. */
  readonly wearer: Uint8Array;
}

/** How the mask was found. */
export interface Found {
  /** The radius (px) the mask was closed by, which fills a shell that wide about each limb with background. */
  readonly closed?: number;
  /** Whether a pixel has the background's colour, where that is known: the shell is, the garment is not. */
  readonly background?: (i: number) => boolean;
}

/**
 * `mask` without the person wearing the garment, or null when no part of one is found. Read on every other pixel
 * of a photo over READ_SIDE px (a wearer's parts are a few thousand of them; read whole, a megapixel cost 0.2 s),
 * and what it takes off drawn back at the photo's size.
 */
export function withoutWearer(mask: Uint8Array, lab: LabPlanes, how: Found = {}): Wearer | null {
  const { w, h } = lab;
  if (Math.max(w, h) <= READ_SIDE) return peeled(mask, lab, how);
  const sw = w >> 1;
  const sh = h >> 1;
  const at = (i: number) => ((((i / sw) | 0) * w) << 1) + ((i % sw) << 1);
  const small = new Uint8Array(sw * sh);
  const L = new Float32Array(sw * sh);
  const a = new Float32Array(sw * sh);
  const b = new Float32Array(sw * sh);
  for (let i = 0; i < small.length; i++) {
    const j = at(i);
    small[i] = mask[j]!;
    L[i] = lab.L[j]!;
    a[i] = lab.a[j]!;
    b[i] = lab.b[j]!;
  }
  const { closed = 0, background } = how;
  const read = peeled(
    small,
    { w: sw, h: sh, L, a, b },
    {
      closed: Math.ceil(closed / 2),
      ...(background ? { background: (i: number) => background(at(i)) } : {}),
    },
  );
  if (!read) return null;
  const wearer = new Uint8Array(w * h);
  const out = new Uint8Array(w * h);
  for (let y = 0, i = 0; y < h; y++) {
    const row = Math.min(sh - 1, y >> 1) * sw;
    for (let x = 0; x < w; x++, i++) {
      const k = row + Math.min(sw - 1, x >> 1);
      // Taken off: the wearer, and what the small mask lost beside it.
      const off = read.wearer[k]! || (small[k]! && !read.mask[k]);
      wearer[i] = off ? 1 : 0;
      out[i] = mask[i] && !off ? 1 : 0;
    }
  }
  return { mask: largest(out, w, h), wearer };
}

/** Photos up to this side (px) are read at every pixel. */
const READ_SIDE = 700;

function peeled(mask: Uint8Array, lab: LabPlanes, how: Found): Wearer | null {
  const { closed = 0, background } = how;
  const { w, h } = lab;
  const n = w * h;
  const g = maskBounds(mask, w, h);
  if (!g) return null;
  const area = countMask(mask);
  const own = garmentColours(mask, lab, g);
  if (!own) return null;
  const foreign = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (mask[i] && !own.has(lab.L[i]!, lab.a[i]!, lab.b[i]!)) foreign[i] = 1;
  // Print edges and JPEG's ringing between two of the garment's colours are specks and slivers: opened off.
  const parts = opening(foreign, w, h, 2);
  const { comps, labels } = components(parts, w, h);
  const big = comps.filter((c) => c.area >= MIN_PART * area);
  if (!big.length) return null;
  const atFrame = new Float64Array(comps.length + 1);
  const skin = new Float64Array(comps.length + 1);
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      const l = labels[i]!;
      if (!l) continue;
      if (isSkin(lab.L[i]!, lab.a[i]!, lab.b[i]!)) skin[l] = skin[l]! + 1;
      if (x < FRAME || y < FRAME || x >= w - FRAME || y >= h - FRAME) atFrame[l] = atFrame[l]! + 1;
    }
  }
  // The garment's extent without the other colours: what the parts are above or below.
  const rest = new Uint8Array(n);
  for (let i = 0; i < n; i++) rest[i] = mask[i] && !parts[i] ? 1 : 0;
  // Past the fringe and the shell the mask was closed into about each limb.
  const shell = FRINGE + closed;
  const garment = opening(rest, w, h, shell);
  const body = maskBounds(largest(garment, w, h), w, h);
  if (!body) return null;
  const hem = body.y + body.h;
  const taken = new Set<number>();
  for (const c of big) {
    const l = c.label;
    const off = offGarmentShare(c, labels, mask, w, h, shell + RING_PAST);
    const hangsOff = off >= HANGS_OFF;
    // Above the garment's top or below its hem (a head and neck, legs): told by its rows, as a strip of legs cut
    // by the frame below the hem meets the garment along as much of its outline as it leaves.
    const inRows = Math.max(0, Math.min(c.y1 + 1, hem) - Math.max(c.y0, body.y));
    const beyond = inRows <= (1 - BEYOND) * (c.y1 + 1 - c.y0);
    if (!hangsOff && !beyond) continue;
    // Cut by the frame counts only beyond the garment's rows: a cropped photo cuts the garment's own sleeve too.
    const cut = atFrame[l]! > 0;
    const above = beyond && (c.y0 + c.y1) / 2 < body.y;
    const below = beyond && c.y0 >= hem - BELOW_HEM * body.h;
    // Skin that hangs off the garment: a limb out of a sleeve's end (its surroundings 0.9 off the garment) or what
    // rises above its top (a neck through the neck opening). A sleeve of a skin-like colour (tan, camel) is sewn
    // on along the armhole, a third of its surroundings.
    const skinned = skin[l]! >= 0.5 * c.area;
    const isWearer =
      (skinned && (off >= LIMB_OFF || (hangsOff && (c.y0 + c.y1) / 2 < body.y))) ||
      (above && (cut || c.y0 < body.y - ABOVE_TOP * body.h)) ||
      (below && ((cut && c.y1 + 1 - c.y0 >= LEGS_SHOWN * body.h) || c.y1 >= hem + BELOW_HEM * body.h));
    if (isWearer) taken.add(l);
  }
  if (!taken.size) return null;
  const wearer = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (taken.has(labels[i]!)) wearer[i] = 1;
  // With their fringe and shell, but not the garment they meet: what is wider than the shell, and (where the
  // background's colour is known) what is of the garment's colours and not the background's (a sleeve's narrow
  // end, where an arm comes out of it).
  const grown = grow(wearer, w, h, shell);
  // With the bits of its colours the opening cut off it within that reach (an arm's top in the wedge between the
  // sleeve's hem and the body).
  const reach = new Uint8Array(n);
  for (let i = 0; i < n; i++) reach[i] = wearer[i] || (grown[i] && foreign[i]) ? 1 : 0;
  const joined = components(reach, w, h);
  const withWearer = new Set<number>();
  for (let i = 0; i < n; i++) if (wearer[i]) withWearer.add(joined.labels[i]!);
  for (let i = 0; i < n; i++) if (withWearer.has(joined.labels[i]!)) wearer[i] = 1;
  for (let i = 0; i < n; i++) {
    if (!grown[i] || wearer[i]) continue;
    if (garment[i] || (background && !background(i) && !foreign[i])) grown[i] = 0;
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = mask[i] && !grown[i] ? 1 : 0;
  // What is left of a limb's fringe given back with the garment's colours (skin mixed with a light background
  // reads as a cream) is a line along where the limb was: opened off.
  const opened = opening(out, w, h, FRINGE);
  const near = grow(grown, w, h, 2 * FRINGE);
  for (let i = 0; i < n; i++) if (near[i]) out[i] = opened[i]! & out[i]!;
  return { mask: largest(out, w, h), wearer: grown };
}

/**
 * The share of a part's surroundings, ring px out (past the fringe its edge mixes with what lies beside it: read
 * there, a limb on a cream sweep was all "garment"), that is not the garment: background, frame, another part.
 */
function offGarmentShare(
  c: Component,
  labels: Int32Array,
  mask: Uint8Array,
  w: number,
  h: number,
  ring: number,
): number {
  const x0 = Math.max(0, c.x0 - ring - 1);
  const y0 = Math.max(0, c.y0 - ring - 1);
  const cw = Math.min(w, c.x1 + ring + 2) - x0;
  const ch = Math.min(h, c.y1 + ring + 2) - y0;
  const own = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++)
    for (let x = 0; x < cw; x++) if (labels[(y0 + y) * w + x0 + x] === c.label) own[y * cw + x] = 1;
  const inner = grow(own, cw, ch, ring - 1);
  const outer = grow(own, cw, ch, ring);
  let on = 0;
  let off = 0;
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const k = y * cw + x;
      if (!outer[k] || inner[k]) continue;
      const i = (y0 + y) * w + x0 + x;
      if (mask[i] && !labels[i]) on++;
      else off++;
    }
  }
  // Cut by the frame: beyond it the part goes on, off the garment.
  const cut =
    (c.x0 === 0 ? ch : 0) + (c.y0 === 0 ? cw : 0) + (c.x1 === w - 1 ? ch : 0) + (c.y1 === h - 1 ? cw : 0);
  return on + off + cut ? (off + cut) / (on + off + cut) : 0;
}

/**
 * Skin, in any of its tones: warm (hue 25–75°), of some colour but not a vivid one, neither near-white nor
 * near-black.
 */
function isSkin(L: number, a: number, b: number): boolean {
  if (L < 25 || L > 92 || a < 5 || b < 7) return false;
  const chroma = Math.hypot(a, b);
  const hue = (Math.atan2(b, a) * 180) / Math.PI;
  return chroma >= 10 && chroma <= 50 && hue >= 25 && hue <= 75;
}

interface Colours {
  has(L: number, a: number, b: number): boolean;
}

/**
 * The colours of the foreground's middle, as cells of Lab grown by FOREIGN_DE: a pixel is of the garment's
 * colours when its cell is marked.
 */
function garmentColours(
  mask: Uint8Array,
  lab: LabPlanes,
  g: { x: number; y: number; w: number; h: number },
): Colours | null {
  const { w } = lab;
  const NL = Math.ceil(101 / CELL);
  const NA = Math.ceil(256 / CELL);
  const cellOf = (L: number, a: number, b: number) => {
    const l = Math.min(NL - 1, Math.max(0, Math.floor(L / CELL)));
    const ca = Math.min(NA - 1, Math.max(0, Math.floor((a + 128) / CELL)));
    const cb = Math.min(NA - 1, Math.max(0, Math.floor((b + 128) / CELL)));
    return (l * NA + ca) * NA + cb;
  };
  const counts = new Uint32Array(NL * NA * NA);
  let samples = 0;
  const y0 = Math.round(g.y + CORE_ROWS[0] * g.h);
  const y1 = Math.round(g.y + CORE_ROWS[1] * g.h);
  const x0 = Math.round(g.x + CORE_COLS[0] * g.w);
  const x1 = Math.round(g.x + CORE_COLS[1] * g.w);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * w + x;
      if (!mask[i]) continue;
      counts[cellOf(lab.L[i]!, lab.a[i]!, lab.b[i]!)]!++;
      samples++;
    }
  }
  if (samples < 100) return null;
  const least = Math.max(2, CELL_SHARE * samples);
  const marked = new Uint8Array(counts.length);
  // Each of the middle's colours marks the cells within FOREIGN_DE of it (L counted at half weight).
  const rL = Math.ceil((2 * FOREIGN_DE) / CELL);
  const rab = Math.ceil(FOREIGN_DE / CELL);
  for (let c = 0; c < counts.length; c++) {
    if (counts[c]! < least) continue;
    const cb = c % NA;
    const ca = Math.floor(c / NA) % NA;
    const l = Math.floor(c / (NA * NA));
    for (let dl = -rL; dl <= rL; dl++) {
      const L = l + dl;
      if (L < 0 || L >= NL) continue;
      for (let da = -rab; da <= rab; da++) {
        const A = ca + da;
        if (A < 0 || A >= NA) continue;
        for (let db = -rab; db <= rab; db++) {
          const B = cb + db;
          if (B < 0 || B >= NA) continue;
          // Cell centres apart, in ΔE with L at half weight; a cell's own width is forgiven.
          const d = Math.hypot((dl * CELL) / 2, da * CELL, db * CELL);
          if (d <= FOREIGN_DE) marked[(L * NA + A) * NA + B] = 1;
        }
      }
    }
  }
  return { has: (L, a, b) => marked[cellOf(L, a, b)] === 1 };
}
