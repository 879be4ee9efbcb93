/**
 * move_layers through the real Session, as the studio's canvas (a drag or an arrow-key nudge of several selected
 * layers) and a model call it: several layers moved together by whole pixels as one history step that one undo
 * takes back, a group moving its contents once, refusals that change nothing, and the positions psd-tools reads.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { contentBounds } from '../../src/engine/bounds.js';
import { layersNamed } from '../../src/engine/tree.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, idOf, solid } from './layer-fixtures.js';

const RED = [255, 0, 0, 255] as const;
const BLUE = [0, 0, 255, 255] as const;

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

function box(s: Session, name: string) {
  const st = current(s);
  return contentBounds(st, idOf(st, name));
}

/** 背景, A (0,0 10×10), B (5,5 10×10), G[g1 (20,0 5×5)], a second “A” (30,20 4×4), E (empty): bottom → top. */
async function setup(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 60, height: 40 });
  edit(s, (st) => {
    let n = addPixel(st, 'A', solid({ x: 0, y: 0, w: 10, h: 10 }, [...RED]));
    n = addPixel(n, 'B', solid({ x: 5, y: 5, w: 10, h: 10 }, [...BLUE]));
    n = addGroup(n, 'G');
    n = addPixel(n, 'g1', solid({ x: 20, y: 0, w: 5, h: 5 }, [...RED]), {}, idOf(n, 'G'));
    n = addPixel(n, 'A', solid({ x: 30, y: 20, w: 4, h: 4 }, [...BLUE]));
    return addPixel(n, 'E', solid({ x: 0, y: 0, w: 0, h: 0 }, [...RED]));
  });
  return s;
}

describe('move_layers', () => {
  it('moves every named layer by the same whole pixels in one history step; one undo puts all back', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const r = await ok(s, 'move_layers', { layer_names: ['B', 'g1'], dx: 7.4, dy: -3 });
    expect(r.moved).toEqual({ dx: 7, dy: -3 });
    expect(r.note).toContain('dx=7');
    expect(box(s, 'B')).toEqual({ x: 12, y: 2, w: 10, h: 10 });
    // Beyond the canvas edge the layer keeps its pixels, as in Photoshop.
    expect(box(s, 'g1')).toEqual({ x: 27, y: -3, w: 5, h: 5 });
    expect(labels(s)).toHaveLength(steps + 1);
    expect(labels(s).at(-1)).toBe('移动多个图层');
    const st = current(s);
    expect(st.selected).toEqual([idOf(st, 'B'), idOf(st, 'g1')]);
    expect(st.active).toBe(idOf(st, 'B'));

    await ok(s, 'undo');
    expect(box(s, 'B')).toEqual({ x: 5, y: 5, w: 10, h: 10 });
    expect(box(s, 'g1')).toEqual({ x: 20, y: 0, w: 5, h: 5 });
  });

  it('moves a group with what is inside it once, even when a layer inside is listed too', async () => {
    const s = await setup();
    const r = await ok(s, 'move_layers', { layer_names: ['g1', 'G', 'A'], dx: 2, dy: 3 });
    expect(r.moved_with_group).toEqual(['g1']);
    expect(box(s, 'g1')).toEqual({ x: 22, y: 3, w: 5, h: 5 });
    expect(box(s, 'G')).toEqual({ x: 22, y: 3, w: 5, h: 5 });
    // “A” alone is the top one of the two layers named A (as Photoshop's getByName); “A#2” the one below.
    const [upper, lower] = layersNamed(current(s), 'A').map((l) => l.id);
    expect(contentBounds(current(s), upper!)).toEqual({ x: 32, y: 23, w: 4, h: 4 });
    expect(contentBounds(current(s), lower!)).toEqual({ x: 0, y: 0, w: 10, h: 10 });
    await ok(s, 'move_layers', { layer_names: ['A#2'], dx: 1, dy: 1 });
    expect(contentBounds(current(s), lower!)).toEqual({ x: 1, y: 1, w: 10, h: 10 });
  });

  it('moves nothing when any named layer cannot move, and says which', async () => {
    const s = await setup();
    const bg = await refused(s, 'move_layers', { layer_names: ['B', '背景'], dx: 5, dy: 0 }, 'invalid_state');
    expect(bg.message).toContain('背景');
    await ok(s, 'lock_layer', { name: 'G', locked: true });
    const locked = await refused(s, 'move_layers', { layer_names: ['B', 'g1'], dx: 5, dy: 0 }, 'locked');
    expect(locked.message).toMatch(/G|g1/);
    const typo = await refused(s, 'move_layers', { layer_names: ['B', 'Bee'], dx: 5, dy: 0 }, 'not_found');
    expect(typo.hint).toContain('B');
    await refused(s, 'move_layers', { layer_names: [], dx: 5, dy: 0 }, 'invalid_arguments');
    await refused(s, 'move_layers', { layer_names: ['B'], dx: 'far', dy: 0 }, 'invalid_arguments');
    await refused(s, 'move_layers', { layer_names: ['B', 'A'], dx: 3e9, dy: 0 }, 'out_of_bounds');
    expect(box(s, 'B')).toEqual({ x: 5, y: 5, w: 10, h: 10 });
  });

  it('adds no history step for a move of 0 pixels or of empty layers only, and names the empty layers', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const zero = await ok(s, 'move_layers', { layer_names: ['B', 'A'], dx: 0.2, dy: -0.3 });
    expect(zero).toMatchObject({ changed: false, moved: { dx: 0, dy: 0 } });
    const empty = await ok(s, 'move_layers', { layer_names: ['E'], dx: 4, dy: 4 });
    expect(empty).toMatchObject({ changed: false, empty: ['E'] });
    expect(labels(s)).toHaveLength(steps);
    // The selection still follows the named layers (not a history step, as in Photoshop).
    expect(current(s).selected).toEqual([idOf(current(s), 'E')]);
    const some = await ok(s, 'move_layers', { layer_names: ['E', 'B'], dx: 4, dy: 4 });
    expect(some.empty).toEqual(['E']);
    expect(box(s, 'B')).toEqual({ x: 9, y: 9, w: 10, h: 10 });
    expect(labels(s)).toHaveLength(steps + 1);
  });

  it.skipIf(!psdToolsAvailable())(
    'writes the moved positions to the PSD, as psd-tools reads them',
    async () => {
      const s = await setup();
      await ok(s, 'move_layers', { layer_names: ['B', 'G'], dx: 11, dy: 6 });
      await ok(s, 'save_document_as', { path: 'moved.psd' });
      const { dump } = await readWithPsdTools(await s.workspace.read('moved.psd'));
      const byPath = new Map(flattenPsdTools(dump.layers).map((l) => [l.path, l]));
      expect(byPath.get('B')!.bbox).toEqual([16, 11, 26, 21]);
      expect(byPath.get('G/g1')!.bbox).toEqual([31, 6, 36, 11]);
      expect(byPath.get('A')).toBeDefined();
    },
  );
});
