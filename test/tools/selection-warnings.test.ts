/**
 * What the selection and fill tools tell a model that did not get what it meant: an intersection or subtraction
 * that leaves nothing drops the selection with a warning (Photoshop's "No pixels are selected"), so the fill after
 * it is seen to reach the whole layer; a marquee's fractional edges are said to be rounded; Select All contracted
 * is unchanged and no step; a 0 % fill changes nothing and is no step; a fill or clear on a layer nobody sees says
 * so.
 */
import { describe, expect, it } from 'vitest';
import { ok } from '../support/session.js';
import { emptyLayerDoc, labels } from './selection-fixtures.js';

const warningsOf = (r: Record<string, unknown>) => (r.warnings ?? []) as string[];

describe('selection and fill warnings', () => {
  it('an intersection with nothing in common drops the selection and says the next fill reaches the whole layer', async () => {
    const s = await emptyLayerDoc(100, 100);
    await ok(s, 'select_rect', { left: 0, top: 0, right: 10, bottom: 10 });
    const r = await ok(s, 'select_rect', { left: 50, top: 0, right: 60, bottom: 10, mode: 'intersect' });
    expect(r.selection).toEqual({ active: false });
    expect(warningsOf(r).join()).toMatch(/没有任何像素被选中.*整个图层/);
    const fill = await ok(s, 'fill_selection', { color: '#0000ff' });
    expect(fill.area).toBe('whole_layer');

    await ok(s, 'select_rect', { left: 0, top: 0, right: 10, bottom: 10 });
    const sub = await ok(s, 'select_rect', { left: 0, top: 0, right: 20, bottom: 20, mode: 'subtract' });
    expect(sub.selection).toEqual({ active: false });
    expect(warningsOf(sub).join()).toContain('减去后没有任何像素被选中');

    // An intersection that keeps something warns of nothing.
    await ok(s, 'select_rect', { left: 0, top: 0, right: 30, bottom: 30 });
    const kept = await ok(s, 'select_rect', { left: 20, top: 20, right: 60, bottom: 60, mode: 'intersect' });
    expect(kept.warnings).toBeUndefined();
  });

  it('a marquee with fractional edges says how they were rounded', async () => {
    const s = await emptyLayerDoc(100, 100);
    const r = await ok(s, 'select_rect', { left: 10.5, top: 10.25, right: 20.5, bottom: 20 });
    expect(r.selection).toMatchObject({ bounds: { left: 11, top: 10, right: 21, bottom: 20 } });
    expect(warningsOf(r).join()).toContain('→（11, 10）-（21, 20）');
    const whole = await ok(s, 'select_rect', { left: 10, top: 10, right: 20, bottom: 20 });
    expect(whole.warnings).toBeUndefined();
  });

  it('Select All contracted or expanded is unchanged, and no history step', async () => {
    const s = await emptyLayerDoc(100, 80);
    await ok(s, 'select_all');
    const steps = labels(s).length;
    for (const operation of ['contract', 'expand'] as const) {
      const r = await ok(s, 'modify_selection', { operation, amount: 5 });
      expect(r.changed).toBe(false);
      expect(r.note).toContain('画布边缘不算选区边缘');
      expect(r.selection).toMatchObject({ whole_canvas: true, selected_percent: 100 });
    }
    expect(labels(s)).toHaveLength(steps);
  });

  it('a fill at 0 % opacity changes nothing and adds no step', async () => {
    const s = await emptyLayerDoc(60, 60);
    await ok(s, 'select_rect', { left: 0, top: 0, right: 30, bottom: 30 });
    const steps = labels(s).length;
    const r = await ok(s, 'fill_selection', { color: '#ff0000', opacity: 0 });
    expect(r.changed).toBe(false);
    expect(labels(s)).toHaveLength(steps);
    const px = await ok(s, 'get_pixel_color', { x: 5, y: 5 });
    expect(px).not.toMatchObject({ color: '#ff0000' });
  });

  it('a fill or clear on a hidden layer, or one in a hidden group, says nobody sees it', async () => {
    const s = await emptyLayerDoc(60, 60);
    const name = 'P';
    await ok(s, 'set_layer_visible', { name, visible: false });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 30, bottom: 30 });
    const fill = await ok(s, 'fill_selection', { color: '#ff0000' });
    expect(warningsOf(fill).join()).toContain(`图层“${name}”当前是隐藏的：已填充其像素`);
    const clear = await ok(s, 'clear_selection');
    expect(warningsOf(clear).join()).toContain('已清除其像素');

    await ok(s, 'set_layer_visible', { name, visible: true });
    await ok(s, 'group_layers', { group_name: '组', layer_names: [name] });
    await ok(s, 'set_layer_visible', { name: '组', visible: false });
    await ok(s, 'select_layers', { names: [name] });
    const inGroup = await ok(s, 'fill_selection', { color: '#00ff00' });
    expect(warningsOf(inGroup).join()).toContain('在隐藏的图层组里');

    await ok(s, 'set_layer_visible', { name: '组', visible: true });
    await ok(s, 'select_layers', { names: [name] });
    const shown = await ok(s, 'fill_selection', { color: '#0000ff' });
    expect(shown.warnings).toBeUndefined();
  });
});
