/**
 * Colours as PSD descriptors hold them (ag-psd's `Color`), read as channel values: shared by the PSD reader and
 * the adjustment layers that carry a colour (Black & White's tint).
 */
import type { Color as AgColor } from 'ag-psd';

/**
 * The channel values (0–1, unrounded) of the RGB, HSB and gray forms of a descriptor colour, which are the
 * document's own channel values; undefined for the absolute (Lab) and ink (CMYK) forms.
 */
export function channelValues(c: AgColor): [number, number, number] | undefined {
  if ('r' in c) return [c.r / 255, c.g / 255, c.b / 255];
  if ('fr' in c) return [c.fr, c.fg, c.fb];
  if ('h' in c && 's' in c) {
    // HSB: h 0..1 of a turn, s and b in percent.
    const h = (((c.h % 1) + 1) % 1) * 6;
    const s = c.s / 100;
    const v = c.b / 100;
    const f = h - Math.floor(h);
    const p = v * (1 - s);
    const q = v * (1 - s * f);
    const t = v * (1 - s * (1 - f));
    return (
      [
        [v, t, p],
        [q, v, p],
        [p, v, t],
        [p, q, v],
        [t, p, v],
        [v, p, q],
      ] as const
    )[Math.floor(h) % 6]!.slice() as [number, number, number];
  }
  if ('k' in c && !('c' in c)) {
    // Gray (`Gry `): percent of ink.
    const v = 1 - c.k / 100;
    return [v, v, v];
  }
  return undefined;
}
