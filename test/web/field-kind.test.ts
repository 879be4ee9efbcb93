import { describe, expect, it } from 'vitest';
import { toRegistry } from '../../src/registry/formats/registry.js';
import { toolsOf } from '../../src/registry/index.js';
import {
  enumOptions,
  fieldKind,
  humanized,
  paramHelp,
  paramLabel,
  shortLabel,
  withoutEscapeNotes,
} from '../../src/web/forms/field-kind.js';

const registry = toRegistry(toolsOf('extended'));
const tool = (name: string) => registry.tools.find((t) => t.name === name)!;
const kindOf = (name: string, param: string) => {
  const t = tool(name);
  return fieldKind(t.parameters.properties[param]!, t.limits[param]).kind;
};

describe('the palette draws each parameter from the registry alone', () => {
  it('offers the existing layers for parameters that name one, a free field for a new name', () => {
    for (const name of [
      'set_layer_opacity',
      'move_layer',
      'add_stroke',
      'set_text_color',
      'select_layer_pixels',
    ])
      expect(kindOf(name, 'name'), name).toBe('layer');
    expect(kindOf('move_layer_to_group', 'group_name')).toBe('layer');
    expect(kindOf('duplicate_layer_to_document', 'name')).toBe('layer');
    for (const [name, param] of [
      ['create_layer', 'name'],
      ['rename_layer', 'new_name'],
      ['group_layers', 'group_name'],
      ['place_image', 'name'],
      ['create_document', 'name'],
      ['create_text_layer', 'font_name'],
    ] as const)
      expect(kindOf(name, param), `${name}.${param}`).toBe('text');
    expect(kindOf('group_layers', 'layer_names')).toBe('layers');
    expect(kindOf('select_layers', 'names')).toBe('layers');
  });

  it('uses selects, switches, numbers, colour pickers, paths and documents where the schema says so', () => {
    expect(kindOf('set_layer_blend_mode', 'mode')).toBe('enum');
    expect(kindOf('set_layer_visible', 'visible')).toBe('boolean');
    expect(kindOf('create_text_layer', 'color')).toBe('color');
    expect(kindOf('open_document', 'path')).toBe('path');
    expect(kindOf('switch_document', 'doc_name')).toBe('document');
    expect(kindOf('duplicate_layer_to_document', 'target_doc')).toBe('document');
    expect(kindOf('create_text_layer', 'text')).toBe('text');
    const width = fieldKind(
      tool('create_document').parameters.properties.width!,
      tool('create_document').limits.width,
    );
    expect(width).toEqual({
      kind: 'number',
      min: 1,
      max: tool('create_document').limits.width!.max,
      integer: true,
    });
    const size = fieldKind(
      tool('set_text_size').parameters.properties.size!,
      tool('set_text_size').limits.size,
    );
    expect(size).toMatchObject({ kind: 'number', min: 0, integer: false });
  });

  it('draws the pieces of phase 2 as a table of layer, type and colour', () => {
    const t = tool('extract_and_apply_all_pieces');
    const kind = fieldKind(t.parameters.properties.pieces!, t.limits.pieces);
    expect(kind.kind).toBe('table');
    if (kind.kind !== 'table') return;
    expect(Object.fromEntries(kind.columns.map((c) => [c.name, c.field.kind]))).toEqual({
      name: 'layer',
      type: 'enum',
      color: 'color',
      description: 'text',
    });
    expect(kind.required).toEqual(['name', 'type']);
  });

  it('gives every parameter of every tool a kind', () => {
    for (const t of registry.tools)
      for (const [p, schema] of Object.entries(t.parameters.properties))
        expect(fieldKind(schema, t.limits[p]).kind, `${t.name}.${p}`).toBeTruthy();
  });

  it('reads the Chinese names of enum values from the description', () => {
    const mode = tool('set_layer_blend_mode').parameters.properties.mode!;
    const options = enumOptions(mode);
    expect(options).toHaveLength(16);
    expect(options.find((o) => o.value === 'multiply')?.label).toBe('正片叠底');
    expect(options.find((o) => o.value === 'color')?.label).toBe('颜色');
    expect(options.find((o) => o.value === 'color_dodge')?.label).toBe('颜色减淡');
    const piece = tool('extract_and_apply_all_pieces').parameters.properties.pieces!.items as {
      properties: Record<string, Parameters<typeof enumOptions>[0]>;
    };
    expect(enumOptions(piece.properties.type!).map((o) => o.label)).toEqual([
      '纯色',
      '满印花样',
      '纯色底 + 主题图案',
      '满印底 + 主题图案',
    ]);
    // A value the description does not name is shown as it is.
    expect(enumOptions({ type: 'string', description: '方向', enum: ['up'] })).toEqual([
      { value: 'up', label: 'up', labelEn: 'Up' },
    ]);
  });

  it('names enum values in English by their words, for the English mode', () => {
    const piece = tool('extract_and_apply_all_pieces').parameters.properties.pieces!.items as {
      properties: Record<string, Parameters<typeof enumOptions>[0]>;
    };
    expect(enumOptions(piece.properties.type!).map((o) => o.labelEn)).toEqual([
      'Solid',
      'Fill pattern',
      'Theme pattern',
      'Mixed pattern',
    ]);
    const mode = enumOptions(tool('set_layer_blend_mode').parameters.properties.mode!);
    expect(mode.find((o) => o.value === 'color_dodge')?.labelEn).toBe('Color dodge');
  });

  it('labels every field in English from its name, an abbreviation in capitals', () => {
    expect(
      ['fill_color', 'font_size', 'doc_name', 'x', 'dx', 'top-left', 'centerH', 'png', 'pieces'].map(
        humanized,
      ),
    ).toEqual(['Fill color', 'Font size', 'Doc name', 'X', 'DX', 'Top left', 'Center H', 'PNG', 'Pieces']);
    // Every parameter and column of every tool has an English label, with no Chinese in it.
    for (const t of registry.tools)
      for (const [name, schema] of Object.entries(t.parameters.properties)) {
        const columns = schema.items?.type === 'object' ? Object.entries(schema.items.properties) : [];
        for (const [n, s] of [[name, schema] as const, ...columns]) {
          const { labelEn } = paramLabel(n, s);
          expect(labelEn, `${t.name}.${n}`).toMatch(/^[A-Z][A-Za-z0-9 ]*$/);
        }
      }
  });

  it('labels a field with the first clause of its description', () => {
    const p = tool('create_document').parameters.properties;
    expect(shortLabel('width', p.width!)).toBe('宽度');
    expect(shortLabel('name', p.name!)).toBe('文档名称');
    expect(shortLabel('format', tool('save_document_as').parameters.properties.format!)).toBe('文件格式');
    expect(shortLabel('x', { type: 'number', description: '' })).toBe('x');
    // Not 可选 (the form says "optional" itself), nor cut at an aside in brackets.
    const turn = (
      tool('confirm_piece_parts').parameters.properties.pieces!.items as {
        properties: Record<string, Parameters<typeof shortLabel>[1]>;
      }
    ).properties.turn!;
    expect(shortLabel('turn', turn)).toBe('裁片在版图上相对于它在服装上正放顺时针转过的角度');
  });

  it('labels a switch by what turning it on does, not by the JSON values the model sends', () => {
    const param = (name: string, p: string) => tool(name).parameters.properties[p]!;
    expect(shortLabel('hide_all', param('add_layer_mask', 'hide_all'))).toBe('添加全黑蒙版');
    expect(shortLabel('locked', param('lock_layer', 'locked'))).toBe('锁定');
    expect(shortLabel('visible', param('set_layer_visible', 'visible'))).toBe('显示');
    expect(shortLabel('apply', param('delete_layer_mask', 'apply'))).toBe('先应用蒙版再删除');
    // A description with a name of its own keeps it.
    expect(shortLabel('contiguous', param('select_color_region', 'contiguous'))).toBe('连续');
    expect(shortLabel('save', param('close_document', 'save'))).toBe('关闭前是否保存');
    // Described by its off state alone, it still reads without the JSON word.
    expect(shortLabel('x', { type: 'boolean', description: 'false 保留原图层' })).toBe('保留原图层');
    // The help speaks of the switch's states.
    expect(paramHelp(param('add_layer_mask', 'hide_all'))).toBe(
      '打开时添加全黑蒙版（隐藏全部）；关闭时按当前选区生成蒙版，无选区时为全白蒙版；默认关闭',
    );
    expect(paramHelp(param('close_document', 'save'))).toBe('关闭前是否保存；默认关闭（不保存）');
    // Only a switch's: elsewhere the words are the registry's.
    expect(paramHelp({ type: 'string', description: '模式 true 原样' })).toBe('模式 true 原样');
  });

  it('gives no field of any tool a label made of API words (true, false, null, an enum value, an identifier)', () => {
    const leaks: string[] = [];
    for (const t of registry.tools)
      for (const [name, schema] of Object.entries(t.parameters.properties)) {
        const columns = schema.items?.type === 'object' ? Object.entries(schema.items.properties) : [];
        for (const [n, s] of [[name, schema] as const, ...columns]) {
          const { label } = paramLabel(n, s);
          const words = label.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
          const api = words.filter(
            (w) => /^(true|false|null|undefined)$/i.test(w) || w.includes('_') || s.enum?.includes(w),
          );
          if (/^\s*(true|false)/i.test(label) || api.length > 0) leaks.push(`${t.name}.${n}: ${label}`);
          if (s.type === 'boolean') {
            expect(label, `${t.name}.${n}`).toMatch(/[\u4e00-\u9fff]{2,}/);
            expect(paramHelp(s), `${t.name}.${n}`).not.toMatch(/\b(true|false)\b/);
          }
        }
      }
    expect(leaks).toEqual([]);
    // Every switch of the registry was looked at, not none.
    const switches = registry.tools.flatMap((t) =>
      Object.values(t.parameters.properties).filter((s) => s.type === 'boolean'),
    );
    expect(switches.length).toBeGreaterThanOrEqual(8);
  });

  it('makes a text area of a string whose description says how its lines break, whatever it is called', () => {
    expect(fieldKind(tool('create_text_layer').parameters.properties.text!)).toEqual({
      kind: 'text',
      multiline: true,
    });
    expect(fieldKind(tool('set_text_content').parameters.properties.text!)).toMatchObject({
      multiline: true,
    });
    expect(fieldKind({ type: 'string', description: '标语，\\n 表示换行' })).toMatchObject({
      multiline: true,
    });
    expect(fieldKind({ type: 'string', description: '说明文字' })).toMatchObject({ multiline: false });
    // Every other string of the registry stays one line.
    const multiline = registry.tools.flatMap((t) =>
      Object.entries(t.parameters.properties)
        .filter(([p, schema]) => {
          const kind = fieldKind(schema, t.limits[p]);
          return kind.kind === 'text' && kind.multiline;
        })
        .map(([p]) => `${t.name}.${p}`),
    );
    expect(multiline.sort()).toEqual(['create_text_layer.text', 'set_text_content.text']);
  });

  it('leaves out the notes for the model about escapes, and nothing else', () => {
    expect(withoutEscapeNotes('文字内容，\\n 表示换行')).toBe('文字内容');
    expect(withoutEscapeNotes('新的文字内容，\\n 表示换行')).toBe('新的文字内容');
    expect(withoutEscapeNotes(tool('set_text_content').description)).toBe(
      '修改 name 指定的文字图层的文字内容（并将其设为当前图层），保留字体、字号和颜色。',
    );
    const create = withoutEscapeNotes(tool('create_text_layer').description);
    expect(create).toBe(
      '在当前文档中创建文字图层，放在当前选中图层的上方并设为当前图层。x、y 为文本框左上角的像素坐标（原点为画布左上角，x 向右、y 向下）；font_size 为字号（像素），大于 0，最大 5000；color 为十六进制颜色，默认黑色 #000000；font_name 为字体名称，省略或找不到该字体时使用内置中文字体。',
    );
    // The paragraph text's: only its note about \\n goes.
    const paragraph = tool('create_paragraph_text').description;
    expect(withoutEscapeNotes(paragraph)).toBe(paragraph.replace('text 中的 \\n 表示另起一段；', ''));
    expect(withoutEscapeNotes('文字内容，\\n 表示另起一段')).toBe('文字内容');
    // A note in the middle of a list.
    expect(withoutEscapeNotes('标题；\\t 表示制表符；字号')).toBe('标题；字号');
    // A bracket is not cut in two: the clause holding it goes whole.
    expect(withoutEscapeNotes('文字（\\n 换行，\\t 缩进）。其余照常。')).toBe('其余照常。');
    // Text without an escape is returned as it is.
    for (const t of registry.tools) {
      if (
        ['create_text_layer', 'set_text_content', 'create_paragraph_text', 'style_text_range'].includes(
          t.name,
        )
      )
        continue;
      expect(withoutEscapeNotes(t.description), t.name).toBe(t.description);
      for (const schema of Object.values(t.parameters.properties))
        expect(withoutEscapeNotes(schema.description)).toBe(schema.description);
    }
  });
});
