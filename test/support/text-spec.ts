import type { TextSpec } from '../../src/engine/model.js';

/**
 * A text spec for the text tests: black 40 px text in the bundled font (as a PSD names it) at `x, y`, with
 * `over` laid over it.
 */
export function textSpec(content: string, x: number, y: number, over: Partial<TextSpec> = {}): TextSpec {
  return {
    content,
    x,
    y,
    size: 40,
    color: { r: 0, g: 0, b: 0 },
    font: 'NotoSansHans-Regular',
    renderedFont: 'Noto Sans SC',
    ...over,
  };
}
