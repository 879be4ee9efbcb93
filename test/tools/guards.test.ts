/**
 * One place for refusals (src/tools/guards.ts): the same refusal reads the same from every tool — the code,
 * the message up to the tool's own verb, and the hint — and changes nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { newSession, ok, refused } from '../support/session.js';
import { current, edit } from './layer-fixtures.js';

type Row = readonly [tool: string, args: Record<string, unknown>];

/** A document with pixels on `像素` and `组内`, text `文字`, group `组` holding `组内` and `组内文字`. */
async function fixture(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 40, height: 30 });
  await ok(s, 'create_layer', { name: '像素' });
  await ok(s, 'select_rect', { left: 5, top: 5, right: 20, bottom: 20 });
  await ok(s, 'fill_selection', { color: '#3366cc' });
  await ok(s, 'create_text_layer', { text: '文字', x: 2, y: 2, font_size: 10 });
  await ok(s, 'create_layer_group', { name: '组' });
  await ok(s, 'create_layer', { name: '组内' });
  await ok(s, 'fill_selection', { color: '#cc3366' });
  await ok(s, 'move_layer_to_group', { group_name: '组' });
  await ok(s, 'create_text_layer', { text: '组内文字', x: 2, y: 2, font_size: 10 });
  await ok(s, 'move_layer_to_group', { group_name: '组' });
  return s;
}

/** Refuses every row, each after `activate` (tools that act on the active layer), and returns the errors. */
async function refuseAll(s: Session, rows: readonly Row[], code: string, activate: string) {
  const errors = [];
  for (const [tool, args] of rows) {
    await ok(s, 'select_layers', { names: [activate] });
    const e = await refused(s, tool, args, code);
    errors.push({ tool, message: e.message, hint: e.hint, details: e.details });
  }
  return errors;
}

describe('the same refusal reads the same from every tool', () => {
  it('Lock All on the layer', async () => {
    const s = await fixture();
    await ok(s, 'lock_layer', { name: '像素', locked: true });
    const rows: Row[] = [
      ['move_layer', { name: '像素', dx: 1, dy: 1 }],
      ['rotate_layer', { name: '像素', angle: 10 }],
      ['set_layer_opacity', { name: '像素', opacity: 50 }],
      ['set_layer_blend_mode', { name: '像素', mode: 'multiply' }],
      ['add_stroke', { name: '像素', size: 2, color: '#000000' }],
      ['add_layer_mask', { name: '像素' }],
      ['rename_layer', { new_name: '新名' }],
      ['delete_layer', {}],
      ['gaussian_blur', { radius: 2 }],
      ['invert_colors', {}],
      ['fill_selection', { color: '#ffffff' }],
      ['merge_layers', {}],
    ];
    const errors = await refuseAll(s, rows, 'locked', '像素');
    for (const e of errors) {
      expect(e.message, e.tool).toMatch(/^图层“像素”已锁定，不能[^，。]+$/);
      expect(e.hint, e.tool).toBe('先调用 lock_layer 解锁（locked: false）');
    }
  });

  it('Lock All on a group above', async () => {
    const s = await fixture();
    await ok(s, 'lock_layer', { name: '组', locked: true });
    const rows: Row[] = [
      ['move_layer', { name: '组内', dx: 1, dy: 1 }],
      ['flip_layer', { name: '组内', direction: 'horizontal' }],
      ['set_layer_opacity', { name: '组内', opacity: 50 }],
      ['add_drop_shadow', { name: '组内', distance: 4, size: 4 }],
      ['clear_layer_effects', { name: '组内' }],
      ['add_layer_mask', { name: '组内' }],
      ['convert_to_smart_object', { name: '组内' }],
      ['gaussian_blur', { radius: 2 }],
      ['desaturate', {}],
      ['fill_selection', { color: '#ffffff' }],
      ['group_layers', { layer_names: ['组内'], group_name: '新组' }],
      ['set_text_content', { name: '组内文字', text: '新' }],
      ['set_text_color', { name: '组内文字', color: '#ff0000' }],
    ];
    const errors = await refuseAll(s, rows, 'locked', '组内');
    for (const e of errors) {
      expect(e.message, e.tool).toMatch(/^图层“组内(文字)?”所在的图层组“组”已锁定，不能[^，。]+$/);
      expect(e.hint, e.tool).toBe('先调用 lock_layer 解锁图层组“组”（locked: false）');
    }
  });

  it('locked pixels and position, from each tool that needs them', async () => {
    const s = await fixture();
    // lock_layer sets Lock All; the finer locks come from PSDs, so they are set on the model directly.
    const state = current(s);
    const id = [...state.layers.values()].find((l) => l.name === '像素')!.id;
    const text = [...state.layers.values()].find((l) => l.name === '文字')!.id;
    edit(s, (st) => {
      const layers = new Map(st.layers);
      const lockPixels = (lid: number) => {
        const l = layers.get(lid)!;
        layers.set(lid, { ...l, locks: { ...l.locks, pixels: true, position: true } });
      };
      lockPixels(id);
      lockPixels(text);
      return { ...st, layers };
    });
    const pixelRows: Row[] = [
      ['gaussian_blur', { radius: 2 }],
      ['adjust_levels', { black: 10, gamma: 1, white: 245 }],
      ['fill_selection', { color: '#ffffff' }],
      ['resize_layer', { name: '像素', scale_x: 50 }],
    ];
    for (const e of await refuseAll(s, pixelRows, 'locked', '像素')) {
      expect(e.message, e.tool).toMatch(/^图层“像素”的(像素|位置)已锁定，不能[^，。]+$/);
      expect(e.hint, e.tool).toBe('先调用 lock_layer 解锁（locked: false）');
    }
    const textRows: Row[] = [
      ['set_text_content', { name: '文字', text: '新' }],
      ['set_text_size', { name: '文字', size: 20 }],
    ];
    for (const e of await refuseAll(s, textRows, 'locked', '文字')) {
      expect(e.message, e.tool).toMatch(/^图层“文字”的像素已锁定，不能[^，。]+$/);
    }
    const positionRows: Row[] = [
      ['move_layer', { name: '像素', dx: 1, dy: 0 }],
      ['align_layers_tool', { layer_names: ['像素'], alignment: 'left' }],
      ['distribute_layers', { layer_names: ['像素', '文字', '组'], direction: 'vertical' }],
    ];
    for (const e of await refuseAll(s, positionRows, 'locked', '像素')) {
      expect(e.message, e.tool).toMatch(/^图层“(像素|文字)”的位置已锁定，不能[^，。]+$/);
    }
  });

  it('the background', async () => {
    const s = await fixture();
    const rows: Row[] = [
      ['move_layer', { name: '背景', dx: 1, dy: 1 }],
      ['resize_layer', { name: '背景', scale_x: 50 }],
      ['set_layer_opacity', { name: '背景', opacity: 50 }],
      ['set_layer_blend_mode', { name: '背景', mode: 'screen' }],
      ['bring_to_front', { name: '背景' }],
      ['add_stroke', { name: '背景', size: 2, color: '#000000' }],
      ['add_drop_shadow', { name: '背景', distance: 4, size: 4 }],
      ['add_layer_mask', { name: '背景' }],
      ['create_clipping_mask', { name: '背景' }],
      ['group_layers', { layer_names: ['背景'], group_name: '新组' }],
      ['align_layers_tool', { layer_names: ['背景', '像素'], alignment: 'left' }],
      ['distribute_layers', { layer_names: ['背景', '像素', '文字'], direction: 'vertical' }],
    ];
    const errors = await refuseAll(s, rows, 'invalid_state', '背景');
    for (const e of errors) {
      const what = /^“背景”是背景图层，不能([^，。]+)$/.exec(e.message)?.[1];
      expect(what, `${e.tool}: ${e.message}`).toBeTruthy();
      expect(e.hint, e.tool).toBe(`先用 duplicate_layer 复制背景图层，再对副本${what}`);
      expect(e.details, e.tool).toMatchObject({ background: true });
    }
  });
});
