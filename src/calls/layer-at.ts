/**
 * The layer a click on the canvas lands on, as Photoshop's Move tool with Auto-Select finds it: the topmost
 * visible layer with a pixel at the point, inside groups (open or closed) — its mask counted, and for a clipped
 * layer its base's pixel too, since that is where it shows. A layer's effects (stroke, shadow) are not its pixels.
 */
import type { DocState, Layer, LayerMask } from '../engine/model.js';
import type { Session } from './session.js';

function maskAt(mask: LayerMask | undefined, x: number, y: number): number {
  if (!mask?.enabled) return 255;
  const inside = x >= mask.x && y >= mask.y && x < mask.x + mask.w && y < mask.y + mask.h;
  return inside ? mask.data[(y - mask.y) * mask.w + (x - mask.x)]! : mask.outside;
}

/** Whether the layer's own pixel at (x, y) is not transparent (a group: never; its children are asked). */
function covers(layer: Layer, x: number, y: number): boolean {
  if (!layer.visible || maskAt(layer.mask, x, y) === 0) return false;
  switch (layer.kind) {
    case 'fill':
      return true;
    case 'group':
    case 'adjustment':
      return false;
    default: {
      const r = layer.raster;
      if (x < r.x || y < r.y || x >= r.x + r.w || y >= r.y + r.h) return false;
      return r.data[((y - r.y) * r.w + (x - r.x)) * 4 + 3]! > 0;
    }
  }
}

/** Of `ids` (bottom → top), the topmost layer showing a pixel at (x, y), searching into groups. */
function topmostAt(state: DocState, ids: readonly number[], x: number, y: number): number | null {
  for (let i = ids.length - 1; i >= 0; i--) {
    const layer = state.layers.get(ids[i]!);
    if (!layer?.visible) continue;
    if (layer.kind === 'group') {
      if (maskAt(layer.mask, x, y) === 0) continue;
      const inside = topmostAt(state, layer.children, x, y);
      if (inside !== null) return inside;
      continue;
    }
    if (!covers(layer, x, y)) continue;
    if (!layer.clipped) return layer.id;
    // Clipped: it shows only where its base (the nearest unclipped layer below it) has pixels.
    let b = i - 1;
    while (b >= 0 && state.layers.get(ids[b]!)?.clipped) b--;
    const base = b >= 0 ? state.layers.get(ids[b]!) : undefined;
    const baseShows =
      base?.kind === 'group'
        ? base.visible && maskAt(base.mask, x, y) > 0 && topmostAt(state, base.children, x, y) !== null
        : base !== undefined && covers(base, x, y);
    if (baseShows) return layer.id;
  }
  return null;
}

/**
 * The id of the layer of open document `name` a click at document pixel (x, y) selects, or null when none has
 * a pixel there (or the point is off the canvas). Throws the editor's `not_found` for a document not open.
 */
export function layerAt(session: Session, name: string, x: number, y: number): Promise<number | null> {
  return session.inspectSettled('documents', (tx) => {
    const { state } = tx.document(name);
    const px = Math.floor(x);
    const py = Math.floor(y);
    if (px < 0 || py < 0 || px >= state.width || py >= state.height) return null;
    return topmostAt(state, state.root, px, py);
  });
}
