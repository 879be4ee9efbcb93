/**
 * An MCP session over `/mcp` is a server session: a studio tab listening on its `GET …/events` is told each of
 * the MCP client's calls as it is told a streamed run's (`tool_call`, its stages, `tool_result`: the same
 * events, the same shape, so the same card), a refused or failed call as a failed result, and its stream ends
 * when the MCP client ends the session. The SDK's own client, the real server on loopback, the stream read with
 * plain fetch.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTool } from '../../src/registry/index.js';
import { callTool } from '../mcp/support.js';
import { events, startTestServer, type TestServer, toolCall } from './support.js';

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

/** Listens to session `id` as the studio does, gathering every event until the stream ends. */
async function listen(id: string) {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/v1/sessions/${id}/events?tab=studio`, { signal: abort.signal });
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
      expect(shapeOf(tab.heard[4]!)).toEqual(shapeOf(call));
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
      // Ends by itself (a test timeout otherwise); the studio, listening again, is told the session is gone.
      await tab.ended;
      expect(tab.heard.map((e) => e.type)).toEqual(['tool_call', 'tool_result']);
      expect((await fetch(`${server.url}/v1/sessions/${id}/events?tab=studio`)).status).toBe(404);
    } finally {
      tab.stop();
      await client.close();
    }
  });
});
