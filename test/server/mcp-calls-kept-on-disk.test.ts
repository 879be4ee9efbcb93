/**
 * The MCP calls a studio tab is given when it starts listening (`mcp_calls`) last as the chat does: kept in the
 * session's folder beside its chat record, they come back after the server restarts on the same workspace and
 * after the session idled out of memory, each with its result, in order; they go with a cleared chat; a record
 * whose last line a crash cut short (and a damaged line) still gives the session back, without the bad lines.
 * Each call keeps when it started (`at`), for a tab to place it among the chat turns it missed.
 * The SDK's own MCP client, the real server on loopback, the stream read with plain fetch.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_KEPT_CALL_BYTES,
  MAX_KEPT_CALLS,
  MCP_CALLS_FILE,
  SessionEvents,
} from '../../src/server/session-events.js';
import { SessionWorkspace } from '../../src/service/session-workspace.js';
import type { SessionEntry } from '../../src/service/sessions.js';
import { callTool } from '../mcp/support.js';
import { tempDir } from '../support/session.js';
import { events, startTestServer, type TestServer, toolCall } from './support.js';

type Heard = Record<string, unknown>;

const servers: TestServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const server of servers.splice(0)) await server.close();
});

async function serve(workspace: string, idleTimeoutMs?: number): Promise<TestServer> {
  const server = await startTestServer({ workspace, ...(idleTimeoutMs ? { idleTimeoutMs } : {}) });
  servers.push(server);
  return server;
}

async function stop(server: TestServer): Promise<void> {
  servers.splice(servers.indexOf(server), 1);
  await server.close();
}

async function connect(server: TestServer): Promise<{ client: Client; id: string }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
  const client = new Client({ name: 'atelier-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, id: transport.sessionId! };
}

/** Listens to session `id` as the studio does; with `catchUp`, as it starts (the conversation, then the calls). */
async function listen(server: TestServer, id: string, catchUp = true) {
  const abort = new AbortController();
  const res = await fetch(
    `${server.url}/v1/sessions/${id}/events?tab=studio${catchUp ? '&conversation=1' : ''}`,
    { signal: abort.signal },
  );
  expect(res.status).toBe(200);
  const heard: Heard[] = [];
  void (async () => {
    try {
      for await (const event of events(res)) heard.push(event);
    } catch {
      // Aborted by the test.
    }
  })();
  return { heard, stop: () => abort.abort() };
}

/** The calls a tab starting to listen now is given (after the conversation), or none. */
async function keptCalls(server: TestServer, id: string): Promise<Heard[] | null> {
  const tab = await listen(server, id);
  try {
    await expect.poll(() => tab.heard.length).toBeGreaterThanOrEqual(1);
    expect(tab.heard[0]!.type).toBe('conversation');
    // What comes after the catching-up: a run from another tab, told to this one as it happens.
    const run = await fetch(`${server.url}/v1/sessions/${id}/tool-calls?stream=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-atelier-tab': 'other' },
      body: JSON.stringify({ tool_calls: [toolCall('list_documents')] }),
    });
    for await (const _ of events(run));
    await expect.poll(() => tab.heard.some((e) => e.type === 'tool_result')).toBe(true);
    const kept = tab.heard[1]!;
    return kept.type === 'mcp_calls' ? (kept.events as Heard[]) : null;
  } finally {
    tab.stop();
  }
}

/** A result as the record keeps it: without the image links, which die with the session in memory. */
const withoutLinks = (events: readonly Heard[]) =>
  events.map((e) => {
    const { images: _, ...rest } = e;
    return rest;
  });

const shapeOf = (events: readonly Heard[]) => events.map((e) => [e.type, e.name, e.ok]);

const NAMES = ['create_document', 'create_layer', 'set_layer_opacity', 'get_canvas_image'];

/** Four calls over MCP (one failing, one with an image), a tab listening to them so the image has its link. */
async function fourCalls(server: TestServer): Promise<{ client: Client; id: string; told: Heard[] }> {
  const { client, id } = await connect(server);
  const tab = await listen(server, id, false);
  const answers = [
    await callTool(client, 'create_document', { width: 64, height: 48, name: '海报' }),
    await callTool(client, 'create_layer', { name: '甲' }),
    await callTool(client, 'set_layer_opacity', { name: '不存在', opacity: 10 }),
    await callTool(client, 'get_canvas_image', { max_size: 32 }),
  ];
  expect(answers.map((a) => a.isError)).toEqual([false, false, true, false]);
  await expect.poll(() => tab.heard.filter((e) => e.type === 'tool_result').length).toBe(4);
  tab.stop();
  const told = tab.heard.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
  expect(shapeOf(told)).toEqual(
    NAMES.flatMap((name, i) => [
      ['tool_call', name, undefined],
      ['tool_result', name, i !== 2],
    ]),
  );
  expect((told[7]!.images as unknown[]).length).toBe(1);
  return { client, id, told };
}

const recordOf = (workspace: string, id: string) => path.join(workspace, 'sessions', id, MCP_CALLS_FILE);

/** The record once the four calls and their results are all in it: it is written after the tabs are told. */
async function wholeRecord(workspace: string, id: string): Promise<Buffer> {
  const lines = () =>
    existsSync(recordOf(workspace, id))
      ? readFileSync(recordOf(workspace, id), 'utf8').split('\n').length - 1
      : 0;
  await expect.poll(lines).toBe(2 * NAMES.length);
  return readFileSync(recordOf(workspace, id));
}

describe('the MCP calls a tab catches up with, kept with the session on disk', () => {
  it('come back after the server restarts on the same workspace, in order, each with its result', async () => {
    const workspace = tempDir('atelier-mcp-kept-');
    const first = await serve(workspace);
    const start = Date.now();
    const { id, told } = await fourCalls(first);
    // Each call says when it started, by the server's clock (a tab that missed it and the turns around it
    // places it among them by that): in order, in the time the calls took.
    const starts = told.filter((e) => e.type === 'tool_call').map((e) => e.at as number);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(starts[0]).toBeGreaterThanOrEqual(start);
    expect(starts.at(-1)).toBeLessThanOrEqual(Date.now());
    const before = await keptCalls(first, id);
    expect(before).toEqual(told);
    await stop(first);

    const second = await serve(workspace);
    const after = await keptCalls(second, id);
    expect(after).toEqual(withoutLinks(told));
    expect(after!.filter((e) => e.type === 'tool_call').map((e) => e.at)).toEqual(starts);
    expect(shapeOf(after!)).toEqual(shapeOf(told));
    const results = after!.filter((e) => e.type === 'tool_result');
    expect((results[2]!.result as { error: { code: string } }).error.code).toBe('not_found');
    expect(results[0]!.result).toMatchObject({ ok: true });

    // Beside the chat record, the session's own, readable by its user alone.
    const record = recordOf(workspace, id);
    expect(statSync(record).mode & 0o777).toBe(0o600);
    expect(readFileSync(record, 'utf8')).not.toContain('/images/');
  });

  it('come back after the session idled out of memory and was recovered', async () => {
    const workspace = tempDir('atelier-mcp-kept-idle-');
    const server = await serve(workspace, 1_000);
    const { id, told } = await fourCalls(server);
    const closed = () =>
      server.logs.some((l) => l.includes(`session ${id.slice(0, 8)}… closed after idling`));
    await expect.poll(closed, { timeout: 30_000, interval: 100 }).toBe(true);
    expect(server.store.get(id)).toBeUndefined();

    const after = await keptCalls(server, id);
    expect(after).toEqual(withoutLinks(told));
  });

  it('go with a cleared chat, and only the calls after it come back', async () => {
    const workspace = tempDir('atelier-mcp-kept-clear-');
    const first = await serve(workspace);
    const { client, id } = await fourCalls(first);
    // Not deleted alone: it is written to as calls come, and goes with the conversation.
    const record = await wholeRecord(workspace, id);
    const refused = await fetch(`${first.url}/v1/sessions/${id}/files/mcp-calls.jsonl`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/清空对话记录/);
    expect(readFileSync(recordOf(workspace, id)).equals(record)).toBe(true);
    const cleared = await fetch(`${first.url}/v1/sessions/${id}/chat`, { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    // Counted in what the clear freed (the session made no chat turn: the record is all it removed).
    expect(await cleared.json()).toMatchObject({ removed_files: 1, freed_bytes: record.byteLength });
    expect(existsSync(recordOf(workspace, id))).toBe(false);
    expect(await keptCalls(first, id)).toBeNull();
    expect((await callTool(client, 'create_layer', { name: '乙' })).isError).toBe(false);
    await stop(first);

    const second = await serve(workspace);
    const after = await keptCalls(second, id);
    expect(shapeOf(after ?? [])).toEqual([
      ['tool_call', 'create_layer', undefined],
      ['tool_result', 'create_layer', true],
    ]);
    expect(after![0]!.arguments).toEqual({ name: '乙' });
  });

  it('skip a last line a crash cut short and a damaged line, and the session comes back', async () => {
    const workspace = tempDir('atelier-mcp-kept-cut-');
    const first = await serve(workspace);
    const { id, told } = await fourCalls(first);
    await stop(first);

    // The last result half-written when the process died, and a line damaged in the middle.
    const record = recordOf(workspace, id);
    const lines = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(8);
    const last = lines.pop()!;
    lines.splice(3, 0, '{"type":"tool_call","id":');
    writeFileSync(record, `${lines.join('\n')}\n${last.slice(0, Math.floor(last.length / 2))}`);

    const second = await serve(workspace);
    const after = (await keptCalls(second, id)) ?? [];
    // Three calls with their results, the fourth with none recorded: told as interrupted, not running for ever.
    expect(after.slice(0, 7)).toEqual(withoutLinks(told.slice(0, 7)));
    expect(after[7]).toMatchObject({
      type: 'tool_result',
      id: told[6]!.id,
      name: 'get_canvas_image',
      ok: false,
      result: { ok: false, error: { code: 'interrupted' } },
    });
    const info = await fetch(`${second.url}/v1/sessions/${id}`);
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ documents: [{ name: '海报' }] });
  });

  it('stay within the caps on disk as they do in memory, however many calls come', async () => {
    const root = tempDir('atelier-mcp-kept-caps-');
    const entryOf = () =>
      ({
        id: 'a'.repeat(32),
        dir: path.join(root, 'session'),
        disk: new SessionWorkspace(path.join(root, 'session'), path.join(root, 'journal')),
      }) as unknown as SessionEntry;
    const told = new SessionEvents();
    const entry = entryOf();
    const call = (i: number, result: unknown) => {
      const id = `mcp_${i}`;
      told.tellCall(entry, { type: 'tool_call', id, name: 'create_layer', arguments: { name: `n${i}` } });
      told.tellCall(entry, { type: 'tool_result', id, name: 'create_layer', ok: true, result });
    };
    const record = path.join(root, 'session', MCP_CALLS_FILE);
    const lines = () => readFileSync(record, 'utf8').split('\n').filter(Boolean).length;
    const readBack = async () => {
      // Another process: a new log, read from the record alone.
      const again = new SessionEvents();
      const back = entryOf();
      await again.callsRead(back);
      return again.keptCalls(back) ?? [];
    };

    for (let i = 1; i <= 5 * MAX_KEPT_CALLS; i++) call(i, { ok: true });
    await told.flushed();
    expect(lines()).toBeLessThanOrEqual(4 * 2 * MAX_KEPT_CALLS);
    let back = await readBack();
    expect(back).toEqual(told.keptCalls(entry));
    expect(
      back.filter((e) => e.type === 'tool_call').map((e) => (e.arguments as { name: string }).name),
    ).toEqual(Array.from({ length: MAX_KEPT_CALLS }, (_, i) => `n${4 * MAX_KEPT_CALLS + i + 1}`));

    // Large results: the bytes cap keeps fewer, and the record stays within twice it, and a line.
    const big = 'x'.repeat(40_000);
    for (let i = 1; i <= 200; i++) call(10_000 + i, { ok: true, text: big });
    await told.flushed();
    expect(statSync(record).size).toBeLessThanOrEqual(2 * MAX_KEPT_CALL_BYTES + 50_000);
    back = await readBack();
    expect(back).toEqual(told.keptCalls(entry));
    expect(back.reduce((n, e) => n + JSON.stringify(e).length, 0)).toBeLessThanOrEqual(MAX_KEPT_CALL_BYTES);
    expect(back.at(-1)).toMatchObject({ type: 'tool_result', id: 'mcp_10200' });
    // Written again whole: no temp file left beside it.
    expect(readdirSync(path.join(root, 'session'))).toEqual([MCP_CALLS_FILE]);
  });
});
