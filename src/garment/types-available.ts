/**
 * Which piece types a photo's reading can give: an all-over fill needs a repeat (a photo read as a placed motif
 * or a plain garment has none to tile, and the photo itself stretched past its edge would streak every piece),
 * a motif over a ground needs a motif. One rule for the apply's refusal and for what the studio offers.
 */
import type { Extraction, PieceType } from './types.js';

/** Why the photo's reading cannot give `type` (a Chinese sentence), or null when it can. */
export function typeUnavailable(ext: Extraction, type: PieceType): string | null {
  if ((type === 'fill_pattern' || type === 'mixed_pattern') && !ext.lattice && ext.kind !== 'fill_pattern')
    return '照片中没有检测到重复的满印花样';
  if ((type === 'theme_pattern' || type === 'mixed_pattern') && !ext.motif) return '照片中没有检测到主题图案';
  return null;
}
