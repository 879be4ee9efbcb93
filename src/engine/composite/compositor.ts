/**
 * The compositor: flattens the layer tree into straight RGBA8, Photoshop style (research/engine.md §1.1).
 *
 * It works in horizontal strips of the render rectangle. Each strip is a premultiplied float accumulator a
 * few rows high; every layer that reaches the strip is blended onto it, then the strip is written out as
 * bytes. Temporary memory is therefore a few strips per group nesting level, whatever the canvas size, and
 * the accumulator stays in cache while all the layers pass over it. Only layers whose bounds meet the strip
 * are touched, and each only over its own columns.
 */
import { fail } from '../errors.js';
import type { BlendMode, DocState, Layer, LayerMask, Raster, Rect, RGB } from '../model.js';
import { blankRaster, intersectRect, isEmptyRect } from '../raster.js';
import { canvasRect, contentExtent } from './bounds.js';
import { type EffectPaints, groupEffectPaints, hasEffects } from './effects.js';
import { Arena, type Kernels, kernels } from './kernels.js';
import { renderParallel } from './parallel.js';
import {
  type AdjustNode,
  buildGroupPlan,
  buildPlan,
  type GroupNode,
  type LeafNode,
  type Plan,
  type PlanItem,
  type PlanNode,
} from './plan.js';
import { lerpRow, maskCoverage } from './strip.js';

/** Pixels per strip: 32 K pixels × 16 bytes = 512 KiB of accumulator, which stays in L2 across layers. */
const STRIP_PIXELS = 32 * 1024;

/** Rows per strip when rendering `rect`: a function of the rectangle alone, so every thread cuts alike. */
function stripRows(rect: Rect): number {
  return Math.max(1, Math.min(rect.h, Math.floor(STRIP_PIXELS / rect.w)));
}

/** Composites the document inside `rect` (default: the canvas). Pixels with no content stay transparent. */
export function renderDocument(state: DocState, rect: Rect = canvasRect(state)): Raster {
  const out = blankRaster(rect);
  renderInto(state, rect, out.data, rect.w, 0, 0);
  return out;
}

/**
 * Composites `rect` of the document into `out`, an RGBA8 buffer `stride` pixels wide, with the rectangle's
 * top-left pixel landing at (`ox`, `oy`). Every pixel of the rectangle is written, transparent ones included,
 * so `out` may hold anything beforehand (the composite cache renders a dirty rectangle into a copy).
 *
 * Synchronous, but a large render may be shared with the compositor's worker thread (parallel.ts): both
 * threads take strips from one counter, and this call returns once all of them are written. A strip's
 * pixels depend only on the plan and the strip, so the result is byte for byte the same either way.
 */
export function renderInto(
  state: DocState,
  rect: Rect,
  out: Uint8ClampedArray,
  stride: number,
  ox: number,
  oy: number,
): void {
  if (![rect.x, rect.y, rect.w, rect.h].every(Number.isInteger)) {
    fail('invalid_arguments', '合成区域必须是整数像素矩形', { details: rect });
  }
  if (isEmptyRect(rect)) return;
  const plan = buildPlan(state, rect);
  // Before the worker is offered the job, so that it receives the group effects instead of redoing them.
  resolveGroupEffects(plan);
  const strips = Math.ceil(rect.h / stripRows(rect));
  const share = (next: () => number) => renderStrips(plan, out, stride, ox, oy, next);
  if (renderParallel({ state, plan, strips, out, stride, ox, oy }, share)) return;
  let i = 0;
  share(() => i++);
}

/**
 * Renders the strips of `plan` that `next` hands out (strip i covers rows rect.y + i·stripRows(rect) on)
 * until it returns a number past the last strip. The main thread and the worker each call this with a
 * shared counter; alone, the main thread counts 0, 1, 2….
 */
export function renderStrips(
  plan: Plan,
  out: Uint8ClampedArray,
  stride: number,
  ox: number,
  oy: number,
  next: () => number,
): void {
  const rect = plan.rect;
  resolveGroupEffects(plan);
  const f = new Frame(rect, levelsBelow(plan.items) + 1);
  const strips = Math.ceil(rect.h / f.stripH);
  const bottom = rect.y + rect.h;
  const rowBytes = rect.w * 4;
  for (let i = next(); i < strips; i = next()) {
    const y0 = rect.y + i * f.stripH;
    const h = Math.min(f.stripH, bottom - y0);
    f.y0 = y0;
    f.floats(0).fill(0, 0, rect.w * h * 4);
    drawItems(f, plan.items, 0, { x: rect.x, y: y0, w: rect.w, h });
    // Level 0's byte buffer is free (only deeper levels are blended back as bytes): the strip goes out there.
    f.k.finish(f.floatsAt(0), f.bytesAt(0), rect.w * h);
    const bytes = f.bytes(0);
    const first = ((oy + y0 - rect.y) * stride + ox) * 4;
    if (stride === rect.w) out.set(bytes.subarray(0, rowBytes * h), first);
    else {
      for (let row = 0; row < h; row++) {
        out.set(bytes.subarray(row * rowBytes, (row + 1) * rowBytes), first + row * stride * 4);
      }
    }
  }
}

/**
 * Fills in the effect rasters of the plan's styled groups. A group's effects are made from its composite,
 * which is rendered here on its own (before any frame of this thread takes the kernels' memory), once per
 * group content: later renders find them remembered.
 */
function resolveGroupEffects(plan: Plan): void {
  const visit = (items: readonly PlanItem[]): void => {
    for (const item of items) {
      for (const node of [item.node, ...item.clips]) {
        if (node.kind !== 'group') continue;
        visit(node.items);
        if (hasEffects(node.layer)) {
          node.effects = groupEffectPaints(plan.state, node.layer, () =>
            groupComposite(plan.state, node.layer),
          );
        }
      }
    }
  };
  visit(plan.items);
}

/** Group `layer`'s children flattened onto transparency over their whole extent. */
function groupComposite(state: DocState, layer: Layer): Raster {
  const rect = contentExtent(state, layer);
  const out = blankRaster(rect);
  if (isEmptyRect(rect)) return out;
  let i = 0;
  renderStrips(buildGroupPlan(state, layer, rect), out.data, rect.w, 0, 0, () => i++);
  return out;
}

/**
 * How many levels below the top a render of `items` may use (see drawItems): a group works one level down,
 * a clipping group one more. An upper bound, so that a frame can take all its buffers before it starts.
 */
function levelsBelow(items: readonly PlanItem[]): number {
  let deepest = 0;
  for (const item of items) {
    let d = nodeLevels(item.node);
    for (const c of item.clips) d = Math.max(d, nodeLevels(c));
    deepest = Math.max(deepest, item.clips.length > 0 ? d + 1 : d);
  }
  return deepest;
}

function nodeLevels(node: PlanNode): number {
  return node.kind === 'group' ? 1 + levelsBelow(node.items) : 0;
}

/**
 * Per-render scratch, laid out in the kernels' memory: one float strip and one byte strip per nesting level,
 * a coverage row, a row to copy sources into, and a one-row source per fill colour. Level 0 is the output
 * accumulator; an isolated group, a pass-through group with opacity or mask, and a clipping group each work
 * one level deeper.
 */
class Frame {
  readonly stripH: number;
  /** Document row of the strip's first row. */
  y0 = 0;
  readonly k: Kernels;
  readonly cov: Float32Array;
  readonly covAt: number;
  /** Where a source row that is not in the kernels' memory is copied to be blended. */
  readonly src: Uint8ClampedArray;
  readonly srcAt: number;
  private readonly f: Float32Array[] = [];
  private readonly b: Uint8ClampedArray[] = [];
  private readonly fillRows = new Map<RGB, Uint8ClampedArray>();

  constructor(
    readonly rect: Rect,
    levels: number,
  ) {
    this.stripH = stripRows(rect);
    this.k = kernels();
    const arena = new Arena(this.k);
    const px = rect.w * this.stripH;
    const f = Array.from({ length: levels }, () => arena.reserve(px * 16));
    const b = Array.from({ length: levels }, () => arena.reserve(px * 4));
    const cov = arena.reserve(rect.w * 4);
    const src = arena.reserve(rect.w * 4);
    arena.commit();
    for (const h of f) this.f.push(arena.floats(h));
    for (const h of b) this.b.push(arena.bytes(h));
    this.cov = arena.floats(cov);
    this.covAt = arena.offset(cov);
    this.src = arena.bytes(src);
    this.srcAt = arena.offset(src);
  }

  floats(level: number): Float32Array {
    return this.f[level]!;
  }

  /** Address of level `level`'s float strip in the kernels' memory. */
  floatsAt(level: number): number {
    return this.f[level]!.byteOffset;
  }

  bytes(level: number): Uint8ClampedArray {
    return this.b[level]!;
  }

  bytesAt(level: number): number {
    return this.b[level]!.byteOffset;
  }

  /** A row of `color` as wide as the render rectangle: the source for a fill layer, every row alike. */
  fillRow(color: RGB): Uint8ClampedArray {
    let row = this.fillRows.get(color);
    if (!row) {
      row = new Uint8ClampedArray(this.rect.w * 4);
      for (let i = 0; i < row.length; i += 4) {
        row[i] = color.r;
        row[i + 1] = color.g;
        row[i + 2] = color.b;
        row[i + 3] = 255;
      }
      this.fillRows.set(color, row);
    }
    return row;
  }

  /** Index in a level buffer of document pixel (x, y), y inside the current strip. */
  at(x: number, y: number): number {
    return ((y - this.y0) * this.rect.w + (x - this.rect.x)) * 4;
  }
}

function drawItems(f: Frame, items: readonly PlanItem[], level: number, clip: Rect): void {
  for (const item of items) {
    const r = intersectRect(item.bounds, clip);
    if (isEmptyRect(r)) continue;
    if (item.clips.length === 0) drawNode(f, item.node, level, r, false);
    else drawClippingGroup(f, item, level, r);
  }
}

function drawNode(f: Frame, node: PlanNode, level: number, clip: Rect, atop: boolean): void {
  if (node.kind === 'leaf') {
    drawLeaf(f, node, level, clip, node.blend, node.opacity, node.fillOpacity, node.mask, atop, true);
  } else if (node.kind === 'adjust') {
    drawAdjustment(f, node, level, clip);
  } else if (node.isolated) {
    drawEffects(f, node.effects.below, level, clip, node.opacity, atop);
    drawIsolated(f, node, level, clip, node.blend, node.opacity * node.fillOpacity, node.mask, atop);
    drawEffects(f, node.effects.above, level, clip, node.opacity, atop);
  } else {
    drawPassThrough(f, node, level, clip);
  }
}

/** Effect rasters (a shadow below a layer, a stroke above), faded with the layer's opacity but not its fill. */
function drawEffects(
  f: Frame,
  paints: EffectPaints['below'],
  level: number,
  clip: Rect,
  opacity: number,
  atop: boolean,
): void {
  for (const p of paints) drawRaster(f, p.raster, level, clip, p.blend, opacity * p.opacity, null, atop);
}

/**
 * A layer's own pixels at `opacity × fill`, between its effects at `opacity` (Photoshop's fill opacity: the
 * effects, made from the layer's whole shape, keep their strength). Photoshop mixes fill differently from
 * opacity in eight modes (color/linear burn and dodge, linear/vivid light, hard mix, difference); its formulas
 * for them are not published and there is no Photoshop here to measure, so fill acts as an opacity factor in
 * every mode, as psd-tools composites it.
 */
function drawLeaf(
  f: Frame,
  node: LeafNode,
  level: number,
  clip: Rect,
  blend: BlendMode,
  opacity: number,
  fill: number,
  mask: LayerMask | null,
  atop: boolean,
  withEffects: boolean,
): void {
  if (withEffects) drawEffects(f, node.effects.below, level, clip, opacity, atop);
  const r = intersectRect(node.content, clip);
  const own = opacity * fill;
  if (!isEmptyRect(r)) {
    if (node.raster) {
      drawRaster(f, node.raster, level, r, blend, own, mask, atop);
    } else if (node.fill) {
      drawSource(f, f.fillRow(node.fill), f.rect.x, 0, 0, r, level, blend, own, mask, atop);
    }
  }
  if (withEffects) drawEffects(f, node.effects.above, level, clip, opacity, atop);
}

function drawRaster(
  f: Frame,
  raster: Raster,
  level: number,
  clip: Rect,
  blend: BlendMode,
  opacity: number,
  mask: LayerMask | null,
  atop: boolean,
): void {
  const r = intersectRect(raster, clip);
  if (!isEmptyRect(r))
    drawSource(f, raster.data, raster.x, raster.y, raster.w, r, level, blend, opacity, mask, atop);
}

/**
 * Blends `region` of a straight RGBA8 source onto level `level`. Source pixel (x, y) is at byte
 * ((y − sy) · stride + x − sx) · 4; a stride of 0 repeats one row (fill layers).
 */
function drawSource(
  f: Frame,
  data: Uint8ClampedArray,
  sx: number,
  sy: number,
  stride: number,
  region: Rect,
  level: number,
  blend: BlendMode,
  opacity: number,
  mask: LayerMask | null,
  atop: boolean,
): void {
  if (!(opacity > 0)) return;
  const kernel = f.k.blend[blend];
  const k = opacity / 255;
  const accAt = f.floatsAt(level);
  const n = region.w;
  const dissolve = blend === 'dissolve';
  // Sources in the kernels' memory (a group's bytes) blend in place; layers' rows are copied in first.
  const inPlace = data.buffer === f.k.memory.buffer;
  const bytes = n * 4;
  const flag = atop ? 1 : 0;
  for (let y = region.y; y < region.y + region.h; y++) {
    const si = ((y - sy) * stride + (region.x - sx)) * 4;
    let cov: Float32Array | null = null;
    if (mask) {
      const c = maskCoverage(mask, y, region.x, n, f.cov);
      if (c === 'none') continue;
      if (c === 'varies') cov = f.cov;
    }
    if (dissolve) cov = dissolveCoverage(f.cov, cov !== null, data, si, n, k, region.x, y);
    let srcAt: number;
    if (inPlace) srcAt = data.byteOffset + si;
    else {
      f.src.set(data.subarray(si, si + bytes));
      srcAt = f.srcAt;
    }
    kernel(accAt + f.at(region.x, y) * 4, srcAt, n, k, cov === null ? 0 : f.covAt, flag);
  }
}

/**
 * Dissolve: each pixel shows fully opaque when a fixed pseudo-random value for its document position falls
 * below its alpha, else not at all. Expressed as a coverage factor so that the normal kernel does the rest.
 * Keyed on document coordinates, so every render of a pixel (full or dirty-rectangle) agrees.
 */
function dissolveCoverage(
  cov: Float32Array,
  hasCov: boolean,
  data: Uint8ClampedArray,
  si: number,
  n: number,
  k: number,
  x0: number,
  y: number,
): Float32Array {
  for (let j = 0; j < n; j++, si += 4) {
    const a = data[si + 3]! * k;
    const shown = a > 0 && noise(x0 + j, y) < a * (hasCov ? cov[j]! : 1);
    cov[j] = shown ? 1 / a : 0;
  }
  return cov;
}

/** A hash of the pixel position, uniform in [0, 1). */
function noise(x: number, y: number): number {
  let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y + 0x9e3779b9, 0x165667b1);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** Children onto transparency one level down, then the result blended as a single layer. */
function drawIsolated(
  f: Frame,
  node: GroupNode,
  level: number,
  clip: Rect,
  blend: BlendMode,
  opacity: number,
  mask: LayerMask | null,
  atop: boolean,
): void {
  const r = intersectRect(node.content, clip);
  if (isEmptyRect(r)) return;
  const tmp = f.floats(level + 1);
  for (let y = r.y; y < r.y + r.h; y++) {
    const i = f.at(r.x, y);
    tmp.fill(0, i, i + r.w * 4);
  }
  drawItems(f, node.items, level + 1, r);
  drawLevelResult(f, level + 1, r, level, blend === 'pass through' ? 'normal' : blend, opacity, mask, atop);
}

/**
 * Pass-through: the children blend straight onto the backdrop. With opacity or a mask, Photoshop's result is
 * the backdrop mixed with (children over a copy of the backdrop) by opacity × mask — done one level down.
 */
function drawPassThrough(f: Frame, node: GroupNode, level: number, clip: Rect): void {
  // No effects here (a styled group is isolated): fill fades the whole group, as opacity does.
  const opacity = node.opacity * node.fillOpacity;
  if (opacity >= 1 && !node.mask) {
    drawItems(f, node.items, level, clip);
    return;
  }
  const r = intersectRect(node.content, clip);
  if (isEmptyRect(r)) return;
  overBackdropCopy(f, level, r, opacity, node.mask, () => drawItems(f, node.items, level + 1, r));
}

/**
 * `draw` onto a copy of level `level`'s backdrop one level down, in `r`, then that copy mixed back into the
 * backdrop by `t` × `mask`.
 */
function overBackdropCopy(
  f: Frame,
  level: number,
  r: Rect,
  t: number,
  mask: LayerMask | null,
  draw: () => void,
): void {
  const acc = f.floats(level);
  const tmp = f.floats(level + 1);
  for (let y = r.y; y < r.y + r.h; y++) {
    const i = f.at(r.x, y);
    tmp.set(acc.subarray(i, i + r.w * 4), i);
  }
  draw();
  for (let y = r.y; y < r.y + r.h; y++) {
    let cov: Float32Array | null = null;
    if (mask) {
      const c = maskCoverage(mask, y, r.x, r.w, f.cov);
      if (c === 'none') continue;
      if (c === 'varies') cov = f.cov;
    }
    lerpRow(acc, f.at(r.x, y), tmp, r.w, t, cov);
  }
}

/**
 * A clipping group, as Photoshop's default "blend clipped layers as group" (research/engine.md §1.1,
 * psd-tools `_apply_clip_layers`): the base's pixels (mask applied, opacity not) seed a buffer; each clipped
 * layer composites onto it with its own mode, opacity and mask but with source-atop, so the buffer keeps the
 * base's alpha and clipped pixels show only where the base has them; the result then blends onto the backdrop
 * with the base's mode and opacity. So a clipped layer's mode acts on the base's colours, not on what lies
 * under the base, and a base at 50% opacity fades its clipped layers with it.
 *
 * Source-atop is W3C's operator for "draw only where the backdrop is": Co = αs·Cr + (1 − αs)·Cb at αb. It
 * treats the base's alpha as coverage (a half-covered edge pixel takes the clipped colour over its covered
 * half), which is what keeps a clipped layer from ever being more opaque than its base.
 */
function drawClippingGroup(f: Frame, item: PlanItem, level: number, clip: Rect): void {
  const base = item.node;
  if (base.kind === 'adjust') {
    drawNode(f, base, level, clip, false);
    drawClippedToAdjustment(f, base, item.clips, level, clip);
    return;
  }
  drawEffects(f, base.effects.below, level, clip, base.opacity, false);
  const r = intersectRect(base.content, clip);
  if (!isEmptyRect(r)) {
    const tmp = f.floats(level + 1);
    for (let y = r.y; y < r.y + r.h; y++) {
      const i = f.at(r.x, y);
      tmp.fill(0, i, i + r.w * 4);
    }
    if (base.kind === 'leaf') drawLeaf(f, base, level + 1, r, 'normal', 1, 1, base.mask, false, false);
    else drawIsolated(f, base, level + 1, r, 'normal', 1, base.mask, false);
    for (const c of item.clips) drawNode(f, c, level + 1, r, true);
    const blend = base.blend === 'pass through' ? 'normal' : base.blend;
    // The base's fill fades the clipped layers with it, as psd-tools composites a clipping group (whether
    // Photoshop keeps clipped layers at full strength over a base at fill 0 could not be measured here).
    drawLevelResult(f, level + 1, r, level, blend, base.opacity * base.fillOpacity, null, false);
  }
  drawEffects(f, base.effects.above, level, clip, base.opacity, false);
}

/**
 * Layers clipped to an adjustment layer. Photoshop takes an adjustment layer's content as covering the canvas, so
 * they show wherever its mask does, over what it made (psd2svg's invert-clippingbase fixture, saved by Photoshop):
 * drawn over a copy of the adjusted backdrop, then mixed in by the adjustment's opacity × fill × mask, as a
 * pass-through group is.
 */
function drawClippedToAdjustment(
  f: Frame,
  base: AdjustNode,
  clips: readonly PlanNode[],
  level: number,
  clip: Rect,
): void {
  const r = intersectRect(base.content, clip);
  const t = base.opacity * base.fillOpacity;
  if (isEmptyRect(r) || !(t > 0)) return;
  overBackdropCopy(f, level, r, t, base.mask, () => {
    for (const c of clips) drawNode(f, c, level + 1, r, false);
  });
}

/**
 * An adjustment layer over level `level` in `clip`: each row goes out as straight bytes (as a group's composite
 * does: what Photoshop adjusts in an 8-bit document), through the kernel, and back in, mixed by the layer's
 * opacity × fill × mask. Alpha is the backdrop's: an adjustment changes colours, never coverage.
 */
function drawAdjustment(f: Frame, node: AdjustNode, level: number, clip: Rect): void {
  const r = intersectRect(node.content, clip);
  if (isEmptyRect(r)) return;
  const t = node.opacity * node.fillOpacity;
  if (!(t > 0)) return;
  const acc = f.floats(level);
  const row = f.src;
  const n = r.w;
  const least = 0.5 / 255;
  for (let y = r.y; y < r.y + r.h; y++) {
    let cov: Float32Array | null = null;
    if (node.mask) {
      const c = maskCoverage(node.mask, y, r.x, n, f.cov);
      if (c === 'none') continue;
      if (c === 'varies') cov = f.cov;
    }
    const ai = f.at(r.x, y);
    f.k.finish(f.floatsAt(level) + ai * 4, f.srcAt, n);
    node.kernel(row, row, 0, n * 4);
    for (let j = 0, i = ai; j < n; j++, i += 4) {
      const w = cov === null ? t : t * cov[j]!;
      const a = acc[i + 3]!;
      if (w === 0 || a < least) continue;
      const s = a / 255;
      acc[i] = acc[i]! + (row[j * 4]! * s - acc[i]!) * w;
      acc[i + 1] = acc[i + 1]! + (row[j * 4 + 1]! * s - acc[i + 1]!) * w;
      acc[i + 2] = acc[i + 2]! + (row[j * 4 + 2]! * s - acc[i + 2]!) * w;
    }
  }
}

/** Converts `region` of level `from` to straight bytes and blends it onto level `to` as one layer. */
function drawLevelResult(
  f: Frame,
  from: number,
  region: Rect,
  to: number,
  blend: BlendMode,
  opacity: number,
  mask: LayerMask | null,
  atop: boolean,
): void {
  // Through 8-bit straight, as Photoshop stores a group's composite in an 8-bit document; this lets one set
  // of kernels serve layers and groups alike, at a cost of at most half a step of rounding per group.
  const floatsAt = f.floatsAt(from);
  const bytesAt = f.bytesAt(from);
  for (let y = region.y; y < region.y + region.h; y++) {
    const i = f.at(region.x, y);
    f.k.finish(floatsAt + i * 4, bytesAt + i, region.w);
  }
  drawSource(f, f.bytes(from), f.rect.x, f.y0, f.rect.w, region, to, blend, opacity, mask, atop);
}
