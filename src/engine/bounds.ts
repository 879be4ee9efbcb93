/** Where a layer's content lies, in document pixels (before masks and effects). */
import type { DocState, Rect } from './model.js';
import { EMPTY_RECT, unionRect } from './raster.js';
import { layerById } from './tree.js';

export function contentBounds(state: DocState, id: number): Rect {
  const layer = layerById(state, id);
  switch (layer.kind) {
    case 'fill':
      return { x: 0, y: 0, w: state.width, h: state.height };
    case 'group':
      return layer.children.reduce<Rect>((acc, c) => unionRect(acc, contentBounds(state, c)), EMPTY_RECT);
    case 'adjustment':
      return EMPTY_RECT;
    default: {
      const { x, y, w, h } = layer.raster;
      return w > 0 && h > 0 ? { x, y, w, h } : EMPTY_RECT;
    }
  }
}
