/**
 * split_pieces (group E): a marker whose cut pieces share one layer — a CAD export, a merged PSD, a flat JPG —
 * becomes one layer per piece, as the garment workflow needs (DESIGN.md §6). The source is hidden, never deleted.
 */
import { fail } from '../engine/errors.js';
import { pixelLayer } from '../engine/factory.js';
import type { DocState, Layer, PixelLayer } from '../engine/model.js';
import { rgbToHex } from '../engine/raster.js';
import {
  allocateId,
  insertLayer,
  layerById,
  layersNamed,
  setActive,
  setLayer,
  slotAbove,
  topDown,
} from '../engine/tree.js';
import { splitRaster } from '../garment/split.js';
import { boundsReport, KIND_NAMES } from './describe.js';
import { assertFree } from './guards.js';
import { activeDoc, layerNamed } from './resolve.js';
import type { ToolHandlers } from './types.js';

const PIECE_NAME = '裁片';

/** The named layer, else the active one when it holds pixels, else the document's only pixel layer. */
function sourceLayer(state: DocState, named: Layer | null): Layer {
  if (named) return named;
  const active = state.active !== null ? state.layers.get(state.active) : undefined;
  if (active?.kind === 'pixel') return active;
  const pixels = [...topDown(state)].filter((e) => e.layer.kind === 'pixel');
  if (pixels.length === 1) return pixels[0]!.layer;
  if (active) return active;
  fail('invalid_state', '当前没有选中的图层，文档中也不是只有一个像素图层', {
    hint: '用 name 指定排料图所在的图层',
  });
}

function assertSplittable(state: DocState, layer: Layer): PixelLayer {
  const why: Partial<Record<Layer['kind'], [string, string]>> = {
    group: ['是图层组', '拆分组内排料图所在的像素图层（用 name 指定）'],
    text: ['是文字图层，不是裁片图', '用 name 指定排料图所在的像素图层'],
    smart: ['是智能对象', '先用 rasterize_layer 栅格化它，再调用 split_pieces'],
    fill: ['是纯色图层，上面没有裁片', '用 name 指定排料图所在的像素图层'],
    adjustment: ['是调整图层，没有像素', '用 name 指定排料图所在的像素图层'],
  };
  const refusal = why[layer.kind];
  if (refusal) {
    fail('invalid_state', `“${layer.name}”${refusal[0]}，不能拆分裁片`, {
      hint: refusal[1],
      details: { type: KIND_NAMES[layer.kind] },
    });
  }
  assertFree(state, layer, '拆分裁片');
  const pixel = layer as PixelLayer;
  if (pixel.mask) {
    fail('invalid_state', `图层“${layer.name}”有图层蒙版，不能拆分裁片`, {
      hint: `先用 delete_layer_mask（apply: true）把蒙版应用到像素，再调用 split_pieces`,
    });
  }
  if (pixel.raster.w * pixel.raster.h === 0) {
    fail('invalid_state', `图层“${layer.name}”是空的，没有可拆分的裁片`, {
      hint: '用 name 指定排料图所在的图层',
    });
  }
  return pixel;
}

/** `裁片 1`, `裁片 2`…, skipping names the document already uses. */
function freshNames(state: DocState, count: number): string[] {
  const out: string[] = [];
  for (let k = 1; out.length < count; k++) {
    const name = `${PIECE_NAME} ${k}`;
    if (layersNamed(state, name).length === 0) out.push(name);
  }
  return out;
}

export const splitHandlers = {
  split_pieces({ name }, ctx) {
    const doc = activeDoc(ctx);
    const layer = assertSplittable(
      doc.state,
      sourceLayer(doc.state, name === undefined ? null : layerNamed(ctx, doc.state, name)),
    );
    ctx.progress('查找裁片', 0.1);
    const found = splitRaster(layer.raster);
    if (found.pieces.length === 0) {
      fail('invalid_state', `图层“${layer.name}”上没有找到裁片`, {
        hint: found.background
          ? '排料图中的裁片应与底色有明显区别（填色或画出轮廓线）'
          : '图层是空的或几乎全透明：用 name 指定排料图所在的图层',
        details: { ignored: found.ignored },
      });
    }
    if (found.unchanged) {
      fail('invalid_state', `图层“${layer.name}”上只有一个裁片，就是整个图层，无需拆分`, {
        hint: '直接调用 identify_pieces',
      });
    }
    let state = setLayer(doc.state, { ...layer, visible: false });
    const names = freshNames(state, found.pieces.length);
    const { parent, index } = slotAbove(state, layer.id);
    const ids: number[] = [];
    found.pieces.forEach((piece, k) => {
      let id: number;
      [id, state] = allocateId(state);
      state = insertLayer(state, pixelLayer(id, names[k]!, piece.raster), parent, index + k);
      ids.push(id);
    });
    state = { ...setActive(state, ids[0]!), selected: ids };
    ctx.tx.update(doc.id, state);
    const ignored = found.ignored
      ? `；${found.ignored} 个太小的区域（杂点、剪口标记或文字）不算裁片，已忽略`
      : '';
    return {
      source: layer.name,
      source_hidden: true,
      ...(found.background
        ? {
            background: rgbToHex(found.background),
          }
        : {}),
      pieces: ids.map((id) => {
        const l = layerById(state, id) as PixelLayer;
        return { name: l.name, bounds: boundsReport(l.raster) };
      }),
      ignored: found.ignored,
      ...(found.enclosed ? { enclosed: found.enclosed } : {}),
      next: `已拆分为 ${ids.length} 个裁片图层，原图层“${layer.name}”已隐藏（未删除）${ignored}。下一步调用 identify_pieces 识别各裁片的部位`,
    };
  },
} satisfies ToolHandlers;
