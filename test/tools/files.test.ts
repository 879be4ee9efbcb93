/**
 * Files: save / save as (PSD, PNG, JPEG), open, place, and the canvas capture — driven through the real Session,
 * with psd-tools and ImageMagick as independent readers of what is written.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { DocState, Layer } from '../../src/engine/model.js';
import { layersNamed } from '../../src/engine/tree.js';
import { CONVERT, identifyInfo } from '../support/imagemagick.js';
import { flattenPsdTools, readWithPsdTools } from '../support/psd-tools.js';
import { call, newSession, ok, tempDir } from '../support/session.js';

type Pixel = [number, number, number, number];

const run = promisify(execFile);

async function pngBytes(w: number, h: number, at: (x: number, y: number) => Pixel, density?: number) {
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(at(x, y), (y * w + x) * 4);
  let img = sharp(data, { raw: { width: w, height: h, channels: 4 } });
  if (density) img = img.withDensity(density);
  return img.png().toBuffer();
}

async function writePng(s: Session, rel: string, w: number, h: number, at: (x: number, y: number) => Pixel) {
  await s.workspace.writeAtomic(rel, await pngBytes(w, h, at));
}

const red = (): Pixel => [255, 0, 0, 255];

function stateOf(s: Session, name?: string): DocState {
  const snap = s.editor.snapshot;
  const entry = snap.docs.find((d) => (name === undefined ? d.id === snap.active : d.name === name))!;
  return entry.history.states[entry.history.index]!;
}

function layer(s: Session, name: string): Layer {
  return layersNamed(stateOf(s), name)[0]!;
}

function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

/** Expects the call to fail with `code`, leaving the editor exactly as it was and no file written. */
async function rejects(s: Session, name: string, args: unknown, code: string) {
  const before = s.editor.snapshot;
  const files = filesIn(s.workspace.root);
  const r = await call(s, name, args);
  expect(r.ok, JSON.stringify(r)).toBe(false);
  if (r.ok) throw new Error('unreachable');
  expect(r.error.code).toBe(code);
  expect(s.editor.snapshot).toBe(before);
  expect(filesIn(s.workspace.root)).toEqual(files);
  return r.error;
}

/** A 10×8 document with a 4×4 red smart object `sq` at 3,2. */
async function docWithSquare(s = newSession()): Promise<Session> {
  await ok(s, 'create_document', { width: 10, height: 8 });
  await writePng(s, 'sq.png', 4, 4, red);
  await ok(s, 'place_image', { path: 'sq.png' });
  return s;
}

function pixelAt(img: { data: Uint8Array | Buffer; width: number }, x: number, y: number, channels = 4) {
  const i = (y * img.width + x) * channels;
  return [...img.data.subarray(i, i + channels)];
}

async function decode(buf: Buffer) {
  const { data, info } = await sharp(buf).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe('save_document', () => {
  it('writes a layered PSD to <name>.psd that psd-tools reads, and records the document as saved', async () => {
    const s = await docWithSquare();
    const r = await ok(s, 'save_document');
    expect(r).toMatchObject({ saved: true, path: '未标题-1.psd', format: 'psd' });
    const file = path.join(s.workspace.root, '未标题-1.psd');
    const buf = await readFile(file);
    expect(r.bytes).toBe(buf.byteLength);
    const { dump, merged } = await readWithPsdTools(buf, { merged: true });
    expect([dump.width, dump.height]).toEqual([10, 8]);
    expect(dump.resolution?.horizontal).toBeCloseTo(150);
    const layers = flattenPsdTools(dump.layers);
    expect(layers.map((l) => l.name)).toEqual(['背景', 'sq']);
    expect(layers[1]).toMatchObject({ kind: 'smartobject', bbox: [3, 2, 7, 6] });
    expect(pixelAt(merged!, 4, 3)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(merged!, 0, 0)).toEqual([255, 255, 255, 255]);

    const list = await ok(s, 'list_documents');
    expect(list.documents).toMatchObject([{ unsaved_changes: false, path: '未标题-1.psd' }]);
    // Saving is not a history step.
    expect(s.editor.snapshot.docs[0]!.history.states).toHaveLength(2);
    await ok(s, 'create_layer', { name: 'x' });
    expect((await ok(s, 'save_document')).path).toBe('未标题-1.psd');
    expect(filesIn(s.workspace.root)).toEqual(['sq.png', '未标题-1.psd']);
  });

  it('a document opened from a PNG is saved as PSD beside it, leaving the PNG untouched', async () => {
    const s = newSession();
    const png = await pngBytes(3, 3, red);
    await s.workspace.writeAtomic('in/photo.png', png);
    await ok(s, 'open_document', { path: 'in/photo.png' });
    const r = await call(s, 'save_document');
    expect(r).toMatchObject({
      ok: true,
      path: 'in/photo.psd',
      warnings: [expect.stringContaining('in/photo.psd')],
    });
    expect((await readFile(path.join(s.workspace.root, 'in/photo.png'))).equals(png)).toBe(true);
    expect((await ok(s, 'list_documents')).documents).toMatchObject([
      { path: 'in/photo.psd', unsaved_changes: false },
    ]);
  });

  it('never writes a default name over a file the user did not name, nor over another open document', async () => {
    const s = newSession();
    // A file already there (an upload, an earlier session's work) under the name a new document would take.
    const theirs = await pngBytes(3, 3, red);
    await s.workspace.writeAtomic('pieces.psd', theirs);
    await ok(s, 'create_document', { width: 10, height: 10, name: 'pieces' });
    const first = await call(s, 'save_document');
    expect(first).toMatchObject({
      ok: true,
      path: 'pieces (2).psd',
      warnings: [expect.stringContaining('pieces.psd')],
    });
    expect((await readFile(path.join(s.workspace.root, 'pieces.psd'))).equals(theirs)).toBe(true);
    // Saved again, it is its own file now.
    expect((await ok(s, 'save_document')).path).toBe('pieces (2).psd');
    // Two names that make one file name: the second takes another.
    await ok(s, 'create_document', { width: 10, height: 10, name: 'a/b' });
    expect((await ok(s, 'save_document')).path).toBe('a_b.psd');
    await ok(s, 'create_document', { width: 33, height: 33, name: 'a_b' });
    expect((await ok(s, 'save_document')).path).toBe('a_b (2).psd');
    // An explicit path that is another open document's file is refused: that document would say it is saved.
    await rejects(s, 'save_document_as', { path: 'a_b.psd' }, 'conflict');
    const docs = (await ok(s, 'list_documents')).documents as { name: string; path: string }[];
    expect(new Set(docs.map((d) => d.path)).size).toBe(docs.length);
  });
});

describe('save_document_as', () => {
  it('PSD under a new path becomes the document file; PNG and JPEG are copies with the DPI written', async () => {
    const s = await docWithSquare();
    await ok(s, 'resize_image', { width: 10, height: 8, resolution: 300 });
    const psd = await ok(s, 'save_document_as', { path: 'out/design.psd' });
    expect(psd).toMatchObject({ path: 'out/design.psd', format: 'psd', document_path_changed: true });
    expect(psd.document).toMatchObject({ path: 'out/design.psd', unsaved_changes: false });

    await ok(s, 'create_layer', { name: 'dirty' });
    const png = await ok(s, 'save_document_as', { path: 'out/design.png' });
    expect(png).toMatchObject({ path: 'out/design.png', format: 'png', document_path_changed: false });
    expect(png.document).toMatchObject({ path: 'out/design.psd', unsaved_changes: true });
    const pngBuf = await readFile(path.join(s.workspace.root, 'out/design.png'));
    expect(png.bytes).toBe(pngBuf.byteLength);
    const pngInfo = await identifyInfo(pngBuf, 'png');
    expect([pngInfo.width, pngInfo.height]).toEqual([10, 8]);
    expect(pngInfo.dpiX).toBeCloseTo(300, 0);
    const decoded = await decode(pngBuf);
    expect(pixelAt(decoded, 4, 3)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(decoded, 0, 0)).toEqual([255, 255, 255, 255]);

    const jpg = await ok(s, 'save_document_as', { path: 'out/design.jpeg' });
    expect(jpg).toMatchObject({ format: 'jpg' });
    const jpgBuf = await readFile(path.join(s.workspace.root, 'out/design.jpeg'));
    const jpgInfo = await identifyInfo(jpgBuf, 'jpg');
    expect(jpgInfo.dpiX).toBeCloseTo(300, 0);
    expect(jpgInfo.colorspace).toBe('sRGB');
    expect(filesIn(path.join(s.workspace.root, 'out'))).toEqual(['design.jpeg', 'design.png', 'design.psd']);
  });

  it('PNG keeps transparency; JPEG is flattened over white, and CMYK when the document is CMYK', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 6, height: 6 });
    const tx = s.editor.begin();
    const doc = tx.activeDocument();
    const layers = new Map(doc.state.layers);
    layers.set(1, { ...doc.state.layers.get(1)!, visible: false });
    tx.update(doc.id, { ...doc.state, layers, mode: 'cmyk' });
    s.editor.commit(tx, 'test', true);
    await ok(s, 'save_document_as', { path: 'a.png' });
    const png = await decode(await readFile(path.join(s.workspace.root, 'a.png')));
    expect(pixelAt(png, 2, 2)[3]).toBe(0);
    await ok(s, 'save_document_as', { path: 'a.jpg' });
    const jpgBuf = await readFile(path.join(s.workspace.root, 'a.jpg'));
    const info = await identifyInfo(jpgBuf, 'jpg');
    expect(info.colorspace).toBe('CMYK');
    expect(info.dpiX).toBeCloseTo(150, 0);
  });

  it('refuses a format contradicting a known extension, writing nothing; a bare name gets the extension', async () => {
    const s = await docWithSquare();
    const cases: [string, string, string, string][] = [
      // path, format, the extension named, the path the hint offers
      ['b.psd', 'png', '.psd', 'b.png'],
      ['out/c.jpg', 'png', '.jpg', 'out/c.png'],
      ['g.psb', 'png', '.psb', 'g.png'],
      ['a.png', 'psd', '.png', 'a.psd'],
      ['x.png', 'jpg', '.png', 'x.jpg'],
      ['P.JPEG', 'psd', '.jpeg', 'P.psd'],
      ['shop.webp', 'png', '.webp', 'shop.png'],
    ];
    for (const [p, format, ext, fixed] of cases) {
      const e = await rejects(s, 'save_document_as', { path: p, format }, 'invalid_arguments');
      expect(e.message).toContain(ext);
      expect(e.message).toContain(`format 为 ${format}`);
      expect(e.hint).toContain(`“${fixed}”`);
      expect(e.details).toEqual([expect.objectContaining({ parameter: 'path', value: p })]);
    }
    // The document kept its own file: save_document still writes a new PSD, nothing to a.png.
    const saved = await ok(s, 'save_document');
    expect(saved.path).toMatch(/\.psd$/);
    expect(existsSync(path.join(s.workspace.root, 'a.png'))).toBe(false);

    // What agrees is written: .psb and .psd are PSD, .jpeg is JPEG, in any case.
    for (const [p, format, magic] of [
      ['big.psb', 'psd', [0x38, 0x42]],
      ['y.PSD', 'psd', [0x38, 0x42]],
      ['z.jpeg', 'jpg', [0xff, 0xd8]],
      ['w.PNG', 'png', [0x89, 0x50]],
    ] as const) {
      const r = await ok(s, 'save_document_as', { path: p, format });
      expect(r).toMatchObject({ path: p, format });
      expect(r.note).toBeUndefined();
      const buf = await readFile(path.join(s.workspace.root, p));
      expect([buf[0], buf[1]]).toEqual(magic);
    }
    const bare = await ok(s, 'save_document_as', { path: 'bare', format: 'png' });
    expect(bare).toMatchObject({ path: 'bare.png', note: expect.any(String) });
    expect(existsSync(path.join(s.workspace.root, 'bare.png'))).toBe(true);
  });

  it('refuses an unknown extension without format, and paths leaving the workspace, writing nothing', async () => {
    const root = tempDir();
    const ws = path.join(root, 'ws');
    const s = await docWithSquare(newSession(ws));
    const e = await rejects(s, 'save_document_as', { path: 'out/x.tiff' }, 'invalid_arguments');
    expect(e.hint).toContain('format');
    await rejects(s, 'save_document_as', { path: 'noext' }, 'invalid_arguments');
    await rejects(s, 'save_document_as', { path: '../escape.psd' }, 'invalid_arguments');
    await rejects(s, 'save_document_as', { path: '../escape.png' }, 'invalid_arguments');
    await rejects(s, 'save_document_as', { path: path.join(root, 'abs.psd') }, 'invalid_arguments');
    expect(readdirSync(root)).toEqual(['ws']);
  });
});

describe('open_document', () => {
  it('round-trips a layered PSD: layers, positions and pixels; path recorded, not dirty, active', async () => {
    const s = await docWithSquare();
    await ok(s, 'create_layer_group', { name: '组 1' });
    await ok(s, 'save_document_as', { path: 'docs/round.psd' });
    await ok(s, 'close_document');
    const r = await ok(s, 'open_document', { path: 'docs/round.psd' });
    expect(r.document).toMatchObject({
      name: 'round',
      width: 10,
      height: 8,
      resolution: 150,
      path: 'docs/round.psd',
      unsaved_changes: false,
    });
    const names = [...stateOf(s).layers.values()].map((l) => l.name).sort();
    expect(names).toEqual(['sq', '组 1', '背景'].sort());
    const sq = layer(s, 'sq');
    expect(sq.kind).toBe('smart');
    if (sq.kind === 'smart') {
      expect([sq.raster.x, sq.raster.y, sq.raster.w, sq.raster.h]).toEqual([3, 2, 4, 4]);
      expect([...sq.raster.data.subarray(0, 4)]).toEqual([255, 0, 0, 255]);
    }
    expect(s.editor.snapshot.docs[0]!.history.labels).toEqual(['打开文档']);
  });

  it('opens an opaque PNG/JPEG as the background with its DPI, and a transparent PNG as 图层 0', async () => {
    const s = newSession();
    await s.workspace.writeAtomic('flat.png', await pngBytes(5, 4, red, 300));
    const jpg = await sharp({ create: { width: 7, height: 3, channels: 3, background: '#00ff00' } })
      .withDensity(96)
      .jpeg()
      .toBuffer();
    await s.workspace.writeAtomic('photo.JPG', jpg);
    await s.workspace.writeAtomic(
      'cut.png',
      await pngBytes(3, 3, (x) => (x ? [0, 0, 255, 255] : [0, 0, 0, 0])),
    );

    const a = await ok(s, 'open_document', { path: 'flat.png' });
    expect(a.document).toMatchObject({
      name: 'flat',
      width: 5,
      height: 4,
      resolution: 300,
      active_layer: '背景',
    });
    expect(layer(s, '背景')).toMatchObject({ kind: 'pixel', background: true });
    const b = await ok(s, 'open_document', { path: 'photo.JPG' });
    expect(b.document).toMatchObject({ name: 'photo', width: 7, height: 3, resolution: 96 });
    const c = await ok(s, 'open_document', { path: 'cut.png' });
    expect(c.document).toMatchObject({ name: 'cut', active_layer: '图层 0' });
    expect(layer(s, '图层 0')).not.toHaveProperty('background');
    expect((await ok(s, 'list_documents')).documents).toMatchObject([
      { name: 'flat', active: false, unsaved_changes: false, path: 'flat.png' },
      { name: 'photo', active: false },
      { name: 'cut', active: true },
    ]);
  });

  it('keeps a PNG/JPEG resolution under 25.4 DPI (sharp gives none there), and 72.5, whoever wrote the file', async () => {
    const s = newSession();
    const dir = s.workspace.root;
    const expected: [string, number][] = [];
    for (const dpi of [10, 20, 25, 36, 72.5]) {
      // The product's own encoder, through the tool that writes it.
      await ok(s, 'create_document', { width: 6, height: 4, resolution: dpi, name: `ours-${dpi}` });
      for (const ext of ['png', 'jpg']) {
        await ok(s, 'save_document_as', { path: `ours/${dpi}.${ext}` });
        expected.push([`ours/${dpi}.${ext}`, dpi]);
      }
      await ok(s, 'close_document');
      // ImageMagick: pHYs in pixels per metre, JFIF in whole dots per inch (72.5 is stored as 72 there).
      await mkdir(path.join(dir, 'im'), { recursive: true });
      for (const ext of ['png', 'jpg']) {
        const file = path.join(dir, 'im', `${dpi}.${ext}`);
        await run(CONVERT, [
          '-size',
          '6x4',
          'xc:#336699',
          '-density',
          String(dpi),
          '-units',
          'PixelsPerInch',
          file,
        ]);
        expected.push([`im/${dpi}.${ext}`, ext === 'jpg' ? Math.floor(dpi) : dpi]);
      }
    }
    // Dots per centimetre (10/cm = 25.4 DPI, exactly sharp's threshold); no unit is an aspect ratio, no resolution.
    const im = (args: string[], rel: string) =>
      run(CONVERT, ['-size', '6x4', 'xc:#336699', ...args, path.join(dir, rel)]);
    await im(['-density', '10', '-units', 'PixelsPerCentimeter'], 'im/cm.jpg');
    await im(['-density', '10', '-units', 'PixelsPerCentimeter'], 'im/cm.png');
    await im(['-density', '100', '-units', 'Undefined'], 'im/aspect.png');
    await im(['-density', '100', '-units', 'Undefined'], 'im/aspect.jpg');
    expected.push(['im/cm.jpg', 25.4], ['im/cm.png', 25.4], ['im/aspect.png', 72], ['im/aspect.jpg', 72]);

    for (const [rel, dpi] of expected) {
      const r = await ok(s, 'open_document', { path: rel });
      expect((r.document as { resolution: number }).resolution, rel).toBe(dpi);
      await ok(s, 'close_document');
    }
    // Saved as PSD, the billboard keeps its 10 DPI (it printed 7× too small at 72).
    await ok(s, 'open_document', { path: 'im/10.png' });
    const saved = await ok(s, 'save_document');
    const psd = await identifyInfo(await readFile(path.join(dir, saved.path as string)), 'psd');
    expect(psd.dpiX).toBeCloseTo(10, 5);
  });

  it('conflict when the file is open already; another file of the same name opens named by its folder', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 4, height: 4, name: 'same' });
    await ok(s, 'save_document');
    const c = await rejects(s, 'open_document', { path: 'same.psd' }, 'conflict');
    expect(c.hint).toContain('switch_document');
    // Sizes in folders of their own, as garment work keeps them: each opens, the folder telling them apart.
    await s.workspace.writeAtomic('sub/same.png', await pngBytes(2, 2, red));
    await s.workspace.writeAtomic('x/sub/same.png', await pngBytes(2, 2, red));
    const second = await ok(s, 'open_document', { path: 'sub/same.png' });
    expect(second.document).toMatchObject({ name: 'same (sub)', path: 'sub/same.png' });
    expect(second.note).toContain('same (sub)');
    const third = await ok(s, 'open_document', { path: 'x/sub/same.png' });
    expect(third.document).toMatchObject({ name: 'same (sub) 2' });
    await ok(s, 'switch_document', { doc_name: 'same (sub)' });
    await rejects(s, 'open_document', { path: 'sub\\same.png' }, 'conflict');
  });

  it('not_found, unsupported and io_error for bad files', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 4, height: 4, name: 'same' });
    await ok(s, 'save_document');
    await rejects(s, 'open_document', { path: 'missing.png' }, 'not_found');
    await s.workspace.writeAtomic('notes.txt', Buffer.from('hello'));
    await rejects(s, 'open_document', { path: 'notes.txt' }, 'unsupported');
    await s.workspace.writeAtomic('junk.png', Buffer.from('this is not a png at all'));
    await rejects(s, 'open_document', { path: 'junk.png' }, 'unsupported');
    await s.workspace.writeAtomic('junk.psd', Buffer.from('not a psd'));
    await rejects(s, 'open_document', { path: 'junk.psd' }, 'unsupported');
    const psd = await readFile(path.join(s.workspace.root, 'same.psd'));
    await s.workspace.writeAtomic('cut.psd', psd.subarray(0, Math.floor(psd.length / 2)));
    await rejects(s, 'open_document', { path: 'cut.psd' }, 'io_error');
    await rejects(s, 'open_document', { path: '../outside.psd' }, 'invalid_arguments');
  });
});

describe('place_image', () => {
  it('places a PNG as a centred smart object above the active layer, named after the file', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 11, height: 9 });
    await ok(s, 'create_layer', { name: 'top' });
    await ok(s, 'create_layer', { name: 'mid' });
    await writePng(s, 'art/motif.png', 4, 3, (x, y) => [x * 60, y * 80, 0, 255]);
    const r = await ok(s, 'place_image', { path: 'art/motif.png' });
    expect(r).toMatchObject({
      placed: 'art/motif.png',
      source_width: 4,
      source_height: 3,
      layer: { name: 'motif', type: 'smart_object', bounds: { left: 3, top: 3, width: 4, height: 3 } },
    });
    const st = stateOf(s);
    const placed = layer(s, 'motif');
    expect(st.active).toBe(placed.id);
    expect(st.root.map((id) => st.layers.get(id)!.name)).toEqual(['背景', 'top', 'mid', 'motif']);
    if (placed.kind !== 'smart') throw new Error('not smart');
    expect(placed.transform).toEqual({ cx: 5, cy: 4.5, scaleX: 1, scaleY: 1, angle: 0 });
    expect([...placed.source.data.subarray(4, 8)]).toEqual([60, 0, 0, 255]);
    expect(s.editor.snapshot.docs[0]!.history.labels.at(-1)).toBe('置入图像');

    const named = await ok(s, 'place_image', { path: 'art/motif.png', name: '花纹' });
    expect(named.layer).toMatchObject({ name: '花纹' });
  });

  it('places a PSD as its composite', async () => {
    const s = await docWithSquare();
    await ok(s, 'save_document_as', { path: 'part.psd' });
    await ok(s, 'create_document', { width: 20, height: 20, name: 'host' });
    const r = await ok(s, 'place_image', { path: 'part.psd' });
    expect(r).toMatchObject({ source_width: 10, source_height: 8, layer: { name: 'part' } });
    const placed = layer(s, 'part');
    if (placed.kind !== 'smart') throw new Error('not smart');
    const at = (x: number, y: number) => [
      ...placed.source.data.subarray((y * 10 + x) * 4, (y * 10 + x) * 4 + 4),
    ];
    expect(at(4, 3)).toEqual([255, 0, 0, 255]);
    expect(at(0, 0)).toEqual([255, 255, 255, 255]);
  });

  it('sizes as Photoshop places: physical size by resolution, scaled down to fit a canvas it would overflow', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 200, height: 100, resolution: 150 });
    // 300 DPI into 150 DPI: half the pixels, the same inches.
    await s.workspace.writeAtomic('hi.png', await pngBytes(40, 20, red, 300));
    const hi = await ok(s, 'place_image', { path: 'hi.png' });
    expect(hi).toMatchObject({ scale: 50, layer: { bounds: { left: 90, top: 45, width: 20, height: 10 } } });
    expect(hi.note).toContain('300 DPI');
    // A file that records no resolution is taken pixel for pixel, not as 72 DPI.
    await s.workspace.writeAtomic('plain.png', await pngBytes(40, 20, red));
    const plain = await ok(s, 'place_image', { path: 'plain.png' });
    expect(plain).toMatchObject({ scale: 100, layer: { bounds: { width: 40, height: 20 } } });
    expect(plain.note).toBeUndefined();
    // Larger than the canvas: fitted inside it, the source kept whole.
    await s.workspace.writeAtomic('big.png', await pngBytes(800, 200, (x) => [x < 400 ? 255 : 0, 0, 0, 255]));
    const big = await ok(s, 'place_image', { path: 'big.png' });
    expect(big).toMatchObject({
      scale: 25,
      source_width: 800,
      layer: { bounds: { left: 0, top: 25, width: 200, height: 50 } },
    });
    expect(big.note).toContain('缩小到 25%');
    const placed = layer(s, 'big');
    if (placed.kind !== 'smart') throw new Error('not smart');
    expect([placed.source.w, placed.source.h]).toEqual([800, 200]);
    // Scaled back to 400 %, the smart object gives its source's pixels again.
    await ok(s, 'resize_layer', { name: 'big', scale_x: 400 });
    const back = layer(s, 'big');
    if (back.kind !== 'smart') throw new Error('not smart');
    expect([back.raster.w, back.raster.h]).toEqual([800, 200]);
    expect(Buffer.compare(Buffer.from(back.raster.data), Buffer.from(placed.source.data))).toBe(0);
    // pixels: one to one, overflowing; fit: enlarged into the canvas.
    const one = await ok(s, 'place_image', { path: 'big.png', name: 'one', size: 'pixels' });
    expect(one).toMatchObject({ scale: 100, layer: { bounds: { width: 800, height: 200 } } });
    const fit = await ok(s, 'place_image', { path: 'plain.png', name: 'fit', size: 'fit' });
    expect(fit).toMatchObject({
      scale: 500,
      layer: { bounds: { left: 0, top: 0, width: 200, height: 100 } },
    });
    expect(fit.note).toContain('放大到 500%');
    // A JPEG tagged by ImageMagick at 75 DPI: twice the pixels in a 150-DPI document.
    const jpg = path.join(s.workspace.root, 'lo.jpg');
    await run(CONVERT, ['-size', '30x10', 'xc:blue', '-density', '75', '-units', 'PixelsPerInch', jpg]);
    const lo = await ok(s, 'place_image', { path: 'lo.jpg' });
    expect(lo).toMatchObject({ scale: 200, layer: { bounds: { width: 60, height: 20 } } });
    // Enlarged past its pixels, it prints soft: said with the resolution it prints at.
    expect(lo.warnings).toEqual([expect.stringMatching(/放大到 200%.*有效分辨率约 75 DPI，文档 150 DPI/)]);
    expect(fit.warnings).toEqual([expect.stringMatching(/放大到 500%.*有效分辨率约 30 DPI/)]);
    expect(one.warnings).toBeUndefined();
    expect(hi.warnings).toBeUndefined();
  });

  it('embeds the placed file itself in the PSD, as Place Embedded does, for as long as its contents are unchanged', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 300, height: 200, resolution: 150 });
    // A noisy photo: as a PNG of its pixels it would be many times the JPEG's size.
    const jpg = path.join(s.workspace.root, 'photo.jpg');
    await run(CONVERT, [
      '-size',
      '600x400',
      'plasma:red-blue',
      '-density',
      '300',
      '-units',
      'PixelsPerInch',
      jpg,
    ]);
    const jpeg = await readFile(jpg);
    await ok(s, 'place_image', { path: 'photo.jpg' });
    const layered = await docWithSquare();
    await ok(layered, 'create_layer', { name: 'over' });
    await ok(layered, 'save_document_as', { path: 'part.psd' });
    const part = await readFile(path.join(layered.workspace.root, 'part.psd'));
    await s.workspace.writeAtomic('part.psd', part);
    await ok(s, 'place_image', { path: 'part.psd' });
    // Moved and scaled: the contents are still the file's.
    await ok(s, 'resize_layer', { name: 'photo', scale_x: 50 });
    await ok(s, 'save_document_as', { path: 'out.psd' });
    const out = await readFile(path.join(s.workspace.root, 'out.psd'));
    expect(out.length).toBeLessThan(300 * 200 * 4 * 2 + jpeg.length + part.length + 100_000);

    const { dump } = await readWithPsdTools(out);
    const smart = Object.fromEntries(dump.layers.map((l) => [l.name, l.smart]));
    expect(smart.photo).toEqual({
      filename: 'photo.jpg',
      filetype: expect.stringMatching(/jpe?g/i),
      size: jpeg.length,
    });
    expect(smart.part).toEqual({
      filename: 'part.psd',
      filetype: expect.stringMatching(/psd|8bps/i),
      size: part.length,
    });

    // Read back: the same bytes, kept again at the next save; the placed PSD still holds its layers.
    const again = newSession();
    await again.workspace.writeAtomic('out.psd', out);
    await ok(again, 'open_document', { path: 'out.psd' });
    const photo = layer(again, 'photo');
    if (photo.kind !== 'smart') throw new Error('not smart');
    expect(Buffer.compare(Buffer.from(photo.embedded!.file.data as Uint8Array), jpeg)).toBe(0);
    const inner = layer(again, 'part');
    if (inner.kind !== 'smart') throw new Error('not smart');
    const innerPsd = Buffer.from(inner.embedded!.file.data as Uint8Array);
    expect(Buffer.compare(innerPsd, part)).toBe(0);
    const innerDump = (await readWithPsdTools(innerPsd)).dump;
    expect(innerDump.layers.map((l) => l.name)).toEqual(['背景', 'sq', 'over']);

    // Changed contents are no longer the file: a PNG of the new pixels, with a warning.
    await ok(s, 'rasterize_layer', { name: 'photo' });
    const r = await ok(s, 'save_document_as', { path: 'out2.psd' });
    const { dump: dump2 } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'out2.psd')));
    expect(dump2.layers.find((l) => l.name === 'photo')?.kind).toBe('pixel');
    expect(dump2.layers.find((l) => l.name === 'part')?.smart?.size).toBe(part.length);
    expect(JSON.stringify(r)).not.toContain('不再保留');
  });

  it("keeps the placed file through a conversion to CMYK, as Photoshop leaves a smart object's contents", async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 60, height: 40 });
    await writePng(s, 'logo.png', 20, 10, (x) => [x * 12, 200, 40, 255]);
    const png = await readFile(path.join(s.workspace.root, 'logo.png'));
    await ok(s, 'place_image', { path: 'logo.png' });
    await ok(s, 'convert_to_cmyk', {});
    const r = await ok(s, 'save_document_as', { path: 'cmyk.psd' });
    expect(JSON.stringify(r)).not.toContain('不再保留');
    const { dump } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'cmyk.psd')));
    expect(dump.layers.find((l) => l.name === 'logo')?.smart).toMatchObject({ size: png.length });
  });

  it('fails cleanly for missing, unsupported and escaping paths', async () => {
    const s = await docWithSquare();
    await rejects(s, 'place_image', { path: 'nope.png' }, 'not_found');
    await s.workspace.writeAtomic('a.gifx', Buffer.from('x'));
    await rejects(s, 'place_image', { path: 'a.gifx' }, 'unsupported');
    await rejects(s, 'place_image', { path: '../../etc/passwd.png' }, 'invalid_arguments');
  });
});

describe('get_canvas_image', () => {
  it('returns a PNG of the composite scaled to fit max_size, never upscaled; a query', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 100, height: 50 });
    await writePng(s, 'sq.png', 20, 20, red);
    await ok(s, 'place_image', { path: 'sq.png' });
    const history = s.editor.snapshot.docs[0]!.history;
    const r = await ok(s, 'get_canvas_image', { max_size: 40 });
    expect(r).toMatchObject({ width: 40, height: 20, document_width: 100, document_height: 50 });
    const images = r.images as { mime: string; base64: string; caption: string }[];
    expect(images).toHaveLength(1);
    expect(images[0]!.mime).toBe('image/png');
    expect(images[0]!.caption).toContain('100×50');
    const img = await decode(Buffer.from(images[0]!.base64, 'base64'));
    expect([img.width, img.height]).toEqual([40, 20]);
    expect(pixelAt(img, 20, 10)).toEqual([255, 0, 0, 255]);
    expect(pixelAt(img, 2, 2)).toEqual([255, 255, 255, 255]);

    const full = await ok(s, 'get_canvas_image');
    expect(full).toMatchObject({ width: 100, height: 50, scale: 1 });
    const fullImg = await decode(Buffer.from((full.images as { base64: string }[])[0]!.base64, 'base64'));
    expect([fullImg.width, fullImg.height]).toEqual([100, 50]);
    expect(s.editor.snapshot.docs[0]!.history).toBe(history);
  });
});

describe('writes are atomic', () => {
  it('leaves no temporary files behind', async () => {
    const s = await docWithSquare();
    await ok(s, 'save_document_as', { path: 'a/b/c.psd' });
    await ok(s, 'save_document_as', { path: 'a/b/c.png' });
    expect(filesIn(path.join(s.workspace.root, 'a/b'))).toEqual(['c.png', 'c.psd']);
    await writeFile(path.join(s.workspace.root, 'a/b/c.png'), 'old');
    await ok(s, 'save_document_as', { path: 'a/b/c.png' });
    expect((await readFile(path.join(s.workspace.root, 'a/b/c.png')))[1]).toBe(0x50); // 'P' of PNG
  });
});
