/**
 * Physical sizes in a tool's form, as Photoshop's New Document and Image Size dialogs offer them: a tool whose
 * registry limits mark lengths in pixels (`unit: 'px'`) and a resolution (`unit: 'dpi'`) can be filled in
 * millimetres, centimetres, inches or points, or from a paper size. The form still sends pixels: the registry's
 * parameters are the one contract.
 */
import { PER_INCH, pixelsAs } from '../../registry/lengths.js';
import type { ParamLimits } from '../../registry/types.js';

/** Pixels, then the units on paper (pixels have no size of their own: it depends on the resolution). */
export const UNITS = ['px', 'mm', 'cm', 'in', 'pt'] as const;
export type Unit = (typeof UNITS)[number];

export interface Physical {
  /** The parameters that are lengths in pixels, in the schema's order (width before height). */
  readonly lengths: readonly string[];
  readonly dpi: string;
}

/** The tool's length and resolution parameters, or null when it has no length in pixels or no resolution. */
export function physicalOf(
  limits: Readonly<Record<string, ParamLimits>>,
  order: readonly string[],
): Physical | null {
  const lengths = order.filter((name) => limits[name]?.unit === 'px');
  const dpi = order.find((name) => limits[name]?.unit === 'dpi');
  return lengths.length > 0 && dpi ? { lengths, dpi } : null;
}

/** Pixels as `unit` at `dpi`, to two decimals unless told (whole pixels as they are). */
export function fromPixels(px: number, dpi: number, unit: Unit, decimals = 2): number {
  return unit === 'px' ? px : pixelsAs(px, dpi, unit, decimals);
}

/** A length in `unit` at `dpi` as whole pixels (Photoshop rounds to the nearest pixel), at least one. */
export function toPixels(value: number, dpi: number, unit: Unit): number {
  const px = unit === 'px' ? value : (value / PER_INCH[unit]) * dpi;
  return Math.max(1, Math.round(px));
}

export interface Paper {
  readonly id: string;
  readonly zh: string;
  readonly en: string;
  /** Portrait, in millimetres. */
  readonly mm: readonly [number, number];
}

/**
 * The sizes a print designer in China reaches for first, largest first in each series: ISO 216's A (A0–A2 for
 * posters) and B (ISO's B5 is 176 × 250 mm; JIS's B5, 182 × 257, is another paper), the US letter, a business card.
 */
export const PAPERS: readonly Paper[] = [
  { id: 'a0', zh: 'A0', en: 'A0', mm: [841, 1189] },
  { id: 'a1', zh: 'A1', en: 'A1', mm: [594, 841] },
  { id: 'a2', zh: 'A2', en: 'A2', mm: [420, 594] },
  { id: 'a3', zh: 'A3', en: 'A3', mm: [297, 420] },
  { id: 'a4', zh: 'A4', en: 'A4', mm: [210, 297] },
  { id: 'a5', zh: 'A5', en: 'A5', mm: [148, 210] },
  { id: 'b4', zh: 'B4', en: 'B4', mm: [250, 353] },
  { id: 'b5', zh: 'B5', en: 'B5', mm: [176, 250] },
  { id: 'letter', zh: '美国信纸', en: 'US Letter', mm: [215.9, 279.4] },
  { id: 'card', zh: '名片 90×54', en: 'Business card 90×54', mm: [54, 90] },
];

/** A paper's size in pixels at `dpi`, portrait or landscape. */
export function paperPixels(paper: Paper, dpi: number, landscape: boolean): [number, number] {
  const [w, h] = paper.mm.map((mm) => toPixels(mm, dpi, 'mm')) as [number, number];
  return landscape ? [h, w] : [w, h];
}
