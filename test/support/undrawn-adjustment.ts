/**
 * An adjustment layer Atelier keeps but does not draw, as ag-psd writes one: Vibrance (自然饱和度), a little more
 * vibrant. The tests of what is said and refused about such layers use it.
 */
import type { Layer as AgLayer } from 'ag-psd';

export const vibranceLayer = (extra: Partial<AgLayer> = {}): AgLayer => ({
  name: '自然饱和度 1',
  adjustment: { type: 'vibrance', vibrance: 40, saturation: 0 },
  ...extra,
});
