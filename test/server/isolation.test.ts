/**
 * Isolation of work: a session's heavy call runs on that session's thread, so the thread that accepts requests
 * keeps answering — the health check and another session's small calls complete while the heavy call is still
 * running. Asserted by order (what finished before what), never by wall-clock limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, okCalls, sendCalls, startTestServer, type TestServer, toolCall } from './support.js';

describe('isolation of work', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers /v1/health and another session while one session blurs 8000²', async () => {
    const heavy = await createSession(server.url);
    const light = await createSession(server.url);
    await okCalls(server.url, heavy, [
      toolCall('create_document', { width: 8000, height: 8000 }),
      toolCall('create_layer', { name: 'p' }),
      toolCall('fill_selection', { color: '#c8503c' }),
      toolCall('select_rect', { left: 1000, top: 1000, right: 7000, bottom: 5000 }),
      toolCall('fill_selection', { color: '#204060' }),
      toolCall('deselect'),
    ]);
    await okCalls(server.url, light, [
      toolCall('create_document', { width: 200, height: 100 }),
      toolCall('create_layer', { name: 'a' }),
    ]);

    const order: string[] = [];
    const blur = sendCalls(server.url, heavy, [toolCall('gaussian_blur', { radius: 60 })]).then((r) => {
      order.push('blur');
      return r;
    });
    // A stream of small requests while the blur runs: each must be answered before the blur's result.
    for (let round = 0; round < 5; round++) {
      const health = await fetch(`${server.url}/v1/health`);
      expect(health.status).toBe(200);
      order.push('health');
      const [bounds] = await okCalls(server.url, light, [
        toolCall('set_layer_opacity', { name: 'a', opacity: 40 + round }),
      ]);
      expect(bounds!.ok).toBe(true);
      order.push('small');
    }
    const { results } = await blur;
    expect(results[0]!.ok, JSON.stringify(results[0])).toBe(true);
    // Had the blur held the event loop, every request sent after it would have waited for it.
    expect(order.at(-1)).toBe('blur');
    expect(order.filter((o) => o !== 'blur')).toHaveLength(10);
    // The light session's state is its own: the heavy one's blur did not touch it, and vice versa.
    const state = (await (await fetch(`${server.url}/v1/sessions/${light}/state`)).json()) as {
      active: { width: number; history: { labels: string[] } };
    };
    expect(state.active.width).toBe(200);
    expect(state.active.history.labels.at(-1)).toBe('设置透明度');
  });

  it('streams the progress of a call made on a session thread, then its result', async () => {
    const id = await createSession(server.url);
    const res = await fetch(`${server.url}/v1/sessions/${id}/tool-calls?stream=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_calls: [
          toolCall('create_document', { width: 64, height: 64 }),
          toolCall('save_document_as', { path: 'out/a.psd' }),
        ],
      }),
    });
    const text = await res.text();
    const types = [...text.matchAll(/"type":"(\w+)"/g)].map((m) => m[1]);
    expect(types[0]).toBe('tool_call');
    expect(types.filter((t) => t === 'tool_result')).toHaveLength(2);
    expect(types.at(-1)).toBe('done');
    expect(text).not.toMatch(/"ok":false/);
  });
});
