/**
 * Group C adjustments on the active layer (SPEC.md §4.3): brightness/contrast, desaturate, Gaussian blur,
 * auto levels, auto contrast, invert, levels and hue/saturation, with Photoshop's meaning of every parameter
 * (engine.md §1.2–§1.6; the kernels are in src/engine/adjust).
 *
 * As in Photoshop: the active layer must hold pixels (a text, smart-object or group layer is refused with a hint
 * to rasterize first; the lazy background colour becomes canvas-sized pixels and stays the background); a layer
 * whose pixels are locked is refused; with a selection only the selected part changes, feathered edges mixing
 * old and new pixels by the mask value; an empty layer (or selection over nothing) is refused as "the selected
 * area is empty". Colour adjustments never change alpha. Each call is one history step; parameters that change
 * nothing add no step and say so.
 */
import {
  applyColorKernel,
  autoContrast,
  autoLevels,
  blendBySelection,
  blurIsIdentity,
  blurReach,
  brightnessContrastLut,
  type ColorKernel,
  desaturateKernel,
  gaussianBlur,
  hasSelectedPixels,
  histograms,
  hueSaturationKernel,
  invertLut,
  isIdentity,
  levelsLut,
  lutKernel,
  rgbLutKernel,
  selectionTouches,
  trimmed,
} from '../engine/adjust/index.js';
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import { isBackground } from '../engine/factory.js';
import type { DocState, Layer, PixelLayer, Raster, Rect } from '../engine/model.js';
import { intersectRect, isEmptyRect, rectOf, solidRaster, unionRect } from '../engine/raster.js';
import { layerById, setLayer } from '../engine/tree.js';
import { boundsReport, layerSummary } from './describe.js';
import { assertPixelsEditable } from './guards.js';
import { activeDoc, activeLayer } from './resolve.js';
import type { Payload, ToolContext, ToolHandlers } from './types.js';

/** The clip Auto Levels and Auto Contrast use at each end, in percent (Photoshop's Auto default). */
const AUTO_CLIP_PERCENT = 0.1;

interface Target {
  readonly doc: OpenDocument;
  /** The document state, with a lazy fill layer already turned into pixels. */
  readonly state: DocState;
  readonly layer: PixelLayer;
  readonly notes: string[];
}

const KIND_WORDS = { text: '文字图层', smart: '智能对象' } as const;

/** The active layer as pixels, or the error Photoshop would give. `what` is the action, in Chinese. */
function target(ctx: ToolContext, what: string): Target {
  const doc = activeDoc(ctx);
  const layer = activeLayer(doc.state);
  if (layer.kind === 'group') {
    fail('invalid_state', `“${layer.name}”是图层组，不能${what}：调整只作用于单个像素图层`, {
      hint: '用 select_layers 选中组内的像素图层，或先用 merge_layers 把组内图层合并为一个像素图层',
    });
  }
  if (layer.kind === 'text' || layer.kind === 'smart') {
    fail('invalid_state', `“${layer.name}”是${KIND_WORDS[layer.kind]}，不能直接${what}`, {
      hint: `先调用 rasterize_layer 栅格化“${layer.name}”（变为像素图层），再${what}`,
    });
  }
  assertPixelsEditable(doc.state, layer, what);
  const notes: string[] = [];
  let pixel: PixelLayer;
  let state = doc.state;
  if (layer.kind === 'fill') {
    const { kind: _kind, color, ...rest } = layer;
    pixel = {
      ...rest,
      kind: 'pixel',
      raster: solidRaster({ x: 0, y: 0, w: state.width, h: state.height }, color),
    };
    state = setLayer(state, pixel);
  } else {
    pixel = layer;
  }
  if (!layer.visible) notes.push(`图层“${layer.name}”当前是隐藏的：已调整其像素，但画面上看不到`);
  return { doc, state, layer: pixel, notes };
}

/** Photoshop's "the selected area is empty": the layer has no pixels, or none inside the selection. */
function refuseEmpty(t: Target, what: string, layerEmpty = false): never {
  if (t.state.selection && !layerEmpty) {
    fail('invalid_state', `选区内没有图层“${t.layer.name}”的像素（选中部分全透明），无法${what}`, {
      hint: '换一个覆盖图层内容的选区，或调用 deselect 取消选区后作用于整个图层',
    });
  }
  fail('invalid_state', `图层“${t.layer.name}”是空的（没有像素），无法${what}`, {
    hint: '先在图层上绘制或填充内容，或用 select_layers 选择有内容的图层',
  });
}

/** Commits the layer with its new pixels: the call's single update. */
function commitRaster(ctx: ToolContext, t: Target, raster: Raster, extra: Payload): Payload {
  const next = setLayer(t.state, { ...t.layer, raster });
  ctx.tx.update(t.doc.id, next);
  return {
    ...extra,
    limited_to_selection: t.state.selection !== null,
    ...(t.notes.length ? { notes: t.notes } : {}),
    layer: layerSummary(next, layerById(next, t.layer.id)),
  };
}

/** Parameters that change nothing: no history step (and no lazy background is materialised). */
function unchanged(t: Target, note: string, extra: Payload): Payload {
  const layer: Layer = layerById(t.doc.state, t.layer.id);
  return { changed: false, note, ...extra, layer: layerSummary(t.doc.state, layer) };
}

/** A colour adjustment of the active layer (within the selection). */
function colorAdjust(ctx: ToolContext, what: string, kernel: (t: Target) => ColorKernel, extra: Payload) {
  const t = target(ctx, what);
  const raster = t.layer.raster;
  if (!hasSelectedPixels(raster, t.state.selection)) refuseEmpty(t, what);
  return commitRaster(ctx, t, applyColorKernel(raster, kernel(t), t.state.selection), extra);
}

export const adjustmentsHandlers = {
  adjust_brightness_contrast({ brightness, contrast }, ctx) {
    const what = '调整亮度/对比度';
    const lut = brightnessContrastLut(brightness, contrast);
    const extra = {
      brightness,
      contrast,
      curve: 'Photoshop 新版（非旧版）亮度/对比度曲线的开源近似（psd-tools 逆向模型）',
    };
    if (isIdentity(lut)) {
      const t = target(ctx, what);
      if (!hasSelectedPixels(t.layer.raster, t.state.selection)) refuseEmpty(t, what);
      return unchanged(t, '这组亮度/对比度不改变任何色阶，图层未改变', extra);
    }
    return colorAdjust(ctx, what, () => lutKernel(lut), extra);
  },

  desaturate(_args, ctx) {
    return colorAdjust(ctx, '去色', () => desaturateKernel, {
      method: 'HSL 明度 (max+min)/2，与 Photoshop 去色相同',
    });
  },

  async gaussian_blur({ radius }, ctx) {
    const what = '高斯模糊';
    const t = target(ctx, what);
    const raster = t.layer.raster;
    const selection = t.state.selection;
    if (!hasSelectedPixels(raster, null)) refuseEmpty(t, what, true);
    const background = isBackground(t.layer);
    const keepAlpha = t.layer.locks.transparency && !background;
    const canvas: Rect = { x: 0, y: 0, w: t.state.width, h: t.state.height };
    const limit = unionRect(canvas, rectOf(raster));
    const reach = background || keepAlpha ? 0 : blurReach(radius);
    const area = intersectRect(
      { x: raster.x - reach, y: raster.y - reach, w: raster.w + 2 * reach, h: raster.h + 2 * reach },
      limit,
    );
    if (!selectionTouches(area, selection)) refuseEmpty(t, what);
    const extra = { radius, sigma: radius, bounds_before: boundsReport(rectOf(raster)) };
    if (blurIsIdentity(radius)) {
      return unchanged(t, `半径 ${radius} 像素的模糊太小，不改变任何像素（8 位色阶下）`, extra);
    }
    const blurred = await gaussianBlur(raster, radius, {
      edge: background ? 'copy' : 'transparent',
      limit,
      keepAlpha,
    });
    let result = blendBySelection(raster, blurred, selection);
    if (!background && !keepAlpha) result = trimmed(result);
    if (keepAlpha) t.notes.push('图层锁定了透明像素：只模糊颜色，透明度保持不变');
    if (isEmptyRect(result)) t.notes.push('模糊后所有像素都变得完全透明，图层已为空');
    return commitRaster(ctx, t, result, extra);
  },

  auto_levels(_args, ctx) {
    const what = '自动色阶';
    const t = target(ctx, what);
    const raster = t.layer.raster;
    const hist = histograms(raster, t.state.selection);
    if (hist.count === 0) refuseEmpty(t, what);
    const found = autoLevels(hist, AUTO_CLIP_PERCENT / 100);
    const extra = {
      channels: { red: found.red, green: found.green, blue: found.blue },
      clip_percent: AUTO_CLIP_PERCENT,
    };
    if (found.luts.every(isIdentity)) {
      return unchanged(t, '各通道的黑场和白场已是 0 和 255（或通道只有一个色阶），自动色阶不改变图层', extra);
    }
    return commitRaster(
      ctx,
      t,
      applyColorKernel(raster, rgbLutKernel(...found.luts), t.state.selection),
      extra,
    );
  },

  auto_contrast(_args, ctx) {
    const what = '自动对比度';
    const t = target(ctx, what);
    const raster = t.layer.raster;
    const hist = histograms(raster, t.state.selection);
    if (hist.count === 0) refuseEmpty(t, what);
    const found = autoContrast(hist, AUTO_CLIP_PERCENT / 100);
    const extra = { black: found.black, white: found.white, clip_percent: AUTO_CLIP_PERCENT };
    if (isIdentity(found.lut)) {
      return unchanged(t, '黑场和白场已是 0 和 255（或图层只有一个色阶），自动对比度不改变图层', extra);
    }
    return commitRaster(ctx, t, applyColorKernel(raster, lutKernel(found.lut), t.state.selection), extra);
  },

  invert_colors(_args, ctx) {
    return colorAdjust(ctx, '反相', () => lutKernel(invertLut()), {});
  },

  adjust_levels({ black, gamma, white }, ctx) {
    const what = '调整色阶';
    if (white <= black) {
      fail('invalid_arguments', `white（${white}）必须大于 black（${black}）`, {
        hint: '输入黑场须小于白场，例如 black: 20, white: 235',
        details: [{ parameter: 'white', message: 'white 必须大于 black' }],
      });
    }
    const lut = levelsLut(black, white, gamma);
    const extra = { black, gamma, white };
    if (isIdentity(lut)) {
      const t = target(ctx, what);
      if (!hasSelectedPixels(t.layer.raster, t.state.selection)) refuseEmpty(t, what);
      return unchanged(t, '这组色阶参数不改变任何色阶（默认值 0、1.0、255），图层未改变', extra);
    }
    return colorAdjust(ctx, what, () => lutKernel(lut), extra);
  },

  adjust_hsl({ hue, saturation, lightness }, ctx) {
    const what = '调整色相/饱和度';
    const extra = { hue, saturation, lightness };
    if (hue === 0 && saturation === 0 && lightness === 0) {
      const t = target(ctx, what);
      if (!hasSelectedPixels(t.layer.raster, t.state.selection)) refuseEmpty(t, what);
      return unchanged(t, '色相、饱和度和明度都为 0，图层未改变', extra);
    }
    return colorAdjust(ctx, what, () => hueSaturationKernel(hue, saturation, lightness), extra);
  },
} satisfies ToolHandlers;
