/**
 * `GET /v1/sessions/:id/events` over the real network stack: a tab hears what the session's other clients do
 * (a streamed run's events, `changed` after an upload or calls not streamed), never what it did itself; the
 * stream ends when the session is deleted, and a session has only so many listening.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { MAX_LISTENERS_PER_SESSION } from '../../src/server/session-events.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { createSession, events, okCalls, startTestServer, type TestServer, toolCall } from './support.js';

let server: TestServer;
let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel();
  server = await startTestServer({
    model: modelConfigFrom({}, { ATELIER_MODEL: 'scripted-model', ATELIER_MODEL_BASE_URL: model.url }),
  });
});
afterAll(async () => {
  await server.close();
  await model.close();
});

/** Listens as `tab`, gathering every event until the stream ends. */
async function listen(id: string, tab: string, query = '') {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/v1/sessions/${id}/events?tab=${tab}${query}`, {
    signal: abort.signal,
  });
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
    await okCalls(server.url, id, [toolCall('create_layer', { name: '脚本' })]);
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

  it('starts with the conversation and whether a turn runs, then tells a turn’s start and end', async () => {
    const id = await createSession(server.url);
    model.push({ text: '第一轮的回答。' });
    const first = await fetch(`${server.url}/v1/sessions/${id}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-atelier-tab': 'tabA' },
      body: JSON.stringify({ message: '第一轮' }),
    });
    for await (const _ of events(first)) {
      // Read to its end.
    }
    const plain = await listen(id, 'tabC');
    const other = await listen(id, 'tabB', '&conversation=1');
    const mine = await listen(id, 'tabA', '&conversation=1');
    await settle();
    // The conversation so far, as GET …/chat gives it, comes first, and only to a tab that asks for it.
    const chat = (await (await fetch(`${server.url}/v1/sessions/${id}/chat`)).json()) as {
      events: unknown[];
    };
    expect(other.heard).toEqual([{ type: 'conversation', running: false, events: chat.events }]);
    expect(chat.events).toContainEqual({ type: 'user', text: '第一轮', at: expect.any(Number) });
    expect(plain.heard).toEqual([]);

    // A second turn, which stalls: the other tabs are told it runs, and a tab listening now is told so too.
    model.push({ text: '第二轮的回答，很长', stallAfterChunks: 2 });
    const second = fetch(`${server.url}/v1/sessions/${id}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-atelier-tab': 'tabA' },
      body: JSON.stringify({ message: '第二轮' }),
    });
    await expect.poll(() => other.heard.some((e) => e.type === 'assistant_delta')).toBe(true);
    const late = await listen(id, 'tabD', '&conversation=1');
    await expect.poll(() => late.heard.length).toBe(1);
    expect(late.heard[0]).toMatchObject({ type: 'conversation', running: true });
    // The tab whose turn it is, listening again meanwhile, is not told it runs: it follows its own turn on its
    // own request, and told so here, read after that request's end, it would show the turn running for ever.
    const again = await listen(id, 'tabA', '&conversation=1');
    await expect.poll(() => again.heard.length).toBe(1);
    expect(again.heard[0]).toMatchObject({ type: 'conversation', running: false });
    // It has what the turn settled so far (its message), never the text still streaming.
    const lateEvents = (late.heard[0] as { events: { type: string; text?: string }[] }).events;
    expect(lateEvents.at(-1)).toEqual({ type: 'user', text: '第二轮', at: expect.any(Number) });
    expect(lateEvents.some((e) => e.type === 'assistant_delta')).toBe(false);

    expect((await fetch(`${server.url}/v1/sessions/${id}/chat/cancel`, { method: 'POST' })).status).toBe(200);
    for await (const _ of events(await second)) {
      // Read to its end.
    }
    await settle();
    const types = other.heard.map((e) => e.type);
    expect(types[1]).toBe('chat_running');
    expect(other.heard[1]).toEqual({ type: 'chat_running', running: true });
    expect(other.heard.at(-1)).toEqual({ type: 'chat_running', running: false });
    expect(types.at(-2)).toBe('error');
    expect(late.heard.at(-1)).toEqual({ type: 'chat_running', running: false });
    // The tab that sent the turns is told none of it, but the conversation it asked for.
    expect(mine.heard.map((e) => e.type)).toEqual(['conversation']);
    expect(again.heard.map((e) => e.type)).toEqual(['conversation']);
    for (const tab of [plain, other, mine, late, again]) tab.stop();
  });
});
