/**
 * split_pieces: a marker whose cut pieces share one layer — the example T-shirt merged into one layer, flattened
 * to a JPG, or drawn as outlines only — becomes one layer per piece, which identify_pieces then reads as it reads
 * the original layered PSD; specks are ignored, undo brings the document back, refusals change nothing, and
 * identify_pieces points to split_pieces when it meets a flat or merged marker.
 */
import { createHash } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DocState, PixelLayer, Raster } from '../../src/engine/model.js';
import { blankRaster } from '../../src/engine/raster.js';
import { layerById, layersNamed, setLayer, topDown } from '../../src/engine/tree.js';
import { psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { call, newSession, ok, refused, tempDir } from '../support/session.js';
import { addPixel, current, edit } from './layer-fixtures.js';

const EXAMPLES = path.join(import.meta.dirname, '../../examples/garment');
const ORIGINAL_NAMES = ['图层 1', '图层 2', '图层 3', '图层 4'];

function workspace(): string {
  const dir = tempDir('atelier-split-');
  copyFileSync(path.join(EXAMPLES, 'pieces.psd'), path.join(dir, 'pieces.psd'));
  copyFileSync(path.join(EXAMPLES, 'photo-allover.jpg'), path.join(dir, 'photo-allover.jpg'));
  return dir;
}

function pixelLayer(state: DocState, name: string): PixelLayer {
  const l = layersNamed(state, name)[0];
  if (l?.kind !== 'pixel') throw new Error(`no pixel layer ${name}`);
  return l;
}

function alphaAt(r: Raster, x: number, y: number): number {
  const u = x - r.x;
  const v = y - r.y;
  return u < 0 || v < 0 || u >= r.w || v >= r.h ? 0 : r.data[(v * r.w + u) * 4 + 3]!;
}

/** Over the union of both rectangles: pixels whose alpha differs, and the IoU of the half-opaque masks. */
function compare(a: Raster, b: Raster): { differing: number; iou: number } {
  const x0 = Math.min(a.x, b.x);
  const y0 = Math.min(a.y, b.y);
  const x1 = Math.max(a.x + a.w, b.x + b.w);
  const y1 = Math.max(a.y + a.h, b.y + b.h);
  let differing = 0;
  let both = 0;
  let either = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const p = alphaAt(a, x, y);
      const q = alphaAt(b, x, y);
      if (p !== q) differing++;
      if (p >= 128 && q >= 128) both++;
      if (p >= 128 || q >= 128) either++;
    }
  }
  return { differing, iou: both / either };
}

function overlapArea(a: Raster, b: Raster): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return Math.max(0, w) * Math.max(0, h);
}

/** Each split piece's original layer: the one whose rectangle it overlaps most. */
function originalsOf(
  originals: DocState,
  split: DocState,
  pieces: readonly string[],
): Map<string, { name: string; raster: Raster; piece: Raster }> {
  const out = new Map<string, { name: string; raster: Raster; piece: Raster }>();
  for (const p of pieces) {
    const piece = pixelLayer(split, p).raster;
    const best = ORIGINAL_NAMES.map((n) => ({ name: n, raster: pixelLayer(originals, n).raster })).sort(
      (a, b) => overlapArea(b.raster, piece) - overlapArea(a.raster, piece),
    )[0]!;
    out.set(p, { ...best, piece });
  }
  return out;
}

/** A content hash of the active document's current state (layers, tree, pixels), history aside. */
function stateKey(state: DocState): string {
  const layers = [...topDown(state)].map(({ layer }) => {
    const { raster, ...meta } = layer as PixelLayer;
    const sum = raster ? createHash('sha256').update(raster.data).digest('hex') : null;
    return [meta, raster ? [raster.x, raster.y, raster.w, raster.h, sum] : null];
  });
  return JSON.stringify({ layers, active: state.active, root: state.root });
}

type Parts = Record<string, { part: string; turn?: number }>;

function partsOf(r: Record<string, unknown>): Parts {
  return Object.fromEntries(
    (r.pieces as { name: string; part: string; turn?: number }[]).map((p) => [
      p.name,
      { part: p.part, ...(p.turn !== undefined ? { turn: p.turn } : {}) },
    ]),
  );
}

const piecesNamed = (r: Record<string, unknown>) => (r.pieces as { name: string }[]).map((p) => p.name);
const warningsOf = (r: Record<string, unknown>) => (r.warnings as string[] | undefined) ?? [];

describe('split_pieces', () => {
  let originals: DocState;
  let originalParts: Parts;

  beforeAll(async () => {
    const s = newSession(workspace());
    await ok(s, 'open_document', { path: 'pieces.psd' });
    originals = current(s);
    originalParts = partsOf(await ok(s, 'identify_pieces'));
  });

  it('splits the merged example pieces into 4 layers with the original layers’ alpha, read as the PSD is', async () => {
    const s = newSession(workspace());
    await ok(s, 'open_document', { path: 'pieces.psd' });
    await ok(s, 'merge_visible');
    const merged = await ok(s, 'identify_pieces');
    expect(Object.keys(partsOf(merged))).toEqual(['图层 1']);
    expect(warningsOf(merged).some((w) => w.includes('split_pieces') && w.includes('“图层 1”'))).toBe(true);

    const r = await ok(s, 'split_pieces');
    expect(r).toMatchObject({ source: '图层 1', source_hidden: true, ignored: 0 });
    expect(piecesNamed(r)).toEqual(['裁片 1', '裁片 2', '裁片 3', '裁片 4']);
    expect(r.next).toContain('identify_pieces');
    const state = current(s);
    expect(pixelLayer(state, '图层 1').visible).toBe(false);
    // Above the hidden source, 裁片 1 lowest; the front (图层 3) is read first, then the back, the sleeves top down.
    expect([...topDown(state)].map((e) => e.layer.name)).toEqual([
      '裁片 4',
      '裁片 3',
      '裁片 2',
      '裁片 1',
      '图层 1',
    ]);
    const map = originalsOf(originals, state, piecesNamed(r));
    expect([...map.values()].map((m) => m.name)).toEqual(['图层 3', '图层 1', '图层 4', '图层 2']);
    for (const [name, m] of map) expect(compare(m.raster, m.piece).differing, name).toBe(0);

    const identified = await ok(s, 'identify_pieces');
    expect(warningsOf(identified).filter((w) => w.includes('split_pieces'))).toEqual([]);
    const parts = partsOf(identified);
    for (const [name, m] of map) expect(parts[name], name).toEqual(originalParts[m.name]);
    expect(new Set(Object.values(parts).map((p) => p.part))).toEqual(
      new Set(['front', 'back', 'left_sleeve', 'right_sleeve']),
    );
  });

  it('splits a flat JPG of the marker and the whole garment flow runs on the pieces', async () => {
    const s = newSession(workspace());
    await ok(s, 'open_document', { path: 'pieces.psd' });
    await ok(s, 'flatten_image');
    await ok(s, 'save_document_as', { path: 'flat.jpg' });
    await ok(s, 'open_document', { path: 'flat.jpg' });
    await ok(s, 'set_garment_photo', { path: 'photo-allover.jpg' });
    const before = await call(s, 'identify_pieces');
    expect(before.ok).toBe(false);
    if (before.ok) return;
    expect(before.error.hint).toContain('split_pieces');

    const r = await ok(s, 'split_pieces');
    expect(r).toMatchObject({ source: '背景', background: '#ffffff', ignored: 0 });
    expect(piecesNamed(r)).toHaveLength(4);
    const map = originalsOf(originals, current(s), piecesNamed(r));
    expect(new Set([...map.values()].map((m) => m.name))).toEqual(new Set(ORIGINAL_NAMES));
    for (const [name, m] of map) expect(compare(m.raster, m.piece).iou, name).toBeGreaterThanOrEqual(0.98);

    const identified = await ok(s, 'identify_pieces');
    const parts = partsOf(identified);
    for (const [name, m] of map) expect(parts[name]?.part, name).toBe(originalParts[m.name]!.part);
    await ok(s, 'generate_garment_preview');
    const applied = await ok(s, 'extract_and_apply_all_pieces', {
      pieces: piecesNamed(r).map((name) => ({ name, type: 'fill_pattern' })),
    });
    expect(JSON.stringify(applied)).toContain('裁片 1');
    await ok(s, 'verify_pattern_result');
  }, 240_000);

  it('fills an outline-only marker’s pieces, labels inside kept, and saves a PSD psd-tools reads', async () => {
    const s = newSession(workspace());
    await ok(s, 'open_document', { path: 'pieces.psd' });
    for (const name of ORIGINAL_NAMES) {
      await ok(s, 'add_stroke', { name, size: 3, color: '#000000', position: 'inside' });
      await ok(s, 'set_layer_fill_opacity', { name, fill_opacity: 0 });
    }
    // A label and a grain line inside the front (图层 3: 12…769 × 12…896), as pattern drawings carry them.
    await ok(s, 'create_text_layer', { text: '前片 M', x: 300, y: 420, font_size: 48 });
    await ok(s, 'create_text_layer', { text: '|', x: 380, y: 520, font_size: 200 });
    await ok(s, 'flatten_image');
    const r = await ok(s, 'split_pieces');
    expect(piecesNamed(r)).toHaveLength(4);
    expect(r.enclosed).toBeGreaterThanOrEqual(2);
    const state = current(s);
    const map = originalsOf(originals, state, piecesNamed(r));
    expect(new Set([...map.values()].map((m) => m.name))).toEqual(new Set(ORIGINAL_NAMES));
    for (const [name, m] of map) {
      expect(compare(m.raster, m.piece).iou, name).toBeGreaterThanOrEqual(0.98);
      // Opaque right through: the outline's inside, white on the drawing, is part of the piece.
      const cx = m.piece.x + Math.floor(m.piece.w / 2);
      const cy = m.piece.y + Math.floor(m.piece.h * 0.7);
      expect(alphaAt(m.piece, cx, cy), name).toBe(255);
    }
    const front = [...map.values()].find((m) => m.name === '图层 3')!.piece;
    let ink = 0;
    for (let y = 420; y < 480; y++) {
      for (let x = 300; x < 460; x++) {
        const i = ((y - front.y) * front.w + (x - front.x)) * 4;
        if (front.data[i]! < 100) ink++;
      }
    }
    expect(ink).toBeGreaterThan(50);
    expect(partsOf(await ok(s, 'identify_pieces'))).toBeTruthy();

    await ok(s, 'save_document_as', { path: 'split.psd' });
    if (!psdToolsAvailable()) return;
    const { dump } = await readWithPsdTools(await readFile(path.join(s.workspace.root, 'split.psd')));
    expect(dump.layers.map((l) => [l.name, l.kind, l.visible])).toEqual([
      ['背景', 'pixel', false],
      ['裁片 1', 'pixel', true],
      ['裁片 2', 'pixel', true],
      ['裁片 3', 'pixel', true],
      ['裁片 4', 'pixel', true],
    ]);
    const p1 = pixelLayer(state, '裁片 1').raster;
    expect(dump.layers[1]!.bbox).toEqual([p1.x, p1.y, p1.x + p1.w, p1.y + p1.h]);
  });

  it('ignores specks and stray marks, and undo restores the document exactly', async () => {
    const s = newSession(workspace());
    await ok(s, 'open_document', { path: 'pieces.psd' });
    await ok(s, 'merge_visible');
    // Three specks and a short stray line in the gaps between the pieces.
    edit(s, (st) => {
      const layer = pixelLayer(st, '图层 1');
      const r = layer.raster;
      const data = new Uint8ClampedArray(r.data);
      const dot = (x0: number, y0: number, w: number, h: number) => {
        for (let y = y0; y < y0 + h; y++) {
          for (let x = x0; x < x0 + w; x++) data.set([0, 0, 0, 255], ((y - r.y) * r.w + (x - r.x)) * 4);
        }
      };
      dot(1600, 700, 3, 3);
      dot(1700, 800, 4, 4);
      dot(1900, 750, 2, 2);
      dot(1600, 860, 200, 2);
      // A small piece of its own, a welt or a tab: about 0.5 % of the front, a piece all the same.
      dot(1980, 680, 50, 52);
      return setLayer(st, { ...layer, raster: { ...r, data } });
    });
    const before = current(s);
    const key = stateKey(before);
    const r = await ok(s, 'split_pieces', { name: '图层 1' });
    expect(piecesNamed(r)).toHaveLength(5);
    expect(r.ignored).toBe(4);
    expect(r.next).toContain('4 个太小的区域');
    await ok(s, 'undo');
    expect(stateKey(current(s))).toBe(key);
    expect(current(s).layers.size).toBe(1);
  });

  it('refuses a group, a text layer, a locked, masked or empty layer, and a layer that is one piece', async () => {
    const s = newSession(workspace());
    await ok(s, 'open_document', { path: 'pieces.psd' });
    const one = await refused(s, 'split_pieces', { name: '图层 1' }, 'invalid_state');
    expect(one.message).toContain('无需拆分');
    expect(one.hint).toContain('identify_pieces');
    await ok(s, 'create_layer_group', { name: '组' });
    expect((await refused(s, 'split_pieces', { name: '组' }, 'invalid_state')).message).toContain('图层组');
    await ok(s, 'create_text_layer', { text: '款号 A1', x: 10, y: 10, font_size: 20 });
    expect((await refused(s, 'split_pieces', {}, 'invalid_state')).message).toContain('文字图层');
    await ok(s, 'create_layer', { name: '空' });
    expect((await refused(s, 'split_pieces', {}, 'invalid_state')).message).toContain('是空的');
    await ok(s, 'merge_visible');
    const merged = layerById(current(s), current(s).active!).name;
    await ok(s, 'lock_layer', { name: merged, locked: true });
    await refused(s, 'split_pieces', { name: merged }, 'locked');
    await ok(s, 'lock_layer', { name: merged, locked: false });
    await ok(s, 'add_layer_mask', { name: merged });
    expect((await refused(s, 'split_pieces', { name: merged }, 'invalid_state')).hint).toContain(
      'delete_layer_mask',
    );
    await refused(s, 'split_pieces', { name: '没有这层' }, 'not_found');
  });

  it('fills an outline drawn on transparency with thin diagonal lines, white inside, and reads rows in order', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 200, height: 160 });
    // Two 1-px diamond outlines in the top row (right one first in the layer), a filled square below them.
    const r = blankRaster({ x: 0, y: 0, w: 200, h: 160 });
    const put = (x: number, y: number) => r.data.set([200, 0, 0, 255], (y * 200 + x) * 4);
    for (const cx of [140, 50]) {
      for (let k = 0; k <= 30; k++) {
        put(cx - 30 + k, 40 - k);
        put(cx + k, 10 + k);
        put(cx + 30 - k, 40 + k);
        put(cx - k, 70 - k);
      }
    }
    for (let y = 100; y < 150; y++) for (let x = 20; x < 70; x++) put(x, y);
    edit(s, (st) => addPixel(st, '线稿', r, {}, null));
    const out = await ok(s, 'split_pieces', { name: '线稿' });
    expect(
      (out.pieces as { bounds: { left: number; top: number } }[]).map((p) => [p.bounds.left, p.bounds.top]),
    ).toEqual([
      [20, 10],
      [110, 10],
      [20, 100],
    ]);
    const left = pixelLayer(current(s), '裁片 1').raster;
    expect([...left.data.subarray(((40 - 10) * left.w + 30) * 4, ((40 - 10) * left.w + 30) * 4 + 4)]).toEqual(
      [255, 255, 255, 255],
    );
    expect(alphaAt(left, 20, 10)).toBe(0); // outside the diamond, inside its box
  });

  it('finds nothing on a blank page or a plain colour layer, and says so with nothing changed', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 120, height: 80 });
    expect((await refused(s, 'split_pieces', {}, 'invalid_state')).message).toContain('纯色图层');
    await ok(s, 'create_layer', { name: '纸' });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 120, bottom: 80 });
    await ok(s, 'fill_selection', { color: '#f0f0e8' });
    expect((await refused(s, 'split_pieces', { name: '纸' }, 'invalid_state')).message).toContain(
      '没有找到裁片',
    );
  });
});
