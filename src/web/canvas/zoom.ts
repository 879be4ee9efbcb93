/** Zoom and pan arithmetic for the canvas view (pure, so it is tested without a browser). */

export interface View {
  /** Screen pixels per document pixel. */
  readonly zoom: number;
  /** Where the document's top-left corner is, in viewport pixels. */
  readonly x: number;
  readonly y: number;
}

export const MIN_ZOOM = 0.01;
export const MAX_ZOOM = 32;
const MARGIN = 24;

export function clampZoom(zoom: number): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
}

/** A box floating in the viewport's bottom-right corner (the zoom bar): how far it reaches in from the right and up from the bottom, px. */
export interface Corner {
  readonly w: number;
  readonly h: number;
}

/** The document at its largest with a margin inside the box from (left, 0) to (right, bottom), centred there. */
function fitIn(docW: number, docH: number, left: number, right: number, bottom: number): View {
  const w = right - left;
  const zoom = clampZoom(
    Math.min(1, (w - 2 * MARGIN) / Math.max(1, docW), (bottom - 2 * MARGIN) / Math.max(1, docH)),
  );
  return { zoom, x: left + (w - docW * zoom) / 2, y: (bottom - docH * zoom) / 2 };
}

/**
 * The whole document centred in the viewport with a margin, never enlarged past 100 %: in the part of it right of
 * `left`, what the toolbox floating on its left edge covers (Photoshop's toolbar is docked beside the canvas).
 * Nor under the zoom bar floating in the bottom-right `corner` (Photoshop's is docked below): a page the centred
 * fit would run under it is fitted instead above the bar or left of it, whichever shows it larger.
 */
export function fitView(
  docW: number,
  docH: number,
  viewW: number,
  viewH: number,
  left = 0,
  corner?: Corner,
): View {
  const centred = fitIn(docW, docH, left, viewW, viewH);
  if (!corner || corner.w <= 0 || corner.h <= 0) return centred;
  const clear = (v: View) =>
    v.x + docW * v.zoom <= viewW - corner.w || v.y + docH * v.zoom <= viewH - corner.h;
  if (clear(centred)) return centred;
  const above = fitIn(docW, docH, left, viewW, viewH - corner.h);
  const beside = fitIn(docW, docH, left, viewW - corner.w, viewH);
  return beside.zoom > above.zoom ? beside : above;
}

/**
 * A part of the document (a piece, document px) centred in the viewport and fitted with the same margin, never
 * enlarged past 100 %, clear of what floats over the viewport as the whole document is: the rest of the
 * document around it as room allows.
 */
export function fitRect(
  rect: { readonly x: number; readonly y: number; readonly w: number; readonly h: number },
  viewW: number,
  viewH: number,
  left = 0,
  corner?: Corner,
): View {
  const v = fitView(rect.w, rect.h, viewW, viewH, left, corner);
  return { zoom: v.zoom, x: v.x - rect.x * v.zoom, y: v.y - rect.y * v.zoom };
}

/** Zooms by `factor` keeping the document point under (px, py) where it is. */
export function zoomAt(view: View, factor: number, px: number, py: number): View {
  const zoom = clampZoom(view.zoom * factor);
  const k = zoom / view.zoom;
  return { zoom, x: px - (px - view.x) * k, y: py - (py - view.y) * k };
}

/** Moves the document by (dx, dy) screen pixels. */
export function panBy(view: View, dx: number, dy: number): View {
  return { ...view, x: view.x + dx, y: view.y + dy };
}

/**
 * The view after the viewport went from `from` to `to` (a resized window, a pane opened): the document point at
 * the viewport's centre stays at its centre, at the same zoom.
 */
export function keepCentre(
  view: View,
  from: { readonly w: number; readonly h: number },
  to: { readonly w: number; readonly h: number },
): View {
  return panBy(view, (to.w - from.w) / 2, (to.h - from.h) / 2);
}

/** A wheel event's deltas in CSS pixels: some browsers count lines (`deltaMode` 1) or pages (2). */
export function wheelPixels(
  e: { readonly deltaX: number; readonly deltaY: number; readonly deltaMode: number },
  pageHeight: number,
): { dx: number; dy: number } {
  const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? pageHeight : 1;
  return { dx: e.deltaX * unit, dy: e.deltaY * unit };
}

/**
 * How much a zooming wheel event (Ctrl/⌘+wheel, or a trackpad pinch, which browsers send as a wheel with
 * ctrlKey) zooms. A pinch sends many small deltas, a mouse wheel's notch one of about 100 pixels: each pixel
 * counts, up to a notch's worth of about 22 %, so a pinch follows the fingers and a notch is one step.
 */
export function wheelZoomFactor(deltaY: number): number {
  const NOTCH = 20;
  return Math.exp(-Math.max(-NOTCH, Math.min(NOTCH, deltaY)) * 0.01);
}

const SIZES = [256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192];

/**
 * The `max` to ask render.png for: the document's longest side as shown on screen (device pixels), rounded up
 * to a few steps so small zoom changes reuse the image, and never more than the document itself.
 */
export function renderSize(docW: number, docH: number, zoom: number, pixelRatio: number): number {
  const longest = Math.max(docW, docH);
  const wanted = Math.ceil(longest * zoom * pixelRatio);
  const step = SIZES.find((s) => s >= wanted) ?? wanted;
  return Math.max(1, Math.min(longest, step));
}
