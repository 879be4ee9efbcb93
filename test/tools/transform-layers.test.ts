/**
 * transform_layers through the real Session, as the studio's transform handles on several selected layers and a
 * model call it: the layers scaled or turned as one about a reference point of their joint bounds (Photoshop's
 * Free Transform of several layers), one history step; a group with what it holds; refusals change nothing;
 * psd-tools reads the new places.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { contentBounds } from '../../src/engine/bounds.js';
import { NO_LOCKS } from '../../src/engine/factory.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, idOf, named, px, rasterOf, solid } from './layer-fixtures.js';
import { labels } from './selection-fixtures.js';

function box(s: Session, name: string) {
  const st = current(s);
  return contentBounds(st, idOf(st, name));
}

/** A 600 × 400 document with 'A', a red 100 × 50 block at (100, 100), and 'B', a blue 50 × 50 at (300, 200). */
async function setup(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 600, height: 400 });
  edit(s, (st) => addPixel(st, 'A', solid({ x: 100, y: 100, w: 100, h: 50 }, [220, 20, 20, 255])));
  edit(s, (st) => addPixel(st, 'B', solid({ x: 300, y: 200, w: 50, h: 50 }, [20, 20, 220, 255])));
  return s;
}

describe('transform_layers', () => {
  it('scales several layers as one about a reference point of their joint bounds, in one step', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const r = await ok(s, 'transform_layers', { layer_names: ['A', 'B'], scale_x: 200, anchor: 'top_left' });
    // The joint bounds (100, 100)–(350, 250) doubled from their top-left corner: each layer grows and moves
    // away from it, as the pair does in Photoshop.
    expect(box(s, 'A')).toEqual({ x: 100, y: 100, w: 200, h: 100 });
    expect(box(s, 'B')).toEqual({ x: 500, y: 300, w: 100, h: 100 });
    expect(r).toMatchObject({
      scale: { x: 200, y: 200 },
      anchor: 'top_left',
      bounds_before: { left: 100, top: 100, right: 350, bottom: 250 },
      bounds_after: { left: 100, top: 100, right: 600, bottom: 400 },
    });
    expect(labels(s)).toHaveLength(steps + 1);
    expect(labels(s).at(-1)).toBe('变换多个图层');
    // Both become the selected layers, the first named the current one.
    const st = current(s);
    expect(st.selected).toEqual([idOf(st, 'A'), idOf(st, 'B')]);
    expect(st.active).toBe(idOf(st, 'A'));
    await ok(s, 'undo');
    expect(box(s, 'A')).toEqual({ x: 100, y: 100, w: 100, h: 50 });
    expect(box(s, 'B')).toEqual({ x: 300, y: 200, w: 50, h: 50 });

    // About the default centre (225, 175), halved.
    await ok(s, 'transform_layers', { layer_names: ['A', 'B'], scale_x: 50 });
    expect(box(s, 'A')).toEqual({ x: 163, y: 138, w: 50, h: 25 });
    expect(box(s, 'B')).toEqual({ x: 263, y: 188, w: 25, h: 25 });
  });

  it('turns several layers about their joint centre: each moves round it and turns with it', async () => {
    const s = await setup();
    await ok(s, 'transform_layers', { layer_names: ['A', 'B'], angle: 90 });
    // Clockwise a quarter turn about (225, 175): A's centre (150, 125) goes to (275, 100), B's (325, 225) to (175, 275).
    expect(box(s, 'A')).toEqual({ x: 250, y: 50, w: 50, h: 100 });
    expect(box(s, 'B')).toEqual({ x: 150, y: 250, w: 50, h: 50 });
    const a = rasterOf(named(current(s), 'A'));
    expect(px(a, 275, 100)).toEqual([220, 20, 20, 255]);
  });

  it('transforms a group with what it holds, once, and says which listed layers went with it', async () => {
    const s = await setup();
    edit(s, (st) => addGroup(st, '组'));
    edit(s, (st) =>
      addPixel(st, 'C', solid({ x: 400, y: 50, w: 20, h: 20 }, [0, 160, 0, 255]), {}, idOf(st, '组')),
    );
    const r = await ok(s, 'transform_layers', {
      layer_names: ['组', 'C', 'A'],
      scale_x: 200,
      anchor: 'top_left',
    });
    expect(r.transformed_with_group).toEqual(['C']);
    // The joint bounds of 组 (C) and A are (100, 50)–(420, 150): C doubled once, from that corner.
    expect(box(s, 'C')).toEqual({ x: 700, y: 50, w: 40, h: 40 });
    expect(box(s, 'A')).toEqual({ x: 100, y: 150, w: 200, h: 100 });
  });

  it('refuses both or neither of a scale and a turn, the background, a locked layer, changing nothing', async () => {
    const s = await setup();
    edit(s, (st) =>
      addPixel(st, 'L', solid({ x: 0, y: 0, w: 10, h: 10 }, [0, 0, 0, 255]), {
        locks: { ...NO_LOCKS, all: true },
      }),
    );
    const steps = labels(s).length;
    const both = await refused(
      s,
      'transform_layers',
      { layer_names: ['A', 'B'], scale_x: 120, angle: 10 },
      'invalid_arguments',
    );
    expect(both.message).toContain('缩放或旋转之一');
    await refused(s, 'transform_layers', { layer_names: ['A', 'B'] }, 'invalid_arguments');
    await refused(
      s,
      'transform_layers',
      { layer_names: ['A', 'B'], scale_y: 120, angle: 10 },
      'invalid_arguments',
    );
    await refused(s, 'transform_layers', { layer_names: ['A', 'B'], scale_y: 120 }, 'invalid_arguments');
    await refused(s, 'transform_layers', { layer_names: ['A', '背景'], scale_x: 50 }, 'invalid_state');
    await refused(s, 'transform_layers', { layer_names: ['A', 'L'], angle: 45 }, 'locked');
    await refused(s, 'transform_layers', { layer_names: ['A', 'Nope'], angle: 45 }, 'not_found');
    await refused(s, 'transform_layers', { layer_names: ['A'], angle: 400 }, 'invalid_arguments');
    expect(labels(s)).toHaveLength(steps);
    expect(box(s, 'A')).toEqual({ x: 100, y: 100, w: 100, h: 50 });
    // 100 % is no change and no step.
    const same = await ok(s, 'transform_layers', { layer_names: ['A', 'B'], scale_x: 100 });
    expect(same.changed).toBe(false);
    expect(labels(s)).toHaveLength(steps);
  });

  it.skipIf(!psdToolsAvailable())(
    'writes the layers where they now are, as psd-tools reads them',
    async () => {
      const s = await setup();
      await ok(s, 'transform_layers', {
        layer_names: ['A', 'B'],
        scale_x: 150,
        scale_y: 100,
        anchor: 'right',
      });
      await ok(s, 'save_document_as', { path: 'together.psd' });
      const { dump } = await readWithPsdTools(await s.workspace.read('together.psd'));
      const layers = flattenPsdTools(dump.layers);
      // The joint bounds' right edge (x = 350) stays; everything stretches 1.5× leftwards from it.
      expect(layers.find((l) => l.path === 'A')!.bbox).toEqual([-25, 100, 125, 150]);
      expect(layers.find((l) => l.path === 'B')!.bbox).toEqual([275, 200, 350, 250]);
    },
  );
});
