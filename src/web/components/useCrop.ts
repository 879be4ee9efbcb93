/**
 * Photoshop's Crop tool on the canvas (C): a drag draws the rectangle to keep (whole document pixels, cut to the
 * canvas; Shift pressed while dragging keeps it square), which stays with the rest of the canvas shaded until
 * Enter or the commit button crops to it (crop_document, one history step) or Esc, a click or another tool drops
 * it. A rectangle as large as the canvas crops nothing and is not sent.
 */
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import type { ActiveDocument } from '../api/types.js';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { editsText } from '../state/shortcuts.js';
import { type DocRect, useRectDrag } from './useRectDrag.js';

export function useCrop(slop: number, doc: ActiveDocument | null, active: boolean) {
  const { studio } = useStudioView();
  const drawn = useRectDrag(slop, doc);
  const docKey = doc ? `${doc.name}|${doc.width}|${doc.height}` : '';
  // Another document, another size (the crop done, an undo), another tool: the rectangle no longer applies.
  // Dropped as the change renders (as the lasso's edge is): a drag begun before the next paint must keep its own.
  useLayoutEffect(() => drawn.setRect(null), [docKey, active]);

  const commit = (r: DocRect | null = drawn.rect) => {
    drawn.setRect(null);
    if (!r || !doc || (r.x === 0 && r.y === 0 && r.w === doc.width && r.h === doc.height)) return;
    const args = { left: r.x, top: r.y, right: r.x + r.w, bottom: r.y + r.h };
    void studio.run([{ name: PANE_TOOLS.crop, arguments: args }]);
  };
  const latest = useRef(commit);
  latest.current = commit;
  const pending = drawn.rect !== null && drawn.keys() === null;
  // Read when a key comes, not bound when the rectangle appears: an effect runs after the paint that shows the
  // commit button, and Enter pressed in between would be lost.
  const pendingNow = useRef(pending);
  pendingNow.current = pending;

  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (!pendingNow.current) return;
      // Enter on a button, a link or a field is that control's (the crop's own Cancel button among them).
      const target = e.target as Element | null;
      if (editsText(target) || target?.closest('button, a, select, input, textarea')) return;
      if (e.key === 'Enter') {
        e.preventDefault();
        latest.current();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        drawn.setRect(null);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active]);

  return {
    rect: drawn.rect,
    /** A rectangle drawn and waiting for Enter (not one being dragged). */
    pending,
    press: drawn.press,
    move: drawn.move,
    /** Lifted: the rectangle kept to be cropped to, or a click dropping the one there was. */
    release(e: PointerEvent, at: { x: number; y: number }, cancel = false): boolean {
      const end = drawn.release(e, at, cancel);
      if (!end) return false;
      drawn.setRect(end.cancelled ? null : end.rect);
      return true;
    },
    commit: () => commit(),
    cancel: () => drawn.setRect(null),
    /** The waiting rectangle changed by its handles or moved. */
    adjust: (r: DocRect) => drawn.setRect(r),
  };
}
