/**
 * Where a layer dragged in the layers pane lands, as in Photoshop's Layers panel: on the upper or lower half of a
 * row, above or below that layer (in its group); on the middle of a group's row, into the group at its top. The
 * answer is the `position` and `reference` of the arrange tool, or null where the drop would change nothing or
 * cannot be (a group into itself, anything below the background).
 */
import type { LayerNode } from '../api/types.js';

export type DropPosition = 'above' | 'below' | 'inside';

export interface Drop {
  readonly position: DropPosition;
  /** The layer the position is relative to. */
  readonly target: LayerNode;
}

interface Place {
  readonly layer: LayerNode;
  /** Its siblings, top → bottom, itself included. */
  readonly siblings: readonly LayerNode[];
}

function places(layers: readonly LayerNode[], into = new Map<number, Place>()): Map<number, Place> {
  for (const layer of layers) {
    into.set(layer.id, { layer, siblings: layers });
    if (layer.children) places(layer.children, into);
  }
  return into;
}

function contains(layer: LayerNode, id: number): boolean {
  return layer.id === id || (layer.children ?? []).some((c) => contains(c, id));
}

/** The part of a row the pointer is over, as a fraction of its height from the top, decides the drop. */
export function dropAt(
  layers: readonly LayerNode[],
  draggedId: number,
  targetId: number,
  fraction: number,
  expanded: (group: LayerNode) => boolean,
): Drop | null {
  const all = places(layers);
  const dragged = all.get(draggedId);
  const target = all.get(targetId);
  if (!dragged || !target || dragged.layer.background || contains(dragged.layer, targetId)) return null;
  const t = target.layer;
  let position: DropPosition;
  if (t.children) {
    // A group's row: its upper quarter is above it; its lower quarter below it, unless its open list of layers
    // starts right under it (then that gap is the group's top); the rest is into it.
    if (fraction < 0.25) position = 'above';
    else if (fraction > 0.75 && !(expanded(t) && t.children.length > 0)) position = 'below';
    else position = 'inside';
  } else {
    position = fraction < 0.5 ? 'above' : 'below';
  }
  if (position === 'below' && t.background) position = 'above';
  // Where it already is: nothing to do.
  if (position === 'inside') return t.children?.[0]?.id === draggedId ? null : { position, target: t };
  if (target.siblings === dragged.siblings) {
    const d = dragged.siblings.indexOf(dragged.layer);
    const i = target.siblings.indexOf(t);
    if ((position === 'below' && i === d - 1) || (position === 'above' && i === d + 1)) return null;
  }
  return { position, target: t };
}
