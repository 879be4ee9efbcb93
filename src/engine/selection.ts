/**
 * The pixel selection as mask math (engine.md §1.9). A selection is a `Mask`: one channel, 255 = selected, with
 * `outside` the value beyond its rectangle. Only the part inside the canvas means anything; every function here
 * returns masks cut to the canvas, and `null` stands for "no selection". Select All is stored without pixels
 * (an empty rectangle with `outside: 255`), so selecting a 9000 × 18000 canvas costs nothing.
 *
 * A selection costs what it covers: a marquee (or its inverse) is a rectangle that is uniform inside and is
 * stored without pixels (`uniformRect`) until something reads its `data` — a feather, add_layer_mask, a
 * resample — and every function here answers for it from its rectangle alone. Masks made from pixels are cut to
 * the area where they differ from `outside`.
 *
 * Masks are immutable: every function returns a new mask (or the same object when nothing changes).
 */

import { fail } from './errors.js';
import { FEATHER_SIGMA_PER_RADIUS } from './feather.js';
import type { Mask, Raster, Rect } from './model.js';
import {
  allocMask,
  copyPixels,
  cropMask,
  cropRaster,
  EMPTY_RECT,
  intersectRect,
  isEmptyRect,
  markedBounds,
  shareMask,
  trimRaster,
  unionRect,
} from './raster.js';
import sharp from './sharp.js';

export { FEATHER_SIGMA_PER_RADIUS };

/**
 * Where the Gaussian kernel is cut, relative to its peak. libvips' default (0.2) stops at ±1.8σ and makes the
 * ramp visibly shorter and steeper than a Gaussian (8 levels off at σ = 4); 0.005 keeps ±3.3σ.
 */
const MIN_AMPLITUDE = 0.005;

/**
 * sharp's fast integer-precision blur of 8-bit data rounds its kernel so that the weights do not quite sum to
 * one: a uniform 255 comes out as 249–253 for many σ (e.g. σ = 5 → 251), which would leave the inside of a
 * feathered selection short of fully selected. The gain is measured once per σ on a tiny uniform image (edge
 * extension makes any size uniform) and divided out in the same pipeline. What remains is the kernel's shape
 * rounding: within ~8 levels of the exact Gaussian for σ ≥ 1 (measured against the erf profile, σ 0.3–30).
 * Float precision is exact but 5–17× slower (6 s for σ = 25 on 4000²), 16-bit input 3–10× slower.
 */
const gains = new Map<number, number>();

async function blurGain(sigma: number): Promise<number> {
  let g = gains.get(sigma);
  if (g === undefined) {
    const flat = await sharp(new Uint8Array(9).fill(255), { raw: { width: 3, height: 3, channels: 1 } })
      .blur({ sigma, minAmplitude: MIN_AMPLITUDE })
      .extractChannel(0)
      .raw()
      .toBuffer();
    g = flat[4]! / 255;
    if (gains.size >= 256) gains.clear();
    gains.set(sigma, g);
  }
  return g;
}

/** sharp refuses σ below 0.3; a Gaussian that narrow changes an 8-bit mask by at most one level anyway. */
const MIN_SIGMA = 0.3;

function canvasOf(width: number, height: number): Rect {
  return { x: 0, y: 0, w: width, h: height };
}

interface Uniform {
  readonly inside: 0 | 255;
  data?: Uint8Array;
}

/** The rectangles stored without pixels, with their inside value and their pixels once something read them. */
const uniforms = new WeakMap<Mask, Uniform>();

/**
 * A rectangle whose every pixel is `inside` (and everything beyond it the other value), stored without pixels:
 * its `data` is made on first read (an own, enumerable getter, so a spread or a structured clone reads it
 * too), which keeps every reader of `Mask.data` right while the functions here never need it.
 */
export function uniformRect(rect: Rect, inside: 0 | 255): Mask {
  const outside = inside === 255 ? 0 : 255;
  if (isEmptyRect(rect)) return { ...EMPTY_RECT, data: new Uint8Array(0), outside };
  const state: Uniform = { inside };
  const m = { x: rect.x, y: rect.y, w: rect.w, h: rect.h, outside } as Mask;
  Object.defineProperty(m, 'data', {
    enumerable: true,
    get: () => {
      state.data ??= allocMask(rect.w * rect.h).fill(inside);
      return state.data;
    },
  });
  uniforms.set(m, state);
  return m;
}

/** The value of every pixel inside `m`'s rectangle when `m` is a rectangle stored without pixels. */
export function uniformInside(m: Mask): 0 | 255 | undefined {
  return uniforms.get(m)?.inside;
}

/** The bytes of pixels `m` holds now (0 for a rectangle whose `data` nothing has read yet). */
export function maskPixelBytes(m: Mask): number {
  const u = uniforms.get(m);
  return u ? (u.data?.byteLength ?? 0) : m.data.byteLength;
}

/** The part of `m` inside `rect`; a uniform rectangle stays one. */
export function cropSelection(m: Mask, rect: Rect): Mask {
  const inside = uniformInside(m);
  if (inside === undefined) return cropMask(m, rect);
  const common = intersectRect(m, rect);
  return same(common, m) ? m : uniformRect(common, inside);
}

/** `m` moved by whole pixels; a uniform rectangle stays one. */
export function translateSelection(m: Mask, dx: number, dy: number): Mask {
  if (dx === 0 && dy === 0) return m;
  const inside = uniformInside(m);
  if (inside === undefined) return { ...m, x: m.x + dx, y: m.y + dy };
  return uniformRect({ x: m.x + dx, y: m.y + dy, w: m.w, h: m.h }, inside);
}

function same(a: Rect, b: Rect): boolean {
  return a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
}

/** The whole canvas, stored without pixels. */
export function allMask(): Mask {
  return { ...EMPTY_RECT, data: new Uint8Array(0), outside: 255 };
}

/** Whether `m` selects every pixel of a `width × height` canvas fully. */
export function selectsAll(m: Mask, width: number, height: number): boolean {
  if (m.outside !== 255 && !covers(m, canvasOf(width, height))) return false;
  const inside = intersectRect(m, canvasOf(width, height));
  const uniform = uniformInside(m);
  if (uniform !== undefined) return uniform === 255 || isEmptyRect(inside);
  for (let y = inside.y; y < inside.y + inside.h; y++) {
    const row = (y - m.y) * m.w + (inside.x - m.x);
    for (let i = row; i < row + inside.w; i++) if (m.data[i] !== 255) return false;
  }
  return true;
}

function covers(outer: Rect, inner: Rect): boolean {
  return (
    outer.x <= inner.x &&
    outer.y <= inner.y &&
    outer.x + outer.w >= inner.x + inner.w &&
    outer.y + outer.h >= inner.y + inner.h
  );
}

/** A fully selected rectangle (cut to the canvas); empty when it lies outside. */
export function rectMask(rect: Rect, width: number, height: number): Mask {
  return uniformRect(intersectRect(rect, canvasOf(width, height)), 255);
}

/** `m` cut to its values that differ from `outside` (the same object when already tight). */
export function trimMask(m: Mask): Mask {
  if (uniformInside(m) !== undefined) return m; // every pixel inside differs from `outside`
  const { w, h, data: d, outside } = m;
  const marked = (x: number, y: number) => d[y * w + x] !== outside;
  const rowMarked = (y: number) => {
    for (let i = y * w, end = i + w; i < end; i++) if (d[i] !== outside) return true;
    return false;
  };
  const b = markedBounds(w, h, marked, rowMarked);
  if (isEmptyRect(b)) return { ...EMPTY_RECT, data: new Uint8Array(0), outside };
  return cropMask(m, { ...b, x: m.x + b.x, y: m.y + b.y });
}

/**
 * `m` as a selection of a `width × height` canvas: cut to the canvas and to what differs from its `outside`
 * value, or null when nothing inside the canvas is selected (Photoshop drops an empty selection).
 */
export function normaliseSelection(m: Mask, width: number, height: number): Mask | null {
  const canvas = canvasOf(width, height);
  const tight = trimMask(cropSelection(m, canvas));
  // Fully selected everywhere beyond the rectangle: Select All, possibly with a hole.
  if (tight.outside === 255) return tight;
  if (isEmptyRect(tight)) return null;
  return selectsAll(tight, width, height) ? allMask() : tight;
}

/**
 * The bounding box of the selected pixels (value > 0) inside the canvas; empty when none. With `outside: 255`
 * everything beyond the rectangle is selected, so the box is the canvas unless the rectangle covers it.
 */
export function selectionBounds(m: Mask, width: number, height: number): Rect {
  const canvas = canvasOf(width, height);
  if (m.outside === 255 && !covers(m, canvas)) return canvas;
  const uniform = uniformInside(m);
  if (uniform !== undefined) return uniform === 255 ? intersectRect(m, canvas) : EMPTY_RECT;
  const inside = cropMask(m, canvas);
  const tight = trimMask({ ...inside, outside: 0 });
  return isEmptyRect(tight) ? EMPTY_RECT : { x: tight.x, y: tight.y, w: tight.w, h: tight.h };
}

/**
 * The mask's values over `rect`, row by row (`rect.w × rect.h`), or a single number when they are all the same
 * (e.g. 255 for Select All), so callers can skip per-pixel work.
 */
export function sampleMask(m: Mask, rect: Rect): Uint8Array | number {
  const common = intersectRect(m, rect);
  if (isEmptyRect(common)) return m.outside;
  const uniform = uniformInside(m);
  if (uniform !== undefined && covers(common, rect)) return uniform;
  const out = new Uint8Array(rect.w * rect.h);
  if (!covers(common, rect)) out.fill(m.outside);
  copyRows(m, common, out, rect);
  const first = out[0]!;
  for (let i = 1; i < out.length; i++) if (out[i] !== first) return out;
  return first;
}

/** `m`'s values over `part` (inside both `m` and `to`) written into `dest`, which covers `to` row by row. */
function copyRows(m: Mask, part: Rect, dest: Uint8Array, to: Rect): void {
  const uniform = uniformInside(m);
  for (let row = 0; row < part.h; row++) {
    const d = (part.y + row - to.y) * to.w + (part.x - to.x);
    if (uniform !== undefined) {
      dest.fill(uniform, d, d + part.w);
      continue;
    }
    const s = (part.y + row - m.y) * m.w + (part.x - m.x);
    dest.set(m.data.subarray(s, s + part.w), d);
  }
}

/** 255 − m everywhere, the value beyond the rectangle included (Photoshop's Select › Inverse). */
export function invertMask(m: Mask): Mask {
  const uniform = uniformInside(m);
  if (uniform !== undefined) return uniformRect(m, uniform === 255 ? 0 : 255);
  const data = allocMask(m.data.length);
  for (let i = 0; i < data.length; i++) data[i] = 255 - m.data[i]!;
  return { x: m.x, y: m.y, w: m.w, h: m.h, data, outside: m.outside === 255 ? 0 : 255 };
}

/** The alpha channel of a raster as a selection (Ctrl-click on a layer thumbnail), cut to the canvas. */
export function alphaMask(r: Raster, width: number, height: number): Mask {
  const rect = intersectRect(r, canvasOf(width, height));
  const data = allocMask(rect.w * rect.h);
  for (let y = 0; y < rect.h; y++) {
    let s = ((rect.y + y - r.y) * r.w + (rect.x - r.x)) * 4 + 3;
    const d = y * rect.w;
    for (let x = 0; x < rect.w; x++, s += 4) data[d + x] = r.data[s]!;
  }
  return trimMask({ ...rect, data, outside: 0 });
}

/** The Gaussian σ a feather radius maps to. */
export function featherSigma(radius: number): number {
  return Math.max(MIN_SIGMA, radius * FEATHER_SIGMA_PER_RADIUS);
}

/**
 * Feathers a selection: a Gaussian blur of the mask with σ = `featherSigma(radius)`. The mask is widened by 3σ
 * with its `outside` value first, so the ramp is not cut; the canvas edge is not an edge of the selection (the
 * blur repeats the edge pixels there, as Photoshop does when a marquee touches the canvas border).
 */
export async function featherMask(m: Mask, radius: number, width: number, height: number): Promise<Mask> {
  if (!(radius > 0)) fail('invalid_arguments', `羽化半径 ${radius} 无效，必须大于 0`);
  const canvas = canvasOf(width, height);
  const sigma = featherSigma(radius);
  const margin = Math.ceil(3 * sigma) + 1;
  const inside = cropSelection(m, canvas);
  if (isEmptyRect(inside)) return inside; // uniform over the canvas: blurring changes nothing
  const area = intersectRect(
    { x: inside.x - margin, y: inside.y - margin, w: inside.w + 2 * margin, h: inside.h + 2 * margin },
    canvas,
  );
  const src = new Uint8Array(area.w * area.h);
  if (inside.outside !== 0) src.fill(inside.outside);
  copyRows(inside, inside, src, area);
  const gain = await blurGain(sigma);
  const { data, info } = await sharp(Buffer.from(src.buffer, src.byteOffset, src.byteLength), {
    raw: { width: area.w, height: area.h, channels: 1 },
    limitInputPixels: false,
  })
    .blur({ sigma, minAmplitude: MIN_AMPLITUDE })
    .linear(1 / gain, 0)
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width !== area.w || info.height !== area.h || info.channels !== 1) {
    fail('internal', `羽化结果尺寸异常：${info.width}×${info.height}×${info.channels}`);
  }
  const blurred = shareMask(data); // into shared memory, as every document buffer (raster.ts)
  return trimMask({ ...area, data: blurred, outside: inside.outside });
}

/** How much of the canvas the selection covers: 0–100 %, the mean of the mask over the canvas. */
export function selectedPercent(m: Mask, width: number, height: number): number {
  const canvas = canvasOf(width, height);
  const inside = intersectRect(m, canvas);
  let sum = (width * height - inside.w * inside.h) * m.outside;
  const uniform = uniformInside(m);
  if (uniform !== undefined) {
    sum += inside.w * inside.h * uniform;
  } else {
    for (let y = inside.y; y < inside.y + inside.h; y++) {
      const row = (y - m.y) * m.w + (inside.x - m.x);
      for (let i = row; i < row + inside.w; i++) sum += m.data[i]!;
    }
  }
  return width * height > 0 ? (sum / (255 * width * height)) * 100 : 0;
}

/**
 * Photoshop's Edit › Fill with a colour in Normal mode: inside `region` (document pixels), the colour is laid
 * over the raster with coverage `opacity × mask / 255` (straight-alpha source-over, engine.md §1.9). Without a
 * mask the coverage is `opacity` everywhere in `region`. The raster grows to cover `region`; with
 * `preserveAlpha` (the layer's transparency lock) it does not, and only colours change, alpha kept.
 */
export function fillPixels(
  raster: Raster,
  region: Rect,
  color: { r: number; g: number; b: number },
  opacity: number,
  mask: Mask | null,
  preserveAlpha: boolean,
): Raster {
  return paintPixels(raster, region, { color, opacity }, mask, preserveAlpha);
}

/**
 * A colour and an opacity (0–1) for every pixel of a region, a row at a time: `row(y, into)` writes row `y` (0 at
 * the region's top) as r, g, b, opacity into `into` (region.w × 4 values). A row at a time keeps a gradient or a
 * stroke over a whole large document to one row of memory.
 */
export type PaintRows = (y: number, into: Float32Array) => void;

/** What paintPixels lays down: one colour at an opacity, or a colour and an opacity for every pixel. */
export type Paint =
  | { readonly color: { r: number; g: number; b: number }; readonly opacity: number }
  | { readonly rows: PaintRows };

/** fillPixels with any Paint: the same source-over, coverage, growth and transparency lock. */
export function paintPixels(
  raster: Raster,
  region: Rect,
  paint: Paint,
  mask: Mask | null,
  preserveAlpha: boolean,
): Raster {
  const area = preserveAlpha ? intersectRect(region, raster) : region;
  const outRect = preserveAlpha || isEmptyRect(area) ? raster : unionRect(raster, area);
  const grown =
    outRect.x !== raster.x || outRect.y !== raster.y || outRect.w !== raster.w || outRect.h !== raster.h;
  const out: Raster = grown ? cropRaster(raster, outRect) : { ...raster, data: copyPixels(raster.data) };
  const solid = 'color' in paint ? paint : null;
  if (isEmptyRect(area) || (solid && solid.opacity <= 0)) return grown ? trimRaster(out) : out;

  const coverage = mask ? sampleMask(mask, area) : 255;
  const d = out.data;
  if (solid && coverage === 255 && solid.opacity === 1 && !preserveAlpha) {
    paintOpaque(out, area, solid.color);
    return grown ? trimRaster(out) : out;
  }
  const rows = solid ? null : (paint as { rows: PaintRows }).rows;
  const px = rows ? new Float32Array(region.w * 4) : null;
  let { r, g, b } = solid?.color ?? { r: 0, g: 0, b: 0 };
  let opacity = solid?.opacity ?? 0;
  for (let y = 0; y < area.h; y++) {
    let i = ((area.y + y - out.y) * out.w + (area.x - out.x)) * 4;
    // The paint's row, and where the area starts in it (the region's).
    if (rows && px) rows(area.y + y - region.y, px);
    let k = (area.x - region.x) * 4;
    const mrow = y * area.w;
    for (let x = 0; x < area.w; x++, i += 4, k += 4) {
      const m = typeof coverage === 'number' ? coverage : coverage[mrow + x]!;
      if (m === 0) continue;
      if (px) {
        r = px[k]!;
        g = px[k + 1]!;
        b = px[k + 2]!;
        opacity = px[k + 3]!;
      }
      const a = (opacity * m) / 255;
      if (a <= 0) continue;
      const ab = d[i + 3]! / 255;
      if (preserveAlpha) {
        if (ab === 0) continue;
        d[i] = d[i]! + (r - d[i]!) * a;
        d[i + 1] = d[i + 1]! + (g - d[i + 1]!) * a;
        d[i + 2] = d[i + 2]! + (b - d[i + 2]!) * a;
        continue;
      }
      const keep = ab * (1 - a);
      const ao = a + keep;
      d[i] = (r * a + d[i]! * keep) / ao;
      d[i + 1] = (g * a + d[i + 1]! * keep) / ao;
      d[i + 2] = (b * a + d[i + 2]! * keep) / ao;
      d[i + 3] = ao * 255;
    }
  }
  return grown ? trimRaster(out) : out;
}

/**
 * A layer mask painted as Photoshop paints on one: each colour of `rows` (over `region`, as paintPixels takes
 * them) as its grey — white shows, black hides, others by their luma (Rec. 601) — laid over the
 * mask's values with coverage opacity × `selection` / 255. The mask grows to cover `region`; outside it, it keeps
 * its value there.
 */
export function paintMask<T extends Mask>(mask: T, region: Rect, rows: PaintRows, selection: Mask | null): T {
  const rect = isEmptyRect(mask) ? region : unionRect(mask, region);
  const data = allocMask(rect.w * rect.h);
  const was = sampleMask(mask, rect);
  if (typeof was === 'number') data.fill(was);
  else data.set(was);
  const coverage = selection ? sampleMask(selection, region) : 255;
  const rgba = new Float32Array(region.w * 4);
  for (let y = 0; y < region.h; y++) {
    let i = (region.y + y - rect.y) * rect.w + (region.x - rect.x);
    rows(y, rgba);
    let k = 0;
    for (let x = 0; x < region.w; x++, i++, k += 4) {
      const m = typeof coverage === 'number' ? coverage : coverage[y * region.w + x]!;
      const a = (rgba[k + 3]! * m) / 255;
      if (a <= 0) continue;
      const grey = 0.299 * rgba[k]! + 0.587 * rgba[k + 1]! + 0.114 * rgba[k + 2]!;
      data[i] = Math.round(data[i]! + (grey - data[i]!) * a);
    }
  }
  return { ...mask, ...rect, data };
}

/**
 * `rect` (inside `r`) painted with an opaque colour: what the source-over above gives for full coverage and
 * opacity, written a row at a time (a 2400 × 2600 fill is one typed-array fill per row, not 6 Mpx of blending).
 */
function paintOpaque(r: Raster, rect: Rect, color: { r: number; g: number; b: number }): void {
  const d = r.data;
  const pixel = new Uint8Array([color.r, color.g, color.b, 255]);
  const value = new Uint32Array(pixel.buffer)[0]!; // the four bytes in this machine's byte order
  const aligned = d.byteOffset % 4 === 0;
  const words = aligned ? new Uint32Array(d.buffer, d.byteOffset, d.byteLength >> 2) : null;
  for (let y = 0; y < rect.h; y++) {
    const start = (rect.y + y - r.y) * r.w + (rect.x - r.x);
    if (words) {
      words.fill(value, start, start + rect.w);
      continue;
    }
    for (let i = start * 4, end = (start + rect.w) * 4; i < end; i += 4) d.set(pixel, i);
  }
}

/**
 * Photoshop's Edit › Clear on a pixel layer: each pixel's alpha times 1 − mask / 255, so a feathered edge leaves
 * the pixels partly transparent and colours stay as they were (straight alpha). Returns the raster trimmed to
 * what is left and how many pixels lost coverage; the same raster and 0 when the selection misses its pixels.
 * Only `region` (the selection's bounds inside the canvas) is touched: pixels beyond the canvas are kept, as in
 * Photoshop, where a selection never reaches past the canvas.
 */
export function clearPixels(raster: Raster, mask: Mask, region: Rect): { raster: Raster; cleared: number } {
  const area = intersectRect(raster, region);
  if (isEmptyRect(area)) return { raster, cleared: 0 };
  const coverage = sampleMask(mask, area);
  if (coverage === 0) return { raster, cleared: 0 };
  const data = copyPixels(raster.data);
  let cleared = 0;
  for (let y = 0; y < area.h; y++) {
    let i = ((area.y + y - raster.y) * raster.w + (area.x - raster.x)) * 4 + 3;
    const row = y * area.w;
    for (let x = 0; x < area.w; x++, i += 4) {
      const m = typeof coverage === 'number' ? coverage : coverage[row + x]!;
      const a = data[i]!;
      if (m === 0 || a === 0) continue;
      const left = Math.round((a * (255 - m)) / 255);
      if (left === a) continue;
      data[i] = left;
      cleared++;
    }
  }
  if (cleared === 0) return { raster, cleared: 0 };
  return { raster: trimRaster({ ...raster, data }), cleared };
}

/** How a new selection meets the one there is: Photoshop's marquee with Shift (add), Alt (subtract), both. */
export type SelectionMode = 'replace' | 'add' | 'subtract' | 'intersect';

/**
 * `a` and `b` combined pixel by pixel as GIMP and Photoshop combine selections: the larger value (add), `a`
 * less `b` (subtract) or the smaller value (intersect), cut to the canvas; null when nothing is left selected.
 * Only the union of the two rectangles is computed: beyond both, the result is their `outside` values combined.
 * The result holds its pixels (a union of two rectangles is not one), one byte per pixel of that union.
 */
export function combineSelections(
  a: Mask,
  b: Mask,
  mode: Exclude<SelectionMode, 'replace'>,
  width: number,
  height: number,
): Mask | null {
  const op =
    mode === 'add'
      ? (p: number, q: number) => Math.max(p, q)
      : mode === 'subtract'
        ? (p: number, q: number) => Math.max(0, p - q)
        : (p: number, q: number) => Math.min(p, q);
  const outside = op(a.outside, b.outside) >= 128 ? 255 : 0;
  const region = intersectRect(unionRect(a, b), canvasOf(width, height));
  const data = allocMask(region.w * region.h);
  // Row by row: two marquees far apart on a 9000 × 18000 canvas would otherwise hold three canvas-size buffers.
  for (let y = 0; y < region.h; y++) {
    const row = { x: region.x, y: region.y + y, w: region.w, h: 1 };
    const pa = sampleMask(a, row);
    const pb = sampleMask(b, row);
    const start = y * region.w;
    if (typeof pa === 'number' && typeof pb === 'number') {
      data.fill(op(pa, pb), start, start + region.w);
      continue;
    }
    for (let x = 0; x < region.w; x++) {
      data[start + x] = op(typeof pa === 'number' ? pa : pa[x]!, typeof pb === 'number' ? pb : pb[x]!);
    }
  }
  return normaliseSelection({ ...region, data, outside }, width, height);
}
