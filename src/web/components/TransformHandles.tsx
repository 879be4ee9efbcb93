/**
 * Photoshop's transform controls on the one selected layer (the Move tool's "Show Transform Controls"): eight
 * handles on its box. Dragging a corner scales it keeping its proportions (Shift frees them, as in Photoshop
 * since 2019), the opposite corner staying where it is; a side handle stretches one way, the opposite side
 * staying. The box and the layer's picture follow the pointer; on release the layer is scaled by that much about
 * that reference point (scale_layer_from, one history step). Esc puts it back and sends nothing.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** A handle: where it sits on the box (fractions), and the reference point across from it that stays. */
interface Handle {
  readonly id: string;
  readonly fx: 0 | 0.5 | 1;
  readonly fy: 0 | 0.5 | 1;
  readonly anchor: string;
  readonly cursor: string;
}

const HANDLES: readonly Handle[] = [
  { id: 'top_left', fx: 0, fy: 0, anchor: 'bottom_right', cursor: 'nwse-resize' },
  { id: 'top', fx: 0.5, fy: 0, anchor: 'bottom', cursor: 'ns-resize' },
  { id: 'top_right', fx: 1, fy: 0, anchor: 'bottom_left', cursor: 'nesw-resize' },
  { id: 'right', fx: 1, fy: 0.5, anchor: 'left', cursor: 'ew-resize' },
  { id: 'bottom_right', fx: 1, fy: 1, anchor: 'top_left', cursor: 'nwse-resize' },
  { id: 'bottom', fx: 0.5, fy: 1, anchor: 'top', cursor: 'ns-resize' },
  { id: 'bottom_left', fx: 0, fy: 1, anchor: 'top_right', cursor: 'nesw-resize' },
  { id: 'left', fx: 0, fy: 0.5, anchor: 'right', cursor: 'ew-resize' },
];

/** How long a scaled box may wait for the canvas's new picture before it goes back anyway (ms). */
const SETTLE_MAX_MS = 2000;

/** The smallest a drag may make the box, document px (no flip through the reference point). */
const MIN_SIDE = 1;

/**
 * The box `box` becomes when `handle` is dragged to document point `at`: the reference point across from it
 * fixed; a corner keeps the box's proportions unless `free`.
 */
export function scaledBox(box: Box, handle: Handle, at: { x: number; y: number }, free: boolean): Box {
  const ax = box.x + box.w * (1 - handle.fx);
  const ay = box.y + box.h * (1 - handle.fy);
  let w = box.w;
  let h = box.h;
  if (handle.fx !== 0.5) w = Math.max(MIN_SIDE, handle.fx === 1 ? at.x - ax : ax - at.x);
  if (handle.fy !== 0.5) h = Math.max(MIN_SIDE, handle.fy === 1 ? at.y - ay : ay - at.y);
  const corner = handle.fx !== 0.5 && handle.fy !== 0.5;
  if (corner && !free) {
    // The larger change decides, as Photoshop's proportional corner drag.
    const k = Math.max(w / box.w, h / box.h);
    w = Math.max(MIN_SIDE, box.w * k);
    h = Math.max(MIN_SIDE, box.h * k);
  }
  const x = handle.fx === 0.5 ? box.x : handle.fx === 1 ? ax : ax - w;
  const y = handle.fy === 0.5 ? box.y : handle.fy === 1 ? ay : ay - h;
  return { x, y, w, h };
}

/** Percent to three decimals: what the box's change asks for, without float noise in the call. */
const percent = (to: number, from: number) => Math.round((to / from) * 100000) / 1000;

interface Drag {
  readonly pointerId: number;
  readonly handle: Handle;
  moved: boolean;
}

export function TransformHandles({
  box,
  layer,
  zoom,
  picture,
  docSize,
  pictureKey,
}: {
  box: Box;
  layer: LayerNode;
  zoom: number;
  picture: string | null;
  docSize: { w: number; h: number };
  pictureKey: string | undefined;
}) {
  const { studio, t } = useStudioView();
  const drag = useRef<Drag | null>(null);
  const [shown, setShown] = useState<Box | null>(null);
  const settling = useRef(false);
  useEffect(() => {
    if (!settling.current) return;
    settling.current = false;
    setShown(null);
  }, [pictureKey]);
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !drag.current) return;
      e.preventDefault();
      e.stopPropagation();
      drag.current = null;
      setShown(null);
    };
    window.addEventListener('keydown', key, true);
    return () => window.removeEventListener('keydown', key, true);
  }, []);

  const pointAt = (e: PointerEvent) => {
    const board = (e.currentTarget as Element).closest('.artboard')?.getBoundingClientRect();
    if (!board || board.width === 0) return null;
    return {
      x: ((e.clientX - board.left) / board.width) * docSize.w,
      y: ((e.clientY - board.top) / board.height) * docSize.h,
    };
  };

  const finish = (e: PointerEvent, cancelled: boolean) => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    e.stopPropagation();
    drag.current = null;
    const at = pointAt(e);
    if (cancelled || !d.moved || !at) {
      setShown(null);
      return;
    }
    const to = scaledBox(box, d.handle, at, e.shiftKey);
    const sx = percent(to.w, box.w);
    const sy = percent(to.h, box.h);
    if (sx === 100 && sy === 100) {
      setShown(null);
      return;
    }
    setShown(to);
    const args = { name: refOf(layer), scale_x: sx, scale_y: sy, anchor: d.handle.anchor };
    void studio.run([{ name: PANE_TOOLS.scaleFrom, arguments: args }]).then((ok) => {
      if (!ok) {
        setShown(null);
        return;
      }
      settling.current = true;
      setTimeout(() => {
        if (!settling.current) return;
        settling.current = false;
        setShown(null);
      }, SETTLE_MAX_MS);
    });
  };

  const view = shown ?? box;
  const place = {
    left: `${view.x * zoom}px`,
    top: `${view.y * zoom}px`,
    width: `${view.w * zoom}px`,
    height: `${view.h * zoom}px`,
  };
  return (
    <>
      {shown && picture && (
        // The layer's part of the picture, stretched into the new box, faded, until the canvas shows it scaled.
        <span class="move-ghost" aria-hidden="true" style={place}>
          <img
            src={picture}
            alt=""
            draggable={false}
            style={{
              left: `${(-box.x * view.w * zoom) / box.w}px`,
              top: `${(-box.y * view.h * zoom) / box.h}px`,
              width: `${(docSize.w * view.w * zoom) / box.w}px`,
              height: `${(docSize.h * view.h * zoom) / box.h}px`,
            }}
          />
        </span>
      )}
      <span class={`transform-box${shown ? ' scaling' : ''}`} style={place}>
        {HANDLES.map((h) => (
          <span
            key={h.id}
            class="transform-handle"
            data-handle={h.id}
            role="presentation"
            title={t('canvas.scaleHandle')}
            style={{ left: `${h.fx * 100}%`, top: `${h.fy * 100}%`, cursor: h.cursor }}
            onPointerDown={(e) => {
              if (e.button !== 0) return;
              e.stopPropagation();
              e.preventDefault();
              (e.currentTarget as Element).setPointerCapture(e.pointerId);
              settling.current = false;
              drag.current = { pointerId: e.pointerId, handle: h, moved: false };
            }}
            onPointerMove={(e) => {
              const d = drag.current;
              if (!d || d.pointerId !== e.pointerId) return;
              e.stopPropagation();
              const at = pointAt(e);
              if (!at) return;
              d.moved = true;
              setShown(scaledBox(box, d.handle, at, e.shiftKey));
            }}
            onPointerUp={(e) => finish(e, false)}
            onPointerCancel={(e) => finish(e, true)}
          />
        ))}
      </span>
    </>
  );
}
