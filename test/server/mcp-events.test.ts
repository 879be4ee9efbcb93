/**
 * An MCP session over `/mcp` is a server session: a studio tab listening on its `GET …/events` is told each of
 * the MCP client's calls as it is told a streamed run's (`tool_call`, its stages, `tool_result`: the same
 * events, the same shape, so the same card), a refused or failed call as a failed result, and its stream ends
 * when the MCP client ends the session. A tab that starts listening later (a designer joining, a tab back after
 * a while hidden) is given the client's recent calls first, each with its result, in order, none it then hears
 * again. The SDK's own client, the real server on loopback, the stream read with plain fetch.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTool } from '../../src/registry/index.js';
import { MAX_KEPT_CALLS } from '../../src/server/session-events.js';
import { callTool } from '../mcp/support.js';
import { createSession, events, okCalls, startTestServer, type TestServer, toolCall } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport; id: string }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
  const client = new Client({ name: 'atelier-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, id: transport.sessionId! };
}

/**
 * Listens to session `id` as the studio does, gathering every event until the stream ends; with `catchUp`, as the
 * studio starts listening (the conversation first, then what the MCP client did before).
 */
async function listen(id: string, catchUp = false) {
  const abort = new AbortController();
  const res = await fetch(
    `${server.url}/v1/sessions/${id}/events?tab=studio${catchUp ? '&conversation=1' : ''}`,
    {
      signal: abort.signal,
    },
  );
  expect(res.status).toBe(200);
  const heard: Record<string, unknown>[] = [];
  let over = false;
  const ended = (async () => {
    try {
      for await (const event of events(res)) heard.push(event);
    } catch {
      // Aborted by the test.
    }
    over = true;
  })();
  return { heard, ended, isOver: () => over, stop: () => abort.abort() };
}

type Heard = Record<string, unknown>;
const ofType = (heard: readonly Heard[], type: string) => heard.filter((e) => e.type === type);

/** A streamed HTTP run's events for `calls`, sent as another tab (so its own stream is not told). */
async function streamedRun(id: string, calls: unknown[]): Promise<Heard[]> {
  const res = await fetch(`${server.url}/v1/sessions/${id}/tool-calls?stream=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-atelier-tab': 'other' },
    body: JSON.stringify({ tool_calls: calls }),
  });
  const out: Heard[] = [];
  for await (const event of events(res)) out.push(event);
  return out;
}

/** The keys of an event and the type of each value: the shape, whatever the values. */
const shapeOf = (event: Heard) =>
  Object.fromEntries(Object.entries(event).map(([k, v]) => [k, Array.isArray(v) ? 'array' : typeof v]));

describe('a session driven over MCP, as a studio tab hears it', () => {
  it('is told each call as a card: the call with its label, then its result, as a streamed run tells them', async () => {
    const { client, id } = await connect();
    const tab = await listen(id);
    try {
      const created = await callTool(client, 'create_document', { width: 40, height: 30, name: '海报' });
      expect(created.isError).toBe(false);
      await expect.poll(() => tab.heard.length).toBe(2);
      const [call, result] = tab.heard as [Heard, Heard];
      expect(call).toEqual({
        type: 'tool_call',
        id: expect.stringMatching(/^mcp_/),
        name: 'create_document',
        // The registry's Chinese label, not one of its own.
        label: findTool('create_document')!.label,
        arguments: { width: 40, height: 30, name: '海报' },
        // When it started, by the server's clock: a tab that missed it places it among the chat turns by it.
        at: expect.any(Number),
      });
      expect(result).toEqual({
        type: 'tool_result',
        id: call.id,
        name: 'create_document',
        ok: true,
        result: created.json,
      });

      // A read-only call is a card too (the studio shows what the client looked at).
      expect((await callTool(client, 'get_document_info')).isError).toBe(false);
      await expect.poll(() => tab.heard.length).toBe(4);
      expect(tab.heard.slice(2).map((e) => [e.type, e.name, e.ok])).toEqual([
        ['tool_call', 'get_document_info', undefined],
        ['tool_result', 'get_document_info', true],
      ]);

      // The same events, in the same shape, as a streamed run from another tab gives this tab.
      const run = await streamedRun(id, [toolCall('create_layer', { name: '文字' })]);
      expect(run.map((e) => e.type)).toEqual(['tool_call', 'tool_result', 'done']);
      await expect.poll(() => tab.heard.length).toBe(7);
      // But for the MCP call's start, which only the calls kept for a tab to catch up with need.
      const { at: _at, ...callShape } = shapeOf(call);
      expect(shapeOf(tab.heard[4]!)).toEqual(callShape);
      expect(shapeOf(tab.heard[5]!)).toEqual(shapeOf(result));
      // Ids never collide with each other (the studio folds a result into the card of the same id).
      const ids = ofType(tab.heard, 'tool_call').map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      tab.stop();
      await client.close();
    }
  });

  it('tells a refused or failed call as a failed result with its Chinese error, the document unchanged', async () => {
    const { client, id } = await connect();
    await callTool(client, 'create_document', { width: 40, height: 30, name: '海报' });
    const tab = await listen(id);
    try {
      const answers = [
        await callTool(client, 'set_layer_opacity', { name: '不存在', opacity: 10 }),
        await callTool(client, 'create_layer', { name: 3 }),
        await callTool(client, 'no_such_tool'),
      ];
      expect(answers.map((r) => [r.isError, (r.json.error as { code: string }).code])).toEqual([
        [true, 'not_found'],
        [true, 'invalid_arguments'],
        [true, 'unknown_tool'],
      ]);
      await expect.poll(() => tab.heard.length).toBe(6);
      const calls = ofType(tab.heard, 'tool_call');
      const results = ofType(tab.heard, 'tool_result');
      // A tool that does not exist has no label: its name stands for it.
      expect(calls.map((e) => [e.name, e.label])).toEqual([
        ['set_layer_opacity', findTool('set_layer_opacity')!.label],
        ['create_layer', findTool('create_layer')!.label],
        ['no_such_tool', 'no_such_tool'],
      ]);
      expect(calls.map((e) => e.arguments)).toEqual([{ name: '不存在', opacity: 10 }, { name: 3 }, {}]);
      // What the client was answered, error and hint, the card says.
      expect(results.map((e) => [e.id, e.ok, e.result])).toEqual(
        calls.map((c, i) => [c.id, false, answers[i]!.json]),
      );
      for (const e of results) {
        expect((e.result as { error: { message: string } }).error.message).toMatch(/[\u4e00-\u9fff]/);
      }
      const state = (await (await fetch(`${server.url}/v1/sessions/${id}/state`)).json()) as {
        active: { layers: unknown[] };
      };
      expect(state.active.layers).toHaveLength(1);
    } finally {
      tab.stop();
      await client.close();
    }
  });

  it('tells a long call’s stages, and gives a result’s images as links the tab can load', async () => {
    const { client, id } = await connect();
    const tab = await listen(id);
    try {
      await callTool(client, 'create_document', { width: 64, height: 48, name: '图' });
      expect((await callTool(client, 'save_document')).isError).toBe(false);
      const canvas = await callTool(client, 'get_canvas_image', { max_size: 32 });
      expect(canvas.images).toHaveLength(1);
      await expect.poll(() => ofType(tab.heard, 'tool_result').length).toBe(3);
      const save = ofType(tab.heard, 'tool_call').find((e) => e.name === 'save_document')!;
      const stages = tab.heard.filter((e) => e.type === 'progress' && e.id === save.id);
      expect(stages.map((e) => e.stage)).toEqual(['合成画面', '编码 PSD']);
      // In order: the call, its stages, its result.
      const at = (e: Heard) => tab.heard.indexOf(e);
      const saved = ofType(tab.heard, 'tool_result').find((e) => e.id === save.id)!;
      expect(at(save) < at(stages[0]!) && at(stages[1]!) < at(saved)).toBe(true);

      const image = ofType(tab.heard, 'tool_result').find((e) => e.name === 'get_canvas_image')!;
      expect(JSON.stringify(image)).not.toContain('base64');
      const [link] = image.images as { url: string; mime: string }[];
      expect(link!.url).toMatch(new RegExp(`^/v1/sessions/${id}/images/`));
      const png = await fetch(`${server.url}${link!.url}`);
      expect([png.status, png.headers.get('content-type')]).toEqual([200, 'image/png']);
    } finally {
      tab.stop();
      await client.close();
    }
  });

  it('ends the stream when the MCP client ends the session', async () => {
    const { client, transport, id } = await connect();
    const tab = await listen(id);
    try {
      await callTool(client, 'create_document', { width: 8, height: 8 });
      await expect.poll(() => tab.heard.length).toBe(2);
      expect(tab.isOver()).toBe(false);
      await transport.terminateSession();
      // Ends by itself (a test timeout otherwise). The session's work stays (as after an idle timeout): the
      // studio, opening it again, finds its document.
      await tab.ended;
      expect(tab.heard.map((e) => e.type)).toEqual(['tool_call', 'tool_result']);
      const state = await fetch(`${server.url}/v1/sessions/${id}/state`);
      expect(state.status).toBe(200);
      expect(((await state.json()) as { documents: unknown[] }).documents).toHaveLength(1);
    } finally {
      tab.stop();
      await client.close();
    }
  });

  it('gives a tab that starts listening the calls made before, each with its result, then tells the next', async () => {
    const { client, id } = await connect();
    try {
      // Nobody listens to these.
      const answers = [
        await callTool(client, 'create_document', { width: 64, height: 48, name: '早' }),
        await callTool(client, 'create_layer', { name: '甲' }),
        await callTool(client, 'set_layer_opacity', { name: '不存在', opacity: 10 }),
        await callTool(client, 'get_canvas_image', { max_size: 32 }),
      ];
      expect(answers.map((a) => a.isError)).toEqual([false, false, true, false]);
      const names = ['create_document', 'create_layer', 'set_layer_opacity', 'get_canvas_image'];

      const first = await listen(id, true);
      await expect.poll(() => first.heard.length).toBe(2);
      expect(first.heard[0]!.type).toBe('conversation');
      const kept = first.heard[1]!;
      expect(kept.type).toBe('mcp_calls');
      const before = kept.events as Heard[];
      // In order, each call followed by its result: the same events a listening tab was told.
      expect(before.map((e) => [e.type, e.name])).toEqual(
        names.flatMap((name) => [
          ['tool_call', name],
          ['tool_result', name],
        ]),
      );
      const calls = ofType(before, 'tool_call');
      const results = ofType(before, 'tool_result');
      expect(calls.map((e) => e.label)).toEqual(names.map((n) => findTool(n)!.label));
      expect(calls[1]!.arguments).toEqual({ name: '甲' });
      expect(results.map((e) => e.id)).toEqual(calls.map((e) => e.id));
      expect(results.map((e) => e.ok)).toEqual([true, true, false, true]);
      expect(results[2]!.result).toEqual(answers[2]!.json);
      expect((results[2]!.result as { error: { message: string } }).error.message).toMatch(/[\u4e00-\u9fff]/);
      // Nobody was there to load the image: it was not kept, on the shelf or in the event.
      expect(results[3]!.images).toBeUndefined();
      expect(JSON.stringify(before)).not.toContain('base64');
      expect(server.store.get(id)!.images.bytes).toBe(0);

      // The next call is told as it happens, not given again.
      expect((await callTool(client, 'create_layer', { name: '乙' })).isError).toBe(false);
      expect((await callTool(client, 'get_canvas_image', { max_size: 32 })).isError).toBe(false);
      await expect.poll(() => first.heard.length).toBe(6);
      const live = first.heard.slice(2);
      expect(live.map((e) => [e.type, e.name])).toEqual([
        ['tool_call', 'create_layer'],
        ['tool_result', 'create_layer'],
        ['tool_call', 'get_canvas_image'],
        ['tool_result', 'get_canvas_image'],
      ]);

      // Another tab starting now is given all six, those the first tab heard under the ids it heard them.
      const second = await listen(id, true);
      await expect.poll(() => second.heard.length).toBe(2);
      const all = second.heard[1]!.events as Heard[];
      expect(all).toEqual([...before, ...live]);
      // A result heard by a tab keeps its image's link, which still loads.
      const [link] = live[3]!.images as { url: string }[];
      expect((await fetch(`${server.url}${link!.url}`)).status).toBe(200);
      first.stop();
      second.stop();
    } finally {
      await client.close();
    }
  });

  it('keeps only the newest calls, none of a session no MCP client called, and none past a cleared chat', async () => {
    // A session driven over HTTP alone: the stream has nothing of MCP to give.
    const plain = await createSession(server.url);
    await okCalls(server.url, plain, [toolCall('create_document', { width: 8, height: 8 })]);
    const quiet = await listen(plain, true);
    await expect.poll(() => quiet.heard.length).toBe(1);
    expect(quiet.heard[0]!.type).toBe('conversation');
    quiet.stop();

    const { client, id } = await connect();
    try {
      await callTool(client, 'create_document', { width: 8, height: 8 });
      // Failed calls, each named by its arguments.
      for (let i = 1; i <= MAX_KEPT_CALLS + 4; i++) {
        await callTool(client, 'set_layer_opacity', { name: `n${i}`, opacity: 10 });
      }
      const tab = await listen(id, true);
      await expect.poll(() => tab.heard.length).toBe(2);
      const calls = ofType(tab.heard[1]!.events as Heard[], 'tool_call');
      expect(calls).toHaveLength(MAX_KEPT_CALLS);
      expect(calls.map((e) => (e.arguments as { name: string }).name)).toEqual(
        Array.from({ length: MAX_KEPT_CALLS }, (_, i) => `n${i + 5}`),
      );
      tab.stop();

      // The tabs empty their feeds when the conversation is cleared: the calls do not come back to them.
      const cleared = await fetch(`${server.url}/v1/sessions/${id}/chat`, { method: 'DELETE' });
      expect(cleared.status).toBe(200);
      const after = await listen(id, true);
      await expect.poll(() => after.heard.length).toBe(1);
      await callTool(client, 'get_document_info');
      await expect.poll(() => after.heard.length).toBe(3);
      expect(after.heard.map((e) => e.type)).toEqual(['conversation', 'tool_call', 'tool_result']);
      after.stop();
    } finally {
      await client.close();
    }
  });
});
