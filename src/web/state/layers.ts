/** Helpers over the snapshot's layer tree (top of the stack first, groups with children). */
import type { LayerNode } from '../api/types.js';

/** Every layer, depth-first from the top, with its depth in the tree; the contents of `collapsed` groups left out. */
export function flattenLayers(
  layers: readonly LayerNode[],
  collapsed: ReadonlySet<number> = new Set(),
  depth = 0,
): { layer: LayerNode; depth: number }[] {
  return layers.flatMap((layer) => [
    { layer, depth },
    ...(layer.children && !collapsed.has(layer.id)
      ? flattenLayers(layer.children, collapsed, depth + 1)
      : []),
  ]);
}

export function layerNames(layers: readonly LayerNode[]): string[] {
  return flattenLayers(layers).map((e) => e.layer.name);
}
