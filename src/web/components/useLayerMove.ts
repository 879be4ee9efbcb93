/**
 * Moving the selected layers by dragging them on the canvas, as Photoshop's Move tool and any design app do: a
 * press inside a selected layer's box (not the background, not a locked layer) that moves past the click slop
 * drags every selected layer that can move; the boxes follow the pointer (with the part of the picture they hold,
 * faded), in whole document pixels, and on release each layer is moved by move_layer. Elsewhere a drag pans, as
 * before; a touch always pans (one finger is how a phone moves about the canvas), and so does the hand (space).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActiveDocument, LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { layerWithId, refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

export interface Box {
  readonly id: number;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** The moved layers and by how much (document px), while dragged and until the canvas shows them moved. */
export interface MoveOffset {
  readonly ids: ReadonlySet<number>;
  readonly dx: number;
  readonly dy: number;
}

interface Grab {
  readonly pointerId: number;
  readonly x: number;
  readonly y: number;
  readonly zoom: number;
  readonly layers: readonly LayerNode[];
  moved: boolean;
}

const movable = (layer: LayerNode | undefined): layer is LayerNode =>
  layer !== undefined && !layer.locked && layer.background !== true;

/** How long a moved box may wait for the canvas's new picture before it goes back anyway (ms). */
const SETTLE_MAX_MS = 2000;

export function useLayerMove(slop: number, pictureKey: string | undefined) {
  const { studio } = useStudioView();
  const grab = useRef<Grab | null>(null);
  const [offset, setOffset] = useState<MoveOffset | null>(null);
  // Set once the moves were sent and succeeded: the offset is dropped when the next picture comes.
  const settling = useRef(false);
  useEffect(() => {
    if (!settling.current) return;
    settling.current = false;
    setOffset(null);
  }, [pictureKey]);

  // Esc while dragging puts the layers back where they were; nothing is sent.
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !grab.current?.moved) return;
      e.preventDefault();
      e.stopPropagation();
      grab.current = null;
      setOffset(null);
    };
    window.addEventListener('keydown', key, true);
    return () => window.removeEventListener('keydown', key, true);
  }, []);

  return {
    offset,
    /**
     * A press at document point (x, y) inside one of `boxes` (the selected layers' outlines) grabs every selected
     * layer that can move; true when it did (the press then pans nothing).
     */
    press(
      e: PointerEvent,
      doc: ActiveDocument,
      boxes: readonly Box[],
      at: { x: number; y: number },
      zoom: number,
    ) {
      grab.current = null;
      if (e.button !== 0 || e.pointerType === 'touch') return false;
      const inside = boxes.some(
        (b) =>
          at.x >= b.x &&
          at.x < b.x + b.w &&
          at.y >= b.y &&
          at.y < b.y + b.h &&
          movable(layerWithId(doc.layers, b.id)),
      );
      if (!inside) return false;
      const layers = doc.selected_layer_ids.map((id) => layerWithId(doc.layers, id)).filter(movable);
      grab.current = { pointerId: e.pointerId, x: e.clientX, y: e.clientY, zoom, layers, moved: false };
      return true;
    },
    /** True when this pointer is dragging layers (the view does not pan). */
    drag(e: PointerEvent): boolean {
      const g = grab.current;
      if (!g || g.pointerId !== e.pointerId) return false;
      if (!g.moved && Math.hypot(e.clientX - g.x, e.clientY - g.y) <= slop) return true;
      g.moved = true;
      settling.current = false;
      setOffset({
        ids: new Set(g.layers.map((l) => l.id)),
        dx: Math.round((e.clientX - g.x) / g.zoom),
        dy: Math.round((e.clientY - g.y) / g.zoom),
      });
      return true;
    },
    /** Ends the drag; true when it was one (the release is then no click). */
    release(e: PointerEvent, cancelled = false): boolean {
      const g = grab.current;
      if (!g || g.pointerId !== e.pointerId) return false;
      grab.current = null;
      if (!g.moved) return false;
      const dx = Math.round((e.clientX - g.x) / g.zoom);
      const dy = Math.round((e.clientY - g.y) / g.zoom);
      if (cancelled || (dx === 0 && dy === 0)) {
        setOffset(null);
        return true;
      }
      setOffset({ ids: new Set(g.layers.map((l) => l.id)), dx, dy });
      void studio
        .run(g.layers.map((l) => ({ name: PANE_TOOLS.move, arguments: { name: refOf(l), dx, dy } })))
        .then((ok) => {
          if (!ok) {
            setOffset(null);
            return;
          }
          settling.current = true;
          setTimeout(() => {
            if (!settling.current) return;
            settling.current = false;
            setOffset(null);
          }, SETTLE_MAX_MS);
        });
      return true;
    },
  };
}
