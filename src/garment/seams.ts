/**
 * Matching the print across the seams of the body (对花), as cut-and-sew all-over printing does: the back's
 * print runs on from the front's. Vertically the two panels are aligned at the hem, so the repeat has the same
 * phase at the same garment height on both and continues across both side seams; horizontally the back
 * continues from the front's right side seam (the wearer's left, the back's left edge when both are drawn as
 * seen from outside). The other side seam continues too only when the body's girth is a whole number of
 * repeats; how far it is off is reported.
 */
import type { Extraction, PieceInfo } from './types.js';

/** A piece's print shifted in document space: it samples the placement at (X − dx, Y − dy). */
export interface PieceShift {
  readonly layerId: number;
  readonly dx: number;
  readonly dy: number;
}

/** Full panels are symmetric about their centre line; a half cut on the fold is not. */
const FULL_PANEL_SYMMETRY = 0.85;

export function seamShifts(
  ext: Extraction,
  pieces: readonly PieceInfo[],
  anchor: PieceInfo,
  scale: number,
): { shifts: PieceShift[]; seams: string[] } {
  if (!ext.lattice) return { shifts: [], seams: [] };
  const fronts = pieces.filter((p) => p.part === 'front');
  const backs = pieces.filter((p) => p.part === 'back');
  if (fronts.length !== 1 || backs.length !== 1 || fronts[0] !== anchor) {
    return {
      shifts: [],
      seams: ['侧缝未对花：需要恰好一片前片和一片后片（前片为花样基准）'],
    };
  }
  const front = fronts[0]!;
  const back = backs[0]!;
  if (front.symmetry < FULL_PANEL_SYMMETRY || back.symmetry < FULL_PANEL_SYMMETRY) {
    return {
      shifts: [],
      seams: [`侧缝未对花：“${front.name}”或“${back.name}”不是完整的左右对称衣片（可能是连折裁的半片）`],
    };
  }
  const dx = back.bounds.x - (front.bounds.x + front.bounds.w);
  const dy = back.bounds.y + back.bounds.h - (front.bounds.y + front.bounds.h);
  const period = ext.lattice.tileW * scale;
  const girth = front.bounds.w + back.bounds.w;
  const off = girth % period;
  const miss = Math.round(Math.min(off, period - off));
  return {
    shifts: [{ layerId: back.layerId, dx, dy }],
    seams: [
      `侧缝对花：“${back.name}”与“${front.name}”下摆对齐，同一衣身高度的花样垂直相位相同，两条侧缝上的横向花纹都能对上`,
      `“${front.name}”右侧缝与“${back.name}”左侧缝处花样水平连续`,
      miss <= 1
        ? `另一条侧缝（“${back.name}”右侧—“${front.name}”左侧）同样连续：衣身一周 ${girth} px 是花样宽度的整数倍`
        : `另一条侧缝（“${back.name}”右侧—“${front.name}”左侧）水平相位相差 ${miss} px：衣身一周 ${girth} px 不是花样宽度 ${Math.round(period * 10) / 10} px 的整数倍`,
    ],
  };
}
