/**
 * arrange_layers through the real Session, as the studio's layers pane calls it when several selected rows are
 * dragged: the layers move as one block keeping their stacking order (whatever the list's order), one history
 * step; a group with what it holds; the clipping rule for a block; refusals that change nothing; the order
 * psd-tools reads back.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { DocState } from '../../src/engine/model.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, idOf, named, solid } from './layer-fixtures.js';

const RED = [255, 0, 0, 255] as const;

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

/** Names bottom → top, a group as `name[children…]`. */
function stack(state: DocState, ids: readonly number[] = state.root): string[] {
  return ids.map((id) => {
    const l = state.layers.get(id)!;
    return l.kind === 'group' ? `${l.name}[${stack(state, l.children).join(' ')}]` : l.name;
  });
}

/** 背景, A, B, C, D, G[g1 g2] (bottom → top). */
async function setup(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 40, height: 30 });
  edit(s, (st) => {
    let n = st;
    for (const [i, name] of ['A', 'B', 'C', 'D'].entries())
      n = addPixel(n, name, solid({ x: i * 5, y: 0, w: 10, h: 10 }, [...RED]));
    n = addGroup(n, 'G');
    n = addPixel(n, 'g1', solid({ x: 20, y: 0, w: 5, h: 5 }, [...RED]), {}, idOf(n, 'G'));
    return addPixel(n, 'g2', solid({ x: 25, y: 0, w: 5, h: 5 }, [...RED]), {}, idOf(n, 'G'));
  });
  return s;
}

describe('arrange_layers', () => {
  it('moves the named layers as one block in their stacking order, one history step; one undo puts them back', async () => {
    const s = await setup();
    const steps = labels(s).length;
    // Listed top-first or not, D stays above B.
    const r = await ok(s, 'arrange_layers', { layer_names: ['B', 'D'], position: 'below', reference: 'A' });
    expect(stack(current(s))).toEqual(['背景', 'B', 'D', 'A', 'C', 'G[g1 g2]']);
    expect(labels(s)).toHaveLength(steps + 1);
    expect(labels(s).at(-1)).toBe('排列多个图层');
    expect((r.layers as { name: string }[]).map((l) => l.name)).toEqual(['D', 'B']);
    const st = current(s);
    expect(st.selected).toEqual([idOf(st, 'B'), idOf(st, 'D')]);
    await ok(s, 'undo');
    expect(stack(current(s))).toEqual(['背景', 'A', 'B', 'C', 'D', 'G[g1 g2]']);

    // Into a group, at its top; out of it again, above a top-level layer.
    const into = await ok(s, 'arrange_layers', {
      layer_names: ['C', 'A'],
      position: 'inside',
      reference: 'G',
    });
    expect(into.within_group).toBe('G');
    expect(stack(current(s))).toEqual(['背景', 'B', 'D', 'G[g1 g2 A C]']);
    await ok(s, 'arrange_layers', { layer_names: ['g2', 'A'], position: 'above', reference: '背景' });
    expect(stack(current(s))).toEqual(['背景', 'g2', 'A', 'B', 'D', 'G[g1 C]']);
  });

  it('moves a group with what it holds, once, and adds no step where the block already is', async () => {
    const s = await setup();
    const r = await ok(s, 'arrange_layers', { layer_names: ['g1', 'G'], position: 'above', reference: 'A' });
    expect(r.moved_with_group).toEqual(['g1']);
    expect(stack(current(s))).toEqual(['背景', 'A', 'G[g1 g2]', 'B', 'C', 'D']);
    const steps = labels(s).length;
    const same = await ok(s, 'arrange_layers', {
      layer_names: ['C', 'B'],
      position: 'above',
      reference: 'G',
    });
    expect(same.changed).toBe(false);
    expect(labels(s)).toHaveLength(steps);
    const st = current(s);
    expect(st.selected).toEqual([idOf(st, 'C'), idOf(st, 'B')]);
  });

  it('keeps a clipping mask moved whole, joins one it is dropped into, and releases a clipped layer left on nothing', async () => {
    const s = await setup();
    await ok(s, 'create_clipping_mask', { name: 'C' }); // C clips to B
    await ok(s, 'arrange_layers', { layer_names: ['B', 'C'], position: 'above', reference: 'D' });
    expect(stack(current(s))).toEqual(['背景', 'A', 'D', 'B', 'C', 'G[g1 g2]']);
    expect(named(current(s), 'C').clipped).toBe(true);
    expect(named(current(s), 'B').clipped).toBe(false);

    // A and D dropped between B (the base) and C (clipped): both join the mask.
    const join = await ok(s, 'arrange_layers', {
      layer_names: ['A', 'D'],
      position: 'below',
      reference: 'C',
    });
    expect(stack(current(s))).toEqual(['背景', 'B', 'A', 'D', 'C', 'G[g1 g2]']);
    expect(['A', 'D', 'C'].map((n) => named(current(s), n).clipped)).toEqual([true, true, true]);
    expect(join.notes).toEqual(['“A”已加入剪贴蒙版', '“D”已加入剪贴蒙版']);

    // The base moved away alone: what was clipped to it now clips to the layer below it, and says which.
    const t = await setup();
    await ok(t, 'create_clipping_mask', { name: 'C' }); // C clips to B
    const away = await ok(t, 'arrange_layers', { layer_names: ['B'], position: 'above', reference: 'D' });
    expect(stack(current(t))).toEqual(['背景', 'A', 'C', 'D', 'B', 'G[g1 g2]']);
    expect(away.notes).toEqual(['原先剪贴到被移动图层上的 1 个图层现在剪贴到“A”']);

    // Out of the mask, above the group: released.
    await ok(s, 'arrange_layers', { layer_names: ['D', 'C'], position: 'above', reference: 'G' });
    expect(stack(current(s))).toEqual(['背景', 'B', 'A', 'G[g1 g2]', 'D', 'C']);
    expect(named(current(s), 'D').clipped).toBe(false);
    expect(named(current(s), 'C').clipped).toBe(true); // rests on D, which moved with it
  });

  it('refuses the background, a reference among the moved layers or inside a moved group, and bad places, changing nothing', async () => {
    const s = await setup();
    const bg = await refused(
      s,
      'arrange_layers',
      { layer_names: ['A', '背景'], position: 'above', reference: 'D' },
      'invalid_state',
    );
    expect(bg.message).toContain('背景');
    await refused(
      s,
      'arrange_layers',
      { layer_names: ['A', 'B'], position: 'above', reference: 'B' },
      'invalid_state',
    );
    await refused(
      s,
      'arrange_layers',
      { layer_names: ['G', 'A'], position: 'below', reference: 'g1' },
      'invalid_state',
    );
    await refused(
      s,
      'arrange_layers',
      { layer_names: ['A'], position: 'inside', reference: 'D' },
      'invalid_state',
    );
    await refused(
      s,
      'arrange_layers',
      { layer_names: ['A', 'B'], position: 'below', reference: '背景' },
      'invalid_state',
    );
    await refused(
      s,
      'arrange_layers',
      { layer_names: ['A', 'Nope'], position: 'above', reference: 'D' },
      'not_found',
    );
    await refused(
      s,
      'arrange_layers',
      { layer_names: [], position: 'above', reference: 'D' },
      'invalid_arguments',
    );
    await refused(
      s,
      'arrange_layers',
      { layer_names: ['A'], position: 'forward', reference: 'D' },
      'invalid_arguments',
    );
    expect(stack(current(s))).toEqual(['背景', 'A', 'B', 'C', 'D', 'G[g1 g2]']);
  });

  it.skipIf(!psdToolsAvailable())('writes the new order to the PSD, as psd-tools reads it', async () => {
    const s = await setup();
    await ok(s, 'arrange_layers', { layer_names: ['A', 'C'], position: 'inside', reference: 'G' });
    await ok(s, 'save_document_as', { path: 'arranged.psd' });
    const { dump } = await readWithPsdTools(await s.workspace.read('arranged.psd'));
    expect(flattenPsdTools(dump.layers).map((l) => l.path)).toEqual([
      '背景',
      'B',
      'D',
      'G',
      'G/g1',
      'G/g2',
      'G/A',
      'G/C',
    ]);
  });
});
