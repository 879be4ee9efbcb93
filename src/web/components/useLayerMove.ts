/**
 * Moving the selected layers by dragging them on the canvas, as Photoshop's Move tool and any design app do: a
 * press inside a selected layer's box (not the background, not a locked layer) that moves past the click slop
 * drags every selected layer that can move; the boxes follow the pointer (with the part of the picture they hold,
 * faded), in whole document pixels, and on release they are moved together, one history step (move_layers, or
 * move_layer for one). Elsewhere a drag pans, as before; a touch always pans (one finger is how a phone moves about
 * the canvas), and so does the hand (space). The arrow keys nudge the selected layers by a pixel (ten with Shift),
 * as Photoshop's Move tool does; presses made while a nudge is being sent are added up and sent next, not dropped.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActiveDocument, LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { layerWithId, refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import type { ToolRun } from '../state/use-studio.js';

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

/** The selected layers a drag or a nudge moves: not the background, not a locked layer. */
function movableSelection(doc: ActiveDocument): LayerNode[] {
  return doc.selected_layer_ids.map((id) => layerWithId(doc.layers, id)).filter(movable);
}

/** One call, one history step: several layers move together with move_layers, one with move_layer. */
export function moveCall(layers: readonly LayerNode[], dx: number, dy: number): ToolRun {
  if (layers.length === 1) return { name: PANE_TOOLS.move, arguments: { name: refOf(layers[0]!), dx, dy } };
  return { name: PANE_TOOLS.moveMany, arguments: { layer_names: layers.map(refOf), dx, dy } };
}

/** Arrow-key nudges added up while the one before is sent, for the same layers. */
interface Nudges {
  readonly key: string;
  readonly layers: readonly LayerNode[];
  dx: number;
  dy: number;
  sending: boolean;
}

/** How long a moved box may wait for the canvas's new picture before it goes back anyway (ms). */
const SETTLE_MAX_MS = 2000;

export function useLayerMove(slop: number, pictureKey: string | undefined) {
  const { studio } = useStudioView();
  const grab = useRef<Grab | null>(null);
  const [offset, setOffset] = useState<MoveOffset | null>(null);
  // Set once the moves were sent and succeeded: the offset is dropped when the next picture comes.
  const settling = useRef(false);
  const nudges = useRef<Nudges | null>(null);
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

  const sendNudges = (n: Nudges) => {
    const { dx, dy } = n;
    n.dx = 0;
    n.dy = 0;
    n.sending = true;
    void studio.run([moveCall(n.layers, dx, dy)]).then((ok) => {
      n.sending = false;
      // A refused nudge (a layer locked meanwhile) drops the presses made after it too: they would be refused.
      if (!ok || nudges.current !== n) {
        if (nudges.current === n) nudges.current = null;
        return;
      }
      if (n.dx !== 0 || n.dy !== 0) sendNudges(n);
      else nudges.current = null;
    });
  };

  return {
    offset,
    /**
     * An arrow key's nudge of the selected layers by (dx, dy) document pixels; false when no selected layer can
     * move (the background, locked layers, nothing selected), so that the key pans instead.
     */
    nudge(doc: ActiveDocument, dx: number, dy: number): boolean {
      if (grab.current?.moved) return true;
      const layers = movableSelection(doc);
      if (layers.length === 0) return false;
      const key = `${doc.name}\n${layers.map((l) => l.id).join(',')}`;
      const n = nudges.current?.key === key ? nudges.current : null;
      if (n) {
        n.dx += dx;
        n.dy += dy;
        if (!n.sending) sendNudges(n);
        return true;
      }
      const fresh: Nudges = { key, layers, dx, dy, sending: false };
      nudges.current = fresh;
      sendNudges(fresh);
      return true;
    },
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
      const layers = movableSelection(doc);
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
      void studio.run([moveCall(g.layers, dx, dy)]).then((ok) => {
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
