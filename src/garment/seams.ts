/**
 * Matching the print across the seams of the body (对花), as cut-and-sew all-over printing does: the back's
 * print runs on from the front's. Vertically the two panels are aligned at the hem, so the repeat has the same
 * phase at the same garment height on both and continues across both side seams; horizontally the back
 * continues from the front's right side seam (the wearer's left, the back's left edge when both are drawn as
 * seen from outside). The fabric meets at the seam line, not at the cut edge: cut pieces carry a seam
 * allowance, so the seam line lies that far inside the cut edge, measured on the body at the height the scale
 * is taken (65 % down the front, the same distance above the hem on the back). The allowance is assumed
 * (SIDE_SEAM_ALLOWANCE_MM, the usual 1 cm) and stated in the result. The other side seam continues too only when
 * the body's girth between the seam lines is a whole number of repeats; how far it is off is reported.
 */
import type { Extraction, PieceInfo } from './types.js';

/** A piece's print shifted in document space: it samples the placement at (X − dx, Y − dy). */
export interface PieceShift {
  readonly layerId: number;
  readonly dx: number;
  readonly dy: number;
}

/** The seam allowance assumed on the side seams: the seam line lies this far inside the cut edge. */
export const SIDE_SEAM_ALLOWANCE_MM = 10;

/** Full panels are symmetric about their centre line; a half cut on the fold is not. */
const FULL_PANEL_SYMMETRY = 0.85;

export function seamShifts(
  ext: Extraction,
  pieces: readonly PieceInfo[],
  anchor: PieceInfo,
  scale: number,
  dpi: number,
): { shifts: PieceShift[]; seams: string[] } {
  if (!ext.lattice) return { shifts: [], seams: [] };
  const sizes = [...new Set(pieces.flatMap((p) => (p.size === undefined ? [] : [p.size])))].sort(
    (a, b) => a - b,
  );
  if (sizes.length === 0) {
    const fronts = pieces.filter((p) => p.part === 'front');
    const backs = pieces.filter((p) => p.part === 'back');
    if (fronts.length !== 1 || backs.length !== 1 || fronts[0] !== anchor) {
      return { shifts: [], seams: ['侧缝未对花：需要恰好一片前片和一片后片（前片为花样基准）'] };
    }
    return sideSeams(ext.lattice, fronts[0]!, backs[0]!, scale, dpi);
  }
  // A graded marker: each size's back runs on from its own front.
  const out: { shifts: PieceShift[]; seams: string[] } = { shifts: [], seams: [] };
  for (const size of sizes) {
    const fronts = pieces.filter((p) => p.size === size && p.part === 'front');
    const backs = pieces.filter((p) => p.size === size && p.part === 'back');
    const matched =
      fronts.length === 1 && backs.length === 1
        ? sideSeams(ext.lattice, fronts[0]!, backs[0]!, scale, dpi)
        : { shifts: [], seams: ['侧缝未对花：需要恰好一片前片和一片后片'] };
    out.shifts.push(...matched.shifts);
    out.seams.push(...matched.seams.map((line) => `尺码 ${size}：${line}`));
  }
  return out;
}

/** The back's print run on from the front's across the side seams (the module's header says how). */
function sideSeams(
  lattice: NonNullable<Extraction['lattice']>,
  front: PieceInfo,
  back: PieceInfo,
  scale: number,
  dpi: number,
): { shifts: PieceShift[]; seams: string[] } {
  if (front.symmetry < FULL_PANEL_SYMMETRY || back.symmetry < FULL_PANEL_SYMMETRY) {
    return {
      shifts: [],
      seams: [`侧缝未对花：“${front.name}”或“${back.name}”不是完整的左右对称衣片（可能是连折裁的半片）`],
    };
  }
  const sa = (SIDE_SEAM_ALLOWANCE_MM / 25.4) * dpi;
  // The body's edges at the height the scale is taken, the same distance above the hem on both panels.
  const aboveHem = Math.round(front.bounds.h * 0.35);
  const f = edgesAt(front, front.bounds.h - 1 - aboveHem);
  const b = edgesAt(back, back.bounds.h - 1 - aboveHem);
  if (!f || !b) return { shifts: [], seams: ['侧缝未对花：前片或后片在衣身高度 65% 处没有像素'] };
  const frontSeam = front.bounds.x + f.right - sa;
  const backSeam = back.bounds.x + b.left + sa;
  const dx = Math.round(backSeam - frontSeam);
  const dy = back.bounds.y + back.bounds.h - (front.bounds.y + front.bounds.h);
  const period = lattice.tileW * scale;
  const girth = f.right - f.left + (b.right - b.left) - 4 * sa;
  const off = ((girth % period) + period) % period;
  const miss = Math.round(Math.min(off, period - off));
  const mm = (px: number) => Math.round((px / dpi) * 254) / 10;
  return {
    shifts: [{ layerId: back.layerId, dx, dy }],
    seams: [
      `侧缝对花：“${back.name}”与“${front.name}”下摆对齐，同一衣身高度的花样垂直相位相同，两条侧缝上的横向花纹都能对上`,
      `“${front.name}”右侧缝与“${back.name}”左侧缝处花样水平连续：按缝份 ${SIDE_SEAM_ALLOWANCE_MM} mm（${Math.round(sa)} px）在裁边内侧对齐净缝线（衣身高度 65% 处）`,
      miss <= 1
        ? `另一条侧缝（“${back.name}”右侧—“${front.name}”左侧）同样连续：净胸围一周 ${Math.round(girth)} px（${mm(girth)} mm）是花样宽度的整数倍`
        : `另一条侧缝（“${back.name}”右侧—“${front.name}”左侧）水平相位相差 ${miss} px（${mm(miss)} mm）：净衣身一周 ${Math.round(girth)} px 不是花样宽度 ${Math.round(period * 10) / 10} px 的整数倍`,
    ],
  };
}

/** The outermost opaque columns of a piece's row (relative to its bounds; `right` is one past the last). */
function edgesAt(p: PieceInfo, row: number): { left: number; right: number } | null {
  const { w, h } = p.bounds;
  const y = Math.min(h - 1, Math.max(0, row));
  let left = -1;
  let right = -1;
  for (let x = 0; x < w; x++) {
    if (!p.mask[y * w + x]) continue;
    if (left < 0) left = x;
    right = x + 1;
  }
  return left < 0 ? null : { left, right };
}
