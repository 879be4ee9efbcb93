/** Aligning layers to their union bounds, or a single layer to the canvas (Photoshop's Align). */
import { contentBounds } from '../engine/bounds.js';
import type { DocState, Layer, Rect } from '../engine/model.js';
import { isEmptyRect, unionRect } from '../engine/raster.js';
import { translateLayer } from '../engine/translate.js';
import { assertPositionUnlocked, refuseBackground } from './guards.js';

export type Edge = 'left' | 'right' | 'center_h' | 'top' | 'bottom' | 'center_v';

function offset(edge: Edge, target: Rect, r: Rect): [number, number] {
  switch (edge) {
    case 'left':
      return [target.x - r.x, 0];
    case 'right':
      return [target.x + target.w - (r.x + r.w), 0];
    case 'center_h':
      return [Math.round(target.x + target.w / 2 - (r.x + r.w / 2)), 0];
    case 'top':
      return [0, target.y - r.y];
    case 'bottom':
      return [0, target.y + target.h - (r.y + r.h)];
    case 'center_v':
      return [0, Math.round(target.y + target.h / 2 - (r.y + r.h / 2))];
  }
}

/** Two or more layers align to their union bounds; one layer aligns to the canvas. Empty layers stay. */
export function alignLayers(
  state: DocState,
  layers: readonly Layer[],
  edge: Edge,
): { state: DocState; moved: number } {
  const boxes = layers
    .map((l) => ({ layer: l, box: contentBounds(state, l.id) }))
    .filter((b) => !isEmptyRect(b.box));
  for (const { layer } of boxes) {
    refuseBackground(layer, '对齐');
    assertPositionUnlocked(layer, '对齐');
  }
  const target =
    layers.length > 1
      ? boxes.reduce<Rect>((acc, b) => unionRect(acc, b.box), { x: 0, y: 0, w: 0, h: 0 })
      : { x: 0, y: 0, w: state.width, h: state.height };
  let next = state;
  let moved = 0;
  for (const { layer, box } of boxes) {
    const [dx, dy] = offset(edge, target, box);
    if (dx !== 0 || dy !== 0) {
      next = translateLayer(next, layer.id, dx, dy);
      moved++;
    }
  }
  return { state: next, moved };
}
