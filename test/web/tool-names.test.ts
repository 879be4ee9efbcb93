/** Tool names in text written for a model, shown to a designer under the tools' labels (tool-names.ts). */
import { describe, expect, it } from 'vitest';
import { withToolLabels } from '../../src/web/state/tool-names.js';

const labelOf = new Map(
  [
    ['list_all_layer_names', '列出所有图层'],
    ['save_document', '保存文档'],
    ['extract_and_apply_all_pieces', '提取并套图'],
  ].map(([name, label]) => [name!, { label }]),
);

describe('withToolLabels', () => {
  it('replaces each tool the registry knows by its label', () => {
    expect(withToolLabels('先调用 save_document.', labelOf)).toBe('先调用「保存文档」.');
    // Beside ASCII words the spaces stay.
    expect(withToolLabels('use save_document to keep it', labelOf)).toBe('use 「保存文档」 to keep it');
    expect(withToolLabels('建议：用 list_all_layer_names 查看所有图层', labelOf)).toBe(
      '建议：用「列出所有图层」查看所有图层',
    );
    expect(
      withToolLabels('可以用 save_document 保存文档，或用extract_and_apply_all_pieces重做', labelOf),
    ).toBe('可以用「保存文档」保存文档，或用「提取并套图」重做');
  });

  it('leaves other words alone: unknown names, codes, parts of longer names, file names', () => {
    const text =
      'not_found：没有 save_document_as_copy，见 out/save_document.psd、save_document.jpg 或 my_layer';
    expect(withToolLabels(text, labelOf)).toBe(text);
  });

  it('uses the English label in the English studio, the Chinese one where a tool has no other', () => {
    const both = new Map([
      ['list_all_layer_names', { label: '列出所有图层', labelEn: 'List All Layers' }],
      ['save_document', { label: '保存文档' }],
    ]);
    expect(withToolLabels('建议：用 list_all_layer_names 查看，再 save_document', both, 'en')).toBe(
      '建议：用「List All Layers」查看，再「保存文档」',
    );
    expect(withToolLabels('建议：用 list_all_layer_names 查看', both, 'zh')).toBe(
      '建议：用「列出所有图层」查看',
    );
  });
});
