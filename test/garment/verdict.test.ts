/**
 * verify's closing words: "all good" only when every weighed measure is met. A result at 8.6 whose weakest
 * measure stays above its own advice's threshold (a motif found at 0.78 on a zip front's halves) used to read
 * "各项指标良好" beside its score.
 */
import { describe, expect, it } from 'vitest';
import { type Measure, verdictOf } from '../../src/garment/builtin/score.js';

const measure = (
  key: Measure['key'],
  score: number,
  weight: number,
  suggestion: string | null = null,
): Measure => ({
  key,
  label: key === 'motif' ? '主题图案' : key === 'seams' ? '侧缝对花' : key,
  score,
  weight,
  value: {},
  suggestion,
});

describe('verdictOf', () => {
  it('says all is well only when every weighed measure is met', () => {
    const v = verdictOf([measure('photo', 1, 0.3), measure('coverage', 0.95, 0.25), measure('seams', 1, 0)]);
    expect(v.score).toBeGreaterThanOrEqual(9.5);
    expect(v.suggestions).toEqual(['各项指标良好：可以用 save_document 保存文档，或导出打印文件']);
  });

  it('names the measures that hold the score down when none of them asks for a change', () => {
    const v = verdictOf([measure('photo', 1, 0.3), measure('motif', 0.78, 0.15), measure('palette', 1, 0.2)]);
    expect(v.score).toBeLessThan(9.5);
    expect(v.suggestions).toHaveLength(1);
    expect(v.suggestions[0]).toContain('没有必须修改之处');
    expect(v.suggestions[0]).toContain('“主题图案”（0.78）');
    expect(v.suggestions[0]).not.toContain('各项指标良好');
  });

  it('gives the measures’ own advice when there is any', () => {
    const v = verdictOf([measure('photo', 1, 0.3), measure('motif', 0.4, 0.15, '请对“前片”重新套图')]);
    expect(v.suggestions).toEqual(['请对“前片”重新套图']);
  });
});
