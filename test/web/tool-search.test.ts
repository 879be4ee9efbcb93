import { describe, expect, it } from 'vitest';
import { toRegistry } from '../../src/registry/formats/registry.js';
import { toolsOf } from '../../src/registry/index.js';
import { searchTools } from '../../src/web/state/tool-search.js';

const tools = toRegistry(toolsOf('extended')).tools;
const labels = (query: string, lang: 'zh' | 'en' = 'zh') =>
  searchTools(tools, query, lang).map((t) => (lang === 'en' ? t.labelEn : t.label));

describe('the toolbox’s search', () => {
  it('lists the tool called exactly what was typed first: 色阶 before 自动色阶', () => {
    expect(labels('色阶')).toEqual(['色阶', '自动色阶']);
    expect(labels(' 色阶 ')).toEqual(['色阶', '自动色阶']);
    expect(labels('levels', 'en')).toEqual(['Levels', 'Auto Levels']);
  });

  it('ranks the exact label, then labels starting with it, then labels holding it, then other words', () => {
    const tool = (name: string, label: string, labelEn: string) => ({ name, label, labelEn });
    const some = [
      tool('stroke_all', '全部描边', 'Stroke All'),
      tool('add_stroke_effect', '描边效果', 'Stroke Effect'),
      tool('outline', '轮廓', 'Outline 描边'),
      tool('add_stroke', '描边', 'Stroke'),
      tool('miaobian', '其他', 'Other'),
    ];
    const order = (q: string, lang: 'zh' | 'en' = 'zh') => searchTools(some, q, lang).map((t) => t.name);
    expect(order('描边')).toEqual(['add_stroke', 'add_stroke_effect', 'stroke_all', 'outline']);
    // In English the English label is the one read: the Chinese one and the API name come after it.
    expect(order('stroke', 'en')).toEqual(['add_stroke', 'stroke_all', 'add_stroke_effect']);
    expect(order('描边', 'en')).toEqual(['outline', 'add_stroke', 'add_stroke_effect', 'stroke_all']);
    // Found by the other words only: after every label's match, the exact one first, then by the order they come.
    expect(order('miao')).toEqual(['miaobian']);
    expect(order('stroke')).toEqual(['add_stroke', 'stroke_all', 'add_stroke_effect']);
    expect(order('')).toEqual(some.map((t) => t.name));
  });

  it('keeps the registry’s order among equally good matches, and finds nothing it should not', () => {
    // A label that starts with the words (文字对齐) before those that hold them, then by the registry's order.
    expect(labels('文字')).toEqual([
      '文字对齐',
      '文字方向',
      '文字变形',
      '修改文字',
      '修改文字颜色',
      '创建文字',
      '创建段落文字',
      '修改部分文字样式',
    ]);
    expect(labels('gaussian_blur')).toEqual(['高斯模糊']);
    expect(labels('没有这种工具')).toEqual([]);
    expect(labels('')).toHaveLength(tools.length);
  });
});
