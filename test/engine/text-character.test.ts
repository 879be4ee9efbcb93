/**
 * The character panel's other settings drawn (text-character.ts): baseline shift, horizontal and vertical scale,
 * all caps and small caps, superscript and subscript, each character's tracking and leading. Each is measured on
 * the pixels against an independent expectation: the same glyphs drawn another way (capitals typed as capitals),
 * or the distances the settings state, to a pixel (ink edges are read at half coverage).
 */
import { describe, expect, it } from 'vitest';
import type { Raster, TextSpec } from '../../src/engine/model.js';
import { layoutText, renderText, scaleTextSpec } from '../../src/engine/text.js';
import {
  SMALL_CAP_SIZE,
  SUBSCRIPT_POSITION,
  SUBSCRIPT_SIZE,
  SUPERSCRIPT_POSITION,
  SUPERSCRIPT_SIZE,
  settingsChangeOf,
  settingWords,
} from '../../src/engine/text-character.js';
import { restyle, runList, withContent } from '../../src/engine/text-runs.js';
import { withSpacing } from '../../src/engine/text-spacing.js';
import { inkBox } from '../support/ink-box.js';
import { textSpec } from '../support/text-spec.js';

const SIZE = 60;
const word = (content: string, over: Partial<TextSpec> = {}) =>
  textSpec(content, 20, 20, { size: SIZE, ...over });
/** Baseline of the first line of `word` (the anchor: y + 0.88 em). */
const BASELINE = 20 + 0.88 * SIZE;

/** The ink box of the characters `[from, to)` of `spec` drawn alone (the others made invisible by content). */
function inkOfRange(spec: TextSpec, from: number, to: number): [number, number, number, number] {
  // The other characters drawn transparent: their colour's alpha is not a thing, so draw the range on its own
  // layout by blanking the rest with spaces (the same advances are not needed: only this range's ink is read).
  const blanked = spec.content.slice(0, from).replace(/[^\n]/g, ' ') + spec.content.slice(from, to);
  return inkBox(renderText(withContent(spec, blanked)));
}

/** Positions as Skia measures them (in single precision): to a thousandth of a pixel. */
function near(actual: readonly number[], expected: readonly number[]): void {
  expect(actual).toHaveLength(expected.length);
  for (const [i, v] of expected.entries()) expect(actual[i]).toBeCloseTo(v, 3);
}

function sameRaster(a: Raster, b: Raster): void {
  expect([a.x, a.y, a.w, a.h]).toEqual([b.x, b.y, b.w, b.h]);
  expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
}

describe('baseline shift', () => {
  it('raises (or lowers) the characters by exactly the shift, the line staying where it was', () => {
    const plain = renderText(word('99元'));
    const up = renderText(restyle(word('99元'), { baselineShift: 12 }));
    // Integer shift: the same pixels, 12 rows higher.
    sameRaster(up, { ...plain, y: plain.y - 12 });
    const down = renderText(restyle(word('99元'), { baselineShift: -7 }));
    sameRaster(down, { ...plain, y: plain.y + 7 });
  });

  it('moves only its own characters: the others stay on the baseline', () => {
    const mixed = restyle(word('99元'), { baselineShift: 12 }, 0, 2);
    const yuan = inkOfRange(mixed, 2, 3);
    const alone = inkOfRange(word('99元'), 2, 3);
    expect(yuan[1]).toBe(alone[1]);
    expect(yuan[3]).toBe(alone[3]);
    const digits = inkOfRange(mixed, 0, 2);
    expect(digits[3]).toBe(inkOfRange(word('99元'), 0, 2)[3] - 12);
  });
});

describe('horizontal and vertical scale', () => {
  it('stretches the glyphs about their baseline’s start and moves what follows by the scaled advance', () => {
    const plain = inkBox(renderText(word('压扁')));
    const wide = inkBox(renderText(restyle(word('压扁'), { horizontalScale: 1.5, verticalScale: 0.5 })));
    const width = (b: number[]) => b[2]! - b[0]!;
    const height = (b: number[]) => b[3]! - b[1]!;
    // Half-coverage edges: within 2 px of the stated scale.
    expect(Math.abs(width(wide) - 1.5 * width(plain))).toBeLessThanOrEqual(2);
    expect(Math.abs(height(wide) - 0.5 * height(plain))).toBeLessThanOrEqual(2);
    // About the baseline: the ink above it halves, and the left edge stays near the start (the side bearing scaled).
    expect(Math.abs(BASELINE - wide[1] - 0.5 * (BASELINE - plain[1]))).toBeLessThanOrEqual(1.5);
    expect(Math.abs(wide[0] - 20 - 1.5 * (plain[0] - 20))).toBeLessThanOrEqual(1.5);

    // What follows starts where the scaled advance ends: 压 at 150 % pushes 扁 by half an em.
    const lines = (t: TextSpec) => layoutText(t).lines[0]!.pieces.map((p) => p.x);
    near(lines(restyle(word('压扁'), { horizontalScale: 1.5 }, 0, 1)), [20, 20 + 1.5 * SIZE]);
  });

  it('keeps tracking in ems of the size, unscaled', () => {
    const x = (t: TextSpec) => layoutText(t).lines[0]!.pieces.map((p) => p.x);
    const tracked = restyle(word('压扁'), { horizontalScale: 0.5, tracking: 500 }, 0, 1);
    // Half an em of glyph, then half an em of tracking.
    near(x(tracked), [20, 20 + 0.5 * SIZE + 0.5 * SIZE]);
  });
});

describe('case', () => {
  it('draws all caps as the capitals typed would be drawn, the words unchanged', () => {
    const caps = restyle(word('Sale now'), { caps: 'all' });
    expect(caps.content).toBe('Sale now');
    sameRaster(renderText(caps), renderText(word('SALE NOW')));
  });

  it('draws small caps’ lowercase letters as capitals at 70 % of the size', () => {
    const small = restyle(word('Hh'), { caps: 'small' });
    const cap = inkOfRange(small, 0, 1);
    const lower = inkOfRange(small, 1, 2);
    // Both sit on the baseline; the small one is 70 % as tall (cap height), within 1.5 px.
    expect(Math.abs(cap[3] - lower[3])).toBeLessThanOrEqual(1);
    const capHeight = cap[3] - cap[1];
    expect(Math.abs(lower[3] - lower[1] - SMALL_CAP_SIZE * capHeight)).toBeLessThanOrEqual(1.5);
    // And it is an H, not an h: an h at this size reaches the ascender, higher than a capital's top.
    const plainH = inkOfRange(word('Hh'), 1, 2);
    expect(plainH[1]).toBeLessThan(lower[1] - 10);
  });
});

describe('superscript and subscript', () => {
  it('draws them at 58.3 % of the size, raised or lowered by 33.3 % of it', () => {
    const two = inkOfRange(word('m2'), 1, 2);
    const sup = inkOfRange(restyle(word('m2'), { position: 'superscript' }, 1, 2), 1, 2);
    const sub = inkOfRange(restyle(word('H2O'), { position: 'subscript' }, 1, 2), 1, 2);
    const plainHeight = two[3] - two[1];
    expect(Math.abs(sup[3] - sup[1] - SUPERSCRIPT_SIZE * plainHeight)).toBeLessThanOrEqual(1.5);
    // The digit sits on the baseline: its foot moves by exactly the position.
    expect(Math.abs(sup[3] - (two[3] - SUPERSCRIPT_POSITION * SIZE))).toBeLessThanOrEqual(1);
    expect(Math.abs(sub[3] - (two[3] + SUBSCRIPT_POSITION * SIZE))).toBeLessThanOrEqual(1);
    // Its advance is the smaller glyph's: what follows moves up to it (advances scale with the size, to 0.5 px).
    const x = layoutText(restyle(word('H2O'), { position: 'subscript' }, 1, 2)).lines[0]!.pieces.map(
      (p) => p.x,
    );
    const plainTwo = layoutText(word('2')).lines[0]!.pieces[0]!.width!;
    expect(Math.abs(x[2]! - x[1]! - SUBSCRIPT_SIZE * plainTwo)).toBeLessThanOrEqual(0.5);
  });

  it('keeps the line’s height by the characters’ own size (auto leading)', () => {
    const two = (t: TextSpec) => layoutText(t).lines.map((l) => l.baseline);
    const lines = two(word('m2\n下一行'));
    expect(two(restyle(word('m2\n下一行'), { position: 'superscript' }, 1, 2))).toEqual(lines);
  });
});

describe('leading and tracking per character', () => {
  it('sets a line by the largest leading of its characters', () => {
    const text = word('第一行\n第二行\n第三行');
    const baselines = (t: TextSpec) => layoutText(t).lines.map((l) => l.baseline);
    const auto = baselines(text);
    expect(auto[1]! - auto[0]!).toBeCloseTo(1.2 * SIZE, 6);
    // One character of the second line at 120 px: that line is 120 below the first; the third is back at auto.
    const one = baselines(restyle(text, { leading: 120 }, 5, 6));
    expect(one[1]! - one[0]!).toBeCloseTo(120, 6);
    expect(one[2]! - one[1]!).toBeCloseTo(1.2 * SIZE, 6);
    // Set for every character, then one line's tighter: the larger still sets it.
    const all = withSpacing(text, { leading: 90 });
    expect(runList(all)).toHaveLength(1);
    const mixed = baselines(restyle(all, { leading: 40 }, 4, 5));
    expect(mixed[1]! - mixed[0]!).toBeCloseTo(90, 6);
  });

  it('tracks only the characters given', () => {
    const x = (t: TextSpec) => layoutText(t).lines[0]!.pieces.map((p) => p.x);
    const plain = x(word('新品上市'));
    expect(plain).toEqual([20]);
    const tracked = x(restyle(word('新品上市'), { tracking: 500 }, 0, 2));
    // Two characters, each followed by half an em: the rest starts one em later than it would.
    near(tracked, [20, 20 + 2 * SIZE + SIZE]);
  });
});

describe('through edits', () => {
  const styled = restyle(
    restyle(
      word('限时5折'),
      { baselineShift: 10, horizontalScale: 0.8, caps: 'all', position: 'superscript' },
      2,
      3,
    ),
    { tracking: 200, leading: 90 },
    0,
    2,
  );

  it('keeps each kept character’s settings, and scales the pixel ones with the text', () => {
    const edited = withContent(styled, '限时6折');
    expect(
      runList(edited).map(({ length, baselineShift, horizontalScale, caps, position, tracking }) => [
        length,
        baselineShift,
        horizontalScale,
        caps,
        position,
        tracking,
      ]),
    ).toEqual([
      [2, undefined, undefined, undefined, undefined, 200],
      [1, 10, 0.8, 'all', 'superscript', undefined],
      [1, undefined, undefined, undefined, undefined, undefined],
    ]);
    const doubled = scaleTextSpec(styled, 2, 2, { x: 0, y: 0 });
    expect(runList(doubled).map((r) => [r.size, r.leading, r.baselineShift, r.tracking])).toEqual([
      [120, 180, undefined, 200],
      [120, undefined, 20, undefined],
      [120, undefined, undefined, undefined],
    ]);
  });

  it('clears a setting at its default, and merges runs that come to match', () => {
    const cleared = restyle(
      restyle(styled, { baselineShift: 0, horizontalScale: 1, caps: 'none', position: 'none' }, 2, 3),
      { tracking: 0, leading: 0 },
      0,
      2,
    );
    expect(cleared).toEqual(word('限时5折'));
  });

  it('speaks of them in the tool’s words and reads the tool’s words back', () => {
    const words = settingWords(runList(styled)[1]!);
    expect(words).toEqual({
      baseline_shift: 10,
      horizontal_scale: 80,
      caps: 'all_caps',
      position: 'superscript',
    });
    expect(settingsChangeOf(words as Parameters<typeof settingsChangeOf>[0])).toEqual({
      baselineShift: 10,
      horizontalScale: 0.8,
      caps: 'all',
      position: 'superscript',
    });
    expect(settingsChangeOf({ caps: 'normal', position: 'normal', horizontal_scale: 100 })).toEqual({
      caps: 'none',
      position: 'none',
      horizontalScale: 1,
    });
  });
});
