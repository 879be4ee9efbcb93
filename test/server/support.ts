/** The real HTTP server on a free loopback port, and small helpers to drive it as a client would. */

import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { LayerNode, SessionSnapshot } from '../../src/calls/snapshot.js';
import type { ServerConfig } from '../../src/server/config.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { tempDir } from '../support/session.js';

export const TOKEN = 'test-token-0123456789abcdef';

export interface TestServer extends RunningServer {
  /** Messages the server logged. */
  readonly logs: string[];
}

export async function startTestServer(overrides: Partial<ServerConfig> = {}): Promise<TestServer> {
  const logs: string[] = [];
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    workspace: tempDir('atelier-server-'),
    log: (line) => logs.push(line),
    ...overrides,
  });
  return Object.assign(server, { logs });
}

/** A tool call exactly as a chat-completions assistant message carries it. */
export function toolCall(
  name: string,
  args: unknown = {},
  id = `call_${name}`,
): ChatCompletionMessageFunctionToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

export interface ToolCallsResponse {
  messages: ChatCompletionToolMessageParam[];
}

export async function createSession(base: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${base}/v1/sessions`, { method: 'POST', headers });
  if (res.status !== 201) throw new Error(`POST /v1/sessions: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Sends tool calls and returns each result parsed from its tool message's content. */
export async function sendCalls(
  base: string,
  id: string,
  calls: ChatCompletionMessageFunctionToolCall[],
  headers: Record<string, string> = {},
): Promise<{ messages: ChatCompletionToolMessageParam[]; results: Record<string, unknown>[] }> {
  const res = await fetch(`${base}/v1/sessions/${id}/tool-calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ tool_calls: calls }),
  });
  if (res.status !== 200) throw new Error(`tool-calls: ${res.status} ${await res.text()}`);
  const { messages } = (await res.json()) as ToolCallsResponse;
  return {
    messages,
    results: messages.map((m) => JSON.parse(m.content as string) as Record<string, unknown>),
  };
}

/** Like sendCalls, failing when any call did not succeed. */
export async function okCalls(
  base: string,
  id: string,
  calls: ChatCompletionMessageFunctionToolCall[],
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const { results } = await sendCalls(base, id, calls, headers);
  results.forEach((r, i) => {
    if (r.ok !== true) throw new Error(`${calls[i]!.function.name} failed: ${JSON.stringify(r)}`);
  });
  return results;
}

export async function errorOf(
  res: Response,
): Promise<{ code: string; message: string; [k: string]: unknown }> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

/**
 * Uploads a `side` px square of grey noise as `noise.png` and opens it in the session: noise hardly compresses,
 * so its renders and canvas images are about as large as its pixels.
 */
export async function openNoiseDocument(base: string, id: string, side: number): Promise<void> {
  const noise = await sharp({
    create: {
      width: side,
      height: side,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
  const up = await fetch(`${base}/v1/sessions/${id}/files?name=noise.png`, { method: 'POST', body: noise });
  expect(up.status).toBe(201);
  await okCalls(base, id, [toolCall('open_document', { path: 'noise.png' })]);
}

/** The `data:` events of a server-sent event stream, parsed, as they arrive. */
export async function* events(res: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    buffered += r.value;
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      for (const line of buffered.slice(0, end).split('\n')) {
        if (line.startsWith('data: ')) yield JSON.parse(line.slice(6)) as Record<string, unknown>;
      }
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf('\n\n');
    }
  }
}

/** A chat event as the chat route streams it. */
export type ChatEvent = { type: string } & Record<string, unknown>;

/** One chat turn through the service: `message` sent, every event of the answer read. */
export async function chat(base: string, id: string, message: string): Promise<ChatEvent[]> {
  const res = await fetch(`${base}/v1/sessions/${id}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as ChatEvent);
}

/**
 * Makes a 3000 × 3000 document with a filled layer in the session and starts saving it as `out/大.psd` in a
 * streamed request: a call that runs long enough to delete its session under it. The stream's response.
 */
export async function startBigSave(base: string, id: string): Promise<Response> {
  await okCalls(base, id, [
    toolCall('create_document', { width: 3000, height: 3000, name: '大' }),
    toolCall('create_layer', { name: '甲' }),
    toolCall('fill_selection', { color: '#ff0000' }),
  ]);
  const res = await fetch(`${base}/v1/sessions/${id}/tool-calls?stream=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tool_calls: [toolCall('save_document_as', { path: 'out/大.psd' })] }),
  });
  expect(res.status).toBe(200);
  return res;
}

/** Bytes of the regular files under `dir` (as the quota counts them). */
export function bytesUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) total += statSync(path.join(e.parentPath, e.name)).size;
  }
  return total;
}

/** Every layer of a layer tree, depth-first from the top, groups' contents after them. */
export function layerNodes(nodes: readonly LayerNode[]): LayerNode[] {
  return nodes.flatMap((n) => [n, ...layerNodes(n.children ?? [])]);
}

/** Every layer of the session's active document as its state gives them (`GET /state`), depth-first from the top. */
export async function activeLayers(base: string, id: string): Promise<LayerNode[]> {
  const state = (await (await fetch(`${base}/v1/sessions/${id}/state`)).json()) as SessionSnapshot;
  return layerNodes(state.active?.layers ?? []);
}

/**
 * Reads the event stream of a streamed tool-call request, deleting session `id` at the first event `when` picks
 * (the call is then under way); the events seen, and fails if none was picked.
 */
export async function deleteDuring(
  base: string,
  id: string,
  res: Response,
  when: (event: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  let deleted = false;
  for await (const event of events(res)) {
    seen.push(event);
    if (!deleted && when(event)) {
      deleted = true;
      expect((await fetch(`${base}/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    }
  }
  expect(deleted).toBe(true);
  return seen;
}
