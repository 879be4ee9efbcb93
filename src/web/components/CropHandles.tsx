/**
 * The crop rectangle's handles, as Photoshop's crop box: the eight handles of the transform box move its edges
 * (a corner keeps the rectangle's proportions with Shift; free without, as Photoshop's ratio-less crop), and a drag
 * inside it moves it about the canvas. In whole document pixels, within the canvas; what is kept is still cropped
 * to on Enter or the commit button.
 */
import { useRef } from 'preact/hooks';
import { useStudioView } from '../context.js';
import { artboardPoint, BoxHandles, type Handle, scaledBox } from './box-handles.js';
import type { DocRect } from './useRectDrag.js';

/** `r` in whole pixels inside a `w` × `h` canvas, at least a pixel each way. */
function withinCanvas(r: DocRect, w: number, h: number): DocRect {
  const x0 = Math.min(w - 1, Math.max(0, Math.round(r.x)));
  const y0 = Math.min(h - 1, Math.max(0, Math.round(r.y)));
  const x1 = Math.max(x0 + 1, Math.min(w, Math.round(r.x + r.w)));
  const y1 = Math.max(y0 + 1, Math.min(h, Math.round(r.y + r.h)));
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

export function CropHandles({
  rect,
  zoom,
  docSize,
  onChange,
}: {
  rect: DocRect;
  zoom: number;
  docSize: { w: number; h: number };
  onChange: (r: DocRect) => void;
}) {
  const { t } = useStudioView();
  // A handle's drag, or the whole rectangle's (handle null), from where it started.
  const drag = useRef<{
    pointerId: number;
    handle: Handle | null;
    from: { x: number; y: number };
    start: DocRect;
  } | null>(null);

  const pointAt = (e: PointerEvent) => artboardPoint(e, docSize);
  const begin = (e: PointerEvent, handle: Handle | null) => {
    const at = pointAt(e);
    if (e.button !== 0 || !at) return;
    e.stopPropagation();
    e.preventDefault();
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
    drag.current = { pointerId: e.pointerId, handle, from: at, start: rect };
  };
  const follow = (e: PointerEvent) => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    e.stopPropagation();
    const at = pointAt(e);
    if (!at) return;
    if (d.handle) {
      onChange(withinCanvas(scaledBox(d.start, d.handle, at, !e.shiftKey), docSize.w, docSize.h));
      return;
    }
    const x = Math.min(docSize.w - d.start.w, Math.max(0, d.start.x + at.x - d.from.x));
    const y = Math.min(docSize.h - d.start.h, Math.max(0, d.start.y + at.y - d.from.y));
    onChange(withinCanvas({ ...d.start, x, y }, docSize.w, docSize.h));
  };
  const end = (e: PointerEvent) => {
    if (drag.current?.pointerId !== e.pointerId) return;
    e.stopPropagation();
    drag.current = null;
  };
  const pointer = { onPointerMove: follow, onPointerUp: end, onPointerCancel: end };

  return (
    <span
      class="crop-box"
      title={t('canvas.cropMove')}
      style={{
        left: `${rect.x * zoom}px`,
        top: `${rect.y * zoom}px`,
        width: `${rect.w * zoom}px`,
        height: `${rect.h * zoom}px`,
      }}
      onPointerDown={(e) => begin(e, null)}
      {...pointer}
    >
      <BoxHandles title={t('canvas.cropHandle')} onPress={(e, h) => begin(e, h)} pointer={pointer} />
    </span>
  );
}
