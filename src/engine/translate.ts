/** Moving a layer by whole pixels: only positions change, no pixel is copied. */
import type { DocState, Layer, LayerMask, Raster } from './model.js';
import { layerById, setLayer } from './tree.js';

function shift<T extends Raster | LayerMask>(r: T, dx: number, dy: number): T {
  return { ...r, x: r.x + dx, y: r.y + dy };
}

function moved(layer: Layer, dx: number, dy: number): Layer {
  const mask = layer.mask ? { mask: shift(layer.mask, dx, dy) } : {};
  switch (layer.kind) {
    case 'pixel':
      return { ...layer, ...mask, raster: shift(layer.raster, dx, dy) };
    case 'text':
      return {
        ...layer,
        ...mask,
        raster: shift(layer.raster, dx, dy),
        text: { ...layer.text, x: layer.text.x + dx, y: layer.text.y + dy },
      };
    case 'smart':
      return {
        ...layer,
        ...mask,
        raster: shift(layer.raster, dx, dy),
        transform: { ...layer.transform, cx: layer.transform.cx + dx, cy: layer.transform.cy + dy },
      };
    case 'fill':
    case 'adjustment':
    case 'group':
      return { ...layer, ...mask };
  }
}

/** Moves a layer (a group: everything in it) by `dx, dy` pixels; its mask moves with it, as when linked. */
export function translateLayer(state: DocState, id: number, dx: number, dy: number): DocState {
  const layer = layerById(state, id);
  let next = setLayer(state, moved(layer, dx, dy));
  if (layer.kind === 'group') for (const c of layer.children) next = translateLayer(next, c, dx, dy);
  return next;
}
