/**
 * A garment's front panels put together as they are sewn, from what a canvas shows of each: every panel pasted
 * at its place on the garment (placement.centres: its centre line and top on the garment's), so a print or a
 * motif drawn across a front cut in halves reads whole. Verify searches the motif there; the preview shows it.
 */
import type { Raster } from '../engine/model.js';
import { allocPixels } from '../engine/raster.js';
import type { PieceInfo, Placement } from './types.js';

/** A piece standing upright (upright.ts) and a canvas holding its pixels in that frame. */
export interface PanelView {
  readonly piece: PieceInfo;
  readonly canvas: Raster;
}

/**
 * One raster per size with two front panels or more (in garment pixels: the centre front at column 0, the top
 * at row 0, as the raster's x and y say), transparent where no panel is; where panels overlap (their seam
 * allowances), the one listed later.
 */
export function sewnFronts(
  views: readonly PanelView[],
  pl: Placement,
): { size: number | undefined; raster: Raster }[] {
  const anchored = views.flatMap((v) => {
    const at = pl.centres?.find((c) => c.layerId === v.piece.layerId);
    return at ? [{ v, dx: Math.round(-at.x), dy: Math.round(-at.y) }] : [];
  });
  const out: { size: number | undefined; raster: Raster }[] = [];
  for (const size of new Set(anchored.map((a) => a.v.piece.size))) {
    const own = anchored.filter((a) => a.v.piece.size === size);
    if (own.length < 2) continue;
    const x0 = Math.min(...own.map(({ v, dx }) => v.piece.bounds.x + dx));
    const y0 = Math.min(...own.map(({ v, dy }) => v.piece.bounds.y + dy));
    const x1 = Math.max(...own.map(({ v, dx }) => v.piece.bounds.x + v.piece.bounds.w + dx));
    const y1 = Math.max(...own.map(({ v, dy }) => v.piece.bounds.y + v.piece.bounds.h + dy));
    const sewn: Raster = {
      x: x0,
      y: y0,
      w: x1 - x0,
      h: y1 - y0,
      data: allocPixels((x1 - x0) * (y1 - y0) * 4),
    };
    for (const { v, dx, dy } of own) {
      const { bounds: b, mask } = v.piece;
      for (let y = 0; y < b.h; y++) {
        const Y = b.y + y - v.canvas.y;
        if (Y < 0 || Y >= v.canvas.h) continue;
        for (let x = 0; x < b.w; x++) {
          const X = b.x + x - v.canvas.x;
          if (!mask[y * b.w + x] || X < 0 || X >= v.canvas.w) continue;
          const o = (Y * v.canvas.w + X) * 4;
          const t = ((b.y + y + dy - y0) * sewn.w + (b.x + x + dx - x0)) * 4;
          for (let k = 0; k < 4; k++) sewn.data[t + k] = v.canvas.data[o + k]!;
        }
      }
    }
    out.push({ size, raster: sewn });
  }
  return out;
}
