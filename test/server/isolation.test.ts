/**
 * Isolation of work: a session's heavy call runs on that session's thread, so the thread that accepts requests
 * keeps answering — the health check and another session's small calls complete while the heavy call is still
 * running. Asserted by order (what finished before what), never by wall-clock limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, okCalls, startTestServer, type TestServer, toolCall } from './support.js';

describe('isolation of work', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers /v1/health and another session while one session adjusts 12000² on the JavaScript thread', async () => {
    const heavy = await createSession(server.url);
    const light = await createSession(server.url);
    // adjust_hsl runs pixel by pixel in JavaScript (over a second per 100 Mpx): on the thread that accepts
    // requests, it would hold every other request until it ends.
    await okCalls(server.url, heavy, [
      toolCall('create_document', { width: 12000, height: 12000 }),
      toolCall('create_layer', { name: 'p' }),
      toolCall('fill_selection', { color: '#c8503c' }),
    ]);
    await okCalls(server.url, light, [
      toolCall('create_document', { width: 200, height: 100 }),
      toolCall('create_layer', { name: 'a' }),
    ]);

    const order: string[] = [];
    const res = await fetch(`${server.url}/v1/sessions/${heavy}/tool-calls?stream=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_calls: [toolCall('adjust_hsl', { hue: 30, saturation: 10, lightness: 5 })],
      }),
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let streamed = '';
    const started = (async () => {
      while (!streamed.includes('"tool_call"')) {
        const { value, done } = await reader.read();
        if (done) return;
        streamed += value;
      }
    })();
    await started;
    const finished = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        streamed += value;
        if (streamed.includes('"tool_result"')) order.push('heavy');
      }
    })();
    // Small requests while the heavy call runs: each must be answered before the heavy call's result.
    for (let round = 0; round < 5; round++) {
      const health = await fetch(`${server.url}/v1/health`);
      expect(health.status).toBe(200);
      order.push('health');
      const [changed] = await okCalls(server.url, light, [
        toolCall('set_layer_opacity', { name: 'a', opacity: 40 + round }),
      ]);
      expect(changed!.ok).toBe(true);
      order.push('small');
    }
    await finished;
    expect(streamed).toMatch(/"tool_result".*"ok":true/);
    // Had the heavy call held the event loop, every request sent after it started would have waited for it.
    expect(order.indexOf('heavy')).toBe(10);
    // The light session's state is its own: the heavy one's call did not touch it, and vice versa.
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
    // The save's stages, posted by the session's thread while it ran, arrive before its result.
    expect(types.indexOf('progress')).toBeGreaterThan(types.indexOf('tool_result'));
    expect(types.lastIndexOf('progress')).toBeLessThan(types.lastIndexOf('tool_result'));
    expect(text).toContain('编码 PSD');
    expect(types.at(-1)).toBe('done');
    expect(text).not.toMatch(/"ok":false/);
  });
});
