import { describe, expect, it } from 'vitest';
import { normaliseColor, validateArguments } from '../../src/calls/validate.js';
import { allTools, findTool, type ToolDefinition } from '../../src/registry/index.js';

const v = (name: string, args: unknown) => validateArguments(findTool(name)!, args);

describe('validateArguments', () => {
  it('accepts valid arguments and applies defaults from limits', () => {
    expect(v('add_drop_shadow', { name: 'A', distance: 5, size: 3 })).toEqual({
      ok: true,
      args: { name: 'A', distance: 5, size: 3, opacity: 75, angle: 120 },
    });
    expect(v('trim_document', {})).toEqual({ ok: true, args: { type: 'topleft' } });
    expect(v('undo', {})).toEqual({ ok: true, args: { steps: 1 } });
  });

  it('coerces numeric strings and "true"/"false", nothing else', () => {
    expect(v('move_layer', { name: 'A', dx: '10', dy: '-2.5' })).toEqual({
      ok: true,
      args: { name: 'A', dx: 10, dy: -2.5 },
    });
    expect(v('set_layer_visible', { name: 'A', visible: 'false' })).toEqual({
      ok: true,
      args: { name: 'A', visible: false },
    });
    const bad = v('set_layer_visible', { name: 'A', visible: 'no' });
    expect(bad.ok).toBe(false);
    const notNumber = v('move_layer', { name: 'A', dx: '10px', dy: 0 });
    expect(notNumber).toMatchObject({ ok: false, problems: [{ parameter: 'dx' }] });
  });

  it('rejects unknown parameters naming the allowed ones', () => {
    const r = v('set_layer_opacity', { name: 'A', opacity: 50, alpha: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ parameter: 'alpha', allowed: ['name', 'opacity'] });
    expect(r.problems[0]!.message).toContain('name, opacity');
  });

  it('rejects a bad enum listing the allowed values', () => {
    const r = v('flip_layer', { name: 'A', direction: 'diagonal' });
    expect(r).toMatchObject({
      ok: false,
      problems: [{ parameter: 'direction', allowed: ['horizontal', 'vertical'] }],
    });
  });

  it('rejects out-of-range numbers stating the range, never clamping', () => {
    const r = v('set_layer_opacity', { name: 'A', opacity: 150 });
    expect(r).toMatchObject({ ok: false, problems: [{ parameter: 'opacity', range: { min: 0, max: 100 } }] });
    if (!r.ok) expect(r.problems[0]!.message).toMatch(/0 到 100.*150/);
    expect(v('adjust_brightness_contrast', { brightness: -151, contrast: 0 }).ok).toBe(false);
    expect(v('adjust_levels', { black: 0, gamma: 0.05, white: 255 }).ok).toBe(false);
    expect(v('resize_layer', { name: 'A', scale_x: 0 }).ok).toBe(false);
    expect(v('create_document', { width: 10.5, height: 10 })).toMatchObject({
      ok: false,
      problems: [{ parameter: 'width' }],
    });
  });

  it('reports every missing required parameter at once', () => {
    const r = v('move_layer', {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.parameter).sort()).toEqual(['dx', 'dy', 'name']);
  });

  it('accepts #RRGGBB, RRGGBB and #RGB colours in any case and normalises them', () => {
    for (const [input, out] of [
      ['#FF8000', '#ff8000'],
      ['ff8000', '#ff8000'],
      ['#F80', '#ff8800'],
    ]) {
      expect(v('set_foreground_color', { color: input })).toEqual({ ok: true, args: { color: out } });
    }
    for (const bad of ['red', '#ff80', '#gg0000', '']) {
      expect(v('set_foreground_color', { color: bad }).ok, bad).toBe(false);
    }
    expect(normaliseColor('#ABC')).toBe('#aabbcc');
  });

  it('validates piece entries inside arrays, colours included', () => {
    const ok = v('extract_and_apply_all_pieces', { pieces: [{ name: '前片', type: 'solid', color: 'F00' }] });
    expect(ok).toEqual({ ok: true, args: { pieces: [{ name: '前片', type: 'solid', color: '#ff0000' }] } });
    const bad = v('extract_and_apply_all_pieces', { pieces: [{ name: '前片', type: 'plaid', shade: 1 }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.problems.map((p) => p.parameter)).toEqual(
        expect.arrayContaining(['pieces[0].type', 'pieces[0].shade']),
      );
    }
  });

  it('treats null optionals (OpenAI strict mode) as absent, but not null required ones', () => {
    expect(v('close_document', { save: null })).toEqual({ ok: true, args: { save: false } });
    expect(v('move_layer', { name: 'A', dx: null, dy: 1 }).ok).toBe(false);
  });

  it('accepts array arguments sent as JSON text and requires string items', () => {
    expect(v('group_layers', { layer_names: '["a","b"]', group_name: 'g' })).toEqual({
      ok: true,
      args: { layer_names: ['a', 'b'], group_name: 'g' },
    });
    expect(v('group_layers', { layer_names: ['a', 2], group_name: 'g' }).ok).toBe(false);
  });

  it('rejects arguments that are not an object', () => {
    expect(v('undo', [1])).toMatchObject({ ok: false });
    expect(v('undo', 3)).toMatchObject({ ok: false });
  });
});

describe('names given to a new layer, group or document', () => {
  const NEW_NAMES = [
    ['create_layer', 'name', {}],
    ['rename_layer', 'new_name', {}],
    ['create_layer_group', 'name', {}],
    ['group_layers', 'group_name', { layer_names: ['a'] }],
    ['create_document', 'name', { width: 10, height: 10 }],
    ['place_image', 'name', { path: 'a.png' }],
    ['save_selection_as_channel', 'channel', {}],
  ] as const;

  it('are exactly the parameters the registry marks not blank', () => {
    const marked = (allTools as readonly ToolDefinition[]).flatMap((t) =>
      Object.entries(t.limits ?? {})
        .filter(([, l]) => l.nonBlank)
        .map(([p]) => `${t.name}.${p}`),
    );
    expect(marked.sort()).toEqual(NEW_NAMES.map(([t, p]) => `${t}.${p}`).sort());
  });

  it('are refused empty or only whitespace (full-width space, tab, newline), with a hint', () => {
    for (const [tool, param, rest] of NEW_NAMES) {
      for (const blank of ['', ' ', '   ', '\u3000', '\t\n', ' \u3000 ']) {
        const r = v(tool, { ...rest, [param]: blank });
        expect(r, `${tool}.${param} = ${JSON.stringify(blank)}`).toMatchObject({
          ok: false,
          problems: [{ parameter: param, hint: expect.stringContaining('名称') }],
        });
        if (!r.ok)
          expect(r.problems[0]!.message).toBe(
            `${param} 不能为空或只含空白字符（空格、全角空格、制表符等），收到 ${JSON.stringify(blank)}`,
          );
      }
    }
  });

  it('keep the spaces around a name that has a character, untrimmed', () => {
    for (const [tool, param, rest] of NEW_NAMES) {
      for (const name of ['图层 1', ' 前片 ', '\u3000a']) {
        expect(v(tool, { ...rest, [param]: name }), `${tool}.${param}`).toMatchObject({
          ok: true,
          args: { [param]: name },
        });
      }
    }
  });

  it('leave a name that looks a layer, group or document up as it was', () => {
    expect(v('set_layer_opacity', { name: ' ', opacity: 50 }).ok).toBe(true);
    expect(v('move_layer_to_group', { group_name: '' }).ok).toBe(true);
    expect(v('switch_document', { doc_name: '\u3000' }).ok).toBe(true);
    expect(v('select_layers', { names: [''] }).ok).toBe(true);
  });
});
