/** Where a layer can put pixels: the footprint the compositor, the composite cache and layer tools agree on. */
import { fail } from '../errors.js';
import type { DocState, Layer, Rect } from '../model.js';
import { EMPTY_RECT, intersectRect, isEmptyRect, unionRect } from '../raster.js';
import { effectsExtent } from './effects.js';
import { maskReach } from './mask-shown.js';

export function canvasRect(state: DocState): Rect {
  return { x: 0, y: 0, w: state.width, h: state.height };
}

/**
 * The layer's own pixels, in document coordinates and not clipped to the canvas: the raster's rectangle, the
 * canvas for a fill, the union of the children for a group (hidden ones included: the footprint describes
 * content, not what is currently shown), cut to the mask's rectangle when the mask hides everything outside.
 */
export function contentExtent(state: DocState, layer: Layer): Rect {
  let r: Rect;
  switch (layer.kind) {
    case 'fill':
      r = canvasRect(state);
      break;
    case 'group':
      r = EMPTY_RECT;
      for (const id of layer.children) {
        const child = state.layers.get(id);
        if (child) r = unionRect(r, layerExtent(state, child));
      }
      break;
    case 'adjustment':
      r = EMPTY_RECT;
      break;
    default:
      r = isEmptyRect(layer.raster) ? EMPTY_RECT : layer.raster;
  }
  const reach = maskReach(layer);
  if (reach) r = intersectRect(r, reach);
  return r;
}

/** `contentExtent` grown by what the layer's effects (shadow, stroke) can reach. */
export function layerExtent(state: DocState, layer: Layer): Rect {
  const content = contentExtent(state, layer);
  return layer.effects ? effectsExtent(layer, content) : content;
}

/** The on-canvas footprint of layer `id`: its extent, effects included, clipped to the canvas. */
export function layerBounds(state: DocState, id: number): Rect {
  const layer = state.layers.get(id);
  if (!layer) fail('not_found', `找不到图层 ${id}`);
  return intersectRect(layerExtent(state, layer), canvasRect(state));
}
