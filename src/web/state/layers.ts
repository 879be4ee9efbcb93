/** Helpers over the snapshot's layer tree (top of the stack first, groups with children). */
import type { LayerNode } from '../api/types.js';

/** Every layer, depth-first from the top, with its depth in the tree. */
export function flattenLayers(
  layers: readonly LayerNode[],
  depth = 0,
): { layer: LayerNode; depth: number }[] {
  return layers.flatMap((layer) => [
    { layer, depth },
    ...(layer.children ? flattenLayers(layer.children, depth + 1) : []),
  ]);
}

export function layerNames(layers: readonly LayerNode[]): string[] {
  return flattenLayers(layers).map((e) => e.layer.name);
}
