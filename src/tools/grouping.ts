/** Group C: grouping, alignment, merging (SPEC.md §4.3 "Grouping, alignment, merging"). */
import { contentBounds } from '../engine/bounds.js';
import { canvasRect } from '../engine/composite/index.js';
import { fail } from '../engine/errors.js';
import { BACKGROUND_NAME, groupLayer, isBackground, pixelLayer } from '../engine/factory.js';
import type { DocState, Layer, PixelLayer, Raster, Rect } from '../engine/model.js';
import { closest } from '../engine/names.js';
import { blankRaster, cropRaster, isEmptyRect, trimRaster } from '../engine/raster.js';
import { translateLayer } from '../engine/translate.js';
import {
  allocateId,
  childrenOf,
  insertLayer,
  isAncestor,
  isShown,
  layerById,
  layerByRef,
  layersNamed,
  moveLayer,
  parentOf,
  removeLayer,
  setActive,
  setLayer,
  slotAbove,
  subtree,
  topDown,
} from '../engine/tree.js';
import { alignLayers } from './align.js';
import { layerSummary } from './describe.js';
import {
  assertNoLockedAncestor,
  assertPositionUnlocked,
  assertUnlocked,
  listUndrawn,
  refuseBackground,
  refuseUndrawnMerge,
  undrawnAdjustments,
} from './guards.js';
import { clipBase, stackPositions } from './merge.js';
import { activeDoc } from './resolve.js';
import type { ToolContext, ToolHandlers } from './types.js';

const MISSING_SHOWN = 5;

/**
 * Resolves every name (Photoshop's getByName: the first match from the top; `name#k` the k-th), all or nothing:
 * any unknown name fails with `not_found` naming the missing names and the closest existing ones. A name listed
 * twice counts once. Returns the layers in the order the names were given.
 */
export function layersNamedAll(ctx: ToolContext, state: DocState, names: readonly string[]): Layer[] {
  if (names.length === 0) fail('invalid_arguments', 'layer_names 不能为空', { hint: '至少给出一个图层名称' });
  const missing: string[] = [];
  const found = new Map<number, Layer>();
  for (const name of new Set(names)) {
    const matches = layersNamed(state, name);
    const first = matches[0];
    if (!first) {
      // `name#k`: the k-th of several layers sharing a name, as layerNamed takes it.
      const byRef = layerByRef(state, name);
      if (byRef) found.set(byRef.id, byRef);
      else missing.push(name);
      continue;
    }
    if (matches.length > 1) {
      ctx.warn(`有 ${matches.length} 个图层名为“${name}”，已使用最上面的一个（id ${first.id}）`);
    }
    found.set(first.id, first);
  }
  if (missing.length) {
    const all = [...topDown(state)].map((e) => e.layer.name);
    // Suggestions and the message cover the first few missing names: a list of a thousand typos needs no more.
    const shown = missing.slice(0, MISSING_SHOWN);
    const near = [...new Set(shown.flatMap((m) => closest(m, all)))];
    const more = missing.length > shown.length ? `等 ${missing.length} 个` : '';
    fail('not_found', `没有名为${shown.map((m) => `“${m}”`).join('、')}${more}的图层`, {
      hint: near.length
        ? `是否指 ${near.map((n) => `“${n}”`).join('、')}？`
        : '用 list_all_layer_names 查看所有图层',
      details: { missing, closest: near },
    });
  }
  return [...found.values()];
}

/** Refuses a list in which one named layer is a group containing another named layer. */
function assertNoNesting(state: DocState, layers: readonly Layer[], what: string): void {
  for (const a of layers) {
    for (const b of layers) {
      if (a !== b && isAncestor(state, a.id, b.id)) {
        fail('invalid_state', `“${b.name}”在图层组“${a.name}”之内，不能同时${what}这两个图层`, {
          hint: `从 layer_names 中去掉“${a.name}”或“${b.name}”`,
        });
      }
    }
  }
}

/** The named layers become the layer selection; the first one is the active layer. */
function selectNamed(state: DocState, layers: readonly Layer[]): DocState {
  return { ...state, active: layers[0]!.id, selected: layers.map((l) => l.id) };
}

/** `图层 N` with the next free N, as Photoshop names new layers. */
export function nextLayerName(state: DocState): string {
  let n = 0;
  for (const layer of state.layers.values()) {
    const m = /^图层 (\d+)$/.exec(layer.name);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return `图层 ${n + 1}`;
}

/**
 * `r` over opaque white, cropped to `rect` (Photoshop flattens onto white). An already opaque raster covering
 * exactly `rect` is returned as is: rasters are immutable, so the composite's buffer can be shared.
 */
function overWhite(r: Raster, rect: Rect): Raster {
  const src = r.x === rect.x && r.y === rect.y && r.w === rect.w && r.h === rect.h ? r : cropRaster(r, rect);
  const s = src.data;
  let opaque = true;
  for (let i = 3; i < s.length; i += 4) {
    if (s[i] !== 255) {
      opaque = false;
      break;
    }
  }
  if (opaque) return src;
  const out = blankRaster(rect);
  const d = out.data;
  for (let i = 0; i < d.length; i += 4) {
    const a = s[i + 3]! / 255;
    d[i] = s[i]! * a + 255 * (1 - a);
    d[i + 1] = s[i + 1]! * a + 255 * (1 - a);
    d[i + 2] = s[i + 2]! * a + 255 * (1 - a);
    d[i + 3] = 255;
  }
  return out;
}

/** The top-level layer holding `id` (itself when it is at the top level). */
function rootAncestor(state: DocState, id: number): number {
  let cur = id;
  for (let p = parentOf(state, cur); p !== null; p = parentOf(state, p)) cur = p;
  return cur;
}

/** Whether a layer shows in the composite: visible itself, inside visible groups, not clipped to a hidden base. */
function contributes(state: DocState, layer: Layer): boolean {
  if (!isShown(state, layer.id)) return false;
  if (!layer.clipped) return true;
  const base = clipBase(state, layer.id);
  return base === null || isShown(state, base);
}

export const groupingHandlers = {
  group_layers({ layer_names, group_name }, ctx) {
    const doc = activeDoc(ctx);
    const named = layersNamedAll(ctx, doc.state, layer_names);
    assertNoNesting(doc.state, named, '编组');
    // Grouping restacks: Photoshop allows it for locked layers, not for the background or inside a locked group.
    for (const l of named) {
      refuseBackground(l, '编组');
      assertNoLockedAncestor(doc.state, l, '移出图层组');
    }
    if ([...topDown(doc.state)].some((e) => e.layer.kind === 'group' && e.layer.name === group_name)) {
      ctx.warn(`已有名为“${group_name}”的图层组，新建的图层组与它同名`);
    }
    const pos = stackPositions(doc.state);
    const order = [...named].sort((a, b) => pos.get(a.id)! - pos.get(b.id)!); // bottom → top
    const topmost = order.at(-1)!;

    // The group goes directly above the topmost named layer, so once that one has moved in, the group
    // holds its place; then every named layer moves in, bottom first, keeping the stack order.
    const [id, allocated] = allocateId(doc.state);
    const slot = slotAbove(allocated, topmost.id);
    let next = insertLayer(allocated, groupLayer(id, group_name), slot.parent, slot.index);
    for (const [i, layer] of order.entries()) next = moveLayer(next, layer.id, id, i);
    // A clipped layer at the bottom of the new group has nothing to clip to: Photoshop releases it.
    for (const childId of childrenOf(next, id)) {
      const child = layerById(next, childId);
      if (!child.clipped) break;
      next = setLayer(next, { ...child, clipped: false });
    }
    next = setActive(next, id);
    ctx.tx.update(doc.id, next);
    return {
      group: layerSummary(next, layerById(next, id)),
      // Top first, as the layers panel shows them.
      children: [...order].reverse().map((l) => l.name),
    };
  },

  align_layers_tool({ layer_names, alignment }, ctx) {
    const doc = activeDoc(ctx);
    const named = layersNamedAll(ctx, doc.state, layer_names);
    assertNoNesting(doc.state, named, '对齐');
    // The background is position-locked in Photoshop; alignLayers would move a pixel background.
    for (const l of named) {
      refuseBackground(l, '对齐');
      assertNoLockedAncestor(doc.state, l, '移动');
    }
    const { state, moved } = alignLayers(doc.state, named, alignment);
    const next = selectNamed(state, named);
    ctx.tx.update(doc.id, next);
    return {
      aligned: named.map((l) => l.name),
      alignment,
      to: named.length > 1 ? 'selection' : 'canvas',
      moved,
      layers: named.map((l) => layerSummary(next, layerById(next, l.id))),
    };
  },

  distribute_layers({ layer_names, direction }, ctx) {
    const doc = activeDoc(ctx);
    const named = layersNamedAll(ctx, doc.state, layer_names);
    if (named.length < 3) {
      fail('invalid_state', `分布至少需要 3 个不同的图层，当前只有 ${named.length} 个`, {
        hint: '两个图层请用 align_layers_tool 对齐，或在 layer_names 中给出 3 个及以上图层',
      });
    }
    assertNoNesting(doc.state, named, '分布');
    const horizontal = direction === 'horizontal';
    const boxes = named.map((layer) => {
      const box = contentBounds(doc.state, layer.id);
      if (isEmptyRect(box)) {
        fail('invalid_state', `图层“${layer.name}”没有内容，无法参与分布`, {
          hint: '从 layer_names 中去掉空图层',
        });
      }
      refuseBackground(layer, '移动');
      assertNoLockedAncestor(doc.state, layer, '移动');
      for (const id of subtree(doc.state, layer.id)) assertPositionUnlocked(layerById(doc.state, id), '移动');
      const start = horizontal ? box.x : box.y;
      const size = horizontal ? box.w : box.h;
      return { layer, start, size };
    });
    // Photoshop's Distribute Spacing: order by centre, keep the two outermost, equalise the gaps between them.
    boxes.sort((a, b) => a.start + a.size / 2 - (b.start + b.size / 2));
    const first = boxes[0]!;
    const last = boxes.at(-1)!;
    const inner = boxes.slice(1, -1);
    const free = last.start - (first.start + first.size) - inner.reduce((s, b) => s + b.size, 0);
    const gap = free / (boxes.length - 1);
    let next = doc.state;
    let moved = 0;
    let edge = first.start + first.size;
    const positions: { name: string; start: number }[] = [{ name: first.layer.name, start: first.start }];
    for (const [i, b] of inner.entries()) {
      const start = Math.round(edge + gap * (i + 1));
      edge += b.size;
      positions.push({ name: b.layer.name, start });
      const d = start - b.start;
      if (d !== 0) {
        next = translateLayer(next, b.layer.id, horizontal ? d : 0, horizontal ? 0 : d);
        moved++;
      }
    }
    positions.push({ name: last.layer.name, start: last.start });
    next = selectNamed(next, named);
    ctx.tx.update(doc.id, next);
    return {
      direction,
      // Consecutive edges after rounding to whole pixels (each gap within 1 px of `gap`).
      gap: Math.round(gap * 100) / 100,
      moved,
      order: positions.map((p) => p.name),
      layers: boxes.map((b) => layerSummary(next, layerById(next, b.layer.id))),
    };
  },

  merge_visible(_args, ctx) {
    const doc = activeDoc(ctx);
    const state = doc.state;
    const leaves = [...topDown(state)]
      .map((e) => e.layer)
      .filter((l) => l.kind !== 'group' && contributes(state, l));
    if (leaves.length === 0) {
      fail('invalid_state', '文档中没有可见图层，无法合并可见图层', {
        hint: '先用 set_layer_visible 显示要合并的图层',
      });
    }
    // What goes: every contributing layer, then every visible group left with nothing inside.
    const gone = new Set(leaves.map((l) => l.id));
    const prune = (id: number): boolean => {
      const layer = layerById(state, id);
      if (layer.kind !== 'group') return gone.has(id);
      const emptied = layer.children.map(prune).every(Boolean);
      if (emptied && isShown(state, id)) gone.add(id);
      return gone.has(id);
    };
    for (const id of state.root) prune(id);
    for (const id of gone) assertUnlocked(layerById(state, id), '合并');
    refuseUndrawnMerge(
      state,
      leaves.map((l) => l.id),
      '合并可见图层',
      '先用 set_layer_visible 隐藏这些调整图层（合并可见图层保留隐藏的图层，之后可再显示）或用 delete_layer 删除，再合并',
    );

    const composite = ctx.tx.composite(doc.id);
    // With the background visible the result is the background (Photoshop merges visible layers into it);
    // otherwise a new layer named after the topmost visible layer takes the place of its top-level stack.
    const bg = leaves.find(isBackground);
    let next: DocState;
    let into: number;
    if (bg) {
      into = bg.id;
      const merged: PixelLayer = {
        ...pixelLayer(bg.id, BACKGROUND_NAME, overWhite(composite, canvasRect(state))),
        background: true,
      };
      next = setLayer(state, merged);
    } else {
      [into, next] = allocateId(state);
      const raster = trimRaster(cropRaster(composite, canvasRect(state)));
      const slot = slotAbove(next, rootAncestor(state, leaves[0]!.id));
      next = insertLayer(next, pixelLayer(into, leaves[0]!.name, raster), slot.parent, slot.index);
    }
    for (const id of gone) {
      if (id !== into && next.layers.has(id)) {
        // A group's children may have gone already; remove only what is still attached.
        next = removeLayer(next, id);
      }
    }
    next = setActive(next, into);
    ctx.tx.update(doc.id, next);
    // What stays is hidden, or a visible group that holds only hidden layers.
    const kept = [...topDown(next)].filter((e) => e.layer.id !== into).map((e) => e.layer);
    const keptGroups = kept.filter((l) => isShown(next, l.id)).map((l) => l.name);
    return {
      merged: leaves.map((l) => l.name),
      merged_count: leaves.length,
      kept_hidden: kept.filter((l) => !isShown(next, l.id)).map((l) => l.name),
      ...(keptGroups.length ? { kept_groups: keptGroups } : {}),
      layer: layerSummary(next, layerById(next, into)),
    };
  },

  flatten_image(_args, ctx) {
    const doc = activeDoc(ctx);
    const state = doc.state;
    const all = [...topDown(state)].map((e) => e.layer);
    for (const l of all) assertUnlocked(l, '拼合');
    const hidden = all.filter((l) => !isShown(state, l.id));
    refuseUndrawnMerge(
      state,
      state.root,
      '拼合图像',
      '先用 delete_layer 删除这些调整图层，或用 set_layer_visible 隐藏（拼合会丢弃隐藏的图层），再拼合',
    );
    const composite = ctx.tx.composite(doc.id);
    const bg = all.find(isBackground);
    let [id, next] = bg ? [bg.id, state] : allocateId(state);
    const flat: PixelLayer = {
      ...pixelLayer(id, BACKGROUND_NAME, overWhite(composite, canvasRect(state))),
      background: true,
    };
    next = setActive({ ...next, layers: new Map([[id, flat]]), root: [id] }, id);
    ctx.tx.update(doc.id, next);
    return {
      flattened: all.length - hidden.length,
      hidden_discarded: hidden.length,
      ...(hidden.length ? { discarded: hidden.filter((l) => l.visible === false).map((l) => l.name) } : {}),
      layer: layerSummary(next, flat),
      layer_count: 1,
    };
  },

  copy_merged_to_new_layer(_args, ctx) {
    const doc = activeDoc(ctx);
    const state = doc.state;
    const raster = trimRaster(cropRaster(ctx.tx.peekComposite(doc.id), canvasRect(state)));
    if (isEmptyRect(raster)) {
      fail('invalid_state', '文档中没有可见内容，无法复制合并', {
        hint: '先用 set_layer_visible 显示图层，或在图层上绘制内容',
      });
    }
    const undrawn = undrawnAdjustments(state, state.root);
    if (undrawn.length > 0) {
      ctx.warn(`新图层不含调整图层${listUndrawn(undrawn)}的效果`);
    }
    const [id, allocated] = allocateId(state);
    const slot = slotAbove(allocated, state.active);
    const next = setActive(
      insertLayer(allocated, pixelLayer(id, nextLayerName(state), raster), slot.parent, slot.index),
      id,
    );
    ctx.tx.update(doc.id, next);
    return { layer: layerSummary(next, layerById(next, id)) };
  },
} satisfies ToolHandlers;
