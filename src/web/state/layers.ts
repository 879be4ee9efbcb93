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

/**
 * The name a new layer or group gets, as Photoshop names them: `template` ('图层 {n}') with one more than the highest
 * number a layer of the document already carries in it.
 */
export function nextName(layers: readonly LayerNode[], template: string): string {
  const [before = '', after = ''] = template.split('{n}');
  let highest = 0;
  for (const { layer } of flattenLayers(layers)) {
    if (!layer.name.startsWith(before) || !layer.name.endsWith(after)) continue;
    const digits = layer.name.slice(before.length, layer.name.length - after.length);
    if (/^\d{1,9}$/.test(digits)) highest = Math.max(highest, Number(digits));
  }
  return template.replace('{n}', String(highest + 1));
}

/** The layers a document has selected, by id: the current one alone when none is (the pane shows it so). */
export function selectionOf(doc: {
  readonly selected_layer_ids: readonly number[];
  readonly active_layer_id: number | null;
}): readonly number[] {
  if (doc.selected_layer_ids.length) return doc.selected_layer_ids;
  return doc.active_layer_id !== null ? [doc.active_layer_id] : [];
}

/** What calls name the selected layers by, the current layer first (select_layers makes the first current). */
export function selectedRefs(doc: {
  readonly layers: readonly LayerNode[];
  readonly selected_layer_ids: readonly number[];
  readonly active_layer_id: number | null;
}): string[] {
  const current = doc.selected_layer_ids.filter((id) => id === doc.active_layer_id);
  const rest = doc.selected_layer_ids.filter((id) => id !== doc.active_layer_id);
  return [...current, ...rest].flatMap((id) => {
    const layer = layerWithId(doc.layers, id);
    return layer ? [refOf(layer)] : [];
  });
}
