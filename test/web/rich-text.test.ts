import { describe, expect, it } from 'vitest';
import { blocks, spans } from '../../src/web/state/rich-text.js';

describe('the Markdown a model answers with', () => {
  it('finds bold and code in a line and leaves unmatched markers alone', () => {
    expect(spans('把 **标题** 改成 `#c0392b`，好吗 *')).toEqual([
      { text: '把 ' },
      { text: '标题', bold: true },
      { text: ' 改成 ' },
      { text: '#c0392b', code: true },
      { text: '，好吗 *' },
    ]);
    expect(spans('<img src=x onerror=alert(1)>')).toEqual([{ text: '<img src=x onerror=alert(1)>' }]);
  });

  it('groups lines into paragraphs and lists', () => {
    const text = '## 已完成\n新建了文档\n加上了标题\n\n- 前片：满印\n- 领：**纯色**\n1. 保存\n2) 导出\n收尾';
    expect(blocks(text)).toEqual([
      {
        kind: 'paragraph',
        lines: [[{ text: '已完成' }], [{ text: '新建了文档' }], [{ text: '加上了标题' }]],
      },
      {
        kind: 'list',
        ordered: false,
        items: [[{ text: '前片：满印' }], [{ text: '领：' }, { text: '纯色', bold: true }]],
      },
      { kind: 'list', ordered: true, items: [[{ text: '保存' }], [{ text: '导出' }]] },
      { kind: 'paragraph', lines: [[{ text: '收尾' }]] },
    ]);
    expect(blocks('')).toEqual([]);
  });

  it('keeps a fenced block’s lines as written, Markdown and all, up to its closing fence or the end', () => {
    const text =
      '这样运行：\n```bash\nnpx atelier call save_document\n- not a list **nor bold**\n\n```\n好了\n~~~\n未闭合';
    expect(blocks(text)).toEqual([
      { kind: 'paragraph', lines: [[{ text: '这样运行：' }]] },
      { kind: 'code', text: 'npx atelier call save_document\n- not a list **nor bold**\n' },
      { kind: 'paragraph', lines: [[{ text: '好了' }]] },
      { kind: 'code', text: '未闭合' },
    ]);
  });
});
