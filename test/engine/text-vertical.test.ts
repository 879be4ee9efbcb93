/**
 * Vertical text (text-vertical.ts): columns top to bottom, right to left, a leading apart; Chinese upright and
 * centred on the column's line, one em each; punctuation in its vertical form (a full stop in the cell's top
 * right); Latin turned a quarter clockwise; point text about its anchor, paragraph text wrapped at its box's
 * bottom and cut at its left edge. Measured on the drawn pixels.
 */
import { describe, expect, it } from 'vitest';
import type { Raster } from '../../src/engine/model.js';
import { layoutText, renderText, textAnchor } from '../../src/engine/text.js';
import { columnGlyph } from '../../src/engine/text-vertical.js';
import { inkBox } from '../support/ink-box.js';
import { textSpec } from '../support/text-spec.js';

const base = textSpec('春季新品', 300, 40, { orientation: 'vertical' });

/** The ink box of the part of `r` within the rows [top, bottom) (document coordinates). */
function inkIn(r: Raster, top: number, bottom: number): [number, number, number, number] {
  const rows = r.data.slice(Math.max(0, top - r.y) * r.w * 4, Math.max(0, bottom - r.y) * r.w * 4);
  return inkBox({ x: r.x, y: Math.max(top, r.y), w: r.w, h: rows.length / (r.w * 4), data: rows });
}

describe('vertical columns', () => {
  it('stands Chinese upright down a column centred on the anchor, one em a character', () => {
    expect(textAnchor(base)).toEqual({ x: 300, y: 40 });
    const r = renderText(base);
    const [l, t, rr, b] = inkBox(r);
    // Four 40 px characters: about 160 px tall, about 40 wide, centred on x = 300.
    expect(b - t).toBeGreaterThan(140);
    expect(b - t).toBeLessThanOrEqual(160);
    expect(rr - l).toBeLessThanOrEqual(41);
    expect(Math.abs((l + rr) / 2 - 300)).toBeLessThanOrEqual(2);
    expect(t).toBeGreaterThanOrEqual(40);
    // Each character in its own em: the second's ink within [80, 120).
    const [, t2, , b2] = inkIn(r, 80, 120);
    expect(t2).toBeGreaterThanOrEqual(80);
    expect(b2).toBeLessThanOrEqual(120);
  });

  it('sets the next column a leading to the left, and keeps a fixed leading', () => {
    const two = { ...base, content: '春季\n新品' };
    const cols = layoutText(two).lines.map((l) => l.baseline);
    expect(cols).toEqual([300, 300 - 48]);
    expect(layoutText({ ...two, leading: 70 }).lines.map((l) => l.baseline)).toEqual([300, 230]);
  });

  it('aligns a column about the anchor: top, centre or end', () => {
    const top = inkBox(renderText(base));
    const centre = inkBox(renderText({ ...base, justification: 'center' }));
    const end = inkBox(renderText({ ...base, justification: 'right' }));
    expect(Math.abs((centre[1] + centre[3]) / 2 - 40)).toBeLessThanOrEqual(3);
    expect(Math.abs(end[3] - 40)).toBeLessThanOrEqual(4);
    expect(top[1]).toBeGreaterThanOrEqual(40);
  });

  it('puts punctuation in its vertical form: a full stop in the top right of its cell, brackets turned', () => {
    expect(columnGlyph('。')).toEqual({ text: '\uFE12', upright: true });
    expect(columnGlyph('「')).toEqual({ text: '\uFE41', upright: true });
    expect(columnGlyph('A')).toEqual({ text: 'A', upright: false });
    expect(columnGlyph('春')).toEqual({ text: '春', upright: true });
    // 春。: the stop's cell is [80, 120) down the page; its ink in the upper half, right of the column's line.
    const r = renderText({ ...base, content: '春。' });
    const [l, t, rr, b] = inkIn(r, 80, 120);
    expect(b).toBeLessThanOrEqual(100);
    expect(t).toBeGreaterThanOrEqual(80);
    expect(l).toBeGreaterThan(300);
    expect(rr).toBeLessThanOrEqual(320);
  });

  it('turns Latin a quarter clockwise, its em box centred on the line, each letter its own advance', () => {
    const word = renderText({ ...base, content: 'Spring' });
    const [l, t, rr, b] = inkBox(word);
    // Turned: taller than wide (upright, "Spring" at 40 px is about 110 wide and 40 tall).
    expect(b - t).toBeGreaterThan(90);
    expect(rr - l).toBeLessThan(45);
    // Its em box (0.88 em right of the baseline, 0.12 left) centred on the line: the baseline 0.38 em left of it,
    // capitals and dots reaching under 0.8 em right of that, descenders (p, g) a little past the em box on the left.
    expect(l).toBeGreaterThanOrEqual(300 - 0.38 * 40 - 10);
    expect(rr).toBeLessThanOrEqual(300 - 0.38 * 40 + 0.8 * 40);
    expect(rr).toBeGreaterThan(300 + 5);
    // Mixed: the Latin runs on after the Chinese without overlap.
    const mixed = layoutText({ ...base, content: '春A' }).lines[0]!.pieces;
    expect(mixed.map((p) => [p.text, p.turned ?? false])).toEqual([
      ['春', false],
      ['A', true],
    ]);
    expect(mixed[1]!.y).toBeCloseTo(80, 6);
  });

  it('wraps paragraph text at its box’s bottom, first column at its right edge, hiding columns past its left', () => {
    const para = { ...base, x: 100, y: 50, box: [0, 0, 100, 120] as const, content: '春季新品上市全场包邮' };
    const layout = layoutText(para);
    // Three 40 px characters a column in 120 px; columns 48 px apart from the right edge (centre 180): 180, 132
    // fit, 84 reaches past the box's left edge (84 − 20 < 100) and is hidden with the rest.
    expect(layout.lines.map((l) => [l.text, l.baseline])).toEqual([
      ['春季新', 180],
      ['品上市', 132],
    ]);
    expect(layout.hidden).toBe(2);
    const [l, t, rr, b] = inkBox(renderText(para));
    expect(l).toBeGreaterThanOrEqual(100);
    expect(rr).toBeLessThanOrEqual(200);
    expect(t).toBeGreaterThanOrEqual(50);
    expect(b).toBeLessThanOrEqual(170);
  });
});
