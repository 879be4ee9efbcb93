import { describe, expect, it } from 'vitest';
import { layerById, parentOf } from '../../src/engine/tree.js';
import { newSession, ok, refused } from '../support/session.js';
import { addPixel, current, edit, named, newDoc, select, solid } from './layer-fixtures.js';

/** Top-to-bottom names of the top level, as get_layer_structure reports them. */
async function panel(s: ReturnType<typeof newSession>): Promise<string[]> {
  const r = await ok(s, 'get_layer_structure');
  return (r.layers as { name: string }[]).map((l) => l.name);
}

describe('create_layer, rename_layer, delete_layer, duplicate_layer', () => {
  it('creates above the active layer and activates it; renames and deletes the active layer', async () => {
    const s = newSession();
    await newDoc(s);
    await ok(s, 'create_layer', { name: 'a' });
    await ok(s, 'create_layer', { name: 'b' });
    edit(s, (st) => ({ ...st, active: named(st, 'a').id, selected: [named(st, 'a').id] }));
    await ok(s, 'create_layer', { name: 'c' });
    expect(await panel(s)).toEqual(['b', 'c', 'a', '背景']);
    const r = await ok(s, 'rename_layer', { new_name: 'C' });
    expect(r).toMatchObject({ old_name: 'c', layer: { name: 'C' } });
    const d = await ok(s, 'delete_layer');
    // Photoshop activates the layer below the deleted one.
    expect(d).toMatchObject({ deleted: 'C', active_layer: 'a' });
    expect(await panel(s)).toEqual(['b', 'a', '背景']);
  });

  it('duplicates as "<name> 拷贝" above the original, sharing pixels', async () => {
    const s = newSession();
    await newDoc(s);
    edit(s, (st) => addPixel(st, '花', solid({ x: 2, y: 2, w: 5, h: 5 }, [200, 10, 10, 255])));
    edit(s, (st) => select(st, '花'));
    const r = await ok(s, 'duplicate_layer');
    expect(r).toMatchObject({
      source: '花',
      layer: { name: '花 拷贝', bounds: { left: 2, top: 2, width: 5 } },
    });
    expect(await panel(s)).toEqual(['花 拷贝', '花', '背景']);
    const st = current(s);
    const copy = named(st, '花 拷贝');
    const orig = named(st, '花');
    if (copy.kind !== 'pixel' || orig.kind !== 'pixel') throw new Error('pixel layers expected');
    expect(copy.raster.data).toBe(orig.raster.data);
    expect(st.active).toBe(copy.id);
  });

  it('refuses to delete the only layer and to rename a locked layer', async () => {
    const s = newSession();
    await newDoc(s);
    await refused(s, 'delete_layer', {}, 'invalid_state');
    await ok(s, 'create_layer', { name: 'x' });
    await ok(s, 'lock_layer', { name: 'x', locked: true });
    await refused(s, 'rename_layer', { new_name: 'y' }, 'locked');
    await refused(s, 'delete_layer', {}, 'locked');
  });
});

describe('blank names', () => {
  it('are refused for a new layer, a renamed layer, a group or a document, changing nothing', async () => {
    const s = newSession();
    await newDoc(s);
    await ok(s, 'create_layer', { name: 'a' });
    const steps = s.editor.snapshot.docs[0]!.history.labels.length;
    for (const [tool, args] of [
      ['create_layer', { name: '   ' }],
      ['rename_layer', { new_name: '' }],
      ['create_layer_group', { name: '\u3000' }],
      ['group_layers', { layer_names: ['a'], group_name: '\t' }],
      ['create_document', { width: 10, height: 10, name: ' ' }],
    ] as const) {
      // `refused` also shows the editor snapshot is the same object and every document hashes the same.
      const error = await refused(s, tool, args, 'invalid_arguments');
      expect(error.message, tool).toContain('不能为空或只含空白字符');
      expect(error.hint, tool).toContain('图层 1');
    }
    expect(s.editor.snapshot.docs).toHaveLength(1);
    expect(s.editor.snapshot.docs[0]!.history.labels).toHaveLength(steps);
    expect(await panel(s)).toEqual(['a', '背景']);
  });

  it('do not stop a name with a character, kept as given', async () => {
    const s = newSession();
    await newDoc(s);
    expect(await ok(s, 'create_layer', { name: ' 前片 ' })).toMatchObject({ layer: { name: ' 前片 ' } });
    expect(await ok(s, 'rename_layer', { new_name: '后片' })).toMatchObject({ layer: { name: '后片' } });
    expect(await ok(s, 'create_layer_group', { name: '\u3000组' })).toMatchObject({
      created: true,
      group: { name: '\u3000组' },
    });
    expect(await panel(s)).toEqual(['\u3000组', '后片', '背景']);
  });
});

describe('layers that share a name', () => {
  it('are named name#1, name#2… from the top, and every tool reaches each of them', async () => {
    const s = newSession();
    await newDoc(s);
    edit(s, (st) => addPixel(st, '色块', solid({ x: 0, y: 0, w: 4, h: 4 }, [200, 0, 0, 255])));
    edit(s, (st) => addPixel(st, '色块', solid({ x: 6, y: 0, w: 4, h: 4 }, [0, 0, 200, 255])));
    const r = await ok(s, 'get_layer_structure');
    const [top, lower] = r.layers as { id: number; name: string; ref?: string }[];
    expect([top!.name, top!.ref, lower!.name, lower!.ref]).toEqual(['色块', '色块#1', '色块', '色块#2']);
    // The bare name is the top one (Photoshop's getByName), with a warning that says how to reach the others.
    const bare = await ok(s, 'set_layer_visible', { name: '色块', visible: false });
    expect(bare.warnings as string[]).toEqual([expect.stringContaining('色块#2')]);
    expect(layerById(current(s), top!.id).visible).toBe(false);
    // The lower one by its reference: only it changes.
    await ok(s, 'set_layer_opacity', { name: '色块#2', opacity: 40 });
    expect(layerById(current(s), lower!.id).opacity).toBeCloseTo(0.4);
    expect(layerById(current(s), top!.id).opacity).toBe(1);
    await ok(s, 'select_layers', { names: ['色块#2'] });
    expect(current(s).active).toBe(lower!.id);
    // A reference past the count names nothing.
    await refused(s, 'set_layer_visible', { name: '色块#3', visible: false }, 'not_found');
    await ok(s, 'rename_layer', { new_name: '花' });
    expect((await ok(s, 'get_layer_structure')).layers).toMatchObject([{ name: '色块' }, { name: '花' }, {}]);
    expect(((await ok(s, 'get_layer_structure')).layers as { ref?: string }[])[0]!.ref).toBeUndefined();
  });
});

describe('align_layers', () => {
  async function threeBoxes() {
    const s = newSession();
    await newDoc(s, 100, 60);
    edit(s, (st) => addPixel(st, 'a', solid({ x: 10, y: 5, w: 10, h: 10 }, [255, 0, 0, 255])));
    edit(s, (st) => addPixel(st, 'b', solid({ x: 40, y: 20, w: 20, h: 6 }, [0, 255, 0, 255])));
    edit(s, (st) => addPixel(st, 'c', solid({ x: 70, y: 30, w: 4, h: 20 }, [0, 0, 255, 255])));
    return s;
  }
  const box = (s: ReturnType<typeof newSession>, n: string) => {
    const l = named(current(s), n);
    if (l.kind !== 'pixel') throw new Error('pixel expected');
    return [l.raster.x, l.raster.y, l.raster.w, l.raster.h];
  };

  it('aligns two or more selected layers to their union bounds', async () => {
    const s = await threeBoxes();
    await ok(s, 'select_layers', { names: ['a', 'b', 'c'] });
    const r = await ok(s, 'align_layers', { type: 'right' });
    expect(r).toMatchObject({ to: 'selection', moved: 2 });
    expect([box(s, 'a')[0]! + 10, box(s, 'b')[0]! + 20, box(s, 'c')[0]! + 4]).toEqual([74, 74, 74]);
    await ok(s, 'align_layers', { type: 'centerV' });
    // Union is y 5..50: centre 27.5 → each layer's centre lands there (rounded to whole pixels).
    expect(box(s, 'a')[1]).toBe(23);
    expect(box(s, 'b')[1]).toBe(25);
    expect(box(s, 'c')[1]).toBe(18);
  });

  it('aligns a single selected layer to the canvas', async () => {
    const s = await threeBoxes();
    await ok(s, 'select_layers', { names: ['b'] });
    await ok(s, 'align_layers', { type: 'centerH' });
    expect(box(s, 'b')).toEqual([40, 20, 20, 6]);
    await ok(s, 'align_layers', { type: 'bottom' });
    expect(box(s, 'b')).toEqual([40, 54, 20, 6]);
    await ok(s, 'align_layers', { type: 'left' });
    expect(box(s, 'b')).toEqual([0, 54, 20, 6]);
  });

  it('refuses the background and locked layers, changing nothing', async () => {
    const s = await threeBoxes();
    await ok(s, 'select_layers', { names: ['a', '背景'] });
    await refused(s, 'align_layers', { type: 'left' }, 'invalid_state');
    await ok(s, 'lock_layer', { name: 'c', locked: true });
    await ok(s, 'select_layers', { names: ['a', 'c'] });
    await refused(s, 'align_layers', { type: 'top' }, 'locked');
  });
});

describe('create_layer_group and move_layer_to_group', () => {
  it('creates a group once and says whether it created', async () => {
    const s = newSession();
    await newDoc(s);
    expect(await ok(s, 'create_layer_group', { name: '组' })).toMatchObject({ created: true });
    const again = await ok(s, 'create_layer_group', { name: '组' });
    expect(again).toMatchObject({ created: false, group: { name: '组', type: 'group' } });
    expect(s.editor.snapshot.docs[0]!.history.labels.filter((l) => l === '创建图层组')).toHaveLength(1);
  });

  it('moves the active layer to the top of the named group', async () => {
    const s = newSession();
    await newDoc(s);
    await ok(s, 'create_layer_group', { name: '组' });
    await ok(s, 'create_layer', { name: '旧' });
    await ok(s, 'move_layer_to_group', { group_name: '组' });
    await ok(s, 'create_layer', { name: '新' });
    await ok(s, 'move_layer_to_group', { group_name: '组' });
    const st = current(s);
    const group = named(st, '组');
    expect(group.kind === 'group' && group.children.map((id) => layerById(st, id).name)).toEqual([
      '旧',
      '新',
    ]);
    expect(parentOf(st, named(st, '新').id)).toBe(group.id);
  });

  it('refuses a missing group (with close names), a non-group and moving a group into itself', async () => {
    const s = newSession();
    await newDoc(s);
    await ok(s, 'create_layer_group', { name: '前片组' });
    await ok(s, 'create_layer', { name: '图层' });
    const e = await refused(s, 'move_layer_to_group', { group_name: '前片' }, 'not_found');
    expect(e?.details).toMatchObject({ closest: ['前片组'] });
    await refused(s, 'move_layer_to_group', { group_name: '背景' }, 'invalid_state');
    await ok(s, 'select_layers', { names: ['前片组'] });
    await refused(s, 'move_layer_to_group', { group_name: '前片组' }, 'invalid_state');
  });
});

describe('get_document_info', () => {
  it('reports the size on paper at the resolution, to 0.1 mm and 0.01 in', async () => {
    const s = newSession();
    const created = await ok(s, 'create_document', {
      width: 2480,
      height: 3508,
      resolution: 300,
      name: 'A4',
    });
    // The document summary other tools return stays as it was: the size on paper is get_document_info's.
    expect(created.document).not.toHaveProperty('physical_size');
    const info = await ok(s, 'get_document_info');
    // 2480 × 3508 px at 300 DPI is 209.97 × 297.01 mm (A4 rounded to whole pixels), 8.267 × 11.693 in.
    expect(info).toMatchObject({
      document: { width: 2480, height: 3508, resolution: 300 },
      physical_size: { width_mm: 210, height_mm: 297, width_in: 8.27, height_in: 11.69 },
      guides: 0,
    });
    expect(info.document).not.toHaveProperty('physical_size');
    expect(info).not.toHaveProperty('cmyk_profile');
    await ok(s, 'convert_to_cmyk', {});
    expect((await ok(s, 'get_document_info')).cmyk_profile).toMatchObject({
      name: 'Artifex CMYK SWOP Profile',
      source: 'default',
    });

    // A new resolution keeps the pixels and changes the size on paper.
    await ok(s, 'resize_image', { width: 1000, height: 500, resolution: 72 });
    expect((await ok(s, 'get_document_info')).physical_size).toEqual({
      width_mm: 352.8,
      height_mm: 176.4,
      width_in: 13.89,
      height_in: 6.94,
    });
  });
});
