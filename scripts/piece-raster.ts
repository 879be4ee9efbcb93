/**
 * A drafted cut piece as a layer's pixels: its seam line grown by the seam allowance (a stroke of twice the
 * allowance with round joins over the fill), turned by quarter turns and maybe mirrored. Shared by the
 * classifier's training (scripts/piece-training.ts), the fixtures' markers (test/garment) and the garment
 * example's PSD (examples/garment).
 */
import { createCanvas } from '@napi-rs/canvas';

/** The outline as drafted: mm, y down, the top-left of its bounds at 0, 0. */
export interface OutlineMm {
  readonly widthMm: number;
  readonly heightMm: number;
  readonly poly: readonly (readonly [number, number])[];
}

export function rasterisePiece(
  p: OutlineMm,
  pxPerMm: number,
  saMm: number,
  turns: number,
  mirrored: boolean,
  colour = '#c8c8c8',
): { w: number; h: number; data: Uint8ClampedArray } {
  const pad = saMm * pxPerMm + 1;
  const pw = Math.ceil(p.widthMm * pxPerMm + 2 * pad);
  const ph = Math.ceil(p.heightMm * pxPerMm + 2 * pad);
  const swap = turns % 2 === 1;
  const w = swap ? ph : pw;
  const h = swap ? pw : ph;
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.translate(w / 2, h / 2);
  ctx.rotate((turns * Math.PI) / 2);
  if (mirrored) ctx.scale(-1, 1);
  ctx.translate(-pw / 2 + pad, -ph / 2 + pad);
  ctx.scale(pxPerMm, pxPerMm);
  ctx.beginPath();
  for (const [i, [u, v]] of p.poly.entries()) {
    if (i) ctx.lineTo(u, v);
    else ctx.moveTo(u, v);
  }
  ctx.closePath();
  ctx.fillStyle = colour;
  ctx.strokeStyle = colour;
  ctx.lineJoin = 'round';
  ctx.lineWidth = 2 * saMm;
  ctx.fill();
  ctx.stroke();
  return { w, h, data: new Uint8ClampedArray(ctx.getImageData(0, 0, w, h).data) };
}
