import { describe, expect, it } from 'vitest';
import { toRegistry } from '../../src/registry/formats/registry.js';
import { toolsOf } from '../../src/registry/index.js';
import { enumOptions, fieldKind, shortLabel } from '../../src/web/forms/field-kind.js';

const registry = toRegistry(toolsOf('extended'));
const tool = (name: string) => registry.tools.find((t) => t.name === name)!;
const kindOf = (name: string, param: string) => {
  const t = tool(name);
  return fieldKind(param, t.parameters.properties[param]!, t.limits[param]).kind;
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
      'width',
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
      'size',
      tool('set_text_size').parameters.properties.size!,
      tool('set_text_size').limits.size,
    );
    expect(size).toMatchObject({ kind: 'number', min: 0, integer: false });
  });

  it('draws the pieces of phase 2 as a table of layer, type and colour', () => {
    const t = tool('extract_and_apply_all_pieces');
    const kind = fieldKind('pieces', t.parameters.properties.pieces!, t.limits.pieces);
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
        expect(fieldKind(p, schema, t.limits[p]).kind, `${t.name}.${p}`).toBeTruthy();
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
      { value: 'up', label: 'up' },
    ]);
  });

  it('labels a field with the first clause of its description', () => {
    const p = tool('create_document').parameters.properties;
    expect(shortLabel('width', p.width!)).toBe('宽度');
    expect(shortLabel('name', p.name!)).toBe('文档名称');
    expect(shortLabel('format', tool('save_document_as').parameters.properties.format!)).toBe('文件格式');
    expect(shortLabel('x', { type: 'number', description: '' })).toBe('x');
  });
});
