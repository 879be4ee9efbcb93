/**
 * The refusals every tool shares, each worded once: Lock All on a layer or on a group above it, locked pixels
 * or position, and the background layer (position-locked, opaque, without masks or styles, as in Photoshop).
 * A tool passes what it was about to do (`what`, a Chinese verb phrase such as '移动'); the rest of the
 * wording, the error code and the hint are the same from every tool.
 */
import { undrawnReason } from '../engine/adjust/layer.js';
import { MAX_LAYER_REACH, reachOf } from '../engine/document-limits.js';
import { fail } from '../engine/errors.js';
import { isBackground } from '../engine/factory.js';
import type { AdjustmentLayer, DocState, Layer } from '../engine/model.js';
import { isShown, layerById, parentOf, subtree } from '../engine/tree.js';
import { KIND_NAMES } from './describe.js';

const UNLOCK_HINT = '先调用 lock_layer 解锁（locked: false）';

/** Lock All on the layer itself. */
export function assertUnlocked(layer: Layer, what: string): void {
  if (layer.locks.all) fail('locked', `图层“${layer.name}”已锁定，不能${what}`, { hint: UNLOCK_HINT });
}

/** Lock All on a group above the layer locks everything inside it, as in Photoshop. */
export function assertNoLockedAncestor(state: DocState, layer: Layer, what: string): void {
  for (let p = parentOf(state, layer.id); p !== null; p = parentOf(state, p)) {
    const group = layerById(state, p);
    if (group.locks.all) {
      fail('locked', `图层“${layer.name}”所在的图层组“${group.name}”已锁定，不能${what}`, {
        hint: `先调用 lock_layer 解锁图层组“${group.name}”（locked: false）`,
      });
    }
  }
}

/** Lock All on the layer or on any group above it. */
export function assertFree(state: DocState, layer: Layer, what: string): void {
  assertUnlocked(layer, what);
  assertNoLockedAncestor(state, layer, what);
}

/** Lock All or Lock Pixels on the layer itself. */
export function assertPixelsUnlocked(layer: Layer, what: string): void {
  assertUnlocked(layer, what);
  if (layer.locks.pixels)
    fail('locked', `图层“${layer.name}”的像素已锁定，不能${what}`, { hint: UNLOCK_HINT });
}

/**
 * The layer's pixels may change: it has pixels (not an adjustment layer), no Lock All or Lock Pixels on it, no
 * Lock All above it.
 */
export function assertPixelsEditable(
  state: DocState,
  layer: Layer,
  what: string,
): asserts layer is Exclude<Layer, AdjustmentLayer> {
  refuseAdjustment(layer, what);
  assertPixelsUnlocked(layer, what);
  assertNoLockedAncestor(state, layer, what);
}

/** An adjustment layer from a PSD has no pixels of its own: kept and written back, never painted (model.ts). */
export function refuseAdjustment(
  layer: Layer,
  what: string,
): asserts layer is Exclude<Layer, AdjustmentLayer> {
  if (layer.kind !== 'adjustment') return;
  fail('invalid_state', `“${layer.name}”是调整图层（${layer.adjustment.type}），没有像素，不能${what}`, {
    hint: '调整图层作用于它下方的图层，本身没有像素；请选择一个像素图层，或用 create_layer 新建图层',
  });
}

/** Lock All or Lock Position on the layer itself. */
export function assertPositionUnlocked(layer: Layer, what: string): void {
  assertUnlocked(layer, what);
  if (layer.locks.position) {
    fail('locked', `图层“${layer.name}”的位置已锁定，不能${what}`, { hint: UNLOCK_HINT });
  }
}

/** The background cannot move, restack, take transparency, a mask or a style: its copy can. */
export function refuseBackground(layer: Layer, what: string): void {
  if (isBackground(layer)) {
    fail('invalid_state', `“${layer.name}”是背景图层，不能${what}`, {
      hint: `先用 duplicate_layer 复制背景图层，再对副本${what}`,
      details: { type: KIND_NAMES[layer.kind], background: true },
    });
  }
}

/**
 * Refuses (`out_of_bounds`) a result that leaves pixels or a mask of a layer in `ids` further from the canvas than
 * a file records a layer's position (a signed 32-bit integer): the document could no longer be saved. `what` is the
 * change, e.g. '缩放'.
 */
export function assertRecordable(state: DocState, ids: Iterable<number>, what: string): void {
  for (const id of ids) {
    const l = layerById(state, id);
    for (const r of [l.mask, 'raster' in l ? l.raster : undefined]) {
      if (!r) continue;
      const reach = reachOf(r);
      if (reach <= MAX_LAYER_REACH) continue;
      fail(
        'out_of_bounds',
        `${what}后图层“${l.name}”会伸到离画布约 ${reach.toExponential(1)} 像素处，超出文件能记录的位置`,
        {
          hint: `图层须在画布原点 ±${MAX_LAYER_REACH} 像素之内（PSD 以 32 位整数记录位置）：先用 move_layer 把它移近画布`,
        },
      );
    }
  }
}

/** A shown adjustment layer whose effect the engine does not draw (adjust/layer.ts), and why. */
export interface UndrawnAdjustment {
  readonly id: number;
  readonly name: string;
  readonly reason: string;
}

/** The shown adjustment layers among `ids` and inside them (groups) that are not drawn. */
export function undrawnAdjustments(state: DocState, ids: Iterable<number>): UndrawnAdjustment[] {
  const found: UndrawnAdjustment[] = [];
  const seen = new Set<number>();
  for (const top of ids) {
    for (const id of subtree(state, top)) {
      const layer = layerById(state, id);
      if (seen.has(id) || layer.kind !== 'adjustment' || !isShown(state, id)) continue;
      seen.add(id);
      const reason = undrawnReason(layer.adjustment, state.mode);
      if (reason) found.push({ id, name: layer.name, reason });
    }
  }
  return found;
}

/** “甲”（why）、“乙”（why） */
export function listUndrawn(list: readonly UndrawnAdjustment[]): string {
  return list.map((u) => `“${u.name}”（${u.reason}）`).join('、');
}

/**
 * A merge bakes what it consumes into pixels and deletes the layers; Photoshop applies an adjustment layer in
 * it. An adjustment the engine does not draw would vanish without its effect, so the merge is refused and the
 * document stays as it was; `hint` says how to proceed with this tool.
 */
export function refuseUndrawnMerge(state: DocState, ids: Iterable<number>, what: string, hint: string): void {
  const undrawn = undrawnAdjustments(state, ids);
  if (undrawn.length === 0) return;
  fail(
    'unsupported',
    `${what}会删除调整图层${listUndrawn(undrawn)}，而合并出的像素不含它们的效果（Photoshop 合并时会应用调整）`,
    { hint, details: { adjustments: undrawn.map((u) => u.name) } },
  );
}
