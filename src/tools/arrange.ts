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
  layerRef,
  moveLayer,
  parentOf,
  setActive,
  setLayer,
  topDown,
} from '../engine/tree.js';
import type { ArgsOf } from '../registry/index.js';
import { layerSummary } from './describe.js';
import { layersNamedAll } from './grouping.js';
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

/**
 * Photoshop's clipping rule for a block of layers dropped together (bottom first in `block`): dropped inside a
 * clipping mask (the layer above the block is clipped) they all join it; otherwise a clipped layer stays clipped
 * only where it rests on a layer that moved with it or on a clipping run, and the bottom one of a group is never
 * clipped. Clipped layers left behind by a base that moved rest on whatever is below them now.
 */
function clipBlock(before: DocState, after: DocState, block: readonly Layer[]) {
  let state = after;
  const notes: string[] = [];
  const ids = new Set(block.map((l) => l.id));
  const siblings = childrenOf(after, parentOf(after, block[0]!.id));
  const above = siblings[siblings.indexOf(block.at(-1)!.id) + 1];
  const joins = above !== undefined && layerById(after, above).clipped;
  for (const layer of block) {
    const i = siblings.indexOf(layer.id);
    const below = i > 0 ? layerById(state, siblings[i - 1]!) : undefined;
    const clipped = below !== undefined && (joins || (layer.clipped && (ids.has(below.id) || below.clipped)));
    if (clipped !== layer.clipped) {
      state = setLayer(state, { ...layerById(state, layer.id), clipped });
      notes.push(clipped ? `“${layer.name}”已加入剪贴蒙版` : `“${layer.name}”已释放剪贴蒙版`);
    }
  }
  const left = block.flatMap((l) => (l.clipped ? [] : clippedOn(before, l.id).filter((id) => !ids.has(id))));
  if (left.length) {
    const base = clipBase(state, left[0]!);
    notes.push(
      base === null
        ? `原先剪贴到被移动图层上的 ${left.length} 个图层下方已没有基底图层`
        : `原先剪贴到被移动图层上的 ${left.length} 个图层现在剪贴到“${layerById(state, base).name}”`,
    );
  }
  return { state, notes };
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

  arrange_layers({ layer_names, position, reference }, ctx) {
    const doc = activeDoc(ctx);
    const state = doc.state;
    const named = layersNamedAll(ctx, state, layer_names);
    // A layer inside a listed group goes with the group.
    const inGroup = named.filter((l) => named.some((g) => g !== l && isAncestor(state, g.id, l.id)));
    const roots = named.filter((l) => !inGroup.includes(l));
    for (const layer of roots) refuseBackground(layer, '调整图层顺序');
    const ref = layerNamed(ctx, state, reference);
    if (named.some((l) => l.id === ref.id) || roots.some((l) => isAncestor(state, l.id, ref.id))) {
      fail(
        'invalid_state',
        `参照图层“${ref.name}”在要移动的图层之中，不能把它们移到它${POSITION_WORDS[position]}`,
        {
          hint: '选择不在 layer_names 中（也不在其中的图层组内）的图层作为 reference',
        },
      );
    }
    // The block keeps the stacking order the layers had, whatever the order of the list.
    const order = [...topDown(state)].map((e) => e.layer.id);
    const block = [...roots].sort((a, b) => order.indexOf(b.id) - order.indexOf(a.id)); // bottom first
    let rest = state;
    for (const layer of block) rest = detach(rest, layer.id);
    let parent: number | null;
    let index: number;
    if (position === 'inside') {
      if (ref.kind !== 'group') {
        fail('invalid_state', `“${ref.name}”不是图层组，不能移入`, {
          hint: '用 position above 或 below 放到它的上方或下方，或先用 create_layer_group 创建图层组',
        });
      }
      parent = ref.id;
      index = childrenOf(rest, ref.id).length;
    } else {
      if (position === 'below' && isBackground(ref)) {
        fail('invalid_state', `背景图层始终在最底层，不能把图层移到“${ref.name}”之下`, {
          hint: '用 position above 放到背景图层之上',
        });
      }
      parent = parentOf(rest, ref.id);
      const j = childrenOf(rest, parent).indexOf(ref.id);
      index = position === 'above' ? j + 1 : j;
    }
    let next = rest;
    block.forEach((layer, k) => {
      next = moveLayer(next, layer.id, parent, index + k);
    });
    const selection = { active: named[0]!.id, selected: named.map((l) => l.id) };
    const where = [...topDown(next)].map((e) => `${e.layer.id}:${e.parent}`).join();
    if (where === [...topDown(state)].map((e) => `${e.layer.id}:${e.parent}`).join()) {
      // Only the selection changes, which is no history step (as select_layers).
      ctx.tx.update(doc.id, { ...state, ...selection });
      ctx.tx.skipHistoryStep();
      return { changed: false, note: '这些图层已在该位置', layers: named.map((l) => layerSummary(state, l)) };
    }
    const clipping = clipBlock(state, next, block);
    next = clipping.state;
    next = { ...next, ...selection };
    ctx.tx.update(doc.id, next);
    const moved = [...block].reverse().map((l) => layerSummary(next, layerById(next, l.id)));
    return {
      position,
      reference,
      ...(parent !== null ? { within_group: layerById(next, parent).name } : {}),
      ...(inGroup.length ? { moved_with_group: inGroup.map((l) => layerRef(state, l.id)) } : {}),
      ...(clipping.notes.length ? { notes: clipping.notes } : {}),
      layers: moved,
    };
  },
} satisfies ToolHandlers;
