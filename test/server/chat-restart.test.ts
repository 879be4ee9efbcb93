/**
 * The conversation survives a restart: a turn with tool calls on one server, the server stopped, a new one
 * started on the same workspace — the studio's `GET /chat` shows the earlier turn and its cards (images served
 * again), and the next turn's request to the model carries the earlier turn in order with every call answered.
 * Then a transcript a crash cut short (an answer missing, the last line half-written) comes back consistent, and
 * the real binary killed with SIGKILL while the model thinks between two steps leaves a turn that comes back with
 * the calls that ran.
 */
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { expectEveryCallAnswered } from '../agent/support.js';
import { crash, serveCli } from '../support/cli.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { tempDir } from '../support/session.js';
import { type ChatEvent, chat, createSession, startTestServer, type TestServer } from './support.js';

async function history(base: string, id: string): Promise<ChatEvent[]> {
  const res = await fetch(`${base}/v1/sessions/${id}/chat`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: ChatEvent[] }).events;
}

describe('chat across a server restart', () => {
  let model: ScriptedModel;
  const workspace = tempDir('atelier-chat-restart-');
  let server: TestServer;
  const serve = async () => {
    const config = modelConfigFrom(
      {},
      { ATELIER_MODEL: 'scripted-vision', ATELIER_MODEL_BASE_URL: model.url, ATELIER_MODEL_VISION: '1' },
    );
    server = await startTestServer({ workspace, model: config });
    return server;
  };

  beforeAll(async () => {
    model = await startScriptedModel();
  });
  afterAll(async () => {
    await server?.close();
    await model.close();
  });

  it('shows the earlier turn and its cards, and sends the model the earlier turn in order', async () => {
    const first = await serve();
    const id = await createSession(first.url);
    model.push(
      {
        text: '我来新建文档。',
        toolCalls: [
          { id: 'c1', name: 'create_document', arguments: { width: 64, height: 32, name: '海报' } },
          { id: 'c2', name: 'get_canvas_image', arguments: { max_size: 64 } },
        ],
      },
      { text: '已新建文档“海报”。' },
    );
    const streamed = await chat(first.url, id, '新建一个 64×32 的文档，叫海报');
    expect(streamed.at(-1)).toMatchObject({ type: 'done' });
    const before = await history(first.url, id);
    await first.close();

    const second = await serve();
    const after = await history(second.url, id);
    const shape = (events: ChatEvent[]) =>
      events.map(({ type, id, text, label, ok, name }) => ({ type, id, text, label, ok, name }));
    expect(shape(after)).toEqual(shape(before));
    expect(after.map((e) => e.type)).toEqual([
      'user',
      'assistant',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'assistant',
      'done',
    ]);
    // The turn's start, by the server's clock, comes back with it (a tab places the MCP calls it missed by it).
    expect(after[0]).toEqual({ type: 'user', text: '新建一个 64×32 的文档，叫海报', at: before[0]!.at });
    expect(before[0]!.at).toEqual(expect.any(Number));
    expect(after[2]).toMatchObject({ id: 'c1', label: '新建文档', arguments: { width: 64, name: '海报' } });
    expect(after[3]).toMatchObject({ id: 'c1', ok: true, result: { document: { name: '海报' } } });
    // The capture's card has its image again, served by the new process.
    const images = after[5]!.images as { url: string; mime: string }[];
    expect(images).toHaveLength(1);
    const image = await fetch(`${second.url}${images[0]!.url}`);
    expect(image.status).toBe(200);
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');

    model.push({ text: '好的。' });
    const next = await chat(second.url, id, '把它改名为春季海报');
    expect(next.at(-1)).toMatchObject({ type: 'done' });
    const messages = model.requests.at(-1)!.body.messages;
    expect(messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'assistant',
      'user',
    ]);
    expect(messages[1]!.content).toMatch(/^新建一个 64×32 的文档，叫海报\n\n【会话状态】/);
    expect((messages[2]!.tool_calls as { id: string }[]).map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(messages[2]!.content).toBe('我来新建文档。');
    expect(messages.slice(3, 5).map((m) => m.tool_call_id)).toEqual(['c1', 'c2']);
    // The vision model sees the capture again, rebuilt from the file kept beside the transcript.
    expect(JSON.stringify(messages[5]!.content)).toContain('data:image/jpeg;base64,');
    expect(messages[6]!.content).toBe('已新建文档“海报”。');
    expect(messages[7]!.content).toMatch(/^把它改名为春季海报/);
    // The state summary is today's: the document the first process made, recovered from the journal.
    expect(messages[7]!.content).toContain('海报（64×32 px');
    expectEveryCallAnswered(messages as never);
  });

  it('recovers a transcript a crash cut short: a call without its answer, a last line half-written', async () => {
    let current = server;
    const id = await createSession(current.url);
    model.push({ text: '你好。' });
    await chat(current.url, id, '你好');
    await current.close();

    const transcript = path.join(workspace, 'sessions', id, 'chat.jsonl');
    const call = (callId: string, name: string) => ({
      id: callId,
      type: 'function',
      function: { name, arguments: `{"width":20,"height":20,"name":"${name}${callId}"}` },
    });
    appendFileSync(
      transcript,
      `${[
        { role: 'user', content: '新建两个文档' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [call('k1', 'create_document'), call('k2', 'create_document')],
        },
        {
          role: 'tool',
          tool_call_id: 'k1',
          name: 'create_document',
          content: '{"ok":true,"document":{"name":"甲"}}',
        },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n')}\n{"role":"tool","tool_call_id":"k2","name":"create_docu`,
    );

    current = await serve();
    const events = await history(current.url, id);
    expect(events.slice(-6).map((e) => [e.type, e.id ?? e.code ?? e.text])).toEqual([
      ['user', '新建两个文档'],
      ['tool_call', 'k1'],
      ['tool_result', 'k1'],
      ['tool_call', 'k2'],
      ['tool_result', 'k2'],
      ['error', 'interrupted'],
    ]);
    expect(events.at(-2)).toMatchObject({ ok: false, result: { error: { code: 'interrupted' } } });
    expect((events.at(-1)!.message as string).length).toBeGreaterThan(5);

    model.push({ text: '继续。' });
    await chat(current.url, id, '继续');
    const messages = model.requests.at(-1)!.body.messages;
    expectEveryCallAnswered(messages as never);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['k1', 'k2']);
    // The transcript is whole JSONL again, with the answer the restart gave and the turn after it.
    const lines = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.tool_call_id === 'k2')).toMatchObject({ not_run: true });
    expect(lines.at(-1)).toMatchObject({ event: 'done' });
  });
});

describe('chat after the server is killed mid-turn', () => {
  let model: ScriptedModel;
  const children: ChildProcess[] = [];
  let release: () => void = () => {};

  beforeAll(async () => {
    model = await startScriptedModel();
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    release();
    await model.close();
  });

  /** `atelier serve` from dist/, as a designer runs it, with the scripted model configured. */
  const serveBinary = (workspace: string) =>
    serveCli(workspace, children, { ATELIER_MODEL: 'scripted-model', ATELIER_MODEL_BASE_URL: model.url });

  it('shows the calls that ran and the interrupted turn, and the model gets them answered', async () => {
    const workspace = tempDir('atelier-chat-kill-');
    const first = await serveBinary(workspace);
    const id = await createSession(first.url);
    model.push(
      {
        toolCalls: [
          { id: 'm1', name: 'create_document', arguments: { width: 40, height: 30, name: '中断' } },
          { id: 'm2', name: 'create_layer', arguments: { name: '已完成的图层' } },
        ],
      },
      // The model "thinks" until the test ends: the server dies waiting for it.
      () => new Promise((resolve) => (release = () => resolve({ text: '太迟了' }))),
    );
    const pending = fetch(`${first.url}/v1/sessions/${id}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: '新建文档并加一个图层' }),
    })
      .then((res) => res.text())
      .catch(() => 'connection lost');
    const transcript = path.join(workspace, 'sessions', id, 'chat.jsonl');
    await expect
      .poll(
        () => {
          try {
            return readFileSync(transcript, 'utf8')
              .split('\n')
              .filter((l) => l.includes('"role":"tool"')).length;
          } catch {
            return 0;
          }
        },
        { timeout: 20_000 },
      )
      .toBe(2);
    await expect.poll(() => model.requests.length, { timeout: 20_000 }).toBe(2);
    await crash(first.child);
    expect(await pending).not.toContain('"type":"done"');

    const second = await serveBinary(workspace);
    const events = await history(second.url, id);
    expect(events.map((e) => [e.type, e.id ?? e.code ?? e.text])).toEqual([
      ['user', '新建文档并加一个图层'],
      ['tool_call', 'm1'],
      ['tool_result', 'm1'],
      ['tool_call', 'm2'],
      ['tool_result', 'm2'],
      ['error', 'interrupted'],
    ]);
    expect(events[4]).toMatchObject({ ok: true, result: { layer: { name: '已完成的图层' } } });

    model.push({ text: '图层已经在了。' });
    const next = await chat(second.url, id, '图层加好了吗？');
    expect(next.at(-1)).toMatchObject({ type: 'done' });
    const messages = model.requests.at(-1)!.body.messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
    expect(messages.slice(3, 5).map((m) => m.tool_call_id)).toEqual(['m1', 'm2']);
    expectEveryCallAnswered(messages as never);
    // The documents came back from the journal: the summary the model reads has the layer made before the kill.
    expect(messages[5]!.content).toContain('已完成的图层');
  });
});
