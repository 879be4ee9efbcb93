/**
 * Group C layer transforms and properties, and select_layers, driven through the real Session like a model
 * would. Pixels are put on layers by committing prepared states through the editor (layer-fixtures.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { DocState, Layer, LayerMask, Raster, SmartLayer, TextLayer } from '../../src/engine/model.js';
import { allocateId, childrenOf, insertLayer, setLayer } from '../../src/engine/tree.js';
import { newSession, ok, refused } from '../support/session.js';
import {
  addGroup,
  addPixel,
  current,
  edit,
  idOf,
  named,
  namesOf,
  px,
  rasterOf,
  solid,
} from './layer-fixtures.js';

/** Every pixel distinct: r = x, g = y, b = 7x + 3y, opaque. */
function pattern(x: number, y: number, w: number, h: number): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) data.set([i & 255, j & 255, (7 * i + 3 * j) & 255, 255], (j * w + i) * 4);
  }
  return { x, y, w, h, data };
}

function same(a: Raster, b: Raster): boolean {
  return (
    a.x === b.x &&
    a.y === b.y &&
    a.w === b.w &&
    a.h === b.h &&
    Buffer.compare(
      Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength),
      Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength),
    ) === 0
  );
}

function layer(s: Session, name: string): Layer {
  return named(current(s), name);
}

function raster(s: Session, name: string): Raster {
  return rasterOf(layer(s, name));
}

function labels(s: Session): readonly string[] {
  const snap = s.editor.snapshot;
  return snap.docs.find((d) => d.id === snap.active)!.history.labels;
}

/** A 100×80 document: background, then 'A' (20×10 pattern at 10,20), 'B' (solid red 10×10 at 50,50). */
async function setup(): Promise<Session> {
  const s = newSession();
  await ok(s, 'create_document', { width: 100, height: 80 });
  edit(s, (st) =>
    addPixel(
      addPixel(st, 'A', pattern(10, 20, 20, 10)),
      'B',
      solid({ x: 50, y: 50, w: 10, h: 10 }, [255, 0, 0, 255]),
    ),
  );
  return s;
}

function textLayer(id: number, name: string, r: Raster): TextLayer {
  return {
    id,
    name,
    kind: 'text',
    visible: true,
    opacity: 1,
    blend: 'normal',
    clipped: false,
    locks: { all: false, pixels: false, position: false, transparency: false },
    text: {
      content: '你好',
      x: r.x,
      y: r.y,
      size: 24,
      color: { r: 0, g: 0, b: 0 },
      font: 'Noto Sans SC',
      renderedFont: 'Noto Sans SC',
    },
    raster: r,
  };
}

function addText(st: DocState, name: string, r: Raster): DocState {
  const [id, next] = allocateId(st);
  return insertLayer(next, textLayer(id, name, r), null, childrenOf(next, null).length);
}

describe('move_layer', () => {
  it('moves by whole pixels, makes the layer active, shares the buffer and adds one step', async () => {
    const s = await setup();
    const before = raster(s, 'A');
    const r = await ok(s, 'move_layer', { name: 'A', dx: 5, dy: -3 });
    const after = raster(s, 'A');
    expect([after.x, after.y]).toEqual([15, 17]);
    expect(after.data).toBe(before.data);
    expect(r).toMatchObject({
      moved: { dx: 5, dy: -3 },
      layer: { name: 'A', bounds: { left: 15, top: 17 } },
    });
    expect(current(s).active).toBe(idOf(current(s), 'A'));
    expect(labels(s).at(-1)).toBe('移动图层');
  });

  it('rounds fractional offsets and says so', async () => {
    const s = await setup();
    const r = await ok(s, 'move_layer', { name: 'A', dx: 2.4, dy: '3.6' });
    expect(r.moved).toEqual({ dx: 2, dy: 4 });
    expect(String(r.note)).toContain('取整');
  });

  it('moves a group with its content and masks', async () => {
    const s = await setup();
    const mask: LayerMask = {
      x: 0,
      y: 0,
      w: 4,
      h: 4,
      data: new Uint8Array(16).fill(255),
      outside: 0,
      enabled: true,
    };
    edit(s, (st) => {
      let next = addGroup(st, 'G');
      next = addPixel(
        next,
        'C',
        solid({ x: 0, y: 0, w: 4, h: 4 }, [0, 0, 255, 255]),
        { mask },
        idOf(next, 'G'),
      );
      return next;
    });
    await ok(s, 'move_layer', { name: 'G', dx: 10, dy: 20 });
    const c = layer(s, 'C');
    expect([rasterOf(c).x, rasterOf(c).y]).toEqual([10, 20]);
    expect([c.mask!.x, c.mask!.y]).toEqual([10, 20]);
  });

  it('refuses the background, locked layers and unknown names, changing nothing', async () => {
    const s = await setup();
    const bg = await refused(s, 'move_layer', { name: '背景', dx: 1, dy: 1 }, 'invalid_state');
    expect(bg.hint).toBeTruthy();
    await ok(s, 'lock_layer', { name: 'A', locked: true });
    await refused(s, 'move_layer', { name: 'A', dx: 1, dy: 1 }, 'locked');
    const nf = await refused(s, 'move_layer', { name: 'a', dx: 1, dy: 1 }, 'not_found');
    expect(nf.details).toMatchObject({ closest: expect.arrayContaining(['A']) });
  });

  it('refuses a move beyond where a file can record a layer, changing nothing', async () => {
    const s = await setup();
    for (const dx of [3_000_000_000, 1e308, -1e308]) {
      const r = await refused(s, 'move_layer', { name: 'A', dx, dy: 0 }, 'out_of_bounds');
      expect(r.hint).toContain('32');
    }
    // Far off the canvas but within it: moved, and saved where it is.
    await ok(s, 'move_layer', { name: 'A', dx: 2_000_000_000, dy: 0 });
    await ok(s, 'save_document_as', { path: 'far.psd' });
    await ok(s, 'close_document', {});
    await ok(s, 'open_document', { path: 'far.psd' });
    expect(rasterOf(layer(s, 'A')).x).toBe(2_000_000_010);
  });

  it('refuses a child of a locked group', async () => {
    const s = await setup();
    edit(s, (st) => {
      const next = addGroup(st, 'G');
      return addPixel(next, 'C', solid({ x: 0, y: 0, w: 4, h: 4 }, [0, 0, 255, 255]), {}, idOf(next, 'G'));
    });
    await ok(s, 'lock_layer', { name: 'G', locked: true });
    await refused(s, 'move_layer', { name: 'C', dx: 1, dy: 0 }, 'locked');
    await refused(s, 'move_layer', { name: 'G', dx: 1, dy: 0 }, 'locked');
  });

  it('a copy of the background (a colour layer) becomes the pixels it shows when moved', async () => {
    const s = await setup();
    await ok(s, 'duplicate_layer');
    expect(layer(s, '背景 拷贝').kind).toBe('fill');
    await ok(s, 'move_layer', { name: '背景 拷贝', dx: 10, dy: 0 });
    const r = raster(s, '背景 拷贝');
    expect([r.x, r.y, r.w, r.h]).toEqual([10, 0, 100, 80]);
    expect(px(r, 50, 50)).toEqual([255, 255, 255, 255]);
  });

  it('warns when several layers share the name and moves the top one', async () => {
    const s = await setup();
    edit(s, (st) => addPixel(st, 'A', solid({ x: 0, y: 0, w: 2, h: 2 }, [0, 255, 0, 255])));
    const r = await ok(s, 'move_layer', { name: 'A', dx: 1, dy: 0 });
    expect(r.warnings).toHaveLength(1);
    const top = current(s).root.at(-1)!;
    expect(rasterOf(current(s).layers.get(top)!).x).toBe(1);
  });
});

describe('resize_layer', () => {
  it('scales a pixel layer about its centre; scale_y defaults to scale_x', async () => {
    const s = await setup();
    await ok(s, 'resize_layer', { name: 'A', scale_x: 50 });
    const a = raster(s, 'A');
    // centre 20,25: 22.5..27.5 rounds half up
    expect([a.x, a.y, a.w, a.h]).toEqual([15, 23, 10, 5]);
    const r = await ok(s, 'resize_layer', { name: 'B', scale_x: 200, scale_y: 50 });
    const b = raster(s, 'B');
    expect([b.x, b.y, b.w, b.h]).toEqual([45, 53, 20, 5]);
    expect(px(b, 55, 54)).toEqual([255, 0, 0, 255]);
    expect(r).toMatchObject({ scale: { x: 200, y: 50 }, bounds_before: { left: 50, width: 10 } });
    expect(labels(s).at(-1)).toBe('缩放图层');
  });

  it('a smart object goes down to 50 % and back to 200 % without loss; a pixel layer does not', async () => {
    const s = await setup();
    const original = raster(s, 'A');
    await ok(s, 'resize_layer', { name: 'A', scale_x: 50 });
    await ok(s, 'resize_layer', { name: 'A', scale_x: 200 });
    expect(same(raster(s, 'A'), original)).toBe(false);

    const t = await setup();
    await ok(t, 'convert_to_smart_object', { name: 'A' });
    const down = await ok(t, 'resize_layer', { name: 'A', scale_x: 50 });
    expect(down).toMatchObject({ smart_object: { scale_x: 50, scale_y: 50 } });
    expect(raster(t, 'A').w).toBe(10);
    await ok(t, 'resize_layer', { name: 'A', scale_x: 200 });
    expect(same(raster(t, 'A'), original)).toBe(true);
    expect(layer(t, 'A').kind).toBe('smart');
  });

  it('scales the mask with the layer', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 100, height: 80 });
    const mask: LayerMask = {
      x: 10,
      y: 10,
      w: 20,
      h: 20,
      data: new Uint8Array(400).fill(255),
      outside: 0,
      enabled: true,
    };
    edit(s, (st) => addPixel(st, 'M', solid({ x: 10, y: 10, w: 20, h: 20 }, [0, 0, 0, 255]), { mask }));
    await ok(s, 'resize_layer', { name: 'M', scale_x: 50 });
    const m = layer(s, 'M').mask!;
    expect([m.x, m.y, m.w, m.h]).toEqual([15, 15, 10, 10]);
  });

  it('scales each child of a group about the group centre', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 100, height: 100 });
    edit(s, (st) => {
      const g = addGroup(st, 'G');
      const gid = idOf(g, 'G');
      const one = addPixel(g, 'L', solid({ x: 0, y: 0, w: 10, h: 10 }, [255, 0, 0, 255]), {}, gid);
      return addPixel(one, 'R', solid({ x: 30, y: 30, w: 10, h: 10 }, [0, 255, 0, 255]), {}, idOf(one, 'G'));
    });
    // group bounds 0,0..40,40, centre 20,20
    await ok(s, 'resize_layer', { name: 'G', scale_x: 50 });
    const l = raster(s, 'L');
    const r = raster(s, 'R');
    expect([l.x, l.y, l.w, l.h]).toEqual([10, 10, 5, 5]);
    expect([r.x, r.y, r.w, r.h]).toEqual([25, 25, 5, 5]);
  });

  it('refuses the background and locked layers; empty layers are a no-op', async () => {
    const s = await setup();
    // (Text is scaled, stretched, rotated and flipped editable: test/tools/text.test.ts.)
    await refused(s, 'resize_layer', { name: '背景', scale_x: 50 }, 'invalid_state');
    await refused(s, 'resize_layer', { name: 'A', scale_x: 0 }, 'invalid_arguments');
    await ok(s, 'lock_layer', { name: 'A', locked: true });
    await refused(s, 'resize_layer', { name: 'A', scale_x: 50 }, 'locked');

    await ok(s, 'create_layer', { name: '空' });
    const steps = labels(s).length;
    const r = await ok(s, 'resize_layer', { name: '空', scale_x: 50 });
    expect(r).toMatchObject({ changed: false });
    expect(labels(s).length).toBe(steps);
  });

  it('refuses a result too large to hold', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 300, height: 300 });
    edit(s, (st) => addPixel(st, 'P', solid({ x: 0, y: 0, w: 300, h: 300 }, [1, 2, 3, 255])));
    await refused(s, 'resize_layer', { name: 'P', scale_x: 10000 }, 'out_of_bounds');
  });

  it('refuses to scale or turn a layer past where a file can record it, changing nothing', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 100, height: 100 });
    edit(s, (st) => addPixel(st, 'P', solid({ x: 0, y: 0, w: 20, h: 20 }, [1, 2, 3, 255])));
    await ok(s, 'move_layer', { name: 'P', dx: 2_147_483_000, dy: 0 });
    const r = await refused(s, 'resize_layer', { name: 'P', scale_x: 10000 }, 'out_of_bounds');
    expect(r.hint).toContain('move_layer');
    edit(s, (st) => addPixel(st, 'Q', solid({ x: 0, y: 0, w: 20, h: 20 }, [1, 2, 3, 255])));
    await ok(s, 'move_layer', { name: 'Q', dx: 2_147_483_625, dy: 0 }); // its right edge 2 px from the limit
    await refused(s, 'rotate_layer', { name: 'Q', angle: 45 }, 'out_of_bounds');
    // A small change there stays within reach, and the document still saves.
    await ok(s, 'resize_layer', { name: 'P', scale_x: 150 });
    await ok(s, 'save_document_as', { path: 'edge.psd' });
  });

  it('a text layer can be moved, and resized after rasterize_layer', async () => {
    const s = await setup();
    edit(s, (st) => addText(st, '标题', solid({ x: 0, y: 0, w: 30, h: 12 }, [0, 0, 0, 255])));
    await ok(s, 'move_layer', { name: '标题', dx: 3, dy: 4 });
    const t = layer(s, '标题') as TextLayer;
    expect([t.text.x, t.text.y, t.raster.x]).toEqual([3, 4, 3]);
    await ok(s, 'rasterize_layer', { name: '标题' });
    await ok(s, 'resize_layer', { name: '标题', scale_x: 200 });
    expect(raster(s, '标题').w).toBe(60);
  });
});

describe('rotate_layer', () => {
  it('90° is an exact pixel move about the centre', async () => {
    const s = await setup();
    const a = raster(s, 'A'); // 20×10 at 10,20, centre 20,25
    await ok(s, 'rotate_layer', { name: 'A', angle: 90 });
    const t = raster(s, 'A');
    expect([t.x, t.y, t.w, t.h]).toEqual([15, 15, 10, 20]);
    for (let y = 0; y < 10; y++) {
      for (let x = 0; x < 20; x++) expect(px(t, t.x + (9 - y), t.y + x)).toEqual(px(a, a.x + x, a.y + y));
    }
    await ok(s, 'rotate_layer', { name: 'A', angle: -90 });
    expect(same(raster(s, 'A'), a)).toBe(true);
  });

  it('33° grows a 200×100 layer to about 222×193', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 400, height: 300 });
    edit(s, (st) => addPixel(st, 'P', solid({ x: 100, y: 100, w: 200, h: 100 }, [20, 120, 220, 255])));
    const r = await ok(s, 'rotate_layer', { name: 'P', angle: 33 });
    const b = (r.layer as { bounds: { width: number; height: number; center_x: number; center_y: number } })
      .bounds;
    expect(Math.abs(b.width - 222)).toBeLessThanOrEqual(2);
    expect(Math.abs(b.height - 193)).toBeLessThanOrEqual(2);
    expect(Math.abs(b.center_x - 200)).toBeLessThanOrEqual(1);
    expect(Math.abs(b.center_y - 150)).toBeLessThanOrEqual(1);
    expect(px(raster(s, 'P'), 200, 150)).toEqual([20, 120, 220, 255]);
  });

  it('a smart object rotated 30° and back is its original pixels', async () => {
    const s = await setup();
    const original = raster(s, 'A');
    await ok(s, 'convert_to_smart_object', { name: 'A' });
    const r = await ok(s, 'rotate_layer', { name: 'A', angle: 30 });
    expect(r).toMatchObject({ smart_object: { angle: 30 } });
    expect(raster(s, 'A').w).toBeGreaterThan(20);
    await ok(s, 'rotate_layer', { name: 'A', angle: -30 });
    expect(same(raster(s, 'A'), original)).toBe(true);
  });

  it('rotates the children of a group about the group centre', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 100, height: 100 });
    edit(s, (st) => {
      const g = addGroup(st, 'G');
      const one = addPixel(g, 'L', solid({ x: 0, y: 0, w: 10, h: 10 }, [255, 0, 0, 255]), {}, idOf(g, 'G'));
      return addPixel(one, 'R', solid({ x: 30, y: 0, w: 10, h: 10 }, [0, 255, 0, 255]), {}, idOf(one, 'G'));
    });
    // group bounds 0,0..40,10, centre 20,5; 180° swaps the two squares
    await ok(s, 'rotate_layer', { name: 'G', angle: 180 });
    expect([raster(s, 'L').x, raster(s, 'L').y]).toEqual([30, 0]);
    expect([raster(s, 'R').x, raster(s, 'R').y]).toEqual([0, 0]);
  });

  it('an enormous angle is the turn it is equivalent to, for pixels and for text', async () => {
    for (const angle of [1e308, -1e308, 810]) {
      const s = await setup();
      const same360 = await setup();
      await ok(s, 'rotate_layer', { name: 'A', angle });
      await ok(same360, 'rotate_layer', { name: 'A', angle: angle % 360 });
      expect(same(raster(s, 'A'), raster(same360, 'A')), String(angle)).toBe(true);
      const t = newSession();
      await ok(t, 'create_document', { width: 200, height: 100 });
      await ok(t, 'create_text_layer', { text: '夏日', x: 20, y: 20, font_size: 40 });
      const r = await ok(t, 'rotate_layer', { name: '夏日', angle });
      const b = (r.layer as { bounds: Record<string, number> }).bounds;
      for (const v of Object.values(b))
        expect(Number.isFinite(v), `${angle}: ${JSON.stringify(b)}`).toBe(true);
      expect(b.width).toBeGreaterThan(0);
      expect((r.layer as { type: string }).type).toBe('text');
    }
  });

  it('0° and 360° change nothing and add no step', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const r = await ok(s, 'rotate_layer', { name: 'A', angle: 360 });
    expect(r).toMatchObject({ changed: false });
    expect(labels(s).length).toBe(steps);
  });
});

describe('free rotation about the exact centre', () => {
  type Bounds = {
    left: number;
    top: number;
    width: number;
    height: number;
    center_x: number;
    center_y: number;
  };

  /** Weighted centroid of a w × h plane at x, y (pixel centres at +0.5), `weight(i)` for pixel i. */
  function centroidOf(p: { x: number; y: number; w: number; h: number }, weight: (i: number) => number) {
    let [sx, sy, s] = [0, 0, 0];
    for (let j = 0; j < p.h; j++) {
      for (let i = 0; i < p.w; i++) {
        const v = weight(j * p.w + i);
        sx += v * (p.x + i + 0.5);
        sy += v * (p.y + j + 0.5);
        s += v;
      }
    }
    return { x: sx / s, y: sy / s };
  }
  const centroid = (r: Raster) => centroidOf(r, (i) => r.data[i * 4 + 3]!);
  const maskCentroid = (m: LayerMask) => centroidOf(m, (i) => m.data[i]!);
  const off = (p: { x: number; y: number }, x: number, y: number) => Math.hypot(p.x - x, p.y - y);

  /** Where turning (x, y) by `deg` clockwise about (px, py) sends it. */
  function turned(x: number, y: number, deg: number, px: number, py: number) {
    const [c, s] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
    return { x: px + c * (x - px) - s * (y - py), y: py + s * (x - px) + c * (y - py) };
  }

  /** A 50×50 opaque square at 75..125 × 25..75 (centre 100, 50) on a 200×100 canvas. */
  async function square(mask?: LayerMask): Promise<Session> {
    const s = newSession();
    await ok(s, 'create_document', { width: 200, height: 100 });
    const sq = solid({ x: 75, y: 25, w: 50, h: 50 }, [200, 30, 30, 255]);
    edit(s, (st) => addPixel(st, 'S', sq, mask ? { mask } : {}));
    return s;
  }

  const rotate = async (s: Session, angle: number) =>
    ((await ok(s, 'rotate_layer', { name: 'S', angle })).layer as { bounds: Bounds }).bounds;

  it('45° keeps the centroid of a symmetric shape on the centre, and its box centred', async () => {
    const s = await square();
    const b = await rotate(s, 45);
    expect(off(centroid(raster(s, 'S')), 100, 50)).toBeLessThan(0.05);
    expect([b.center_x, b.center_y]).toEqual([100, 50]);
  });

  it('+30° then −30° comes back centred where it was', async () => {
    const s = await square();
    await rotate(s, 30);
    const b = await rotate(s, -30);
    expect([b.center_x, b.center_y]).toEqual([100, 50]);
    expect(off(centroid(raster(s, 'S')), 100, 50)).toBeLessThan(0.05);
  });

  it('repeated turns do not drift: a full turn of 8 × 45°, and 4 × (+30°, −30°)', async () => {
    const full = await square();
    for (let i = 0; i < 8; i++) await rotate(full, 45);
    expect(off(centroid(raster(full, 'S')), 100, 50)).toBeLessThan(0.1);
    const there = await square();
    for (let i = 0; i < 4; i++) for (const angle of [30, -30]) await rotate(there, angle);
    expect(off(centroid(raster(there, 'S')), 100, 50)).toBeLessThan(0.1);
  });

  it('transform_layers turns several layers about their joint centre, each landing exactly', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 200, height: 100 });
    edit(s, (st) =>
      addPixel(
        addPixel(st, 'L', solid({ x: 20, y: 30, w: 30, h: 20 }, [255, 0, 0, 255])),
        'R',
        solid({ x: 121, y: 41, w: 17, h: 33 }, [0, 0, 255, 255]),
      ),
    );
    // Joint bounds 20..138 × 30..74, centre 79, 52.
    await ok(s, 'transform_layers', { layer_names: ['L', 'R'], angle: 37 });
    const l = turned(35, 40, 37, 79, 52);
    const r = turned(129.5, 57.5, 37, 79, 52);
    expect(off(centroid(raster(s, 'L')), l.x, l.y)).toBeLessThan(0.05);
    expect(off(centroid(raster(s, 'R')), r.x, r.y)).toBeLessThan(0.05);
  });

  it('a mask turns with its layer and stays aligned with its pixels', async () => {
    // The mask shows the square's left half: its centroid is 12.5 px left of the layer's, and turns with it.
    const data = new Uint8Array(50 * 50);
    for (let y = 0; y < 50; y++) data.fill(255, y * 50, y * 50 + 25);
    const s = await square({ x: 75, y: 25, w: 50, h: 50, data, outside: 0, enabled: true });
    let total = 0;
    for (const angle of [45, 30, -17]) {
      await rotate(s, angle);
      total += angle;
      const l = layer(s, 'S');
      const pixels = centroid(rasterOf(l));
      const shown = turned(pixels.x - 12.5, pixels.y, total, pixels.x, pixels.y);
      expect(off(pixels, 100, 50), `${total}°`).toBeLessThan(0.05);
      expect(off(maskCentroid(l.mask!), shown.x, shown.y), `${total}°`).toBeLessThan(0.05);
    }
  });
});

describe('flip_layer', () => {
  it('mirrors exactly in place', async () => {
    const s = await setup();
    const a = raster(s, 'A');
    await ok(s, 'flip_layer', { name: 'A', direction: 'horizontal' });
    const h = raster(s, 'A');
    expect([h.x, h.y, h.w, h.h]).toEqual([a.x, a.y, a.w, a.h]);
    for (let y = 20; y < 30; y++) for (let x = 10; x < 30; x++) expect(px(h, x, y)).toEqual(px(a, 39 - x, y));
    await ok(s, 'flip_layer', { name: 'A', direction: 'vertical' });
    const v = raster(s, 'A');
    for (let y = 20; y < 30; y++)
      for (let x = 10; x < 30; x++) expect(px(v, x, y)).toEqual(px(a, 39 - x, 49 - y));
    expect(labels(s).at(-1)).toBe('翻转图层');
  });

  it('flips a smart object by a negative scale; twice gives it back', async () => {
    const s = await setup();
    const original = raster(s, 'A');
    await ok(s, 'convert_to_smart_object', { name: 'A' });
    await ok(s, 'flip_layer', { name: 'A', direction: 'horizontal' });
    expect((layer(s, 'A') as SmartLayer).transform.scaleX).toBe(-1);
    expect(px(raster(s, 'A'), 10, 20)).toEqual(px(original, 29, 20));
    await ok(s, 'flip_layer', { name: 'A', direction: 'horizontal' });
    expect(same(raster(s, 'A'), original)).toBe(true);
  });
});

describe('layer properties', () => {
  it('set_layer_opacity maps 0–100 to 0..1, reports old and new, copies no pixels', async () => {
    const s = await setup();
    const before = raster(s, 'A');
    const r = await ok(s, 'set_layer_opacity', { name: 'A', opacity: 40 });
    expect(r).toMatchObject({ old_opacity: 100, layer: { name: 'A', opacity: 40 } });
    expect(layer(s, 'A').opacity).toBeCloseTo(0.4);
    expect(raster(s, 'A').data).toBe(before.data);
    expect(labels(s).at(-1)).toBe('设置透明度');
    await refused(s, 'set_layer_opacity', { name: 'A', opacity: 150 }, 'invalid_arguments');
    await refused(s, 'set_layer_opacity', { name: '背景', opacity: 50 }, 'invalid_state');
  });

  it('set_layer_blend_mode maps spec names, also for groups (pass through)', async () => {
    const s = await setup();
    const r = await ok(s, 'set_layer_blend_mode', { name: 'A', mode: 'color_dodge' });
    expect(layer(s, 'A').blend).toBe('color dodge');
    expect(r).toMatchObject({ old_mode: 'normal', layer: { blend_mode: 'color_dodge' } });
    await ok(s, 'create_layer_group', { name: 'G' });
    expect(layer(s, 'G').blend).toBe('pass through');
    const g = await ok(s, 'set_layer_blend_mode', { name: 'G', mode: 'normal' });
    expect(g).toMatchObject({ old_mode: 'pass_through' });
    expect(layer(s, 'G').blend).toBe('normal');
    await refused(s, 'set_layer_blend_mode', { name: 'A', mode: 'dissolve' }, 'invalid_arguments');
  });

  it('set_layer_visible works on locked layers and the background; no pixels copied', async () => {
    const s = await setup();
    const before = raster(s, 'A');
    await ok(s, 'lock_layer', { name: 'A', locked: true });
    const r = await ok(s, 'set_layer_visible', { name: 'A', visible: false });
    expect(r).toMatchObject({ old_visible: true, layer: { visible: false } });
    expect(raster(s, 'A').data).toBe(before.data);
    await ok(s, 'set_layer_visible', { name: '背景', visible: false });
    expect(layer(s, '背景').visible).toBe(false);
  });

  it('lock_layer: lock all refuses changes; unlocking clears every lock', async () => {
    const s = await setup();
    const before = raster(s, 'A');
    const r = await ok(s, 'lock_layer', { name: 'A', locked: true });
    expect(r).toMatchObject({ old_locked: false, layer: { locked: true } });
    expect(raster(s, 'A').data).toBe(before.data);
    for (const [tool, args] of [
      ['set_layer_opacity', { opacity: 10 }],
      ['set_layer_blend_mode', { mode: 'multiply' }],
      ['rotate_layer', { angle: 10 }],
      ['flip_layer', { direction: 'vertical' }],
      ['convert_to_smart_object', {}],
    ] as const) {
      await refused(s, tool, { name: 'A', ...args }, 'locked');
    }
    edit(s, (st) => {
      const a = named(st, 'A');
      return setLayer(st, { ...a, locks: { all: true, pixels: true, position: true, transparency: true } });
    });
    await ok(s, 'lock_layer', { name: 'A', locked: false });
    expect(layer(s, 'A').locks).toEqual({ all: false, pixels: false, position: false, transparency: false });
    await ok(s, 'move_layer', { name: 'A', dx: 1, dy: 1 });
  });
});

describe('stack order', () => {
  it('bring_to_front and send_to_back move within the layer’s own group; nothing goes below the background', async () => {
    const s = await setup();
    await ok(s, 'create_layer', { name: 'C' });
    // created above the active layer (the background): 背景, C, A, B
    expect(namesOf(current(s), current(s).root)).toEqual(['背景', 'C', 'A', 'B']);
    const f = await ok(s, 'bring_to_front', { name: 'A' });
    expect(namesOf(current(s), current(s).root)).toEqual(['背景', 'C', 'B', 'A']);
    expect(f).toMatchObject({ position: 'top', layer: { name: 'A' } });
    const b = await ok(s, 'send_to_back', { name: 'B' });
    expect(namesOf(current(s), current(s).root)).toEqual(['背景', 'B', 'C', 'A']);
    expect(String(b.note)).toContain('背景');
    expect(labels(s).slice(-2)).toEqual(['置顶图层', '置底图层']);
    await refused(s, 'send_to_back', { name: '背景' }, 'invalid_state');
    await refused(s, 'bring_to_front', { name: '背景' }, 'invalid_state');

    edit(s, (st) => {
      const g = addGroup(st, 'G');
      const one = addPixel(g, 'g1', solid({ x: 0, y: 0, w: 2, h: 2 }, [1, 2, 3, 255]), {}, idOf(g, 'G'));
      return addPixel(one, 'g2', solid({ x: 0, y: 0, w: 2, h: 2 }, [1, 2, 3, 255]), {}, idOf(one, 'G'));
    });
    await ok(s, 'send_to_back', { name: 'g2' });
    const g = named(current(s), 'G');
    expect(g.kind === 'group' && namesOf(current(s), g.children)).toEqual(['g2', 'g1']);
    expect(namesOf(current(s), current(s).root).at(-1)).toBe('G');
  });

  it('already in place: no change, no step, the layer becomes active', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const r = await ok(s, 'bring_to_front', { name: 'B' });
    expect(r).toMatchObject({ changed: false });
    expect(labels(s).length).toBe(steps);
  });

  it('restacking shares every buffer', async () => {
    const s = await setup();
    const a = raster(s, 'A');
    await ok(s, 'bring_to_front', { name: 'A' });
    expect(raster(s, 'A').data).toBe(a.data);
  });
});

describe('rasterize_layer and convert_to_smart_object', () => {
  it('converts a pixel layer to a smart object (trimmed source, identity transform) and back', async () => {
    const s = await setup();
    edit(s, (st) => {
      const padded = { ...pattern(0, 0, 10, 10) };
      padded.data.fill(0, 0, 40); // first row transparent
      return addPixel(st, 'P', padded, { opacity: 0.5, blend: 'multiply' });
    });
    const r = await ok(s, 'convert_to_smart_object', { name: 'P' });
    const sm = layer(s, 'P') as SmartLayer;
    expect(sm.kind).toBe('smart');
    expect([sm.source.x, sm.source.y, sm.source.w, sm.source.h]).toEqual([0, 1, 10, 9]);
    expect(sm.transform).toEqual({ cx: 5, cy: 5.5, scaleX: 1, scaleY: 1, angle: 0 });
    expect([sm.opacity, sm.blend]).toEqual([0.5, 'multiply']);
    expect(r).toMatchObject({ from: 'pixel', layer: { type: 'smart_object' } });
    expect(labels(s).at(-1)).toBe('转智能对象');

    const again = await ok(s, 'convert_to_smart_object', { name: 'P' });
    expect(again).toMatchObject({ changed: false });

    const back = await ok(s, 'rasterize_layer', { name: 'P' });
    const p = layer(s, 'P');
    expect(p.kind).toBe('pixel');
    expect(rasterOf(p).data).toBe(sm.raster.data);
    expect([p.opacity, p.blend]).toEqual([0.5, 'multiply']);
    expect(back).toMatchObject({ from: 'smart_object', layer: { type: 'pixel' } });
    expect(p).not.toHaveProperty('source');
  });

  it('rasterize: text keeps its pixels; a pixel layer is a no-op; a group is refused; the fill background becomes pixels', async () => {
    const s = await setup();
    const txt = solid({ x: 5, y: 5, w: 30, h: 12 }, [9, 9, 9, 255]);
    edit(s, (st) => addText(st, '标题', txt));
    await ok(s, 'rasterize_layer', { name: '标题' });
    expect(layer(s, '标题').kind).toBe('pixel');
    expect(raster(s, '标题').data).toBe(txt.data);

    const steps = labels(s).length;
    expect(await ok(s, 'rasterize_layer', { name: 'A' })).toMatchObject({ changed: false });
    expect(labels(s).length).toBe(steps);

    await ok(s, 'create_layer_group', { name: 'G' });
    const e = await refused(s, 'rasterize_layer', { name: 'G' }, 'invalid_state');
    expect(String(e.hint)).toContain('merge_layers');

    await ok(s, 'rasterize_layer', { name: '背景' });
    const bg = layer(s, '背景');
    expect(bg.kind).toBe('pixel');
    expect(bg.kind === 'pixel' && bg.background).toBe(true);
    const r = rasterOf(bg);
    expect([r.x, r.y, r.w, r.h]).toEqual([0, 0, 100, 80]);
    expect(px(r, 99, 79)).toEqual([255, 255, 255, 255]);
  });

  it('a group becomes a smart object holding its flattened content', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 50, height: 50 });
    edit(s, (st) => {
      const g = addGroup(st, 'G', { opacity: 0.5 });
      const one = addPixel(g, 'g1', solid({ x: 0, y: 0, w: 10, h: 10 }, [255, 0, 0, 255]), {}, idOf(g, 'G'));
      return addPixel(one, 'g2', solid({ x: 5, y: 5, w: 10, h: 10 }, [0, 0, 255, 255]), {}, idOf(one, 'G'));
    });
    const r = await ok(s, 'convert_to_smart_object', { name: 'G' });
    const sm = layer(s, 'G') as SmartLayer;
    expect(sm.kind).toBe('smart');
    expect([sm.source.x, sm.source.y, sm.source.w, sm.source.h]).toEqual([0, 0, 15, 15]);
    expect(px(sm.raster, 1, 1)).toEqual([255, 0, 0, 255]);
    expect(px(sm.raster, 12, 12)).toEqual([0, 0, 255, 255]);
    expect(px(sm.raster, 14, 0)[3]).toBe(0);
    expect([sm.opacity, sm.blend]).toEqual([0.5, 'normal']);
    expect(current(s).layers.size).toBe(2);
    expect(r.notes).toBeTruthy();
  });

  it('refuses an empty layer', async () => {
    const s = await setup();
    await ok(s, 'create_layer', { name: '空' });
    await refused(s, 'convert_to_smart_object', { name: '空' }, 'invalid_state');
  });
});

describe('queries', () => {
  it('get_layer_bounds reports left, top, size and centre; activates the layer without a history step', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const r = await ok(s, 'get_layer_bounds', { name: 'A' });
    expect(r).toMatchObject({
      name: 'A',
      left: 10,
      top: 20,
      width: 20,
      height: 10,
      center_x: 20,
      center_y: 25,
    });
    expect(current(s).active).toBe(idOf(current(s), 'A'));
    expect(labels(s).length).toBe(steps);
    expect(r.with_effects).toBeUndefined();
    // A stroke outside the pixels widens what Photoshop's bounds cover: said beside the pixels' own.
    await ok(s, 'add_stroke', { name: 'A', size: 4, color: '#000000' });
    expect(await ok(s, 'get_layer_bounds', { name: 'A' })).toMatchObject({
      left: 10,
      width: 20,
      with_effects: { left: 6, top: 16, width: 28, height: 18 },
    });
    await ok(s, 'create_layer', { name: '空' });
    expect(await ok(s, 'get_layer_bounds', { name: '空' })).toMatchObject({
      width: 0,
      height: 0,
      empty: true,
    });
    await refused(s, 'get_layer_bounds', { name: 'Z' }, 'not_found');
  });

  it('get_active_layer_info gives the summary plus kind-specific details', async () => {
    const s = await setup();
    await ok(s, 'convert_to_smart_object', { name: 'A' });
    await ok(s, 'resize_layer', { name: 'A', scale_x: 50, scale_y: 25 });
    const r = await ok(s, 'get_active_layer_info');
    expect(r.layer).toMatchObject({
      name: 'A',
      type: 'smart_object',
      opacity: 100,
      blend_mode: 'normal',
      smart_object: { source_width: 20, source_height: 10, scale_x: 50, scale_y: 25, angle: 0 },
      mask: null,
      locks: { all: false },
    });
    edit(s, (st) => {
      const g = addGroup(st, 'G');
      const one = addPixel(g, 'g1', solid({ x: 0, y: 0, w: 2, h: 2 }, [1, 2, 3, 255]), {}, idOf(g, 'G'));
      return { ...one, active: idOf(one, 'G'), selected: [idOf(one, 'G')] };
    });
    const g = await ok(s, 'get_active_layer_info');
    expect(g.layer).toMatchObject({
      type: 'group',
      child_count: 1,
      children: [{ name: 'g1', type: 'pixel' }],
    });
  });

  it('list_all_layer_names is flat, top to bottom, with depth and group', async () => {
    const s = await setup();
    edit(s, (st) => {
      const g = addGroup(st, 'G');
      return addPixel(
        g,
        'g1',
        solid({ x: 0, y: 0, w: 2, h: 2 }, [1, 2, 3, 255]),
        { visible: false },
        idOf(g, 'G'),
      );
    });
    const r = await ok(s, 'list_all_layer_names');
    expect(r.count).toBe(5);
    expect(r.layers).toEqual([
      { name: 'G', type: 'group', visible: true, depth: 0, group: null },
      { name: 'g1', type: 'pixel', visible: false, depth: 1, group: 'G' },
      { name: 'B', type: 'pixel', visible: true, depth: 0, group: null },
      { name: 'A', type: 'pixel', visible: true, depth: 0, group: null },
      { name: '背景', type: 'fill', visible: true, depth: 0, group: null },
    ]);
  });
});

describe('select_layers', () => {
  it('selects the named layers, the first active, without a history step; add makes a union', async () => {
    const s = await setup();
    const steps = labels(s).length;
    const r = await ok(s, 'select_layers', { names: ['B', 'A'] });
    expect(r).toMatchObject({ selected: ['B', 'A'], count: 2, active_layer: 'B' });
    const st = current(s);
    expect(st.selected).toEqual([idOf(st, 'B'), idOf(st, 'A')]);
    expect(st.active).toBe(idOf(st, 'B'));
    expect(labels(s).length).toBe(steps);

    await ok(s, 'select_layers', { names: ['背景'], add: true });
    expect(current(s).selected).toHaveLength(3);
    expect(current(s).active).toBe(idOf(current(s), '背景'));
    await ok(s, 'select_layers', { names: ['A'] });
    expect(current(s).selected).toEqual([idOf(current(s), 'A')]);
  });

  it('a missing name changes nothing and suggests close names', async () => {
    const s = await setup();
    const e = await refused(s, 'select_layers', { names: ['A', 'b'] }, 'not_found');
    expect(e.details).toMatchObject({ closest: expect.arrayContaining(['B']) });
    await refused(s, 'select_layers', { names: [] }, 'invalid_arguments');
  });
});

describe('undo', () => {
  it('undoing a transform restores the exact previous state', async () => {
    const s = await setup();
    const before = current(s);
    await ok(s, 'rotate_layer', { name: 'A', angle: 17 });
    expect(current(s)).not.toBe(before);
    await ok(s, 'undo');
    expect(current(s)).toBe(before);
  });
});
