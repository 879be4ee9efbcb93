/**
 * Photoshop's Gradient tool on the canvas (G): a drag from where the gradient starts to where it ends lays it on
 * the current layer (or its mask, as the options bar says), inside the selection if there is one (渐变填充, one
 * history step), from the foreground colour to the options bar's end colour (or to transparent), through its
 * middle colour when it has one, in its shape; reversed (from the end to the foreground colour) and dithered as the
 * bar says.
 * Shift pressed while dragging keeps the line at a multiple of 45°; Esc while dragging drops it; a click without a
 * drag lays nothing.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { GRADIENT_TYPES } from '../../registry/tools/paint-params.js';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

export type GradientShape = (typeof GRADIENT_TYPES)[number];

/** The options bar's settings for the next gradient. */
export interface GradientOptions {
  readonly type: GradientShape;
  /** The end colour (the start is the foreground colour). */
  readonly end: string;
  /** The end is transparent: the foreground colour fades out (Photoshop's Foreground to Transparent). */
  readonly toTransparent: boolean;
  /** A third colour half-way along (a colour stop at 50 % in Photoshop's gradient editor)… */
  readonly middle: string;
  /** …used when this is on (the colour is kept while it is off). */
  readonly throughMiddle: boolean;
  /** The gradient laid the other way: from the end colour to the foreground colour (Photoshop's Reverse). */
  readonly reverse: boolean;
  /** Noise of under a level between levels, so long gradients show no bands (Photoshop's Dither, on by default). */
  readonly dither: boolean;
  /** Laid on the current layer's mask (white shows, black hides) rather than its pixels, where it has one. */
  readonly onMask: boolean;
}

interface Point {
  readonly x: number;
  readonly y: number;
}

/** The end of a line from `a` towards `b`, turned to the nearest multiple of 45° (Shift, as in Photoshop). */
export function snap45(a: Point, b: Point): Point {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const angle = Math.round(Math.atan2(dy, dx) / (Math.PI / 4)) * (Math.PI / 4);
  const length = Math.hypot(dx, dy) * Math.cos(Math.atan2(dy, dx) - angle);
  return { x: a.x + Math.cos(angle) * length, y: a.y + Math.sin(angle) * length };
}

const rounded = (v: number) => Math.round(v * 10) / 10;

/** The gradient's two ends in the order it is laid, each a colour (hex, or hex with alpha 00 when transparent). */
export function gradientEnds(
  startColor: string,
  options: Pick<GradientOptions, 'end' | 'toTransparent' | 'reverse'>,
): readonly [{ color: string; opacity: number }, { color: string; opacity: number }] {
  const start = { color: startColor, opacity: 100 };
  const end = options.toTransparent
    ? { color: startColor, opacity: 0 }
    : { color: options.end, opacity: 100 };
  return options.reverse ? [end, start] : [start, end];
}

export function useGradient(
  slop: number,
  zoom: number,
  startColor: string,
  options: GradientOptions,
  /** Whether the current layer has a mask to lay the gradient on. */
  masked: boolean,
) {
  const { studio } = useStudioView();
  const drag = useRef<{ id: number; from: Point; screen: Point; moved: boolean } | null>(null);
  const [line, setLine] = useState<{ from: Point; to: Point } | null>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !drag.current) return;
      e.preventDefault();
      drag.current = null;
      setLine(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const endOf = (from: Point, at: Point, e: PointerEvent) => (e.shiftKey ? snap45(from, at) : at);
  return {
    line,
    press(e: PointerEvent, at: Point) {
      drag.current = { id: e.pointerId, from: at, screen: { x: e.clientX, y: e.clientY }, moved: false };
    },
    /** True while a gradient's line is being drawn (the view must not pan). */
    move(e: PointerEvent, at: Point): boolean {
      const d = drag.current;
      if (!d || d.id !== e.pointerId) return false;
      if (!d.moved && Math.hypot(e.clientX - d.screen.x, e.clientY - d.screen.y) <= slop) return true;
      d.moved = true;
      setLine({ from: d.from, to: endOf(d.from, at, e) });
      return true;
    },
    /** Lifted (or taken by the browser with `cancel`): the gradient laid; false when no drag of this pointer ran. */
    release(e: PointerEvent, at: Point, cancel = false): boolean {
      const d = drag.current;
      if (!d || d.id !== e.pointerId) return false;
      drag.current = null;
      setLine(null);
      if (cancel || !d.moved) return d.moved;
      const to = endOf(d.from, at, e);
      if (Math.hypot(to.x - d.from.x, to.y - d.from.y) * zoom <= slop) return true;
      const [first, last] = gradientEnds(startColor, options);
      void studio.run([
        {
          name: PANE_TOOLS.gradient,
          arguments: {
            start_x: rounded(d.from.x),
            start_y: rounded(d.from.y),
            end_x: rounded(to.x),
            end_y: rounded(to.y),
            start_color: first.color,
            end_color: last.color,
            ...(options.type !== 'linear' ? { type: options.type } : {}),
            ...(options.throughMiddle ? { stops: [{ location: 50, color: options.middle }] } : {}),
            ...(first.opacity !== 100 ? { start_opacity: first.opacity } : {}),
            ...(last.opacity !== 100 ? { end_opacity: last.opacity } : {}),
            ...(options.dither ? {} : { dither: false }),
            ...(options.onMask && masked ? { target: 'mask' } : {}),
          },
        },
      ]);
      return true;
    },
  };
}
