/** Finding what a call acts on, with the errors and hints a model needs to recover. */
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import type { DocState, Layer } from '../engine/model.js';
import { closest } from '../engine/names.js';
import { layerById, layerByRef, layersNamed, setActive, topDown } from '../engine/tree.js';
import type { ToolContext } from './types.js';

export function activeDoc(ctx: ToolContext): OpenDocument {
  return ctx.tx.activeDocument();
}

/**
 * The first layer named `name` from the top (Photoshop's getByName); warns when the name is shared. Where
 * several layers share a name, `name#2`… names the others (engine/tree.ts layerRef).
 */
export function layerNamed(ctx: ToolContext, state: DocState, name: string): Layer {
  const matches = layersNamed(state, name);
  if (matches.length === 0) {
    const byRef = layerByRef(state, name);
    if (byRef) return byRef;
    const names = [...topDown(state)].map((e) => e.layer.name);
    const near = closest(name, names);
    fail('not_found', `没有名为“${name}”的图层`, {
      hint: near.length
        ? `是否指 ${near.map((n) => `“${n}”`).join('、')}？`
        : '用 list_all_layer_names 查看所有图层',
      details: { closest: near },
    });
  }
  if (matches.length > 1) {
    ctx.warn(
      `有 ${matches.length} 个图层名为“${name}”，已使用最上面的一个（id ${matches[0]!.id}）；其他的用“${name}#2”${matches.length > 2 ? `…“${name}#${matches.length}”` : ''}指定（从上往下数）`,
    );
  }
  return matches[0]!;
}

/** The active layer; `invalid_state` when the document has none. */
export function activeLayer(state: DocState): Layer {
  if (state.active === null || !state.layers.has(state.active)) {
    fail('invalid_state', '当前没有选中的图层', {
      hint: '用 select_layers 选择图层，或 create_layer 新建图层',
    });
  }
  return layerById(state, state.active);
}

/** The layer selection, active layer first when nothing else is selected. */
export function selectedLayers(state: DocState): Layer[] {
  const ids = state.selected.length ? state.selected : state.active !== null ? [state.active] : [];
  return ids.filter((id) => state.layers.has(id)).map((id) => layerById(state, id));
}

/**
 * Nothing changes but which layer is active: not a history step in Photoshop, so the call replaces the current
 * state instead of adding one (and leaves it untouched when the layer is already the only one selected).
 */
export function activateOnly(ctx: ToolContext, doc: OpenDocument, id: number): DocState {
  const s = doc.state;
  if (s.active === id && s.selected.length === 1 && s.selected[0] === id) return s;
  const state = setActive(s, id);
  ctx.tx.update(doc.id, state);
  ctx.tx.skipHistoryStep();
  return state;
}
