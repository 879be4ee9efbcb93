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

/** The whole document centred in the viewport with a margin, never enlarged past 100 %. */
export function fitView(docW: number, docH: number, viewW: number, viewH: number): View {
  const zoom = clampZoom(
    Math.min(1, (viewW - 2 * MARGIN) / Math.max(1, docW), (viewH - 2 * MARGIN) / Math.max(1, docH)),
  );
  return { zoom, x: (viewW - docW * zoom) / 2, y: (viewH - docH * zoom) / 2 };
}

/** Zooms by `factor` keeping the document point under (px, py) where it is. */
export function zoomAt(view: View, factor: number, px: number, py: number): View {
  const zoom = clampZoom(view.zoom * factor);
  const k = zoom / view.zoom;
  return { zoom, x: px - (px - view.x) * k, y: py - (py - view.y) * k };
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
