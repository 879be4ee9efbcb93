/**
 * Chat over HTTP: the real server with a model configured to a scripted OpenAI-compatible server on loopback,
 * driven as the studio drives it (POST /chat answered with server-sent events, cancel, the conversation so far),
 * and the same server without a model (409 saying how to configure one; the manual tools keep working).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { createSession, startTestServer, type TestServer, TOKEN, toolCall } from './support.js';

const KEY = 'sk-chat-test-secret-7f3a9c1e5b';

type Event = { type: string } & Record<string, unknown>;

/** Reads a whole event stream (it ends with the turn) into its events. */
async function eventsOf(res: Response): Promise<Event[]> {
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const text = await res.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as Event);
}

function chat(base: string, id: string, message: string, headers: Record<string, string> = {}) {
  return fetch(`${base}/v1/sessions/${id}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ message }),
  });
}

describe('chat without a model', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers 409 saying how to configure one, and the manual tools keep working', async () => {
    expect(await (await fetch(`${server.url}/v1/model`)).json()).toEqual({ configured: false });
    const id = await createSession(server.url);
    const res = await chat(server.url, id, '你好');
    expect(res.status).toBe(409);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('no_model');
    expect(error.message).toContain('ATELIER_MODEL');
    const calls = await fetch(`${server.url}/v1/sessions/${id}/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_calls: [toolCall('create_document', { width: 20, height: 10 })] }),
    });
    expect(calls.status).toBe(200);
    expect(await (await fetch(`${server.url}/v1/sessions/${id}/chat`)).json()).toEqual({
      running: false,
      events: [],
    });
  });
});

describe('chat with a scripted model', () => {
  let model: ScriptedModel;
  let server: TestServer;
  const seen: string[] = [];

  beforeAll(async () => {
    model = await startScriptedModel([]);
    const config = modelConfigFrom(
      {},
      {
        ATELIER_MODEL: 'scripted-vision',
        ATELIER_MODEL_BASE_URL: model.url,
        ATELIER_MODEL_API_KEY: KEY,
        ATELIER_MODEL_VISION: '1',
      },
    );
    server = await startTestServer({ model: config });
  });
  afterAll(async () => {
    await server.close();
    await model.close();
    // The key reached the model service only: no answer, log or file of the server carried it.
    expect(seen.join('\n')).not.toContain(KEY);
    expect(server.logs.join('\n')).not.toContain(KEY);
  });

  it('says which model is configured, without its key', async () => {
    const body = await (await fetch(`${server.url}/v1/model`)).text();
    seen.push(body);
    expect(JSON.parse(body)).toMatchObject({
      configured: true,
      model: { model: 'scripted-vision', vision: true, tools: 'extended' },
    });
  });

  it('streams a turn: tool cards with Chinese labels, results with image links, the reply, done', async () => {
    const id = await createSession(server.url);
    model.push(
      {
        toolCalls: [
          { id: 'c1', name: 'create_document', arguments: { width: 64, height: 32, name: '海报' } },
          { id: 'c2', name: 'get_canvas_image', arguments: { max_size: 64 } },
        ],
      },
      { text: '已新建文档“海报”。' },
    );
    const res = await chat(server.url, id, '新建一个 64×32 的文档，叫海报');
    expect(res.status).toBe(200);
    const events = await eventsOf(res);
    seen.push(JSON.stringify(events));
    expect(events.map((e) => e.type).filter((t) => t !== 'assistant_delta')).toEqual([
      'user',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'assistant',
      'done',
    ]);
    expect(events[1]).toMatchObject({ id: 'c1', name: 'create_document', label: '新建文档' });
    expect(events[2]).toMatchObject({ id: 'c1', ok: true, result: { document: { name: '海报' } } });
    const capture = events[4] as unknown as { images: { url: string; mime: string }[] };
    expect(capture.images).toHaveLength(1);
    expect(capture.images[0]!.url).toMatch(new RegExp(`^/v1/sessions/${id}/images/\\d+\\.png$`));
    const image = await fetch(`${server.url}${capture.images[0]!.url}`);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect((await image.arrayBuffer()).byteLength).toBeGreaterThan(50);
    expect(events.at(-2)).toMatchObject({ type: 'assistant', text: '已新建文档“海报”。' });
    expect(events.at(-1)).toMatchObject({ type: 'done', steps: 2 });

    // The vision model got the capture as a follow-up user message after the tool messages.
    const second = model.requests.at(-1)!.body.messages;
    const tools = second.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(tools).toEqual(['c1', 'c2']);
    expect(JSON.stringify(second.at(-1))).toContain('data:image/jpeg;base64,');

    // The canvas the studio draws from, and the conversation as a reloaded page reads it.
    const state = (await (await fetch(`${server.url}/v1/sessions/${id}/state`)).json()) as {
      active: { name: string; history: { labels: string[] } };
    };
    expect(state.active.name).toBe('海报');
    expect(state.active.history.labels).toEqual(['新建文档']);
    const so_far = (await (await fetch(`${server.url}/v1/sessions/${id}/chat`)).json()) as {
      events: Event[];
    };
    // Settled: the reply whole, without the deltas it streamed in.
    expect(so_far.events).toEqual(events.filter((e) => e.type !== 'assistant_delta'));
    const transcript = readFileSync(path.join(server.config.workspace, 'sessions', id, 'chat.jsonl'), 'utf8');
    expect(transcript).toContain('create_document');
    seen.push(transcript);
  });

  it('refuses a second turn while one runs, and cancels the running one cleanly', async () => {
    const id = await createSession(server.url);
    model.push({ text: '慢慢想……', delayMs: 1500 });
    const first = chat(server.url, id, '做点什么');
    await new Promise((r) => setTimeout(r, 300));
    const second = await chat(server.url, id, '再做点什么');
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('busy');
    const cancel = await fetch(`${server.url}/v1/sessions/${id}/chat/cancel`, { method: 'POST' });
    expect(await cancel.json()).toEqual({ cancelled: true });
    const events = await eventsOf(await first);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'cancelled' });
    expect((await (await fetch(`${server.url}/v1/sessions/${id}/chat`)).json()) as object).toMatchObject({
      running: false,
    });
  });

  it('refuses the second of two first turns sent at once, and keeps it out of the history', async () => {
    // A fresh session: its conversation is still being opened when both arrive.
    for (let round = 0; round < 3; round++) {
      const id = await createSession(server.url);
      model.push({ text: '好的。', delayMs: 300 });
      const [a, b] = await Promise.all([chat(server.url, id, '甲'), chat(server.url, id, '乙')]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const refused = a.status === 409 ? a : b;
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('busy');
      await eventsOf(a.status === 200 ? a : b);
      const history = (await (await fetch(`${server.url}/v1/sessions/${id}/chat`)).json()) as {
        running: boolean;
        events: { type: string; code?: string }[];
      };
      expect(history.running).toBe(false);
      expect(history.events.map((e) => e.type)).toEqual(['user', 'assistant', 'done']);
    }
  });

  it('streams the stages of a direct tool call, as the palette runs it', async () => {
    const id = await createSession(server.url);
    const res = await fetch(`${server.url}/v1/sessions/${id}/tool-calls?stream=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_calls: [
          toolCall('create_document', { width: 40, height: 30 }, 'a'),
          toolCall('save_document_as', { path: 'out/a.psd' }, 'b'),
        ],
      }),
    });
    const events = await eventsOf(res);
    expect(events.map((e) => e.type)).toEqual([
      'tool_call',
      'tool_result',
      'tool_call',
      ...events.slice(3, -2).map(() => 'progress'),
      'tool_result',
      'done',
    ]);
    const stages = events.filter((e) => e.type === 'progress');
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages.every((e) => e.id === 'b')).toBe(true);
    expect(events.at(-2)).toMatchObject({ id: 'b', ok: true, result: { saved: true, format: 'psd' } });
  });

  it('refuses a message that is empty or not JSON', async () => {
    const id = await createSession(server.url);
    expect((await chat(server.url, id, '   ')).status).toBe(400);
    const text = await fetch(`${server.url}/v1/sessions/${id}/chat`, { method: 'POST', body: 'hi' });
    expect(text.status).toBe(415);
    expect((await chat(server.url, '0'.repeat(32), 'hi')).status).toBe(404);
  });
});

describe('chat behind a token', () => {
  it('needs the token like the rest of the API; the studio page does not', async () => {
    const server = await startTestServer({ token: TOKEN });
    try {
      const auth = { authorization: `Bearer ${TOKEN}` };
      const id = await createSession(server.url, auth);
      expect((await chat(server.url, id, 'hi')).status).toBe(401);
      expect((await fetch(`${server.url}/v1/model`)).status).toBe(401);
      expect((await fetch(`${server.url}/v1/model`, { headers: auth })).status).toBe(200);
      const page = await fetch(`${server.url}/`);
      expect([200, 503]).toContain(page.status);
    } finally {
      await server.close();
    }
  });
});
