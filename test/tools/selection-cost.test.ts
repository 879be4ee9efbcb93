/**
 * Selections that cost what they cover, driven through the Session as a model would: on a 16000² document
 * (256 Mpx, just under the document limit) a marquee, its report, a fill, an inverse, a crop and undo make no
 * canvas-sized buffer; what needs pixels (add_layer_mask, feather) gets them bounded to the rectangle.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { Raster } from '../../src/engine/model.js';
import { maskPixelBytes, uniformInside } from '../../src/engine/selection.js';
import { newSession, ok } from '../support/session.js';
import { current, named, px, rasterOf } from './layer-fixtures.js';

const HUGE = 16000;

async function huge(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: HUGE, height: HUGE });
  await ok(s, 'create_layer', { name: 'P' });
  return s;
}

function selectionBytes(s: Session): number {
  return maskPixelBytes(current(s).selection!);
}

describe('a rectangle selection on a huge document', () => {
  it('select_rect, its report, fill_selection and inverse_selection hold no canvas-sized mask', async () => {
    const s = await huge();
    const r = await ok(s, 'select_rect', { left: 12000, top: 100, right: 12300, bottom: 250 });
    expect(r.selection).toMatchObject({
      active: true,
      bounds: { left: 12000, top: 100, width: 300, height: 150, right: 12300, bottom: 250 },
      whole_canvas: false,
      selected_percent: 0,
    });
    expect(uniformInside(current(s).selection!)).toBe(255);
    expect(selectionBytes(s)).toBe(0);

    const f = await ok(s, 'fill_selection', { color: '#336699' });
    expect(f.area).toBe('selection');
    const raster = rasterOf(named(current(s), 'P'));
    // Only the rectangle was touched: the layer is the rectangle, filled.
    expect([raster.x, raster.y, raster.w, raster.h]).toEqual([12000, 100, 300, 150]);
    for (const [x, y] of [
      [0, 0],
      [299, 149],
      [150, 70],
    ] as const) {
      expect(px(raster, 12000 + x, 100 + y)).toEqual([0x33, 0x66, 0x99, 255]);
    }
    expect(selectionBytes(s)).toBe(0);

    const inv = await ok(s, 'inverse_selection');
    expect(inv.selection).toMatchObject({
      whole_canvas: false,
      bounds: { left: 0, top: 0, width: HUGE, height: HUGE },
    });
    expect(selectionBytes(s)).toBe(0);
    await ok(s, 'inverse_selection');
    const { x, y, w, h, outside } = current(s).selection!; // not the whole object: reading `data` makes pixels
    expect([x, y, w, h, outside]).toEqual([12000, 100, 300, 150, 0]);
    expect(selectionBytes(s)).toBe(0);

    await ok(s, 'undo', { steps: 1 });
    expect(current(s).selection!.outside).toBe(255);
    expect(selectionBytes(s)).toBe(0);
  });

  it('add_layer_mask from a rectangle makes the mask from it, bounded to the rectangle', async () => {
    const s = await huge();
    await ok(s, 'select_rect', { left: 500, top: 600, right: 700, bottom: 650 });
    await ok(s, 'add_layer_mask', { name: 'P' });
    const mask = named(current(s), 'P').mask!;
    expect([mask.x, mask.y, mask.w, mask.h, mask.outside]).toEqual([500, 600, 200, 50, 0]);
    expect(mask.data.byteLength).toBe(200 * 50);
    expect(mask.data.every((v) => v === 255)).toBe(true);
  });

  it('feather_selection gives a mask bounded to the rectangle and its ramp', async () => {
    const s = await huge();
    await ok(s, 'select_rect', { left: 500, top: 600, right: 700, bottom: 650 });
    await ok(s, 'feather_selection', { radius: 4 });
    const m = current(s).selection!;
    expect(uniformInside(m)).toBeUndefined();
    expect(m.w).toBeLessThanOrEqual(200 + 2 * 8);
    expect(m.h).toBeLessThanOrEqual(50 + 2 * 8);
    expect(m.data.byteLength).toBe(m.w * m.h);
  });
});

describe('a rectangle and its inverse limit adjustments as pixels would', () => {
  it('invert_colors inside an inverted marquee leaves the hole alone', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 40, height: 30 });
    await ok(s, 'create_layer', { name: 'P' });
    await ok(s, 'fill_selection', { color: '#204060' });
    await ok(s, 'select_rect', { left: 10, top: 5, right: 25, bottom: 20 });
    await ok(s, 'inverse_selection');
    await ok(s, 'invert_colors');
    const r: Raster = rasterOf(named(current(s), 'P'));
    for (let y = 0; y < 30; y++) {
      for (let x = 0; x < 40; x++) {
        const hole = x >= 10 && x < 25 && y >= 5 && y < 20;
        expect(px(r, x, y), `${x},${y}`).toEqual(hole ? [0x20, 0x40, 0x60, 255] : [0xdf, 0xbf, 0x9f, 255]);
      }
    }
    const c = renderDocument(current(s));
    expect(px(c, 12, 7)).toEqual([0x20, 0x40, 0x60, 255]);
  });
});
