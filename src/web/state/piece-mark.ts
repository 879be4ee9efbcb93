/**
 * The piece a designer points at in a garment card (a row of the pieces table, a piece in doubt): the canvas
 * outlines it, so a layer named 图层 12 is found on the marker. One studio per page, so one mark at a time.
 */
import { useEffect, useState } from 'preact/hooks';

export interface PieceMark {
  /** The document the piece lies on: the canvas shows the mark only over that one. */
  readonly doc: string;
  readonly name: string;
  /** Document px. */
  readonly bounds: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
}

let current: PieceMark | null = null;
const listeners = new Set<() => void>();

function set(mark: PieceMark | null): void {
  current = mark;
  for (const l of listeners) l();
}

/** What makes an element point at its piece: hovered, or holding the keyboard's focus (its pickers). */
export function pointsAt(mark: PieceMark | null) {
  const leave = () => {
    if (mark && current?.doc === mark.doc && current.name === mark.name) set(null);
  };
  return mark
    ? { onMouseEnter: () => set(mark), onMouseLeave: leave, onFocusIn: () => set(mark), onFocusOut: leave }
    : {};
}

/** Unmarks whatever is marked (a card that closes while its piece is pointed at). */
export function clearMark(): void {
  if (current) set(null);
}

/** The last piece asked to be shown on the canvas (its thumbnail clicked), numbered so each click counts. */
let shown: { readonly mark: PieceMark; readonly seq: number } | null = null;

/** Asks the canvas to show the piece: it fits the view to it (when its document is the one shown). */
export function showPiece(mark: PieceMark): void {
  shown = { mark, seq: (shown?.seq ?? 0) + 1 };
  set(mark);
}

/** The piece last asked to be shown, read once by the canvas per request. */
export function usePieceShown(): { readonly mark: PieceMark; readonly seq: number } | null {
  usePieceMark();
  return shown;
}

export function usePieceMark(): PieceMark | null {
  const [, redraw] = useState(0);
  useEffect(() => {
    const l = () => redraw((n) => n + 1);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  return current;
}
