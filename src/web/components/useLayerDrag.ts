/**
 * Dragging a row of the layers pane to restack its layer, as in Photoshop's Layers panel: press on a row and move
 * (a few pixels, so a click still selects and a double-click still renames), a line shows where it will land
 * (a frame for into a group), release to move it there; Esc or leaving the list cancels. Held near the list's ends
 * it scrolls, faster the nearer the edge, until the pointer leaves the band (as a file manager's list does: the
 * pointer need not move). Pointer events rather than HTML drag and drop: they need no drag image and work with a
 * pen.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { LayerNode } from '../api/types.js';
import { type Drop, dropAt } from '../state/layer-drop.js';

/** How far the pointer must move before a press becomes a drag (CSS px), as the browsers' own drag threshold. */
const DRAG_START_PX = 5;
/** The band at either end of the list that scrolls it while dragging, and the most it scrolls per frame. */
const EDGE_PX = 28;
const SCROLL_MAX_PX = 12;

/** How far to scroll the list this frame for a pointer at `y` (negative: up), 0 outside the edge bands. */
function edgeScroll(y: number, top: number, bottom: number): number {
  const depth = y < top + EDGE_PX ? top + EDGE_PX - y : y > bottom - EDGE_PX ? -(y - (bottom - EDGE_PX)) : 0;
  if (depth === 0) return 0;
  const speed = Math.max(1, Math.round((Math.min(EDGE_PX, Math.abs(depth)) / EDGE_PX) * SCROLL_MAX_PX));
  return depth > 0 ? -speed : speed;
}

interface Press {
  readonly layer: LayerNode;
  readonly pointerId: number;
  readonly x: number;
  readonly y: number;
  started: boolean;
}

export interface LayerDrag {
  /** The layer being dragged and where it would land now (null: nowhere, the drop would change nothing). */
  readonly dragging: { readonly id: number; readonly drop: Drop | null } | null;
  readonly listRef: { current: HTMLUListElement | null };
  /** For a row's pointerdown. */
  press(e: PointerEvent, layer: LayerNode): void;
  /** For the list's click capture: swallows the click that ends a drag. */
  swallowClick(e: MouseEvent): void;
}

export function useLayerDrag(
  layers: readonly LayerNode[],
  expanded: (group: LayerNode) => boolean,
  onDrop: (layer: LayerNode, drop: Drop) => void,
): LayerDrag {
  const [dragging, setDragging] = useState<LayerDrag['dragging']>(null);
  const listRef = useRef<HTMLUListElement | null>(null);
  const pressRef = useRef<Press | null>(null);
  const dropRef = useRef<Drop | null>(null);
  const swallow = useRef(false);
  // The handlers below are installed once per drag; they read the newest tree and callbacks through this.
  const latest = useRef({ layers, expanded, onDrop });
  latest.current = { layers, expanded, onDrop };

  const end = () => {
    pressRef.current = null;
    dropRef.current = null;
    setDragging(null);
  };

  useEffect(() => {
    // The pointer's last place during a drag, and the frame that scrolls the list while it is held at an end.
    let at = { x: 0, y: 0 };
    let frame = 0;
    const locate = (p: Press) => {
      const list = listRef.current;
      let drop: Drop | null = null;
      if (list) {
        const row = document.elementFromPoint(at.x, at.y)?.closest<HTMLElement>('[data-layer-id]');
        if (row && list.contains(row)) {
          const r = row.getBoundingClientRect();
          const { layers: tree, expanded: open } = latest.current;
          drop = dropAt(tree, p.layer.id, Number(row.dataset.layerId), (at.y - r.top) / r.height, open);
        }
      }
      dropRef.current = drop;
      setDragging({ id: p.layer.id, drop });
    };
    const scroll = () => {
      frame = 0;
      const p = pressRef.current;
      const list = listRef.current;
      if (!p?.started || !list) return;
      const box = list.getBoundingClientRect();
      const step = edgeScroll(at.y, box.top, box.bottom);
      const before = list.scrollTop;
      if (step !== 0) list.scrollTop += step;
      if (list.scrollTop === before) return;
      // The rows moved under the pointer: where it would land changed too.
      locate(p);
      frame = requestAnimationFrame(scroll);
    };
    const move = (e: PointerEvent) => {
      const p = pressRef.current;
      if (!p || e.pointerId !== p.pointerId) return;
      if (!p.started && Math.hypot(e.clientX - p.x, e.clientY - p.y) < DRAG_START_PX) return;
      p.started = true;
      e.preventDefault();
      at = { x: e.clientX, y: e.clientY };
      locate(p);
      if (!frame) frame = requestAnimationFrame(scroll);
    };
    const up = (e: PointerEvent) => {
      const p = pressRef.current;
      if (!p || e.pointerId !== p.pointerId) return;
      const drop = dropRef.current;
      if (p.started) {
        swallow.current = true;
        // The click that follows this pointerup (same target) is swallowed; none follows one that ends elsewhere.
        setTimeout(() => {
          swallow.current = false;
        }, 0);
      }
      end();
      if (p.started && drop) latest.current.onDrop(p.layer, drop);
    };
    const cancel = (e: PointerEvent) => {
      if (pressRef.current?.pointerId === e.pointerId) end();
    };
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && pressRef.current?.started) {
        e.preventDefault();
        e.stopPropagation();
        end();
      }
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', cancel);
    window.addEventListener('keydown', key, true);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      window.removeEventListener('pointercancel', cancel);
      window.removeEventListener('keydown', key, true);
    };
  }, []);

  return {
    dragging,
    listRef,
    press(e, layer) {
      // The background stays at the bottom (Photoshop does not drag it either); only the main button drags.
      if (e.button !== 0 || layer.background) return;
      pressRef.current = { layer, pointerId: e.pointerId, x: e.clientX, y: e.clientY, started: false };
    },
    swallowClick(e) {
      if (!swallow.current) return;
      swallow.current = false;
      e.preventDefault();
      e.stopPropagation();
    },
  };
}
