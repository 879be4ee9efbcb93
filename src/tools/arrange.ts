/**
 * arrange_layer: a layer's place in the stack, as Photoshop's Layer › Arrange and a drag in its Layers panel give
 * it. The spec's bring_to_front and send_to_back reach only the ends of a group; this puts a layer anywhere,
 * into a group and out of it.
 */
import { fail } from '../engine/errors.js';
import { isBackground } from '../engine/factory.js';
import type { DocState, Layer } from '../engine/model.js';
import {
  childrenOf,
  detach,
  isAncestor,
  layerById,
  moveLayer,
  parentOf,
  setActive,
  setLayer,
} from '../engine/tree.js';
import type { ArgsOf } from '../registry/index.js';
import { layerSummary } from './describe.js';
import { refuseBackground } from './guards.js';
import { clipBase } from './merge.js';
import { activateOnly, activeDoc, layerNamed } from './resolve.js';
import type { Payload, ToolContext, ToolHandlers } from './types.js';

type Position = ArgsOf<'arrange_layer'>['position'];

interface Slot {
  readonly parent: number | null;
  /** Among the parent's children once the layer is taken out, bottom → top. */
  readonly index: number;
}

/** Where `layer` goes, or a note saying why it stays (an end of its group reached). */
function slotFor(
  ctx: ToolContext,
  state: DocState,
  layer: Layer,
  position: Position,
  reference: string | undefined,
): Slot | { stays: string } {
  if (position === 'forward' || position === 'backward') {
    const parent = parentOf(state, layer.id);
    const siblings = childrenOf(state, parent);
    const i = siblings.indexOf(layer.id);
    const where = parent === null ? '' : '所在图层组的';
    if (position === 'forward') {
      if (i === siblings.length - 1) return { stays: `图层已在${where}最上方` };
      return { parent, index: i + 1 };
    }
    const floor = siblings[0] !== undefined && isBackground(layerById(state, siblings[0])) ? 1 : 0;
    if (i <= floor) return { stays: floor ? '图层已在背景图层之上的最底部' : `图层已在${where}最底部` };
    return { parent, index: i - 1 };
  }
  if (reference === undefined || reference === '') {
    const message = `position 为 ${position} 时须给出 reference（参照图层名称）`;
    fail('invalid_arguments', message, {
      hint: '用 list_all_layer_names 查看图层名称；只移动一层时用 position forward 或 backward，不需要 reference',
      details: [{ parameter: 'reference', message }],
    });
  }
  const ref = layerNamed(ctx, state, reference);
  if (ref.id === layer.id)
    fail('invalid_state', `不能把“${layer.name}”移到它自身${POSITION_WORDS[position]}`);
  if (isAncestor(state, layer.id, ref.id)) {
    fail('invalid_state', `“${ref.name}”在图层组“${layer.name}”之内，不能把图层组移到它自己里面`);
  }
  const rest = detach(state, layer.id);
  if (position === 'inside') {
    if (ref.kind !== 'group') {
      fail('invalid_state', `“${ref.name}”不是图层组，不能移入`, {
        hint: '用 position above 或 below 放到它的上方或下方，或先用 create_layer_group 创建图层组',
      });
    }
    return { parent: ref.id, index: childrenOf(rest, ref.id).length };
  }
  if (position === 'below' && isBackground(ref)) {
    fail('invalid_state', `背景图层始终在最底层，不能把图层移到“${ref.name}”之下`, {
      hint: '用 position above 放到背景图层之上',
    });
  }
  const parent = parentOf(rest, ref.id);
  const j = childrenOf(rest, parent).indexOf(ref.id);
  return { parent, index: position === 'above' ? j + 1 : j };
}

const POSITION_WORDS: Record<Position, string> = {
  above: '之上',
  below: '之下',
  inside: '之内',
  forward: '之上',
  backward: '之下',
};

/**
 * Photoshop's clipping rule for a layer dropped in the stack: a layer dropped between layers of a clipping mask
 * (the one above it is clipped) becomes part of it; a clipped layer stays clipped only where it still rests on a
 * clipping run (the one below it is clipped too), and is released when dropped between two unclipped layers or
 * where nothing is below it.
 */
function clippedAt(state: DocState, layer: Layer): boolean {
  const siblings = childrenOf(state, parentOf(state, layer.id));
  const i = siblings.indexOf(layer.id);
  if (i === 0) return false;
  const above = siblings[i + 1];
  if (above !== undefined && layerById(state, above).clipped) return true;
  return layer.clipped && layerById(state, siblings[i - 1]!).clipped;
}

/** The clipped layers resting on `id` (the run directly above it). */
function clippedOn(state: DocState, id: number): number[] {
  const siblings = childrenOf(state, parentOf(state, id));
  const run: number[] = [];
  for (let i = siblings.indexOf(id) + 1; i < siblings.length; i++) {
    if (!layerById(state, siblings[i]!).clipped) break;
    run.push(siblings[i]!);
  }
  return run;
}

export const arrangeHandlers = {
  arrange_layer({ name, position, reference }, ctx) {
    const doc = activeDoc(ctx);
    const state = doc.state;
    const layer = layerNamed(ctx, state, name);
    refuseBackground(layer, '调整图层顺序');
    const slot = slotFor(ctx, state, layer, position, reference);
    const ignored =
      (position === 'forward' || position === 'backward') && reference
        ? { note: `position 为 ${position} 时不使用 reference，已忽略` }
        : {};
    const from = parentOf(state, layer.id);
    if (
      'stays' in slot ||
      (slot.parent === from && slot.index === childrenOf(state, from).indexOf(layer.id))
    ) {
      const s = activateOnly(ctx, doc, layer.id);
      const note = 'stays' in slot ? slot.stays : '图层已在该位置';
      return { changed: false, note, ...ignored, layer: layerSummary(s, layerById(s, layer.id)) };
    }
    // A base's clipped layers stay where they are and rest on whatever is below them now.
    const resting = layer.clipped ? [] : clippedOn(state, layer.id);
    let next = moveLayer(state, layer.id, slot.parent, slot.index);
    const clipped = clippedAt(next, layer);
    if (clipped !== layer.clipped) next = setLayer(next, { ...layer, clipped });
    next = setActive(next, layer.id);
    ctx.tx.update(doc.id, next);

    const notes: string[] = [];
    const baseName = (st: DocState, id: number) => {
      const base = clipBase(st, id);
      return base === null ? null : layerById(st, base).name;
    };
    if (clipped) {
      const now = baseName(next, layer.id);
      if (!layer.clipped) notes.push(`已加入剪贴蒙版，剪贴到“${now}”`);
      else if (clipBase(next, layer.id) !== clipBase(state, layer.id)) notes.push(`现在剪贴到“${now}”`);
    } else if (layer.clipped) {
      const was = baseName(state, layer.id);
      notes.push(was === null ? '已释放剪贴蒙版' : `已释放剪贴蒙版，不再剪贴到“${was}”`);
    }
    if (resting.length) {
      const now = baseName(next, resting[0]!);
      notes.push(
        now === null
          ? `原先剪贴到它的 ${resting.length} 个图层下方已没有基底图层`
          : `原先剪贴到它的 ${resting.length} 个图层现在剪贴到“${now}”`,
      );
    }
    const payload: Payload = {
      position,
      ...(reference && !('note' in ignored) ? { reference } : {}),
      ...(slot.parent !== null ? { within_group: layerById(next, slot.parent).name } : {}),
      ...ignored,
      ...(notes.length ? { notes } : {}),
      layer: layerSummary(next, layerById(next, layer.id)),
    };
    return payload;
  },
} satisfies ToolHandlers;
