/**
 * Bounds on what a caller controls, over HTTP: oversized names, texts and arrays are refused as
 * `invalid_arguments` (a request with too many calls, 400) without holding the server — a health check sent
 * at the same time succeeds, and the session is unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, okCalls, sendCalls, startTestServer, type TestServer, toolCall } from './support.js';

describe('bounded requests', () => {
  let server: TestServer;
  let id: string;
  beforeAll(async () => {
    // A body limit the oversized requests fit in, so that what refuses them is validation, not the body limit.
    server = await startTestServer({ bodyLimitBytes: 16 * 1024 * 1024 });
    id = await createSession(server.url);
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 64, height: 64 }),
      toolCall('create_layer', { name: '层' }),
    ]);
  });
  afterAll(() => server.close());

  const refused = async (name: string, args: unknown) => {
    const [answer, health] = await Promise.all([
      sendCalls(server.url, id, [toolCall(name, args)]),
      fetch(`${server.url}/v1/health`),
    ]);
    expect(health.status).toBe(200);
    return answer.results[0] as { ok: boolean; error: { code: string; message: string } };
  };

  it('refuses a 30,000-character layer name', async () => {
    const r = await refused('set_layer_opacity', { name: 'x'.repeat(30_000), opacity: 10 });
    expect(r.ok).toBe(false);
    expect(r.error.code).toBe('invalid_arguments');
    expect(r.error.message).toMatch(/255/);
  });

  it('refuses a text of 200,000 characters', async () => {
    const r = await refused('create_text_layer', { text: '字'.repeat(200_000), x: 0, y: 0, font_size: 12 });
    expect(r.error.code).toBe('invalid_arguments');
    expect(r.error.message).toMatch(/10000/);
  });

  it('refuses an array of 100,000 layer names', async () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `层${i}`);
    const r = await refused('group_layers', { layer_names: names, group_name: '组' });
    expect(r.error.code).toBe('invalid_arguments');
    expect(r.error.message).toMatch(/1000/);
  });

  it('refuses an unknown tool name of 900,000 characters', async () => {
    const r = await refused('a'.repeat(900_000), {});
    expect(r.error.code).toBe('unknown_tool');
    expect(r.error.message).not.toContain('aaaa');
  });

  it('answers a request of too many calls with 400, and a health check meanwhile', async () => {
    const calls = Array.from({ length: server.config.maxCallsPerRequest + 1 }, () =>
      toolCall('list_documents'),
    );
    const [res, health] = await Promise.all([
      fetch(`${server.url}/v1/sessions/${id}/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tool_calls: calls }),
      }),
      fetch(`${server.url}/v1/health`),
    ]);
    expect(health.status).toBe(200);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details?: { limit?: number }; limit?: number } };
    expect(JSON.stringify(body)).toContain(String(server.config.maxCallsPerRequest));
  });

  it('left the session as it was', async () => {
    const state = (await (await fetch(`${server.url}/v1/sessions/${id}/state`)).json()) as {
      active: { layers: { name: string }[]; history: { labels: string[] } };
    };
    expect(state.active.layers.map((l) => l.name)).toEqual(['层', '背景']);
    expect(state.active.history.labels).toHaveLength(2);
  });
});
