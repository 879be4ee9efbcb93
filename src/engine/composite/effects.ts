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
 * compositor renders and hands in. Fill layers cover the canvas, so their shadow and stroke are not drawn; their
 * colour and gradient overlays are (`overlaidRaster`).
 */
import { ditherNoise } from '../gradient.js';
import {
  type BlendMode,
  type ColorOverlayEffect,
  type DocState,
  type DropShadowEffect,
  type Effects,
  FILL_OVERLAY_MAX_PIXELS,
  type GlowEffect,
  type GradientOverlayEffect,
  type InnerShadowEffect,
  type Layer,
  type LayerMask,
  type Raster,
  type Rect,
  type RGB,
  type StrokeEffect,
} from '../model.js';
import {
  allocPixels,
  alphaBounds,
  growRect,
  intersectRect,
  isEmptyRect,
  maskAt,
  unionRect,
} from '../raster.js';
import { overlayPosition, styleGradientTable, tableIndex } from '../style-gradient.js';
import { boxBlur3, distanceTransform, gaussBoxRadii } from './distance.js';
import { Arena } from './kernels.js';
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

/**
 * A shadow's or glow's "size" (less its spread) → Gaussian σ. psd-tools uses size / 3; Photoshop's own composites of
 * psd2svg's 14 shadow and glow files read 0.4 (their mean differences summed over the files 10.7 levels, against 17.2
 * at 1/3, 14.4 at 0.45, 20.3 at 0.5). The one place to tune it.
 */
const SHADOW_SIGMA_PER_SIZE = 0.4;

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

/** One overlay as the interior blend sees it: its mode and opacity, and each row's straight RGBA8 colour. */
interface Interior {
  readonly blend: BlendMode;
  readonly opacity: number;
  /** Writes pixels x0 … x0 + n − 1 of document row y into `into` (RGBA8, the alpha the overlay's own). */
  readonly row: (y: number, x0: number, n: number, into: Uint8ClampedArray) => void;
}

/**
 * The pixels a layer with interior effects (overlays, inner glow, inner shadows) shows, to be drawn at full fill
 * (null without them). Photoshop paints them inside the layer's shape over its own pixels faded by the fill
 * opacity, each with its own mode and opacity, none faded by the fill (psd2svg's effect files, saved by Photoshop:
 * at fill 0 an overlay shows whole, and an anti-aliased edge pixel is the backdrop and the overlay's colour alone).
 * So per pixel the layer's colour at alpha `fill` is the backdrop of an isolated blend of the effects, bottom to
 * top (gradient overlays, colour overlays, inner glow, inner shadows), by the compositor's own kernels; the
 * layer's alpha then scales the result. A fill layer's shape is the canvas (overlays only).
 */
export function overlaidRaster(layer: Layer, canvas: Pick<DocState, 'width' | 'height'>): Raster | null {
  const e = layer.effects;
  if (!e || !hasInterior(e)) return null;
  if (layer.kind === 'group' || layer.kind === 'adjustment') return null;
  if (layer.kind === 'fill' && canvas.width * canvas.height > FILL_OVERLAY_MAX_PIXELS) return null;
  const kept = overlaid.get(layer);
  if (kept) return kept;
  const own: Raster =
    layer.kind === 'fill'
      ? { x: 0, y: 0, w: canvas.width, h: canvas.height, data: solidRow(layer.color, canvas.width) }
      : layer.raster;
  const stride = layer.kind === 'fill' ? 0 : own.w;
  const box = layer.kind === 'fill' ? { x: 0, y: 0, w: canvas.width, h: canvas.height } : alphaBounds(own);
  const whole = { x: 0, y: 0, w: canvas.width, h: canvas.height };
  const shape = () => ({ raster: own, mask: shownMask(layer, own, canvas) });
  const interiors: Interior[] = [
    ...(e.gradientOverlays ?? []).map((g) => gradientInterior(g, g.alignWithLayer ? box : whole)),
    ...(e.colorOverlays ?? []).map((o) => colorInterior(o)),
    ...(e.innerGlow ? [innerGlowInterior(e.innerGlow, shape(), own)] : []),
    ...(e.innerShadows ?? []).map((d) => innerShadowInterior(d, shape(), own)),
  ];
  const out = interiorBlend(own, stride, layer.fillOpacity ?? 1, interiors);
  overlaid.set(layer, out);
  return out;
}

/** Whether a style holds effects painted inside the layer's shape (overlaid on its pixels). */
function hasInterior(e: Effects): boolean {
  return !!(e.colorOverlays?.length || e.gradientOverlays?.length || e.innerGlow || e.innerShadows?.length);
}

interface Shape {
  readonly raster: Raster;
  readonly mask: LayerMask | null;
}

/** An interior effect of one colour whose strength at each pixel of `at` is `alpha` (0..1, row by row). */
function planeInterior(
  color: RGB,
  blend: BlendMode,
  opacity: number,
  alpha: Float32Array,
  at: Rect,
): Interior {
  return {
    blend,
    opacity,
    row: (y, x0, n, into) => {
      const from = (y - at.y) * at.w + (x0 - at.x);
      for (let j = 0, k = 0; j < n; j++, k += 4) {
        into[k] = color.r;
        into[k + 1] = color.g;
        into[k + 2] = color.b;
        into[k + 3] = alpha[from + j]! * 255;
      }
    },
  };
}

/**
 * The matte of the shape (or, `outside`, of everything but the shape) widened by the spread and blurred by the rest
 * of the size, as a drop shadow's is, read at every pixel of `at` from (dx, dy) behind it.
 */
function blurredMatte(shape: Shape, at: Rect, s: DropShadowEffect, outside: boolean): Float32Array {
  const g = shadowGeometry(s);
  const area = growRect(at, g.pad + Math.max(Math.abs(g.dx), Math.abs(g.dy)));
  const a = matteOf(shape.raster, shape.mask, area);
  if (outside) for (let i = 0; i < a.length; i++) a[i] = 1 - a[i]!;
  if (g.spread > 0) {
    const d = distanceTransform(area.w, area.h, (i) => a[i]! >= 0.5);
    for (let i = 0; i < a.length; i++) a[i] = Math.max(a[i]!, Math.min(1, Math.max(0, g.spread + 1 - d[i]!)));
  }
  boxBlur3(a, area.w, area.h, g.radii);
  const out = new Float32Array(at.w * at.h);
  for (let y = 0; y < at.h; y++) {
    const from = (y + at.y - g.dy - area.y) * area.w + (at.x - g.dx - area.x);
    out.set(a.subarray(from, from + at.w), y * at.w);
  }
  return out;
}

/** A glow's strength through the linear contour over its range: full strength from `range` of the way on. */
function throughRange(alpha: Float32Array, range: number): Float32Array {
  const r = Math.max(0.01, Math.min(1, range));
  for (let i = 0; i < alpha.length; i++) alpha[i] = Math.min(1, alpha[i]! / r);
  return alpha;
}

function glowAsShadow(g: GlowEffect): DropShadowEffect {
  return {
    distance: 0,
    angle: 0,
    size: g.size,
    spread: g.spread,
    opacity: g.opacity,
    color: g.color,
    blend: g.blend,
  };
}

function innerShadowInterior(d: InnerShadowEffect, shape: Shape, at: Rect): Interior {
  return planeInterior(d.color, d.blend, d.opacity, blurredMatte(shape, at, d, true), at);
}

function innerGlowInterior(g: GlowEffect, shape: Shape, at: Rect): Interior {
  // From the edge, the glow fades inwards through its range; from the centre it is the same glow turned inside
  // out (psd2svg's file of each: the other ways round are 4 levels off on average, 89 at most).
  const out = throughRange(blurredMatte(shape, at, glowAsShadow(g), true), g.range);
  if (g.source === 'center') for (let i = 0; i < out.length; i++) out[i] = 1 - out[i]!;
  return planeInterior(g.color, g.blend, g.opacity, out, at);
}

function solidRow(c: RGB, w: number): Uint8ClampedArray {
  const row = new Uint8ClampedArray(w * 4);
  for (let i = 0; i < row.length; i += 4) {
    row[i] = c.r;
    row[i + 1] = c.g;
    row[i + 2] = c.b;
    row[i + 3] = 255;
  }
  return row;
}

function colorInterior(o: ColorOverlayEffect): Interior {
  let solid: Uint8ClampedArray = new Uint8ClampedArray(0);
  return {
    blend: o.blend ?? 'normal',
    opacity: o.opacity,
    row: (_y, _x0, n, into) => {
      if (solid.length < n * 4) solid = solidRow(o.color, n);
      into.set(solid.subarray(0, n * 4));
    },
  };
}

function gradientInterior(g: GradientOverlayEffect, box: Rect): Interior {
  const table = styleGradientTable(g);
  const at = overlayPosition(g, box);
  return {
    blend: g.blend,
    opacity: g.opacity,
    row: (y, x0, n, into) => {
      for (let j = 0, k = 0; j < n; j++, k += 4) {
        const i = tableIndex(at(x0 + j, y)) * 4;
        const d = g.dither ? ditherNoise(x0 + j, y) : 0;
        into[k] = table[i]! + d;
        into[k + 1] = table[i + 1]! + d;
        into[k + 2] = table[i + 2]! + d;
        into[k + 3] = table[i + 3]! * 255;
      }
    },
  };
}

/**
 * `own` (rows `stride` wide; 0 repeats one row) as the backdrop at alpha `fill` under `interiors`, blended in the
 * kernels' memory a row at a time; the result's alpha is that blend's times the layer's own alpha.
 */
function interiorBlend(own: Raster, stride: number, fill: number, interiors: readonly Interior[]): Raster {
  const { x, y, w, h } = own;
  const data = allocPixels(w * h * 4);
  const out = { x, y, w, h, data };
  if (w === 0 || h === 0) return out;
  const arena = new Arena();
  const accH = arena.reserve(w * 16);
  const srcH = arena.reserve(w * 4);
  arena.commit();
  const acc = arena.floats(accH);
  const src = arena.bytes(srcH);
  const accAt = arena.offset(accH);
  const srcAt = arena.offset(srcH);
  const k = arena.k;
  const f = Math.min(1, Math.max(0, fill));
  for (let row = 0; row < h; row++) {
    const si = row * stride * 4;
    for (let j = 0; j < w; j++) {
      const p = si + j * 4;
      acc[j * 4] = (own.data[p]! / 255) * f;
      acc[j * 4 + 1] = (own.data[p + 1]! / 255) * f;
      acc[j * 4 + 2] = (own.data[p + 2]! / 255) * f;
      acc[j * 4 + 3] = f;
    }
    for (const o of interiors) {
      o.row(y + row, x, w, src);
      k.blend[o.blend](accAt, srcAt, w, Math.min(1, Math.max(0, o.opacity)) / 255, 0, 0);
    }
    const o = row * w * 4;
    k.finish(accAt, srcAt, w);
    for (let j = 0; j < w; j++) {
      const a = own.data[si + j * 4 + 3]!;
      if (a === 0) continue;
      data[o + j * 4] = src[j * 4]!;
      data[o + j * 4 + 1] = src[j * 4 + 1]!;
      data[o + j * 4 + 2] = src[j * 4 + 2]!;
      data[o + j * 4 + 3] = (src[j * 4 + 3]! * a) / 255;
    }
  }
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
  const { dropShadow, stroke, outerGlow } = layer.effects!;
  if (dropShadow) r = unionRect(r, shadowRect(content, dropShadow));
  if (outerGlow) r = unionRect(r, shadowRect(content, glowAsShadow(outerGlow)));
  if (stroke) r = unionRect(r, strokeRect(content, stroke));
  return r;
}

/** Whether the compositor draws effects for `layer` (fills cover the canvas: theirs are not drawn). */
export function hasEffects(layer: Layer): boolean {
  const e = layer.effects;
  return !!e && (!!e.dropShadow || !!e.stroke || !!e.outerGlow || hasInterior(e)) && layer.kind !== 'fill';
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
  const { dropShadow, stroke, outerGlow } = effects;
  const below: EffectPaint[] = [];
  const above: EffectPaint[] = [];
  if (dropShadow && dropShadow.opacity > 0) {
    below.push({
      raster: renderShadow(raster, mask, content, dropShadow),
      blend: dropShadow.blend,
      opacity: dropShadow.opacity,
    });
  }
  if (outerGlow && outerGlow.opacity > 0) {
    const at = shadowRect(content, glowAsShadow(outerGlow));
    const alpha = throughRange(
      blurredMatte({ raster, mask }, at, glowAsShadow(outerGlow), false),
      outerGlow.range,
    );
    below.push({
      raster: colorRaster(at, outerGlow.color, alpha),
      blend: outerGlow.blend,
      opacity: outerGlow.opacity,
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
  const at = shadowRect(content, s);
  const shadow = blurredMatte({ raster, mask }, at, s, false);
  // Knocked out under the layer: each shadow pixel sits under the layer's alpha at its own place.
  const under = matteOf(raster, mask, at);
  for (let i = 0; i < shadow.length; i++) shadow[i] = shadow[i]! * (1 - under[i]!);
  return colorRaster(at, s.color, shadow);
}
