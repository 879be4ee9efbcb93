/**
 * Vertical text (text-vertical.ts): columns top to bottom, right to left, a leading apart; Chinese upright and
 * centred on the column's line, one em each; punctuation in its vertical form (a full stop in the cell's top
 * right); Latin turned a quarter clockwise; point text about its anchor, paragraph text wrapped at its box's
 * bottom and cut at its left edge. Measured on the drawn pixels.
 */
import { describe, expect, it } from 'vitest';
import type { Raster } from '../../src/engine/model.js';
import { layoutText, renderText, textAnchor } from '../../src/engine/text.js';
import { SUPERSCRIPT_POSITION, SUPERSCRIPT_SIZE } from '../../src/engine/text-character.js';
import { restyle } from '../../src/engine/text-runs.js';
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
    // Three 40 px characters a column in 120 px; columns 48 px apart from the right edge. The first column is
    // horizontal text's first line turned: its turned baseline an ascent ("d": 0.8 em) inside the box's right
    // edge, the em box centred 0.38 em right of it (centre about 182), as Photoshop's renderings of vertical
    // paragraph text show (text-photoshop.test.ts); 182 and 134 fit, 86 reaches past the box's left edge
    // (86 − 20 < 100) and is hidden with the rest.
    const columns = layout.lines.map((l) => [l.text, l.baseline] as const);
    expect(columns.map(([t]) => t)).toEqual(['春季新', '品上市']);
    expect(columns[0]![1]).toBeGreaterThan(181);
    expect(columns[0]![1]).toBeLessThan(183.5);
    expect(columns[0]![1] - columns[1]![1]).toBeCloseTo(48, 6);
    expect(layout.hidden).toBe(2);
    const [l, t, rr, b] = inkBox(renderText(para));
    expect(l).toBeGreaterThanOrEqual(100);
    // The glyphs' tops, turned, reach the box's edge as a first line's reach its top: within a pixel or two.
    expect(rr).toBeLessThanOrEqual(202);
    expect(t).toBeGreaterThanOrEqual(50);
    expect(b).toBeLessThanOrEqual(170);
  });
});

/**
 * The character panel's other settings in a column act in the line's frame (a vertical line is a horizontal one
 * turned a quarter clockwise): shifts move characters right, the horizontal scale runs down the column.
 */
describe('character settings in a column', () => {
  const sameShifted = (a: Raster, b: Raster, dx: number) => {
    expect([a.x, a.y, a.w, a.h]).toEqual([b.x + dx, b.y, b.w, b.h]);
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
  };

  it('shifts the baseline to the right by exactly the shift, upright and turned characters alike', () => {
    for (const content of ['春季', 'Sale']) {
      const plain = renderText({ ...base, content });
      sameShifted(renderText(restyle({ ...base, content }, { baselineShift: 12 })), plain, 12);
      sameShifted(renderText(restyle({ ...base, content }, { baselineShift: -7 })), plain, -7);
    }
  });

  it('moves only the shifted characters: the others stay on the column', () => {
    const mixed = restyle(base, { baselineShift: 12 }, 1, 2);
    const r = renderText(mixed);
    const [l1, , r1] = inkIn(r, 40, 80);
    const [l2, , r2] = inkIn(r, 80, 120);
    expect(Math.abs((l1 + r1) / 2 - 300)).toBeLessThanOrEqual(2);
    expect(Math.abs((l2 + r2) / 2 - 312)).toBeLessThanOrEqual(2);
  });

  it('runs the horizontal scale down the column (height and advance), the vertical scale across it', () => {
    const [l, t, rr, b] = inkBox(renderText(base));
    const along = restyle(base, { horizontalScale: 0.5 });
    const [la, ta, ra, ba] = inkBox(renderText(along));
    // Half as tall (each character half an em down the page), as wide as before.
    expect(Math.abs(ba - ta - (b - t) / 2)).toBeLessThanOrEqual(2);
    expect(Math.abs(ra - la - (rr - l))).toBeLessThanOrEqual(1);
    const steps = layoutText(along).lines[0]!.pieces.map((p) => p.y!);
    expect(steps[1]! - steps[0]!).toBeCloseTo(20, 3);
    const [lc, tc, rc, bc] = inkBox(renderText(restyle(base, { verticalScale: 0.5 })));
    expect(Math.abs(rc - lc - (rr - l) / 2)).toBeLessThanOrEqual(1.5);
    expect(Math.abs(bc - tc - (b - t))).toBeLessThanOrEqual(1);
    expect(Math.abs((lc + rc) / 2 - 300)).toBeLessThanOrEqual(1.5);
  });

  it('stretches a turned letter along the column by the horizontal scale', () => {
    const word = { ...base, content: 'HH' };
    const [, t, , b] = inkBox(renderText(word));
    const [, ts, , bs] = inkBox(renderText(restyle(word, { horizontalScale: 2 })));
    expect(Math.abs(bs - ts - 2 * (b - t))).toBeLessThanOrEqual(3);
  });

  it('draws all caps and small caps as capitals, the words keeping their case', () => {
    const caps = restyle({ ...base, content: 'sale' }, { caps: 'all' });
    expect(caps.content).toBe('sale');
    const typed = renderText({ ...base, content: 'SALE' });
    const drawn = renderText(caps);
    expect([drawn.x, drawn.y, drawn.w, drawn.h]).toEqual([typed.x, typed.y, typed.w, typed.h]);
    expect(Buffer.from(drawn.data).equals(Buffer.from(typed.data))).toBe(true);
    // Small caps: the lowercase letters' capitals at 70 %, shorter across the column than the capital S.
    const small = renderText(restyle({ ...base, content: 'Ss' }, { caps: 'small' }));
    const [, , sr] = inkBox(renderText({ ...base, content: 'SS' }));
    const [, , smallR] = inkBox(small);
    expect(smallR).toBe(sr);
    const pieces = layoutText(restyle({ ...base, content: 'Ss' }, { caps: 'small' })).lines[0]!.pieces;
    expect(pieces.map((p) => p.text)).toEqual(['S', 'S']);
  });

  it('sets superscript smaller and to the right of the column by the position', () => {
    const sup = restyle(base, { position: 'superscript' }, 3, 4);
    const r = renderText(sup);
    const plain = renderText(base);
    const cell = 40 + 3 * 40;
    const [l0, t0, r0, b0] = inkIn(plain, cell, cell + 40);
    const [l, t, rr, b] = inkIn(r, cell, cell + 40);
    expect(Math.abs((b - t) / (b0 - t0) - SUPERSCRIPT_SIZE)).toBeLessThanOrEqual(0.06);
    // Its centre: the smaller glyph's centre moved right by the position.
    expect(Math.abs((l + rr) / 2 - ((l0 + r0) / 2 + SUPERSCRIPT_POSITION * 40))).toBeLessThanOrEqual(1.5);
  });
});
