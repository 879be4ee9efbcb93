/**
 * Photoshop's Rectangular Marquee on the canvas: with the marquee tool chosen (M; V goes back to moving), a drag
 * draws a rectangle and on release the rectangle, in whole document pixels and cut to the canvas, becomes the
 * selection (select_rect, one history step). As in Photoshop, Shift held when the drag starts adds to the
 * selection, Alt subtracts from it, both intersect; Shift pressed once the drag has started keeps it square. A
 * plain click without a drag deselects, as a click outside a selection does in Photoshop. Esc while dragging
 * cancels and sends nothing. The rectangle stays drawn until the canvas's selection is the one asked for, so the
 * ants do not blink while the call is on its way.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { ActiveDocument } from '../api/types.js';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { type StartKeys, useRectDrag } from './useRectDrag.js';

type Mode = 'replace' | 'add' | 'subtract' | 'intersect';

/** The selection mode the modifier keys held at a drag's start ask for. */
function modeOf(keys: StartKeys): Mode {
  if (keys.shift && keys.alt) return 'intersect';
  if (keys.shift) return 'add';
  return keys.alt ? 'subtract' : 'replace';
}

/** How long a released rectangle may wait for the selection to arrive before it goes anyway (ms). */
const SETTLE_MAX_MS = 2000;

export function useMarquee(slop: number, doc: ActiveDocument | null) {
  const { studio } = useStudioView();
  const drawn = useRectDrag(slop, doc);
  const lastMode = useRef<Mode>('replace');
  // Sent and waiting for the selection to change: the drawn rectangle is dropped when it does.
  const settling = useRef<number | null>(null);
  const outline = doc?.selection?.outline ?? '';
  const stopSettling = () => {
    if (settling.current !== null) window.clearTimeout(settling.current);
    settling.current = null;
  };
  useEffect(() => {
    if (settling.current === null) return;
    stopSettling();
    drawn.setRect(null);
  }, [outline]);
  useEffect(() => stopSettling, []);

  /** Lifted (or taken by the browser with `cancel`): the rectangle selected, or a click deselecting. */
  const release = (e: PointerEvent, at: { x: number; y: number }, cancel = false): boolean => {
    const end = drawn.release(e, at, cancel);
    if (!end) return false;
    const mode = modeOf(end.keys);
    lastMode.current = mode;
    const r = end.rect;
    if (end.cancelled || !doc || !r) {
      drawn.setRect(null);
      if (!end.cancelled && doc?.has_selection && mode === 'replace')
        void studio.run([{ name: PANE_TOOLS.deselect, arguments: {} }]);
      return true;
    }
    drawn.setRect(r);
    settling.current = window.setTimeout(() => {
      settling.current = null;
      drawn.setRect(null);
    }, SETTLE_MAX_MS);
    const args = {
      left: r.x,
      top: r.y,
      right: r.x + r.w,
      bottom: r.y + r.h,
      ...(mode !== 'replace' ? { mode } : {}),
    };
    void studio.run([{ name: PANE_TOOLS.selectRect, arguments: args }]).then((ok) => {
      if (ok) return;
      stopSettling();
      drawn.setRect(null);
    });
    return true;
  };

  // The drag's mode: while its rectangle is shown, whether it stands for the whole selection (replace) or is
  // drawn beside the selection there is (add, subtract, intersect).
  const keys = drawn.keys();
  const replacing = (keys ? modeOf(keys) : lastMode.current) === 'replace';
  return {
    rect: drawn.rect,
    replacing,
    press: (e: PointerEvent, at: { x: number; y: number }) => {
      stopSettling();
      drawn.press(e, at);
    },
    move: drawn.move,
    release,
  };
}
