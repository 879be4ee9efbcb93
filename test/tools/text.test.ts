/**
 * The text tools (create_text_layer, set_text_content, set_text_color, set_text_size) and text layers under
 * resize_layer / rotate_layer / flip_layer / resize_image and PSD save — driven through the real Session.
 * References: the renderer's own contract is tested in test/engine/text.test.ts; here pixels are checked for
 * placement, colour and change, and psd-tools (an independent reader) reads the saved text back.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { documentColor } from '../../src/engine/color-mode.js';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { Layer, Raster, TextLayer } from '../../src/engine/model.js';
import { rgbToHex } from '../../src/engine/raster.js';
import { BUNDLED_FONT, bundledFontPath, LINE_HEIGHT_EM, renderText } from '../../src/engine/text.js';
import { flipRaster, rotateRaster } from '../../src/engine/transform.js';
import { convertTo, imageMagickAvailable } from '../support/imagemagick.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools, SYSTEM_PYTHON } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, idOf, named, solid } from './layer-fixtures.js';

/** Alpha at document pixel (x, y) of `r`, 0..1 (0 outside). */
function alphaAt(r: Raster, x: number, y: number): number {
  if (x < r.x || y < r.y || x >= r.x + r.w || y >= r.y + r.h) return 0;
  return r.data[((y - r.y) * r.w + (x - r.x)) * 4 + 3]! / 255;
}

/** How much two renderings' ink coincides: Σ min(α) / Σ max(α) over both rectangles. */
function overlap(a: Raster, b: Raster): number {
  let both = 0;
  let either = 0;
  const x0 = Math.min(a.x, b.x);
  const y0 = Math.min(a.y, b.y);
  const x1 = Math.max(a.x + a.w, b.x + b.w);
  const y1 = Math.max(a.y + a.h, b.y + b.h);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const p = alphaAt(a, x, y);
      const q = alphaAt(b, x, y);
      both += Math.min(p, q);
      either += Math.max(p, q);
    }
  }
  return both / either;
}

/** The alpha-weighted centre of a rendering, in document pixels. */
function centroid(r: Raster): [number, number] {
  let sx = 0;
  let sy = 0;
  let sum = 0;
  for (let y = r.y; y < r.y + r.h; y++) {
    for (let x = r.x; x < r.x + r.w; x++) {
      const a = alphaAt(r, x, y);
      sx += a * (x + 0.5);
      sy += a * (y + 0.5);
      sum += a;
    }
  }
  return [sx / sum, sy / sum];
}

async function doc(width = 400, height = 200): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width, height });
  return s;
}

function layer(s: Session, name: string): Layer {
  return named(current(s), name);
}

function text(s: Session, name: string): TextLayer {
  const l = layer(s, name);
  if (l.kind !== 'text') throw new Error(`${name} is ${l.kind}`);
  return l;
}

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

/** Where a text spec's first baseline starts: the point its matrix turns about, as a PSD stores it. */
function textAnchorOf(t: TextLayer['text']): [number, number] {
  return [t.x, t.y + 0.88 * t.size];
}

function same(a: Raster, b: Raster): boolean {
  return (
    a.x === b.x &&
    a.y === b.y &&
    a.w === b.w &&
    a.h === b.h &&
    Buffer.from(a.data).equals(Buffer.from(b.data))
  );
}

/** Pixels of the composite inside `rect` that are clearly ink on the white background, and their mean colour. */
function compositeInk(s: Session, rect: { x: number; y: number; w: number; h: number }) {
  const img = renderDocument(current(s), rect);
  let n = 0;
  const sum: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < img.data.length; i += 4) {
    const [r, g, b] = [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
    // On white: ink is anything clearly darker or coloured.
    if (255 * 3 - (r + g + b) > 200) {
      n++;
      sum[0] += r;
      sum[1] += g;
      sum[2] += b;
    }
  }
  return { n, mean: sum.map((v) => v / Math.max(1, n)) };
}

describe('create_text_layer', () => {
  it('creates an editable text layer above the active layer, named after the text, active, one history step', async () => {
    const s = await doc();
    edit(s, (st) =>
      addPixel(
        addPixel(st, '下', solid({ x: 0, y: 0, w: 5, h: 5 }, [0, 0, 255, 255])),
        '上',
        solid({ x: 0, y: 0, w: 5, h: 5 }, [0, 255, 0, 255]),
      ),
    );
    await ok(s, 'select_layers', { names: ['下'] });
    const steps = labels(s).length;
    const r = await ok(s, 'create_text_layer', { text: '春夏新品\n第二行', x: 40, y: 30, font_size: 48 });
    const st = current(s);
    const t = text(s, '春夏新品');
    expect(st.active).toBe(t.id);
    // Directly above 下, below 上.
    const order = st.root.map((id) => st.layers.get(id)!.name);
    expect(order).toEqual(['背景', '下', '春夏新品', '上']);
    expect(labels(s).length).toBe(steps + 1);
    expect(labels(s).at(-1)).toBe('创建文字');
    expect(t.text).toEqual({
      content: '春夏新品\n第二行',
      x: 40,
      y: 30,
      size: 48,
      color: { r: 0, g: 0, b: 0 },
      font: BUNDLED_FONT,
      renderedFont: BUNDLED_FONT,
    });
    expect(r).toMatchObject({
      layer: { name: '春夏新品', type: 'text' },
      text: {
        content: '春夏新品\n第二行',
        color: '#000000',
        size: 48,
        rendered_font: BUNDLED_FONT,
        lines: 2,
      },
    });
    expect(r.font_fallback).toBeUndefined();
    // The raster is the rendering of the spec.
    expect(same(t.raster, renderText(t.text))).toBe(true);
  });

  it('puts the ink at x, y (top-left of the text box, within 0.08 em + 1 px), two lines tall, in black by default', async () => {
    const s = await doc();
    const size = 40;
    await ok(s, 'create_text_layer', { text: '你好\n你好', x: 100, y: 50, font_size: size });
    const t = text(s, '你好');
    const tol = 0.08 * size + 1;
    expect(t.raster.x - 100).toBeGreaterThanOrEqual(-1);
    expect(t.raster.x - 100).toBeLessThanOrEqual(tol);
    expect(t.raster.y - 50).toBeGreaterThanOrEqual(-1);
    expect(t.raster.y - 50).toBeLessThanOrEqual(tol);
    // Two lines: the ink reaches the second line's em box, 1.2 em below the first.
    expect(t.raster.y + t.raster.h).toBeGreaterThan(50 + (LINE_HEIGHT_EM + 0.8) * size);
    expect(t.raster.y + t.raster.h).toBeLessThanOrEqual(50 + (LINE_HEIGHT_EM + 1) * size + 2);
    // The composite shows black ink there and nothing elsewhere.
    const ink = compositeInk(s, { x: 100, y: 50, w: 2 * size, h: Math.round(2.2 * size) });
    expect(ink.n).toBeGreaterThan(0.15 * 2 * size * 2 * size);
    for (const c of ink.mean) expect(c).toBeLessThan(60);
    expect(compositeInk(s, { x: 0, y: 0, w: 95, h: 200 }).n).toBe(0);
    expect(compositeInk(s, { x: 0, y: 0, w: 400, h: 48 }).n).toBe(0);
  });

  it('draws in the given colour (hex in any accepted form)', async () => {
    const s = await doc();
    const r = await ok(s, 'create_text_layer', { text: '红', x: 10, y: 10, font_size: 60, color: 'C81E28' });
    expect(r.text).toMatchObject({ color: '#c81e28' });
    const t = text(s, '红');
    for (let i = 0; i < t.raster.data.length; i += 4) {
      if (t.raster.data[i + 3]! > 0) expect([...t.raster.data.subarray(i, i + 3)]).toEqual([200, 30, 40]);
    }
    // Fully covered pixels show the exact colour in the composite.
    const img = renderDocument(current(s), t.raster);
    let exact = 0;
    for (let i = 0; i < img.data.length; i += 4) {
      if (t.raster.data[i + 3] === 255) {
        expect([img.data[i], img.data[i + 1], img.data[i + 2]]).toEqual([200, 30, 40]);
        exact++;
      }
    }
    expect(exact).toBeGreaterThan(100);
  });

  it('an unknown font falls back to the bundled font and the result says which font was used', async () => {
    const s = await doc();
    const r = await ok(s, 'create_text_layer', {
      text: '字体 Font',
      x: 0,
      y: 0,
      font_size: 30,
      font_name: 'Definitely Missing Font',
    });
    expect(r).toMatchObject({
      font_fallback: true,
      text: { font: 'Definitely Missing Font', rendered_font: BUNDLED_FONT },
    });
    expect(String(r.font_note)).toContain(BUNDLED_FONT);
    expect(r.available_fonts).toContain(BUNDLED_FONT);
    const t = text(s, '字体 Font');
    expect(t.text.renderedFont).toBe(BUNDLED_FONT);
    expect(same(t.raster, renderText({ ...t.text, font: BUNDLED_FONT }))).toBe(true);
  });

  it('refuses an empty text, bad sizes and a missing document, changing nothing', async () => {
    const s = await doc();
    await refused(s, 'create_text_layer', { text: '', x: 0, y: 0, font_size: 20 }, 'invalid_arguments');
    await refused(s, 'create_text_layer', { text: 'a', x: 0, y: 0, font_size: 0 }, 'invalid_arguments');
    await refused(s, 'create_text_layer', { text: 'a', x: 0, y: 0, font_size: 5001 }, 'invalid_arguments');
    await refused(
      s,
      'create_text_layer',
      { text: 'a', x: 0, y: 0, font_size: 20, color: 'red' },
      'invalid_arguments',
    );
    await refused(s, 'create_text_layer', { text: 'a', x: 0, y: 0 }, 'invalid_arguments');
    // A rendering too large to hold.
    await refused(
      s,
      'create_text_layer',
      { text: '很长的标题'.repeat(40), x: 0, y: 0, font_size: 5000 },
      'out_of_bounds',
    );
    const empty = newSession();
    await refused(empty, 'create_text_layer', { text: 'a', x: 0, y: 0, font_size: 20 }, 'no_document');
  });

  it('refuses a text box further out than a file can record its position, changing nothing', async () => {
    const s = await doc();
    const e = await refused(
      s,
      'create_text_layer',
      { text: '远', x: -1e308, y: 0, font_size: 3 },
      'out_of_bounds',
    );
    expect(e.details).toEqual([{ parameter: 'x', value: -1e308 }]);
    // Starting inside the limit but reaching past it.
    await refused(
      s,
      'create_text_layer',
      { text: '很长的一行字', x: 2 ** 31 - 10, y: 0, font_size: 20 },
      'out_of_bounds',
    );
    // At the edge of the canvas's neighbourhood it is fine, and saves.
    await ok(s, 'create_text_layer', { text: '远', x: -1e6, y: 1e6, font_size: 20 });
    await ok(s, 'save_document_as', { path: 'far.psd' });
  });

  it('refuses to grow a text layer past where a file can record it, changing nothing', async () => {
    const s = await doc();
    await ok(s, 'create_text_layer', { text: '边', x: 2 ** 31 - 300, y: 0, font_size: 20 });
    const e = await refused(s, 'set_text_size', { name: '边', size: 5000 }, 'out_of_bounds');
    expect(e.message).toContain('“边”的文字');
    await ok(s, 'set_text_size', { name: '边', size: 40 });
  });

  it('a blank text makes a layer with no pixels and says so', async () => {
    const s = await doc();
    const r = await ok(s, 'create_text_layer', { text: '   ', x: 5, y: 5, font_size: 20 });
    expect(r.note).toBeDefined();
    expect(text(s, '文字图层').raster.w).toBe(0);
  });
});

describe('set_text_content / set_text_color / set_text_size', () => {
  async function withTitle() {
    const s = await doc();
    await ok(s, 'create_text_layer', { text: '标题', x: 20, y: 20, font_size: 40, color: '#102030' });
    return s;
  }

  it('set_text_content re-renders, keeps the layer text, renames an auto-named layer; undo restores it', async () => {
    const s = await withTitle();
    const before = text(s, '标题');
    const r = await ok(s, 'set_text_content', { name: '标题', text: '新标题文字' });
    expect(r).toMatchObject({ old_text: '标题', renamed: { from: '标题', to: '新标题文字' } });
    const after = text(s, '新标题文字');
    expect(after.id).toBe(before.id);
    expect(after.kind).toBe('text');
    expect(after.text).toEqual({ ...before.text, content: '新标题文字' });
    expect(same(after.raster, renderText(after.text))).toBe(true);
    expect(after.raster.w).toBeGreaterThan(before.raster.w * 2);
    expect(labels(s).at(-1)).toBe('修改文字');

    await ok(s, 'undo');
    const back = text(s, '标题');
    expect(back).toBe(before);
    expect(back.text.content).toBe('标题');
  });

  it('set_text_content keeps a name the user gave', async () => {
    const s = await withTitle();
    await ok(s, 'rename_layer', { new_name: '主标题' });
    const r = await ok(s, 'set_text_content', { name: '主标题', text: '换了' });
    expect(r.renamed).toBeUndefined();
    expect(text(s, '主标题').text.content).toBe('换了');
  });

  it('set_text_color changes only the colour: same coverage, new RGB', async () => {
    const s = await withTitle();
    const before = text(s, '标题');
    const r = await ok(s, 'set_text_color', { name: '标题', color: '#FF8800' });
    expect(r).toMatchObject({ old_color: '#102030', text: { color: '#ff8800' } });
    const after = text(s, '标题');
    expect(after.kind).toBe('text');
    expect([after.raster.x, after.raster.y, after.raster.w, after.raster.h]).toEqual([
      before.raster.x,
      before.raster.y,
      before.raster.w,
      before.raster.h,
    ]);
    let inked = 0;
    for (let i = 0; i < after.raster.data.length; i += 4) {
      expect(after.raster.data[i + 3]).toBe(before.raster.data[i + 3]);
      if (after.raster.data[i + 3]! > 0) {
        inked++;
        expect([...after.raster.data.subarray(i, i + 3)]).toEqual([255, 136, 0]);
      }
    }
    expect(inked).toBeGreaterThan(100);
  });

  it('set_text_size scales point text about its anchor (where its first baseline starts), as Photoshop', async () => {
    const s = await withTitle();
    const before = text(s, '标题');
    const r = await ok(s, 'set_text_size', { name: '标题', size: 80 });
    // The anchor (20, 20 + 0.88 × 40) stays: the top of the text box moves up by 0.88 × 40.
    expect(r).toMatchObject({
      old_size: 40,
      text: { size: 80, x: 20, y: expect.closeTo(20 - 0.88 * 40, 6) },
    });
    expect(String(r.note)).toContain('锚点');
    const after = text(s, '标题');
    expect(after.kind).toBe('text');
    expect(textAnchorOf(after.text)).toEqual([20, expect.closeTo(20 + 0.88 * 40, 6)]);
    expect(Math.abs(after.raster.w - 2 * before.raster.w)).toBeLessThanOrEqual(3);
    expect(Math.abs(after.raster.h - 2 * before.raster.h)).toBeLessThanOrEqual(3);
    // The ink's offset from the anchor scales too (±2 px).
    const [ax, ay] = textAnchorOf(before.text);
    expect(Math.abs(after.raster.x - ax - 2 * (before.raster.x - ax))).toBeLessThanOrEqual(2);
    expect(Math.abs(after.raster.y - ay - 2 * (before.raster.y - ay))).toBeLessThanOrEqual(2);
  });

  it('setting the same value changes nothing and adds no step', async () => {
    const s = await withTitle();
    const steps = labels(s).length;
    const before = text(s, '标题');
    for (const [tool, args] of [
      ['set_text_content', { text: '标题' }],
      ['set_text_color', { color: '#102030' }],
      ['set_text_size', { size: 40 }],
    ] as const) {
      const r = await ok(s, tool, { name: '标题', ...args });
      expect(r.changed).toBe(false);
    }
    expect(labels(s).length).toBe(steps);
    expect(text(s, '标题')).toBe(before);
  });

  it('refuses non-text layers with invalid_state and a hint, locked layers with locked, unknown names with not_found', async () => {
    const s = await withTitle();
    edit(s, (st) => addPixel(st, '像素', solid({ x: 0, y: 0, w: 10, h: 10 }, [1, 2, 3, 255])));
    edit(s, (st) => addGroup(st, '组'));
    for (const [tool, args] of [
      ['set_text_content', { text: 'x' }],
      ['set_text_color', { color: '#ff0000' }],
      ['set_text_size', { size: 12 }],
    ] as const) {
      const e = await refused(s, tool, { name: '像素', ...args }, 'invalid_state');
      expect(e.message).toContain('不是文字图层');
      expect(e.hint).toContain('像素图层');
      expect(e.hint).toContain('create_text_layer');
      await refused(s, tool, { name: '背景', ...args }, 'invalid_state');
      await refused(s, tool, { name: '组', ...args }, 'invalid_state');
      await refused(s, tool, { name: '没有这个', ...args }, 'not_found');
    }
    await refused(s, 'set_text_content', { name: '标题', text: '' }, 'invalid_arguments');
    await refused(s, 'set_text_size', { name: '标题', size: -3 }, 'invalid_arguments');
    await ok(s, 'lock_layer', { name: '标题', locked: true });
    for (const [tool, args] of [
      ['set_text_content', { text: 'x' }],
      ['set_text_color', { color: '#ff0000' }],
      ['set_text_size', { size: 12 }],
    ] as const) {
      const e = await refused(s, tool, { name: '标题', ...args }, 'locked');
      expect(e.hint).toContain('lock_layer');
    }
  });

  it('a rasterized text layer is a pixel layer: set_* refuse it and point at rasterize_layer', async () => {
    const s = await withTitle();
    await ok(s, 'rasterize_layer', { name: '标题' });
    const e = await refused(s, 'set_text_color', { name: '标题', color: '#00ff00' }, 'invalid_state');
    expect(e.hint).toContain('rasterize_layer');
  });

  it('a text layer inside a locked group is locked', async () => {
    const s = await withTitle();
    await ok(s, 'group_layers', { layer_names: ['标题'], group_name: '文字组' });
    await ok(s, 'lock_layer', { name: '文字组', locked: true });
    await refused(s, 'set_text_size', { name: '标题', size: 10 }, 'locked');
  });
});

describe('text under transforms and image size', () => {
  it('resize_layer scales size and position about the centre and re-renders (still text)', async () => {
    const s = await doc();
    await ok(s, 'create_text_layer', { text: '缩放', x: 100, y: 50, font_size: 40 });
    const before = text(s, '缩放');
    const cx = before.raster.x + before.raster.w / 2;
    const cy = before.raster.y + before.raster.h / 2;
    await ok(s, 'resize_layer', { name: '缩放', scale_x: 200 });
    const after = text(s, '缩放');
    expect(after.kind).toBe('text');
    expect(after.text.size).toBe(80);
    expect(after.text.x).toBeCloseTo(cx + (100 - cx) * 2, 6);
    expect(after.text.y).toBeCloseTo(cy + (50 - cy) * 2, 6);
    expect(same(after.raster, renderText(after.text))).toBe(true);
    // The ink stays centred where it was (±2 px) and doubles (±3 px).
    expect(Math.abs(after.raster.x + after.raster.w / 2 - cx)).toBeLessThanOrEqual(2);
    expect(Math.abs(after.raster.y + after.raster.h / 2 - cy)).toBeLessThanOrEqual(2);
    expect(Math.abs(after.raster.w - 2 * before.raster.w)).toBeLessThanOrEqual(3);
  });

  it('text in a resized group is re-rendered too', async () => {
    const s = await doc();
    await ok(s, 'create_text_layer', { text: '组内', x: 10, y: 10, font_size: 20 });
    await ok(s, 'group_layers', { layer_names: ['组内'], group_name: 'G' });
    await ok(s, 'resize_layer', { name: 'G', scale_x: 50 });
    const t = text(s, '组内');
    expect(t.text.size).toBe(10);
    expect(same(t.raster, renderText(t.text))).toBe(true);
  });

  it('rotate_layer turns text about the layer centre and keeps it editable (as the rotated pixels, ±AA)', async () => {
    const s = await doc(300, 200);
    await ok(s, 'create_text_layer', { text: '旋转文字', x: 60, y: 70, font_size: 40 });
    const upright = text(s, '旋转文字');
    const centre = { x: upright.raster.x + upright.raster.w / 2, y: upright.raster.y + upright.raster.h / 2 };
    const r = await ok(s, 'rotate_layer', { name: '旋转文字', angle: 30 });
    const t = text(s, '旋转文字');
    expect(t.kind).toBe('text');
    const c = Math.cos(Math.PI / 6);
    expect(t.text.transform!.map((v) => Number(v.toFixed(6)))).toEqual([
      Number(c.toFixed(6)),
      0.5,
      -0.5,
      Number(c.toFixed(6)),
    ]);
    expect((r.layer as { kind?: string }).kind ?? 'text').toBe('text');
    expect(same(t.raster, renderText(t.text))).toBe(true);
    // Against the upright rendering's pixels rotated by the engine (bicubic resampling): same place and shape.
    // Measured 0.84 (resampling softens thin strokes); 3° off gives 0.41, 2 px off 0.58, the wrong way 0.04.
    const reference = await rotateRaster(upright.raster, 30, centre);
    expect(overlap(t.raster, reference)).toBeGreaterThan(0.75);
    const [cx, cy] = centroid(t.raster);
    const [rx, ry] = centroid(reference);
    expect(Math.hypot(cx - rx, cy - ry)).toBeLessThan(1);

    // Editing keeps the rotation; so does the report.
    const edited = await ok(s, 'set_text_content', { name: '旋转文字', text: '新文字' });
    expect(edited.text).toMatchObject({ content: '新文字', rotation: 30 });
    const n = text(s, '新文字');
    expect(n.text.transform).toEqual(t.text.transform);
    expect(same(n.raster, renderText(n.text))).toBe(true);
    // A new size scales the text about its anchor, the (turned) first baseline's start, which stays put.
    await ok(s, 'set_text_size', { name: '新文字', size: 60 });
    const big = text(s, '新文字');
    expect(big.text.size).toBe(60);
    expect(big.text.transform).toEqual(n.text.transform);
    textAnchorOf(big.text).forEach((v, i) => {
      expect(v).toBeCloseTo(textAnchorOf(n.text)[i]!, 3);
    });
    // Turning it back makes it upright again: no transform left.
    await ok(s, 'rotate_layer', { name: '新文字', angle: -30 });
    expect(text(s, '新文字').text.transform).toBeUndefined();
  });

  it('flip_layer mirrors text and resize_layer stretches it, both editable', async () => {
    const s = await doc(300, 200);
    await ok(s, 'create_text_layer', { text: '镜像', x: 50, y: 50, font_size: 48 });
    const upright = text(s, '镜像');
    const centre = { x: upright.raster.x + upright.raster.w / 2, y: upright.raster.y + upright.raster.h / 2 };
    await ok(s, 'flip_layer', { name: '镜像', direction: 'horizontal' });
    const flipped = text(s, '镜像');
    expect(flipped.text.transform).toEqual([-1, 0, 0, 1]);
    expect(overlap(flipped.raster, flipRaster(upright.raster, 'horizontal', centre))).toBeGreaterThan(0.9);
    await ok(s, 'flip_layer', { name: '镜像', direction: 'horizontal' });
    expect(text(s, '镜像').text.transform).toBeUndefined();

    await ok(s, 'resize_layer', { name: '镜像', scale_x: 200, scale_y: 100 });
    const wide = text(s, '镜像');
    expect(wide.kind).toBe('text');
    expect(wide.text.transform).toEqual([2, 0, 0, 1]);
    expect(wide.text.size).toBe(48);
    expect(Math.abs(wide.raster.w - 2 * upright.raster.w)).toBeLessThanOrEqual(3);
    expect(Math.abs(wide.raster.h - upright.raster.h)).toBeLessThanOrEqual(2);
    // Stretched about the centre: the centre stays put.
    expect(Math.abs(wide.raster.x + wide.raster.w / 2 - centre.x)).toBeLessThanOrEqual(1.5);
  });

  it('resize_image re-renders text at the scaled size and position; a stretch goes into its transform', async () => {
    const s = await doc(400, 200);
    await ok(s, 'create_text_layer', { text: '图像大小', x: 40, y: 20, font_size: 30 });
    await ok(s, 'resize_image', { width: 200, height: 100 });
    const t = text(s, '图像大小');
    expect(t.text).toMatchObject({ x: 20, y: 10, size: 15 });
    expect(same(t.raster, renderText(t.text))).toBe(true);

    await ok(s, 'resize_image', { width: 400, height: 100 });
    const u = text(s, '图像大小');
    expect(u.kind).toBe('text');
    expect(u.text).toMatchObject({ x: 40, size: 15, transform: [2, 0, 0, 1] });
    // Re-rendered stretched (sharp glyphs, what a later edit draws): twice as wide as upright text.
    expect(same(u.raster, renderText(u.text))).toBe(true);
    const { transform: _t, ...uprightSpec } = u.text;
    expect(u.raster.w / renderText(uprightSpec).w).toBeGreaterThan(1.9);
  });

  it('move_layer moves the text box with its pixels', async () => {
    const s = await doc();
    await ok(s, 'create_text_layer', { text: '移动', x: 10, y: 10, font_size: 20 });
    const before = text(s, '移动');
    await ok(s, 'move_layer', { name: '移动', dx: 30, dy: -5 });
    const after = text(s, '移动');
    expect([after.text.x, after.text.y]).toEqual([40, 5]);
    expect(same(after.raster, renderText(after.text))).toBe(true);
    expect(after.raster.x).toBe(before.raster.x + 30);
  });
});

describe('PSD', () => {
  it.runIf(psdToolsAvailable())(
    'saves real text layers psd-tools reads back with their text, plus the rendered pixels; reopening keeps them editable in place',
    async () => {
      const s = await doc(300, 160);
      await ok(s, 'create_text_layer', { text: '你好，世界', x: 20, y: 10, font_size: 36, color: '#c81e28' });
      await ok(s, 'create_text_layer', { text: '第一行\n第二行 Hello', x: 20, y: 70, font_size: 24 });
      await ok(s, 'save_document_as', { path: 'out/text.psd' });
      const bytes = await readFile(path.join(s.workspace.root, 'out/text.psd'));
      const { dump, composite } = await readWithPsdTools(bytes, { composite: true });
      const layers = flattenPsdTools(dump.layers);
      const hello = layers.find((l) => l.name === '你好，世界')!;
      const lines = layers.find((l) => l.name === '第一行')!;
      expect(hello.kind).toBe('type');
      expect(hello.text?.replace(/\r/g, '\n')).toBe('你好，世界');
      expect(lines.kind).toBe('type');
      expect(lines.text?.replace(/\r/g, '\n')).toBe('第一行\n第二行 Hello');
      // The stored pixels are ours: the layer box is the rendered ink box.
      const t = text(s, '你好，世界');
      expect(hello.bbox).toEqual([t.raster.x, t.raster.y, t.raster.x + t.raster.w, t.raster.y + t.raster.h]);
      // psd-tools' own composite of the layers shows the red text where we drew it.
      const img = composite!;
      let red = 0;
      for (let y = t.raster.y; y < t.raster.y + t.raster.h; y++) {
        for (let x = t.raster.x; x < t.raster.x + t.raster.w; x++) {
          const i = (y * img.width + x) * 4;
          if (img.data[i]! > 150 && img.data[i + 1]! < 100 && img.data[i + 2]! < 100) red++;
        }
      }
      expect(red).toBeGreaterThan(0.15 * t.raster.w * t.raster.h);

      // Reopen: the same specs, and re-rendering (set_text_color) lands on the same pixels' place.
      await ok(s, 'close_document');
      await ok(s, 'open_document', { path: 'out/text.psd' });
      const back = text(s, '你好，世界');
      expect(back.text).toMatchObject({ content: '你好，世界', x: 20, y: 10, size: 36 });
      expect(back.text.color).toEqual({ r: 200, g: 30, b: 40 });
      await ok(s, 'set_text_color', { name: '你好，世界', color: '#c81e28' });
      await ok(s, 'set_text_color', { name: '你好，世界', color: '#000000' });
      const rerendered = text(s, '你好，世界');
      expect(rerendered.text.renderedFont).toBe(BUNDLED_FONT);
      expect([rerendered.raster.x, rerendered.raster.y, rerendered.raster.w, rerendered.raster.h]).toEqual([
        t.raster.x,
        t.raster.y,
        t.raster.w,
        t.raster.h,
      ]);
      expect(text(s, '第一行').text.content).toBe('第一行\n第二行 Hello');
    },
  );
});

describe('transformed text in PSD', () => {
  it.runIf(psdToolsAvailable())(
    'psd-tools reads the rotation as the text transform about the first baseline; reopening keeps it editable',
    async () => {
      const s = await doc(300, 200);
      await ok(s, 'create_text_layer', { text: '斜排标题', x: 60, y: 80, font_size: 36, color: '#204060' });
      await ok(s, 'rotate_layer', { name: '斜排标题', angle: -20 });
      const t = text(s, '斜排标题');
      await ok(s, 'save_document_as', { path: 'rotated.psd' });
      const { dump } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'rotated.psd')));
      const stored = flattenPsdTools(dump.layers).find((l) => l.name === '斜排标题')!;
      expect(stored.kind).toBe('type');
      const r = (-20 * Math.PI) / 180;
      const want = [Math.cos(r), Math.sin(r), -Math.sin(r), Math.cos(r), t.text.x, t.text.y + 0.88 * 36];
      stored.transform!.forEach((v, i) => {
        expect(v).toBeCloseTo(want[i]!, 4);
      });
      await ok(s, 'close_document');
      await ok(s, 'open_document', { path: 'rotated.psd' });
      const back = text(s, '斜排标题');
      expect(back.kind).toBe('text');
      expect(back.text.size).toBeCloseTo(36, 5);
      back.text.transform!.forEach((v, i) => {
        expect(v).toBeCloseTo(t.text.transform![i]!, 5);
      });
      // The same spec renders the same pixels (the file's own pixels were ours too).
      expect(overlap(back.raster, t.raster)).toBeGreaterThan(0.99);
    },
  );
});

/** The ink box [left, top, right, bottom] of straight RGBA pixels (alpha > 64, so anti-aliasing fringes don't count). */
function inkBox(
  data: Uint8Array | Uint8ClampedArray,
  w: number,
  x0 = 0,
  y0 = 0,
): [number, number, number, number] {
  let l = Infinity;
  let t = Infinity;
  let r = -Infinity;
  let b = -Infinity;
  for (let i = 0; i < data.length / 4; i++) {
    if (data[i * 4 + 3]! <= 64) continue;
    const x = x0 + (i % w);
    const y = y0 + Math.floor(i / w);
    l = Math.min(l, x);
    t = Math.min(t, y);
    r = Math.max(r, x + 1);
    b = Math.max(b, y + 1);
  }
  return [l, t, r, b];
}

/** Each type layer's transform and font sizes (from its engine data's style runs), as psd-tools reads them. */
async function psdToolsTextOf(
  file: string,
): Promise<{ name: string; transform: number[]; sizes: number[] }[]> {
  const script = [
    'import json, sys',
    'from psd_tools import PSDImage',
    'out = []',
    'for l in PSDImage.open(sys.argv[1]).descendants():',
    "    if l.kind == 'type':",
    "        runs = l.engine_dict['StyleRun']['RunArray']",
    "        sizes = [float(r['StyleSheet']['StyleSheetData']['FontSize']) for r in runs]",
    "        out.append({'name': l.name, 'transform': [float(v) for v in l.transform], 'sizes': sizes})",
    'print(json.dumps(out))',
  ].join('\n');
  const { stdout } = await promisify(execFile)(SYSTEM_PYTHON, ['-c', script, file]);
  return JSON.parse(stdout) as { name: string; transform: number[]; sizes: number[] }[];
}

describe('stretched and skewed text from another application', () => {
  it.runIf(psdToolsAvailable() && imageMagickAvailable())(
    "keeps the file's font size and matrix: re-renders on its pixels, saves them back unchanged, resizes by the stated size",
    async () => {
      // Photoshop's convention: 40 px glyphs drawn through [2, 0, -0.4, 1] about the first baseline's start
      // (20, 100) — twice as wide and slanted. The layer's pixels are ImageMagick's (FreeType) rendering of the
      // same font through the same map, standing in for Photoshop's own.
      const [W, H] = [400, 200];
      const m = [2, 0, -0.4, 1] as const;
      const [ax, ay] = [20, 100];
      const tx = ax - (m[0] * ax + m[2] * ay);
      const ty = ay - (m[1] * ax + m[3] * ay);
      const pixels = await convertTo(
        [
          '-size',
          `${W}x${H}`,
          'xc:none',
          '-font',
          bundledFontPath('Regular'),
          '-density',
          '72',
          '-pointsize',
          '40',
          '-fill',
          'black',
          '-annotate',
          `+${ax}+${ay}`,
          'HIH',
          '-virtual-pixel',
          'transparent',
          '-distort',
          'AffineProjection',
          [m[0], m[1], m[2], m[3], tx, ty].join(','),
          '-depth',
          '8',
          'rgba:OUT',
        ],
        'rgba',
      );
      const theirs = inkBox(pixels, W);
      // Sanity: the reference really is stretched (about twice the upright 40 px rendering's width).
      expect(theirs[2] - theirs[0]).toBeGreaterThan(100);
      const s = await doc(10, 10);
      await writeFile(
        path.join(s.workspace.root, 'stretched.psd'),
        writePsdBuffer({
          width: W,
          height: H,
          children: [
            {
              name: '拉伸',
              left: 0,
              top: 0,
              imageData: { width: W, height: H, data: new Uint8ClampedArray(pixels) },
              text: {
                text: 'HIH',
                transform: [...m, ax, ay],
                style: {
                  font: { name: 'NotoSansSC-Regular' },
                  fontSize: 40,
                  fillColor: { r: 0, g: 0, b: 0 },
                },
              },
            },
          ],
        }),
      );
      await ok(s, 'open_document', { path: 'stretched.psd' });
      const opened = text(s, '拉伸');
      expect(opened.text.size).toBe(40);
      expect(opened.text.transform).toEqual([...m]);
      expect(textAnchorOf(opened.text)).toEqual([ax, ay].map((v) => expect.closeTo(v, 4)));

      // Re-rendered (any edit draws it again): the same size and shape as the file's pixels (±2 px per side).
      await ok(s, 'set_text_color', { name: '拉伸', color: '#204060' });
      const ours = text(s, '拉伸').raster;
      const box = inkBox(ours.data, ours.w, ours.x, ours.y);
      box.forEach((v, i) => {
        expect(Math.abs(v - theirs[i]!)).toBeLessThanOrEqual(2);
      });

      // Saved again: psd-tools reads the same matrix (anchored at the same point) and the same font size.
      await ok(s, 'save_document_as', { path: 'again.psd' });
      const [stored] = await psdToolsTextOf(path.join(s.workspace.root, 'again.psd'));
      stored!.transform.forEach((v, i) => {
        expect(v).toBeCloseTo([...m, ax, ay][i]!, 4);
      });
      expect(stored!.sizes).toEqual([40]);

      // Half the size is half the text, the stretch and slant kept: both sides of the ink box halve (±2 px).
      await ok(s, 'set_text_size', { name: '拉伸', size: 20 });
      const half = text(s, '拉伸');
      expect(half.text.transform).toEqual([...m]);
      const hb = inkBox(half.raster.data, half.raster.w, half.raster.x, half.raster.y);
      expect(Math.abs(hb[2] - hb[0] - (theirs[2] - theirs[0]) / 2)).toBeLessThanOrEqual(2);
      expect(Math.abs(hb[3] - hb[1] - (theirs[3] - theirs[1]) / 2)).toBeLessThanOrEqual(2);
    },
  );
});

describe('font weights', () => {
  it.runIf(psdToolsAvailable())(
    'a bold title falls back to the bundled Bold; bundled weights are saved by PostScript name; reopened in Bold',
    async () => {
      const s = await doc(400, 120);
      const r = await ok(s, 'create_text_layer', {
        text: '春季上新',
        x: 10,
        y: 10,
        font_size: 60,
        font_name: 'Microsoft YaHei Bold',
      });
      expect(r).toMatchObject({ font_fallback: true, text: { rendered_font: 'Noto Sans SC Bold' } });
      expect(String(r.font_note)).toContain('Noto Sans SC Bold');
      await ok(s, 'create_text_layer', {
        text: '正文',
        x: 10,
        y: 80,
        font_size: 20,
        font_name: '思源黑体 Light',
      });
      expect(text(s, '正文').text.renderedFont).toBe('Noto Sans SC Light');
      await ok(s, 'save_document_as', { path: 'weights.psd' });
      const { dump } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'weights.psd')));
      const layers = flattenPsdTools(dump.layers);
      // The font asked for is kept (Photoshop uses it where it is installed), by PostScript name as Photoshop
      // looks fonts up; the bundled one by its file's PostScript name.
      expect(layers.find((l) => l.name === '春季上新')!.fonts).toContain('MicrosoftYaHei-Bold');
      expect(layers.find((l) => l.name === '正文')!.fonts).toContain('NotoSansHans-Light');
      await ok(s, 'close_document');
      await ok(s, 'open_document', { path: 'weights.psd' });
      await ok(s, 'set_text_content', { name: '春季上新', text: '夏季上新' });
      const back = text(s, '夏季上新');
      expect(back.text).toMatchObject({ content: '夏季上新', renderedFont: 'Noto Sans SC Bold' });
    },
  );
});

describe('set_text_font', () => {
  /** Ink of a rendering: the sum of its alpha, in pixels. */
  const ink = (r: Raster) => {
    let sum = 0;
    for (let i = 3; i < r.data.length; i += 4) sum += r.data[i]! / 255;
    return sum;
  };

  it.runIf(psdToolsAvailable())(
    'sets a text layer in another weight: the same words, size, colour and box corner, heavier ink; one undoable step; psd-tools reads the font',
    async () => {
      const s = await doc(400, 120);
      await ok(s, 'create_text_layer', { text: '春季上新', x: 10, y: 10, font_size: 60, color: '#c81e28' });
      const before = text(s, '春季上新');
      const steps = labels(s).length;
      const r = await ok(s, 'set_text_font', { name: '春季上新', font_name: 'Noto Sans SC Bold' });
      expect(r).toMatchObject({
        old_font: BUNDLED_FONT,
        text: { rendered_font: 'Noto Sans SC Bold', size: 60, x: 10, y: 10, color: '#c81e28' },
      });
      expect(r.font_fallback).toBeUndefined();
      const after = text(s, '春季上新');
      expect(after.id).toBe(before.id);
      expect(after.text).toEqual({
        ...before.text,
        font: 'Noto Sans SC Bold',
        renderedFont: 'Noto Sans SC Bold',
      });
      expect(same(after.raster, renderText(after.text))).toBe(true);
      // Bold strokes: measurably more ink than Regular for the same words at the same size.
      expect(ink(after.raster)).toBeGreaterThan(1.2 * ink(before.raster));
      expect(labels(s).slice(steps)).toEqual(['修改字体']);

      await ok(s, 'save_document_as', { path: 'bold.psd' });
      const { dump } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'bold.psd')));
      expect(flattenPsdTools(dump.layers).find((l) => l.name === '春季上新')!.fonts).toContain(
        'NotoSansHans-Bold',
      );

      await ok(s, 'undo');
      expect(text(s, '春季上新')).toBe(before);
    },
  );

  it('keeps a font the machine lacks by name, drawn in the bundled weight its name asks for, and says so', async () => {
    const s = await doc(400, 120);
    await ok(s, 'create_text_layer', { text: '正文', x: 10, y: 10, font_size: 30 });
    const r = await ok(s, 'set_text_font', { name: '正文', font_name: 'Microsoft YaHei Bold' });
    expect(r).toMatchObject({ font_fallback: true, text: { rendered_font: 'Noto Sans SC Bold' } });
    expect(String(r.font_note)).toContain('Microsoft YaHei Bold');
    expect(text(s, '正文').text).toMatchObject({
      font: 'Microsoft YaHei Bold',
      renderedFont: 'Noto Sans SC Bold',
    });
  });

  it('the same font changes nothing; an empty name, a pixel layer and a locked text are refused, changing nothing', async () => {
    const s = await doc(400, 120);
    await ok(s, 'create_text_layer', {
      text: '标题',
      x: 10,
      y: 10,
      font_size: 30,
      font_name: 'Noto Sans SC Medium',
    });
    edit(s, (st) => addPixel(st, '像素', solid({ x: 0, y: 0, w: 10, h: 10 }, [1, 2, 3, 255])));
    const steps = labels(s).length;
    const unchanged = await ok(s, 'set_text_font', { name: '标题', font_name: 'Noto Sans SC Medium' });
    expect(unchanged.changed).toBe(false);
    const before = text(s, '标题');
    await refused(s, 'set_text_font', { name: '标题', font_name: '  ' }, 'invalid_arguments');
    await refused(s, 'set_text_font', { name: '像素', font_name: 'Noto Sans SC Bold' }, 'invalid_state');
    await ok(s, 'lock_layer', { name: '标题', locked: true });
    const lockedSteps = labels(s).length;
    await refused(s, 'set_text_font', { name: '标题', font_name: 'Noto Sans SC Bold' }, 'locked');
    expect(text(s, '标题').text).toEqual(before.text);
    expect(labels(s).length).toBe(lockedSteps);
    expect(lockedSteps).toBe(steps + 1);
  });
});

describe('CMYK documents', () => {
  it('text colours are clipped to the printable gamut like every new colour in a CMYK document', async () => {
    const s = await doc();
    await ok(s, 'convert_to_cmyk');
    const green = await documentColor(current(s), { r: 0, g: 255, b: 0 });
    // The profile cannot print pure green: the held colour differs from the request.
    expect(green).not.toEqual({ r: 0, g: 255, b: 0 });
    const r = await ok(s, 'create_text_layer', { text: '绿', x: 0, y: 0, font_size: 40, color: '#00ff00' });
    expect(r.text).toMatchObject({ color: rgbToHex(green) });
    expect(String(r.color_note)).toContain('CMYK');
    const t = text(s, '绿');
    expect(t.text.color).toEqual(green);
    const i = t.raster.data.findIndex((_, k) => k % 4 === 3 && t.raster.data[k] === 255) - 3;
    expect([...t.raster.data.subarray(i, i + 3)]).toEqual([green.r, green.g, green.b]);
    // Asking again for the same colour changes nothing.
    const again = await ok(s, 'set_text_color', { name: '绿', color: '#00ff00' });
    expect(again.changed).toBe(false);
  });
});

describe('ids', () => {
  it('text layers get fresh ids and the previous state is untouched', async () => {
    const s = await doc();
    const before = current(s);
    await ok(s, 'create_text_layer', { text: 'A', x: 0, y: 0, font_size: 10 });
    expect(before.layers.size).toBe(1);
    expect(idOf(current(s), 'A')).toBe(before.nextId);
  });
});
