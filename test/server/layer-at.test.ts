/**
 * What a click on the studio's canvas selects, over HTTP: the topmost visible layer with a pixel at the point,
 * as Photoshop's Move tool with Auto-Select finds it — into groups, through a layer's mask, a clipped layer only
 * where its base has pixels, never a hidden layer.
 */
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
