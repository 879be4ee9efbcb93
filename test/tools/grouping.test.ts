import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { contentBounds } from '../../src/engine/bounds.js';
import type { DocState, Layer } from '../../src/engine/model.js';
import { trimRaster } from '../../src/engine/raster.js';
import { newSession, ok, refused } from '../support/session.js';
import {
  addGroup,
  addPixel,
  current,
  edit,
  idOf,
  named,
  namesOf,
  near,
  newDoc,
  px,
  rasterOf,
  rectOfRaster,
  solid,
} from './layer-fixtures.js';

const RED = [255, 0, 0, 255] as const;
const GREEN = [0, 255, 0, 255] as const;
const BLUE = [0, 0, 255, 255] as const;

/** Background, then A, B, C, D bottom → top, each a small square; D is active. */
async function fourLayers(width = 100, height = 60): Promise<Session> {
  const session = newSession();
  await newDoc(session, width, height);
  edit(session, (s) => {
    let n = addPixel(s, 'A', solid({ x: 0, y: 0, w: 10, h: 10 }, RED));
    n = addPixel(n, 'B', solid({ x: 20, y: 5, w: 10, h: 20 }, GREEN));
    n = addPixel(n, 'C', solid({ x: 47, y: 30, w: 6, h: 6 }, BLUE));
    n = addPixel(n, 'D', solid({ x: 80, y: 40, w: 20, h: 10 }, RED));
    return { ...n, active: idOf(n, 'D'), selected: [idOf(n, 'D')] };
  });
  return session;
}

const boxOf = (s: DocState, name: string) => contentBounds(s, idOf(s, name));

function hide(s: DocState, ...names: string[]): DocState {
  const layers = new Map(s.layers);
  for (const n of names) layers.set(idOf(s, n), { ...named(s, n), visible: false } as Layer);
  return { ...s, layers };
}

describe('group_layers', () => {
  it('puts the named layers, in stack order, into a new group where the topmost one was', async () => {
    const session = await fourLayers();
    const before = current(session);
    const r = await ok(session, 'group_layers', { layer_names: ['C', 'A'], group_name: '组 1' });
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'B', '组 1', 'D']);
    const g = named(s, '组 1');
    expect(g.kind).toBe('group');
    if (g.kind !== 'group') return;
    expect(namesOf(s, g.children)).toEqual(['A', 'C']);
    expect(g).toMatchObject({ blend: 'pass through', opacity: 1, visible: true });
    expect(s.active).toBe(g.id);
    expect(s.selected).toEqual([g.id]);
    expect(r.children).toEqual(['C', 'A']);
    expect((r.group as { name: string }).name).toBe('组 1');
    // Same layer objects: grouping moves, never copies.
    expect(s.layers.get(idOf(before, 'A'))).toBe(before.layers.get(idOf(before, 'A')));
  });

  it('takes layers out of other groups', async () => {
    const session = await fourLayers();
    edit(session, (s) => {
      let n = addGroup(s, 'old');
      n = addPixel(n, 'E', solid({ x: 0, y: 50, w: 5, h: 5 }, GREEN), {}, idOf(n, 'old'));
      n = addPixel(n, 'F', solid({ x: 5, y: 50, w: 5, h: 5 }, GREEN), {}, idOf(n, 'old'));
      return n;
    });
    await ok(session, 'group_layers', { layer_names: ['B', 'F'], group_name: 'new' });
    const s = current(session);
    // F (in 'old', at the top of the stack) was the topmost: the new group takes its place inside 'old'.
    expect(namesOf(s, s.root)).toEqual(['背景', 'A', 'C', 'D', 'old']);
    const old = named(s, 'old');
    expect(old.kind === 'group' && namesOf(s, old.children)).toEqual(['E', 'new']);
    const g = named(s, 'new');
    expect(g.kind === 'group' && namesOf(s, g.children)).toEqual(['B', 'F']);
  });

  it('warns when a group of that name already exists, and still creates a new one', async () => {
    const session = await fourLayers();
    edit(session, (s) => addGroup(s, 'G'));
    const r = await ok(session, 'group_layers', { layer_names: ['A'], group_name: 'G' });
    expect(r.warnings).toEqual([expect.stringContaining('G')]);
    const s = current(session);
    expect([...s.layers.values()].filter((l) => l.name === 'G')).toHaveLength(2);
  });

  it('refuses unknown names (with the closest ones) and nested names, changing nothing', async () => {
    const session = await fourLayers();
    edit(session, (s) =>
      addPixel(addGroup(s, 'Grp'), 'inside', solid({ x: 0, y: 0, w: 1, h: 1 }, RED), {}, s.nextId),
    );
    const err = await refused(
      session,
      'group_layers',
      { layer_names: ['A', 'Bx'], group_name: 'X' },
      'not_found',
    );
    expect(err.details).toMatchObject({ missing: ['Bx'], closest: expect.arrayContaining(['B']) });
    expect(err.message).toContain('Bx');
    await refused(
      session,
      'group_layers',
      { layer_names: ['Grp', 'inside'], group_name: 'X' },
      'invalid_state',
    );
  });
});

function lock(s: DocState, name: string): DocState {
  const l = named(s, name);
  return { ...s, layers: new Map(s.layers).set(l.id, { ...l, locks: { ...l.locks, all: true } } as Layer) };
}

describe('group_layers and locks', () => {
  it('groups a locked layer (restacking is allowed, as in Photoshop) but not the background', async () => {
    const session = await fourLayers();
    edit(session, (s) => lock(s, 'A'));
    await ok(session, 'group_layers', { layer_names: ['A', 'B'], group_name: 'G' });
    const g = named(current(session), 'G');
    expect(g.kind === 'group' && namesOf(current(session), g.children)).toEqual(['A', 'B']);
    const err = await refused(
      session,
      'group_layers',
      { layer_names: ['背景', 'C'], group_name: 'H' },
      'invalid_state',
    );
    expect(err.hint).toContain('duplicate_layer');
  });

  it('does not take a layer out of a locked group', async () => {
    const session = await fourLayers();
    edit(session, (s) => {
      let n = addGroup(s, 'L');
      n = addPixel(n, 'in', solid({ x: 0, y: 0, w: 1, h: 1 }, RED), {}, idOf(n, 'L'));
      return lock(n, 'L');
    });
    await refused(session, 'group_layers', { layer_names: ['in', 'A'], group_name: 'G' }, 'locked');
  });
});

describe('align_layers_tool', () => {
  it('aligns two or more layers to their union bounds', async () => {
    const session = await fourLayers();
    const r = await ok(session, 'align_layers_tool', { layer_names: ['A', 'B', 'C'], alignment: 'bottom' });
    const s = current(session);
    for (const n of ['A', 'B', 'C']) expect(boxOf(s, n).y + boxOf(s, n).h).toBe(36);
    expect(boxOf(s, 'A').x).toBe(0);
    expect(r).toMatchObject({ to: 'selection', moved: 2 }); // C already ends at 36
    await ok(session, 'align_layers_tool', { layer_names: ['A', 'C'], alignment: 'center_h' });
    const t = current(session);
    // Union of A (0..10) and C (47..53) has its centre at 26.5: A moves by round(21.5), C by round(−23.5).
    expect([boxOf(t, 'A').x, boxOf(t, 'C').x]).toEqual([22, 24]);
    expect(t.selected).toEqual([idOf(t, 'A'), idOf(t, 'C')]);
  });

  it('aligns a single layer to the canvas', async () => {
    const session = await fourLayers();
    const r = await ok(session, 'align_layers_tool', { layer_names: ['C'], alignment: 'center_v' });
    expect(r.to).toBe('canvas');
    expect(boxOf(current(session), 'C')).toEqual({ x: 47, y: 27, w: 6, h: 6 });
    await ok(session, 'align_layers_tool', { layer_names: ['D'], alignment: 'left' });
    expect(boxOf(current(session), 'D').x).toBe(0);
    expect(current(session).active).toBe(idOf(current(session), 'D'));
  });

  it('refuses unknown names and locked layers', async () => {
    const session = await fourLayers();
    await refused(session, 'align_layers_tool', { layer_names: ['A', 'Q'], alignment: 'left' }, 'not_found');
    edit(session, (s) => {
      const c = named(s, 'C');
      return { ...s, layers: new Map(s.layers).set(c.id, { ...c, locks: { ...c.locks, all: true } }) };
    });
    await refused(session, 'align_layers_tool', { layer_names: ['A', 'C'], alignment: 'left' }, 'locked');
    await refused(
      session,
      'align_layers_tool',
      { layer_names: ['A', '背景'], alignment: 'left' },
      'invalid_state',
    );
  });
});

describe('distribute_layers', () => {
  it('keeps the outermost layers and makes the gaps between edges equal', async () => {
    const session = await fourLayers();
    // Horizontal: A 0..10, B 20..30, C 47..53, D 80..100. Free space 80 − 10 − 16 = 54 → gap 18.
    const r = await ok(session, 'distribute_layers', {
      layer_names: ['D', 'B', 'A', 'C'],
      direction: 'horizontal',
    });
    const s = current(session);
    const xs = ['A', 'B', 'C', 'D'].map((n) => boxOf(s, n));
    expect(xs.map((b) => b.x)).toEqual([0, 28, 56, 80]);
    for (let i = 1; i < xs.length; i++) expect(xs[i]!.x - (xs[i - 1]!.x + xs[i - 1]!.w)).toBe(18);
    // Vertical positions untouched.
    expect(xs.map((b) => b.y)).toEqual([0, 5, 30, 40]);
    expect(r).toMatchObject({ gap: 18, moved: 2, order: ['A', 'B', 'C', 'D'] });
  });

  it('distributes vertically, rounding to whole pixels', async () => {
    const session = await fourLayers();
    // Vertical: A 0..10, B 5..25, C 30..36, D 40..50 sorted by centre: A(5), B(15), C(33), D(45).
    // Free space 40 − 10 − 26 = 4 → gap 4/3: B at round(10 + 1.33) = 11, C at round(10 + 20 + 2.67) = 33.
    await ok(session, 'distribute_layers', { layer_names: ['A', 'B', 'C', 'D'], direction: 'vertical' });
    const s = current(session);
    expect(['A', 'B', 'C', 'D'].map((n) => boxOf(s, n).y)).toEqual([0, 11, 33, 40]);
    const ys = ['A', 'B', 'C', 'D'].map((n) => boxOf(s, n));
    for (let i = 1; i < ys.length; i++) {
      const gap = ys[i]!.y - (ys[i - 1]!.y + ys[i - 1]!.h);
      expect(Math.abs(gap - 4 / 3)).toBeLessThan(1);
    }
  });

  it('needs three layers with content', async () => {
    const session = await fourLayers();
    const err = await refused(
      session,
      'distribute_layers',
      { layer_names: ['A', 'B', 'A'], direction: 'horizontal' },
      'invalid_state',
    );
    expect(err.hint).toContain('align_layers_tool');
    edit(session, (s) => addPixel(s, 'empty', { x: 0, y: 0, w: 0, h: 0, data: new Uint8ClampedArray(0) }));
    await refused(
      session,
      'distribute_layers',
      { layer_names: ['A', 'B', 'empty'], direction: 'vertical' },
      'invalid_state',
    );
    await refused(
      session,
      'distribute_layers',
      { layer_names: ['A', 'B', 'Z'], direction: 'vertical' },
      'not_found',
    );
  });
});

describe('merge_visible', () => {
  it('merges the visible layers into the visible background and keeps hidden layers in place', async () => {
    const session = await fourLayers();
    edit(session, (s) => hide(s, 'B'));
    const shown = (() => {
      const tx = session.editor.begin();
      return tx.composite(tx.activeDocument().id);
    })();
    const b = named(current(session), 'B');
    const r = await ok(session, 'merge_visible');
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'B']);
    expect(s.layers.get(b.id)).toBe(b);
    const bg = s.layers.get(1)!;
    expect(bg).toMatchObject({ kind: 'pixel', background: true, name: '背景' });
    expect(rasterOf(bg).data).toEqual(shown.data);
    expect(px(rasterOf(bg), 85, 45)).toEqual([...RED]);
    expect(r).toMatchObject({ merged_count: 4, kept_hidden: ['B'] });
    expect(s.active).toBe(1);
  });

  it('without a visible background, makes a new layer named after the topmost visible layer', async () => {
    const session = await fourLayers();
    edit(session, (s) => {
      let n = hide(s, '背景', 'D');
      n = addGroup(n, 'G', { opacity: 0.5 });
      n = addPixel(n, 'in', solid({ x: 60, y: 0, w: 10, h: 10 }, BLUE), {}, idOf(n, 'G'));
      n = addPixel(
        n,
        'in-hidden',
        solid({ x: 60, y: 0, w: 10, h: 10 }, GREEN),
        { visible: false },
        idOf(n, 'G'),
      );
      return n;
    });
    const before = current(session);
    const tx = session.editor.begin();
    const shown = tx.composite(tx.activeDocument().id);
    await ok(session, 'merge_visible');
    const s = current(session);
    // The group keeps its hidden child and sits where it was; the merged layer takes the top slot.
    expect(namesOf(s, s.root)).toEqual(['背景', 'D', 'G', 'in']);
    const g = named(s, 'G');
    expect(g.kind === 'group' && namesOf(s, g.children)).toEqual(['in-hidden']);
    expect(s.layers.get(1)).toBe(before.layers.get(1));
    const merged = named(s, 'in');
    expect(merged.kind).toBe('pixel');
    expect(rasterOf(merged).data).toEqual(trimRaster(shown).data);
    // G's 50 % was applied to 'in' in the composite, and so in the merged pixels.
    expect(near(px(rasterOf(merged), 65, 5), [0, 0, 255, 127.5])).toBe(true);
    expect(px(rasterOf(merged), 5, 5)).toEqual([...RED]);
  });

  it('keeps layers clipped to a hidden base (they show nothing) with their base', async () => {
    const session = await fourLayers();
    edit(session, (s) => {
      const n = addPixel(hide(s, 'D'), 'clip', solid({ x: 80, y: 40, w: 5, h: 5 }, GREEN), { clipped: true });
      return lock(n, 'D'); // a hidden, locked layer is not touched, so it does not block the merge
    });
    await ok(session, 'merge_visible');
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'D', 'clip']);
    expect(named(s, 'clip').clipped).toBe(true);
  });

  it('refuses when nothing is visible', async () => {
    const session = await fourLayers();
    edit(session, (s) => hide(s, '背景', 'A', 'B', 'C', 'D'));
    await refused(session, 'merge_visible', {}, 'invalid_state');
  });
});

describe('flatten_image', () => {
  it('leaves one opaque background over white and discards hidden layers', async () => {
    const session = newSession();
    await newDoc(session, 10, 10);
    edit(session, (s) => {
      let n = hide(s, '背景');
      n = addPixel(n, 'half', solid({ x: 0, y: 0, w: 5, h: 5 }, [0, 0, 0, 128]));
      n = addPixel(n, 'gone', solid({ x: 0, y: 0, w: 10, h: 10 }, RED), { visible: false });
      n = addGroup(n, 'hidden group', { visible: false });
      return addPixel(n, 'inside', solid({ x: 0, y: 0, w: 1, h: 1 }, RED), {}, idOf(n, 'hidden group'));
    });
    const r = await ok(session, 'flatten_image');
    const s = current(session);
    expect(s.root).toHaveLength(1);
    expect(s.layers.size).toBe(1);
    const bg = s.layers.get(s.root[0]!)!;
    expect(bg).toMatchObject({ name: '背景', kind: 'pixel', background: true, visible: true, opacity: 1 });
    const raster = rasterOf(bg);
    expect(rectOfRaster(raster)).toEqual({ x: 0, y: 0, w: 10, h: 10 });
    expect(near(px(raster, 2, 2), [127, 127, 127, 255])).toBe(true);
    expect(px(raster, 8, 8)).toEqual([255, 255, 255, 255]);
    expect(r).toMatchObject({ hidden_discarded: 4, flattened: 1, layer_count: 1 });
    expect(r.discarded).toEqual(['hidden group', 'gone', '背景']);
    expect(s.active).toBe(bg.id);
  });
});

describe('copy_merged_to_new_layer', () => {
  it('stamps the visible composite, trimmed, into a new layer above the active one', async () => {
    const session = await fourLayers();
    edit(session, (s) => {
      const n = hide(s, '背景', 'D');
      return { ...n, active: idOf(n, 'B'), selected: [idOf(n, 'B')] };
    });
    const before = current(session);
    await ok(session, 'copy_merged_to_new_layer');
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'A', 'B', '图层 1', 'C', 'D']);
    const stamp = named(s, '图层 1');
    expect(s.active).toBe(stamp.id);
    const raster = rasterOf(stamp);
    expect(rectOfRaster(raster)).toEqual({ x: 0, y: 0, w: 53, h: 36 });
    expect(px(raster, 50, 33)).toEqual([...BLUE]);
    expect(px(raster, 85, 45)).toEqual([0, 0, 0, 0]);
    // Everything else untouched.
    for (const [id, layer] of before.layers) expect(s.layers.get(id)).toBe(layer);
  });

  it('refuses when nothing is visible', async () => {
    const session = await fourLayers();
    edit(session, (s) => hide(s, '背景', 'A', 'B', 'C', 'D'));
    await refused(session, 'copy_merged_to_new_layer', {}, 'invalid_state');
  });
});
