/**
 * `GET /v1/sessions/:id/events` over the real network stack: a tab hears what the session's other clients do
 * (a streamed run's events, `changed` after an upload or calls not streamed), never what it did itself; the
 * stream ends when the session is deleted, and a session has only so many listening.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LISTENERS_PER_SESSION } from '../../src/server/session-events.js';
import { createSession, events, okCalls, startTestServer, type TestServer, toolCall } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** Listens as `tab`, gathering every event until the stream ends. */
async function listen(id: string, tab: string) {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/v1/sessions/${id}/events?tab=${tab}`, { signal: abort.signal });
  expect(res.status).toBe(200);
  const heard: Record<string, unknown>[] = [];
  const ended = (async () => {
    try {
      for await (const event of events(res)) heard.push(event);
    } catch {
      // Aborted by the test.
    }
  })();
  return { heard, ended, stop: () => abort.abort() };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('a session’s event stream', () => {
  it('tells the other tabs, not the one that acted', async () => {
    const id = await createSession(server.url);
    const mine = await listen(id, 'tabA');
    const other = await listen(id, 'tabB');
    const res = await fetch(`${server.url}/v1/sessions/${id}/tool-calls?stream=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-atelier-tab': 'tabA' },
      body: JSON.stringify({ tool_calls: [toolCall('create_document', { width: 64, height: 64 }, 'web_1')] }),
    });
    for await (const _ of events(res)) {
      // Read to its end.
    }
    const up = await fetch(`${server.url}/v1/sessions/${id}/files?name=a.png`, {
      method: 'POST',
      headers: { 'x-atelier-tab': 'tabA' },
      body: await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
        .png()
        .toBuffer(),
    });
    expect(up.status).toBe(201);
    // A client that names no tab (a script) is told to every tab.
    await okCalls(server.url, id, [toolCall('get_document_info')]);
    await settle();
    expect(other.heard.map((e) => e.type)).toEqual([
      'tool_call',
      'tool_result',
      'done',
      'changed',
      'changed',
    ]);
    expect(other.heard[0]).toMatchObject({ id: 'web_1', name: 'create_document' });
    expect(mine.heard.map((e) => e.type)).toEqual(['changed']);
    mine.stop();
    other.stop();
  });

  it('ends when the session is deleted, and refuses listeners past the limit', async () => {
    const id = await createSession(server.url);
    const tabs = await Promise.all(
      Array.from({ length: MAX_LISTENERS_PER_SESSION }, (_, i) => listen(id, `t${i}`)),
    );
    const over = await fetch(`${server.url}/v1/sessions/${id}/events?tab=late`);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe('busy');
    expect((await fetch(`${server.url}/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    // Every stream ends by itself (a test timeout otherwise), and listening again is told the session is gone.
    await Promise.all(tabs.map((t) => t.ended));
    expect((await fetch(`${server.url}/v1/sessions/${id}/events?tab=t0`)).status).toBe(404);
  });
});
