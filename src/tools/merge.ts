/**
 * Merging layers (Photoshop's Merge Layers, Merge Down and Merge Group) as a pure function over DocStates.
 *
 * The merged pixels come from the compositor: a throwaway DocState whose root holds only the layers being
 * merged (the same layer objects, bottom → top in stack order) is rendered over the union of their bounds.
 * Layers taken out of groups are composited as if they were siblings: the enclosing groups' opacity and
 * mode are not applied, because the merged layer goes back inside the topmost layer's group, which applies
 * its own properties again (Photoshop merges layers from different groups the same way).
 */
import { canvasRect, layerExtent, renderDocument } from '../engine/composite/index.js';
import { checkLayerExtent } from '../engine/document-limits.js';
import { fail } from '../engine/errors.js';
import { isBackground, pixelLayer } from '../engine/factory.js';
import type { DocState, Layer, PixelLayer, Raster, Rect } from '../engine/model.js';
import { EMPTY_RECT, isEmptyRect, trimRaster, unionRect } from '../engine/raster.js';
import {
  allocateId,
  childrenOf,
  insertLayer,
  isAncestor,
  isShown,
  layerById,
  parentOf,
  removeLayer,
  setActive,
  setLayer,
  siblingBelow,
  slotAbove,
  subtree,
  topDown,
} from '../engine/tree.js';
import {
  assertNoLockedAncestor,
  assertPixelsEditable,
  assertUnlocked,
  refuseUndrawnMerge,
} from './guards.js';

export interface MergeResult {
  readonly state: DocState;
  /** Names of the layers that went into the merge (top first), hidden ones included. */
  readonly merged: string[];
  /** The id of the merged layer (active and the only selected layer). */
  readonly into: number;
  /** Names of selected layers that were hidden and therefore discarded, as Photoshop does. */
  readonly discarded: string[];
}

/** Position of every layer in the flattened stack: 0 = bottom-most (groups come below their children). */
export function stackPositions(state: DocState): Map<number, number> {
  const top = [...topDown(state)];
  return new Map(top.map((e, i) => [e.layer.id, top.length - 1 - i]));
}

/** The layer a clipped layer is clipped to: the nearest unclipped sibling below it, or null. */
export function clipBase(state: DocState, id: number): number | null {
  const siblings = childrenOf(state, parentOf(state, id));
  for (let i = siblings.indexOf(id) - 1; i >= 0; i--) {
    const s = layerById(state, siblings[i]!);
    if (!s.clipped) return s.id;
  }
  return null;
}

/**
 * Renders `items` (ids, bottom → top) as if they were the only layers of the document, over `rect`.
 * `overrides` replaces layer objects for this render only (e.g. a clip released, a background's opacity).
 */
export function renderLayers(
  state: DocState,
  items: readonly number[],
  rect: Rect,
  overrides: readonly Layer[] = [],
): Raster {
  let layers = state.layers;
  if (overrides.length) {
    const m = new Map(state.layers);
    for (const o of overrides) m.set(o.id, o);
    layers = m;
  }
  const only: DocState = { ...state, layers, root: items, selection: null };
  return renderDocument(only, rect);
}

/** The merged layer's pixels: trimmed, or canvas-sized when the result is the (opaque) background. */
function mergedPixels(
  state: DocState,
  items: readonly number[],
  background: boolean,
  overrides: readonly Layer[],
): Raster {
  if (background) return renderLayers(state, items, canvasRect(state), overrides);
  const rect = items.reduce<Rect>(
    (acc, id) => unionRect(acc, layerExtent(state, layerById(state, id))),
    EMPTY_RECT,
  );
  if (isEmptyRect(rect)) return { ...EMPTY_RECT, data: new Uint8ClampedArray(0) };
  checkLayerExtent(
    rect,
    '合并后的图层',
    '用 move_layer 把远离画布的图层移回画布附近，或删除不需要的图层后再合并；也可以用 merge_visible 把可见内容合并到画布范围内',
  );
  return trimRaster(renderLayers(state, items, rect, overrides));
}

/** The layer, everything inside it and every group above it must be free of Lock All. */
function assertMergeable(state: DocState, layer: Layer): void {
  assertNoLockedAncestor(state, layer, '合并');
  for (const id of subtree(state, layer.id)) assertUnlocked(layerById(state, id), '合并');
}

/**
 * Merges the selected layers. Two or more: one pixel layer at the topmost visible one's place, named after
 * it, opacity 100 %, normal. One layer: Merge Down into the layer below (a lone group: Merge Group).
 */
export function mergeLayers(state: DocState, layers: readonly Layer[]): MergeResult {
  if (layers.length === 0) {
    fail('invalid_state', '当前没有选中的图层', { hint: '用 select_layers 选择要合并的图层' });
  }
  // A layer inside a selected group is merged with the group; listing it again changes nothing.
  const ids = [...new Set(layers.map((l) => l.id))];
  const items = ids.filter((id) => !ids.some((other) => other !== id && isAncestor(state, other, id)));
  if (items.length === 1) {
    const only = layerById(state, items[0]!);
    return only.kind === 'group' ? mergeMany(state, items) : mergeDown(state, only);
  }
  return mergeMany(state, items);
}

function mergeMany(state: DocState, ids: readonly number[]): MergeResult {
  const pos = stackPositions(state);
  const items = [...ids].sort((a, b) => pos.get(a)! - pos.get(b)!); // bottom → top
  for (const id of items) assertMergeable(state, layerById(state, id));

  const set = new Set(items);
  const overrides: Layer[] = [];
  const shown: number[] = [];
  const externalBases = new Set<number | null>();
  let allClipped = true;
  for (const id of items) {
    const layer = layerById(state, id);
    let visible = isShown(state, id);
    let external: number | null | undefined;
    if (layer.clipped) {
      const base = clipBase(state, id);
      if (base !== null && set.has(base)) {
        // Clipped to a layer merged with it: the clipping happens inside the merge. A hidden base hides it.
        if (!isShown(state, base)) visible = false;
      } else {
        // Its base stays outside the merge: composite it unclipped; the result may stay clipped (below).
        overrides.push({ ...layer, clipped: false });
        external = base;
      }
    }
    if (visible) {
      shown.push(id);
      if (external === undefined) allClipped = false;
      else externalBases.add(external);
    }
  }
  const names = (list: readonly number[]) => [...list].reverse().map((id) => layerById(state, id).name);
  const discarded = names(items.filter((id) => !shown.includes(id)));
  if (shown.length === 0) {
    fail('invalid_state', '选中的图层都已隐藏，没有可合并的内容', {
      hint: '先用 set_layer_visible 显示要合并的图层',
    });
  }

  // Merging with the background makes a background (Photoshop): opaque, canvas-sized, at the bottom.
  const bg = shown.map((id) => layerById(state, id)).find(isBackground);
  const topmost = layerById(state, shown.at(-1)!);
  refuseUndrawnMerge(
    state,
    shown,
    '合并图层',
    '用 select_layers 重新选择不含这些调整图层的图层再合并（调整图层保持独立，保存 PSD 时写回，Photoshop 中照常生效）；不需要它们时先用 delete_layer 删除',
  );
  const raster = mergedPixels(state, shown, bg !== undefined, overrides);

  let next: DocState;
  let into: number;
  if (bg) {
    into = bg.id;
    const merged: PixelLayer = { ...pixelLayer(bg.id, bg.name, raster), background: true };
    next = setLayer(state, merged);
    for (const id of items) if (id !== bg.id) next = removeLayer(next, id);
  } else {
    [into, next] = allocateId(state);
    // Still clipped when every merged layer was clipped to the same base, which is not merged.
    const clipped = allClipped && externalBases.size === 1 && !externalBases.has(null);
    const merged: PixelLayer = { ...pixelLayer(into, topmost.name, raster), clipped };
    const slot = slotAbove(next, topmost.id);
    next = insertLayer(next, merged, slot.parent, slot.index);
    for (const id of items) next = removeLayer(next, id);
  }
  return { state: setActive(next, into), merged: names(items), into, discarded };
}

/**
 * Photoshop's Merge Down: the upper layer is applied onto the lower layer's own pixels, and the result IS the
 * lower layer — it keeps the lower layer's id, name, opacity, blend mode, visibility, clipping and locks
 * ("the merged layer takes on the name and blending mode of the bottom layer"). So the upper layer's
 * content now also gets the lower layer's opacity and mode: like in Photoshop (and GIMP), merging onto a
 * lower layer that is not 100 % normal can change how the image looks. The lower layer's mask and effects
 * are applied into the pixels (they would otherwise act on the upper layer's content as well).
 */
function mergeDown(state: DocState, upper: Layer): MergeResult {
  const lowerId = siblingBelow(state, upper.id);
  if (lowerId === null) {
    fail('invalid_state', `“${upper.name}”下方没有可向下合并的图层`, {
      hint: '用 select_layers 同时选中两个及以上的图层再调用 merge_layers',
    });
  }
  const lower = layerById(state, lowerId);
  if (lower.kind === 'group') {
    fail('invalid_state', `“${upper.name}”下方的“${lower.name}”是图层组，不能向下合并到图层组`, {
      hint: '用 select_layers 选中要合并的图层（可包括图层组）再调用 merge_layers',
    });
  }
  assertMergeable(state, upper);
  assertPixelsEditable(state, lower, '合并');
  for (const l of [upper, lower]) {
    if (!isShown(state, l.id)) {
      fail('invalid_state', `“${l.name}”是隐藏的，向下合并需要上下两个图层都可见`, {
        hint: `先用 set_layer_visible 显示“${l.name}”`,
      });
    }
  }

  refuseUndrawnMerge(
    state,
    [upper.id],
    '向下合并',
    '调整图层保持独立即可（保存 PSD 时写回，Photoshop 中照常生效）；不需要它时用 delete_layer 删除',
  );
  const background = isBackground(lower);
  const flatLower = { ...lower, opacity: 1, blend: 'normal', clipped: false } as Layer;
  // The upper layer was clipped to the lower one only when the lower one is a clipping base.
  const flatUpper = upper.clipped && lower.clipped ? { ...upper, clipped: false } : upper;
  const raster = mergedPixels(state, [lower.id, upper.id], background, [flatLower, flatUpper]);
  const merged: PixelLayer = {
    ...pixelLayer(lower.id, lower.name, raster),
    visible: lower.visible,
    opacity: lower.opacity,
    blend: lower.blend,
    clipped: lower.clipped,
    locks: lower.locks,
    ...(background ? { background: true } : {}),
  };
  const next = setActive(removeLayer(setLayer(state, merged), upper.id), lower.id);
  return { state: next, merged: [upper.name, lower.name], into: lower.id, discarded: [] };
}
