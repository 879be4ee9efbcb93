/**
 * The render plan: the layer tree reduced to what can show inside one render rectangle — hidden layers,
 * empty layers and layers outside the rectangle dropped, clipping groups gathered under their base — with
 * every rectangle already cut to the render rectangle. Built once per render, then walked once per strip.
 */
import { adjustmentKernel } from '../adjust/layer.js';
import type { ColorKernel } from '../adjust/lut.js';
import type { BlendMode, DocState, Layer, LayerMask, Raster, Rect, RGB } from '../model.js';
import { EMPTY_RECT, intersectRect, isEmptyRect, unionRect } from '../raster.js';
import { canvasRect, contentExtent } from './bounds.js';
import {
  type EffectPaints,
  effectPaints,
  effectsExtent,
  hasEffects,
  NO_EFFECTS,
  overlaidRaster,
} from './effects.js';
import { maskReach, shownMask } from './mask-shown.js';

interface NodeBase {
  readonly layer: Layer;
  readonly blend: BlendMode;
  /** The whole node's opacity: its pixels and its effects. */
  readonly opacity: number;
  /** A further factor for the node's own pixels (a group: its composite) but not its effects. */
  readonly fillOpacity: number;
  /** The enabled mask, or null. */
  readonly mask: LayerMask | null;
  /** The node's own pixels (a group: its composite) inside the render rectangle. */
  readonly content: Rect;
  /** `content` plus effects: everything the node can touch. */
  readonly bounds: Rect;
}

export interface LeafNode extends NodeBase {
  readonly kind: 'leaf';
  /** Pixel, text and smart layers draw a raster; fill layers a colour over the canvas. */
  readonly raster: Raster | null;
  readonly fill: RGB | null;
  readonly effects: EffectPaints;
}

export interface GroupNode extends NodeBase {
  readonly kind: 'group';
  /**
   * Isolated: the children composite onto transparency and the result blends as one layer. Every mode but
   * pass-through isolates; the plan also isolates a pass-through group that is a clipping base or is clipped,
   * since there it has to act as one layer.
   */
  isolated: boolean;
  readonly items: readonly PlanItem[];
  /**
   * The group's effect rasters. They are made from the group's composite, so the compositor fills them in
   * before it draws (`resolveGroupEffects`); `bounds` already covers where they can reach.
   */
  effects: EffectPaints;
}

/**
 * An adjustment layer Atelier draws (adjust/layer.ts): its kernel runs over what lies below it on its level
 * — the backdrop, inside its group; the base alone when clipped — mixed in by opacity × mask. It has no
 * pixels, so it reaches wherever its mask lets it on the canvas.
 */
export interface AdjustNode extends NodeBase {
  readonly kind: 'adjust';
  readonly kernel: ColorKernel;
}

export type PlanNode = LeafNode | GroupNode | AdjustNode;

/** A layer together with the clipped layers above it (empty `clips` for an ordinary layer). */
export interface PlanItem {
  readonly node: PlanNode;
  readonly clips: PlanNode[];
  /** What the whole item can touch: `node.bounds`, as clipped layers show only inside their base. */
  readonly bounds: Rect;
}

export interface Plan {
  readonly state: DocState;
  readonly rect: Rect;
  readonly items: readonly PlanItem[];
}

export function buildPlan(state: DocState, rect: Rect): Plan {
  return { state, rect, items: buildItems(state, state.root, rect, canvasRect(state)) };
}

/** The plan of group `layer`'s children alone, as if they were a document's layers: its composite. */
export function buildGroupPlan(state: DocState, layer: Layer, rect: Rect): Plan {
  const children = layer.kind === 'group' ? layer.children : [];
  return { state, rect, items: buildItems(state, children, rect, canvasRect(state)) };
}

function buildItems(state: DocState, ids: readonly number[], rect: Rect, canvas: Rect): PlanItem[] {
  const items: PlanItem[] = [];
  // The clipping base the next clipped layer attaches to: an item, `hidden` (the base shows nothing here, so
  // neither do its clipped layers), or none yet: a clipped layer lowest in its stack has nothing to clip to,
  // so it is drawn plainly and becomes the base of the clipped layers above it (Photoshop never leaves a
  // clipped layer lowest; imported files might).
  let base: PlanItem | 'hidden' | null = null;
  for (const id of ids) {
    const layer = state.layers.get(id);
    if (!layer) continue;
    if (layer.clipped && base !== null) {
      if (base === 'hidden') continue;
      const node = buildNode(state, layer, rect, canvas, true);
      if (node) base.clips.push(node);
      continue;
    }
    const node = buildNode(state, layer, rect, canvas, false);
    if (!node) {
      base = 'hidden';
      continue;
    }
    // An adjustment layer is a base too: its clipped layers show wherever its mask does (drawClippingGroup).
    base = { node, clips: [], bounds: node.bounds };
    items.push(base);
  }
  for (const item of items) {
    // A base group is drawn as one layer for its clipped layers to sit on.
    if (item.clips.length > 0 && item.node.kind === 'group') item.node.isolated = true;
  }
  return items;
}

function buildNode(
  state: DocState,
  layer: Layer,
  rect: Rect,
  canvas: Rect,
  clipped: boolean,
): PlanNode | null {
  if (!layer.visible || !(layer.opacity > 0)) return null;
  const reach = maskReach(layer);
  const limit = reach ? intersectRect(rect, reach) : rect;
  if (isEmptyRect(limit)) return null;
  if (layer.kind === 'adjustment') {
    // One Atelier cannot draw is kept, not drawn (model.ts AdjustmentLayer).
    const kernel = adjustmentKernel(layer.adjustment, state.mode);
    if (!kernel) return null;
    const content = intersectRect(canvas, limit);
    if (isEmptyRect(content)) return null;
    return {
      kind: 'adjust',
      layer,
      blend: layer.blend,
      opacity: Math.min(1, layer.opacity),
      fillOpacity: layer.fillOpacity === undefined ? 1 : Math.min(1, Math.max(0, layer.fillOpacity)),
      mask: shownMask(layer, canvas, state),
      content,
      bounds: content,
      kernel,
    };
  }
  const cover = layer.kind === 'group' || layer.kind === 'fill' ? canvas : unionRect(canvas, layer.raster);
  const mask = shownMask(layer, cover, state);
  const opacity = Math.min(1, layer.opacity);
  const fillOpacity = layer.fillOpacity === undefined ? 1 : Math.min(1, Math.max(0, layer.fillOpacity));

  if (layer.kind === 'group') {
    const items = buildItems(state, layer.children, limit, canvas);
    let content = EMPTY_RECT;
    for (const item of items) content = unionRect(content, item.bounds);
    // Effects come from the whole group, so they can reach into the rectangle from content outside it.
    const styled = hasEffects(layer);
    const bounds = styled
      ? unionRect(content, intersectRect(effectsExtent(layer, contentExtent(state, layer)), rect))
      : content;
    if (isEmptyRect(bounds)) return null;
    return {
      kind: 'group',
      layer,
      blend: layer.blend,
      opacity,
      fillOpacity,
      mask,
      content,
      bounds,
      // A group with effects acts as one layer: its effects are drawn around its composite.
      isolated: layer.blend !== 'pass through' || clipped || styled,
      items,
      effects: NO_EFFECTS,
    };
  }

  // Colour and gradient overlays change the pixels the layer shows, its fill opacity taken into them (effects.ts).
  const overlaid = overlaidRaster(layer, state);
  const raster = overlaid ?? (layer.kind === 'fill' ? null : layer.raster);
  const content = intersectRect(raster ?? canvas, limit);
  const effects = effectPaints(layer, state);
  let bounds = content;
  for (const p of effects.below) bounds = unionRect(bounds, intersectRect(p.raster, rect));
  for (const p of effects.above) bounds = unionRect(bounds, intersectRect(p.raster, rect));
  if (isEmptyRect(bounds)) return null;
  return {
    kind: 'leaf',
    layer,
    blend: layer.blend,
    opacity,
    fillOpacity: overlaid ? 1 : fillOpacity,
    mask,
    content,
    bounds,
    raster,
    fill: layer.kind === 'fill' && !overlaid ? layer.color : null,
    effects,
  };
}
