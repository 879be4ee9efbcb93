/**
 * Group C layer effects (add_stroke, add_drop_shadow, clear_layer_effects) driven through the real Session.
 * Pixels of the composite are checked against expectations written plainly here (band widths, Photoshop's
 * angle convention, the shadow's opacity over white), and the saved PSD against psd-tools.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { renderDocument } from '../../src/engine/composite/compositor.js';
import type { Layer, Raster, TextLayer } from '../../src/engine/model.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { call, hashEditor, newSession, ok, refused } from '../support/session.js';
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

const RED = [255, 0, 0, 255] as const;

function composite(s: Session): Raster {
  const tx = s.editor.begin();
  return tx.composite(tx.activeDocument().id);
}

function layer(s: Session, name: string): Layer {
  return named(current(s), name);
}

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

/** `size` × `size` canvas, white background, an opaque red 20×20 square 'sq' at (20, 20). */
async function setup(size = 60): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: size, height: size });
  edit(s, (st) => addPixel(st, 'sq', solid({ x: 20, y: 20, w: 20, h: 20 }, RED)));
  return s;
}

/** The composite's pixels along row y from x0 to x1 inclusive. */
function row(r: Raster, y: number, x0: number, x1: number): number[][] {
  const out: number[][] = [];
  for (let x = x0; x <= x1; x++) out.push(px(r, x, y));
  return out;
}

const isBlack = (p: number[]) => p[0]! <= 1 && p[1]! <= 1 && p[2]! <= 1 && p[3] === 255;
const isWhite = (p: number[]) => p[0]! >= 254 && p[1]! >= 254 && p[2]! >= 254;
const isRed = (p: number[]) => p[0]! >= 254 && p[1]! <= 1 && p[2]! <= 1;

describe('add_stroke', () => {
  it('draws an outside stroke whose ring is `size` px wide at a straight edge, with round corners', async () => {
    const s = await setup();
    const before = layer(s, 'sq');
    const r = await ok(s, 'add_stroke', { name: 'sq', size: 4, color: '#000000' });
    expect(r.effects).toMatchObject({
      stroke: { size: 4, position: 'outside', color: '#000000', opacity: 100 },
      drop_shadow: null,
    });
    const after = layer(s, 'sq');
    // A live effect: the layer's pixels are the very same buffer.
    expect(rasterOf(after)).toBe(rasterOf(before));
    expect(rasterOf(after).data).toBe(rasterOf(before).data);
    expect(after.effects?.stroke).toEqual({
      size: 4,
      position: 'outside',
      color: { r: 0, g: 0, b: 0 },
      opacity: 1,
      blend: 'normal',
    });
    expect(labels(s).at(-1)).toBe('添加描边');
    expect(current(s).active).toBe(after.id);

    const c = composite(s);
    // Row 30 crosses the left edge at x = 20 and the right edge at x = 40.
    const left = row(c, 30, 10, 21);
    expect(left.slice(0, 6).every(isWhite)).toBe(true); // x 10..15
    expect(left.slice(6, 10).every(isBlack)).toBe(true); // x 16..19: exactly 4 px
    expect(left.slice(10).every(isRed)).toBe(true); // x 20, 21
    const right = row(c, 30, 38, 46);
    expect(right.slice(0, 2).every(isRed)).toBe(true); // x 38, 39
    expect(right.slice(2, 6).every(isBlack)).toBe(true); // x 40..43
    expect(right.slice(6).every(isWhite)).toBe(true); // x 44..46
    // Column 30 likewise above and below.
    expect([15, 16, 17, 18, 19].map((y) => isBlack(px(c, 30, y)))).toEqual([false, true, true, true, true]);
    expect([40, 43, 44].map((y) => isBlack(px(c, 30, y)))).toEqual([true, true, false]);
    // The corner is round (a Euclidean band), not square: the pixel diagonally 4 px out from the corner is
    // 4.95 px from the corner point (outside the band), the one 3 px out is 3.5 px away (inside).
    expect(px(c, 16, 16)[0]).toBeGreaterThan(230);
    expect(px(c, 17, 17)[0]).toBeLessThan(128);
  });

  it('inside and center strokes: 4 px inside the edge, or 2 px each side', async () => {
    const s = await setup();
    await ok(s, 'add_stroke', { name: 'sq', size: 4, color: '#000000', position: 'inside' });
    let c = composite(s);
    let line = row(c, 30, 17, 25);
    expect(line.slice(0, 3).every(isWhite)).toBe(true); // 17..19
    expect(line.slice(3, 7).every(isBlack)).toBe(true); // 20..23
    expect(line.slice(7).every(isRed)).toBe(true); // 24, 25
    // The layer still covers the same pixels: an inside stroke does not grow the footprint.
    expect(isWhite(px(c, 19, 19))).toBe(true);

    await ok(s, 'add_stroke', { name: 'sq', size: 4, color: '#000000', position: 'center' });
    expect(layer(s, 'sq').effects?.stroke?.position).toBe('center');
    c = composite(s);
    line = row(c, 30, 15, 24);
    expect(line.slice(0, 3).every(isWhite)).toBe(true); // 15..17
    expect(line.slice(3, 7).every(isBlack)).toBe(true); // 18..21
    expect(line.slice(7).every(isRed)).toBe(true); // 22..24
  });

  it('a fractional size covers the last pixel partly (2.5 px: the third pixel out is half covered)', async () => {
    const s = await setup();
    await ok(s, 'add_stroke', { name: 'sq', size: 2.5, color: '#000000' });
    const c = composite(s);
    expect(isBlack(px(c, 19, 30))).toBe(true);
    expect(isBlack(px(c, 18, 30))).toBe(true);
    // Pixel 17 spans 2..3 px from the edge; the band [0, 2.5] covers half of it: black at 50 % over white.
    const half = px(c, 17, 30);
    expect(Math.abs(half[0]! - 127.5)).toBeLessThanOrEqual(1.5);
    expect(isWhite(px(c, 16, 30))).toBe(true);
  });

  it('adding again replaces the stroke; the same stroke again changes nothing and adds no step', async () => {
    const s = await setup();
    await ok(s, 'add_stroke', { name: 'sq', size: 4, color: '#000000' });
    const r = await ok(s, 'add_stroke', { name: 'sq', size: 2, color: '#0000ff', position: 'inside' });
    expect(r.replaced).toBe('stroke');
    expect(layer(s, 'sq').effects?.stroke).toMatchObject({
      size: 2,
      position: 'inside',
      color: { r: 0, g: 0, b: 255 },
    });
    const steps = labels(s).length;
    const hash = hashEditor(s.editor.snapshot);
    const again = await ok(s, 'add_stroke', { name: 'sq', size: 2, color: '#00F', position: 'inside' });
    expect(again.changed).toBe(false);
    expect(labels(s).length).toBe(steps);
    expect(hashEditor(s.editor.snapshot)).toBe(hash);
  });

  it('takes text and smart-object layers', async () => {
    const s = await setup(120);
    await ok(s, 'create_text_layer', { text: '描边', x: 50, y: 50, font_size: 30, color: '#ff0000' });
    const t = current(s).layers.get(current(s).active!) as TextLayer;
    expect(t.kind).toBe('text');
    const before = composite(s);
    await ok(s, 'add_stroke', { name: t.name, size: 3, color: '#0000ff' });
    const after = layer(s, t.name) as TextLayer;
    expect(after.kind).toBe('text');
    expect(after.raster).toBe(t.raster);
    expect(after.effects?.stroke?.size).toBe(3);
    // Blue appears around the glyphs.
    const c = composite(s);
    let blue = 0;
    for (let i = 0; i < c.data.length; i += 4) {
      if (c.data[i + 2]! > 200 && c.data[i]! < 50 && before.data[i + 2]! > 200 && before.data[i]! > 200)
        blue++;
    }
    expect(blue).toBeGreaterThan(50);

    await ok(s, 'convert_to_smart_object', { name: 'sq' });
    expect(layer(s, 'sq').kind).toBe('smart');
    await ok(s, 'add_drop_shadow', { name: 'sq', distance: 5, size: 0 });
    expect(layer(s, 'sq').effects?.dropShadow?.distance).toBe(5);
  });

  it('keeps the colour printable in a CMYK document', async () => {
    const s = await setup();
    await ok(s, 'convert_to_cmyk');
    const r = await ok(s, 'add_stroke', { name: 'sq', size: 2, color: '#00ff00' });
    const held = (r.effects as { stroke: { color: string } }).stroke.color;
    expect(held).not.toBe('#00ff00');
    expect(r.color_note).toContain(held);
  });
});

describe('add_drop_shadow', () => {
  /** Darkness (255 − red channel) of the composite, outside the layer's own square. */
  function darkness(c: Raster, sq: { x: number; y: number; w: number; h: number }) {
    let sum = 0;
    let sx = 0;
    let sy = 0;
    for (let y = 0; y < c.h; y++) {
      for (let x = 0; x < c.w; x++) {
        if (x >= sq.x && x < sq.x + sq.w && y >= sq.y && y < sq.y + sq.h) continue;
        const d = 255 - c.data[(y * c.w + x) * 4]!;
        sum += d;
        sx += d * (x + 0.5);
        sy += d * (y + 0.5);
      }
    }
    return { sum, cx: sx / sum, cy: sy / sum };
  }

  it('120° (the default) casts the shadow down-right by (−d·cos120°, d·sin120°), at 75 % multiply', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 100, height: 100 });
    const sq = { x: 20, y: 20, w: 10, h: 10 };
    edit(s, (st) => addPixel(st, 'sq', solid(sq, [255, 255, 255, 255])));
    const before = layer(s, 'sq');
    const r = await ok(s, 'add_drop_shadow', { name: 'sq', distance: 20, size: 6 });
    expect(r.effects).toMatchObject({
      stroke: null,
      drop_shadow: { distance: 20, size: 6, angle: 120, opacity: 75, color: '#000000', spread: 0 },
    });
    expect(layer(s, 'sq').effects?.dropShadow).toEqual({
      distance: 20,
      angle: 120,
      size: 6,
      spread: 0,
      opacity: 0.75,
      color: { r: 0, g: 0, b: 0 },
      blend: 'multiply',
    });
    expect(rasterOf(layer(s, 'sq')).data).toBe(rasterOf(before).data);
    expect(labels(s).at(-1)).toBe('添加投影');

    // Photoshop: the angle is where the light comes from; the shadow falls the opposite way, y down.
    const d = 20;
    const ex = -d * Math.cos((120 * Math.PI) / 180); // +10
    const ey = d * Math.sin((120 * Math.PI) / 180); // +17.32
    expect(r.shadow_offset).toEqual({ dx: 10, dy: 17.32 });
    const c = composite(s);
    const dark = darkness(c, sq);
    // Centroid of the shadow-only difference (the white layer on white shows nothing itself) vs the layer's.
    // The compositor places the shadow on whole pixels, so allow half a pixel.
    expect(Math.abs(dark.cx - 25 - ex)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(dark.cy - 25 - ey)).toBeLessThanOrEqual(0.5);
    // The blur keeps the shadow's mass: 100 px × 75 % of 255 (within 3 %), none of it under the layer here.
    expect(Math.abs(dark.sum - 100 * 0.75 * 255) / (100 * 0.75 * 255)).toBeLessThan(0.03);
  });

  it('size 0: a hard shadow of exactly 25 % white (75 % black multiply) under the offset square, knocked out by the layer', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 60, height: 60 });
    edit(s, (st) => addPixel(st, 'sq', solid({ x: 20, y: 20, w: 10, h: 10 }, [255, 255, 255, 255])));
    await ok(s, 'add_drop_shadow', { name: 'sq', distance: 6, size: 0, angle: 120 });
    const dx = Math.round(-6 * Math.cos((120 * Math.PI) / 180)); // 3
    const dy = Math.round(6 * Math.sin((120 * Math.PI) / 180)); // 5
    const c = composite(s);
    const expectAt = (x: number, y: number): number => {
      const inLayer = x >= 20 && x < 30 && y >= 20 && y < 30;
      const inShadow = x >= 20 + dx && x < 30 + dx && y >= 20 + dy && y < 30 + dy;
      if (inLayer) return 255;
      return inShadow ? 255 * (1 - 0.75) : 255; // black multiply at 75 % over white
    };
    let worst = 0;
    for (let y = 0; y < 60; y++) {
      for (let x = 0; x < 60; x++) worst = Math.max(worst, Math.abs(px(c, x, y)[0]! - expectAt(x, y)));
    }
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('angle 90 casts straight down, 0 to the left, 300 is stored as −60 (light from lower right: shadow up-left)', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 80, height: 80 });
    const sq = { x: 35, y: 35, w: 10, h: 10 };
    edit(s, (st) => addPixel(st, 'sq', solid(sq, [255, 255, 255, 255])));
    await ok(s, 'add_drop_shadow', { name: 'sq', distance: 15, size: 0, angle: 90 });
    let dark = darkness(composite(s), sq);
    expect(dark.cx).toBeCloseTo(40, 5);
    expect(dark.cy).toBeGreaterThan(40 + 10); // the part under the layer is knocked out: centroid ≥ 15 down
    await ok(s, 'add_drop_shadow', { name: 'sq', distance: 15, size: 0, angle: 0 });
    dark = darkness(composite(s), sq);
    expect(dark.cy).toBeCloseTo(40, 5);
    expect(dark.cx).toBeLessThan(40 - 10);
    const r = await ok(s, 'add_drop_shadow', { name: 'sq', distance: 15, size: 0, angle: 300 });
    expect(layer(s, 'sq').effects?.dropShadow?.angle).toBe(-60);
    expect(r.angle_note).toBeTruthy();
    // Light from −60° (lower right): −cos(−60°) < 0 → left, sin(−60°) < 0 → up.
    expect(r.shadow_offset).toEqual({ dx: -7.5, dy: -12.99 });
    dark = darkness(composite(s), sq);
    expect(dark.cx).toBeLessThan(40);
    expect(dark.cy).toBeLessThan(40);
  });
});

describe('effects together, clearing, undo', () => {
  it('a stroke then a shadow keeps both, and a shadow then a stroke too; clear removes all in one step', async () => {
    const s = await setup();
    const base = composite(s);
    await ok(s, 'add_stroke', { name: 'sq', size: 3, color: '#0000ff' });
    await ok(s, 'add_drop_shadow', { name: 'sq', distance: 8, size: 4, opacity: 50 });
    let fx = layer(s, 'sq').effects!;
    expect(fx.stroke?.size).toBe(3);
    expect(fx.dropShadow?.opacity).toBe(0.5);
    // Replacing the stroke keeps the shadow.
    await ok(s, 'add_stroke', { name: 'sq', size: 5, color: '#0000ff' });
    fx = layer(s, 'sq').effects!;
    expect(fx.stroke?.size).toBe(5);
    expect(fx.dropShadow?.distance).toBe(8);
    // And replacing the shadow keeps the stroke.
    await ok(s, 'add_drop_shadow', { name: 'sq', distance: 4, size: 2 });
    fx = layer(s, 'sq').effects!;
    expect(fx.stroke?.size).toBe(5);
    expect(fx.dropShadow).toMatchObject({ distance: 4, size: 2, opacity: 0.75 });

    // The layer's summary names its effects (the studio's fx mark), by the names clear_layer_effects reports.
    const effectsOf = async () =>
      ((await ok(s, 'get_layer_structure')).layers as { name: string; effects?: string[] }[]).find(
        (l) => l.name === 'sq',
      )!.effects;
    expect(await effectsOf()).toEqual(['stroke', 'drop_shadow']);
    const steps = labels(s).length;
    const r = await ok(s, 'clear_layer_effects', { name: 'sq' });
    expect(r.removed).toEqual(['stroke', 'drop_shadow']);
    expect(layer(s, 'sq').effects).toBeUndefined();
    expect(await effectsOf()).toBeUndefined();
    expect(labels(s).length).toBe(steps + 1);
    expect(labels(s).at(-1)).toBe('清除图层样式');
    expect(Buffer.compare(Buffer.from(composite(s).data), Buffer.from(base.data))).toBe(0);

    // Nothing left to clear: ok, a note, no history step, nothing changed.
    const hash = hashEditor(s.editor.snapshot);
    const again = await ok(s, 'clear_layer_effects', { name: 'sq' });
    expect(again.changed).toBe(false);
    expect(again.note).toBeTruthy();
    expect(labels(s).length).toBe(steps + 1);
    expect(hashEditor(s.editor.snapshot)).toBe(hash);
  });

  it('undo takes an effect off again and restores the composite', async () => {
    const s = await setup();
    const base = composite(s);
    const rasterBefore = rasterOf(layer(s, 'sq'));
    await ok(s, 'add_stroke', { name: 'sq', size: 3, color: '#000000' });
    expect(Buffer.compare(Buffer.from(composite(s).data), Buffer.from(base.data))).not.toBe(0);
    await ok(s, 'undo');
    expect(layer(s, 'sq').effects).toBeUndefined();
    expect(rasterOf(layer(s, 'sq'))).toBe(rasterBefore);
    expect(Buffer.compare(Buffer.from(composite(s).data), Buffer.from(base.data))).toBe(0);
  });
});

describe('effects on a group', () => {
  const BLUE = [0, 0, 255, 160] as const;

  /** Group '组' holding an opaque red square 'a' (10..19) and a translucent blue bar 'b' (20..31) beside it. */
  async function styledGroup(): Promise<Session> {
    const s = newSession();
    await ok(s, 'create_document', { width: 60, height: 50 });
    edit(s, (st) => {
      let n = addGroup(st, '组');
      n = addPixel(n, 'a', solid({ x: 10, y: 10, w: 10, h: 10 }, RED), {}, idOf(n, '组'));
      return addPixel(n, 'b', solid({ x: 20, y: 14, w: 12, h: 8 }, BLUE), {}, idOf(n, '组'));
    });
    return s;
  }

  it('a stroke rings the outline of the group composite, not each layer', async () => {
    const s = await styledGroup();
    const a = rasterOf(layer(s, 'a'));
    await ok(s, 'add_stroke', { name: '组', size: 3, color: '#000000' });
    expect(layer(s, '组').effects?.stroke).toMatchObject({ size: 3, position: 'outside' });
    expect(rasterOf(layer(s, 'a'))).toBe(a);
    const c = composite(s);
    // Row 12 runs through 'a' only: stroke at 7..9 left of it; where 'b' starts (x 20) there is no stroke
    // between the two, and the ring around the union closes above 'b' at row 11..13.
    expect([7, 8, 9].every((x) => isBlack(px(c, x, 12)))).toBe(true);
    expect(isRed(px(c, 19, 16))).toBe(true);
    expect(isBlack(px(c, 20, 16)) || isBlack(px(c, 19, 16))).toBe(false);
    expect([11, 12, 13].every((y) => isBlack(px(c, 25, y)))).toBe(true);
    expect(isWhite(px(c, 25, 10))).toBe(true);
    // Right of 'b' the stroke is 3 px wide, then the background.
    expect([32, 33, 34].every((x) => isBlack(px(c, x, 16)))).toBe(true);
    expect(isWhite(px(c, 35, 16))).toBe(true);
  });

  it('stroke and shadow on a group equal the same effects on its content merged into one layer', async () => {
    const styled = await styledGroup();
    const merged = await styledGroup();
    await ok(merged, 'select_layers', { names: ['a', 'b'] });
    await ok(merged, 'merge_layers');
    const one = current(merged).layers.get(current(merged).active!)!.name;
    for (const [s, name] of [
      [styled, '组'],
      [merged, one],
    ] as const) {
      await ok(s, 'add_stroke', { name, size: 2, color: '#00a000', position: 'center' });
      await ok(s, 'add_drop_shadow', { name, distance: 6, angle: 135, size: 4, opacity: 80 });
    }
    const a = composite(styled);
    const b = composite(merged);
    let worst = 0;
    for (let i = 0; i < a.data.length; i++) worst = Math.max(worst, Math.abs(a.data[i]! - b.data[i]!));
    expect(worst).toBeLessThanOrEqual(1);
    // And the shadow is there: lower right of the bar, darker than the white background.
    expect(px(a, 35, 26)[0]).toBeLessThan(235);
  });

  it('editing a layer inside the group moves the group effects with it (cached composite = fresh render)', async () => {
    const s = await styledGroup();
    await ok(s, 'add_drop_shadow', { name: '组', distance: 8, angle: 90, size: 2, opacity: 100 });
    composite(s);
    await ok(s, 'move_layer', { name: 'b', dx: 0, dy: 20 });
    const cached = composite(s);
    const fresh = renderDocument(current(s));
    expect(Buffer.compare(Buffer.from(cached.data), Buffer.from(fresh.data))).toBe(0);
    // The shadow now falls 8 px below the bar's new place (rows 34..41 + 8), and no longer below the old one.
    expect(px(cached, 25, 45)[0]).toBeLessThan(200);
    expect(isWhite(px(cached, 25, 25))).toBe(true);
  });

  it.skipIf(!psdToolsAvailable())('psd-tools reads the group effects back from a saved PSD', async () => {
    const s = await styledGroup();
    await ok(s, 'add_stroke', { name: '组', size: 3, color: '#0080ff' });
    await ok(s, 'save_document_as', { path: 'group-fx.psd' });
    const { dump } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'group-fx.psd')));
    const g = flattenPsdTools(dump.layers).find((l) => l.name === '组')!;
    expect(g.effects.map((e) => [e.type, e.size])).toEqual([['Stroke', 3]]);
  });
});

describe('refusals leave the document unchanged', () => {
  it('backgrounds, colour fills, locks, bad arguments, unknown layers', async () => {
    const s = await setup();
    edit(s, (st) => {
      let n = addGroup(st, '组');
      n = addPixel(n, '组内', solid({ x: 0, y: 0, w: 5, h: 5 }, RED), {}, idOf(n, '组'));
      n = addPixel(n, '锁定', solid({ x: 0, y: 0, w: 5, h: 5 }, RED), {
        locks: { all: true, pixels: false, position: false, transparency: false },
      });
      n = addPixel(n, '像素锁', solid({ x: 0, y: 0, w: 5, h: 5 }, RED), {
        locks: { all: false, pixels: true, position: true, transparency: false },
      });
      n = addLayer(n, (id) => ({
        id,
        name: '填充',
        kind: 'fill',
        color: { r: 1, g: 2, b: 3 },
        visible: true,
        opacity: 1,
        blend: 'normal',
        clipped: false,
        locks: { all: false, pixels: false, position: false, transparency: false },
      }));
      return n;
    });
    let e = await refused(s, 'add_drop_shadow', { name: '背景', distance: 5, size: 5 }, 'invalid_state');
    expect(e.message).toContain('背景');
    expect(e.hint).toContain('duplicate_layer');
    e = await refused(s, 'add_stroke', { name: '填充', size: 2, color: '#000000' }, 'unsupported');
    expect(e.hint).toContain('rasterize_layer');
    await refused(s, 'add_stroke', { name: '锁定', size: 2, color: '#000000' }, 'locked');
    await refused(s, 'clear_layer_effects', { name: '锁定' }, 'locked');
    await refused(s, 'add_stroke', { name: 'sq', size: 0, color: '#000000' }, 'invalid_arguments');
    await refused(s, 'add_stroke', { name: 'sq', size: 251, color: '#000000' }, 'invalid_arguments');
    await refused(s, 'add_stroke', { name: 'sq', size: 2, color: 'red-ish' }, 'invalid_arguments');
    await refused(
      s,
      'add_stroke',
      { name: 'sq', size: 2, color: '#000', position: 'top' },
      'invalid_arguments',
    );
    await refused(s, 'add_drop_shadow', { name: 'sq', distance: -1, size: 2 }, 'invalid_arguments');
    await refused(
      s,
      'add_drop_shadow',
      { name: 'sq', distance: 2, size: 2, opacity: 101 },
      'invalid_arguments',
    );
    await refused(
      s,
      'add_drop_shadow',
      { name: 'sq', distance: 2, size: 2, angle: 400 },
      'invalid_arguments',
    );
    await refused(s, 'add_drop_shadow', { name: 'nope', distance: 2, size: 2 }, 'not_found');
    await refused(s, 'clear_layer_effects', { name: 'nope' }, 'not_found');

    // Lock All on a group locks what is inside it.
    await ok(s, 'lock_layer', { name: '组', locked: true });
    await refused(s, 'add_stroke', { name: '组内', size: 2, color: '#000000' }, 'locked');
    // The pixel and position locks do not stop a layer style, as in Photoshop.
    await ok(s, 'add_stroke', { name: '像素锁', size: 2, color: '#000000' });
  });

  it('with no document: no_document', async () => {
    const s = newSession();
    const r = await call(s, 'add_stroke', { name: 'x', size: 2, color: '#000000' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('no_document');
  });
});

describe('PSD', () => {
  it.runIf(psdToolsAvailable())(
    'saves stroke and shadow as layer effects psd-tools reads back, and reopening restores them',
    async () => {
      const s = await setup();
      edit(s, (st) => addPixel(st, 'inside', solid({ x: 5, y: 5, w: 8, h: 8 }, RED)));
      await ok(s, 'add_stroke', { name: 'sq', size: 3, color: '#0080ff' });
      await ok(s, 'add_drop_shadow', { name: 'sq', distance: 6, size: 8, opacity: 60, angle: 135 });
      await ok(s, 'add_stroke', { name: 'inside', size: 2, color: '#ff0000', position: 'center' });
      await ok(s, 'save_document_as', { path: 'out/fx.psd' });
      const bytes = await readFile(path.join(s.workspace.root, 'out/fx.psd'));
      const { dump } = await readWithPsdTools(bytes);
      const layers = flattenPsdTools(dump.layers);
      const sq = layers.find((l) => l.name === 'sq')!;
      expect(sq.effects.find((e) => e.type === 'Stroke')).toMatchObject({
        enabled: true,
        size: 3,
        opacity: 100,
        position: 'OutF',
        color: [0, 128, 255],
      });
      expect(sq.effects.find((e) => e.type === 'DropShadow')).toMatchObject({
        enabled: true,
        size: 8,
        distance: 6,
        angle: 135,
        opacity: 60,
        choke: 0,
        color: [0, 0, 0],
      });
      // The layer's own pixels are stored unchanged (the effects are not baked in).
      expect(sq.bbox).toEqual([20, 20, 40, 40]);
      const inside = layers.find((l) => l.name === 'inside')!;
      expect(inside.effects.map((e) => [e.type, e.position, e.size])).toEqual([['Stroke', 'CtrF', 2]]);
      expect(layers.find((l) => l.name === '背景')!.effects).toEqual([]);

      await ok(s, 'open_document', { path: 'out/fx.psd' });
      expect(layer(s, 'sq').effects).toEqual({
        stroke: {
          size: 3,
          position: 'outside',
          color: { r: 0, g: 128, b: 255 },
          opacity: 1,
          blend: 'normal',
        },
        dropShadow: {
          distance: 6,
          angle: 135,
          size: 8,
          spread: 0,
          opacity: 0.6,
          color: { r: 0, g: 0, b: 0 },
          blend: 'multiply',
        },
      });
      expect(layer(s, 'inside').effects?.stroke?.position).toBe('center');
    },
  );
});
