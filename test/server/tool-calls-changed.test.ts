/**
 * Calls not streamed (`POST …/tool-calls`) tell the session's other tabs `changed`, so that they reload their
 * panes, only when something changed: not when every call failed (a failing call leaves every document as it
 * was), nor for queries; once for a request whose calls did change something, failed ones among them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, events, sendCalls, startTestServer, type TestServer, toolCall } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('calls not streamed, as the session’s other tabs hear them', () => {
  it('tell `changed` only for a request that changed something', async () => {
    const id = await createSession(server.url);
    const send = async (calls: ReturnType<typeof toolCall>[]) =>
      (await sendCalls(server.url, id, calls, { 'x-atelier-tab': 'mine' })).results.map((r) => r.ok);
    expect(await send([toolCall('create_document', { width: 32, height: 32, name: '底' })])).toEqual([true]);

    const res = await fetch(`${server.url}/v1/sessions/${id}/events?tab=other`);
    expect(res.status).toBe(200);
    const heard: string[] = [];
    const reading = (async () => {
      for await (const event of events(res)) heard.push(String(event.type));
    })().catch(() => undefined);

    // Every call failed: a layer that is not there, arguments of the wrong type, a tool that does not exist.
    expect(
      await send([
        toolCall('set_layer_opacity', { name: '不存在', opacity: 10 }),
        toolCall('create_layer', { name: 3 }),
        toolCall('no_such_tool'),
      ]),
    ).toEqual([false, false, false]);
    // Queries only: nothing to reload.
    expect(await send([toolCall('get_document_info'), toolCall('list_all_layer_names')])).toEqual([
      true,
      true,
    ]);
    // A change among failures: told once.
    expect(
      await send([
        toolCall('set_layer_opacity', { name: '不存在', opacity: 10 }),
        toolCall('create_layer', { name: '甲' }),
      ]),
    ).toEqual([false, true]);
    await expect.poll(() => heard.length).toBe(1);
    // Events come in order on one stream: had the earlier requests been told, they would be before it.
    expect(heard).toEqual(['changed']);

    // What changes the context later calls work on, though no pixels, is told too (the active layer).
    expect(await send([toolCall('get_layer_bounds', { name: '背景' })])).toEqual([true]);
    await expect.poll(() => heard).toEqual(['changed', 'changed']);
    await fetch(`${server.url}/v1/sessions/${id}`, { method: 'DELETE' });
    await reading;
  });
});
