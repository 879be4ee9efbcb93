/**
 * Photoshop's Rectangular Marquee on the canvas: with the marquee tool chosen (M; V goes back to moving), a drag
 * draws a rectangle and on release the rectangle, in whole document pixels and cut to the canvas, becomes the
 * selection (select_rect, one history step). As in Photoshop, Shift held when the drag starts adds to the
 * selection, Alt subtracts from it, both intersect; Shift pressed once the drag has started keeps it square. A
 * plain click without a drag deselects, as a click outside a selection does in Photoshop. Esc while dragging cancels and sends nothing. The rectangle stays
 * drawn until the canvas's selection is the one asked for, so the ants do not blink while the call is on its way.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActiveDocument } from '../api/types.js';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

/** A rectangle in document pixels. */
export interface DocRect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

type Mode = 'replace' | 'add' | 'subtract' | 'intersect';

/** The selection mode the modifier keys held at a drag's start ask for. */
function modeOf(e: PointerEvent): Mode {
  if (e.shiftKey && e.altKey) return 'intersect';
  if (e.shiftKey) return 'add';
  return e.altKey ? 'subtract' : 'replace';
}

interface Drag {
  readonly pointerId: number;
  readonly mode: Mode;
  readonly from: { readonly x: number; readonly y: number };
  readonly screen: { readonly x: number; readonly y: number };
  moved: boolean;
}

/** How long a released rectangle may wait for the selection to arrive before it goes anyway (ms). */
const SETTLE_MAX_MS = 2000;

/** The rectangle from `a` to `b` (document px), square on its larger side with `square`, rounded and cut to the canvas. */
export function marqueeRect(
  a: { x: number; y: number },
  b: { x: number; y: number },
  square: boolean,
  width: number,
  height: number,
): DocRect {
  let dx = b.x - a.x;
  let dy = b.y - a.y;
  if (square) {
    const side = Math.max(Math.abs(dx), Math.abs(dy));
    dx = Math.sign(dx || 1) * side;
    dy = Math.sign(dy || 1) * side;
  }
  const x0 = Math.max(0, Math.round(Math.min(a.x, a.x + dx)));
  const y0 = Math.max(0, Math.round(Math.min(a.y, a.y + dy)));
  const x1 = Math.min(width, Math.round(Math.max(a.x, a.x + dx)));
  const y1 = Math.min(height, Math.round(Math.max(a.y, a.y + dy)));
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

/** Shift keeps the rectangle square, unless it was held from the start to add to the selection. */
const square = (d: Drag, e: PointerEvent) => e.shiftKey && d.mode !== 'add' && d.mode !== 'intersect';

export function useMarquee(slop: number, doc: ActiveDocument | null) {
  const { studio } = useStudioView();
  const drag = useRef<Drag | null>(null);
  const [rect, setRect] = useState<DocRect | null>(null);
  const lastMode = useRef<Mode>('replace');
  // Sent and waiting for the selection to change: the drawn rectangle is dropped when it does.
  const settling = useRef<number | null>(null);
  const outline = doc?.selection?.outline ?? '';
  useEffect(() => {
    if (settling.current === null) return;
    window.clearTimeout(settling.current);
    settling.current = null;
    setRect(null);
  }, [outline]);
  useEffect(
    () => () => {
      if (settling.current !== null) window.clearTimeout(settling.current);
    },
    [],
  );

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

  /** A press at document point `at`: the marquee starts there. */
  const press = (e: PointerEvent, at: { x: number; y: number }) => {
    if (settling.current !== null) {
      window.clearTimeout(settling.current);
      settling.current = null;
    }
    drag.current = {
      pointerId: e.pointerId,
      mode: modeOf(e),
      from: at,
      screen: { x: e.clientX, y: e.clientY },
      moved: false,
    };
    setRect(null);
  };

  /** The pointer at document point `at`; true while a marquee is being drawn (the view must not pan). */
  const move = (e: PointerEvent, at: { x: number; y: number }): boolean => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId || !doc) return false;
    if (!d.moved && Math.hypot(e.clientX - d.screen.x, e.clientY - d.screen.y) <= slop) return true;
    d.moved = true;
    setRect(marqueeRect(d.from, at, square(d, e), doc.width, doc.height));
    return true;
  };

  /** Lifted (or taken by the browser with `cancel`): the rectangle selected, or a click deselecting. */
  const release = (e: PointerEvent, at: { x: number; y: number }, cancel = false): boolean => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return false;
    drag.current = null;
    lastMode.current = d.mode;
    if (cancel || !doc) {
      setRect(null);
      return true;
    }
    const r = d.moved ? marqueeRect(d.from, at, square(d, e), doc.width, doc.height) : null;
    if (!r || r.w < 1 || r.h < 1) {
      setRect(null);
      if (doc.has_selection && d.mode === 'replace')
        void studio.run([{ name: PANE_TOOLS.deselect, arguments: {} }]);
      return true;
    }
    setRect(r);
    settling.current = window.setTimeout(() => {
      settling.current = null;
      setRect(null);
    }, SETTLE_MAX_MS);
    const args = {
      left: r.x,
      top: r.y,
      right: r.x + r.w,
      bottom: r.y + r.h,
      ...(d.mode !== 'replace' ? { mode: d.mode } : {}),
    };
    void studio.run([{ name: PANE_TOOLS.selectRect, arguments: args }]).then((ok) => {
      if (ok) return;
      if (settling.current !== null) window.clearTimeout(settling.current);
      settling.current = null;
      setRect(null);
    });
    return true;
  };

  // The last drag's mode: while its rectangle is shown, whether it stands for the whole selection (replace) or
  // is drawn beside the selection there is (add, subtract, intersect).
  const replacing = (drag.current?.mode ?? lastMode.current) === 'replace';
  return { rect, replacing, press, move, release };
}
