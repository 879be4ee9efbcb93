/**
 * The pixel selection tools (select_all, select_rect, select_layer_pixels, deselect, inverse_selection,
 * feather_selection) and fill_selection, driven through the real Session like a model would. Expected pixels
 * are computed here with the plain source-over formula.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { NO_LOCKS } from '../../src/engine/factory.js';
import type { Mask, Raster, SmartLayer, TextLayer } from '../../src/engine/model.js';
import { ok, refused } from '../support/session.js';
import {
  addGroup,
  addLayer,
  addPixel,
  current,
  edit,
  idOf,
  named,
  px,
  rasterOf,
  solid,
} from './layer-fixtures.js';
import { emptyLayerDoc, labels, MODES, selected } from './selection-fixtures.js';

function selection(s: Session): Mask | null {
  return current(s).selection;
}

function rectValues(
  w: number,
  h: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  inside = 255,
): number[] {
  const out: number[] = [];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) out.push(x >= x0 && x < x1 && y >= y0 && y < y1 ? inside : 255 - inside);
  return out;
}

/** A 20×10 document whose active layer is an empty pixel layer 'P'. */
function setup(w = 20, h = 10): Promise<Session> {
  return emptyLayerDoc(w, h);
}

describe('select_all, select_rect, deselect', () => {
  it('select_rect selects exactly the edge-coordinate rectangle, as one history step', async () => {
    const s = await setup();
    const r = await ok(s, 'select_rect', { left: 3, top: 2, right: 8, bottom: 6 });
    expect(selected(s)).toEqual(rectValues(20, 10, 3, 2, 8, 6).map((v) => (v === 255 ? 255 : 0)));
    expect(r.selection).toMatchObject({
      active: true,
      bounds: { left: 3, top: 2, width: 5, height: 4 },
      whole_canvas: false,
    });
    expect(labels(s).at(-1)).toBe('矩形选区');
  });

  it('cuts a rectangle to the canvas and says so', async () => {
    const s = await setup();
    const r = await ok(s, 'select_rect', { left: -5, top: 7, right: 4, bottom: 30 });
    expect(selected(s)).toEqual(rectValues(20, 10, 0, 7, 4, 10).map((v) => (v === 255 ? 255 : 0)));
    expect(JSON.stringify(r.warnings)).toContain('画布');
  });

  it('refuses inverted edges naming them, and rectangles entirely outside, changing nothing', async () => {
    const s = await setup();
    await ok(s, 'select_rect', { left: 1, top: 1, right: 4, bottom: 4 });
    const e1 = await refused(s, 'select_rect', { left: 8, top: 2, right: 8, bottom: 6 }, 'invalid_arguments');
    expect((e1.details as { parameter: string }[]).map((d) => d.parameter)).toEqual(['right']);
    const e2 = await refused(s, 'select_rect', { left: 9, top: 6, right: 2, bottom: 1 }, 'invalid_arguments');
    expect((e2.details as { parameter: string }[]).map((d) => d.parameter)).toEqual(['right', 'bottom']);
    const e3 = await refused(s, 'select_rect', { left: 20, top: 0, right: 30, bottom: 5 }, 'out_of_bounds');
    expect(e3.message).toContain('20×10');
    await refused(s, 'select_rect', { left: -9, top: -9, right: 0, bottom: 3 }, 'out_of_bounds');
  });

  it('select_all selects the canvas without storing pixels; deselect removes the selection', async () => {
    const s = await setup();
    const r = await ok(s, 'select_all');
    expect(r.selection).toMatchObject({ whole_canvas: true, selected_percent: 100 });
    expect(selected(s).every((v) => v === 255)).toBe(true);
    expect(selection(s)!.data.length).toBe(0);
    expect(labels(s).at(-1)).toBe('全选');
    const steps = labels(s).length;
    expect((await ok(s, 'select_all')).changed).toBe(false);
    expect(labels(s).length).toBe(steps);

    await ok(s, 'deselect');
    expect(selection(s)).toBeNull();
    expect(labels(s).at(-1)).toBe('取消选择');
    const again = await ok(s, 'deselect');
    expect(again.changed).toBe(false);
    expect(labels(s).length).toBe(steps + 1);
  });

  it('selection steps undo like any other', async () => {
    const s = await setup();
    await ok(s, 'select_rect', { left: 0, top: 0, right: 5, bottom: 5 });
    await ok(s, 'deselect');
    await ok(s, 'undo');
    expect(selected(s)).toEqual(rectValues(20, 10, 0, 0, 5, 5).map((v) => (v === 255 ? 255 : 0)));
  });
});

describe("select_rect with a mode (Shift, Alt and both with Photoshop's marquee)", () => {
  /** Two rectangles' values combined with `op`, over the 20 × 10 canvas. */
  function both(op: (a: number, b: number) => number): number[] {
    const a = rectValues(20, 10, 2, 2, 10, 8).map((v) => (v === 255 ? 255 : 0));
    const b = rectValues(20, 10, 6, 0, 16, 5).map((v) => (v === 255 ? 255 : 0));
    return a.map((v, i) => op(v, b[i]!));
  }

  it('adds, subtracts and intersects with the selection there is, each one history step', async () => {
    for (const [mode, op] of MODES) {
      const s = await setup();
      await ok(s, 'select_rect', { left: 2, top: 2, right: 10, bottom: 8 });
      const steps = labels(s).length;
      const r = await ok(s, 'select_rect', { left: 6, top: 0, right: 16, bottom: 5, mode });
      expect(selected(s), mode).toEqual(both(op));
      expect(r.mode).toBe(mode);
      expect(labels(s)).toHaveLength(steps + 1);
      await ok(s, 'undo');
      expect(selected(s)).toEqual(rectValues(20, 10, 2, 2, 10, 8).map((v) => (v === 255 ? 255 : 0)));
    }
  });

  it('combines with a feathered or inverted selection value by value, and deselects when nothing is left', async () => {
    const s = await setup();
    await ok(s, 'select_rect', { left: 4, top: 2, right: 12, bottom: 8 });
    await ok(s, 'inverse_selection');
    const inverted = selected(s);
    await ok(s, 'select_rect', { left: 0, top: 0, right: 20, bottom: 5, mode: 'intersect' });
    expect(selected(s)).toEqual(inverted.map((v, i) => (Math.floor(i / 20) < 5 ? v : 0)));

    await ok(s, 'select_rect', { left: 0, top: 0, right: 20, bottom: 10, mode: 'subtract' });
    expect(selection(s)).toBeNull();
    // With no selection, add starts one; subtract and intersect leave none and add no step.
    const steps = labels(s).length;
    const none = await ok(s, 'select_rect', { left: 0, top: 0, right: 5, bottom: 5, mode: 'intersect' });
    expect(none.changed).toBe(false);
    expect(labels(s)).toHaveLength(steps);
    await ok(s, 'select_rect', { left: 0, top: 0, right: 5, bottom: 5, mode: 'add' });
    expect(selected(s)).toEqual(rectValues(20, 10, 0, 0, 5, 5).map((v) => (v === 255 ? 255 : 0)));
    await refused(
      s,
      'select_rect',
      { left: 0, top: 0, right: 5, bottom: 5, mode: 'union' },
      'invalid_arguments',
    );
  });
});

describe('select_layer_pixels', () => {
  it("loads the named layer's alpha exactly and makes it the active layer", async () => {
    const s = await setup(10, 6);
    // 'Shape': a 3×2 raster at (2,1) with alphas 255, 128, 0 / 10, 255, 255; partly off-canvas 'Edge'.
    const alphas = [255, 128, 0, 10, 255, 255];
    const data = new Uint8ClampedArray(alphas.flatMap((a) => [50, 60, 70, a]));
    edit(s, (st) => addPixel(st, 'Shape', { x: 2, y: 1, w: 3, h: 2, data }));
    edit(s, (st) => addPixel(st, 'Edge', solid({ x: 8, y: 4, w: 5, h: 5 }, [0, 0, 0, 255])));
    await ok(s, 'select_layers', { names: ['Edge'] });

    const r = await ok(s, 'select_layer_pixels', { name: 'Shape' });
    expect(current(s).active).toBe(idOf(current(s), 'Shape'));
    const expected = new Array(60).fill(0);
    alphas.forEach((a, i) => {
      expected[(1 + Math.floor(i / 3)) * 10 + 2 + (i % 3)] = a;
    });
    expect(selected(s)).toEqual(expected);
    expect((r.layer as { name: string }).name).toBe('Shape');
    expect(labels(s).at(-1)).toBe('载入图层选区');

    await ok(s, 'select_layer_pixels', { name: 'Edge' });
    expect(selected(s)).toEqual(rectValues(10, 6, 8, 4, 10, 6).map((v) => (v === 255 ? 255 : 0)));
  });

  it('a group gives its merged transparency, the lazy background the whole canvas', async () => {
    const s = await setup(10, 6);
    edit(s, (st) => {
      const g = addGroup(st, 'G', { opacity: 0.2, visible: false });
      const gid = idOf(g, 'G');
      return addPixel(
        addPixel(g, 'a', solid({ x: 0, y: 0, w: 2, h: 2 }, [9, 9, 9, 255]), {}, gid),
        'b',
        solid({ x: 5, y: 3, w: 1, h: 1 }, [9, 9, 9, 100]),
        {},
        gid,
      );
    });
    await ok(s, 'select_layer_pixels', { name: 'G' });
    const expected = new Array(60).fill(0);
    for (const i of [0, 1, 10, 11]) expected[i] = 255;
    expected[35] = 100;
    expect(selected(s)).toEqual(expected);
    await ok(s, 'select_layer_pixels', { name: '背景' });
    expect(selected(s).every((v) => v === 255)).toBe(true);
  });

  it('refuses an empty layer and an unknown name, changing nothing', async () => {
    const s = await setup();
    await refused(s, 'select_layer_pixels', { name: 'P' }, 'invalid_state');
    await refused(s, 'select_layer_pixels', { name: 'nope' }, 'not_found');
  });
});

describe('inverse_selection', () => {
  it('with no selection selects the whole canvas', async () => {
    const s = await setup();
    const r = await ok(s, 'inverse_selection');
    expect(r.selection).toMatchObject({ whole_canvas: true });
    expect(labels(s).at(-1)).toBe('反选');
  });

  it('selects 255 − m inside the canvas; twice gives the original; inverting everything leaves none', async () => {
    const s = await setup();
    await ok(s, 'select_rect', { left: 3, top: 2, right: 8, bottom: 6 });
    await ok(s, 'feather_selection', { radius: 2 });
    const feathered = selected(s);
    await ok(s, 'inverse_selection');
    expect(selected(s)).toEqual(feathered.map((v) => 255 - v));
    await ok(s, 'inverse_selection');
    expect(selected(s)).toEqual(feathered);

    await ok(s, 'select_all');
    const r = await ok(s, 'inverse_selection');
    expect(selection(s)).toBeNull();
    expect(r.selection).toEqual({ active: false });
  });
});

describe('feather_selection', () => {
  it('softens the edge into a monotone ramp about 2 × radius wide', async () => {
    const s = await setup(100, 40);
    await ok(s, 'select_rect', { left: 0, top: 0, right: 50, bottom: 40 });
    const r = await ok(s, 'feather_selection', { radius: 10 });
    expect(r.sigma).toBe(5);
    const row = selected(s).slice(20 * 100, 21 * 100);
    for (let x = 1; x < 100; x++) expect(row[x]!).toBeLessThanOrEqual(row[x - 1]!);
    expect(row[0]).toBe(255);
    expect(row[99]).toBe(0);
    expect(Math.abs(row[49]! + row[50]! - 255)).toBeLessThanOrEqual(3); // centred on the edge
    // Partial values span about ±r around the edge at x = 50 (σ = r/2: 95 % of the ramp within ±r).
    const soft = row.map((v, x) => [v, x] as const).filter(([v]) => v > 0.025 * 255 && v < 0.975 * 255);
    expect(soft[0]![1]).toBeGreaterThanOrEqual(50 - 10 - 2);
    expect(soft.at(-1)![1]).toBeLessThanOrEqual(50 + 10 + 1);
    expect(soft.length).toBeGreaterThanOrEqual(18);
    expect(labels(s).at(-1)).toBe('羽化选区');
  });

  it('needs a selection', async () => {
    const s = await setup();
    const e = await refused(s, 'feather_selection', { radius: 5 }, 'invalid_state');
    expect(e.hint).toContain('select_rect');
    expect(e.hint).toContain('select_all');
    await refused(s, 'feather_selection', { radius: 0 }, 'invalid_arguments');
    await refused(s, 'feather_selection', { radius: 1001 }, 'invalid_arguments');
  });

  it('refuses a radius that would leave nothing selected, keeping the selection', async () => {
    const s = await setup(96, 64);
    await ok(s, 'select_rect', { left: 5, top: 6, right: 50, bottom: 40 });
    const e = await refused(s, 'feather_selection', { radius: 1000 }, 'invalid_arguments');
    expect(e.message).toContain('羽化半径 1000');
    expect(e.details).toEqual([{ parameter: 'radius', value: 1000 }]);
  });
});

describe('fill_selection', () => {
  /** Plain straight-alpha source-over of colour c at coverage a onto [r, g, b, alpha]. */
  function over(dst: readonly number[], c: readonly number[], a: number): number[] {
    const ab = dst[3]! / 255;
    const ao = a + ab * (1 - a);
    if (ao === 0) return [0, 0, 0, 0];
    return [0, 1, 2]
      .map((k) => Math.round((c[k]! * a + dst[k]! * ab * (1 - a)) / ao))
      .concat(Math.round(ao * 255));
  }

  it('fills only inside the selection; the empty layer grows to the selected area', async () => {
    const s = await setup();
    await ok(s, 'select_rect', { left: 3, top: 2, right: 8, bottom: 6 });
    const r = await ok(s, 'fill_selection', { color: '#FF8000' });
    const raster = rasterOf(named(current(s), 'P'));
    expect({ x: raster.x, y: raster.y, w: raster.w, h: raster.h }).toEqual({ x: 3, y: 2, w: 5, h: 4 });
    for (let y = 0; y < 10; y++) {
      for (let x = 0; x < 20; x++) {
        const inside = x >= 3 && x < 8 && y >= 2 && y < 6;
        expect(px(raster, x, y)).toEqual(inside ? [255, 128, 0, 255] : [0, 0, 0, 0]);
      }
    }
    expect(r).toMatchObject({ color: '#ff8000', opacity: 100, area: 'selection' });
    expect(labels(s).at(-1)).toBe('填充选区');
  });

  it('lays the colour over existing pixels at the given opacity', async () => {
    const s = await setup();
    edit(s, (st) => addPixel(st, 'Q', solid({ x: 0, y: 0, w: 20, h: 10 }, [0, 0, 255, 200])));
    await ok(s, 'select_layers', { names: ['Q'] });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 10, bottom: 10 });
    await ok(s, 'fill_selection', { color: '#ff0000', opacity: 40 });
    const raster = rasterOf(named(current(s), 'Q'));
    const want = over([0, 0, 255, 200], [255, 0, 0], 0.4);
    for (const [x, y] of [
      [0, 0],
      [9, 9],
      [5, 3],
    ] as const) {
      for (const [i, v] of px(raster, x, y).entries()) expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1);
    }
    expect(px(raster, 10, 0)).toEqual([0, 0, 255, 200]);
  });

  it('blends partial coverage across a feathered edge', async () => {
    const s = await setup(60, 10);
    edit(s, (st) => addPixel(st, 'Q', solid({ x: 0, y: 0, w: 60, h: 10 }, [0, 0, 255, 255])));
    await ok(s, 'select_layers', { names: ['Q'] });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 30, bottom: 10 });
    await ok(s, 'feather_selection', { radius: 8 });
    const mask = selected(s);
    await ok(s, 'fill_selection', { color: '#ff0000', opacity: 50 });
    const raster = rasterOf(named(current(s), 'Q'));
    const partial = new Set<number>();
    for (let x = 0; x < 60; x++) {
      const m = mask[5 * 60 + x]!;
      if (m > 0 && m < 255) partial.add(m);
      const want = over([0, 0, 255, 255], [255, 0, 0], (0.5 * m) / 255);
      for (const [i, v] of px(raster, x, 5).entries()) expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1);
    }
    expect(partial.size).toBeGreaterThan(8);
  });

  it('without a selection fills the whole canvas area of the layer, keeping pixels beyond the canvas', async () => {
    const s = await setup();
    edit(s, (st) => addPixel(st, 'Q', solid({ x: 15, y: -4, w: 10, h: 6 }, [0, 255, 0, 255])));
    await ok(s, 'select_layers', { names: ['Q'] });
    const r = await ok(s, 'fill_selection', { color: '#000000', opacity: 100 });
    expect(r.area).toBe('whole_layer');
    const raster = rasterOf(named(current(s), 'Q'));
    expect({ x: raster.x, y: raster.y, w: raster.w, h: raster.h }).toEqual({ x: 0, y: -4, w: 25, h: 14 });
    expect(px(raster, 0, 0)).toEqual([0, 0, 0, 255]);
    expect(px(raster, 19, 9)).toEqual([0, 0, 0, 255]);
    expect(px(raster, 22, 0)).toEqual([0, 255, 0, 255]); // beyond the canvas: untouched
    expect(px(raster, 16, -2)).toEqual([0, 255, 0, 255]);
    expect(px(raster, 2, -2)).toEqual([0, 0, 0, 0]);
  });

  it('keeps the lazy background a colour when the fill covers it opaquely, and paints it otherwise', async () => {
    const s = await setup();
    await ok(s, 'select_layers', { names: ['背景'] });
    await ok(s, 'fill_selection', { color: '#336699' });
    const bg = named(current(s), '背景');
    expect(bg.kind).toBe('fill');
    expect(bg.kind === 'fill' && bg.color).toEqual({ r: 0x33, g: 0x66, b: 0x99 });

    await ok(s, 'select_rect', { left: 0, top: 0, right: 4, bottom: 4 });
    await ok(s, 'fill_selection', { color: '#ffffff', opacity: 50 });
    const painted = named(current(s), '背景');
    expect(painted.kind).toBe('pixel');
    expect(painted.kind === 'pixel' && painted.background).toBe(true);
    const raster = rasterOf(painted);
    expect({ x: raster.x, y: raster.y, w: raster.w, h: raster.h }).toEqual({ x: 0, y: 0, w: 20, h: 10 });
    const want = over([0x33, 0x66, 0x99, 255], [255, 255, 255], 0.5);
    for (const [i, v] of px(raster, 1, 1).entries()) expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1);
    expect(px(raster, 10, 5)).toEqual([0x33, 0x66, 0x99, 255]);
  });

  it('keeps alpha on a layer whose transparency is locked', async () => {
    const s = await setup();
    edit(s, (st) =>
      addPixel(st, 'Q', solid({ x: 2, y: 2, w: 3, h: 3 }, [0, 0, 255, 100]), {
        locks: { ...NO_LOCKS, transparency: true },
      }),
    );
    await ok(s, 'select_layers', { names: ['Q'] });
    await ok(s, 'fill_selection', { color: '#ff0000' });
    const raster = rasterOf(named(current(s), 'Q'));
    expect({ x: raster.x, y: raster.y, w: raster.w, h: raster.h }).toEqual({ x: 2, y: 2, w: 3, h: 3 });
    expect(px(raster, 3, 3)).toEqual([255, 0, 0, 100]);
  });

  it('refuses a layer whose pixels lie so far off the canvas that it would grow past any size, changing nothing', async () => {
    const s = await setup();
    await ok(s, 'select_rect', { left: 3, top: 2, right: 8, bottom: 6 });
    await ok(s, 'fill_selection', { color: '#FF8000' });
    await ok(s, 'move_layer', { name: 'P', dx: 1_000_000_000, dy: -1_000_000_000 });
    const e = await refused(s, 'fill_selection', { color: '#0000ff' }, 'out_of_bounds');
    expect(e.message).toMatch(/填充后的图层“P”范围 .* 像素超过上限/);
    expect(e.hint).toContain('move_layer');
    // Back near the canvas, the same fill works.
    await ok(s, 'move_layer', { name: 'P', dx: -1_000_000_000, dy: 1_000_000_000 });
    await ok(s, 'fill_selection', { color: '#0000ff' });
  });

  it('refuses text, smart-object and group layers, locked layers and bad opacity, changing nothing', async () => {
    const s = await setup();
    const r: Raster = solid({ x: 0, y: 0, w: 4, h: 4 }, [0, 0, 0, 255]);
    edit(s, (st) =>
      addLayer(
        st,
        (id): TextLayer => ({
          id,
          name: 'T',
          kind: 'text',
          visible: true,
          opacity: 1,
          blend: 'normal',
          clipped: false,
          locks: NO_LOCKS,
          raster: r,
          text: {
            content: 'x',
            x: 0,
            y: 0,
            size: 12,
            color: { r: 0, g: 0, b: 0 },
            font: 'a',
            renderedFont: 'a',
          },
        }),
      ),
    );
    edit(s, (st) =>
      addLayer(
        st,
        (id): SmartLayer => ({
          id,
          name: 'S',
          kind: 'smart',
          visible: true,
          opacity: 1,
          blend: 'normal',
          clipped: false,
          locks: NO_LOCKS,
          raster: r,
          source: r,
          transform: { cx: 2, cy: 2, scaleX: 1, scaleY: 1, angle: 0 },
        }),
      ),
    );
    edit(s, (st) => addGroup(st, 'G'));
    edit(s, (st) => addPixel(st, 'L', r, { locks: { ...NO_LOCKS, all: true } }));
    edit(s, (st) => addPixel(st, 'LP', r, { locks: { ...NO_LOCKS, pixels: true } }));
    await ok(s, 'select_rect', { left: 0, top: 0, right: 3, bottom: 3 });

    for (const [name, code] of [
      ['T', 'invalid_state'],
      ['S', 'invalid_state'],
      ['G', 'invalid_state'],
      ['L', 'locked'],
      ['LP', 'locked'],
    ] as const) {
      await ok(s, 'select_layers', { names: [name] });
      const e = await refused(s, 'fill_selection', { color: '#ff0000' }, code);
      if (name === 'T' || name === 'S') expect(e.hint).toContain('rasterize_layer');
    }
    await ok(s, 'select_layers', { names: ['P'] });
    await refused(s, 'fill_selection', { color: '#ff0000', opacity: 101 }, 'invalid_arguments');
    await refused(s, 'fill_selection', { color: 'red' }, 'invalid_arguments');
  });

  it('in CMYK mode fills with the colour clipped to the CMYK gamut', async () => {
    const s = await setup();
    await ok(s, 'convert_to_cmyk');
    const r = await ok(s, 'fill_selection', { color: '#00ff00' });
    const raster = rasterOf(named(current(s), 'P'));
    const [rr, gg, bb] = px(raster, 5, 5);
    expect(r.requested_color).toBe('#00ff00');
    expect(r.color).not.toBe('#00ff00');
    // Pure green is far outside the CMYK gamut: it comes back much duller.
    expect(Math.hypot(rr!, 255 - gg!, bb!)).toBeGreaterThan(60);
    expect(gg!).toBeGreaterThan(rr!);
  });
});
