/** Group D: document operations, and redo (group E). Files (save, open, place, capture) are in files.ts. */
import { contentBounds } from '../engine/bounds.js';
import { type Anchor, anchorFrame, reframeCanvas, resizeImage, trimBox } from '../engine/canvas-ops.js';
import { copyLayerInto } from '../engine/copy.js';
import { checkCanvasSize, MAX_DOCUMENT_SIDE } from '../engine/document-limits.js';
import { fail } from '../engine/errors.js';
import { isBackground, newDocument } from '../engine/factory.js';
import { channelResourcesOf } from '../engine/io/psd-carry.js';
import { withoutChannel } from '../engine/io/psd-channels.js';
import { requireRoom } from '../engine/memory-budget.js';
import type { DocState, Rect } from '../engine/model.js';
import { isEmptyRect } from '../engine/raster.js';
import { translateLayer } from '../engine/translate.js';
import { layerById, setActive, slotAbove } from '../engine/tree.js';
import { documentSummary, layerSummary } from './describe.js';
import { psdPathOf, savePsd } from './files.js';
import { assertRecordable } from './guards.js';
import { activeDoc, layerNamed } from './resolve.js';
import type { ToolContext, ToolHandlers } from './types.js';

function firstFreeName(ctx: ToolContext): string {
  const taken = new Set(ctx.tx.documents().map((d) => d.name));
  for (let n = 1; ; n++) {
    const name = `未标题-${n}`;
    if (!taken.has(name)) return name;
  }
}

function sizeReport(state: DocState) {
  return { width: state.width, height: state.height };
}

/** Undo / redo: moves the active document's history, reporting the label of every step passed over. */
function walkHistory(ctx: ToolContext, steps: number, direction: -1 | 1) {
  const doc = activeDoc(ctx);
  const before = ctx.tx.historyOf(doc.id);
  const moved = ctx.tx.moveHistory(doc.id, direction * steps);
  const labels: string[] = [];
  for (let i = 0; i < moved; i++) {
    // Undoing walks back over the current step first; redoing re-applies the next one first.
    labels.push(before.labels[direction < 0 ? before.index - i : before.index + 1 + i]!);
  }
  const after = ctx.tx.historyOf(doc.id);
  const undo = direction < 0;
  const key = undo ? 'undone' : 'redone';
  const result = {
    [key]: moved,
    requested: steps,
    steps: labels,
    can_undo: after.index,
    can_redo: after.states.length - 1 - after.index,
    document: documentSummary(ctx.tx.activeDocument()),
  };
  if (moved === 0) {
    return {
      ...result,
      message: undo ? '没有可撤销的操作（已在最早的历史记录）' : '没有可重做的操作（已在最新的历史记录）',
    };
  }
  if (moved < steps) {
    return {
      ...result,
      message: undo
        ? `只有 ${moved} 步可撤销，已全部撤销（请求 ${steps} 步）`
        : `只有 ${moved} 步可重做，已全部重做（请求 ${steps} 步）`,
    };
  }
  return result;
}

/** The frame a crop keeps, clipped to nothing: edges rounded to whole pixels and checked. */
function cropFrame(state: DocState, left: number, top: number, right: number, bottom: number): Rect {
  const bad: { parameter: string; value: number }[] = [];
  if (!(right > left)) bad.push({ parameter: 'right', value: right });
  if (!(bottom > top)) bad.push({ parameter: 'bottom', value: bottom });
  if (bad.length) {
    fail(
      'invalid_arguments',
      [
        ...(right > left ? [] : [`right（${right}）必须大于 left（${left}）`]),
        ...(bottom > top ? [] : [`bottom（${bottom}）必须大于 top（${top}）`]),
      ].join('；'),
      {
        hint: 'left、top、right、bottom 是裁切矩形四条边的坐标，宽 = right − left，高 = bottom − top',
        details: bad,
      },
    );
  }
  const x = Math.round(left);
  const y = Math.round(top);
  const w = Math.round(right) - x;
  const h = Math.round(bottom) - y;
  if (w < 1 || h < 1) {
    fail('invalid_arguments', `裁切矩形取整到像素后为空（${w}×${h}）`, {
      hint: '裁切矩形至少要有 1×1 像素',
      details: [{ parameter: w < 1 ? 'right' : 'bottom', value: w < 1 ? right : bottom }],
    });
  }
  if (x >= state.width || y >= state.height || x + w <= 0 || y + h <= 0) {
    fail(
      'out_of_bounds',
      `裁切矩形 (${left}, ${top}) – (${right}, ${bottom}) 完全在画布（${state.width}×${state.height}）之外`,
      {
        hint: `裁切矩形须与画布 0,0 – ${state.width},${state.height} 相交`,
      },
    );
  }
  if (w > MAX_DOCUMENT_SIDE || h > MAX_DOCUMENT_SIDE) {
    fail('invalid_arguments', `裁切后的尺寸 ${w}×${h} 超过上限 ${MAX_DOCUMENT_SIDE} 像素`, {
      details: [
        {
          parameter: w > MAX_DOCUMENT_SIDE ? 'right' : 'bottom',
          value: w > MAX_DOCUMENT_SIDE ? right : bottom,
        },
      ],
    });
  }
  return { x, y, w, h };
}

export const documentsHandlers = {
  create_document({ width, height, resolution, name }, ctx) {
    // A blank name never arrives: the registry's NEW_NAME refuses it.
    const docName = name ?? firstFreeName(ctx);
    if (ctx.tx.documents().some((d) => d.name === docName)) {
      fail('conflict', `已有名为“${docName}”的打开文档`, {
        hint: `换一个名称，或用 switch_document 切换到“${docName}”`,
      });
    }
    const state = newDocument(width, height, resolution);
    // Its white background is a colour until painted: room for one painted layer and the composite.
    requireRoom(width * height * 4 * 2, '新文档');
    const doc = ctx.tx.addDocument(docName, state, '新建文档');
    return { document: documentSummary(doc) };
  },

  async close_document({ save }, ctx) {
    const doc = activeDoc(ctx);
    let saved: Awaited<ReturnType<typeof savePsd>> | undefined;
    if (save) saved = await savePsd(ctx, doc, await psdPathOf(ctx, doc));
    const discarded = !save && doc.dirty;
    ctx.tx.closeDocument(doc.id);
    const next = ctx.tx.hasActiveDocument() ? ctx.tx.activeDocument() : null;
    return {
      closed: doc.name,
      saved: Boolean(saved),
      ...(saved ? { path: saved.path, bytes: saved.bytes } : {}),
      discarded_unsaved_changes: discarded,
      active_document: next?.name ?? null,
      open_documents: ctx.tx.documents().length,
    };
  },

  list_documents(_args, ctx) {
    const active = ctx.tx.hasActiveDocument() ? ctx.tx.activeDocument().id : null;
    const docs = ctx.tx.documents();
    return {
      count: docs.length,
      active_document: docs.find((d) => d.id === active)?.name ?? null,
      documents: docs.map((d) => ({
        name: d.name,
        width: d.state.width,
        height: d.state.height,
        resolution: d.state.dpi,
        active: d.id === active,
        unsaved_changes: d.dirty,
        path: d.path,
      })),
    };
  },

  switch_document({ doc_name }, ctx) {
    const doc = ctx.tx.document(doc_name);
    ctx.tx.setActive(doc.id);
    return { document: documentSummary(doc) };
  },

  duplicate_layer_to_document({ name, target_doc }, ctx) {
    const src = activeDoc(ctx);
    const layer = layerNamed(ctx, src.state, name);
    const dst = ctx.tx.document(target_doc);
    const same = dst.id === src.id;
    // A copy in the same document, or of the background (which stops being one), is named like Duplicate Layer.
    const copyName = same || isBackground(layer) ? `${layer.name} 拷贝` : layer.name;
    const { state, id } = copyLayerInto(
      src.state,
      dst.state,
      layer.id,
      copyName,
      slotAbove(dst.state, dst.state.active),
    );
    let next = setActive(state, id);
    // Photoshop keeps the position when the canvases match, and centres the content otherwise.
    let moved = { dx: 0, dy: 0 };
    const resized = src.state.width !== dst.state.width || src.state.height !== dst.state.height;
    if (resized) {
      const box = contentBounds(src.state, layer.id);
      if (!isEmptyRect(box) && layer.kind !== 'fill') {
        moved = {
          dx: Math.round((dst.state.width - box.w) / 2) - box.x,
          dy: Math.round((dst.state.height - box.h) / 2) - box.y,
        };
        next = translateLayer(next, id, moved.dx, moved.dy);
      }
    }
    ctx.tx.update(dst.id, next);
    // Naming a layer makes it the active one; in the source document that is not a history step.
    if (!same && src.state.active !== layer.id)
      ctx.tx.update(src.id, setActive(src.state, layer.id), { step: false });
    return {
      source: layer.name,
      source_document: src.name,
      target_document: dst.name,
      position: resized ? 'centered' : 'kept',
      offset: moved,
      layer: layerSummary(next, layerById(next, id)),
    };
  },

  resize_canvas({ width, height, anchor }, ctx) {
    const doc = activeDoc(ctx);
    const before = sizeReport(doc.state);
    const frame = anchorFrame(doc.state, width, height, anchor as Anchor);
    if (width === doc.state.width && height === doc.state.height) {
      return {
        changed: false,
        message: '画布大小未变',
        old_size: before,
        new_size: before,
        document: documentSummary(doc),
      };
    }
    checkCanvasSize(width, height, '调整后的画布');
    requireRoom(width * height * 4, '调整后的画布');
    const next = reframeCanvas(doc.state, frame, 'extend');
    assertRecordable(next, next.layers.keys(), '调整画布');
    ctx.tx.update(doc.id, next);
    return {
      changed: true,
      old_size: before,
      new_size: sizeReport(next),
      anchor,
      offset: { dx: -frame.x, dy: -frame.y },
      document: documentSummary(ctx.tx.activeDocument()),
    };
  },

  async resize_image({ width, height, resolution }, ctx) {
    const doc = activeDoc(ctx);
    const before = { ...sizeReport(doc.state), resolution: doc.state.dpi };
    if (
      width === doc.state.width &&
      height === doc.state.height &&
      (resolution ?? doc.state.dpi) === doc.state.dpi
    ) {
      return {
        changed: false,
        message: '图像大小未变',
        old_size: before,
        new_size: before,
        document: documentSummary(doc),
      };
    }
    let next: DocState;
    if (width === doc.state.width && height === doc.state.height) {
      next = { ...doc.state, dpi: resolution ?? doc.state.dpi };
    } else {
      checkCanvasSize(width, height, '调整后的图像');
      requireRoom(width * height * 4, '调整后的图像');
      const resized = await resizeImage(doc.state, width, height, resolution);
      for (const w of resized.warnings) ctx.warn(w);
      next = resized.state;
      assertRecordable(next, next.layers.keys(), '调整图像大小');
    }
    ctx.tx.update(doc.id, next);
    return {
      changed: true,
      old_size: before,
      new_size: { ...sizeReport(next), resolution: next.dpi },
      scale: { x: width / doc.state.width, y: height / doc.state.height },
      document: documentSummary(ctx.tx.activeDocument()),
    };
  },

  delete_channel({ channel }, ctx) {
    const doc = activeDoc(ctx);
    const s = doc.state;
    const channels = s.channels ?? [];
    const found = channels.find((c) => c.name === channel);
    if (!found) {
      fail('not_found', `文档“${doc.name}”中没有名为“${channel}”的专色或 Alpha 通道`, {
        hint: channels.length
          ? `文档的通道：${channels.map((c) => `“${c.name}”`).join('、')}；颜色通道不能删除`
          : '这个文档没有专色或 Alpha 通道；颜色通道不能删除',
      });
    }
    const rest = channels.filter((c) => c !== found);
    const { channels: _dropped, ...base } = s;
    const carried = channelResourcesOf(s);
    // Its entry in the file's alternate spot colours goes with it: the entries name channels by identifier.
    const psdDocument =
      s.psdDocument && carried.length > 0 && found.identifier !== undefined
        ? { ...s.psdDocument, channelResources: withoutChannel(carried, found.identifier) }
        : s.psdDocument;
    const next: DocState = {
      ...base,
      ...(rest.length ? { channels: rest } : {}),
      ...(psdDocument ? { psdDocument } : {}),
    };
    ctx.tx.update(doc.id, next);
    return {
      changed: true,
      deleted: { name: found.name, kind: found.kind },
      channels: rest.map((c) => ({ name: c.name, kind: c.kind })),
    };
  },

  crop_document({ left, top, right, bottom }, ctx) {
    const doc = activeDoc(ctx);
    const frame = cropFrame(doc.state, left, top, right, bottom);
    const before = sizeReport(doc.state);
    const next = reframeCanvas(doc.state, frame, 'crop');
    assertRecordable(next, next.layers.keys(), '裁切');
    ctx.tx.update(doc.id, next);
    return {
      old_size: before,
      new_size: sizeReport(next),
      crop: { left: frame.x, top: frame.y, right: frame.x + frame.w, bottom: frame.y + frame.h },
      ...(frame.x < 0 || frame.y < 0 || frame.x + frame.w > before.width || frame.y + frame.h > before.height
        ? { extended: true }
        : {}),
      document: documentSummary(ctx.tx.activeDocument()),
    };
  },

  trim_document({ type }, ctx) {
    const doc = activeDoc(ctx);
    const image = ctx.tx.peekComposite(doc.id);
    const box = trimBox(image, type);
    const canvas = { x: 0, y: 0, w: doc.state.width, h: doc.state.height };
    if (isEmptyRect(box)) {
      fail(
        'invalid_state',
        type === 'transparent'
          ? '画布完全透明，自动裁切后将什么都不剩'
          : '画布上所有像素都与左上角像素颜色相同，自动裁切后将什么都不剩',
        { hint: type === 'topleft' ? '画布是纯色的，无需裁切' : '先在文档中添加内容' },
      );
    }
    // The composite covers the canvas; keep the box inside it.
    const frame = {
      x: Math.max(0, box.x),
      y: Math.max(0, box.y),
      w: Math.min(canvas.w, box.x + box.w) - Math.max(0, box.x),
      h: Math.min(canvas.h, box.y + box.h) - Math.max(0, box.y),
    };
    const before = sizeReport(doc.state);
    if (frame.x === 0 && frame.y === 0 && frame.w === canvas.w && frame.h === canvas.h) {
      return {
        changed: false,
        type,
        message:
          type === 'transparent'
            ? '画布边缘没有透明像素，无需裁切'
            : '画布边缘没有与左上角同色的像素，无需裁切',
        old_size: before,
        new_size: before,
      };
    }
    const next = reframeCanvas(doc.state, frame, 'crop');
    ctx.tx.update(doc.id, next);
    return {
      changed: true,
      type,
      old_size: before,
      new_size: sizeReport(next),
      trimmed: {
        left: frame.x,
        top: frame.y,
        right: canvas.w - frame.x - frame.w,
        bottom: canvas.h - frame.y - frame.h,
      },
      document: documentSummary(ctx.tx.activeDocument()),
    };
  },

  undo({ steps }, ctx) {
    return walkHistory(ctx, steps, -1);
  },

  redo({ steps }, ctx) {
    return walkHistory(ctx, steps, 1);
  },
} satisfies ToolHandlers;
