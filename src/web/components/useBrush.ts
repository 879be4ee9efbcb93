/**
 * Photoshop's Brush tool on the canvas (B): a drag paints a stroke along the pointer's path, a click a dot, on the
 * current layer (or its mask, as the options bar says), inside the selection if there is one, in the foreground
 * colour (画笔, one history step when the pointer lifts: the stroke is shown as it is drawn, then made). [ and ]
 * make the brush smaller or larger, as in Photoshop. Esc while drawing drops the stroke. With a pen, its pressure
 * sets the brush's size at each point (Photoshop's "pressure for size", on unless the bar turns it off) and, when
 * the bar says so, its strength ("pressure for opacity"); a mouse or a finger paints at the full size and strength.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { BRUSH_MAX_POINTS, BRUSH_MAX_SIZE } from '../../registry/tools/paint-params.js';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { editsText } from '../state/shortcuts.js';

/** The options bar's settings for the next stroke. */
export interface BrushOptions {
  /** Diameter, document px. */
  readonly size: number;
  /** 0–100. */
  readonly hardness: number;
  /** 0–100. */
  readonly opacity: number;
  /** 1–100: each dab's share of paint (Photoshop's 流量). */
  readonly flow: number;
  /** Painted on the current layer's mask rather than its pixels, where it has one. */
  readonly onMask: boolean;
  /** A pen's pressure sets the size at each point (Photoshop's "pressure for size"). */
  readonly pressureSize: boolean;
  /** A pen's pressure sets the strength at each point (Photoshop's "pressure for opacity"). */
  readonly pressureOpacity: boolean;
}

/** What the bar's two pressure switches ask paint_stroke for; null when neither is on. */
function pressureSets(options: BrushOptions): 'size' | 'opacity' | 'both' | null {
  if (options.pressureSize) return options.pressureOpacity ? 'both' : 'size';
  return options.pressureOpacity ? 'opacity' : null;
}

interface Point {
  readonly x: number;
  readonly y: number;
  /** A pen's pressure there, 0–1 (absent: a mouse's, full size). */
  readonly pressure?: number;
}

const rounded = (p: Point): Point => ({
  x: Math.round(p.x * 10) / 10,
  y: Math.round(p.y * 10) / 10,
  ...(p.pressure !== undefined ? { pressure: Math.round(p.pressure * 100) / 100 } : {}),
});

/** At most `max` of `points`, evenly kept, the first and the last always (a long scribble sent whole). */
export function thinned(points: readonly Point[], max: number): Point[] {
  if (points.length <= max) return [...points];
  const step = (points.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => points[Math.round(i * step)]!);
}

/** Photoshop's [ and ] steps: finer for a small brush, coarser for a large one. */
export function steppedSize(size: number, up: boolean): number {
  const step = size < 10 ? 1 : size < 100 ? 10 : size < 200 ? 25 : size < 300 ? 50 : 100;
  const next = up ? size + step : size - step;
  return Math.max(1, Math.min(BRUSH_MAX_SIZE, next));
}

export function useBrush(
  active: boolean,
  zoom: number,
  color: string,
  options: BrushOptions,
  masked: boolean,
  setSize: (size: number) => void,
) {
  const { studio } = useStudioView();
  const drag = useRef<{ id: number; points: Point[] } | null>(null);
  const [path, setPath] = useState<readonly Point[] | null>(null);
  const sizeNow = useRef(options.size);
  sizeNow.current = options.size;
  // The pen's pressure at this event, where the bar lets it set the size (a mouse reports 0.5 while pressed).
  const pressed = (e: PointerEvent, at: Point): Point =>
    pressureSets(options) !== null && e.pointerType === 'pen'
      ? { ...at, pressure: Math.max(0, Math.min(1, e.pressure)) }
      : at;
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && drag.current) {
        e.preventDefault();
        drag.current = null;
        setPath(null);
        return;
      }
      if ((e.key !== '[' && e.key !== ']') || e.ctrlKey || e.metaKey || editsText(e.target as Element | null))
        return;
      e.preventDefault();
      setSize(steppedSize(sizeNow.current, e.key === ']'));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active]);
  return {
    path,
    press(e: PointerEvent, at: Point) {
      const first = pressed(e, at);
      drag.current = { id: e.pointerId, points: [first] };
      setPath([first]);
    },
    /** True while a stroke is being drawn (the view must not pan). */
    move(e: PointerEvent, at: Point): boolean {
      const d = drag.current;
      if (!d || d.id !== e.pointerId) return false;
      const last = d.points.at(-1)!;
      // A point every screen pixel or so is as smooth as the eye sees it.
      if (Math.hypot(at.x - last.x, at.y - last.y) * zoom >= 1) {
        d.points.push(pressed(e, at));
        setPath([...d.points]);
      }
      return true;
    },
    /** Lifted (or taken by the browser with `cancel`): the stroke made; false when none of this pointer ran. */
    release(e: PointerEvent, at: Point, cancel = false): boolean {
      const d = drag.current;
      if (!d || d.id !== e.pointerId) return false;
      drag.current = null;
      setPath(null);
      if (cancel) return true;
      const last = d.points.at(-1)!;
      // A pen lifting reports no pressure: the last point keeps the pressure it was drawn with.
      if (at.x !== last.x || at.y !== last.y) {
        d.points.push(last.pressure !== undefined ? { ...at, pressure: last.pressure } : at);
      }
      void studio.run([
        {
          name: PANE_TOOLS.brush,
          arguments: {
            points: thinned(d.points.map(rounded), BRUSH_MAX_POINTS),
            size: options.size,
            color,
            ...(options.hardness !== 100 ? { hardness: options.hardness } : {}),
            ...(options.opacity !== 100 ? { opacity: options.opacity } : {}),
            ...(options.flow !== 100 ? { flow: options.flow } : {}),
            ...(d.points.some((p) => p.pressure !== undefined) && pressureSets(options) !== 'size'
              ? { pressure_sets: pressureSets(options) }
              : {}),
            ...(options.onMask && masked ? { target: 'mask' } : {}),
          },
        },
      ]);
      return true;
    },
  };
}
