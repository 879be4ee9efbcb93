/**
 * Layer thumbnails over HTTP, as the studio's layers panel asks for them: a layer's own pixels cropped to where
 * they are, a fill layer's colour, none for a group or a text layer; the key in the session's state changes with
 * the pixels (and comes back with them on undo), not with a layer's opacity.
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
  const at = (x: number, y: number) => [
    ...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4),
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
