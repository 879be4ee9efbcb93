/**
 * clear_selection through the real Session, as the studio's Delete key (with a pixel selection) and a model call
 * it: the selected pixels of the active layer become transparent as one history step, a feathered edge partly
 * (ImageMagick's DstOut with the selection as alpha is the reference), pixels beyond the canvas and outside the
 * selection are kept, and refusals change nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { NO_LOCKS } from '../../src/engine/factory.js';
import type { Raster } from '../../src/engine/model.js';
import { convertTo, imageMagickAvailable, pixelsOf } from '../support/imagemagick.js';
import { psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, named, px, rasterOf, solid } from './layer-fixtures.js';
import { labels } from './selection-fixtures.js';

/** A 40 × 20 document with a blue layer 'Q' over all of it, selected. */
async function setup(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 40, height: 20 });
  edit(s, (st) => addPixel(st, 'Q', solid({ x: 0, y: 0, w: 40, h: 20 }, [0, 0, 255, 255])));
  await ok(s, 'select_layers', { names: ['Q'] });
  return s;
}

function q(s: Session): Raster {
  return rasterOf(named(current(s), 'Q'));
}

describe('clear_selection', () => {
  it('makes the selected pixels transparent as one step, keeps the rest and the selection; undo restores', async () => {
    const s = await setup();
    await ok(s, 'select_rect', { left: 10, top: 5, right: 20, bottom: 15 });
    const steps = labels(s).length;
    const r = await ok(s, 'clear_selection');
    expect(r.cleared_pixels).toBe(100);
    expect(r.cleared_bounds).toMatchObject({ left: 10, top: 5, right: 20, bottom: 15 });
    expect(px(q(s), 10, 5)).toEqual([0, 0, 255, 0]);
    expect(px(q(s), 19, 14)[3]).toBe(0);
    expect(px(q(s), 9, 5)).toEqual([0, 0, 255, 255]);
    expect(px(q(s), 20, 14)).toEqual([0, 0, 255, 255]);
    expect((r.selection as { active: boolean }).active).toBe(true);
    expect(labels(s)).toHaveLength(steps + 1);
    expect(labels(s).at(-1)).toBe('清除选区内容');

    await ok(s, 'undo');
    expect(px(q(s), 15, 10)).toEqual([0, 0, 255, 255]);
  });

  it('clears only what the selection covers on the canvas: pixels beyond it stay, a layer cleared whole says so', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 20, height: 10 });
    edit(s, (st) => addPixel(st, 'Wide', solid({ x: -5, y: 2, w: 30, h: 4 }, [255, 0, 0, 255])));
    edit(s, (st) => addPixel(st, 'Small', solid({ x: 2, y: 2, w: 3, h: 3 }, [0, 255, 0, 255])));
    await ok(s, 'select_all');
    await ok(s, 'select_layers', { names: ['Wide'] });
    await ok(s, 'clear_selection');
    const wide = rasterOf(named(current(s), 'Wide'));
    expect(px(wide, -1, 3)).toEqual([255, 0, 0, 255]);
    expect(px(wide, 20, 3)).toEqual([255, 0, 0, 255]);
    expect(px(wide, 0, 3)[3]).toBe(0);
    expect(px(wide, 19, 3)[3]).toBe(0);

    await ok(s, 'select_layers', { names: ['Small'] });
    const gone = await ok(s, 'clear_selection');
    expect(gone.note).toContain('全部清除');
    expect(rasterOf(named(current(s), 'Small')).w).toBe(0);
  });

  it.skipIf(!imageMagickAvailable())(
    "clears a feathered edge partly, as ImageMagick's DstOut with the selection as alpha (within 1 level)",
    async () => {
      const s = await setup();
      edit(s, (st) => {
        // A layer with varied alpha, so the product alpha × (1 − m) is tested, not only m.
        const data = new Uint8ClampedArray(40 * 20 * 4);
        for (let i = 0; i < 40 * 20; i++) data.set([(i * 7) % 256, 80, 200, 60 + ((i * 13) % 196)], i * 4);
        return addPixel(st, 'V', { x: 0, y: 0, w: 40, h: 20, data });
      });
      await ok(s, 'select_layers', { names: ['V'] });
      await ok(s, 'select_rect', { left: 8, top: 4, right: 30, bottom: 16 });
      await ok(s, 'feather_selection', { radius: 4 });
      const before = rasterOf(named(current(s), 'V'));
      const sel = current(s).selection!;
      const maskBytes = new Uint8Array(40 * 20);
      for (let y = 0; y < 20; y++)
        for (let x = 0; x < 40; x++) {
          const mx = x - sel.x;
          const my = y - sel.y;
          maskBytes[y * 40 + x] =
            mx < 0 || my < 0 || mx >= sel.w || my >= sel.h ? sel.outside : sel.data[my * sel.w + mx]!;
        }
      await ok(s, 'clear_selection');
      const after = rasterOf(named(current(s), 'V'));

      const dir = await mkdtemp(path.join(tmpdir(), 'clear-'));
      try {
        const layerPng = path.join(dir, 'layer.png');
        const maskPng = path.join(dir, 'mask.png');
        await writeFile(
          layerPng,
          await sharp(Buffer.from(before.data), { raw: { width: 40, height: 20, channels: 4 } })
            .png()
            .toBuffer(),
        );
        await writeFile(
          maskPng,
          await sharp(Buffer.from(maskBytes), { raw: { width: 40, height: 20, channels: 1 } })
            .png()
            .toBuffer(),
        );
        const out = await convertTo(
          [layerPng, '(', maskPng, '-alpha', 'copy', ')', '-compose', 'DstOut', '-composite', 'png:OUT'],
          'png',
        );
        const ref = await pixelsOf(out, 'png');
        let partial = 0;
        for (let y = 0; y < 20; y++)
          for (let x = 0; x < 40; x++) {
            const m = maskBytes[y * 40 + x]!;
            if (m > 0 && m < 255) partial++;
            const want = ref.data[(y * 40 + x) * 4 + 3]!;
            expect(Math.abs(px(after, x, y)[3]! - want), `alpha at ${x},${y}`).toBeLessThanOrEqual(1);
            // Colours stay as they were where anything is left (straight alpha).
            if (px(after, x, y)[3]! > 0)
              expect(px(after, x, y).slice(0, 3)).toEqual(px(before, x, y).slice(0, 3));
          }
        expect(partial).toBeGreaterThan(100);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('adds no step when the selection holds none of the layer’s pixels', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 40, height: 20 });
    edit(s, (st) => addPixel(st, 'Dot', solid({ x: 30, y: 10, w: 4, h: 4 }, [255, 0, 0, 255])));
    await ok(s, 'select_layers', { names: ['Dot'] });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 10, bottom: 10 });
    const steps = labels(s).length;
    const r = await ok(s, 'clear_selection');
    expect(r).toMatchObject({ changed: false });
    expect(r.note).toContain('Dot');
    expect(labels(s)).toHaveLength(steps);
  });

  it('refuses without a selection, on the background, a transparency-locked, locked, text or group layer, changing nothing', async () => {
    const s = await setup();
    const none = await refused(s, 'clear_selection', {}, 'invalid_state');
    expect(none.hint).toContain('select_rect');
    await ok(s, 'select_rect', { left: 0, top: 0, right: 10, bottom: 10 });

    await ok(s, 'select_layers', { names: ['背景'] });
    const bg = await refused(s, 'clear_selection', {}, 'invalid_state');
    expect(bg.message).toContain('背景');
    expect(bg.hint).toContain('fill_selection');

    // A background of pixels (flattened, or opened from an image) is opaque too.
    const flat = await setup();
    await ok(flat, 'flatten_image');
    await ok(flat, 'select_rect', { left: 0, top: 0, right: 10, bottom: 10 });
    expect(named(current(flat), '背景').kind).toBe('pixel');
    expect((await refused(flat, 'clear_selection', {}, 'invalid_state')).message).toContain('背景');

    edit(s, (st) =>
      addPixel(st, 'T', solid({ x: 0, y: 0, w: 10, h: 10 }, [0, 0, 0, 255]), {
        locks: { ...NO_LOCKS, transparency: true },
      }),
    );
    await ok(s, 'select_layers', { names: ['T'] });
    expect((await refused(s, 'clear_selection', {}, 'invalid_state')).message).toContain('透明');

    edit(s, (st) =>
      addPixel(st, 'L', solid({ x: 0, y: 0, w: 10, h: 10 }, [0, 0, 0, 255]), {
        locks: { ...NO_LOCKS, all: true },
      }),
    );
    await ok(s, 'select_layers', { names: ['L'] });
    await refused(s, 'clear_selection', {}, 'locked');

    await ok(s, 'create_text_layer', { text: '字', x: 2, y: 2, font_size: 8 });
    expect((await refused(s, 'clear_selection', {}, 'invalid_state')).hint).toContain('rasterize_layer');

    edit(s, (st) => addGroup(st, 'G'));
    await ok(s, 'select_layers', { names: ['G'] });
    expect((await refused(s, 'clear_selection', {}, 'invalid_state')).message).toContain('图层组');
  });

  it.skipIf(!psdToolsAvailable())(
    'writes the cleared pixels to the PSD as transparency, as psd-tools reads it',
    async () => {
      const s = await setup();
      await ok(s, 'select_rect', { left: 0, top: 0, right: 20, bottom: 20 });
      await ok(s, 'clear_selection');
      await ok(s, 'save_document_as', { path: 'cleared.psd' });
      const { composite } = await readWithPsdTools(await s.workspace.read('cleared.psd'), {
        composite: true,
      });
      const at = (x: number, y: number) => [
        ...composite!.data.subarray((y * 40 + x) * 4, (y * 40 + x) * 4 + 3),
      ];
      // The white background shows where Q was cleared, Q's blue where it was not.
      expect(at(5, 10)).toEqual([255, 255, 255]);
      expect(at(30, 10)).toEqual([0, 0, 255]);
    },
  );
});
