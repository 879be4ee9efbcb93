/**
 * The layer tree as pure functions over immutable DocStates. Order is bottom → top everywhere (as in
 * ag-psd); "from the top" searches walk it backwards.
 */
import { fail } from './errors.js';
import type { DocState, GroupLayer, Layer } from './model.js';

export function layerById(state: DocState, id: number): Layer {
  const layer = state.layers.get(id);
  if (!layer) fail('internal', `图层 ${id} 不存在`);
  return layer;
}

/** The ids of a group's children, or of the top level when `parent` is null. */
export function childrenOf(state: DocState, parent: number | null): readonly number[] {
  if (parent === null) return state.root;
  const p = layerById(state, parent);
  return p.kind === 'group' ? p.children : [];
}

/** The group holding `id`, or null at the top level. */
export function parentOf(state: DocState, id: number): number | null {
  for (const layer of state.layers.values()) {
    if (layer.kind === 'group' && layer.children.includes(id)) return layer.id;
  }
  return null;
}

export interface TreeEntry {
  readonly layer: Layer;
  readonly parent: number | null;
  readonly depth: number;
}

/** Every layer from the top of the stack down, depth-first through groups (Photoshop's panel order). */
export function* topDown(state: DocState, parent: number | null = null, depth = 0): Generator<TreeEntry> {
  const ids = childrenOf(state, parent);
  for (let i = ids.length - 1; i >= 0; i--) {
    const layer = layerById(state, ids[i]!);
    yield { layer, parent, depth };
    if (layer.kind === 'group') yield* topDown(state, layer.id, depth + 1);
  }
}

/** Every layer whose name is exactly `name`, from the top (the first is Photoshop's `getByName`). */
export function layersNamed(state: DocState, name: string): Layer[] {
  const out: Layer[] = [];
  for (const { layer } of topDown(state)) if (layer.name === name) out.push(layer);
  return out;
}

/**
 * What a call names a layer by: its name, or `name#k` when several layers share the name (the k-th from the
 * top, as the layers panel lists them). Photoshop allows shared names; a name alone reaches only the top one.
 */
export function layerRef(state: DocState, id: number): string {
  return sharedRefs(state).get(id) ?? layerById(state, id).name;
}

/** The references of the layers whose names are shared, worked out once per state (one pass from the top). */
const refsOf = new WeakMap<DocState, Map<number, string>>();

function sharedRefs(state: DocState): Map<number, string> {
  let refs = refsOf.get(state);
  if (refs) return refs;
  const byName = new Map<string, number[]>();
  for (const { layer } of topDown(state)) {
    const ids = byName.get(layer.name);
    if (ids) ids.push(layer.id);
    else byName.set(layer.name, [layer.id]);
  }
  const out = new Map<number, string>();
  for (const [name, ids] of byName) {
    if (ids.length < 2) continue;
    for (let k = 0; k < ids.length; k++) out.set(ids[k]!, `${name}#${k + 1}`);
  }
  refs = out;
  refsOf.set(state, refs);
  return refs;
}

/** The layer a `name#k` reference names (see layerRef), when `ref` is one and no layer has it as its name. */
export function layerByRef(state: DocState, ref: string): Layer | undefined {
  const m = /^(.*)#([1-9]\d*)$/s.exec(ref);
  if (!m) return undefined;
  const same = layersNamed(state, m[1]!);
  return same.length >= 2 ? same[Number(m[2]) - 1] : undefined;
}

export function isAncestor(state: DocState, ancestor: number, id: number): boolean {
  for (let p = parentOf(state, id); p !== null; p = parentOf(state, p)) if (p === ancestor) return true;
  return false;
}

/** The ids of `id` and everything inside it. */
export function subtree(state: DocState, id: number): number[] {
  const layer = layerById(state, id);
  return layer.kind === 'group' ? [id, ...layer.children.flatMap((c) => subtree(state, c))] : [id];
}

function withChildren(state: DocState, parent: number | null, children: readonly number[]): DocState {
  if (parent === null) return { ...state, root: children };
  const group = layerById(state, parent) as GroupLayer;
  const layers = new Map(state.layers);
  layers.set(parent, { ...group, children });
  return { ...state, layers };
}

export function setLayer(state: DocState, layer: Layer): DocState {
  const layers = new Map(state.layers);
  layers.set(layer.id, layer);
  return { ...state, layers };
}

/** Adds `layer` (and any layers already in the map for its subtree) to `parent` at `index` (0 = bottom). */
export function insertLayer(state: DocState, layer: Layer, parent: number | null, index: number): DocState {
  const next = setLayer(state, layer);
  const siblings = [...childrenOf(next, parent)];
  siblings.splice(Math.max(0, Math.min(index, siblings.length)), 0, layer.id);
  return withChildren(next, parent, siblings);
}

/** Where a new layer goes: directly above `ref` in ref's group, or at the top when there is no ref. */
export function slotAbove(state: DocState, ref: number | null): { parent: number | null; index: number } {
  if (ref === null || !state.layers.has(ref)) return { parent: null, index: state.root.length };
  const parent = parentOf(state, ref);
  return { parent, index: childrenOf(state, parent).indexOf(ref) + 1 };
}

/** Takes `id` out of its parent's list, keeping it (and its subtree) in the map. */
export function detach(state: DocState, id: number): DocState {
  const parent = parentOf(state, id);
  return withChildren(
    state,
    parent,
    childrenOf(state, parent).filter((c) => c !== id),
  );
}

/** Moves `id` to `parent` at `index` (0 = bottom), counted after it has been taken out. */
export function moveLayer(state: DocState, id: number, parent: number | null, index: number): DocState {
  const detached = detach(state, id);
  const siblings = [...childrenOf(detached, parent)];
  siblings.splice(Math.max(0, Math.min(index, siblings.length)), 0, id);
  return withChildren(detached, parent, siblings);
}

/** Removes `id` and its subtree; the layer selection and active layer are repaired by the caller. */
export function removeLayer(state: DocState, id: number): DocState {
  const gone = new Set(subtree(state, id));
  const detached = detach(state, id);
  const layers = new Map(detached.layers);
  for (const g of gone) layers.delete(g);
  return { ...detached, layers, selected: detached.selected.filter((s) => !gone.has(s)) };
}

/** Hands out a fresh layer id. */
export function allocateId(state: DocState): [number, DocState] {
  return [state.nextId, { ...state, nextId: state.nextId + 1 }];
}

export function setActive(state: DocState, id: number | null): DocState {
  return { ...state, active: id, selected: id === null ? [] : [id] };
}

/** The layer directly below `id` among its siblings, or null. */
export function siblingBelow(state: DocState, id: number): number | null {
  const siblings = childrenOf(state, parentOf(state, id));
  const i = siblings.indexOf(id);
  return i > 0 ? siblings[i - 1]! : null;
}

/** Whether a layer and every group above it are visible. */
export function isShown(state: DocState, id: number): boolean {
  for (let cur: number | null = id; cur !== null; cur = parentOf(state, cur)) {
    if (!layerById(state, cur).visible) return false;
  }
  return true;
}
