/** Copying a layer (with its subtree) within a document or into another; buffers are shared, not copied. */
import type { DocState, Layer } from './model.js';
import { allocateId, insertLayer, layerById, setLayer } from './tree.js';

function cloneInto(src: DocState, dst: DocState, id: number): [number, DocState] {
  const layer = layerById(src, id);
  let [newId, next] = allocateId(dst);
  if (layer.kind === 'group') {
    const children: number[] = [];
    for (const c of layer.children) {
      let childId: number;
      [childId, next] = cloneInto(src, next, c);
      children.push(childId);
    }
    next = setLayer(next, { ...layer, id: newId, children });
  } else {
    next = setLayer(next, { ...layer, id: newId } as Layer);
  }
  return [newId, next];
}

/**
 * Copies layer `id` of `src` into `dst` at `slot`, named `name`. A copied background becomes an ordinary
 * layer, as in Photoshop. Returns the new state and the copy's id.
 */
export function copyLayerInto(
  src: DocState,
  dst: DocState,
  id: number,
  name: string,
  slot: { parent: number | null; index: number },
): { state: DocState; id: number } {
  const [newId, cloned] = cloneInto(src, dst, id);
  const copy = layerById(cloned, newId);
  const renamed: Layer =
    (copy.kind === 'pixel' || copy.kind === 'fill') && copy.background
      ? { ...copy, name, background: false }
      : { ...copy, name };
  return { state: insertLayer(cloned, renamed, slot.parent, slot.index), id: newId };
}
