/**
 * Photoshop's Lasso and Polygonal Lasso on the canvas (L; Shift+L changes which). The Lasso draws the selection's
 * edge freehand while the button is down and closes it on release; the Polygonal Lasso sets a corner at each
 * click, follows the pointer with a straight edge, and closes on a click at its first corner, a double-click or
 * Enter (Backspace takes back the last corner, Esc drops it all). Either becomes the selection through
 * select_polygon (one history step). The modifier keys held as it starts pick the mode, as with the marquee; a
 * click of the Lasso without a drag deselects. The edge stays drawn until the canvas's selection is the one asked
 * for.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { POLYGON_MAX_POINTS } from '../../registry/tools/selection-params.js';
import type { ActiveDocument } from '../api/types.js';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { inFormControl } from '../state/shortcuts.js';
import {
  type LassoKind,
  modeArgument,
  modeOf,
  type SelectionMode,
  useSettling,
} from './selection-options.js';
import type { StartKeys } from './useRectDrag.js';

interface Point {
  readonly x: number;
  readonly y: number;
}

/** How close to the first corner (CSS px) a click closes the polygonal lasso. */
const CLOSE_PX = 8;
/** How long after a polygon closes a click is still part of the double-click that closed it (ms). */
const CLOSE_CLICK_MS = 500;
/** The freehand edge keeps a point every few screen pixels. */
const FREEHAND_STEP_PX = 2;

/** Twice the signed area: zero for corners all on one line, which select nothing. */
function doubleArea(points: readonly Point[]): number {
  let a = 0;
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    const q = points[(i + 1) % points.length]!;
    a += p.x * q.y - q.x * p.y;
  }
  return a;
}

/** Every k-th point, so at most `max` remain (the last one kept): a long freehand edge within select_polygon's limit. */
function thinned(points: readonly Point[], max: number): Point[] {
  if (points.length <= max) return [...points];
  const k = Math.ceil(points.length / max);
  return points.filter((_, i) => i % k === 0 || i === points.length - 1).slice(0, max);
}

const round = (v: number) => Math.round(v * 10) / 10;

export function pointsPath(points: readonly Point[], closed: boolean): string {
  if (points.length === 0) return '';
  const [first, ...rest] = points;
  return `M${first!.x} ${first!.y}${rest.map((p) => `L${p.x} ${p.y}`).join('')}${closed ? 'Z' : ''}`;
}

export function useLasso(
  doc: ActiveDocument | null,
  kind: LassoKind,
  base: SelectionMode,
  zoom: number,
  active: boolean,
) {
  const { studio } = useStudioView();
  // The corners drawn so far (or sent and waiting for the selection), with whether the edge is closed.
  const [drawn, setDrawn] = useState<{ points: Point[]; closed: boolean } | null>(null);
  const [hover, setHover] = useState<Point | null>(null);
  // The edge under way: the keys it started with, the freehand drag's pointer or the polygon's pressed one.
  const going = useRef<{ keys: StartKeys; points: Point[]; pointerId: number | null; moved: boolean } | null>(
    null,
  );
  const lastMode = useRef<SelectionMode>('replace');
  // When the last edge was closed: a click just after it is the rest of the double-click that closed it.
  const closedAt = useRef(Number.NEGATIVE_INFINITY);
  // What settles is the edge sent (closed); a polygon begun since stays.
  const settling = useSettling(doc?.selection?.outline ?? '', () => setDrawn((d) => (d?.closed ? null : d)));
  const docKey = doc ? `${doc.name}|${doc.width}|${doc.height}` : '';

  const drop = () => {
    going.current = null;
    setDrawn(null);
    setHover(null);
  };
  // Another document or size, another tool or lasso: the edge drawn no longer applies. Dropped as the change is
  // rendered, not after the next paint: a click that follows Shift+L at once would otherwise set its corner and
  // then lose it to the late drop (a background tab paints seldom).
  useLayoutEffect(drop, [docKey, active, kind]);

  const finish = () => {
    const g = going.current;
    going.current = null;
    if (g?.pointerId === null) closedAt.current = performance.now();
    setHover(null);
    if (!g || !doc) return;
    const points = thinned(
      g.points.map((p) => ({ x: round(p.x), y: round(p.y) })),
      POLYGON_MAX_POINTS,
    );
    const mode = modeOf(g.keys, base);
    lastMode.current = mode;
    if (points.length < 3 || Math.abs(doubleArea(points)) < 1) {
      setDrawn(null);
      return;
    }
    setDrawn({ points, closed: true });
    settling.send(studio, { name: PANE_TOOLS.selectPolygon, arguments: { points, ...modeArgument(mode) } });
  };
  const latest = useRef({ finish, drop });
  latest.current = { finish, drop };

  // Keys read when they come (not bound when a corner appears, which an effect would do a paint later).
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      const g = going.current;
      // Keys with Ctrl, ⌘ or Alt are other shortcuts (Alt+Delete fills); a control's keys are its own.
      if (!g || e.ctrlKey || e.metaKey || e.altKey || inFormControl(e.target as Element | null)) return;
      if ((e.target as Element | null)?.closest('button')) return;
      // Taken before the canvas sees them: Backspace there would delete the layer.
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        latest.current.drop();
      } else if (e.key === 'Enter' && g.pointerId === null) {
        e.preventDefault();
        e.stopPropagation();
        latest.current.finish();
      } else if ((e.key === 'Backspace' || e.key === 'Delete') && g.pointerId === null) {
        // The last corner taken back; with none left the lasso starts again.
        e.preventDefault();
        e.stopPropagation();
        g.points = g.points.slice(0, -1);
        if (g.points.length === 0) latest.current.drop();
        else setDrawn({ points: [...g.points], closed: false });
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [active]);

  const near = (a: Point, b: Point, px: number) => Math.hypot(a.x - b.x, a.y - b.y) * zoom <= px;
  const keysOf = (e: PointerEvent): StartKeys => ({ shift: e.shiftKey, alt: e.altKey });

  const g = going.current;
  const replacing = (g ? modeOf(g.keys, base) : lastMode.current) === 'replace';
  const shown = drawn && hover && !drawn.closed ? { points: [...drawn.points, hover], closed: false } : drawn;
  return {
    path: shown ? pointsPath(shown.points, shown.closed) : null,
    replacing,
    press(e: PointerEvent, at: Point) {
      // The polygonal lasso sets its corners on release; a press (a pan between its clicks) leaves what is drawn.
      if (kind !== 'free') return;
      settling.stop();
      going.current = { keys: keysOf(e), points: [at], pointerId: e.pointerId, moved: false };
      setDrawn(null);
    },
    /**
     * The pointer moved with its button down: true while the freehand lasso has it (the view must not pan). A
     * drag with the polygonal lasso pans, as between its clicks nothing is drawn.
     */
    move(e: PointerEvent, at: Point): boolean {
      const cur = going.current;
      if (!cur || cur.pointerId !== e.pointerId) return false;
      const last = cur.points[cur.points.length - 1]!;
      if (near(last, at, FREEHAND_STEP_PX)) return true;
      cur.moved = true;
      cur.points.push(at);
      // The same array, grown: a new wrapper re-renders without copying every point of a long drag.
      setDrawn({ points: cur.points, closed: false });
      return true;
    },
    /** The pointer moved with no button down: the polygon's next edge follows it. */
    hover(at: Point) {
      if (kind === 'polygon' && going.current) setHover(at);
    },
    /** The freehand lasso lifted (or taken by the browser with `cancel`); false when it was not drawing. */
    release(e: PointerEvent, at: Point, cancel = false): boolean {
      const cur = going.current;
      if (kind !== 'free' || !cur || cur.pointerId !== e.pointerId) return false;
      if (cancel) {
        drop();
        return true;
      }
      if (!cur.moved) {
        // A click without a drag deselects, as Photoshop's lasso does.
        going.current = null;
        setDrawn(null);
        if (doc?.has_selection && modeOf(cur.keys, base) === 'replace')
          void studio.run([{ name: PANE_TOOLS.deselect, arguments: {} }]);
        return true;
      }
      cur.points.push(at);
      finish();
      return true;
    },
    /** A click of the polygonal lasso: its first corner, the next one, or at the first corner, the end. */
    click(e: PointerEvent, at: Point) {
      if (kind !== 'polygon' || !doc) return;
      // The second click of a double-click on the first corner (which closed the polygon) starts nothing.
      if (performance.now() - closedAt.current < CLOSE_CLICK_MS) return;
      const cur = going.current;
      if (!cur) {
        // A new polygon replaces the edge that may still wait for its selection.
        settling.stop();
        going.current = { keys: keysOf(e), points: [at], pointerId: null, moved: true };
        setDrawn({ points: [at], closed: false });
        return;
      }
      if (cur.points.length >= 3 && near(cur.points[0]!, at, CLOSE_PX)) {
        finish();
        return;
      }
      if (!near(cur.points[cur.points.length - 1]!, at, 1)) cur.points.push(at);
      setDrawn({ points: [...cur.points], closed: false });
    },
    /** A double-click: the polygon closed where it is. */
    close() {
      if (going.current && going.current.pointerId === null) finish();
    },
  };
}
