import { describe, expect, it } from 'vitest';
import { toRegistry } from '../../src/registry/formats/registry.js';
import { toolsOf } from '../../src/registry/index.js';
import { argumentsOf, emptyRequired, initialRow, initialValues } from '../../src/web/forms/arguments.js';

const registry = toRegistry(toolsOf('extended'));
const tool = (name: string) => registry.tools.find((t) => t.name === name)!;

describe('form values and tool arguments', () => {
  it('starts from the limits’ defaults, booleans off and the first value of a required enum', () => {
    const doc = tool('create_document');
    expect(initialValues(doc.parameters, doc.limits)).toEqual({
      width: '',
      height: '',
      resolution: '150',
      name: '',
    });
    const shadow = tool('add_drop_shadow');
    expect(initialValues(shadow.parameters, shadow.limits)).toMatchObject({ opacity: '75', angle: '120' });
    const visible = tool('set_layer_visible');
    expect(initialValues(visible.parameters, visible.limits)).toEqual({ name: '', visible: false });
    const flip = tool('flip_layer');
    expect(initialValues(flip.parameters, flip.limits).direction).toBe('horizontal');
  });

  it('starts a new row of a table as a form starts: a required enum column at its first value', () => {
    const rowOf = (name: string) => {
      const t = tool(name);
      const items = t.parameters.properties.pieces!.items as Parameters<typeof initialRow>[0];
      return initialRow(items, t.limits.pieces?.items);
    };
    expect(rowOf('extract_and_apply_all_pieces')).toEqual({
      name: '',
      type: 'solid',
      color: '',
      description: '',
    });
    expect(rowOf('confirm_piece_parts')).toMatchObject({ name: '', part: 'front', turn: '' });
  });

  it('sends what was filled in, numbers as numbers, and leaves empty fields out for the server to judge', () => {
    const text = tool('create_text_layer');
    expect(
      argumentsOf(text.parameters, {
        text: '春季\n新品',
        x: '12',
        y: '0',
        font_size: '64.5',
        color: '',
        font_name: ' ',
      }),
    ).toEqual({ text: '春季\n新品', x: 12, y: 0, font_size: 64.5 });
    // A number field holding something else is sent as typed: the validator answers it in Chinese.
    expect(argumentsOf(text.parameters, { text: 'a', x: '十', y: '1', font_size: '9' }).x).toBe('十');
    const group = tool('group_layers');
    expect(argumentsOf(group.parameters, { layer_names: ['a', 'b'], group_name: '组' })).toEqual({
      layer_names: ['a', 'b'],
      group_name: '组',
    });
    const select = tool('select_layers');
    expect(argumentsOf(select.parameters, { names: ['背景'], add: true })).toEqual({
      names: ['背景'],
      add: true,
    });
  });

  it('turns the rows of a table into objects, without empty cells', () => {
    const apply = tool('extract_and_apply_all_pieces');
    expect(
      argumentsOf(apply.parameters, {
        pieces: [
          { name: '前片', type: 'solid', color: '#aa0000', description: '' },
          { name: '后片', type: 'fill_pattern', color: '', description: '' },
        ],
      }),
    ).toEqual({
      pieces: [
        { name: '前片', type: 'solid', color: '#aa0000' },
        { name: '后片', type: 'fill_pattern' },
      ],
    });
  });

  it('names the required fields a run would go without: blank ones, not switches, lists or tables', () => {
    const text = tool('create_text_layer');
    expect(emptyRequired(text.parameters, initialValues(text.parameters, text.limits))).toEqual([
      'text',
      'x',
      'y',
      'font_size',
    ]);
    expect(
      emptyRequired(text.parameters, {
        text: '春季',
        x: '0',
        y: ' ',
        font_size: '12',
        color: '',
        font_name: '',
      }),
    ).toEqual(['y']);
    const visible = tool('set_layer_visible');
    expect(emptyRequired(visible.parameters, { name: '背景', visible: false })).toEqual([]);
    // An empty list is a value (confirm_piece_parts' clears the confirmations): the server judges it.
    const group = tool('group_layers');
    expect(emptyRequired(group.parameters, { layer_names: [], group_name: '组' })).toEqual([]);
    const confirm = tool('confirm_piece_parts');
    expect(emptyRequired(confirm.parameters, initialValues(confirm.parameters, confirm.limits))).toEqual([]);
  });
});
