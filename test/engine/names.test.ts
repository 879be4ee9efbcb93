/** Closest-name suggestions: the same answers for real typos, at a cost bounded whatever the caller sends. */
import { describe, expect, it } from 'vitest';
import { closest, SUGGEST_MAX_CANDIDATES, SUGGEST_MAX_LENGTH } from '../../src/engine/names.js';

describe('closest', () => {
  it('suggests containment first, then near misses within half the length', () => {
    expect(closest('图层1', ['背景', '图层 1', '图层 12', '文字'])).toEqual(['图层 1', '图层 12']);
    expect(closest('front', ['Front piece', 'back', 'sleeve'])).toEqual(['Front piece']);
    expect(closest('sleve', ['sleeve', 'collar', 'sleeves'])).toEqual(['sleeve', 'sleeves']);
    expect(closest('zzz', ['前片', '后片'])).toEqual([]);
    expect(closest('a', ['b', 'c', 'd', 'e'], 2)).toEqual(['b', 'c']);
  });

  it('gives nothing for an empty name or one longer than the suggestible length', () => {
    expect(closest('', ['a'])).toEqual([]);
    const long = 'x'.repeat(SUGGEST_MAX_LENGTH + 1);
    expect(closest(long, [long, `${long}y`])).toEqual([]);
    expect(closest('x'.repeat(SUGGEST_MAX_LENGTH), ['x'.repeat(SUGGEST_MAX_LENGTH - 1)])).toHaveLength(1);
  });

  it('scores only the first candidates', () => {
    const others = Array.from({ length: SUGGEST_MAX_CANDIDATES }, (_, i) => `图层 ${i} 号`);
    expect(closest('前片', [...others, '前片 拷贝'])).toEqual([]);
    expect(closest('前片', ['前片 拷贝', ...others])).toEqual(['前片 拷贝']);
  });

  it('matches very long candidates by containment only, and stays quick on hostile input', () => {
    expect(closest('领口', [`${'花'.repeat(100_000)}领口`])).toHaveLength(1);
    const candidates = Array.from({ length: 50_000 }, (_, i) => `${'层'.repeat(250)}${i}`);
    const start = performance.now();
    expect(closest('层'.repeat(SUGGEST_MAX_LENGTH), candidates)).toHaveLength(3);
    expect(closest('字'.repeat(30_000), candidates)).toEqual([]);
    // A sanity bound far above normal (tens of milliseconds), not a benchmark.
    expect(performance.now() - start).toBeLessThan(2000);
  });
});
