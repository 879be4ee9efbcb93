/**
 * scale_layer_from through the real Session, as the studio's transform handles and a model call it: a layer
 * scaled about a reference point on its bounds that stays where it was (Photoshop's Free Transform with a corner
 * or side dragged), one history step; about the centre it is resize_layer; text stays text, a smart object keeps
 * its source; refusals change nothing; psd-tools reads the new bounds.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { contentBounds } from '../../src/engine/bounds.js';
import { NO_LOCKS } from '../../src/engine/factory.js';
import type { Raster } from '../../src/engine/model.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { addPixel, current, edit, idOf, named, rasterOf, solid } from './layer-fixtures.js';

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

function box(s: Session, name: string) {
  const st = current(s);
  return contentBounds(st, idOf(st, name));
}

/** A 200 × 120 document with 'A', a 40 × 20 red-and-blue block at (50, 30). */
async function setup(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 200, height: 120 });
  edit(s, (st) => {
    const data = new Uint8ClampedArray(40 * 20 * 4);
    for (let i = 0; i < 40 * 20; i++) data.set(i % 40 < 20 ? [255, 0, 0, 255] : [0, 0, 255, 255], i * 4);
    return addPixel(st, 'A', { x: 50, y: 30, w: 40, h: 20, data });
  });
  return s;
}

describe('scale_layer_from', () => {
  it('keeps the reference point where it was: a corner, a side, the centre', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const r = await ok(s, 'scale_layer_from', { name: 'A', scale_x: 200, anchor: 'top_left' });
    expect(box(s, 'A')).toEqual({ x: 50, y: 30, w: 80, h: 40 });
    expect(r).toMatchObject({ scale: { x: 200, y: 200 }, anchor: 'top_left' });
    expect(labels(s)).toHaveLength(steps + 1);
    expect(labels(s).at(-1)).toBe('按参考点缩放');
    await ok(s, 'undo');
    expect(box(s, 'A')).toEqual({ x: 50, y: 30, w: 40, h: 20 });

    await ok(s, 'scale_layer_from', { name: 'A', scale_x: 50, anchor: 'bottom_right' });
    expect(box(s, 'A')).toEqual({ x: 70, y: 40, w: 20, h: 10 });
    await ok(s, 'undo');

    // A side: only that axis, the opposite side fixed.
    await ok(s, 'scale_layer_from', { name: 'A', scale_x: 150, scale_y: 100, anchor: 'left' });
    expect(box(s, 'A')).toEqual({ x: 50, y: 30, w: 60, h: 20 });
    // Still red on the left, blue on the right: scaled, not mirrored.
    const a: Raster = rasterOf(named(current(s), 'A'));
    expect([...a.data.subarray(0, 3)]).toEqual([255, 0, 0]);
    expect([...a.data.subarray((a.w - 1) * 4, (a.w - 1) * 4 + 3)]).toEqual([0, 0, 255]);
    await ok(s, 'undo');

    // The centre is resize_layer's pivot: the same pixels.
    await ok(s, 'scale_layer_from', { name: 'A', scale_x: 70, scale_y: 130 });
    const fromCentre = rasterOf(named(current(s), 'A'));
    await ok(s, 'undo');
    await ok(s, 'resize_layer', { name: 'A', scale_x: 70, scale_y: 130 });
    const resized = rasterOf(named(current(s), 'A'));
    expect([fromCentre.x, fromCentre.y, fromCentre.w, fromCentre.h]).toEqual([
      resized.x,
      resized.y,
      resized.w,
      resized.h,
    ]);
    expect(Buffer.compare(Buffer.from(fromCentre.data), Buffer.from(resized.data))).toBe(0);
  });

  it('scales a text layer uniformly by its font size, keeping it text, and a smart object from its source', async () => {
    const s = await setup();
    await ok(s, 'create_text_layer', { text: '春季', x: 20, y: 80, font_size: 20 });
    const text = named(current(s), '春季');
    const before = box(s, '春季');
    await ok(s, 'scale_layer_from', { name: '春季', scale_x: 200, anchor: 'bottom_left' });
    const after = named(current(s), '春季');
    expect(after.kind).toBe('text');
    if (after.kind === 'text' && text.kind === 'text')
      expect(after.text.size).toBeCloseTo(text.text.size * 2, 5);
    const now = box(s, '春季');
    expect(Math.abs(now.x - before.x)).toBeLessThanOrEqual(1);
    expect(Math.abs(now.y + now.h - (before.y + before.h))).toBeLessThanOrEqual(2);
    expect(now.w).toBeGreaterThan(before.w * 1.8);

    await ok(s, 'convert_to_smart_object', { name: 'A' });
    await ok(s, 'scale_layer_from', { name: 'A', scale_x: 50, anchor: 'top_left' });
    expect(box(s, 'A')).toEqual({ x: 50, y: 30, w: 20, h: 10 });
    await ok(s, 'scale_layer_from', { name: 'A', scale_x: 200, anchor: 'top_left' });
    expect(box(s, 'A')).toEqual({ x: 50, y: 30, w: 40, h: 20 });
    expect(named(current(s), 'A').kind).toBe('smart');
  });

  it('refuses the background, a locked layer, an unknown reference point and a bad scale, changing nothing', async () => {
    const s = await setup();
    edit(s, (st) =>
      addPixel(st, 'L', solid({ x: 0, y: 0, w: 10, h: 10 }, [0, 0, 0, 255]), {
        locks: { ...NO_LOCKS, all: true },
      }),
    );
    await refused(s, 'scale_layer_from', { name: '背景', scale_x: 50, anchor: 'top' }, 'invalid_state');
    await refused(s, 'scale_layer_from', { name: 'L', scale_x: 50, anchor: 'top' }, 'locked');
    const bad = await refused(
      s,
      'scale_layer_from',
      { name: 'A', scale_x: 50, anchor: 'middle' },
      'invalid_arguments',
    );
    expect(JSON.stringify(bad)).toContain('top_left');
    await refused(s, 'scale_layer_from', { name: 'A', scale_x: 0 }, 'invalid_arguments');
    await refused(s, 'scale_layer_from', { name: 'Nope', scale_x: 50 }, 'not_found');
  });

  it.skipIf(!psdToolsAvailable())(
    'writes the scaled layer where it now is, as psd-tools reads it',
    async () => {
      const s = await setup();
      await ok(s, 'scale_layer_from', { name: 'A', scale_x: 150, scale_y: 200, anchor: 'bottom' });
      await ok(s, 'save_document_as', { path: 'scaled.psd' });
      const { dump } = await readWithPsdTools(await s.workspace.read('scaled.psd'));
      const a = flattenPsdTools(dump.layers).find((l) => l.path === 'A')!;
      // 60 × 40, its bottom edge's middle (70, 50) fixed.
      expect(a.bbox).toEqual([40, 10, 100, 50]);
    },
  );
});
