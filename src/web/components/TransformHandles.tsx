/**
 * Photoshop's transform controls on the selected layers (the Move tool's "Show Transform Controls"): eight
 * handles on the box round them (one layer's own box, or several layers' joint box, which they scale and turn
 * as one: transform_layers). Dragging a corner scales it keeping its proportions (Shift frees them, as in Photoshop
 * since 2019), the opposite corner staying where it is; a side handle stretches one way, the opposite side
 * staying. The box and the layer's picture follow the pointer; on release the layer is scaled by that much about
 * that reference point (scale_layer_from, one history step). Just outside a corner the pointer turns the layer
 * about its centre instead (rotate_layer; Shift snaps to 15°), the angle shown in the box. Esc puts it back and
 * sends nothing.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { artboardPoint, type Box, BoxHandles, type Handle, scaledBox } from './box-handles.js';
import { PictureGhost } from './PictureGhost.js';

/** The four corners, where the turning zones sit just outside. */
const CORNERS = [
  { id: 'top_left', fx: 0, fy: 0 },
  { id: 'top_right', fx: 1, fy: 0 },
  { id: 'bottom_right', fx: 1, fy: 1 },
  { id: 'bottom_left', fx: 0, fy: 1 },
] as const;

/** How long a scaled box may wait for the canvas's new picture before it goes back anyway (ms). */
const SETTLE_MAX_MS = 2000;

/** The largest scale the tools take (scale_layer_from's limit), percent. */
const MAX_PERCENT = 10000;

/** Percent to three decimals: what the box's change asks for, without float noise in the call, within the limit. */
const percent = (to: number, from: number) => Math.min(MAX_PERCENT, Math.round((to / from) * 100000) / 1000);

/** A scale by a handle, or a turn from just outside a corner. */
type Drag =
  | { readonly kind: 'scale'; readonly pointerId: number; readonly handle: Handle; moved: boolean }
  | { readonly kind: 'turn'; readonly pointerId: number; readonly from: number; moved: boolean };

/** What the box shows while dragged and until the canvas has the new picture. */
type Shown =
  | { readonly kind: 'scale'; readonly box: Box }
  | { readonly kind: 'turn'; readonly angle: number };

/** Degrees clockwise from `from` (radians, screen axes: y down) to the pointer's bearing `to`, in (−180, 180]. */
export function turnBetween(from: number, to: number, snap: boolean): number {
  let deg = ((to - from) * 180) / Math.PI;
  deg = ((((deg + 180) % 360) + 360) % 360) - 180;
  if (deg === -180) deg = 180;
  // Shift snaps to 15°, as Photoshop.
  return snap ? Math.round(deg / 15) * 15 : Math.round(deg * 10) / 10;
}

export function TransformHandles({
  box,
  names,
  zoom,
  picture,
  docSize,
  pictureKey,
}: {
  box: Box;
  /** What the call names: every selected layer (an empty one too, which keeps it selected), the current first. */
  names: readonly string[];
  zoom: number;
  picture: string | null;
  docSize: { w: number; h: number };
  pictureKey: string | undefined;
}) {
  const { studio, t } = useStudioView();
  const drag = useRef<Drag | null>(null);
  const [shown, setShown] = useState<Shown | null>(null);
  const settling = useRef(false);
  const settleTimer = useRef<number | null>(null);
  const stopTimer = () => {
    if (settleTimer.current !== null) window.clearTimeout(settleTimer.current);
    settleTimer.current = null;
  };
  useEffect(() => stopTimer, []);
  useEffect(() => {
    if (!settling.current) return;
    settling.current = false;
    stopTimer();
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

  const pointAt = (e: PointerEvent) => artboardPoint(e, docSize);
  const centre = { x: box.x + box.w / 2, y: box.y + box.h / 2 };
  const bearing = (at: { x: number; y: number }) => Math.atan2(at.y - centre.y, at.x - centre.x);

  /** What the drag shows with the pointer at `at`. */
  const shownAt = (d: Drag, at: { x: number; y: number }, shift: boolean): Shown =>
    d.kind === 'scale'
      ? { kind: 'scale', box: scaledBox(box, d.handle, at, shift) }
      : { kind: 'turn', angle: turnBetween(d.from, bearing(at), shift) };

  const many = { layer_names: names };
  /** The call the drag's end asks for, or null when it changes nothing. */
  const callFor = (d: Drag, s: Shown) => {
    if (s.kind === 'turn') {
      if (s.angle === 0) return null;
      if (names.length > 1) return { name: PANE_TOOLS.transformMany, arguments: { ...many, angle: s.angle } };
      return { name: PANE_TOOLS.rotate, arguments: { name: names[0], angle: s.angle } };
    }
    const sx = percent(s.box.w, box.w);
    const sy = percent(s.box.h, box.h);
    if (d.kind !== 'scale' || (sx === 100 && sy === 100)) return null;
    const scale = { scale_x: sx, scale_y: sy, anchor: d.handle.anchor };
    if (names.length > 1) return { name: PANE_TOOLS.transformMany, arguments: { ...many, ...scale } };
    return { name: PANE_TOOLS.scaleFrom, arguments: { name: names[0], ...scale } };
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
    const end = shownAt(d, at, e.shiftKey);
    const call = callFor(d, end);
    if (!call) {
      setShown(null);
      return;
    }
    setShown(end);
    void studio.run([call]).then((ok) => {
      if (!ok) {
        setShown(null);
        return;
      }
      settling.current = true;
      stopTimer();
      settleTimer.current = window.setTimeout(() => {
        settleTimer.current = null;
        if (!settling.current) return;
        settling.current = false;
        setShown(null);
      }, SETTLE_MAX_MS);
    });
  };

  const begin = (e: PointerEvent, d: Drag) => {
    if (e.button !== 0) return;
    e.stopPropagation();
    e.preventDefault();
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
    settling.current = false;
    stopTimer();
    drag.current = d;
  };
  const follow = (e: PointerEvent) => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    e.stopPropagation();
    const at = pointAt(e);
    if (!at) return;
    d.moved = true;
    setShown(shownAt(d, at, e.shiftKey));
  };
  const pointer = {
    onPointerMove: follow,
    onPointerUp: (e: PointerEvent) => finish(e, false),
    onPointerCancel: (e: PointerEvent) => finish(e, true),
  };

  const view = shown?.kind === 'scale' ? shown.box : box;
  const turn = shown?.kind === 'turn' ? shown.angle : 0;
  const place = {
    left: `${view.x * zoom}px`,
    top: `${view.y * zoom}px`,
    width: `${view.w * zoom}px`,
    height: `${view.h * zoom}px`,
    ...(turn ? { transform: `rotate(${turn}deg)` } : {}),
  };
  return (
    <>
      {shown && picture && (
        // The layer's part of the picture, stretched or turned with the box, faded, until the canvas shows it.
        <PictureGhost picture={picture} place={place} from={box} to={view} zoom={zoom} docSize={docSize} />
      )}
      <span class={`transform-box${shown ? ' scaling' : ''}`} style={place}>
        {CORNERS.map((c) => (
          // Just outside a corner the pointer turns the layer about its centre, as in Photoshop.
          <span
            key={`turn-${c.id}`}
            class="rotate-zone"
            data-rotate={c.id}
            role="presentation"
            title={t('canvas.rotateHandle')}
            style={{
              left: `${c.fx * 100}%`,
              top: `${c.fy * 100}%`,
              '--dx': c.fx ? 1 : -1,
              '--dy': c.fy ? 1 : -1,
            }}
            onPointerDown={(e) => {
              const at = pointAt(e);
              if (at) begin(e, { kind: 'turn', pointerId: e.pointerId, from: bearing(at), moved: false });
            }}
            {...pointer}
          />
        ))}
        <BoxHandles
          title={t('canvas.scaleHandle')}
          onPress={(e, h) => begin(e, { kind: 'scale', pointerId: e.pointerId, handle: h, moved: false })}
          pointer={pointer}
        />
        {turn !== 0 && (
          // Upright, whatever the box's turn.
          <span class="turn-readout" style={{ transform: `translate(-50%, -50%) rotate(${-turn}deg)` }}>
            {`${turn}°`}
          </span>
        )}
      </span>
    </>
  );
}
