/**
 * The eight handles of a box on the canvas, as Photoshop draws them on a transform or crop box, and what a drag of
 * one does to the box. Shared by the transform handles (TransformHandles) and the crop box (CropHandles).
 */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** A handle: where it sits on the box (fractions), and the reference point across from it that stays. */
export interface Handle {
  readonly id: string;
  readonly fx: 0 | 0.5 | 1;
  readonly fy: 0 | 0.5 | 1;
  readonly anchor: string;
  readonly cursor: string;
}

export const HANDLES: readonly Handle[] = [
  { id: 'top_left', fx: 0, fy: 0, anchor: 'bottom_right', cursor: 'nwse-resize' },
  { id: 'top', fx: 0.5, fy: 0, anchor: 'bottom', cursor: 'ns-resize' },
  { id: 'top_right', fx: 1, fy: 0, anchor: 'bottom_left', cursor: 'nesw-resize' },
  { id: 'right', fx: 1, fy: 0.5, anchor: 'left', cursor: 'ew-resize' },
  { id: 'bottom_right', fx: 1, fy: 1, anchor: 'top_left', cursor: 'nwse-resize' },
  { id: 'bottom', fx: 0.5, fy: 1, anchor: 'top', cursor: 'ns-resize' },
  { id: 'bottom_left', fx: 0, fy: 1, anchor: 'top_right', cursor: 'nesw-resize' },
  { id: 'left', fx: 0, fy: 0.5, anchor: 'right', cursor: 'ew-resize' },
];

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

/** Where a pointer is on the artboard holding `e`'s target, in document px; null before it is laid out. */
export function artboardPoint(e: PointerEvent, docSize: { w: number; h: number }) {
  const board = (e.currentTarget as Element).closest('.artboard')?.getBoundingClientRect();
  if (!board || board.width === 0) return null;
  return {
    x: ((e.clientX - board.left) / board.width) * docSize.w,
    y: ((e.clientY - board.top) / board.height) * docSize.h,
  };
}

interface PointerHandlers {
  onPointerMove(e: PointerEvent): void;
  onPointerUp(e: PointerEvent): void;
  onPointerCancel(e: PointerEvent): void;
}

/** The eight handles, inside a positioned box; `onPress` starts a handle's drag. */
export function BoxHandles({
  title,
  onPress,
  pointer,
}: {
  title: string;
  onPress: (e: PointerEvent, handle: Handle) => void;
  pointer: PointerHandlers;
}) {
  return (
    <>
      {HANDLES.map((h) => (
        <span
          key={h.id}
          class="transform-handle"
          data-handle={h.id}
          role="presentation"
          title={title}
          style={{ left: `${h.fx * 100}%`, top: `${h.fy * 100}%`, cursor: h.cursor }}
          onPointerDown={(e) => onPress(e, h)}
          {...pointer}
        />
      ))}
    </>
  );
}
