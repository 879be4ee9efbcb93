/**
 * The pixel selection (group E's select_all, select_rect, select_ellipse, select_polygon, select_color_region,
 * select_layer_pixels, deselect; group C's inverse_selection, feather_selection), fill_selection, and the painting
 * extensions fill_gradient and paint_stroke (Photoshop's Gradient and Brush tools). Selection
 * changes are history steps, as in Photoshop's History panel (Rectangular Marquee, Deselect, Inverse, Feather);
 * a call that would change nothing says so and adds no step.
 */

import { strokeBounds, strokeRows } from '../engine/brush.js';
import { newChannelIdentifier, nextAlphaName, savedSelection } from '../engine/channels.js';
import { canvasRect } from '../engine/composite/index.js';
import { checkLayerExtent } from '../engine/document-limits.js';
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import { isBackground } from '../engine/factory.js';
import { gradientRows } from '../engine/gradient.js';
import { magicWand, pixelAt } from '../engine/magic-wand.js';
import type {
  DocChannel,
  DocState,
  FillLayer,
  GroupLayer,
  Layer,
  Mask,
  PixelLayer,
  Raster,
  Rect,
} from '../engine/model.js';
import { intersectRect, isEmptyRect, rgbToHex, solidRaster, unionRect } from '../engine/raster.js';
import {
  allMask,
  alphaMask,
  clearPixels,
  combineSelections,
  featherMask,
  featherSigma,
  invertMask,
  normaliseSelection,
  type Paint,
  type PaintRows,
  paintMask,
  paintPixels,
  rectMask,
  type SelectionMode,
  selectedPercent,
  selectionBounds,
  selectsAll,
} from '../engine/selection.js';
import { modifySelection } from '../engine/selection-modify.js';
import {
  collinear,
  distinctPoints,
  type Edges,
  ellipseMask,
  type Point,
  polygonEdges,
  polygonMask,
} from '../engine/selection-shapes.js';
import { isShown, layerById, setActive, setLayer } from '../engine/tree.js';
import type { PAINT_TARGETS } from '../registry/tools/paint-params.js';
import { boundsReport, layerSummary } from './describe.js';
import { assertFree, assertPixelsEditable, refuseAdjustment } from './guards.js';
import { heldColor } from './held-color.js';
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

/**
 * `drawn` (null: nothing) combined with the selection there is by `mode` and set as the document's, as
 * Photoshop's selection tools do with Shift and Alt; without a selection, add starts one and subtract or
 * intersect leave none, which changes nothing and adds no step. `report` joins the result.
 */
function applySelection(
  ctx: ToolContext,
  doc: OpenDocument,
  drawn: Mask | null,
  mode: SelectionMode,
  report: Record<string, unknown> = {},
): Payload {
  const s = doc.state;
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
  if (combined === null && s.selection !== null) {
    // Photoshop warns "No pixels are selected" and drops the selection: said loudly, since a fill or an adjustment
    // after it then reaches the whole layer.
    ctx.warn(
      `${mode === 'subtract' ? '减去' : mode === 'intersect' ? '交叉' : '新建'}后没有任何像素被选中，选区已取消：之后的填充、清除和调整将作用于整个图层`,
    );
  }
  const next = setSelection(ctx, doc, combined);
  return {
    changed: true,
    ...(mode !== 'replace' ? { mode } : {}),
    ...report,
    selection: selectionReport(next),
  };
}

/** Refuses edges that make no box (right ≤ left, bottom ≤ top), naming them; `shape` is 矩形 or 椭圆. */
function checkEdges(shape: string, { left, top, right, bottom }: Edges): void {
  const problems: { parameter: string; message: string }[] = [];
  if (!(right > left))
    problems.push({ parameter: 'right', message: `right（${right}）必须大于 left（${left}）` });
  if (!(bottom > top))
    problems.push({ parameter: 'bottom', message: `bottom（${bottom}）必须大于 top（${top}）` });
  if (problems.length) {
    fail('invalid_arguments', `${shape}无效：${problems.map((p) => p.message).join('；')}`, {
      hint: `left、top、right、bottom 是${shape === '矩形' ? '矩形' : `${shape}外接矩形`}四条边的坐标，不是宽和高`,
      details: problems,
    });
  }
}

/** Refuses a shape whose extent `e` lies wholly outside the canvas; `what` describes it for the message. */
function checkMeetsCanvas(state: DocState, what: string, e: Edges): void {
  if (e.right > 0 && e.bottom > 0 && e.left < state.width && e.top < state.height) return;
  fail('out_of_bounds', `${what}完全在画布之外（画布 ${state.width}×${state.height} 像素）`, {
    hint: `坐标范围：x 0-${state.width}，y 0-${state.height}`,
  });
}

/** Whether a shape's extent reaches beyond the canvas (its parts there are cut). */
function beyondCanvas(state: DocState, e: Edges): boolean {
  return e.left < 0 || e.top < 0 || e.right > state.width || e.bottom > state.height;
}

/**
 * A drawn shape's selection cut to the canvas. An anti-aliased shape whose box meets the canvas may still cover
 * no pixel of it: too thin (or, for a polygon, enclosed an even number of times) when it lies on the canvas,
 * otherwise only its box reaches the canvas.
 */
function drawnSelection(state: DocState, mask: Mask, what: string, e: Edges): Mask {
  const selection = normaliseSelection(mask, state.width, state.height);
  if (selection) return selection;
  if (!beyondCanvas(state, e)) {
    fail('invalid_arguments', `${what}太小或太窄：消除锯齿后没有任何像素被选中`, {
      hint: '选区的宽和高至少约 1 像素',
    });
  }
  fail('out_of_bounds', `${what}没有覆盖画布（${state.width}×${state.height} 像素）内的任何像素`, {
    hint: `坐标范围：x 0-${state.width}，y 0-${state.height}`,
  });
}

/** Warns that the parts of a shape (`shape`: 矩形, 椭圆, 多边形) beyond the canvas were cut. */
function warnCut(ctx: ToolContext, state: DocState, shape: string, e: Edges): void {
  if (beyondCanvas(state, e)) ctx.warn(`${shape}超出画布（${state.width}×${state.height} 像素）的部分已裁掉`);
}

/** Edge coordinates rounded to whole pixels, checked and cut to the canvas (with a warning when cut). */
function marquee(ctx: ToolContext, state: DocState, edges: Edges): Rect {
  const { left, top, right, bottom } = edges;
  checkEdges('矩形', edges);
  const whole = {
    left: Math.round(left),
    top: Math.round(top),
    right: Math.round(right),
    bottom: Math.round(bottom),
  };
  checkMeetsCanvas(state, `矩形（${left}, ${top}）-（${right}, ${bottom}）`, whole);
  const rect: Rect = {
    x: whole.left,
    y: whole.top,
    w: whole.right - whole.left,
    h: whole.bottom - whole.top,
  };
  if (rect.w <= 0 || rect.h <= 0) {
    fail('invalid_arguments', `矩形（${left}, ${top}）-（${right}, ${bottom}）取整到像素后不足一个像素`, {
      hint: '选区的宽和高至少为 1 像素',
    });
  }
  if ([left, top, right, bottom].some((v) => !Number.isInteger(v))) {
    ctx.warn(
      `选区坐标已取整到整像素：（${left}, ${top}）-（${right}, ${bottom}）→（${whole.left}, ${whole.top}）-（${whole.right}, ${whole.bottom}）`,
    );
  }
  warnCut(ctx, state, '矩形', whole);
  return intersectRect(rect, canvasRect(state));
}

/** The corners of a polygonal lasso checked (their reach is the registry's limit): at least three not on one line. */
function checkPolygon(points: readonly Point[]): void {
  if (points.length < 3) {
    fail('invalid_arguments', `多边形至少需要 3 个顶点，收到 ${points.length} 个`, {
      hint: 'points 依次列出多边形的各个顶点 {x, y}，最后一点会自动连回第一点',
      details: [{ parameter: 'points', count: points.length }],
    });
  }
  const distinct = distinctPoints(points);
  if (distinct < 3 || collinear(points)) {
    fail(
      'invalid_arguments',
      distinct < 3
        ? `多边形只有 ${distinct} 个不同的顶点，围不出面积`
        : '多边形的所有顶点在同一条直线上，围不出面积',
      {
        hint: '至少给出 3 个不在同一条直线上的顶点',
        details: [{ parameter: 'points', distinct }],
      },
    );
  }
}

/**
 * A group's contents merged over the canvas as if it were shown at full opacity without its mask: the pixels
 * Ctrl-click on its thumbnail and the magic wand read.
 */
function groupPixels(state: DocState, layer: GroupLayer): Raster {
  const shown: Layer = { ...layer, visible: true, opacity: 1 };
  const { mask: _mask, ...unmasked } = shown;
  return renderLayers(state, [layer.id], canvasRect(state), [unmasked as Layer]);
}

/** A layer's transparency as a selection (Ctrl-click on its thumbnail; a group gives its merged transparency). */
function layerPixelsMask(state: DocState, layer: Layer): Mask | null {
  const { width, height } = state;
  if (layer.kind === 'fill') return allMask();
  if (layer.kind === 'adjustment') return null; // no pixels: as an empty layer
  const pixels = layer.kind === 'group' ? groupPixels(state, layer) : layer.raster;
  return normaliseSelection(alphaMask(pixels, width, height), width, height);
}

/** The pixel of the magic wand's sample at canvas pixel (x, y), as the result reports it. */
function sampleReport(src: Raster, x: number, y: number) {
  const [r, g, b, a] = pixelAt(src, x, y);
  // Fully transparent pixels are all alike whatever colour they store.
  return { sampled_color: a === 0 ? '#000000' : rgbToHex({ r, g, b }), sampled_alpha: a };
}

function requireSelection(state: DocState, what: string): Mask {
  if (!state.selection) {
    fail('invalid_state', `当前文档没有选区，无法${what}`, {
      hint: '先用 select_rect、select_ellipse、select_polygon、select_color_region、select_all 或 select_layer_pixels 建立选区',
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

type PaintTarget = (typeof PAINT_TARGETS)[number];

/** The layer a gradient or a brush stroke goes on: the active layer's pixels, or its mask (`target` mask). */
function paintTarget(state: DocState, target: PaintTarget): Layer {
  return target === 'mask' ? maskedLayer(state) : editableLayer(state, '填充');
}

/** `state` with `rows` (over `region`) laid on `layer`'s pixels or its mask, as paintTarget chose it. */
function painted(state: DocState, layer: Layer, target: PaintTarget, region: Rect, rows: PaintRows) {
  return setLayer(
    state,
    layer.mask && target === 'mask'
      ? { ...layer, mask: paintMask(layer.mask, region, rows, state.selection) }
      : filledLayer(state, layer as PixelLayer | FillLayer, { rows }, region),
  );
}

/** The active layer, whose layer mask is to be painted: it must have one and not be locked. */
function maskedLayer(state: DocState): Layer {
  const layer = activeLayer(state);
  if (!layer.mask) {
    fail('invalid_state', `图层“${layer.name}”没有图层蒙版，不能在蒙版上画`, {
      hint: `先调用 add_layer_mask 给“${layer.name}”添加蒙版（全白：全部显示），再在蒙版上画；或省略 target，画在图层像素上`,
    });
  }
  assertFree(state, layer, '修改图层蒙版');
  return layer;
}

/**
 * Photoshop refuses to paint on a hidden layer; a model hides a layer with a call that also makes it current, so
 * the fill or clear that follows lands on what nobody sees: said, as the adjustments say it.
 */
function warnHidden(ctx: ToolContext, state: DocState, layer: Layer, verb: '填充' | '清除'): void {
  if (isShown(state, layer.id)) return;
  ctx.warn(
    `图层“${layer.name}”当前${layer.visible ? '在隐藏的图层组里' : '是隐藏的'}：已${verb}其像素，但画面上看不到（set_layer_visible 显示它，或 select_layers 选择别的图层）`,
  );
}

function filledLayer(state: DocState, layer: PixelLayer | FillLayer, paint: Paint, region: Rect): Layer {
  const sel = state.selection;
  const whole = !sel || selectsAll(sel, state.width, state.height);
  if (layer.kind === 'fill') {
    // The lazy background stays a colour when a colour covers the canvas opaquely.
    if (whole && 'color' in paint && paint.opacity === 1) return { ...layer, color: paint.color };
    const { kind: _kind, color: old, ...base } = layer;
    const raster = paintPixels(solidRaster(canvasRect(state), old), region, paint, sel, false);
    return { ...base, kind: 'pixel', raster };
  }
  if (!layer.locks.transparency && !isEmptyRect(region)) {
    checkLayerExtent(
      unionRect(layer.raster, region),
      `填充后的图层“${layer.name}”`,
      `图层“${layer.name}”的像素远离要填充的区域：先用 get_layer_bounds 查看它的位置，用 move_layer 把它移回画布附近，或用 create_layer 新建图层来填充`,
    );
  }
  const raster: Raster = paintPixels(layer.raster, region, paint, sel, layer.locks.transparency);
  return { ...layer, raster };
}

/** Nothing to lay down (`note` says why): the layer and the selection as they are, and no history step. */
function unpainted(s: DocState, layer: Layer, note: string): Payload {
  return { changed: false, note, layer: layerSummary(s, layer), selection: selectionReport(s) };
}

/** Where a fill or a gradient lands (and what a brush stroke is cut to): the selection's bounds, else the canvas. */
function paintRegion(s: DocState): Rect {
  const region = s.selection ? selectionBounds(s.selection, s.width, s.height) : canvasRect(s);
  if (isEmptyRect(region)) fail('internal', '选区为空');
  return region;
}

/**
 * `layer` of `s` painted in `region` as `next` has it (its pixels, or its mask with `pixels` false): where, and
 * the layer and selection now.
 */
function paintedReport(s: DocState, next: DocState, layer: Layer, region: Rect, pixels = true): Payload {
  return {
    area: s.selection ? 'selection' : 'whole_layer',
    filled_bounds: boundsReport(region),
    ...(pixels && layer.kind === 'pixel' && layer.locks.transparency ? { transparency_locked: true } : {}),
    layer: layerSummary(next, layerById(next, layer.id)),
    selection: selectionReport(next),
  };
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
    const rect = marquee(ctx, s, { left, top, right, bottom });
    const drawn = normaliseSelection(rectMask(rect, s.width, s.height), s.width, s.height);
    return applySelection(ctx, doc, drawn, mode);
  },

  async select_ellipse({ left, top, right, bottom, mode }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const edges = { left, top, right, bottom };
    checkEdges('椭圆', edges);
    const what = `椭圆（${left}, ${top}）-（${right}, ${bottom}）`;
    checkMeetsCanvas(s, what, edges);
    const drawn = drawnSelection(s, await ellipseMask(edges, s.width, s.height), what, edges);
    warnCut(ctx, s, '椭圆', edges);
    return applySelection(ctx, doc, drawn, mode);
  },

  async select_polygon({ points, mode }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    checkPolygon(points);
    const edges = polygonEdges(points);
    const what = `多边形（顶点范围（${edges.left}, ${edges.top}）-（${edges.right}, ${edges.bottom}））`;
    checkMeetsCanvas(s, what, edges);
    const drawn = drawnSelection(s, await polygonMask(points, s.width, s.height), what, edges);
    warnCut(ctx, s, '多边形', edges);
    return applySelection(ctx, doc, drawn, mode, { points: points.length });
  },

  select_color_region({ x, y, tolerance, contiguous, sample_all_layers, mode }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const px = Math.floor(x);
    const py = Math.floor(y);
    if (!(px >= 0 && py >= 0 && px < s.width && py < s.height)) {
      const xInside = px >= 0 && px < s.width;
      fail('out_of_bounds', `取色点（${x}, ${y}）在画布之外（画布 ${s.width}×${s.height} 像素）`, {
        hint: `x 取 0 到 ${s.width - 1}，y 取 0 到 ${s.height - 1}`,
        details: [{ parameter: xInside ? 'y' : 'x', value: xInside ? y : x }],
      });
    }
    const options = { tolerance, contiguous, sample_all_layers };
    if (sample_all_layers) {
      const composite = ctx.tx.peekComposite(doc.id);
      const drawn = magicWand(composite, s.width, s.height, px, py, options);
      return applySelection(ctx, doc, drawn, mode, { ...sampleReport(composite, px, py), ...options });
    }
    const layer = activeLayer(s);
    const sampled = { sampled_layer: layer.name, ...options };
    if (layer.kind === 'fill') {
      // A fill layer is its colour over the whole canvas: every pixel matches the sample.
      const color = { sampled_color: rgbToHex(layer.color), sampled_alpha: 255 };
      return applySelection(ctx, doc, allMask(), mode, { ...color, ...sampled });
    }
    refuseAdjustment(layer, '取样');
    const pixels = layer.kind === 'group' ? groupPixels(s, layer) : layer.raster;
    const drawn = magicWand(pixels, s.width, s.height, px, py, options);
    return applySelection(ctx, doc, drawn, mode, { ...sampleReport(pixels, px, py), ...sampled });
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

  load_channel_selection({ channel, invert, mode }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const channels = s.channels ?? [];
    const found = channels.find((c) => c.name === channel);
    if (!found) {
      const alpha = channels.filter((c) => c.kind === 'alpha').map((c) => `“${c.name}”`);
      fail('not_found', `文档“${doc.name}”中没有名为“${channel}”的通道`, {
        hint: alpha.length
          ? `文档的 Alpha 通道：${alpha.join('、')}`
          : '这个文档没有 Alpha 通道：只有从存有选区（Alpha 通道）的 PSD 打开的文档才有',
      });
    }
    if (found.kind === 'spot') {
      fail('invalid_arguments', `“${found.name}”是专色通道（印刷用的油墨），不能载入为选区`, {
        hint: '载入 Alpha 通道；get_document_info 列出文档的通道及其类型',
      });
    }
    const data = invert ? found.data.map((v) => 255 - v) : found.data.slice();
    const drawn = normaliseSelection(
      { x: 0, y: 0, w: s.width, h: s.height, data, outside: 0 },
      s.width,
      s.height,
    );
    return applySelection(ctx, doc, drawn, mode, { channel: found.name });
  },

  save_selection_as_channel({ channel, mode }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const selection = requireSelection(s, '存储选区');
    const channels = s.channels ?? [];
    const into = channel === undefined ? null : (channels.find((c) => c.name === channel) ?? null);
    if (into?.kind === 'spot') {
      fail('invalid_arguments', `“${into.name}”是专色通道（印刷用的油墨），不能存入选区`, {
        hint: '换一个通道名称，或省略 channel 新建 Alpha 通道；get_document_info 列出文档的通道及其类型',
      });
    }
    if (!into && mode !== 'replace')
      ctx.warn(`通道“${channel ?? nextAlphaName(channels)}”是新建的，mode 不起作用`);
    const data = savedSelection(selection, s.width, s.height, into, mode);
    const saved: DocChannel = into
      ? { ...into, data }
      : {
          name: channel ?? nextAlphaName(channels),
          kind: 'alpha',
          data,
          identifier: newChannelIdentifier(channels),
        };
    const next = into ? channels.map((c) => (c === into ? saved : c)) : [...channels, saved];
    ctx.tx.update(doc.id, { ...s, channels: next });
    return {
      changed: true,
      channel: saved.name,
      created: !into,
      ...(into ? { mode } : {}),
      channels: next.map((c) => ({ name: c.name, kind: c.kind })),
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

  modify_selection({ operation, amount }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const verb = operation === 'expand' ? '扩展' : '收缩';
    const sel = requireSelection(s, `${verb}选区`);
    const changed = normaliseSelection(
      modifySelection(sel, operation, amount, s.width, s.height),
      s.width,
      s.height,
    );
    if (!changed) {
      fail('invalid_arguments', `收缩 ${amount} 像素后没有任何像素仍被选中，选区保持不变`, {
        hint: '请用更小的 amount，或先扩大选区',
        details: [{ parameter: 'amount', value: amount }],
      });
    }
    if (selectsAll(sel, s.width, s.height) && selectsAll(changed, s.width, s.height)) {
      // As Photoshop's Expand and Contract by default: the canvas edge is not an edge of the selection.
      return unchanged(
        s,
        `选区是整个画布：画布边缘不算选区边缘，${verb}后选区不变（要留出边距，请用 select_rect 画出内缩的矩形）`,
      );
    }
    const next = setSelection(ctx, doc, changed);
    return { changed: true, operation, amount, selection: selectionReport(next) };
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
    if (opacity === 0) return unpainted(s, layer, '不透明度为 0：填充不改变任何像素，没有记入历史');
    warnHidden(ctx, s, layer, '填充');
    const held = await heldColor(s, color);
    const region = paintRegion(s);
    const next = setLayer(s, filledLayer(s, layer, { color: held.color, opacity: opacity / 100 }, region));
    ctx.tx.update(doc.id, next);
    return {
      color: held.hex,
      ...(held.hex !== color ? { requested_color: color } : {}),
      ...(held.inks ? { inks: held.inks } : {}),
      ...(held.note ? { note: held.note } : {}),
      opacity,
      ...paintedReport(s, next, layer, region),
    };
  },

  async fill_gradient(
    {
      start_x,
      start_y,
      end_x,
      end_y,
      start_color,
      end_color,
      type = 'linear',
      start_opacity = 100,
      end_opacity = 100,
      stops = [],
      dither = true,
      target = 'layer',
    },
    ctx,
  ) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    if (start_x === end_x && start_y === end_y) {
      fail('invalid_arguments', '渐变的起点和终点相同，没有方向和长度', {
        hint: '给出不同的起点（start_x, start_y）和终点（end_x, end_y），如从画布顶部到底部',
        details: [{ parameter: 'end_x', value: end_x }],
      });
    }
    const layer = paintTarget(s, target);
    // Sorted by location; the sort is stable, so stops at one location stay in the order given (a hard edge).
    const between = [...stops].sort((p, q) => p.location - q.location);
    const opacities = [
      { at: 0, opacity: start_opacity / 100 },
      ...between.flatMap((p) =>
        p.opacity === undefined ? [] : [{ at: p.location / 100, opacity: p.opacity / 100 }],
      ),
      { at: 1, opacity: end_opacity / 100 },
    ];
    if (opacities.every((o) => o.opacity === 0)) {
      return unpainted(s, layer, '所有不透明度都为 0：渐变不改变任何像素，没有记入历史');
    }
    warnHidden(ctx, s, layer, '填充');
    const [from, to] = [await heldColor(s, start_color), await heldColor(s, end_color)];
    const held: Awaited<ReturnType<typeof heldColor>>[] = [];
    for (const p of between) held.push(await heldColor(s, p.color));
    const region = paintRegion(s);
    const rows = gradientRows(
      {
        type,
        from: { x: start_x, y: start_y },
        to: { x: end_x, y: end_y },
        colors: [
          { at: 0, color: from.color },
          ...between.map((p, k) => ({ at: p.location / 100, color: held[k]!.color })),
          { at: 1, color: to.color },
        ],
        opacities,
        dither,
      },
      region,
    );
    const next = painted(s, layer, target, region, rows);
    ctx.tx.update(doc.id, next);
    const notes = [from.note, ...held.map((h) => h.note), to.note].filter((n) => n);
    return {
      type,
      start_color: from.hex,
      end_color: to.hex,
      ...(between.length > 0
        ? {
            stops: between.map((p, k) => ({
              location: p.location,
              color: held[k]!.hex,
              ...(held[k]!.inks ? { inks: held[k]!.inks } : {}),
              ...(p.opacity === undefined ? {} : { opacity: p.opacity }),
            })),
          }
        : {}),
      ...(from.inks || to.inks ? { inks: { start: from.inks, end: to.inks } } : {}),
      ...(notes.length > 0 ? { note: notes.join('；') } : {}),
      dither,
      target,
      ...paintedReport(s, next, layer, region, target === 'layer'),
    };
  },

  async paint_stroke(
    {
      points,
      size,
      color,
      hardness = 100,
      opacity = 100,
      flow = 100,
      pressure_sets = 'size',
      target = 'layer',
    },
    ctx,
  ) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    if (points.length === 0) {
      fail('invalid_arguments', 'points 为空：画笔至少要经过一个点', {
        hint: '给出笔画经过的点，如 [{"x": 100, "y": 100}, {"x": 300, "y": 120}]；只有一个点时点一下',
        details: [{ parameter: 'points', value: [] }],
      });
    }
    const layer = paintTarget(s, target);
    if (opacity === 0) return unpainted(s, layer, '不透明度为 0：画笔不改变任何像素，没有记入历史');
    const pressures = points.flatMap((p) => (p.pressure === undefined ? [] : [p.pressure]));
    if (pressures.length === points.length && pressures.every((p) => p === 0)) {
      return unpainted(s, layer, '每个点的笔压都为 0：笔刷直径为 0，没有画上任何像素，没有记入历史');
    }
    const stroke = {
      points,
      size,
      hardness: hardness / 100,
      pressureSets: pressure_sets,
      ...(flow < 100 ? { flow: flow / 100 } : {}),
    };
    const within = s.selection ? paintRegion(s) : canvasRect(s);
    const region = strokeBounds(stroke, within);
    if (isEmptyRect(region)) {
      return unpainted(
        s,
        layer,
        s.selection ? '笔画不经过选区，没有画上任何像素' : '笔画完全在画布之外，没有画上任何像素',
      );
    }
    warnHidden(ctx, s, layer, '填充');
    const held = await heldColor(s, color);
    const coverage = strokeRows(stroke, region);
    const along = new Float32Array(region.w);
    const { r, g, b } = held.color;
    const rows: PaintRows = (y, into) => {
      coverage(y, along);
      for (let x = 0, k = 0; x < region.w; x++, k += 4) {
        into[k] = r;
        into[k + 1] = g;
        into[k + 2] = b;
        into[k + 3] = along[x]! * (opacity / 100);
      }
    };
    const next = painted(s, layer, target, region, rows);
    ctx.tx.update(doc.id, next);
    return {
      color: held.hex,
      ...(held.inks ? { inks: held.inks } : {}),
      ...(held.note ? { note: held.note } : {}),
      size,
      hardness,
      opacity,
      ...(flow < 100 ? { flow } : {}),
      // The diameters the pen's pressure gave, narrowest and widest (points without a pressure count as 1).
      ...(pressures.length > 0
        ? {
            pressure: {
              min: Math.min(...points.map((p) => p.pressure ?? 1)),
              max: Math.max(...points.map((p) => p.pressure ?? 1)),
              sets: pressure_sets,
            },
          }
        : {}),
      target,
      ...paintedReport(s, next, layer, region, target === 'layer'),
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
    if (cleared > 0) warnHidden(ctx, s, layer, '清除');
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
