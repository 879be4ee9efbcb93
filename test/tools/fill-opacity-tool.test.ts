/**
 * set_layer_fill_opacity, Photoshop's 填充 slider as a tool: the layer's own pixels fade, its stroke keeps its
 * strength (an outline-only shape at fill 0), the value is saved in the PSD as Photoshop stores it (psd-tools'
 * composite shows the shape's inside as the background), undo brings it back, and a group, the background or an
 * out-of-range value is refused with nothing changed.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { Raster } from '../../src/engine/model.js';
import { readWithPsdTools } from '../support/psd-tools.js';
import { newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, solid } from './layer-fixtures.js';

const SQUARE = { x: 10, y: 10, w: 20, h: 20 };

function at(r: Raster, x: number, y: number): number[] {
  const i = ((y - r.y) * r.w + (x - r.x)) * 4;
  return [...r.data.subarray(i, i + 4)];
}

async function shapeWithStroke() {
  const session = newSession();
  await ok(session, 'create_document', { width: 40, height: 40 });
  edit(session, (s) => addPixel(s, '形状', solid(SQUARE, [255, 0, 0, 255])));
  await ok(session, 'add_stroke', { name: '形状', size: 3, color: '#0000ff', position: 'outside' });
  return session;
}

describe('set_layer_fill_opacity', () => {
  it('fades the layer’s own pixels and keeps its stroke, as Photoshop’s Fill does', async () => {
    const session = await shapeWithStroke();
    const r = await ok(session, 'set_layer_fill_opacity', { name: '形状', fill_opacity: 0 });
    expect(r).toMatchObject({
      old_fill_opacity: 100,
      layer: { name: '形状', opacity: 100, fill_opacity: 0 },
    });
    const img = renderDocument(current(session));
    expect(at(img, 20, 20)).toEqual([255, 255, 255, 255]); // the inside: the background shows
    expect(at(img, 8, 20)).toEqual([0, 0, 255, 255]); // the stroke, outside the shape: unchanged

    // Half fill: the inside halfway between red and white, the stroke still full blue.
    await ok(session, 'set_layer_fill_opacity', { name: '形状', fill_opacity: 50 });
    const half = renderDocument(current(session));
    const [r2, g2, b2] = at(half, 20, 20);
    expect(r2).toBe(255);
    expect(Math.abs(g2! - 128)).toBeLessThanOrEqual(1);
    expect(Math.abs(b2! - 128)).toBeLessThanOrEqual(1);
    expect(at(half, 8, 20)).toEqual([0, 0, 255, 255]);

    // Opacity, by contrast, fades the stroke too.
    await ok(session, 'set_layer_opacity', { name: '形状', opacity: 0 });
    expect(at(renderDocument(current(session)), 8, 20)).toEqual([255, 255, 255, 255]);
  });

  it('is saved in the PSD as Photoshop stores it and read back', async () => {
    const session = await shapeWithStroke();
    await ok(session, 'set_layer_fill_opacity', { name: '形状', fill_opacity: 0 });
    await ok(session, 'save_document_as', { path: 'outline.psd' });
    const file = await readFile(path.join(session.workspace.root, 'outline.psd'));
    // psd-tools composites the file itself: the inside of a fill-0 shape is the white background.
    const { composite } = await readWithPsdTools(file, { composite: true });
    const i = (20 * 40 + 20) * 4;
    expect([...composite!.data.subarray(i, i + 3)]).toEqual([255, 255, 255]);

    await ok(session, 'open_document', { path: 'outline.psd' });
    await ok(session, 'select_layers', { names: ['形状'] });
    const info = await ok(session, 'get_active_layer_info');
    expect(JSON.stringify(info)).toMatch(/"fill_opacity":0\b/);

    const again = await ok(session, 'set_layer_fill_opacity', { name: '形状', fill_opacity: 0 });
    expect(again).toMatchObject({ changed: false, old_fill_opacity: 0 });
  });

  it('undo restores the fill', async () => {
    const session = await shapeWithStroke();
    await ok(session, 'set_layer_fill_opacity', { name: '形状', fill_opacity: 30 });
    await ok(session, 'undo');
    expect(
      current(session).layers.get([...current(session).layers.values()].find((l) => l.name === '形状')!.id),
    ).not.toHaveProperty('fillOpacity');
    expect(at(renderDocument(current(session)), 20, 20)).toEqual([255, 0, 0, 255]);
  });

  it('refuses a group, the background and an out-of-range value, changing nothing', async () => {
    const session = await shapeWithStroke();
    edit(session, (s) => addGroup(s, '组'));
    const group = await refused(
      session,
      'set_layer_fill_opacity',
      { name: '组', fill_opacity: 0 },
      'invalid_state',
    );
    expect(group.message).toContain('图层组没有填充不透明度');
    expect(group.hint).toContain('set_layer_opacity');
    await refused(session, 'set_layer_fill_opacity', { name: '背景', fill_opacity: 0 }, 'invalid_state');
    await refused(
      session,
      'set_layer_fill_opacity',
      { name: '形状', fill_opacity: 150 },
      'invalid_arguments',
    );
    await refused(session, 'set_layer_fill_opacity', { name: '形状', fill_opacity: -1 }, 'invalid_arguments');
  });
});
