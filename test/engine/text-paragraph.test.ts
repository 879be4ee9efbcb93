/**
 * Paragraph settings of text (src/engine/text-paragraph.ts) and how the renderer lays them out
 * (src/engine/text.ts): line breaking in a box (words, Chinese characters, Photoshop's hard kinsoku), spreading
 * justified lines, alignment about a point text's anchor and within a box, lines hidden below a box, and what a
 * new size or a scale keeps in place. Line breaking is checked with a font of fixed-width characters (one unit
 * each) so each break is exact.
 */
import { describe, expect, it } from 'vitest';
import type { TextSpec } from '../../src/engine/model.js';
import {
  BUNDLED_FONT,
  layoutText,
  renderText,
  resizeTextSpec,
  scaleTextSpec,
  TEXT_BASELINE_EM,
  textAnchor,
} from '../../src/engine/text.js';
import { paragraphOf, spreadLine, wrapParagraph } from '../../src/engine/text-paragraph.js';
import { inkBox } from '../support/ink-box.js';

/** Every character one unit wide. */
const mono = (s: string) => [...s].length;

function spec(over: Partial<TextSpec> = {}): TextSpec {
  return {
    content: '你好',
    x: 100,
    y: 50,
    size: 40,
    color: { r: 0, g: 0, b: 0 },
    font: BUNDLED_FONT,
    renderedFont: BUNDLED_FONT,
    ...over,
  };
}

describe('wrapParagraph', () => {
  it('keeps a paragraph that fits on one line as it is', () => {
    expect(wrapParagraph('春季新品', 4, mono)).toEqual(['春季新品']);
    expect(wrapParagraph('two words ', 9, mono)).toEqual(['two words ']);
  });

  it('breaks Chinese between any two characters, but never before closing nor after opening punctuation', () => {
    expect(wrapParagraph('春季新品上市欢迎选购', 4, mono)).toEqual(['春季新品', '上市欢迎', '选购']);
    // "，" may not start a line: the character before it goes down with it.
    expect(wrapParagraph('春季新品，全场八折', 4, mono)).toEqual(['春季新', '品，全场', '八折']);
    // "「" may not end a line.
    expect(wrapParagraph('春季新「品」上市', 4, mono)).toEqual(['春季新', '「品」上', '市']);
  });

  it('breaks Latin at spaces, which hang at the end of their line and do not start the next', () => {
    expect(wrapParagraph('the quick brown fox', 10, mono)).toEqual(['the quick', 'brown fox']);
    expect(wrapParagraph('aa   bb', 3, mono)).toEqual(['aa', 'bb']);
  });

  it('cuts a word wider than the box between its characters', () => {
    expect(wrapParagraph('abcdefgh ij', 3, mono)).toEqual(['abc', 'def', 'gh', 'ij']);
  });

  it('mixes Chinese and Latin: a break between them is allowed', () => {
    expect(wrapParagraph('新品Sale上市', 5, mono)).toEqual(['新品', 'Sale上', '市']);
  });
});

describe('spreadLine', () => {
  it('shares the extra width between the spaces, or between the characters of Chinese', () => {
    expect(spreadLine('ab cd', 9, mono)).toEqual([
      { text: 'ab', dx: 0, at: 0 },
      { text: 'cd', dx: 3 + 4, at: 3 },
    ]);
    expect(spreadLine('春季新', 5, mono)).toEqual([
      { text: '春', dx: 0, at: 0 },
      { text: '季', dx: 2, at: 1 },
      { text: '新', dx: 4, at: 2 },
    ]);
  });

  it('leaves a single word and a full line alone', () => {
    expect(spreadLine('word', 9, mono)).toBeUndefined();
    expect(spreadLine('ab cd', 5, mono)).toBeUndefined();
  });
});

describe('layout', () => {
  it('centred and right-aligned point text sit about the anchor: the centre or the end of the first baseline', () => {
    const left = layoutText(spec({ content: '春季新品 Sale' }));
    const centre = layoutText(spec({ content: '春季新品 Sale', justification: 'center' }));
    const right = layoutText(spec({ content: '春季新品 Sale', justification: 'right' }));
    const w = left.ink.w;
    expect(centre.ink.w).toBeCloseTo(w, 6);
    expect(centre.ink.x + centre.ink.w / 2).toBeCloseTo(100, 0);
    expect(right.ink.x + right.ink.w).toBeLessThanOrEqual(100 + 0.5);
    expect(right.ink.x + right.ink.w).toBeGreaterThan(100 - 4);
    // The same baselines as left-aligned text: the anchor's height.
    expect(centre.lines.map((l) => l.baseline)).toEqual(left.lines.map((l) => l.baseline));
    expect(left.lines[0]!.baseline).toBeCloseTo(textAnchor(spec()).y, 9);
  });

  it('box text starts one ascent (the height of "d") below the box top, aligned within the box', () => {
    const box = [0, 0, 400, 200] as const;
    const s = spec({ content: 'Windows', size: 72, box, justification: 'center' });
    const layout = layoutText(s);
    // Noto Sans CJK's "d" is 0.806 em tall, where Photoshop puts the first baseline of its paragraph text (58 px
    // below the box top at 72 px in Photoshop's own rendering of this text: test/tools/text-paragraph.test.ts).
    expect((layout.lines[0]!.baseline - s.y) / s.size).toBeCloseTo(0.806, 2);
    expect(layout.ink.x + layout.ink.w / 2).toBeCloseTo(s.x + 200, 0);
    const r = renderText({ ...s, justification: 'right' } as TextSpec);
    expect(inkBox(r)[2]).toBeLessThanOrEqual(s.x + 400 + 1);
    expect(inkBox(r)[2]).toBeGreaterThan(s.x + 400 - 6);
  });

  it('wraps box text to the box, spreads justified lines to its width, and hides lines below it', () => {
    const content = '春季新品上市，全场八折优惠，欢迎选购。会员另享九五折。';
    // Ten 20 px characters fit a line of 210 px, with 10 px to spare.
    const box = [0, 0, 210, 1000] as const;
    const all = layoutText(spec({ content, size: 20, box, justification: 'justify-left' }));
    expect(all.lines.map((l) => l.text)).toEqual([
      '春季新品上市，全场八',
      '折优惠，欢迎选购。会',
      '员另享九五折。',
    ]);
    expect(all.ink.x).toBeGreaterThanOrEqual(100 - 1);
    expect(all.ink.x + all.ink.w).toBeLessThanOrEqual(310 + 1);
    // The first two lines reach the right edge (spread); the last one stays left.
    const r = renderText(spec({ content, size: 20, box, justification: 'justify-left' }));
    expect(inkBox(r)[2]).toBeGreaterThan(310 - 3);
    expect(all.lines[2]!.parts).toBeUndefined();
    expect(all.lines[0]!.parts).toHaveLength([...all.lines[0]!.text].length);
    // A box two lines tall shows two lines.
    const short = layoutText(spec({ content, size: 20, box: [0, 0, 210, 2 * 24 + 1] }));
    expect(short.lines.length).toBe(2);
    expect(short.ink.y + short.ink.h).toBeLessThanOrEqual(50 + 49 + 1);
  });

  it('indents: each paragraph’s first line two characters in, every line within the left and right indents', () => {
    const content = '春季新品上市，全场八折优惠。\n会员另享九五折。';
    const box = [0, 0, 210, 1000] as const;
    // 20 px characters: 210 px less a 10 px left and 20 px right indent leaves 9 characters a line; the first line
    // of each paragraph, two characters (40 px) further in, 7.
    const indent = { left: 10, first: 40, right: 20 };
    const laid = layoutText(spec({ content, size: 20, box, indent }));
    expect(laid.lines.map((l) => l.text)).toEqual([
      '春季新品上市，',
      '全场八折优惠。',
      '会员另享九五',
      '折。',
    ]);
    // 会员另享九五折 would fit, but a line may not start with 。: 折 goes down with it (kinsoku).
    expect(laid.lines.map((l) => [...l.text].length)).toEqual([7, 7, 6, 2]);
    expect(laid.lines.map((l) => l.x)).toEqual([150, 110, 150, 110]);
    // Right-aligned, each line ends at the right indent; justified, lines are spread between the indents.
    const right = layoutText(spec({ content, size: 20, box, indent, justification: 'right' }));
    for (const l of right.lines) expect(l.x + [...l.text].length * 20).toBeCloseTo(100 + 210 - 20, 0);
    const spread = layoutText(spec({ content, size: 20, box, indent, justification: 'justify-left' }));
    // 会员另享九五 (a first line, not its paragraph's last) is spread from its indent to the right one.
    expect(spread.lines[2]!.parts![0]!.x).toBeCloseTo(150, 6);
    expect(spread.lines[2]!.parts!.at(-1)!.x + 20).toBeCloseTo(100 + 210 - 20, 0);
    expect(spread.lines[1]!.parts).toBeUndefined();
    // Drawn where laid out: a wrapped line's ink starts 40 px left of its paragraph's first line.
    const wrapped = { content: '春季新品上市', size: 20, box: [0, 0, 130, 100] as const };
    const r = renderText(spec({ ...wrapped, indent: { left: 0, first: 40, right: 0 } }));
    expect(inkBox(r)[0]).toBeGreaterThanOrEqual(100 - 1);
    expect(inkBox(r)[0]).toBeLessThan(100 + 4);
    const firstLine = layoutText(spec({ ...wrapped, indent: { left: 0, first: 40, right: 0 } })).lines[0]!;
    expect([firstLine.text, firstLine.x]).toEqual(['春季新品', 140]);
  });

  it('indents point text about its anchor: after it when left-aligned, before it when right-aligned', () => {
    const indent = { left: 30, first: 10, right: 50 };
    expect(layoutText(spec({ indent })).lines[0]!.x).toBeCloseTo(140, 6);
    const right = layoutText(spec({ indent, justification: 'right' }));
    expect(right.lines[0]!.x + 80).toBeCloseTo(50, 0);
    const centre = layoutText(spec({ indent, justification: 'center' }));
    expect(centre.lines[0]!.x + 40).toBeCloseTo(100 + (40 - 50) / 2, 0);
  });
});

describe('what a new size and a scale keep', () => {
  it('point text keeps its anchor; box text keeps its box and corner', () => {
    const centred = spec({ justification: 'center' });
    const bigger = resizeTextSpec(centred, 80);
    expect(textAnchor(bigger)).toEqual(textAnchor(centred));
    expect(paragraphOf(bigger)).toEqual({ justification: 'center' });
    const box = spec({ box: [0, 0, 300, 120], justification: 'right' });
    const boxed = resizeTextSpec(box, 80);
    expect([boxed.x, boxed.y]).toEqual([box.x, box.y]);
    expect(paragraphOf(boxed)).toEqual({ justification: 'right', box: [0, 0, 300, 120] });
    // Rotated point text: the anchor is the rotation's fixed point, so it stays too.
    const turned = spec({ transform: [0.8, 0.6, -0.6, 0.8] });
    const t2 = resizeTextSpec(turned, 10);
    expect(textAnchor(t2).x).toBeCloseTo(textAnchor(turned).x, 4);
    expect(textAnchor(t2).y).toBeCloseTo(textAnchor(turned).y, 4);
    expect(TEXT_BASELINE_EM).toBe(0.88);
  });

  it('a uniform scale scales a paragraph box with the text', () => {
    const box = spec({ box: [0, 0, 300, 120], justification: 'center' });
    const half = scaleTextSpec(box, 0.5, 0.5, { x: 0, y: 0 });
    expect(paragraphOf(half)).toEqual({ justification: 'center', box: [0, 0, 150, 60] });
    expect([half.x, half.y, half.size]).toEqual([50, 25, 20]);
    // The leading and indents, in the size's units, scale with it; tracking, in ems, follows by itself.
    const set = scaleTextSpec(
      spec({ box: [0, 0, 300, 120], leading: 60, tracking: 200, indent: { left: 10, first: 80, right: 0 } }),
      0.5,
      0.5,
      { x: 0, y: 0 },
    );
    expect([set.leading, set.tracking, set.indent]).toEqual([30, 200, { left: 5, first: 40, right: 0 }]);
  });
});
