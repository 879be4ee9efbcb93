/**
 * The pixel selection (group E's select_all, select_rect, select_layer_pixels, deselect; group C's
 * inverse_selection, feather_selection) and fill_selection. Selection changes are history steps, as in
 * Photoshop's History panel (Rectangular Marquee, Deselect, Inverse, Feather); a call that would change nothing
 * says so and adds no step.
 */

import { documentColor } from '../engine/color-mode.js';
import { canvasRect } from '../engine/composite/index.js';
import { checkLayerExtent } from '../engine/document-limits.js';
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import { isBackground } from '../engine/factory.js';
import type { DocState, FillLayer, Layer, Mask, PixelLayer, Raster, Rect } from '../engine/model.js';
import { hexToRgb, intersectRect, isEmptyRect, rgbToHex, solidRaster, unionRect } from '../engine/raster.js';
import {
  allMask,
  alphaMask,
  clearPixels,
  combineSelections,
  featherMask,
  featherSigma,
  fillPixels,
  invertMask,
  normaliseSelection,
  rectMask,
  selectedPercent,
  selectionBounds,
  selectsAll,
} from '../engine/selection.js';
import { layerById, setActive, setLayer } from '../engine/tree.js';
import { boundsReport, layerSummary } from './describe.js';
import { assertPixelsEditable } from './guards.js';
import { renderLayers } from './merge.js';
import { activeDoc, activeLayer, layerNamed } from './resolve.js';
import type { Payload, ToolContext, ToolHandlers } from './types.js';

/** What the model is told about a document's selection. */
export function selectionReport(state: DocState) {
  const sel = state.selection;
  if (!sel) return { active: false };
  const { width, height } = state;
  return {
    active: true,
    bounds: boundsReport(selectionBounds(sel, width, height)),
    whole_canvas: selectsAll(sel, width, height),
    selected_percent: Math.round(selectedPercent(sel, width, height) * 10) / 10,
  };
}

function setSelection(
  ctx: ToolContext,
  doc: OpenDocument,
  selection: Mask | null,
  extra: Partial<DocState> = {},
) {
  const next: DocState = { ...doc.state, ...extra, selection };
  ctx.tx.update(doc.id, next);
  return next;
}

function unchanged(state: DocState, note: string): Payload {
  return { changed: false, note, selection: selectionReport(state) };
}

/** Edge coordinates rounded to whole pixels, checked and cut to the canvas. */
function marquee(state: DocState, left: number, top: number, right: number, bottom: number): Rect {
  const problems: { parameter: string; message: string }[] = [];
  if (!(right > left))
    problems.push({ parameter: 'right', message: `right（${right}）必须大于 left（${left}）` });
  if (!(bottom > top))
    problems.push({ parameter: 'bottom', message: `bottom（${bottom}）必须大于 top（${top}）` });
  if (problems.length) {
    fail('invalid_arguments', `矩形无效：${problems.map((p) => p.message).join('；')}`, {
      hint: 'left、top、right、bottom 是矩形四条边的坐标，不是宽和高',
      details: problems,
    });
  }
  const x0 = Math.round(left);
  const y0 = Math.round(top);
  const x1 = Math.round(right);
  const y1 = Math.round(bottom);
  const canvas = canvasRect(state);
  const rect: Rect = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  if (x1 <= 0 || y1 <= 0 || x0 >= state.width || y0 >= state.height) {
    fail(
      'out_of_bounds',
      `矩形（${left}, ${top}）-（${right}, ${bottom}）完全在画布之外（画布 ${state.width}×${state.height} 像素）`,
      {
        hint: `坐标范围：x 0-${state.width}，y 0-${state.height}`,
      },
    );
  }
  if (rect.w <= 0 || rect.h <= 0) {
    fail('invalid_arguments', `矩形（${left}, ${top}）-（${right}, ${bottom}）取整到像素后不足一个像素`, {
      hint: '选区的宽和高至少为 1 像素',
    });
  }
  return intersectRect(rect, canvas);
}

/** A layer's transparency as a selection (Ctrl-click on its thumbnail; a group gives its merged transparency). */
function layerPixelsMask(state: DocState, layer: Layer): Mask | null {
  const { width, height } = state;
  switch (layer.kind) {
    case 'fill':
      return allMask();
    case 'group': {
      const shown: Layer = { ...layer, visible: true, opacity: 1 };
      const { mask: _mask, ...unmasked } = shown;
      const merged = renderLayers(state, [layer.id], canvasRect(state), [unmasked as Layer]);
      return normaliseSelection(alphaMask(merged, width, height), width, height);
    }
    default:
      return normaliseSelection(alphaMask(layer.raster, width, height), width, height);
  }
}

function requireSelection(state: DocState, what: string): Mask {
  if (!state.selection) {
    fail('invalid_state', `当前文档没有选区，无法${what}`, {
      hint: '先用 select_rect、select_all 或 select_layer_pixels 建立选区',
    });
  }
  return state.selection;
}

// ---------------------------------------------------------------------------------------------------------
// fill_selection

/**
 * Refuses layers whose pixels cannot be filled or cleared (`verb`), with the tool that would make them editable.
 */
function editableLayer(state: DocState, verb: '填充' | '清除'): PixelLayer | FillLayer {
  const layer = activeLayer(state);
  if (layer.kind === 'text' || layer.kind === 'smart') {
    fail(
      'invalid_state',
      `“${layer.name}”是${layer.kind === 'text' ? '文字' : '智能对象'}图层，不能直接${verb}`,
      {
        hint: `先调用 rasterize_layer 栅格化“${layer.name}”，再${verb}`,
      },
    );
  }
  if (layer.kind === 'group') {
    fail('invalid_state', `“${layer.name}”是图层组，不能${verb}`, {
      hint:
        verb === '填充'
          ? '用 select_layers 选择组内的像素图层，或用 create_layer 新建图层后再填充'
          : '用 select_layers 选择组内的像素图层后再清除',
    });
  }
  assertPixelsEditable(state, layer, verb);
  return layer;
}

function filledLayer(
  state: DocState,
  layer: PixelLayer | FillLayer,
  color: { r: number; g: number; b: number },
  opacity: number,
  region: Rect,
): Layer {
  const sel = state.selection;
  const whole = !sel || selectsAll(sel, state.width, state.height);
  if (layer.kind === 'fill') {
    // The lazy background stays a colour when the fill covers the canvas opaquely.
    if (whole && opacity === 1) return { ...layer, color };
    const { kind: _kind, color: old, ...base } = layer;
    const raster = fillPixels(solidRaster(canvasRect(state), old), region, color, opacity, sel, false);
    return { ...base, kind: 'pixel', raster };
  }
  if (!layer.locks.transparency && !isEmptyRect(region)) {
    checkLayerExtent(
      unionRect(layer.raster, region),
      `填充后的图层“${layer.name}”`,
      `图层“${layer.name}”的像素远离要填充的区域：先用 get_layer_bounds 查看它的位置，用 move_layer 把它移回画布附近，或用 create_layer 新建图层来填充`,
    );
  }
  const raster: Raster = fillPixels(layer.raster, region, color, opacity, sel, layer.locks.transparency);
  return { ...layer, raster };
}

// ---------------------------------------------------------------------------------------------------------

export const selectionHandlers = {
  select_all(_args, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    if (s.selection && selectsAll(s.selection, s.width, s.height)) {
      return unchanged(s, '整个画布已经是选区');
    }
    const next = setSelection(ctx, doc, allMask());
    return { changed: true, selection: selectionReport(next) };
  },

  select_rect({ left, top, right, bottom, mode }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const rect = marquee(s, left, top, right, bottom);
    const drawn = normaliseSelection(rectMask(rect, s.width, s.height), s.width, s.height);
    const combined =
      mode === 'replace' || !drawn
        ? drawn
        : s.selection
          ? combineSelections(s.selection, drawn, mode, s.width, s.height)
          : mode === 'add'
            ? drawn
            : null;
    if (combined === null && s.selection === null) {
      return unchanged(s, `没有原有选区，${mode === 'subtract' ? '减去' : '交叉'}后仍没有选区`);
    }
    const next = setSelection(ctx, doc, combined);
    const clipped =
      rect.x !== Math.round(left) ||
      rect.y !== Math.round(top) ||
      rect.x + rect.w !== Math.round(right) ||
      rect.y + rect.h !== Math.round(bottom);
    if (clipped) ctx.warn(`矩形超出画布（${s.width}×${s.height} 像素）的部分已裁掉`);
    return { changed: true, ...(mode !== 'replace' ? { mode } : {}), selection: selectionReport(next) };
  },

  select_layer_pixels({ name }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const layer = layerNamed(ctx, s, name);
    const mask = layerPixelsMask(s, layer);
    if (!mask) {
      fail('invalid_state', `图层“${layer.name}”在画布内没有不透明像素，无法建立选区`, {
        hint: '用 get_layer_bounds 查看图层位置，或选择其他图层',
      });
    }
    const next = setSelection(ctx, doc, mask, setActive(s, layer.id));
    return {
      changed: true,
      layer: layerSummary(next, layerById(next, layer.id)),
      selection: selectionReport(next),
    };
  },

  deselect(_args, ctx) {
    const doc = activeDoc(ctx);
    if (!doc.state.selection) return unchanged(doc.state, '当前没有选区');
    const next = setSelection(ctx, doc, null);
    return { changed: true, selection: selectionReport(next) };
  },

  inverse_selection(_args, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    if (!s.selection) {
      const next = setSelection(ctx, doc, allMask());
      return { changed: true, note: '原来没有选区，已选中整个画布', selection: selectionReport(next) };
    }
    const inverted = normaliseSelection(invertMask(s.selection), s.width, s.height);
    const next = setSelection(ctx, doc, inverted);
    return {
      changed: true,
      ...(inverted ? {} : { note: '原选区为整个画布，反选后没有选区' }),
      selection: selectionReport(next),
    };
  },

  async feather_selection({ radius }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const sel = requireSelection(s, '羽化');
    const feathered = normaliseSelection(
      await featherMask(sel, radius, s.width, s.height),
      s.width,
      s.height,
    );
    // A radius far wider than the selection spreads it below 1/255 everywhere: nothing would stay selected.
    if (!feathered) {
      fail(
        'invalid_arguments',
        `羽化半径 ${radius} 像素对当前选区太大：羽化后没有任何像素仍被选中，选区保持不变`,
        {
          hint: '请用更小的羽化半径，或先扩大选区',
          details: [{ parameter: 'radius', value: radius }],
        },
      );
    }
    const next = setSelection(ctx, doc, feathered);
    return {
      changed: true,
      radius,
      sigma: featherSigma(radius),
      selection: selectionReport(next),
    };
  },

  async fill_selection({ color, opacity }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const layer = editableLayer(s, '填充');
    const asked = hexToRgb(color);
    const rgb = await documentColor(s, asked);
    const region = s.selection ? selectionBounds(s.selection, s.width, s.height) : canvasRect(s);
    if (isEmptyRect(region)) fail('internal', '选区为空');
    const filled = filledLayer(s, layer, rgb, opacity / 100, region);
    const next = setLayer(s, filled);
    ctx.tx.update(doc.id, next);
    const applied = rgbToHex(rgb);
    return {
      color: applied,
      ...(applied !== color
        ? { requested_color: color, note: `CMYK 模式：颜色已按 CMYK 色域转换为 ${applied}` }
        : {}),
      opacity,
      area: s.selection ? 'selection' : 'whole_layer',
      filled_bounds: boundsReport(region),
      ...(layer.kind === 'pixel' && layer.locks.transparency ? { transparency_locked: true } : {}),
      layer: layerSummary(next, layerById(next, layer.id)),
      selection: selectionReport(next),
    };
  },

  clear_selection(_args, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const selection = requireSelection(s, '清除选区内容');
    const layer = editableLayer(s, '清除');
    if (isBackground(layer) || (layer.kind === 'pixel' && layer.locks.transparency)) {
      // Photoshop fills these with the background colour instead; Atelier has none, so the caller picks one.
      const what = isBackground(layer) ? '背景图层' : `“${layer.name}”锁定了透明像素，`;
      fail('invalid_state', `${what}没有可清除的透明度，不能清除选区内容`, {
        hint: '用 fill_selection 给选区填充颜色，或用 select_layers 选择其他像素图层后再清除',
      });
    }
    if (layer.kind === 'fill') {
      // A fill layer (from a PSD) is its colour everywhere: there are no pixels to take away until it is pixels.
      fail('invalid_state', `“${layer.name}”是填充图层，没有可清除的像素`, {
        hint: `先调用 rasterize_layer 栅格化“${layer.name}”，再清除`,
      });
    }
    const region = selectionBounds(selection, s.width, s.height);
    const { raster, cleared } = clearPixels(layer.raster, selection, region);
    if (cleared === 0) {
      return {
        changed: false,
        note: `选区内没有“${layer.name}”的像素，没有可清除的内容`,
        layer: layerSummary(s, layer),
        selection: selectionReport(s),
      };
    }
    const next = setLayer(s, { ...layer, raster });
    ctx.tx.update(doc.id, next);
    return {
      cleared_pixels: cleared,
      cleared_bounds: boundsReport(intersectRect(layer.raster, region)),
      ...(isEmptyRect(raster) ? { note: `“${layer.name}”的像素已全部清除，图层现在是空的` } : {}),
      layer: layerSummary(next, layerById(next, layer.id)),
      selection: selectionReport(next),
    };
  },
} satisfies ToolHandlers;
