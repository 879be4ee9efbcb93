/**
 * Photoshop's Rectangular and Elliptical Marquee on the canvas: with the marquee tool chosen (M; Shift+M changes
 * the shape, V goes back to moving), a drag draws a rectangle or the ellipse inside it, and on release it becomes
 * the selection (select_rect or select_ellipse, one history step), in whole document pixels; a rectangle is cut to
 * the canvas, an ellipse is cut by the server so that its curve stays where it was drawn. As in Photoshop, Shift
 * held when the drag starts adds to the selection, Alt subtracts from it, both intersect (with neither, the
 * options bar's mode); Shift pressed once the drag has started keeps it square (a circle). A plain click without a
 * drag deselects, as a click outside a selection does in Photoshop. Esc while dragging cancels and sends nothing.
 * The shape stays drawn until the canvas's selection is the one asked for.
 */
import { useRef } from 'preact/hooks';
import type { ActiveDocument } from '../api/types.js';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import {
  type MarqueeShape,
  modeArgument,
  modeOf,
  type SelectionMode,
  useSettling,
} from './selection-options.js';
import { type DocRect, useRectDrag } from './useRectDrag.js';

/** The path of a rectangle (document px). */
export function rectPath(r: DocRect): string {
  return `M${r.x} ${r.y}H${r.x + r.w}V${r.y + r.h}H${r.x}Z`;
}

/** The path of the ellipse inside a rectangle (document px), as two half arcs. */
export function ellipsePath(r: DocRect): string {
  const rx = r.w / 2;
  const ry = r.h / 2;
  const cy = r.y + ry;
  return `M${r.x} ${cy}A${rx} ${ry} 0 1 0 ${r.x + r.w} ${cy}A${rx} ${ry} 0 1 0 ${r.x} ${cy}Z`;
}

export function useMarquee(
  slop: number,
  doc: ActiveDocument | null,
  shape: MarqueeShape,
  base: SelectionMode,
) {
  const { studio } = useStudioView();
  const drawn = useRectDrag(slop, doc, shape === 'rect');
  // The shape of the drag shown or last sent (the options bar may change while one waits for its selection).
  const sentShape = useRef<MarqueeShape>(shape);
  const lastMode = useRef<SelectionMode>('replace');
  const settling = useSettling(doc?.selection?.outline ?? '', () => drawn.setRect(null));

  /** Lifted (or taken by the browser with `cancel`): the shape selected, or a click deselecting. */
  const release = (e: PointerEvent, at: { x: number; y: number }, cancel = false): boolean => {
    const end = drawn.release(e, at, cancel);
    if (!end) return false;
    const mode = modeOf(end.keys, base);
    lastMode.current = mode;
    const r = end.rect;
    if (end.cancelled || !doc || !r) {
      drawn.setRect(null);
      if (!end.cancelled && doc?.has_selection && mode === 'replace')
        void studio.run([{ name: PANE_TOOLS.deselect, arguments: {} }]);
      return true;
    }
    drawn.setRect(r);
    sentShape.current = shape;
    const edges = { left: r.x, top: r.y, right: r.x + r.w, bottom: r.y + r.h };
    const name = shape === 'ellipse' ? PANE_TOOLS.selectEllipse : PANE_TOOLS.selectRect;
    settling.send(studio, { name, arguments: { ...edges, ...modeArgument(mode) } });
    return true;
  };

  // The drag's mode: while its shape is shown, whether it stands for the whole selection (replace) or is drawn
  // beside the selection there is (add, subtract, intersect).
  const keys = drawn.keys();
  if (keys) sentShape.current = shape;
  const replacing = (keys ? modeOf(keys, base) : lastMode.current) === 'replace';
  const rect = drawn.rect;
  return {
    rect,
    /** The path of what is drawn (document px), null when nothing is. */
    path: rect ? (sentShape.current === 'ellipse' ? ellipsePath(rect) : rectPath(rect)) : null,
    replacing,
    press: (e: PointerEvent, at: { x: number; y: number }) => {
      settling.stop();
      drawn.press(e, at);
    },
    move: drawn.move,
    release,
  };
}
