/**
 * Group C masks (create_clipping_mask, release_clipping_mask, add_layer_mask, delete_layer_mask) driven through
 * the real Session. Composite pixels are checked against W3C source-atop for clipping and against the masked
 * composite for applying a mask; the saved PSD against psd-tools.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { renderDocument } from '../../src/engine/composite/index.js';
import type { Layer, Raster, TextLayer } from '../../src/engine/model.js';
import { flattenPsdTools, psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { hashEditor, newSession, ok, refused } from '../support/session.js';
import { addGroup, addPixel, current, edit, idOf, named, px, rasterOf, solid } from './layer-fixtures.js';

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

function sameBytes(a: Raster, b: Raster): boolean {
  return Buffer.compare(Buffer.from(a.data), Buffer.from(b.data)) === 0;
}

function maxDiff(a: Raster, b: Raster): number {
  let worst = 0;
  for (let i = 0; i < a.data.length; i++) worst = Math.max(worst, Math.abs(a.data[i]! - b.data[i]!));
  return worst;
}

/**
 * 40×40, white background; 'base': a 20×20 blue square at (10, 10) whose right half (x ≥ 20) is 50 % alpha;
 * 'top': opaque red over the whole canvas.
 */
async function clipSetup(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 40, height: 40 });
  const base = solid({ x: 10, y: 10, w: 20, h: 20 }, [0, 0, 255, 255]);
  for (let y = 0; y < 20; y++) for (let x = 10; x < 20; x++) base.data[(y * 20 + x) * 4 + 3] = 128;
  edit(s, (st) =>
    addPixel(addPixel(st, 'base', base), 'top', solid({ x: 0, y: 0, w: 40, h: 40 }, [255, 0, 0, 255])),
  );
  return s;
}

describe('create_clipping_mask', () => {
  it('clips the layer to the alpha of the layer below (W3C source-atop over the base)', async () => {
    const s = await clipSetup();
    const r = await ok(s, 'create_clipping_mask', { name: 'top' });
    expect(r.base).toBe('base');
    expect(layer(s, 'top').clipped).toBe(true);
    expect((r.layer as { clipped?: boolean }).clipped).toBe(true);
    expect(labels(s).at(-1)).toBe('创建剪贴蒙版');
    const c = composite(s);
    // Outside the base's alpha: the clipped red is invisible, the white background shows.
    for (const [x, y] of [
      [0, 0],
      [5, 20],
      [35, 35],
      [9, 9],
      [30, 15],
    ] as const) {
      expect(px(c, x, y), `${x},${y}`).toEqual([255, 255, 255, 255]);
    }
    // Inside the opaque part of the base: red replaces blue.
    expect(px(c, 12, 12)).toEqual([255, 0, 0, 255]);
    // Over the 50 % part: source-atop keeps the base's alpha (128/255), colour red; over white that is
    // r = 255, g = b = 255 · (1 − 128/255).
    const a = 128 / 255;
    const half = px(c, 25, 20);
    const expected = [255, 255 * (1 - a), 255 * (1 - a), 255];
    expect(
      half.every((v, i) => Math.abs(v - expected[i]!) <= 1),
      `${half}`,
    ).toBe(true);
  });

  it('an already clipped layer: ok, a note, no step; joining a clipping group clips to its base', async () => {
    const s = await clipSetup();
    edit(s, (st) => addPixel(st, 'upper', solid({ x: 0, y: 0, w: 5, h: 5 }, [0, 255, 0, 255])));
    await ok(s, 'create_clipping_mask', { name: 'top' });
    const steps = labels(s).length;
    const hash = hashEditor(s.editor.snapshot);
    const again = await ok(s, 'create_clipping_mask', { name: 'top' });
    expect(again.changed).toBe(false);
    expect(again.base).toBe('base');
    expect(labels(s).length).toBe(steps);
    expect(hashEditor(s.editor.snapshot)).toBe(hash);
    // 'upper' sits on the clipped 'top': clipping it joins the group whose base is 'base'.
    const r = await ok(s, 'create_clipping_mask', { name: 'upper' });
    expect(r.base).toBe('base');
    // Its green square lies outside the base: invisible.
    expect(px(composite(s), 2, 2)).toEqual([255, 255, 255, 255]);
  });

  it('refuses the bottom layer of a group, a layer right above the background, the background, locked layers', async () => {
    const s = await clipSetup();
    edit(s, (st) => {
      let n = addGroup(st, '组');
      n = addPixel(n, '组底', solid({ x: 0, y: 0, w: 4, h: 4 }, [0, 0, 0, 255]), {}, idOf(n, '组'));
      n = addPixel(
        n,
        '组顶',
        solid({ x: 0, y: 0, w: 4, h: 4 }, [9, 9, 9, 255]),
        {
          locks: { all: true, pixels: false, position: false, transparency: false },
        },
        idOf(n, '组'),
      );
      return n;
    });
    let e = await refused(s, 'create_clipping_mask', { name: '组底' }, 'invalid_state');
    expect(e.message).toContain('最底部');
    e = await refused(s, 'create_clipping_mask', { name: 'base' }, 'invalid_state');
    expect(e.message).toContain('背景');
    await refused(s, 'create_clipping_mask', { name: '背景' }, 'invalid_state');
    await refused(s, 'create_clipping_mask', { name: '组顶' }, 'locked');
    await refused(s, 'create_clipping_mask', { name: '没有' }, 'not_found');
    // Inside a group, the layer below in the same group is the base.
    await ok(s, 'lock_layer', { name: '组顶', locked: false });
    const r = await ok(s, 'create_clipping_mask', { name: '组顶' });
    expect(r.base).toBe('组底');
  });

  it('undo unclips', async () => {
    const s = await clipSetup();
    const before = composite(s);
    await ok(s, 'create_clipping_mask', { name: 'top' });
    await ok(s, 'undo');
    expect(layer(s, 'top').clipped).toBe(false);
    expect(sameBytes(composite(s), before)).toBe(true);
  });
});

describe('release_clipping_mask', () => {
  /** base, then c1, c2, c3 clipped to it, then 'free' unclipped. */
  async function chain(): Promise<Session> {
    const s = await clipSetup();
    edit(s, (st) => {
      let n = st;
      for (const name of ['c1', 'c2'])
        n = addPixel(n, name, solid({ x: 0, y: 0, w: 2, h: 2 }, [0, 0, 0, 255]));
      n = addPixel(n, 'free', solid({ x: 0, y: 0, w: 2, h: 2 }, [0, 0, 0, 255]));
      return n;
    });
    for (const name of ['top', 'c1', 'c2']) await ok(s, 'create_clipping_mask', { name });
    return s;
  }

  it('releases the layer and the clipped layers above it, not those below', async () => {
    const s = await chain();
    const r = await ok(s, 'release_clipping_mask', { name: 'c1' });
    expect(r.released).toEqual(['c1', 'c2']);
    expect(r.base).toBe('base');
    expect(['top', 'c1', 'c2', 'free'].map((n) => layer(s, n).clipped)).toEqual([true, false, false, false]);
    expect(labels(s).at(-1)).toBe('释放剪贴蒙版');
    expect(current(s).active).toBe(idOf(current(s), 'c1'));
  });

  it('on a base, releases every layer clipped to it; the released layer shows in full again', async () => {
    const s = await chain();
    const r = await ok(s, 'release_clipping_mask', { name: 'base' });
    expect(r.released).toEqual(['top', 'c1', 'c2']);
    expect(['top', 'c1', 'c2'].map((n) => layer(s, n).clipped)).toEqual([false, false, false]);
    // 'top' covers the canvas again.
    expect(px(composite(s), 35, 35)).toEqual([255, 0, 0, 255]);
  });

  it('a layer that is neither clipped nor a base: ok, a note, no step', async () => {
    const s = await chain();
    const steps = labels(s).length;
    const layers = current(s).layers;
    const r = await ok(s, 'release_clipping_mask', { name: 'free' });
    expect(r.changed).toBe(false);
    expect(r.released).toEqual([]);
    expect(r.note).toBeTruthy();
    expect(labels(s).length).toBe(steps);
    // Only the active layer changed (not a history step); every layer is the same object.
    expect(current(s).layers).toBe(layers);
    expect(current(s).active).toBe(idOf(current(s), 'free'));
    // Called again: nothing at all changes.
    const hash = hashEditor(s.editor.snapshot);
    await ok(s, 'release_clipping_mask', { name: 'free' });
    expect(hashEditor(s.editor.snapshot)).toBe(hash);
  });

  it('refuses when a layer to release is locked, and unknown layers', async () => {
    const s = await chain();
    await ok(s, 'lock_layer', { name: 'c2', locked: true });
    await refused(s, 'release_clipping_mask', { name: 'c1' }, 'locked');
    await refused(s, 'release_clipping_mask', { name: 'x' }, 'not_found');
  });
});

describe('add_layer_mask', () => {
  /** 30×30, white; 'L': opaque green 20×20 at (5, 5). */
  async function maskSetup(): Promise<Session> {
    const s = newSession();
    await ok(s, 'create_document', { width: 30, height: 30 });
    edit(s, (st) => addPixel(st, 'L', solid({ x: 5, y: 5, w: 20, h: 20 }, [0, 200, 0, 255])));
    return s;
  }

  it('reveal all (default, no selection) shows everything; hide all hides the layer', async () => {
    const s = await maskSetup();
    const withLayer = composite(s);
    const raster = rasterOf(layer(s, 'L'));
    const r = await ok(s, 'add_layer_mask', { name: 'L' });
    expect(r.from).toBe('reveal_all');
    expect(layer(s, 'L').mask).toMatchObject({ w: 0, h: 0, outside: 255, enabled: true });
    expect(rasterOf(layer(s, 'L'))).toBe(raster);
    expect(sameBytes(composite(s), withLayer)).toBe(true);
    expect(labels(s).at(-1)).toBe('添加蒙版');

    await ok(s, 'delete_layer_mask', { name: 'L' });
    const h = await ok(s, 'add_layer_mask', { name: 'L', hide_all: true });
    expect(h.from).toBe('hide_all');
    expect(layer(s, 'L').mask).toMatchObject({ w: 0, h: 0, outside: 0, enabled: true });
    const c = composite(s);
    for (let i = 0; i < c.data.length; i++) expect(c.data[i]).toBe(255); // white background only
  });

  it('with a selection (hide_all not true) the selection becomes the mask and is used up', async () => {
    const s = await maskSetup();
    await ok(s, 'select_rect', { left: 10, top: 8, right: 20, bottom: 18 });
    const sel = current(s).selection!;
    const r = await ok(s, 'add_layer_mask', { name: 'L' });
    expect(r.from).toBe('selection');
    const m = layer(s, 'L').mask!;
    expect([m.x, m.y, m.w, m.h, m.outside, m.enabled]).toEqual([
      sel.x,
      sel.y,
      sel.w,
      sel.h,
      sel.outside,
      true,
    ]);
    expect(current(s).selection).toBeNull();
    const c = composite(s);
    for (let y = 0; y < 30; y++) {
      for (let x = 0; x < 30; x++) {
        const shown = x >= 10 && x < 20 && y >= 8 && y < 18; // inside both the layer and the selection
        expect(px(c, x, y), `${x},${y}`).toEqual(shown ? [0, 200, 0, 255] : [255, 255, 255, 255]);
      }
    }
    // One step; undo brings back both the selection and the unmasked layer.
    await ok(s, 'undo');
    expect(layer(s, 'L').mask).toBeUndefined();
    expect(current(s).selection).toBe(sel);
  });

  it('hide_all: true ignores the selection (hides all, selection kept)', async () => {
    const s = await maskSetup();
    await ok(s, 'select_rect', { left: 10, top: 8, right: 20, bottom: 18 });
    const sel = current(s).selection;
    const r = await ok(s, 'add_layer_mask', { name: 'L', hide_all: 'true' });
    expect(r.from).toBe('hide_all');
    expect(current(s).selection).toBe(sel);
    expect(layer(s, 'L').mask?.outside).toBe(0);
  });

  it('a group mask hides the group’s content', async () => {
    const s = await maskSetup();
    edit(s, (st) => {
      const n = addGroup(st, 'G');
      return addPixel(n, 'inG', solid({ x: 0, y: 0, w: 30, h: 30 }, [0, 0, 255, 255]), {}, idOf(n, 'G'));
    });
    await ok(s, 'select_rect', { left: 0, top: 0, right: 15, bottom: 30 });
    await ok(s, 'add_layer_mask', { name: 'G' });
    const c = composite(s);
    expect(px(c, 5, 5)).toEqual([0, 0, 255, 255]);
    expect(px(c, 20, 20)).toEqual([0, 200, 0, 255]); // the green layer below shows through the masked half
    expect(px(c, 27, 2)).toEqual([255, 255, 255, 255]);
  });

  it('refuses the background, a layer that already has a mask, locked layers', async () => {
    const s = await maskSetup();
    let e = await refused(s, 'add_layer_mask', { name: '背景' }, 'invalid_state');
    expect(e.message).toContain('背景');
    // A pixel background (after flattening) too.
    const p = newSession();
    await ok(p, 'create_document', { width: 10, height: 10 });
    edit(p, (st) => addPixel(st, 'x', solid({ x: 0, y: 0, w: 3, h: 3 }, [1, 2, 3, 255])));
    await ok(p, 'flatten_image');
    const flat = current(p).layers.get(current(p).root[0]!)!;
    expect(flat.kind === 'pixel' && flat.background).toBe(true);
    await refused(p, 'add_layer_mask', { name: flat.name }, 'invalid_state');

    await ok(s, 'add_layer_mask', { name: 'L', hide_all: true });
    e = await refused(s, 'add_layer_mask', { name: 'L' }, 'invalid_state');
    expect(e.hint).toContain('delete_layer_mask');
    await ok(s, 'delete_layer_mask', { name: 'L' });
    await ok(s, 'lock_layer', { name: 'L', locked: true });
    await refused(s, 'add_layer_mask', { name: 'L' }, 'locked');
    await refused(s, 'add_layer_mask', { name: 'L', hide_all: 'maybe' }, 'invalid_arguments');
  });
});

describe('delete_layer_mask', () => {
  /** 30×30, white; 'L': green 20×20 at (5, 5) with alpha 200; a feathered selection mask on it. */
  async function masked(): Promise<Session> {
    const s = newSession();
    await ok(s, 'create_document', { width: 30, height: 30 });
    edit(s, (st) => addPixel(st, 'L', solid({ x: 5, y: 5, w: 20, h: 20 }, [0, 200, 0, 200])));
    await ok(s, 'select_rect', { left: 8, top: 0, right: 18, bottom: 30 });
    await ok(s, 'feather_selection', { radius: 2 });
    await ok(s, 'add_layer_mask', { name: 'L' });
    return s;
  }

  it('apply: alpha × mask into the pixels; the composite stays the masked one', async () => {
    const s = await masked();
    const before = composite(s);
    const old = layer(s, 'L');
    const mask = old.mask!;
    expect(mask.data.some((v) => v > 0 && v < 255)).toBe(true); // soft edges
    const r = await ok(s, 'delete_layer_mask', { name: 'L', apply: true });
    expect(r.applied).toBe(true);
    expect(labels(s).at(-1)).toBe('删除蒙版');
    const now = layer(s, 'L');
    expect(now.mask).toBeUndefined();
    const rs = rasterOf(now);
    // Every pixel: alpha = round(200 · m / 255), written plainly.
    let worst = 0;
    for (let y = 0; y < 30; y++) {
      for (let x = 0; x < 30; x++) {
        const inLayer = x >= 5 && x < 25 && y >= 5 && y < 25;
        const mx = x - mask.x;
        const my = y - mask.y;
        const m =
          mx >= 0 && my >= 0 && mx < mask.w && my < mask.h ? mask.data[my * mask.w + mx]! : mask.outside;
        const a = inLayer ? Math.round((200 * m) / 255) : 0;
        worst = Math.max(worst, Math.abs(px(rs, x, y)[3]! - a));
        if (a > 0) expect(px(rs, x, y).slice(0, 3)).toEqual([0, 200, 0]);
      }
    }
    expect(worst).toBe(0);
    // The raster was trimmed to what is left.
    expect(rs.x).toBeGreaterThanOrEqual(5);
    expect(rs.w).toBeLessThan(20);
    // The composite is the masked composite (±1 for rounding alpha to 8 bits first).
    expect(maxDiff(composite(s), before)).toBeLessThanOrEqual(1);
    // An independent full render agrees with the cached composite.
    expect(maxDiff(renderDocument(current(s)), composite(s))).toBe(0);
    await ok(s, 'undo');
    expect(layer(s, 'L')).toBe(old);
  });

  it('discard: the pixels stay the same buffer and show in full again', async () => {
    const s = await masked();
    const old = layer(s, 'L');
    const r = await ok(s, 'delete_layer_mask', { name: 'L' });
    expect(r.applied).toBe(false);
    const now = layer(s, 'L');
    expect(now.mask).toBeUndefined();
    expect(rasterOf(now)).toBe(rasterOf(old));
    // Alpha 200 green over white everywhere in the square.
    const c = composite(s);
    const k = 200 / 255;
    const expected = [255 * (1 - k), 200 * k + 255 * (1 - k), 255 * (1 - k), 255];
    for (const [x, y] of [
      [6, 6],
      [24, 24],
      [13, 13],
    ] as const) {
      const p = px(c, x, y);
      expect(
        p.every((v, i) => Math.abs(v - expected[i]!) <= 1),
        `${x},${y}: ${p}`,
      ).toBe(true);
    }
  });

  it('refuses: no mask, applying to text / smart objects / groups, locks; discarding them is fine', async () => {
    const s = await masked();
    await ok(s, 'delete_layer_mask', { name: 'L' });
    let e = await refused(s, 'delete_layer_mask', { name: 'L' }, 'invalid_state');
    expect(e.hint).toContain('add_layer_mask');

    await ok(s, 'create_text_layer', { text: '字', x: 2, y: 2, font_size: 12 });
    const t = current(s).layers.get(current(s).active!) as TextLayer;
    await ok(s, 'add_layer_mask', { name: t.name, hide_all: true });
    e = await refused(s, 'delete_layer_mask', { name: t.name, apply: true }, 'invalid_state');
    expect(e.hint).toContain('rasterize_layer');
    await ok(s, 'delete_layer_mask', { name: t.name, apply: false });
    expect(layer(s, t.name).kind).toBe('text');

    await ok(s, 'convert_to_smart_object', { name: 'L' });
    await ok(s, 'add_layer_mask', { name: 'L', hide_all: true });
    e = await refused(s, 'delete_layer_mask', { name: 'L', apply: true }, 'invalid_state');
    expect(e.hint).toContain('rasterize_layer');
    // After rasterizing, applying works.
    await ok(s, 'rasterize_layer', { name: 'L' });
    await ok(s, 'delete_layer_mask', { name: 'L', apply: true });
    expect(rasterOf(layer(s, 'L')).w).toBe(0); // hide-all applied: nothing left

    edit(s, (st) => addGroup(st, 'G'));
    await ok(s, 'add_layer_mask', { name: 'G' });
    await refused(s, 'delete_layer_mask', { name: 'G', apply: true }, 'invalid_state');
    await ok(s, 'lock_layer', { name: 'G', locked: true });
    await refused(s, 'delete_layer_mask', { name: 'G' }, 'locked');
  });
});

describe('PSD', () => {
  it.runIf(psdToolsAvailable())(
    'masks (bounds, default colour) and clipping read back by psd-tools and by open_document',
    async () => {
      const s = newSession();
      await ok(s, 'create_document', { width: 40, height: 40 });
      edit(s, (st) => {
        let n = addPixel(st, 'base', solid({ x: 10, y: 10, w: 20, h: 20 }, [0, 0, 255, 255]));
        n = addPixel(n, 'clip', solid({ x: 0, y: 0, w: 40, h: 40 }, [255, 0, 0, 255]));
        n = addPixel(n, 'sel', solid({ x: 0, y: 0, w: 10, h: 10 }, [0, 255, 0, 255]));
        n = addPixel(n, 'reveal', solid({ x: 30, y: 30, w: 5, h: 5 }, [0, 255, 0, 255]));
        return addPixel(n, 'hide', solid({ x: 30, y: 0, w: 5, h: 5 }, [0, 255, 0, 255]));
      });
      await ok(s, 'create_clipping_mask', { name: 'clip' });
      await ok(s, 'select_rect', { left: 2, top: 3, right: 8, bottom: 9 });
      await ok(s, 'add_layer_mask', { name: 'sel' });
      await ok(s, 'add_layer_mask', { name: 'reveal' });
      await ok(s, 'add_layer_mask', { name: 'hide', hide_all: true });
      const expected = composite(s);
      await ok(s, 'save_document_as', { path: 'out/masks.psd' });
      const bytes = await readFile(path.join(s.workspace.root, 'out/masks.psd'));
      const {
        dump,
        composite: theirs,
        merged,
      } = await readWithPsdTools(bytes, { composite: true, merged: true });
      const layers = flattenPsdTools(dump.layers);
      const by = (n: string) => layers.find((l) => l.name === n)!;
      expect(by('clip').clipping).toBe(true);
      expect(by('base').clipping).toBe(false);
      expect(by('sel').mask).toEqual({ bbox: [2, 3, 8, 9], defaultColor: 0, disabled: false });
      expect(by('reveal').mask).toEqual({ bbox: [0, 0, 0, 0], defaultColor: 255, disabled: false });
      expect(by('hide').mask).toEqual({ bbox: [0, 0, 0, 0], defaultColor: 0, disabled: false });
      expect(by('base').mask).toBeNull();
      // The merged image stored in the file is our composite.
      expect(maxDiff({ ...expected, data: new Uint8ClampedArray(merged!.data) }, expected)).toBe(0);
      // psd-tools' own composite of our layers matches ours (clipping and masks as Photoshop does them), except
      // under the hide-all mask: psd-tools' compositor (composite/__init__.py `_get_mask`) ignores the default
      // colour of a mask that has no pixels, so it shows that layer; Photoshop stores Hide All exactly this way.
      const img = theirs!;
      let worst = 0;
      for (let y = 0; y < 40; y++) {
        for (let x = 0; x < 40; x++) {
          if (x >= 30 && x < 35 && y < 5) continue;
          for (let k = 0; k < 4; k++) {
            const i = (y * 40 + x) * 4 + k;
            worst = Math.max(worst, Math.abs(img.data[i]! - expected.data[i]!));
          }
        }
      }
      expect(worst).toBeLessThanOrEqual(2);

      await ok(s, 'open_document', { path: 'out/masks.psd' });
      expect(layer(s, 'clip').clipped).toBe(true);
      expect(layer(s, 'sel').mask).toMatchObject({ x: 2, y: 3, w: 6, h: 6, outside: 0, enabled: true });
      expect(layer(s, 'reveal').mask).toMatchObject({ outside: 255, enabled: true });
      expect(layer(s, 'hide').mask).toMatchObject({ outside: 0, enabled: true });
      expect(maxDiff(composite(s), expected)).toBe(0);
    },
  );
});
