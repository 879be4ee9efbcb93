import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../src/engine/composite/index.js';
import { pixelLayer } from '../../src/engine/factory.js';
import type { DocState, Layer, TextLayer } from '../../src/engine/model.js';
import { blankRaster, trimRaster, unionRect } from '../../src/engine/raster.js';
import { call, newSession, ok } from '../support/session.js';
import {
  addGroup,
  addLayer,
  addPixel,
  current,
  edit,
  idOf,
  named,
  namesOf,
  near,
  newDoc,
  px,
  rasterOf,
  rectOfRaster,
  select,
  solid,
} from './layer-fixtures.js';

const A_COLOR = [200, 100, 50, 255] as const;
const B_COLOR = [100, 200, 255, 255] as const;

/** White background, A (normal) and B (multiply, 50 %) overlapping, C on top; A and B selected. */
async function twoLayerDoc() {
  const session = newSession();
  await newDoc(session);
  edit(session, (s) => {
    let n = addPixel(s, 'A', solid({ x: 2, y: 2, w: 8, h: 8 }, A_COLOR));
    n = addPixel(n, 'B', solid({ x: 6, y: 6, w: 8, h: 8 }, B_COLOR), { blend: 'multiply', opacity: 0.5 });
    n = addPixel(n, 'C', solid({ x: 0, y: 0, w: 3, h: 3 }, [0, 0, 0, 255]));
    return select(n, 'A', 'B');
  });
  return session;
}

/** The compositor's render of just `names` (bottom → top) over the union of their rasters, trimmed. */
function renderOf(state: DocState, names: string[]) {
  const ids = names.map((n) => idOf(state, n));
  const rect = ids
    .map((id) => rasterOf(state.layers.get(id)!))
    .reduce((acc, r) => unionRect(acc, rectOfRaster(r)), { x: 0, y: 0, w: 0, h: 0 });
  return trimRaster(renderDocument({ ...state, root: ids, selection: null }, rect));
}

function composite(session: ReturnType<typeof newSession>) {
  const tx = session.editor.begin();
  return tx.composite(tx.activeDocument().id);
}

describe('merge_layers: several selected layers', () => {
  it('composites them into one pixel layer at the topmost one, named after it', async () => {
    const session = await twoLayerDoc();
    const before = current(session);
    const expected = renderOf(before, ['A', 'B']);
    const shownBefore = composite(session);

    const r = await ok(session, 'merge_layers');
    expect(r.merged).toEqual(['B', 'A']);
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'B', 'C']);
    const merged = named(s, 'B');
    expect(merged).toMatchObject({
      kind: 'pixel',
      opacity: 1,
      blend: 'normal',
      visible: true,
      clipped: false,
    });
    expect(merged.id).not.toBe(idOf(before, 'B'));
    expect(s.active).toBe(merged.id);
    expect(s.selected).toEqual([merged.id]);
    expect(s.layers.has(idOf(before, 'A'))).toBe(false);

    // Equal to the compositor's render of the same two layers, trimmed to their pixels.
    const raster = rasterOf(merged);
    expect(rectOfRaster(raster)).toEqual({ x: 2, y: 2, w: 12, h: 12 });
    expect(rectOfRaster(raster)).toEqual(rectOfRaster(expected));
    expect(raster.data).toEqual(expected.data);

    // And, independently, the W3C formulas: B multiplies onto A at 50 %; where A is absent B is plain.
    const mul = [(200 * 100) / 255, (100 * 200) / 255, (50 * 255) / 255];
    expect(near(px(raster, 7, 7), [0.5 * mul[0]! + 100, 0.5 * mul[1]! + 50, 0.5 * mul[2]! + 25, 255])).toBe(
      true,
    );
    expect(near(px(raster, 12, 12), [100, 200, 255, 127.5])).toBe(true);
    expect(px(raster, 3, 3)).toEqual([...A_COLOR]);
    expect(px(raster, 12, 3)).toEqual([0, 0, 0, 0]);

    // Over a white normal background, the document looks the same as before.
    const shownAfter = composite(session);
    for (let i = 0; i < shownAfter.data.length; i++) {
      expect(Math.abs(shownAfter.data[i]! - shownBefore.data[i]!)).toBeLessThanOrEqual(1);
    }
    // One history step, labelled as Photoshop's history panel would.
    const doc = session.editor.snapshot.docs[0]!;
    expect(doc.history.labels.at(-1)).toBe('合并图层');
  });

  it('discards hidden selected layers and names the result after the topmost visible one', async () => {
    const session = await twoLayerDoc();
    edit(session, (s) => {
      const n = addPixel(s, 'H', solid({ x: 0, y: 0, w: 20, h: 20 }, [0, 255, 0, 255]), { visible: false });
      return select(n, 'A', 'B', 'H');
    });
    const before = current(session);
    await ok(session, 'merge_layers');
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'B', 'C']);
    expect(s.layers.size).toBe(3);
    expect(rasterOf(named(s, 'B')).data).toEqual(renderOf(before, ['A', 'B']).data);
  });

  it('rasterizes text layers and trims transparent borders', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => {
      // A 10×10 raster with one opaque 2×2 block: the merge keeps only the block.
      const sparse = blankRaster({ x: 0, y: 0, w: 10, h: 10 });
      for (const [x, y] of [
        [4, 4],
        [5, 4],
        [4, 5],
        [5, 5],
      ] as const) {
        sparse.data.set([10, 20, 30, 255], (y * 10 + x) * 4);
      }
      let n = addPixel(s, 'sparse', sparse);
      n = addLayer(
        n,
        (id): TextLayer => ({
          ...pixelLayer(id, 'T'),
          kind: 'text',
          text: {
            content: 'x',
            x: 6,
            y: 6,
            size: 2,
            color: { r: 255, g: 0, b: 0 },
            font: 'Arial',
            renderedFont: 'Arial',
          },
          raster: solid({ x: 6, y: 6, w: 2, h: 2 }, [255, 0, 0, 255]),
        }),
      );
      return select(n, 'sparse', 'T');
    });
    expect(named(current(session), 'T').kind).toBe('text');
    await ok(session, 'merge_layers');
    const merged = named(current(session), 'T');
    expect(merged.kind).toBe('pixel');
    const raster = rasterOf(merged);
    expect(rectOfRaster(raster)).toEqual({ x: 4, y: 4, w: 4, h: 4 });
    expect(px(raster, 4, 4)).toEqual([10, 20, 30, 255]);
    expect(px(raster, 7, 7)).toEqual([255, 0, 0, 255]);
    expect(px(raster, 7, 4)).toEqual([0, 0, 0, 0]);
  });

  it('merges into the background when the background is selected', async () => {
    const session = await twoLayerDoc();
    edit(session, (s) => select(s, 'B', '背景'));
    const before = current(session);
    const r = await ok(session, 'merge_layers');
    const s = current(session);
    const bg = s.layers.get(s.root[0]!)!;
    expect(bg).toMatchObject({ id: 1, name: '背景', kind: 'pixel', background: true, opacity: 1 });
    expect(namesOf(s, s.root)).toEqual(['背景', 'A', 'C']);
    expect((r.layer as { name: string }).name).toBe('背景');
    const raster = rasterOf(bg);
    expect(rectOfRaster(raster)).toEqual({ x: 0, y: 0, w: 20, h: 20 });
    const expected = renderDocument({ ...before, root: [1, idOf(before, 'B')], selection: null });
    expect(raster.data).toEqual(expected.data);
    // B multiplied at 50 % over white: (B + white) / 2.
    expect(near(px(raster, 12, 12), [177.5, 227.5, 255, 255])).toBe(true);
    expect(px(raster, 0, 19)).toEqual([255, 255, 255, 255]);
  });

  it('composites layers taken out of a group as siblings, and puts the result at the topmost one', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => {
      let n = addGroup(s, 'G', { opacity: 0.5 });
      n = addPixel(n, 'inner', solid({ x: 0, y: 0, w: 4, h: 4 }, [0, 0, 255, 255]), {}, idOf(n, 'G'));
      n = addPixel(n, 'low', solid({ x: 2, y: 2, w: 4, h: 4 }, [255, 0, 0, 255]));
      // Move 'low' under the group: root = [bg, low, G].
      n = { ...n, root: [1, idOf(n, 'low'), idOf(n, 'G')] };
      return select(n, 'low', 'inner');
    });
    const before = current(session);
    await ok(session, 'merge_layers');
    const s = current(session);
    // 'inner' is the topmost: the result sits inside G where it was; G's opacity still applies to it.
    expect(namesOf(s, s.root)).toEqual(['背景', 'G']);
    const g = named(s, 'G');
    expect(g.kind === 'group' && namesOf(s, g.children)).toEqual(['inner']);
    const raster = rasterOf(named(s, 'inner'));
    expect(raster.data).toEqual(renderOf(before, ['low', 'inner']).data);
    expect(px(raster, 1, 1)).toEqual([0, 0, 255, 255]); // not faded by G: G fades the result instead
    expect(px(raster, 5, 5)).toEqual([255, 0, 0, 255]);
  });

  it('keeps a clipping group together: clipped layers merged with their base stay clipped to it', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => {
      let n = addPixel(s, 'base', solid({ x: 2, y: 2, w: 4, h: 4 }, [255, 0, 0, 255]));
      n = addPixel(n, 'clip', solid({ x: 0, y: 0, w: 10, h: 10 }, [0, 255, 0, 255]), { clipped: true });
      return select(n, 'base', 'clip');
    });
    await ok(session, 'merge_layers');
    const raster = rasterOf(named(current(session), 'clip'));
    expect(rectOfRaster(raster)).toEqual({ x: 2, y: 2, w: 4, h: 4 });
    expect(px(raster, 3, 3)).toEqual([0, 255, 0, 255]);
  });

  it('layers clipped to a base left out of the merge give a layer still clipped to it', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => {
      let n = addPixel(s, 'base', solid({ x: 2, y: 2, w: 4, h: 4 }, [255, 0, 0, 255]));
      n = addPixel(n, 'c1', solid({ x: 0, y: 0, w: 3, h: 3 }, [0, 255, 0, 255]), { clipped: true });
      n = addPixel(n, 'c2', solid({ x: 8, y: 8, w: 3, h: 3 }, [0, 0, 255, 255]), { clipped: true });
      return select(n, 'c1', 'c2');
    });
    await ok(session, 'merge_layers');
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'base', 'c2']);
    const merged = named(s, 'c2');
    expect(merged.clipped).toBe(true);
    // Merged unclipped (the base clips the result), so pixels outside the base are kept.
    expect(rectOfRaster(rasterOf(merged))).toEqual({ x: 0, y: 0, w: 11, h: 11 });
  });

  it('merges a lone selected group into one layer named after it (Merge Group)', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => {
      let n = addGroup(s, 'G');
      n = addPixel(n, 'x', solid({ x: 0, y: 0, w: 2, h: 2 }, [1, 2, 3, 255]), {}, idOf(n, 'G'));
      n = addPixel(n, 'y', solid({ x: 4, y: 4, w: 2, h: 2 }, [4, 5, 6, 255]), {}, idOf(n, 'G'));
      return select(n, 'G');
    });
    await ok(session, 'merge_layers');
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'G']);
    expect(named(s, 'G').kind).toBe('pixel');
    expect(rectOfRaster(rasterOf(named(s, 'G')))).toEqual({ x: 0, y: 0, w: 6, h: 6 });
    expect(s.layers.size).toBe(2);
  });
});

describe('merge_layers: one selected layer merges down', () => {
  async function lowerUpper(lowerProps = {}, upperProps = {}) {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => {
      let n = addPixel(s, 'L', solid({ x: 0, y: 0, w: 6, h: 6 }, [255, 0, 0, 255]), lowerProps);
      n = addPixel(n, 'U', solid({ x: 4, y: 4, w: 6, h: 6 }, [0, 0, 255, 255]), upperProps);
      return select(n, 'U');
    });
    return session;
  }

  it('applies the upper layer onto the lower one, which keeps its name, id, opacity and mode', async () => {
    const session = await lowerUpper({ opacity: 0.5, blend: 'multiply' }, { opacity: 0.5 });
    const before = current(session);
    const lowerId = idOf(before, 'L');
    const r = await ok(session, 'merge_layers');
    expect(r.merged).toEqual(['U', 'L']);
    const s = current(session);
    expect(namesOf(s, s.root)).toEqual(['背景', 'L']);
    const l = named(s, 'L');
    expect(l).toMatchObject({ id: lowerId, kind: 'pixel', opacity: 0.5, blend: 'multiply' });
    expect(s.active).toBe(lowerId);
    expect(s.selected).toEqual([lowerId]);
    const raster = rasterOf(l);
    expect(rectOfRaster(raster)).toEqual({ x: 0, y: 0, w: 10, h: 10 });
    // U (normal, 50 %) over L's own pixels; L's opacity and mode are not baked in.
    expect(near(px(raster, 5, 5), [127.5, 0, 127.5, 255])).toBe(true);
    expect(px(raster, 1, 1)).toEqual([255, 0, 0, 255]);
    expect(near(px(raster, 8, 8), [0, 0, 255, 127.5])).toBe(true);
  });

  it('keeps a clipped upper layer inside the lower one', async () => {
    const session = await lowerUpper({}, { clipped: true });
    await ok(session, 'merge_layers');
    const raster = rasterOf(named(current(session), 'L'));
    expect(rectOfRaster(raster)).toEqual({ x: 0, y: 0, w: 6, h: 6 });
    expect(px(raster, 5, 5)).toEqual([0, 0, 255, 255]);
  });

  it('merging down onto the background keeps the background', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => select(addPixel(s, 'U', solid({ x: 18, y: 18, w: 6, h: 6 }, [0, 0, 0, 255])), 'U'));
    await ok(session, 'merge_layers');
    const s = current(session);
    expect(s.root).toEqual([1]);
    const bg = s.layers.get(1)!;
    expect(bg).toMatchObject({ name: '背景', kind: 'pixel', background: true });
    expect(rectOfRaster(rasterOf(bg))).toEqual({ x: 0, y: 0, w: 20, h: 20 });
    expect(px(rasterOf(bg), 19, 19)).toEqual([0, 0, 0, 255]);
    expect(px(rasterOf(bg), 17, 17)).toEqual([255, 255, 255, 255]);
  });
});

describe('merge_layers: refusals change nothing', () => {
  async function refused(session: ReturnType<typeof newSession>, code: string) {
    const snap = session.editor.snapshot;
    const r = await call(session, 'merge_layers');
    expect(r.ok).toBe(false);
    if (r.ok) return undefined;
    expect(r.error.code).toBe(code);
    expect(session.editor.snapshot).toBe(snap);
    return r.error;
  }

  it('nothing below the layer', async () => {
    const session = newSession();
    await newDoc(session);
    const error = await refused(session, 'invalid_state');
    expect(error?.hint).toContain('select_layers');
  });

  it('a group below the layer', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) =>
      select(addPixel(addGroup(s, 'G'), 'U', solid({ x: 0, y: 0, w: 2, h: 2 }, B_COLOR)), 'U'),
    );
    await refused(session, 'invalid_state');
  });

  it('a hidden layer in a merge down', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) =>
      select(addPixel(s, 'U', solid({ x: 0, y: 0, w: 2, h: 2 }, B_COLOR), { visible: false }), 'U'),
    );
    const error = await refused(session, 'invalid_state');
    expect(error?.hint).toContain('set_layer_visible');
  });

  it('a locked layer', async () => {
    const session = await twoLayerDoc();
    edit(session, (s) => {
      const a = named(s, 'A');
      const n = { ...s, layers: new Map(s.layers).set(a.id, { ...a, locks: { ...a.locks, all: true } }) };
      return n;
    });
    const error = await refused(session, 'locked');
    expect(error?.hint).toContain('lock_layer');
  });

  it('a locked layer inside a selected group', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => {
      let n = addGroup(s, 'G');
      n = addPixel(n, 'x', solid({ x: 0, y: 0, w: 2, h: 2 }, B_COLOR), {}, idOf(n, 'G'));
      const x = named(n, 'x');
      n = { ...n, layers: new Map(n.layers).set(x.id, { ...x, locks: { ...x.locks, all: true } }) };
      return select(n, 'G', '背景');
    });
    await refused(session, 'locked');
  });

  it('a layer inside a locked group', async () => {
    const session = newSession();
    await newDoc(session);
    edit(session, (s) => {
      let n = addGroup(s, 'G', { locks: { all: true, pixels: false, position: false, transparency: false } });
      n = addPixel(n, 'x', solid({ x: 0, y: 0, w: 2, h: 2 }, B_COLOR), {}, idOf(n, 'G'));
      n = addPixel(n, 'y', solid({ x: 0, y: 0, w: 2, h: 2 }, A_COLOR), {}, idOf(n, 'G'));
      return select(n, 'y');
    });
    await refused(session, 'locked');
  });

  it('layers lying too far apart for one layer (one moved far off the canvas)', async () => {
    const session = await twoLayerDoc();
    await ok(session, 'move_layer', { name: 'B', dx: -1_000_000_000, dy: 1_000_000_000 });
    edit(session, (s) => select(s, 'A', 'B'));
    const error = await refused(session, 'out_of_bounds');
    expect(error?.message).toMatch(/合并后的图层范围 .* 像素超过上限/);
    expect(error?.hint).toContain('move_layer');
  });

  it('every selected layer hidden', async () => {
    const session = await twoLayerDoc();
    edit(session, (s) => {
      const layers = new Map(s.layers);
      for (const n of ['A', 'B']) layers.set(idOf(s, n), { ...named(s, n), visible: false } as Layer);
      return { ...s, layers };
    });
    await refused(session, 'invalid_state');
  });
});
