/**
 * Characters in several styles (text-runs.ts): how runs follow edits of the words, restyles of some characters or
 * all, and the size of the first character; and the drawing, each stretch in its own font, size and colour where
 * the same words drawn apart in one style each would put them.
 */
import { describe, expect, it } from 'vitest';
import type { Raster, TextSpec } from '../../src/engine/model.js';
import { layoutText, renderText, scaleTextSpec, textAnchor } from '../../src/engine/text.js';
import { restyle, runList, stylesIn, withContent } from '../../src/engine/text-runs.js';
import { withSpacing } from '../../src/engine/text-spacing.js';
import { inkBox } from '../support/ink-box.js';
import { textSpec } from '../support/text-spec.js';

const black = { r: 0, g: 0, b: 0 };
const red = { r: 230, g: 0, b: 18 };

const base = textSpec('限时5折', 40, 40);

/** The runs as [characters, size, colour's red] for short comparisons. */
const shape = (t: TextSpec) => {
  let at = 0;
  return runList(t).map((r) => {
    const s = t.content.slice(at, at + r.length);
    at += r.length;
    return [s, r.size, r.color.r] as const;
  });
};

const price = restyle(base, { size: 80, color: red }, 2, 3);

describe('runs through edits', () => {
  it('restyles some characters and merges runs that come to match', () => {
    expect(shape(price)).toEqual([
      ['限时', 40, 0],
      ['5', 80, 230],
      ['折', 40, 0],
    ]);
    // Set back, the runs merge away: the spec is as it was.
    expect(restyle(price, { size: 40, color: black }, 2, 3)).toEqual(base);
    // The whole layer at once: one style, no runs.
    expect(restyle(price, { color: black, size: 40 }).runs).toBeUndefined();
  });

  it('keeps point text anchored when its first character changes size, as the file origin stays', () => {
    const big = restyle(base, { size: 80 }, 0, 1);
    expect(big.size).toBe(80);
    expect(textAnchor(big).y).toBeCloseTo(textAnchor(base).y, 6);
    expect(textAnchor(big).x).toBe(textAnchor(base).x);
    // Paragraph text keeps its box where it is.
    const boxed = { ...base, box: [0, 0, 300, 200] as const };
    expect(restyle(boxed, { size: 80 }, 0, 1)).toMatchObject({ x: 40, y: 40 });
  });

  it('types as Photoshop: kept characters keep their style, new ones take the replaced or preceding one', () => {
    // The price replaced: the new digit takes the old one's style.
    expect(shape(withContent(price, '限时3折'))).toEqual([
      ['限时', 40, 0],
      ['3', 80, 230],
      ['折', 40, 0],
    ]);
    // Added after the price: the preceding character's style.
    expect(shape(withContent(price, '限时58折'))).toEqual([
      ['限时', 40, 0],
      ['58', 80, 230],
      ['折', 40, 0],
    ]);
    // Added at the end and at the start: the neighbour's (black).
    expect(shape(withContent(price, '今日限时5折起'))).toEqual([
      ['今日限时', 40, 0],
      ['5', 80, 230],
      ['折起', 40, 0],
    ]);
    // The price deleted: one style left, no runs.
    expect(withContent(price, '限时折').runs).toBeUndefined();
    // Characters outside the basic plane are never split between two styles.
    const emoji = restyle({ ...base, content: 'a😀b' }, { color: red }, 1, 3);
    expect(shape(withContent(emoji, 'a😃b'))).toEqual([
      ['a', 40, 0],
      ['😃', 40, 230],
      ['b', 40, 0],
    ]);
  });

  it('scales every run with the text', () => {
    const scaled = scaleTextSpec(price, 0.5, 0.5, { x: 0, y: 0 });
    expect(shape(scaled).map(([, size]) => size)).toEqual([20, 40, 20]);
  });

  it('finds the styles of any stretch', () => {
    expect(stylesIn(price, 1, 4).map((r) => [r.start, r.end, r.style.size])).toEqual([
      [1, 2, 40],
      [2, 3, 80],
      [3, 4, 40],
    ]);
  });
});

/** Mean absolute difference of two renderings over the union of their frames (straight RGBA × alpha). */
function difference(a: Raster, b: Raster): { mean: number; max: number } {
  const x0 = Math.min(a.x, b.x);
  const y0 = Math.min(a.y, b.y);
  const x1 = Math.max(a.x + a.w, b.x + b.w);
  const y1 = Math.max(a.y + a.h, b.y + b.h);
  const at = (r: Raster, x: number, y: number, c: number) => {
    const u = x - r.x;
    const v = y - r.y;
    if (u < 0 || v < 0 || u >= r.w || v >= r.h) return 0;
    const i = (v * r.w + u) * 4;
    return (r.data[i + c]! * r.data[i + 3]!) / 255;
  };
  let sum = 0;
  let max = 0;
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      for (let c = 0; c < 4; c++) {
        const d = Math.abs(at(a, x, y, c) - at(b, x, y, c));
        sum += d;
        max = Math.max(max, d);
        n++;
      }
    }
  }
  return { mean: sum / n, max };
}

/** `a` with `b` laid over it (source over, straight alpha), on `a`'s and `b`'s frame together. */
function over(a: Raster, b: Raster): Raster {
  const x0 = Math.min(a.x, b.x);
  const y0 = Math.min(a.y, b.y);
  const w = Math.max(a.x + a.w, b.x + b.w) - x0;
  const h = Math.max(a.y + a.h, b.y + b.h) - y0;
  const data = new Uint8ClampedArray(w * h * 4);
  for (const r of [a, b]) {
    for (let v = 0; v < r.h; v++) {
      for (let u = 0; u < r.w; u++) {
        const s = (v * r.w + u) * 4;
        const d = ((r.y + v - y0) * w + (r.x + u - x0)) * 4;
        const sa = r.data[s + 3]! / 255;
        if (sa === 0) continue;
        const da = data[d + 3]! / 255;
        const oa = sa + da * (1 - sa);
        for (let c = 0; c < 3; c++) {
          data[d + c] = (r.data[s + c]! * sa + data[d + c]! * da * (1 - sa)) / oa;
        }
        data[d + 3] = oa * 255;
      }
    }
  }
  return { x: x0, y: y0, w, h, data };
}

describe('drawing runs', () => {
  it('draws each stretch in its own size and colour where the stretches drawn apart would stand', () => {
    const mixed = renderText(price);
    // The same line laid out once; each stretch drawn alone at the place the layout gives it.
    const { lines } = layoutText(price);
    const pieces = lines[0]!.pieces;
    expect(pieces.map((p) => p.text)).toEqual(['限时', '5', '折']);
    const alone = pieces.map((p, k) => {
      const style = k === 1 ? { size: 80, color: red } : { size: 40, color: black };
      // A stretch drawn alone as point text: its x where the layout put it, on the same baseline.
      const y = lines[0]!.baseline - 0.88 * style.size;
      return renderText({ ...base, content: p.text, x: p.x, y, ...style });
    });
    const composed = alone.reduce(over);
    const d = difference(mixed, composed);
    // Tolerance: rounding of straight alpha where two stretches' edges meet; glyphs are drawn by the same Skia.
    expect(d.mean).toBeLessThan(0.05);
    expect(d.max).toBeLessThanOrEqual(3);
    // Red ink where the price is and nowhere else.
    const [pl, , pr] = inkBox(alone[1]!);
    let redOutside = 0;
    let redInside = 0;
    for (let v = 0; v < mixed.h; v++) {
      for (let u = 0; u < mixed.w; u++) {
        const i = (v * mixed.w + u) * 4;
        if (mixed.data[i + 3]! < 200 || mixed.data[i]! < 200) continue;
        const x = mixed.x + u;
        if (x >= pl - 1 && x <= pr + 1) redInside++;
        else redOutside++;
      }
    }
    expect(redInside).toBeGreaterThan(200);
    expect(redOutside).toBe(0);
  });

  it('makes a line as high as its largest characters under auto leading, and keeps a fixed leading fixed', () => {
    const two = { ...base, content: '限时\n5折' };
    const plain = layoutText(two).lines.map((l) => l.baseline);
    expect(plain[1]! - plain[0]!).toBeCloseTo(48, 6);
    const big = restyle(two, { size: 80 }, 3, 4);
    const grown = layoutText(big).lines.map((l) => l.baseline);
    expect(grown[0]).toBeCloseTo(plain[0]!, 6);
    expect(grown[1]! - grown[0]!).toBeCloseTo(96, 6);
    const fixed = layoutText(withSpacing(big, { leading: 60 })).lines.map((l) => l.baseline);
    expect(fixed[1]! - fixed[0]!).toBeCloseTo(60, 6);
  });

  it('wraps paragraph text by each stretch’s own width', () => {
    const para = { ...base, content: '春季新品上市全场包邮', box: [0, 0, 200, 300] as const };
    // Ten 40 px characters in 200 px: five a line. With the third and fourth at 80 px, three, four and three.
    expect(layoutText(para).lines.map((l) => l.text)).toEqual(['春季新品上', '市全场包邮']);
    const wide = restyle(para, { size: 80 }, 2, 4);
    expect(layoutText(wide).lines.map((l) => l.text)).toEqual(['春季新', '品上市全', '场包邮']);
  });
});

describe('faux styles', () => {
  const word = { ...base, content: '仿粗体', x: 20, y: 20, size: 60 };
  const inked = (r: Raster) => {
    let n = 0;
    for (let i = 3; i < r.data.length; i += 4) n += r.data[i]! > 128 ? 1 : 0;
    return n;
  };
  /** The mean x of the inked pixels in the rows [top, bottom). */
  const meanX = (r: Raster, top: number, bottom: number) => {
    let sum = 0;
    let n = 0;
    for (let y = Math.max(Math.round(top), r.y); y < Math.min(Math.round(bottom), r.y + r.h); y++) {
      for (let u = 0; u < r.w; u++) {
        if (r.data[((y - r.y) * r.w + u) * 4 + 3]! > 128) {
          sum += r.x + u;
          n++;
        }
      }
    }
    return sum / n;
  };

  it('draws faux bold thicker by 1/32 em, each bold character that much wider (as Photoshop sets it)', () => {
    const plain = renderText(word);
    const bold = renderText(restyle(word, { fauxBold: true }));
    // The strokes grow by 1.9 px in all at 60 px: Chinese strokes (about 5 px wide) gain well over a tenth of ink.
    expect(inked(bold) / inked(plain)).toBeGreaterThan(1.15);
    expect(inked(bold) / inked(plain)).toBeLessThan(1.8);
    // 字 after three bold 60 px characters starts 180 px and three times 60/32 px on.
    const pieces = layoutText(restyle({ ...word, content: '仿粗体字' }, { fauxBold: true }, 0, 3)).lines[0]!
      .pieces;
    expect(pieces.map((p) => p.text)).toEqual(['仿粗体', '字']);
    expect(pieces[1]!.x).toBeCloseTo(20 + 180 + (3 * 60) / 32, 3);
  });

  it('slants faux italic about the baseline by 0.2', () => {
    const italic = renderText(restyle(word, { fauxItalic: true }));
    const plain = renderText(word);
    const baseline = layoutText(word).lines[0]!.baseline;
    // Ink 40 px above the baseline moves right by about 8 px; ink at the baseline barely moves.
    const shiftTop = meanX(italic, baseline - 45, baseline - 35) - meanX(plain, baseline - 45, baseline - 35);
    const shiftLow = meanX(italic, baseline - 5, baseline) - meanX(plain, baseline - 5, baseline);
    expect(shiftTop).toBeGreaterThan(6);
    expect(shiftTop).toBeLessThan(10);
    expect(Math.abs(shiftLow)).toBeLessThan(2);
  });

  it('rules underline under the em box and strikethrough across the middle, the piece’s width long', () => {
    const baseline = layoutText(word).lines[0]!.baseline;
    const width = layoutText(word).lines[0]!.pieces[0]!.width!;
    for (const [style, at] of [
      [{ underline: true }, 0.15],
      [{ strikethrough: true }, -0.3],
    ] as const) {
      const r = renderText(restyle(word, style));
      const y = Math.round(baseline + at * 60);
      let run = 0;
      for (let u = 0; u < r.w; u++) run += r.data[((y - r.y) * r.w + u) * 4 + 3]! > 200 ? 1 : 0;
      expect(run).toBeGreaterThan(width - 3);
    }
    // The underline does not touch the characters: the row between them is clear but for a few pixels.
    const under = renderText(restyle(word, { underline: true }));
    const gap = Math.round(baseline + 0.122 * 60);
    let touching = 0;
    for (let u = 0; u < under.w; u++)
      touching += under.data[((gap - under.y) * under.w + u) * 4 + 3]! > 200 ? 1 : 0;
    expect(touching).toBeLessThan(width / 4);
  });

  it('keeps faux styles through edits of the words, and merges runs by them', () => {
    const bold = restyle(base, { fauxBold: true }, 2, 3);
    expect(runList(bold).map((r) => r.fauxBold ?? false)).toEqual([false, true, false]);
    const lengths = (t: TextSpec) => shape(t).map(([text, size]) => [text.length, size]);
    expect(lengths(withContent(bold, '限时3折'))).toEqual(lengths(bold));
    expect(runList(withContent(bold, '限时3折'))[1]!.fauxBold).toBe(true);
    expect(restyle(bold, { fauxBold: false }, 2, 3)).toEqual(base);
    // The whole text faux bold: no runs, the spec's own style says so.
    expect(restyle(base, { fauxBold: true })).toMatchObject({ fauxBold: true });
    expect(restyle(base, { fauxBold: true }).runs).toBeUndefined();
  });
});
