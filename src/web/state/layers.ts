/** Helpers over the snapshot's layer tree (top of the stack first, groups with children). */
import type { LayerNode } from '../api/types.js';

/** What a tool call names the layer by: its name, or `name#k` when several layers share it. */
export const refOf = (layer: LayerNode): string => layer.ref ?? layer.name;

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

/** What calls name every layer by, depth-first from the top (the forms' suggestions). */
export function layerNames(layers: readonly LayerNode[]): string[] {
  return flattenLayers(layers).map((e) => refOf(e.layer));
}

/** The layer a call names `ref` (its name, or `name#k`), if any. */
export function layerWithRef(layers: readonly LayerNode[], ref: string): LayerNode | undefined {
  return flattenLayers(layers).find((e) => refOf(e.layer) === ref)?.layer;
}

/**
 * Where the server's thumbnail of `layer` of document `doc` within a `px` square is — of its pixels, or of its
 * mask — keyed by what it shows (a new key, new pixels: asked again); null for a layer without one (a group or
 * a text layer has no pixels' thumbnail, a layer without a mask no mask's).
 */
export function thumbnailUrl(
  sessionId: string,
  doc: string,
  layer: LayerNode,
  px: number,
  of: 'pixels' | 'mask' = 'pixels',
): string | null {
  const key = of === 'mask' ? layer.mask_thumbnail : layer.thumbnail;
  return key
    ? `/v1/sessions/${sessionId}/documents/${encodeURIComponent(doc)}/layers/${layer.id}/thumbnail.png?max=${px}${of === 'mask' ? '&of=mask' : ''}&v=${encodeURIComponent(key)}`
    : null;
}

/** The layer with this id in the tree, if any. */
export function layerWithId(layers: readonly LayerNode[], id: number | null): LayerNode | undefined {
  return id === null ? undefined : flattenLayers(layers).find((e) => e.layer.id === id)?.layer;
}
