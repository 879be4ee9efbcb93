/**
 * Group C masks (SPEC.md §4.3): create_clipping_mask, release_clipping_mask, add_layer_mask, delete_layer_mask.
 *
 * Photoshop is the reference where the spec is silent:
 * - Create Clipping Mask clips the layer to the layer directly below it in the same group (joining that layer's
 *   clipping group when it is itself clipped); the bottom layer of a group has nothing to clip to, and the
 *   Background cannot be a clipping base.
 * - Release Clipping Mask on a clipped layer releases it and the clipped layers above it in the same clipping
 *   group; on a base it releases every layer clipped to it.
 * - Add Layer Mask: Reveal All, Hide All, or Reveal Selection when a selection is active (the selection is then
 *   used up, as Photoshop deselects). The Background cannot have a mask; groups, text and smart objects can.
 * - Delete Layer Mask discards the mask or applies it into the pixels first (alpha × mask); applying to text or a
 *   smart object needs rasterizing first, as Photoshop asks, and a group's mask cannot be applied.
 * Lock All (on the layer or a group above it) refuses every change; applying a mask also needs unlocked pixels.
 */
import { fail } from '../engine/errors.js';
import { isBackground } from '../engine/factory.js';
import type { DocState, Layer, LayerMask, PixelLayer, Raster } from '../engine/model.js';
import { copyPixels, emptyRaster, isEmptyRect, trimRaster } from '../engine/raster.js';
import { sampleMask } from '../engine/selection.js';
import { childrenOf, layerById, parentOf, setLayer } from '../engine/tree.js';
import { boundsReport, KIND_NAMES, layerSummary } from './describe.js';
import { commitActive, unchanged } from './effects.js';
import { assertFree, assertPixelsUnlocked, refuseAdjustment, refuseBackground } from './guards.js';
import { clipBase } from './merge.js';
import { activeDoc, layerNamed } from './resolve.js';
import type { Payload, ToolHandlers } from './types.js';

/** The run of clipped layers directly above `id` among its siblings (they clip to it or through it). */
function clippedAbove(state: DocState, id: number): Layer[] {
  const siblings = childrenOf(state, parentOf(state, id));
  const out: Layer[] = [];
  for (let i = siblings.indexOf(id) + 1; i < siblings.length; i++) {
    const l = layerById(state, siblings[i]!);
    if (!l.clipped) break;
    out.push(l);
  }
  return out;
}

function withoutMask(layer: Layer): Layer {
  const { mask: _mask, ...rest } = layer;
  return rest as Layer;
}

/** What the model is told about a layer mask. */
function maskReport(m: LayerMask) {
  return {
    enabled: m.enabled,
    outside: m.outside === 255 ? 'reveal' : 'hide',
    bounds: boundsReport(m),
  };
}

/**
 * The raster with its alpha multiplied by the mask (Photoshop's Apply Layer Mask), trimmed to what is left.
 * Pixels the mask hides completely become transparent black; the same raster when the mask shows all of it.
 */
export function applyMaskToRaster(r: Raster, m: LayerMask): Raster {
  if (isEmptyRect(r)) return r;
  const cover = sampleMask(m, r);
  if (cover === 255) return r;
  if (cover === 0) return emptyRaster();
  const data = copyPixels(r.data);
  const n = r.w * r.h;
  for (let i = 0, j = 3; i < n; i++, j += 4) {
    const k = typeof cover === 'number' ? cover : cover[i]!;
    if (k === 255) continue;
    const a = Math.round((data[j]! * k) / 255);
    data[j] = a;
    if (a === 0) {
      data[j - 3] = 0;
      data[j - 2] = 0;
      data[j - 1] = 0;
    }
  }
  return trimRaster({ x: r.x, y: r.y, w: r.w, h: r.h, data });
}

export const masksHandlers = {
  create_clipping_mask({ name }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const layer = layerNamed(ctx, s, name);
    refuseBackground(layer, '剪贴到其他图层');
    const parent = parentOf(s, layer.id);
    const siblings = childrenOf(s, parent);
    if (siblings.indexOf(layer.id) === 0) {
      const where = parent === null ? '文档' : `图层组“${layerById(s, parent).name}”`;
      fail('invalid_state', `“${layer.name}”是${where}中最底部的图层，下方没有可以剪贴的图层`, {
        hint: '剪贴蒙版让图层只在其正下方（同一图层组内）图层的不透明区域内显示：先把作为形状的图层放在它的正下方',
      });
    }
    if (layer.clipped) {
      const base = clipBase(s, layer.id);
      return unchanged(ctx, doc, layer, `图层“${layer.name}”已经是剪贴蒙版`, {
        base: base === null ? null : layerById(s, base).name,
      });
    }
    const baseId = clipBase(s, layer.id);
    if (baseId === null) return fail('internal', `找不到“${layer.name}”下方的剪贴基底图层`);
    const base = layerById(s, baseId);
    if (isBackground(base)) {
      fail('invalid_state', `“${layer.name}”下方是背景图层，Photoshop 中背景图层不能作为剪贴蒙版的基底`, {
        hint: '剪贴蒙版需要下方有带透明区域的形状图层：先在“背景”之上放置作为形状的图层，再对要剪贴的图层调用',
      });
    }
    assertFree(s, layer, '创建剪贴蒙版');
    // A base with clipped layers of its own brings them along: they now clip through it to the new base.
    const joined = clippedAbove(s, layer.id).map((l) => l.name);
    const next = commitActive(ctx, doc, setLayer(s, { ...layer, clipped: true }), layer.id);
    return {
      base: base.name,
      ...(joined.length ? { joined, note: `原先剪贴到“${layer.name}”的图层也随之剪贴到“${base.name}”` } : {}),
      layer: layerSummary(next, layerById(next, layer.id)),
    };
  },

  release_clipping_mask({ name }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const layer = layerNamed(ctx, s, name);
    const above = clippedAbove(s, layer.id);
    const targets = layer.clipped ? [layer, ...above] : above;
    if (targets.length === 0) {
      return unchanged(ctx, doc, layer, `图层“${layer.name}”不是剪贴蒙版，上方也没有剪贴到它的图层`, {
        released: [],
      });
    }
    const base = layer.clipped ? clipBase(s, layer.id) : layer.id;
    for (const t of targets) assertFree(s, t, '释放剪贴蒙版');
    let next = s;
    for (const t of targets) next = setLayer(next, { ...t, clipped: false });
    next = commitActive(ctx, doc, next, layer.id);
    const released = targets.map((t) => t.name);
    const notes: string[] = [];
    if (!layer.clipped) notes.push(`“${layer.name}”是剪贴组的基底，已释放剪贴到它的所有图层`);
    else if (above.length) notes.push(`与 Photoshop 相同，上方同一剪贴组中的图层也一并释放`);
    return {
      released,
      ...(base !== null ? { base: layerById(s, base).name } : {}),
      ...(notes.length ? { note: notes[0] } : {}),
      layer: layerSummary(next, layerById(next, layer.id)),
    };
  },

  add_layer_mask({ name, hide_all }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const layer = layerNamed(ctx, s, name);
    refuseBackground(layer, '添加图层蒙版');
    if (layer.mask) {
      fail('invalid_state', `图层“${layer.name}”已有图层蒙版`, {
        hint: '一个图层只能有一个图层蒙版：先调用 delete_layer_mask 删除（或应用）现有蒙版，再添加',
        details: { mask: maskReport(layer.mask) },
      });
    }
    assertFree(s, layer, '添加图层蒙版');
    const sel = s.selection;
    let mask: LayerMask;
    let from: 'hide_all' | 'selection' | 'reveal_all';
    if (hide_all) {
      mask = { x: 0, y: 0, w: 0, h: 0, data: new Uint8Array(0), outside: 0, enabled: true };
      from = 'hide_all';
    } else if (sel) {
      // Reveal Selection: the selection becomes the mask (buffers are immutable, so it is shared).
      mask = { x: sel.x, y: sel.y, w: sel.w, h: sel.h, data: sel.data, outside: sel.outside, enabled: true };
      from = 'selection';
    } else {
      mask = { x: 0, y: 0, w: 0, h: 0, data: new Uint8Array(0), outside: 255, enabled: true };
      from = 'reveal_all';
    }
    let next: DocState = setLayer(s, { ...layer, mask });
    // Photoshop uses the selection up when it becomes the mask.
    if (from === 'selection') next = { ...next, selection: null };
    next = commitActive(ctx, doc, next, layer.id);
    const notes: Record<typeof from, string> = {
      hide_all: '已添加全黑蒙版：图层内容全部隐藏',
      selection: '已按当前选区生成蒙版（选区内显示、选区外隐藏），选区已取消',
      reveal_all: '已添加全白蒙版：图层内容全部显示',
    };
    return {
      from,
      note: notes[from],
      ...(hide_all && sel ? { selection_note: 'hide_all 为 true 时不使用当前选区，选区保持不变' } : {}),
      mask: maskReport(mask),
      layer: layerSummary(next, layerById(next, layer.id)),
    };
  },

  delete_layer_mask({ name, apply }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const layer = layerNamed(ctx, s, name);
    const mask = layer.mask;
    if (!mask) {
      fail('invalid_state', `图层“${layer.name}”没有图层蒙版`, {
        hint: '用 get_active_layer_info 查看图层是否有蒙版；add_layer_mask 添加蒙版',
      });
    }
    assertFree(s, layer, '删除图层蒙版');
    if (!apply) {
      const next = commitActive(ctx, doc, setLayer(s, withoutMask(layer)), layer.id);
      return {
        applied: false,
        note: '蒙版已丢弃，图层像素不变',
        layer: layerSummary(next, layerById(next, layer.id)),
      };
    }
    if (layer.kind === 'text' || layer.kind === 'smart' || layer.kind === 'fill') {
      const what = { text: '文字图层', smart: '智能对象', fill: '纯色填充图层' }[layer.kind];
      fail('invalid_state', `“${layer.name}”是${what}，应用蒙版需要先栅格化`, {
        hint: `先调用 rasterize_layer 栅格化“${layer.name}”，再 delete_layer_mask（apply: true）；或用 apply: false 直接丢弃蒙版`,
        details: { type: KIND_NAMES[layer.kind] },
      });
    }
    if (layer.kind === 'group') {
      fail('invalid_state', `“${layer.name}”是图层组，图层组的蒙版不能应用到像素`, {
        hint: '用 apply: false 丢弃蒙版；或先用 select_layers 选中该组再 merge_layers 合并成像素图层',
        details: { type: 'group' },
      });
    }
    refuseAdjustment(layer, '应用蒙版到像素');
    assertPixelsUnlocked(layer, '应用蒙版');
    const raster = applyMaskToRaster(layer.raster, mask);
    const { mask: _m, ...rest } = layer;
    const pixel: PixelLayer = { ...rest, raster };
    const next = commitActive(ctx, doc, setLayer(s, pixel), layer.id);
    const extra: Payload = mask.enabled ? {} : { mask_note: '蒙版原为停用状态，仍按要求应用到了像素' };
    return {
      applied: true,
      note: '蒙版已应用到图层像素后删除',
      ...extra,
      bounds_before: boundsReport(layer.raster),
      layer: layerSummary(next, layerById(next, layer.id)),
    };
  },
} satisfies ToolHandlers;
