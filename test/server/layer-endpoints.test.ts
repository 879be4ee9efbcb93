/**
 * The studio's layer endpoints over HTTP. Thumbnails, as the layers pane asks for them: a layer's own pixels
 * cropped to where they are, a fill layer's colour, none for a group or a text layer; the key in the session's
 * state changes with the pixels (and comes back with them on undo), not with a layer's opacity.
 *
 * And what a click on the canvas selects: the topmost visible layer with a pixel at the point, as Photoshop's Move
 * tool with Auto-Select finds it — into groups, through a layer's mask, a clipped layer only where its base has
 * pixels, never a hidden layer.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeLayers,
  createSession,
  errorOf,
  okCalls,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
});
afterAll(() => server.close());

const layers = (id: string) => activeLayers(base, id);

const layerNamed = async (id: string, name: string) => (await layers(id)).find((l) => l.name === name)!;

async function thumbnail(id: string, doc: string, layer: number | string, query = '') {
  const res = await fetch(
    `${base}/v1/sessions/${id}/documents/${encodeURIComponent(doc)}/layers/${layer}/thumbnail.png${query}`,
  );
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/png');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const { data, info } = await sharp(Buffer.from(await res.arrayBuffer()))
    .raw()
    .toBuffer({ resolveWithObject: true });
  const n = info.channels;
  const at = (x: number, y: number) => [
    ...data.subarray((y * info.width + x) * n, (y * info.width + x) * n + n),
  ];
  return { width: info.width, height: info.height, channels: info.channels, at };
}

describe('layer thumbnails', () => {
  it('shows a layer’s pixels cropped to where they are, at the size asked, never enlarged', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [
      toolCall('create_document', { width: 400, height: 200, name: '海报/一' }),
      toolCall('create_layer', { name: '红块' }),
      toolCall('select_rect', { left: 100, top: 50, right: 160, bottom: 90 }),
      toolCall('fill_selection', { color: '#e02020' }),
      toolCall('deselect'),
    ]);
    const red = await layerNamed(id, '红块');
    expect(red.thumbnail).toMatch(/\S/);
    // The block is 60 × 40: within 64 it is as it is, within 30 scaled to 30 × 20.
    const full = await thumbnail(id, '海报/一', red.id, '?max=64');
    expect([full.width, full.height, full.channels]).toEqual([60, 40, 4]);
    expect(full.at(0, 0)).toEqual([224, 32, 32, 255]);
    expect(full.at(59, 39)).toEqual([224, 32, 32, 255]);
    const small = await thumbnail(id, '海报/一', red.id, '?max=30');
    expect([small.width, small.height]).toEqual([30, 20]);
    // The default size is 64.
    expect((await thumbnail(id, '海报/一', red.id)).width).toBe(60);

    // The background is a fill: its colour, in the canvas's shape.
    const background = (await layers(id)).find((l) => l.background)!;
    expect(background.thumbnail).toMatch(/\S/);
    const bg = await thumbnail(id, '海报/一', background.id, '?max=40');
    expect([bg.width, bg.height]).toEqual([40, 20]);
    expect(bg.at(20, 10)).toEqual([255, 255, 255, 255]);
  });

  it('keys a thumbnail by its pixels: an opacity keeps it, a fill changes it, undo brings the earlier back', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [
      toolCall('create_document', { width: 120, height: 80, name: 'doc' }),
      toolCall('create_layer', { name: 'A' }),
      toolCall('fill_selection', { color: '#2040e0' }),
    ]);
    const first = (await layerNamed(id, 'A')).thumbnail;
    await okCalls(base, id, [toolCall('set_layer_opacity', { name: 'A', opacity: 40 })]);
    expect((await layerNamed(id, 'A')).thumbnail).toBe(first);
    // The thumbnail is the layer's content: its opacity is the row's business, not the picture's.
    expect((await thumbnail(id, 'doc', (await layerNamed(id, 'A')).id)).at(5, 5)).toEqual([32, 64, 224, 255]);
    await okCalls(base, id, [toolCall('fill_selection', { color: '#10c040' })]);
    const second = await layerNamed(id, 'A');
    expect(second.thumbnail).not.toBe(first);
    expect((await thumbnail(id, 'doc', second.id)).at(5, 5)).toEqual([16, 192, 64, 255]);
    await okCalls(base, id, [toolCall('undo')]);
    const undone = await layerNamed(id, 'A');
    expect(undone.thumbnail).toBe(first);
    expect((await thumbnail(id, 'doc', undone.id)).at(5, 5)).toEqual([32, 64, 224, 255]);
  });

  it('shows a layer’s mask over the canvas, white where it shows the layer, keyed by the mask', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [
      toolCall('create_document', { width: 200, height: 100, name: 'doc' }),
      toolCall('create_layer', { name: 'M' }),
      toolCall('fill_selection', { color: '#cc3333' }),
      toolCall('select_rect', { left: 100, top: 0, right: 200, bottom: 100 }),
      toolCall('add_layer_mask', { name: 'M' }),
      toolCall('deselect'),
    ]);
    const m = await layerNamed(id, 'M');
    expect(m.mask_thumbnail).toMatch(/\S/);
    expect((await layers(id)).filter((l) => l.mask_thumbnail).map((l) => l.name)).toEqual(['M']);
    const mask = await thumbnail(id, 'doc', m.id, '?max=40&of=mask');
    expect([mask.width, mask.height]).toEqual([40, 20]);
    expect(mask.at(5, 10)[0]).toBe(0);
    expect(mask.at(35, 10)[0]).toBe(255);
    // The layer's own thumbnail is its pixels, the mask not applied.
    expect((await thumbnail(id, 'doc', m.id, '?max=40')).at(5, 10)).toEqual([204, 51, 51, 255]);

    // Another mask, another key: hiding everything.
    await okCalls(base, id, [
      toolCall('delete_layer_mask', { name: 'M' }),
      toolCall('add_layer_mask', { name: 'M', hide_all: true }),
    ]);
    const again = await layerNamed(id, 'M');
    expect(again.mask_thumbnail).not.toBe(m.mask_thumbnail);
    expect((await thumbnail(id, 'doc', m.id, '?max=40&of=mask')).at(35, 10)[0]).toBe(0);

    const res = await fetch(`${base}/v1/sessions/${id}/documents/doc/layers/${m.id}/thumbnail.png?of=edges`);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ allowed: ['pixels', 'mask'] });
    const background = (await layers(id)).find((l) => l.background)!;
    const none = await fetch(
      `${base}/v1/sessions/${id}/documents/doc/layers/${background.id}/thumbnail.png?of=mask`,
    );
    expect(none.status).toBe(404);
    expect(await errorOf(none)).toMatchObject({ message: expect.stringContaining('没有蒙版') });
  });

  it('has none for a group or a text layer, and answers bad requests with what is wrong', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [
      toolCall('create_document', { width: 100, height: 100, name: 'doc' }),
      toolCall('create_layer', { name: 'empty' }),
      toolCall('create_text_layer', { text: '标题', x: 10, y: 10, font_size: 20 }),
      toolCall('create_layer_group', { name: '组' }),
    ]);
    const all = await layers(id);
    const text = all.find((l) => l.type === 'text')!;
    const group = all.find((l) => l.type === 'group')!;
    expect(text.thumbnail).toBeUndefined();
    expect(group.thumbnail).toBeUndefined();
    for (const layer of [text, group]) {
      const res = await fetch(`${base}/v1/sessions/${id}/documents/doc/layers/${layer.id}/thumbnail.png`);
      expect(res.status).toBe(404);
      expect(await errorOf(res)).toMatchObject({
        code: 'not_found',
        message: expect.stringContaining('没有缩略图'),
      });
    }
    // An empty layer: transparent, in the canvas's shape.
    const empty = await thumbnail(id, 'doc', all.find((l) => l.name === 'empty')!.id, '?max=10');
    expect([empty.width, empty.height]).toEqual([10, 10]);
    expect(empty.at(5, 5)[3]).toBe(0);

    const bad = async (path: string, status: number) => {
      const res = await fetch(`${base}/v1/sessions/${id}/documents/${path}`);
      expect(res.status, path).toBe(status);
      return errorOf(res);
    };
    expect(await bad(`doc/layers/${text.id}/thumbnail.png?max=0`, 400)).toMatchObject({
      code: 'bad_request',
    });
    expect(await bad(`doc/layers/${text.id}/thumbnail.png?max=257`, 400)).toMatchObject({ max: 256 });
    expect(await bad('doc/layers/empty/thumbnail.png', 400)).toMatchObject({
      message: expect.stringContaining('编号'),
    });
    expect(await bad('doc/layers/99999/thumbnail.png', 404)).toMatchObject({
      code: 'not_found',
      layer_ids: expect.arrayContaining([text.id, group.id]),
    });
    expect(await bad(`nope/layers/${text.id}/thumbnail.png`, 404)).toMatchObject({ open_documents: ['doc'] });
  });
});

async function idsByName(id: string): Promise<Map<string, number>> {
  return new Map((await activeLayers(base, id)).map((l) => [l.name, l.id]));
}

const at = async (id: string, x: number | string, y: number | string, doc = 'doc') => {
  const res = await fetch(`${base}/v1/sessions/${id}/documents/${doc}/layer-at?x=${x}&y=${y}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the layer at a point of the canvas', () => {
  it('is the topmost visible layer showing a pixel there', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [
      toolCall('create_document', { width: 200, height: 100, name: 'doc' }),
      toolCall('create_layer', { name: 'A' }),
      toolCall('select_rect', { left: 10, top: 10, right: 60, bottom: 60 }),
      toolCall('fill_selection', { color: '#cc0000' }),
      toolCall('deselect'),
      // Filled all over, clipped to A: it shows only over A's pixels.
      toolCall('create_layer', { name: 'C' }),
      toolCall('fill_selection', { color: '#0000cc' }),
      toolCall('create_clipping_mask', { name: 'C' }),
      toolCall('create_layer_group', { name: 'G' }),
      toolCall('create_layer', { name: 'B' }),
      toolCall('move_layer_to_group', { group_name: 'G' }),
      toolCall('select_rect', { left: 100, top: 10, right: 150, bottom: 60 }),
      toolCall('fill_selection', { color: '#00cc00' }),
      toolCall('create_layer', { name: 'E' }),
      toolCall('select_rect', { left: 100, top: 70, right: 190, bottom: 95 }),
      toolCall('fill_selection', { color: '#cccc00' }),
      // Its mask shows its right part only.
      toolCall('select_rect', { left: 150, top: 70, right: 190, bottom: 95 }),
      toolCall('add_layer_mask', { name: 'E' }),
      toolCall('deselect'),
      toolCall('create_layer', { name: 'H' }),
      toolCall('fill_selection', { color: '#999999' }),
      toolCall('set_layer_visible', { name: 'H', visible: false }),
    ]);
    const ids = await idsByName(id);
    const background = [...ids].find(([name]) => !['A', 'B', 'C', 'E', 'G', 'H'].includes(name))![1];
    const expectAt = async (x: number, y: number, name: string | null) =>
      expect((await at(id, x, y)).body, `${x},${y}`).toEqual({
        layer_id: name === null ? null : name === 'background' ? background : ids.get(name),
      });
    await expectAt(30, 30, 'C');
    await expectAt(30.7, 59.9, 'C');
    await expectAt(80, 30, 'background');
    await expectAt(120, 30, 'B');
    await expectAt(120, 80, 'background');
    await expectAt(160, 80, 'E');
    await expectAt(-1, 5, null);
    await expectAt(200, 5, null);
    await expectAt(5, 100, null);

    // H lies in G (made while a layer of G was active). A hidden group hides what is in it, a shown layer too.
    await okCalls(base, id, [
      toolCall('set_layer_visible', { name: 'G', visible: false }),
      toolCall('set_layer_visible', { name: 'H', visible: true }),
    ]);
    await expectAt(120, 30, 'background');
    await expectAt(30, 30, 'C');
    await okCalls(base, id, [toolCall('set_layer_visible', { name: 'G', visible: true })]);
    await expectAt(120, 30, 'H');
    await expectAt(30, 30, 'H');
  });

  it('answers a bad point or an unknown document with what is wrong', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [toolCall('create_document', { width: 10, height: 10, name: 'doc' })]);
    for (const [x, y] of [
      ['', 1],
      [1, 'a'],
      ['Infinity', 1],
    ] as const) {
      const res = await fetch(`${base}/v1/sessions/${id}/documents/doc/layer-at?x=${x}&y=${y}`);
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatchObject({
        code: 'bad_request',
        message: expect.stringContaining('坐标'),
      });
    }
    const missing = await fetch(`${base}/v1/sessions/${id}/documents/nope/layer-at?x=1&y=1`);
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toMatchObject({ open_documents: ['doc'] });
  });
});
