/**
 * Lengths on paper: how many of each unit make an inch, and pixels at a resolution as one of them. One place for
 * what the tools report (get_document_info's `physical_size`) and what the studio's forms and status bar show, so
 * the two never disagree. It imports nothing: the studio bundles it.
 */

/** Units per inch. */
export const PER_INCH = { mm: 25.4, cm: 2.54, in: 1, pt: 72 } as const;
export type Length = keyof typeof PER_INCH;

/** `px` pixels at `dpi` as `unit`, rounded to `decimals` places. */
export function pixelsAs(px: number, dpi: number, unit: Length, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round((px / dpi) * PER_INCH[unit] * scale) / scale;
}
