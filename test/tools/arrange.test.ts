/**
 * arrange_layer through the real Session, as a model or the studio's layers pane calls it: every position, into
 * and out of groups, the clipping rule, refusals that change nothing, and the order psd-tools reads back.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { DocState } from '../../src/engine/model.js';
import { childrenOf } from '../../src/engine/tree.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { call, newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, idOf, named, namesOf, solid } from './layer-fixtures.js';

const RED = [255, 0, 0, 255] as const;
const BLUE = [0, 0, 255, 255] as const;

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

/** Top-level names bottom → top, a group as `name[children…]`. */
function stack(state: DocState, ids: readonly number[] = state.root): string[] {
  return ids.map((id) => {
    const l = state.layers.get(id)!;
    return l.kind === 'group' ? `${l.name}[${stack(state, l.children).join(' ')}]` : l.name;
  });
}

/** 背景, A, B, G[g1 g2], C (bottom → top). */
async function setup(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 40, height: 30 });
  edit(s, (st) => {
    let n = addPixel(st, 'A', solid({ x: 0, y: 0, w: 10, h: 10 }, [...RED]));
    n = addPixel(n, 'B', solid({ x: 5, y: 5, w: 10, h: 10 }, [...BLUE]));
    n = addGroup(n, 'G');
    n = addPixel(n, 'g1', solid({ x: 20, y: 0, w: 5, h: 5 }, [...RED]), {}, idOf(n, 'G'));
    n = addPixel(n, 'g2', solid({ x: 25, y: 0, w: 5, h: 5 }, [...BLUE]), {}, idOf(n, 'G'));
    return addPixel(n, 'C', solid({ x: 0, y: 20, w: 10, h: 10 }, [...RED]));
  });
  return s;
}

describe('arrange_layer', () => {
  it('forward and backward move one place within the layer’s group, as Photoshop’s Ctrl+] and Ctrl+[', async () => {
    const s = await setup();
    const f = await ok(s, 'arrange_layer', { name: 'A', position: 'forward' });
    expect(stack(current(s))).toEqual(['背景', 'B', 'A', 'G[g1 g2]', 'C']);
    expect(f).toMatchObject({ position: 'forward', layer: { name: 'A' } });
    await ok(s, 'arrange_layer', { name: 'g2', position: 'backward' });
    expect(stack(current(s))).toEqual(['背景', 'B', 'A', 'G[g2 g1]', 'C']);
    // A group moves as one: C goes below the whole group, not into it.
    await ok(s, 'arrange_layer', { name: 'C', position: 'backward' });
    expect(stack(current(s))).toEqual(['背景', 'B', 'A', 'C', 'G[g2 g1]']);
    expect(labels(s).slice(-3)).toEqual(['排列图层', '排列图层', '排列图层']);
    expect(current(s).active).toBe(idOf(current(s), 'C'));
  });

  it('at an end of its group nothing changes: no step, a note, the layer becomes active', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const top = await ok(s, 'arrange_layer', { name: 'C', position: 'forward' });
    expect(top).toMatchObject({ changed: false, note: '图层已在最上方' });
    const inGroup = await ok(s, 'arrange_layer', { name: 'g1', position: 'backward' });
    expect(inGroup).toMatchObject({ changed: false, note: '图层已在所在图层组的最底部' });
    // Nothing goes below the background.
    const floor = await ok(s, 'arrange_layer', { name: 'A', position: 'backward' });
    expect(floor).toMatchObject({ changed: false, note: '图层已在背景图层之上的最底部' });
    const same = await ok(s, 'arrange_layer', { name: 'A', position: 'below', reference: 'B' });
    expect(same).toMatchObject({ changed: false, note: '图层已在该位置' });
    expect(labels(s).length).toBe(steps);
    expect(current(s).active).toBe(idOf(current(s), 'A'));
  });

  it('above and below a reference put the layer beside it, into or out of groups', async () => {
    const s = await setup();
    const into = await ok(s, 'arrange_layer', { name: 'A', position: 'above', reference: 'g1' });
    expect(stack(current(s))).toEqual(['背景', 'B', 'G[g1 A g2]', 'C']);
    expect(into).toMatchObject({ within_group: 'G', reference: 'g1', layer: { name: 'A', group: 'G' } });
    await ok(s, 'arrange_layer', { name: 'g2', position: 'below', reference: 'B' });
    expect(stack(current(s))).toEqual(['背景', 'g2', 'B', 'G[g1 A]', 'C']);
    // A whole group moves with its layers.
    await ok(s, 'arrange_layer', { name: 'G', position: 'below', reference: 'B' });
    expect(stack(current(s))).toEqual(['背景', 'g2', 'G[g1 A]', 'B', 'C']);
    await ok(s, 'arrange_layer', { name: 'C', position: 'inside', reference: 'G' });
    expect(stack(current(s))).toEqual(['背景', 'g2', 'G[g1 A C]', 'B']);
    // Undo takes each move back, whole.
    await ok(s, 'undo', { steps: 4 });
    expect(stack(current(s))).toEqual(['背景', 'A', 'B', 'G[g1 g2]', 'C']);
  });

  it('names a layer among namesakes by its reference, as the layers pane does', async () => {
    const s = await setup();
    edit(s, (st) => addPixel(st, 'A', solid({ x: 0, y: 0, w: 2, h: 2 }, [...BLUE])));
    const lower = current(s).root[1]!;
    await ok(s, 'arrange_layer', { name: 'A#2', position: 'above', reference: 'C' });
    const root = current(s).root;
    expect(namesOf(current(s), root)).toEqual(['背景', 'B', 'G', 'C', 'A', 'A']);
    expect(root.indexOf(lower)).toBe(4);
  });

  it('locked layers may be restacked, as in Photoshop', async () => {
    const s = await setup();
    await ok(s, 'lock_layer', { name: 'A', locked: true });
    await ok(s, 'arrange_layer', { name: 'A', position: 'above', reference: 'C' });
    expect(stack(current(s)).at(-1)).toBe('A');
  });

  it('joins a clipping mask it is dropped into and leaves one it is lifted out of, as Photoshop’s Layers panel', async () => {
    const s = await setup();
    await ok(s, 'create_clipping_mask', { name: 'B' }); // B clips to A
    expect(named(current(s), 'B').clipped).toBe(true);
    // C lands between A (the base) and B (clipped): it joins the mask.
    const join = await ok(s, 'arrange_layer', { name: 'C', position: 'below', reference: 'B' });
    expect(named(current(s), 'C').clipped).toBe(true);
    expect(join).toMatchObject({ notes: ['已加入剪贴蒙版，剪贴到“A”'], layer: { clipped: true } });
    // Within its own run a clipped layer stays clipped.
    const within = await ok(s, 'arrange_layer', { name: 'C', position: 'forward' });
    expect(stack(current(s))).toEqual(['背景', 'A', 'B', 'C', 'G[g1 g2]']);
    expect(named(current(s), 'C').clipped).toBe(true);
    expect(within.notes).toBeUndefined();
    // The base moves away: the clipped layers now rest on the background.
    const base = await ok(s, 'arrange_layer', { name: 'A', position: 'above', reference: 'G' });
    expect(stack(current(s))).toEqual(['背景', 'B', 'C', 'G[g1 g2]', 'A']);
    expect(base.notes).toEqual(['原先剪贴到它的 2 个图层现在剪贴到“背景”']);
    // Dropped between two unclipped layers, a clipped layer leaves its mask.
    const out = await ok(s, 'arrange_layer', { name: 'C', position: 'above', reference: 'g1' });
    expect(named(current(s), 'C').clipped).toBe(false);
    expect(out.notes).toEqual(['已释放剪贴蒙版，不再剪贴到“背景”']);
    // Dropped where nothing is below it, too.
    await ok(s, 'arrange_layer', { name: 'g2', position: 'inside', reference: 'G' });
    await ok(s, 'create_clipping_mask', { name: 'g2' }); // g2 clips to C
    const lone = await ok(s, 'arrange_layer', { name: 'g2', position: 'below', reference: 'g1' });
    expect(named(current(s), 'g2').clipped).toBe(false);
    expect(lone.notes).toEqual(['已释放剪贴蒙版，不再剪贴到“C”']);
  });

  it('refuses what cannot be, changing nothing', async () => {
    const s = await setup();
    await refused(s, 'arrange_layer', { name: '背景', position: 'forward' }, 'invalid_state');
    await refused(s, 'arrange_layer', { name: 'A', position: 'below', reference: '背景' }, 'invalid_state');
    await refused(s, 'arrange_layer', { name: 'A', position: 'above', reference: 'A' }, 'invalid_state');
    await refused(s, 'arrange_layer', { name: 'G', position: 'above', reference: 'g1' }, 'invalid_state');
    await refused(s, 'arrange_layer', { name: 'G', position: 'inside', reference: 'G' }, 'invalid_state');
    const notGroup = await refused(
      s,
      'arrange_layer',
      { name: 'A', position: 'inside', reference: 'B' },
      'invalid_state',
    );
    expect(notGroup.message).toContain('不是图层组');
    const missing = await refused(s, 'arrange_layer', { name: 'A', position: 'above' }, 'invalid_arguments');
    expect(missing.message).toContain('reference');
    const typo = await refused(
      s,
      'arrange_layer',
      { name: 'A', position: 'above', reference: 'g3' },
      'not_found',
    );
    expect(typo.hint).toContain('g1');
    await refused(s, 'arrange_layer', { name: 'A', position: 'top' }, 'invalid_arguments');
    const r = await call(s, 'arrange_layer', { name: 'A', position: 'forward', reference: 'C' });
    expect(r).toMatchObject({ ok: true, note: 'position 为 forward 时不使用 reference，已忽略' });
    expect(stack(current(s))).toEqual(['背景', 'B', 'A', 'G[g1 g2]', 'C']);
  });

  it.skipIf(!psdToolsAvailable())(
    'writes the new order and clipping to the PSD, as psd-tools reads it',
    async () => {
      const s = await setup();
      await ok(s, 'arrange_layer', { name: 'C', position: 'inside', reference: 'G' });
      await ok(s, 'arrange_layer', { name: 'A', position: 'above', reference: 'g1' });
      await ok(s, 'create_clipping_mask', { name: 'A' });
      await ok(s, 'arrange_layer', { name: 'B', position: 'below', reference: 'A' }); // joins g1's mask
      await ok(s, 'save_document_as', { path: 'arranged.psd' });
      const { dump } = await readWithPsdTools(await s.workspace.read('arranged.psd'));
      const flat = flattenPsdTools(dump.layers);
      expect(flat.map((l) => l.path)).toEqual(['背景', 'G', 'G/g1', 'G/B', 'G/A', 'G/g2', 'G/C']);
      expect(flat.filter((l) => l.clipping).map((l) => l.name)).toEqual(['B', 'A']);
      expect(childrenOf(current(s), idOf(current(s), 'G'))).toHaveLength(5);
    },
  );
});
