/**
 * Group D document operations (and redo), driven through the real Session like a model would: canvas size,
 * crop, trim, image size, history, documents and copying layers between them.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { pixelLayer } from '../../src/engine/factory.js';
import type { DocState, Layer, PixelLayer, Raster, TextLayer } from '../../src/engine/model.js';
import { renderText } from '../../src/engine/text.js';
import { layersNamed } from '../../src/engine/tree.js';
import { psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { call, newSession, ok } from '../support/session.js';

type Pixel = [number, number, number, number];

/** Writes a PNG into the session's workspace; `at(x, y)` gives each pixel. */
async function writePng(s: Session, rel: string, w: number, h: number, at: (x: number, y: number) => Pixel) {
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(at(x, y), (y * w + x) * 4);
  const png = await sharp(data, { raw: { width: w, height: h, channels: 4 } })
    .png()
    .toBuffer();
  await s.workspace.writeAtomic(rel, png);
}

const red = (): Pixel => [255, 0, 0, 255];

/** The current state of the named (default: active) document. */
function stateOf(s: Session, name?: string): DocState {
  const snap = s.editor.snapshot;
  const entry = snap.docs.find((d) => (name === undefined ? d.id === snap.active : d.name === name))!;
  return entry.history.states[entry.history.index]!;
}

function layer(s: Session, name: string, doc?: string): Layer {
  return layersNamed(stateOf(s, doc), name)[0]!;
}

function rasterOf(l: Layer): Raster {
  if (l.kind === 'fill' || l.kind === 'group' || l.kind === 'adjustment')
    throw new Error(`${l.name} has no raster`);
  return l.raster;
}

function box(r: { x: number; y: number; w: number; h: number }) {
  return { x: r.x, y: r.y, w: r.w, h: r.h };
}

/** Commits a state change outside any tool (one history step labelled 'test'). */
function edit(s: Session, fn: (state: DocState) => DocState): void {
  const tx = s.editor.begin();
  const doc = tx.activeDocument();
  tx.update(doc.id, fn(doc.state));
  s.editor.commit(tx, 'test', true);
}

/** Adds a pixel layer `name` with `raster` on top of the active document. */
function addPixels(s: Session, name: string, raster: Raster, extra: Partial<PixelLayer> = {}): void {
  edit(s, (st) => {
    const l: PixelLayer = { ...pixelLayer(st.nextId, name, raster), ...extra };
    const layers = new Map(st.layers);
    layers.set(l.id, l);
    return { ...st, layers, root: [...st.root, l.id], active: l.id, selected: [l.id], nextId: st.nextId + 1 };
  });
}

function solid(x: number, y: number, w: number, h: number, px: Pixel): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set(px, i);
  return { x, y, w, h, data };
}

/** Expects the call to fail with `code` and to leave the editor exactly as it was, with no file written. */
async function rejects(s: Session, name: string, args: unknown, code: string) {
  const before = s.editor.snapshot;
  const files = readdirSync(s.workspace.root).sort();
  const r = await call(s, name, args);
  expect(r.ok, JSON.stringify(r)).toBe(false);
  if (r.ok) throw new Error('unreachable');
  expect(r.error.code).toBe(code);
  expect(s.editor.snapshot).toBe(before);
  expect(readdirSync(s.workspace.root).sort()).toEqual(files);
  return r.error;
}

/** A 10×10 document with a 4×4 red smart object placed at 3,3. */
async function docWithSquare(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 10, height: 10 });
  await writePng(s, 'sq.png', 4, 4, red);
  await ok(s, 'place_image', { path: 'sq.png' });
  return s;
}

describe('create_document, list_documents, switch_document', () => {
  it('creates with Photoshop defaults and the first free 未标题-N name', async () => {
    const s = newSession();
    const a = await ok(s, 'create_document', { width: 30, height: 20 });
    expect(a.document).toMatchObject({
      name: '未标题-1',
      width: 30,
      height: 20,
      resolution: 150,
      mode: 'RGB',
      layer_count: 1,
      active_layer: '背景',
      path: null,
    });
    const st = stateOf(s);
    expect(st.layers.get(st.root[0]!)).toMatchObject({ kind: 'fill', background: true, name: '背景' });
    await ok(s, 'create_document', { width: 5, height: 5, resolution: 300, name: '草稿' });
    const c = await ok(s, 'create_document', { width: 5, height: 5 });
    expect(c.document).toMatchObject({ name: '未标题-2' });
    await ok(s, 'switch_document', { doc_name: '未标题-1' });
    await ok(s, 'close_document');
    const d = await ok(s, 'create_document', { width: 5, height: 5 });
    expect(d.document).toMatchObject({ name: '未标题-1' });

    const list = await ok(s, 'list_documents');
    expect(list).toMatchObject({ count: 3, active_document: '未标题-1' });
    expect(list.documents).toEqual([
      {
        name: '草稿',
        width: 5,
        height: 5,
        resolution: 300,
        active: false,
        unsaved_changes: true,
        path: null,
      },
      {
        name: '未标题-2',
        width: 5,
        height: 5,
        resolution: 150,
        active: false,
        unsaved_changes: true,
        path: null,
      },
      {
        name: '未标题-1',
        width: 5,
        height: 5,
        resolution: 150,
        active: true,
        unsaved_changes: true,
        path: null,
      },
    ]);
  });

  it('refuses a name already open (conflict) and unknown documents (not_found with closest)', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 5, height: 5, name: '衬衫前片' });
    await rejects(s, 'create_document', { width: 5, height: 5, name: '衬衫前片' }, 'conflict');
    const err = await rejects(s, 'switch_document', { doc_name: '衬衫前' }, 'not_found');
    expect(err.details).toMatchObject({ closest: ['衬衫前片'] });
    await ok(s, 'create_document', { width: 5, height: 5, name: 'B' });
    const r = await ok(s, 'switch_document', { doc_name: '衬衫前片' });
    expect(r.document).toMatchObject({ name: '衬衫前片' });
    expect(s.editor.snapshot.docs.find((d) => d.id === s.editor.snapshot.active)!.name).toBe('衬衫前片');
  });

  it('every document tool answers no_document when nothing is open', async () => {
    const s = newSession();
    const calls: [string, unknown][] = [
      ['save_document', {}],
      ['save_document_as', { path: 'a.png' }],
      ['close_document', {}],
      ['duplicate_layer_to_document', { name: 'a', target_doc: 'b' }],
      ['resize_canvas', { width: 5, height: 5 }],
      ['resize_image', { width: 5, height: 5 }],
      ['crop_document', { left: 0, top: 0, right: 1, bottom: 1 }],
      ['trim_document', {}],
      ['undo', {}],
      ['redo', {}],
      ['get_canvas_image', {}],
      ['place_image', { path: 'x.png' }],
    ];
    for (const [name, args] of calls) await rejects(s, name, args, 'no_document');
    expect(await ok(s, 'list_documents')).toMatchObject({ count: 0, active_document: null, documents: [] });
  });
});

describe('close_document', () => {
  it('discards by default, reports it, and activates the next document', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 5, height: 5, name: 'A' });
    await ok(s, 'create_document', { width: 5, height: 5, name: 'B' });
    await ok(s, 'create_layer', { name: 'x' });
    const r = await ok(s, 'close_document');
    expect(r).toMatchObject({
      closed: 'B',
      saved: false,
      discarded_unsaved_changes: true,
      active_document: 'A',
    });
    expect(readdirSync(s.workspace.root)).toEqual([]);
    const last = await ok(s, 'close_document', { save: true });
    expect(last).toMatchObject({ closed: 'A', saved: true, path: 'A.psd', active_document: null });
    expect(readdirSync(s.workspace.root)).toEqual(['A.psd']);
    expect(s.editor.snapshot.docs).toHaveLength(0);
  });
});

describe('resize_canvas', () => {
  const cases: [string, number, number][] = [
    ['top-left', 0, 0],
    ['top', 5, 0],
    ['top-right', 10, 0],
    ['left', 0, 3],
    ['center', 5, 3],
    ['right', 10, 3],
    ['bottom-left', 0, 6],
    ['bottom', 5, 6],
    ['bottom-right', 10, 6],
  ];
  for (const [anchor, dx, dy] of cases) {
    it(`grows 10×10 → 20×16 anchored ${anchor}: layers move by ${dx},${dy}`, async () => {
      const s = await docWithSquare();
      const r = await ok(s, 'resize_canvas', { width: 20, height: 16, anchor });
      expect(r).toMatchObject({ old_size: { width: 10, height: 10 }, new_size: { width: 20, height: 16 } });
      const st = stateOf(s);
      expect([st.width, st.height]).toEqual([20, 16]);
      expect(box(rasterOf(layer(s, 'sq')))).toEqual({ x: 3 + dx, y: 3 + dy, w: 4, h: 4 });
      const sq = layer(s, 'sq');
      if (sq.kind === 'smart') expect([sq.transform.cx, sq.transform.cy]).toEqual([5 + dx, 5 + dy]);
      // The lazy white background stays a fill: no buffer, and the composite is white in the new area.
      expect(layer(s, '背景').kind).toBe('fill');
    });
  }

  it('defaults to center, keeps pixels beyond a smaller canvas, and odd differences go right/bottom', async () => {
    const s = await docWithSquare();
    await ok(s, 'resize_canvas', { width: 5, height: 7 });
    // shrink by 5 and 3: trunc(-2.5) = -2, trunc(-1.5) = -1
    expect(box(rasterOf(layer(s, 'sq')))).toEqual({ x: 1, y: 2, w: 4, h: 4 });
    await ok(s, 'resize_canvas', { width: 2, height: 2, anchor: 'top-left' });
    // Entirely kept although it now lies mostly outside the canvas (PSD stores pixels beyond it).
    expect(box(rasterOf(layer(s, 'sq')))).toEqual({ x: 1, y: 2, w: 4, h: 4 });
    const undone = await ok(s, 'undo', { steps: 2 });
    expect(undone).toMatchObject({ undone: 2, steps: ['调整画布', '调整画布'] });
    expect(box(rasterOf(layer(s, 'sq')))).toEqual({ x: 3, y: 3, w: 4, h: 4 });
  });

  it('extends a pixel background with white and cuts it to the canvas; other layers are never cut', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 4, height: 4 });
    edit(s, (st) => {
      const bg: PixelLayer = {
        ...pixelLayer(1, '背景', solid(0, 0, 4, 4, [0, 0, 255, 255])),
        background: true,
      };
      const layers = new Map(st.layers);
      layers.set(1, bg);
      return { ...st, layers };
    });
    addPixels(s, 'wide', solid(-2, 1, 8, 2, [0, 255, 0, 255]));
    const wideBefore = rasterOf(layer(s, 'wide'));
    await ok(s, 'resize_canvas', { width: 6, height: 3, anchor: 'top-left' });
    const bg = rasterOf(layer(s, '背景'));
    expect(box(bg)).toEqual({ x: 0, y: 0, w: 6, h: 3 });
    const px = (x: number, y: number) => [...bg.data.subarray((y * 6 + x) * 4, (y * 6 + x) * 4 + 4)];
    expect(px(0, 0)).toEqual([0, 0, 255, 255]);
    expect(px(3, 2)).toEqual([0, 0, 255, 255]);
    expect(px(4, 0)).toEqual([255, 255, 255, 255]);
    expect(px(5, 2)).toEqual([255, 255, 255, 255]);
    const wide = rasterOf(layer(s, 'wide'));
    expect(wide).toBe(wideBefore); // moved by 0,0: the very same raster, no copy
    await ok(s, 'resize_canvas', { width: 8, height: 5, anchor: 'bottom-right' });
    expect(box(rasterOf(layer(s, 'wide')))).toEqual({ x: 0, y: 3, w: 8, h: 2 });
    expect(rasterOf(layer(s, 'wide')).data).toBe(wideBefore.data); // shifted, buffer shared
  });

  it('same size is no change and no history step', async () => {
    const s = await docWithSquare();
    const before = s.editor.snapshot;
    const r = await ok(s, 'resize_canvas', { width: 10, height: 10 });
    expect(r).toMatchObject({ changed: false });
    expect(s.editor.snapshot.docs[0]!.history).toBe(before.docs[0]!.history);
  });

  it('refuses to push a layer past where a file can record it, as resize_image does; changing nothing', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 100, height: 100 });
    addPixels(s, 'far', solid(0, 0, 20, 20, red()));
    await ok(s, 'move_layer', { name: 'far', dx: 2_147_483_000, dy: 0 });
    const e = await rejects(
      s,
      'resize_canvas',
      { width: 200_000, height: 100, anchor: 'right' },
      'out_of_bounds',
    );
    expect(e.message).toContain('“far”');
    await rejects(s, 'resize_image', { width: 300, height: 300 }, 'out_of_bounds');
    // Growing to the other side keeps it where it is, and the document still saves.
    await ok(s, 'resize_canvas', { width: 200_000, height: 100, anchor: 'left' });
    await ok(s, 'save_document_as', { path: 'wide.psd' });
  });
});

describe('crop_document', () => {
  it('crops to the edges: layers shift by -left/-top and lose pixels outside the canvas', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10 });
    addPixels(s, 'p', solid(1, 1, 6, 6, [255, 0, 0, 255]));
    const r = await ok(s, 'crop_document', { left: 4, top: 2, right: 9, bottom: 5 });
    expect(r).toMatchObject({ old_size: { width: 10, height: 10 }, new_size: { width: 5, height: 3 } });
    const st = stateOf(s);
    expect([st.width, st.height]).toEqual([5, 3]);
    // 1..7 × 1..7 shifted by -4,-2 → -3..3 × -1..5, cut to 0..5 × 0..3 → 0..3 × 0..3
    expect(box(rasterOf(layer(s, 'p')))).toEqual({ x: 0, y: 0, w: 3, h: 3 });
    expect(layer(s, '背景').kind).toBe('fill');
    const undo = await ok(s, 'undo');
    expect(undo).toMatchObject({ undone: 1, steps: ['裁切画布'] });
    expect(box(rasterOf(layer(s, 'p')))).toEqual({ x: 1, y: 1, w: 6, h: 6 });
  });

  it('keeps a placed smart object whole (Photoshop never cuts smart objects)', async () => {
    const s = await docWithSquare();
    await ok(s, 'crop_document', { left: 4, top: 4, right: 6, bottom: 6 });
    expect(box(rasterOf(layer(s, 'sq')))).toEqual({ x: -1, y: -1, w: 4, h: 4 });
  });

  it('may reach beyond the canvas: transparent new area, white on a pixel background', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 4, height: 4 });
    edit(s, (st) => {
      const bg: PixelLayer = {
        ...pixelLayer(1, '背景', solid(0, 0, 4, 4, [0, 0, 0, 255])),
        background: true,
      };
      const layers = new Map(st.layers);
      layers.set(1, bg);
      return { ...st, layers };
    });
    const r = await ok(s, 'crop_document', { left: -2, top: 0, right: 3, bottom: 4 });
    expect(r).toMatchObject({ new_size: { width: 5, height: 4 }, extended: true });
    const bg = rasterOf(layer(s, '背景'));
    expect(box(bg)).toEqual({ x: 0, y: 0, w: 5, h: 4 });
    expect([...bg.data.subarray(0, 4)]).toEqual([255, 255, 255, 255]);
    expect([...bg.data.subarray(8, 12)]).toEqual([0, 0, 0, 255]);
  });

  it('rejects reversed edges naming them, and a rectangle entirely outside the canvas', async () => {
    const s = await docWithSquare();
    const e1 = await rejects(
      s,
      'crop_document',
      { left: 5, top: 0, right: 5, bottom: 4 },
      'invalid_arguments',
    );
    expect(e1.message).toContain('right');
    expect(e1.details).toEqual([{ parameter: 'right', value: 5 }]);
    const e2 = await rejects(
      s,
      'crop_document',
      { left: 0, top: 6, right: 4, bottom: 2 },
      'invalid_arguments',
    );
    expect(e2.details).toEqual([{ parameter: 'bottom', value: 2 }]);
    await rejects(s, 'crop_document', { left: 10, top: 0, right: 20, bottom: 5 }, 'out_of_bounds');
    await rejects(s, 'crop_document', { left: -8, top: -8, right: 0, bottom: 0 }, 'out_of_bounds');
  });
});

describe('a background of one flat colour under a growing canvas', () => {
  const BLUE = '#336699';

  /** A 200×100 document whose background was filled blue all over (the engine holds it as a colour). */
  async function flatBlue(): Promise<Session> {
    const s = newSession();
    await ok(s, 'create_document', { width: 200, height: 100, name: 'e' });
    await ok(s, 'select_all');
    await ok(s, 'fill_selection', { color: BLUE });
    await ok(s, 'deselect');
    return s;
  }

  /** The same picture reached another way: a partial fill first makes the background pixels. */
  async function pixelBlue(): Promise<Session> {
    const s = newSession();
    await ok(s, 'create_document', { width: 200, height: 100, name: 'e' });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 10, bottom: 10 });
    await ok(s, 'fill_selection', { color: '#ff0000' });
    await ok(s, 'select_all');
    await ok(s, 'fill_selection', { color: BLUE });
    await ok(s, 'deselect');
    return s;
  }

  const hexAt = async (s: Session, x: number, y: number) => (await ok(s, 'get_pixel_color', { x, y })).hex;

  it('crop_document beyond the canvas fills the new area with the background colour (white)', async () => {
    const s = await flatBlue();
    await ok(s, 'crop_document', { left: -20, top: 0, right: 200, bottom: 100 });
    expect([await hexAt(s, 5, 50), await hexAt(s, 19, 99)]).toEqual(['#ffffff', '#ffffff']);
    expect([await hexAt(s, 20, 0), await hexAt(s, 219, 99)]).toEqual([BLUE, BLUE]);
  });

  it('resize_canvas does the same on every side it grows, whatever the history of the background', async () => {
    for (const make of [flatBlue, pixelBlue]) {
      const s = await make();
      await ok(s, 'resize_canvas', { width: 300, height: 100, anchor: 'left' });
      expect([await hexAt(s, 290, 50), await hexAt(s, 200, 0)]).toEqual(['#ffffff', '#ffffff']);
      expect([await hexAt(s, 199, 50), await hexAt(s, 150, 99)]).toEqual([BLUE, BLUE]);
      await ok(s, 'resize_canvas', { width: 304, height: 104, anchor: 'center' });
      const corners = [await hexAt(s, 0, 0), await hexAt(s, 303, 103), await hexAt(s, 100, 1)];
      expect(corners).toEqual(['#ffffff', '#ffffff', '#ffffff']);
      expect(await hexAt(s, 100, 50)).toBe(BLUE);
    }
    const [flat, pixels] = [await flatBlue(), await pixelBlue()];
    for (const s of [flat, pixels])
      await ok(s, 'resize_canvas', { width: 230, height: 120, anchor: 'top-right' });
    const bg = (s: Session) => rasterOf(layer(s, '背景'));
    expect(box(bg(flat))).toEqual({ x: 0, y: 0, w: 230, h: 120 });
    expect(bg(flat).data).toEqual(bg(pixels).data);
  });

  it('stays a colour without pixels when the canvas only shrinks', async () => {
    const s = await flatBlue();
    await ok(s, 'crop_document', { left: 10, top: 10, right: 150, bottom: 90 });
    await ok(s, 'resize_canvas', { width: 100, height: 50, anchor: 'center' });
    expect(layer(s, '背景')).toMatchObject({ kind: 'fill', color: { r: 0x33, g: 0x66, b: 0x99 } });
    expect(await hexAt(s, 0, 0)).toBe(BLUE);
  });

  it.runIf(psdToolsAvailable())(
    'after a PSD is saved and opened again, as psd-tools reads the result',
    async () => {
      const s = await flatBlue();
      await ok(s, 'save_document_as', { path: 'e.psd' });
      await ok(s, 'close_document');
      await ok(s, 'open_document', { path: 'e.psd' });
      await ok(s, 'resize_canvas', { width: 300, height: 100, anchor: 'left' });
      expect([await hexAt(s, 290, 50), await hexAt(s, 100, 50)]).toEqual(['#ffffff', BLUE]);
      await ok(s, 'save_document_as', { path: 'grown.psd' });
      const psd = await readFile(join(s.workspace.root, 'grown.psd'));
      const { composite, merged } = await readWithPsdTools(psd, { composite: true, merged: true });
      for (const img of [composite!, merged!]) {
        const at = (x: number, y: number) => [...img.data.subarray((y * 300 + x) * 4, (y * 300 + x) * 4 + 4)];
        expect(img.width).toBe(300);
        expect([at(290, 50), at(200, 0), at(100, 50)]).toEqual([
          [255, 255, 255, 255],
          [255, 255, 255, 255],
          [0x33, 0x66, 0x99, 255],
        ]);
      }
    },
  );
});

describe('trim_document', () => {
  it('topleft: trims edges the colour of the top-left pixel', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 12, height: 9 });
    addPixels(s, 'dot', solid(5, 2, 3, 4, [255, 0, 0, 255]));
    const r = await ok(s, 'trim_document');
    expect(r).toMatchObject({
      changed: true,
      type: 'topleft',
      new_size: { width: 3, height: 4 },
      trimmed: { left: 5, top: 2, right: 4, bottom: 3 },
    });
    expect(box(rasterOf(layer(s, 'dot')))).toEqual({ x: 0, y: 0, w: 3, h: 4 });
    expect(layer(s, '背景').kind).toBe('fill');
    // Now the canvas is one colour: trimming would leave nothing.
    await rejects(s, 'trim_document', {}, 'invalid_state');
    expect(s.editor.snapshot.docs[0]!.history.states).toHaveLength(3);
  });

  it('topleft: no change when the edges differ from the top-left pixel', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 12, height: 9 });
    addPixels(s, 'corner', solid(0, 0, 2, 2, [0, 0, 0, 255]));
    const history = s.editor.snapshot.docs[0]!.history;
    const r = await ok(s, 'trim_document');
    expect(r).toMatchObject({
      changed: false,
      old_size: { width: 12, height: 9 },
      new_size: { width: 12, height: 9 },
    });
    expect(s.editor.snapshot.docs[0]!.history).toBe(history);
  });

  it('transparent: trims by alpha; a white background leaves nothing to trim', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 12, height: 9 });
    addPixels(s, 'dot', solid(2, 3, 4, 2, [10, 20, 30, 128]));
    const none = await ok(s, 'trim_document', { type: 'transparent' });
    expect(none).toMatchObject({ changed: false, message: expect.stringContaining('透明') });
    // Hide the white background: now the edges are transparent.
    edit(s, (st) => {
      const layers = new Map(st.layers);
      layers.set(1, { ...st.layers.get(1)!, visible: false });
      return { ...st, layers };
    });
    const r = await ok(s, 'trim_document', { type: 'transparent' });
    expect(r).toMatchObject({ changed: true, new_size: { width: 4, height: 2 } });
    expect(box(rasterOf(layer(s, 'dot')))).toEqual({ x: 0, y: 0, w: 4, h: 2 });
  });

  it('refuses with invalid_state when every pixel would be trimmed', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 6, height: 6 });
    await rejects(s, 'trim_document', {}, 'invalid_state');
    edit(s, (st) => {
      const layers = new Map(st.layers);
      layers.set(1, { ...st.layers.get(1)!, visible: false });
      return { ...st, layers };
    });
    await rejects(s, 'trim_document', { type: 'transparent' }, 'invalid_state');
  });
});

describe('resize_image', () => {
  it('a 2× upscale resamples every raster like sharp lanczos3 and scales positions, keeping the DPI', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 16, height: 12 });
    const pattern = new Uint8ClampedArray(6 * 5 * 4);
    for (let i = 0; i < 30; i++) {
      const x = i % 6;
      const y = Math.floor(i / 6);
      pattern.set((x + y) % 2 ? [255, 0, 0, 255] : [0, 0, 255, 128], i * 4);
    }
    addPixels(s, 'p', { x: 4, y: 3, w: 6, h: 5, data: pattern });
    await writePng(s, 'sq.png', 4, 4, (x, y) => ((x + y) % 2 ? [0, 255, 0, 255] : [0, 0, 0, 0]));
    await ok(s, 'place_image', { path: 'sq.png' });
    edit(s, (st) => ({ ...st, guides: [{ direction: 'vertical', position: 5 }] }));

    const r = await ok(s, 'resize_image', { width: 32, height: 24 });
    expect(r).toMatchObject({
      changed: true,
      old_size: { width: 16, height: 12, resolution: 150 },
      new_size: { width: 32, height: 24, resolution: 150 },
    });
    // transform.ts resamples in 16 bits (no clamped lanczos overshoot before un-premultiplying), so it may
    // differ from sharp's plain 8-bit resize by one level.
    const closeTo = (actual: Uint8ClampedArray, want: Buffer) => {
      expect(actual.length).toBe(want.length);
      let max = 0;
      for (let i = 0; i < want.length; i++) max = Math.max(max, Math.abs(actual[i]! - want[i]!));
      expect(max).toBeLessThanOrEqual(1);
    };
    const expected = async (data: Uint8ClampedArray, w: number, h: number) =>
      sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), {
        raw: { width: w, height: h, channels: 4 },
      })
        .resize(w * 2, h * 2, { kernel: 'lanczos3', fit: 'fill' })
        .raw()
        .toBuffer();
    const p = rasterOf(layer(s, 'p'));
    expect(box(p)).toEqual({ x: 8, y: 6, w: 12, h: 10 });
    closeTo(p.data, await expected(pattern, 6, 5));

    const sq = layer(s, 'sq');
    expect(sq.kind).toBe('smart');
    if (sq.kind !== 'smart') return;
    expect(sq.transform).toMatchObject({ cx: 16, cy: 12, scaleX: 2, scaleY: 2 });
    expect(box(sq.raster)).toEqual({ x: 12, y: 8, w: 8, h: 8 });
    closeTo(sq.raster.data, await expected(sq.source.data, 4, 4));
    expect(sq.source.w).toBe(4); // the source stays at full quality

    const st = stateOf(s);
    expect(st.guides).toEqual([{ direction: 'vertical', position: 10 }]);
    expect(layer(s, '背景').kind).toBe('fill');
  });

  it('sets the resolution when given, alone or with a resample', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 20, height: 10 });
    const r = await ok(s, 'resize_image', { width: 20, height: 10, resolution: 300 });
    expect(r).toMatchObject({ changed: true, new_size: { width: 20, height: 10, resolution: 300 } });
    const r2 = await ok(s, 'resize_image', { width: 10, height: 5 });
    expect(r2).toMatchObject({ new_size: { width: 10, height: 5, resolution: 300 } });
    const same = await ok(s, 'resize_image', { width: 10, height: 5 });
    expect(same).toMatchObject({ changed: false });
  });
});

describe('masks, selection, text and smart sources under canvas and image changes', () => {
  function withExtras(s: Session) {
    edit(s, (st) => {
      const text: TextLayer = {
        ...pixelLayer(st.nextId, '标题'),
        kind: 'text',
        text: {
          content: 'Hi',
          x: 2,
          y: 4,
          size: 6,
          color: { r: 0, g: 0, b: 0 },
          font: 'Noto Sans SC',
          renderedFont: 'Noto Sans SC',
        },
        raster: solid(2, 4, 6, 4, [0, 0, 0, 255]),
        mask: { x: 1, y: 1, w: 4, h: 4, data: new Uint8Array(16).fill(200), outside: 0, enabled: true },
      };
      const layers = new Map(st.layers);
      layers.set(text.id, text);
      const selection = { x: 2, y: 2, w: 4, h: 2, data: new Uint8Array(8).fill(255), outside: 0 as const };
      return { ...st, layers, root: [...st.root, text.id], nextId: st.nextId + 1, selection };
    });
  }

  it('resize_image scales masks, the selection and text specs', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10 });
    withExtras(s);
    await ok(s, 'resize_image', { width: 20, height: 20 });
    const t = layer(s, '标题');
    if (t.kind !== 'text') throw new Error('not text');
    expect(t.text).toMatchObject({ x: 4, y: 8, size: 12 });
    // Text is re-rendered at the new size, not resampled: the raster is what the spec renders to.
    expect(t.raster).toEqual(renderText(t.text));
    expect(box(t.mask!)).toEqual({ x: 2, y: 2, w: 8, h: 8 });
    expect(t.mask!.data.every((v) => v === 200)).toBe(true);
    expect(box(stateOf(s).selection!)).toEqual({ x: 4, y: 4, w: 8, h: 4 });
  });

  it('crop cuts masks and the selection to the canvas and moves text without cutting it', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10 });
    withExtras(s);
    await ok(s, 'crop_document', { left: 3, top: 3, right: 9, bottom: 9 });
    const t = layer(s, '标题');
    if (t.kind !== 'text') throw new Error('not text');
    expect([t.text.x, t.text.y]).toEqual([-1, 1]);
    expect(box(t.raster)).toEqual({ x: -1, y: 1, w: 6, h: 4 });
    expect(box(t.mask!)).toEqual({ x: 0, y: 0, w: 2, h: 2 });
    expect(box(stateOf(s).selection!)).toEqual({ x: 0, y: 0, w: 3, h: 1 });
    // Cropped away entirely: no selection is left.
    await ok(s, 'crop_document', { left: 4, top: 4, right: 6, bottom: 6 });
    expect(stateOf(s).selection).toBeNull();
  });

  it('a smart object is re-rendered from its source: down and back up gives the original pixels', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 16, height: 16 });
    await writePng(s, 'chk.png', 8, 8, (x, y) => ((x + y) % 2 ? [255, 255, 0, 255] : [0, 0, 128, 255]));
    await ok(s, 'place_image', { path: 'chk.png' });
    const original = rasterOf(layer(s, 'chk'));
    await ok(s, 'resize_image', { width: 4, height: 4 });
    expect(box(rasterOf(layer(s, 'chk')))).toEqual({ x: 1, y: 1, w: 2, h: 2 });
    await ok(s, 'resize_image', { width: 16, height: 16 });
    const back = rasterOf(layer(s, 'chk'));
    expect(box(back)).toEqual(box(original));
    expect(Buffer.from(back.data).equals(Buffer.from(original.data))).toBe(true);
  });
});

describe('undo and redo', () => {
  it('walks the history, reports counts and labels, and is not a step itself', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 5, height: 5 });
    await ok(s, 'create_layer', { name: 'a' });
    await ok(s, 'resize_canvas', { width: 8, height: 8 });
    await ok(s, 'create_layer', { name: 'b' });
    const history = () => s.editor.snapshot.docs[0]!.history;
    expect(history().states).toHaveLength(4);

    expect(await ok(s, 'undo')).toMatchObject({ undone: 1, requested: 1, steps: ['新建图层'], can_undo: 2 });
    expect(stateOf(s).width).toBe(8);
    const u = await ok(s, 'undo', { steps: 5 });
    expect(u).toMatchObject({
      undone: 2,
      requested: 5,
      steps: ['调整画布', '新建图层'],
      can_undo: 0,
      can_redo: 3,
    });
    expect(u.message).toContain('2');
    expect(stateOf(s).width).toBe(5);
    expect(stateOf(s).layers.size).toBe(1);
    const none = await ok(s, 'undo');
    expect(none).toMatchObject({ undone: 0, steps: [] });
    expect(none.message).toBeTruthy();
    expect(history().states).toHaveLength(4);

    const re = await ok(s, 'redo', { steps: 2 });
    expect(re).toMatchObject({ redone: 2, steps: ['新建图层', '调整画布'], can_redo: 1 });
    expect(stateOf(s).width).toBe(8);
    expect(await ok(s, 'redo', { steps: 9 })).toMatchObject({ redone: 1, steps: ['新建图层'] });
    expect(await ok(s, 'redo')).toMatchObject({ redone: 0 });
    expect(history().states).toHaveLength(4);
    expect(history().index).toBe(3);

    // A new step after an undo drops the redo branch.
    await ok(s, 'undo');
    await ok(s, 'create_layer', { name: 'c' });
    expect(await ok(s, 'redo')).toMatchObject({ redone: 0 });
  });

  it('undo to the saved state clears the unsaved flag', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 5, height: 5 });
    await ok(s, 'save_document');
    await ok(s, 'create_layer', { name: 'a' });
    expect((await ok(s, 'list_documents')).documents).toMatchObject([{ unsaved_changes: true }]);
    const r = await ok(s, 'undo');
    expect(r.document).toMatchObject({ unsaved_changes: false });
  });
});

describe('duplicate_layer_to_document', () => {
  it('keeps the position between same-size canvases, centres it otherwise; the active document stays', async () => {
    const s = await docWithSquare(); // 未标题-1, 10×10, sq at 3,3
    await ok(s, 'create_document', { width: 10, height: 10, name: 'same' });
    await ok(s, 'create_document', { width: 30, height: 20, name: 'big' });
    await ok(s, 'switch_document', { doc_name: '未标题-1' });
    // Move the square off-centre first, so centring is visible.
    edit(s, (st) => {
      const sq = [...st.layers.values()].find((l) => l.name === 'sq')!;
      if (sq.kind !== 'smart') throw new Error('not smart');
      const layers = new Map(st.layers);
      layers.set(sq.id, {
        ...sq,
        raster: { ...sq.raster, x: 0, y: 1 },
        transform: { ...sq.transform, cx: 2, cy: 3 },
      });
      return { ...st, layers };
    });
    const sourceHistory = s.editor.snapshot.docs[0]!.history;
    const bigHistory = s.editor.snapshot.docs[2]!.history;

    const a = await ok(s, 'duplicate_layer_to_document', { name: 'sq', target_doc: 'same' });
    expect(a).toMatchObject({
      target_document: 'same',
      position: 'kept',
      layer: { name: 'sq', type: 'smart_object' },
    });
    expect(box(rasterOf(layer(s, 'sq', 'same')))).toEqual({ x: 0, y: 1, w: 4, h: 4 });
    expect(stateOf(s, 'same').active).toBe(layer(s, 'sq', 'same').id);

    const b = await ok(s, 'duplicate_layer_to_document', { name: 'sq', target_doc: 'big' });
    expect(b).toMatchObject({ position: 'centered' });
    expect(box(rasterOf(layer(s, 'sq', 'big')))).toEqual({ x: 13, y: 8, w: 4, h: 4 });
    const copy = layer(s, 'sq', 'big');
    if (copy.kind === 'smart') expect([copy.transform.cx, copy.transform.cy]).toEqual([15, 10]);

    const snap = s.editor.snapshot;
    expect(snap.docs.find((d) => d.id === snap.active)!.name).toBe('未标题-1');
    expect(snap.docs[0]!.history).toBe(sourceHistory); // no step in the source
    expect(snap.docs[2]!.history.states).toHaveLength(bigHistory.states.length + 1);
    expect(snap.docs[2]!.history.labels.at(-1)).toBe('复制到文档');
    // The copy shares the pixels.
    expect(rasterOf(copy).data).toBe(rasterOf(layer(s, 'sq')).data);
  });

  it('into the active document acts like duplicate; a copied background becomes a normal layer', async () => {
    const s = await docWithSquare();
    const r = await ok(s, 'duplicate_layer_to_document', { name: 'sq', target_doc: '未标题-1' });
    expect(r).toMatchObject({ layer: { name: 'sq 拷贝' } });
    expect(stateOf(s).layers.get(stateOf(s).active!)!.name).toBe('sq 拷贝');
    await ok(s, 'create_document', { width: 10, height: 10, name: 'T' });
    await ok(s, 'switch_document', { doc_name: '未标题-1' });
    const bg = await ok(s, 'duplicate_layer_to_document', { name: '背景', target_doc: 'T' });
    expect(bg.layer).toMatchObject({ name: '背景 拷贝', type: 'fill' });
    expect(bg.layer).not.toHaveProperty('background');
  });

  it('makes the named layer active in the source document without a history step there', async () => {
    const s = await docWithSquare();
    await ok(s, 'create_layer', { name: 'other' });
    await ok(s, 'create_document', { width: 10, height: 10, name: 'T' });
    await ok(s, 'switch_document', { doc_name: '未标题-1' });
    const steps = s.editor.snapshot.docs[0]!.history.states.length;
    await ok(s, 'duplicate_layer_to_document', { name: 'sq', target_doc: 'T' });
    const source = s.editor.snapshot.docs[0]!;
    expect(source.history.states).toHaveLength(steps);
    expect(stateOf(s).layers.get(stateOf(s).active!)!.name).toBe('sq');
  });

  it('not_found for an unknown layer or document, with the closest names', async () => {
    const s = await docWithSquare();
    await ok(s, 'create_document', { width: 10, height: 10, name: '目标文档' });
    await ok(s, 'switch_document', { doc_name: '未标题-1' });
    const e1 = await rejects(
      s,
      'duplicate_layer_to_document',
      { name: 'sqr', target_doc: '目标文档' },
      'not_found',
    );
    expect(e1.details).toMatchObject({ closest: ['sq'] });
    const e2 = await rejects(
      s,
      'duplicate_layer_to_document',
      { name: 'sq', target_doc: '目标' },
      'not_found',
    );
    expect(e2.details).toMatchObject({ closest: ['目标文档'] });
  });
});
