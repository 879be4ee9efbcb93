/**
 * A rectangle drawn on the canvas by a drag, in whole document pixels cut to the canvas, as Photoshop's marquee
 * and crop tools draw theirs: the modifier keys held when it starts are kept (the marquee's add, subtract,
 * intersect), Shift pressed once it has started keeps it square, Esc while dragging drops it. What the rectangle
 * is for is the caller's (useMarquee, useCrop).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActiveDocument } from '../api/types.js';

/** A rectangle in document pixels. */
export interface DocRect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** The modifier keys held when a drag started. */
export interface StartKeys {
  readonly shift: boolean;
  readonly alt: boolean;
}

interface Drag {
  readonly pointerId: number;
  readonly keys: StartKeys;
  readonly from: { readonly x: number; readonly y: number };
  readonly screen: { readonly x: number; readonly y: number };
  moved: boolean;
}

/** How a drag ended: its rectangle (null for a click or a rectangle under a pixel) and the keys it started with. */
export interface DragEnd {
  readonly rect: DocRect | null;
  readonly keys: StartKeys;
  readonly cancelled: boolean;
}

/**
 * The rectangle from `a` to `b` (document px), square on its larger side with `square`, rounded and cut to the
 * canvas, or not cut with `clip` false (an ellipse's box: the server cuts the ellipse, not its box).
 */
export function marqueeRect(
  a: { x: number; y: number },
  b: { x: number; y: number },
  square: boolean,
  width: number,
  height: number,
  clip = true,
): DocRect {
  let dx = b.x - a.x;
  let dy = b.y - a.y;
  if (square) {
    const side = Math.max(Math.abs(dx), Math.abs(dy));
    dx = Math.sign(dx || 1) * side;
    dy = Math.sign(dy || 1) * side;
  }
  const lo = (v: number) => (clip ? Math.max(0, v) : v);
  const x0 = lo(Math.round(Math.min(a.x, a.x + dx)));
  const y0 = lo(Math.round(Math.min(a.y, a.y + dy)));
  const x1 = Math.min(clip ? width : Number.POSITIVE_INFINITY, Math.round(Math.max(a.x, a.x + dx)));
  const y1 = Math.min(clip ? height : Number.POSITIVE_INFINITY, Math.round(Math.max(a.y, a.y + dy)));
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

/** Shift keeps the rectangle square, unless it was held from the start (where it means something else). */
const square = (d: Drag, e: PointerEvent) => e.shiftKey && !d.keys.shift;

export function useRectDrag(slop: number, doc: ActiveDocument | null, clip = true) {
  const drag = useRef<Drag | null>(null);
  const [rect, setRect] = useState<DocRect | null>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !drag.current) return;
      e.preventDefault();
      drag.current = null;
      setRect(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return {
    rect,
    setRect,
    /** The keys the drag under way started with, null when none is. */
    keys: (): StartKeys | null => drag.current?.keys ?? null,
    /** A press at document point `at`: a rectangle starts there. */
    press(e: PointerEvent, at: { x: number; y: number }) {
      drag.current = {
        pointerId: e.pointerId,
        keys: { shift: e.shiftKey, alt: e.altKey },
        from: at,
        screen: { x: e.clientX, y: e.clientY },
        moved: false,
      };
      setRect(null);
    },
    /** The pointer at document point `at`; true while a rectangle is being drawn (the view must not pan). */
    move(e: PointerEvent, at: { x: number; y: number }): boolean {
      const d = drag.current;
      if (!d || d.pointerId !== e.pointerId || !doc) return false;
      if (!d.moved && Math.hypot(e.clientX - d.screen.x, e.clientY - d.screen.y) <= slop) return true;
      d.moved = true;
      setRect(marqueeRect(d.from, at, square(d, e), doc.width, doc.height, clip));
      return true;
    },
    /** Lifted (or taken by the browser with `cancel`); null when no drag of this pointer was under way. */
    release(e: PointerEvent, at: { x: number; y: number }, cancel = false): DragEnd | null {
      const d = drag.current;
      if (!d || d.pointerId !== e.pointerId) return null;
      drag.current = null;
      const r =
        d.moved && doc && !cancel ? marqueeRect(d.from, at, square(d, e), doc.width, doc.height, clip) : null;
      return { rect: r && r.w >= 1 && r.h >= 1 ? r : null, keys: d.keys, cancelled: cancel || !doc };
    },
  };
}
