/**
 * A 0/1 mask folded onto itself about a line through its centroid: how a garment's silhouette in a photo shows its
 * centre line (level.ts) and a cut piece its axis of symmetry (piece-tilt.ts). Reflection keeps the area, so the
 * IoU of the mask and its mirror image is I / (2A − I), I the pixels whose image falls inside.
 */
export interface Fold {
  /** The mask's pixels. */
  readonly area: number;
  /**
   * IoU of the mask and its mirror about the line through its centroid at `deg` clockwise (y down) from the
   * vertical (`across`: from the horizontal), read on every `every`th of its pixels.
   */
  iou(deg: number, across?: boolean, every?: number): number;
}

export function foldOf(data: Uint8Array, w: number, h: number): Fold {
  let area = 0;
  for (const v of data) if (v) area++;
  const xs = new Float64Array(area);
  const ys = new Float64Array(area);
  let cx = 0;
  let cy = 0;
  for (let y = 0, i = 0, k = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      if (!data[i]) continue;
      xs[k] = x + 0.5;
      ys[k++] = y + 0.5;
      cx += x + 0.5;
      cy += y + 0.5;
    }
  }
  cx /= Math.max(1, area);
  cy /= Math.max(1, area);
  return {
    area,
    iou(deg, across = false, every = 1) {
      const t = (deg * Math.PI) / 180;
      // The line's unit direction: (0, 1), or (1, 0) across, turned clockwise on screen by t.
      const dx = across ? Math.cos(t) : -Math.sin(t);
      const dy = across ? Math.sin(t) : Math.cos(t);
      let both = 0;
      let count = 0;
      for (let i = 0; i < area; i += every) {
        count++;
        const vx = xs[i]! - cx;
        const vy = ys[i]! - cy;
        const along = 2 * (vx * dx + vy * dy);
        const mx = Math.floor(cx + along * dx - vx);
        const my = Math.floor(cy + along * dy - vy);
        if (mx >= 0 && my >= 0 && mx < w && my < h) both += data[my * w + mx]!;
      }
      return count ? both / (2 * count - both) : 0;
    },
  };
}
