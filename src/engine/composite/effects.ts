/**
 * Layer effects as the compositor sees them: extra rasters drawn just below the layer's own pixels (drop
 * shadow) and just above them (stroke), each with its own blend mode and opacity, and scaled by the layer's
 * opacity when drawn. This module is the single extension point: an effect added here reaches both the
 * compositor (`effectPaints`) and the footprint used for dirty rectangles (`effectsExtent`), which share the
 * same geometry helpers so that a paint never leaves its extent.
 *
 * The effects are computed from the layer's pixels after its mask, as Photoshop does by default, following
 * research/engine.md §1.7–1.8 (Krita's and psd-tools' constructions). Pixel, text and smart layers take them
 * from their raster; a group from its own composite (its children flattened on transparency), which the
 * compositor renders and hands in. Fill layers cover the canvas, so their effects are not drawn.
 */
import type {
  BlendMode,
  DocState,
  DropShadowEffect,
  Effects,
  Layer,
  LayerMask,
  Raster,
  Rect,
  RGB,
  StrokeEffect,
} from '../model.js';
import { allocPixels, growRect, intersectRect, isEmptyRect, maskAt, unionRect } from '../raster.js';
import { boxBlur3, distanceTransform, gaussBoxRadii } from './distance.js';
import { shownMask } from './mask-shown.js';

export interface EffectPaint {
  readonly raster: Raster;
  readonly blend: BlendMode;
  /** 0..1, multiplied by the layer's opacity when drawn. */
  readonly opacity: number;
}

export interface EffectPaints {
  /** Drawn before the layer's pixels, bottom → top. */
  readonly below: readonly EffectPaint[];
  /** Drawn after the layer's pixels, bottom → top. */
  readonly above: readonly EffectPaint[];
}

export const NO_EFFECTS: EffectPaints = Object.freeze({ below: [], above: [] });

/** Shadow "size" → Gaussian σ (psd-tools uses size / 3). The one place to tune it. */
const SHADOW_SIGMA_PER_SIZE = 1 / 3;

/**
 * Layers are immutable, so each one's effect rasters are computed once and kept while the layer lives. A
 * group's also depend on its descendants: the entry remembers which layer objects it was made from.
 */
const memo = new WeakMap<Layer, { readonly paints: EffectPaints; readonly from?: readonly Layer[] }>();

/** The effect rasters of a pixel, text or smart layer (for a group see `groupEffectPaints`). */
export function effectPaints(layer: Layer, canvas: Pick<DocState, 'width' | 'height'>): EffectPaints {
  if (!hasEffects(layer) || layer.kind === 'group' || layer.kind === 'fill' || layer.kind === 'adjustment') {
    return NO_EFFECTS;
  }
  let paints = memo.get(layer)?.paints;
  if (!paints) {
    paints = paintEffects(layer.effects!, layer.raster, shownMask(layer, layer.raster, canvas));
    memo.set(layer, { paints });
  }
  return paints;
}

const overlaid = new WeakMap<Layer, Raster>();

/**
 * The pixels a pixel, text or smart layer with colour overlays shows, to be drawn at full fill: Photoshop paints
 * the overlays inside the layer's shape over its own pixels faded by the fill opacity, each in normal mode at its
 * opacity and none faded by the fill (psd2svg's color-overlay files, saved by Photoshop: fill 0 shows the overlay
 * whole, and an anti-aliased edge pixel is the backdrop and the overlay's colour alone). Premultiplied inside the
 * shape that is K + C·m over a coverage the same for every pixel; the layer's alpha scales it. Null without
 * overlays.
 */
export function overlaidRaster(layer: Layer): Raster | null {
  const list = layer.effects?.colorOverlays;
  if (!list?.length || layer.kind === 'group' || layer.kind === 'fill' || layer.kind === 'adjustment')
    return null;
  const kept = overlaid.get(layer);
  if (kept) return kept;
  const fill = layer.fillOpacity === undefined ? 1 : Math.min(1, Math.max(0, layer.fillOpacity));
  let m = fill;
  let cover = fill;
  const k = [0, 0, 0];
  for (const o of list) {
    const p = Math.min(1, Math.max(0, o.opacity));
    k[0] = o.color.r * p + k[0]! * (1 - p);
    k[1] = o.color.g * p + k[1]! * (1 - p);
    k[2] = o.color.b * p + k[2]! * (1 - p);
    m *= 1 - p;
    cover = p + cover * (1 - p);
  }
  const r = layer.raster;
  const data = allocPixels(r.w * r.h * 4);
  if (cover > 0) {
    for (let i = 0; i < data.length; i += 4) {
      const a = r.data[i + 3]!;
      if (a === 0) continue;
      data[i] = (k[0]! + r.data[i]! * m) / cover;
      data[i + 1] = (k[1]! + r.data[i + 1]! * m) / cover;
      data[i + 2] = (k[2]! + r.data[i + 2]! * m) / cover;
      data[i + 3] = a * cover;
    }
  }
  const out = { x: r.x, y: r.y, w: r.w, h: r.h, data };
  overlaid.set(layer, out);
  return out;
}

/** The effect rasters of group `layer`, from its composite (`render()`, called only when not known yet). */
export function groupEffectPaints(state: DocState, layer: Layer, render: () => Raster): EffectPaints {
  if (!hasEffects(layer) || layer.kind !== 'group') return NO_EFFECTS;
  const from = descendants(state, layer);
  const known = memo.get(layer);
  if (known?.from && sameLayers(known.from, from)) return known.paints;
  const composite = render();
  const paints = paintEffects(layer.effects!, composite, shownMask(layer, composite, state));
  memo.set(layer, { paints, from });
  return paints;
}

/** The effect rasters of `layer` if they have been computed, without computing them. */
export function knownEffects(layer: Layer): EffectPaints | undefined {
  return memo.get(layer)?.paints;
}

/**
 * Hands the compositor's worker the effect rasters the main thread already computed for `layer` (its copy
 * of the layer object, cloned from the main thread's, in its copy of `state`), so that it does not compute
 * them again.
 */
export function primeEffects(state: DocState, layer: Layer, paints: EffectPaints): void {
  if (!hasEffects(layer)) return;
  memo.set(layer, layer.kind === 'group' ? { paints, from: descendants(state, layer) } : { paints });
}

function descendants(state: DocState, group: Layer): Layer[] {
  const out: Layer[] = [];
  const walk = (ids: readonly number[]): void => {
    for (const id of ids) {
      const l = state.layers.get(id);
      if (!l) continue;
      out.push(l);
      if (l.kind === 'group') walk(l.children);
    }
  };
  if (group.kind === 'group') walk(group.children);
  return out;
}

function sameLayers(a: readonly Layer[], b: readonly Layer[]): boolean {
  return a.length === b.length && a.every((l, i) => l === b[i]);
}

/** `content` (the layer's own extent) grown to everything its effects can cover. */
export function effectsExtent(layer: Layer, content: Rect): Rect {
  if (!hasEffects(layer) || isEmptyRect(content)) return content;
  let r = content;
  const { dropShadow, stroke } = layer.effects!;
  if (dropShadow) r = unionRect(r, shadowRect(content, dropShadow));
  if (stroke) r = unionRect(r, strokeRect(content, stroke));
  return r;
}

/** Whether the compositor draws effects for `layer` (fills cover the canvas: theirs are not drawn). */
export function hasEffects(layer: Layer): boolean {
  const e = layer.effects;
  return !!e && (!!e.dropShadow || !!e.stroke || !!e.colorOverlays?.length) && layer.kind !== 'fill';
}

/** How far past the content a stroke raster reaches; an inside stroke still needs one ring of outside. */
function strokeReach(s: StrokeEffect): number {
  const size = s.position === 'center' ? s.size / 2 : s.size;
  return s.position === 'inside' ? 1 : Math.ceil(size) + 1;
}

function strokeRect(content: Rect, s: StrokeEffect): Rect {
  return growRect(content, strokeReach(s));
}

interface ShadowGeometry {
  readonly spread: number;
  readonly radii: [number, number, number];
  readonly pad: number;
  readonly dx: number;
  readonly dy: number;
}

function shadowGeometry(s: DropShadowEffect): ShadowGeometry {
  const size = Math.max(0, s.size);
  const spread = Math.round((Math.min(100, Math.max(0, s.spread)) * size) / 100);
  const radii = gaussBoxRadii((size - spread) * SHADOW_SIGMA_PER_SIZE);
  const rad = (s.angle * Math.PI) / 180;
  return {
    spread,
    radii,
    pad: spread + radii[0] + radii[1] + radii[2] + 1,
    // Photoshop's angle is where the light comes from: 120° lights from upper left, shadow falls lower right.
    dx: Math.round(-s.distance * Math.cos(rad)),
    dy: Math.round(s.distance * Math.sin(rad)),
  };
}

function shadowRect(content: Rect, s: DropShadowEffect): Rect {
  const g = shadowGeometry(s);
  const r = growRect(content, g.pad);
  return { ...r, x: r.x + g.dx, y: r.y + g.dy };
}

/** The layer's alpha after its mask, 0..1, over `rect` (zero outside the raster). */
function matteOf(raster: Raster, mask: LayerMask | null, rect: Rect): Float32Array {
  const out = new Float32Array(rect.w * rect.h);
  const common = intersectRect(raster, rect);
  for (let y = common.y; y < common.y + common.h; y++) {
    let si = ((y - raster.y) * raster.w + (common.x - raster.x)) * 4 + 3;
    let o = (y - rect.y) * rect.w + (common.x - rect.x);
    for (let x = common.x; x < common.x + common.w; x++, si += 4, o++) {
      const m = mask ? maskAt(mask, x, y) / 255 : 1;
      out[o] = (raster.data[si]! / 255) * m;
    }
  }
  return out;
}

/** Shadow and stroke of a shape whose alpha is `raster`'s after `mask`. */
function paintEffects(effects: Effects, raster: Raster, mask: LayerMask | null): EffectPaints {
  let content: Rect = raster;
  if (mask && mask.outside === 0) content = intersectRect(content, mask);
  if (isEmptyRect(content)) return NO_EFFECTS;
  const { dropShadow, stroke } = effects;
  const below: EffectPaint[] = [];
  const above: EffectPaint[] = [];
  if (dropShadow && dropShadow.opacity > 0) {
    below.push({
      raster: renderShadow(raster, mask, content, dropShadow),
      blend: dropShadow.blend,
      opacity: dropShadow.opacity,
    });
  }
  if (stroke && stroke.opacity > 0 && stroke.size > 0) {
    above.push({
      raster: renderStroke(raster, mask, content, stroke),
      blend: stroke.blend,
      opacity: stroke.opacity,
    });
  }
  return { below, above };
}

/** A raster of `color` whose alpha is `alpha` (0..1) over `rect`. */
function colorRaster(rect: Rect, color: RGB, alpha: Float32Array): Raster {
  const data = allocPixels(rect.w * rect.h * 4);
  for (let i = 0, o = 0; i < alpha.length; i++, o += 4) {
    data[o] = color.r;
    data[o + 1] = color.g;
    data[o + 2] = color.b;
    data[o + 3] = alpha[i]! * 255;
  }
  return { ...rect, data };
}

/**
 * Stroke coverage from exact distances to the shape (pixels with alpha ≥ ½): a pixel whose centre lies d
 * from the nearest pixel across the edge sits d − ½ from the edge, so it is covered by a band of width
 * `size` by clamp(size + 1 − d, 0, 1). Outside bands are weighted by (1 − α) and inside ones by α, so the
 * stroke meets anti-aliased edges without a seam.
 */
function renderStroke(raster: Raster, mask: LayerMask | null, content: Rect, s: StrokeEffect): Raster {
  const rect = strokeRect(content, s);
  const a = matteOf(raster, mask, rect);
  const band = s.position === 'center' ? s.size / 2 : s.size;
  const cover = (d: number): number => Math.min(1, Math.max(0, band + 1 - d));
  const out = new Float32Array(a.length);
  if (s.position !== 'inside') {
    const dOut = distanceTransform(rect.w, rect.h, (i) => a[i]! >= 0.5);
    for (let i = 0; i < a.length; i++) out[i] = cover(dOut[i]!) * (1 - a[i]!);
  }
  if (s.position !== 'outside') {
    const dIn = distanceTransform(rect.w, rect.h, (i) => a[i]! < 0.5);
    for (let i = 0; i < a.length; i++) out[i] = Math.max(out[i]!, cover(dIn[i]!) * a[i]!);
  }
  return colorRaster(rect, s.color, out);
}

/**
 * Drop shadow (research/engine.md §1.8): the matte, dilated by the spread, blurred by the rest of the size,
 * offset along the light angle; the layer knocks the shadow out under its own pixels (Photoshop's default),
 * so it never shows through a semi-transparent layer.
 */
function renderShadow(raster: Raster, mask: LayerMask | null, content: Rect, s: DropShadowEffect): Raster {
  const g = shadowGeometry(s);
  const unshifted = growRect(content, g.pad);
  const w = unshifted.w;
  const h = unshifted.h;
  const a = matteOf(raster, mask, unshifted);
  const matte = a.slice();
  if (g.spread > 0) {
    const d = distanceTransform(w, h, (i) => a[i]! >= 0.5);
    for (let i = 0; i < matte.length; i++)
      matte[i] = Math.max(matte[i]!, Math.min(1, Math.max(0, g.spread + 1 - d[i]!)));
  }
  boxBlur3(matte, w, h, g.radii);
  // Knock out under the layer: the shadow pixel at document (x, y) came from matte (x − dx, y − dy) but sits
  // under layer alpha a(x, y).
  for (let y = 0; y < h; y++) {
    const ly = y + g.dy;
    for (let x = 0; x < w; x++) {
      const lx = x + g.dx;
      if (lx >= 0 && lx < w && ly >= 0 && ly < h)
        matte[y * w + x] = matte[y * w + x]! * (1 - a[ly * w + lx]!);
    }
  }
  return colorRaster({ ...unshifted, x: unshifted.x + g.dx, y: unshifted.y + g.dy }, s.color, matte);
}
