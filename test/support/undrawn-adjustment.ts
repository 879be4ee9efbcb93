/**
 * An adjustment layer Atelier keeps but does not draw, as ag-psd writes one: Color Balance (色彩平衡), warmer
 * midtones. The tests of what is said and refused about such layers use it.
 */
import type { Layer as AgLayer } from 'ag-psd';

export const colorBalanceLayer = (extra: Partial<AgLayer> = {}): AgLayer => ({
  name: '色彩平衡 1',
  adjustment: {
    type: 'color balance',
    shadows: { cyanRed: 0, magentaGreen: 0, yellowBlue: 0 },
    midtones: { cyanRed: 40, magentaGreen: 0, yellowBlue: -20 },
    highlights: { cyanRed: 0, magentaGreen: 0, yellowBlue: 0 },
    preserveLuminosity: true,
  },
  ...extra,
});
