/** Drives an MCP connection with the SDK's own Client, the same on both transports. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { toMcp } from '../../src/registry/formats/mcp.js';
import { toolsOf, type Variant } from '../../src/registry/index.js';
import { TOOLSET_KEYS } from '../../src/registry/toolsets.js';

const connected: Client[] = [];

/** The SDK's Client connected in memory to an MCP server whose calls run in `session`; closeClients closes it. */
export async function inMemoryClient(session: Session, name: string): Promise<Client> {
  const server = createMcpServer((call, opts) => session.call(call, opts), { variant: 'extended' });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return closedAfterTest(client);
}

/** The client, to be closed by closeClients. */
export function closedAfterTest(client: Client): Client {
  connected.push(client);
  return client;
}

/** Closes every client inMemoryClient connected or closedAfterTest took: a test file's afterEach. */
export async function closeClients(): Promise<void> {
  for (const c of connected.splice(0)) await c.close();
}

type Content = { type: string; text?: string; data?: string; mimeType?: string };

/** The JSON of a call's first text content, and its image contents. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: Content[];
    isError?: boolean;
  };
  const text = result.content.find((c) => c.type === 'text')?.text;
  return {
    isError: result.isError === true,
    json: JSON.parse(text ?? 'null') as Record<string, unknown>,
    images: result.content.filter((c) => c.type === 'image'),
  };
}

export async function expectRegistryTools(client: Client, variant: Variant): Promise<void> {
  const { tools } = await client.listTools();
  // Every tool of the variant, toolset by toolset (core first, for clients that keep only the first tools),
  // the registry's order within each.
  const expected = TOOLSET_KEYS.flatMap((key) => toolsOf(variant).filter((t) => t.toolset === key));
  const published = toMcp(expected);
  expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name));
  expect(new Set(tools.map((t) => t.name))).toEqual(new Set(toolsOf(variant).map((t) => t.name)));
  for (const [i, tool] of tools.entries()) {
    const def = expected[i]!;
    expect(tool.title).toBe(def.label);
    expect(tool.description).toBe(def.description);
    // Published verbatim: nothing added, nothing reordered.
    expect(JSON.stringify(tool.inputSchema)).toBe(JSON.stringify(def.parameters));
    expect(tool.annotations).toEqual(published[i]!.annotations);
  }
}

/** Creates a document, adds layers, saves a PSD and looks at the canvas; checks each step. */
export async function editingScenario(client: Client, workspace: string): Promise<void> {
  const created = await callTool(client, 'create_document', { width: 120, height: 80, name: '练习' });
  expect(created).toMatchObject({ isError: false, json: { ok: true, document: { name: '练习' } } });
  for (const name of ['前片', '后片']) {
    const layer = await callTool(client, 'create_layer', { name });
    expect(layer).toMatchObject({ isError: false, json: { ok: true, layer: { name } } });
  }
  const opacity = await callTool(client, 'set_layer_opacity', { name: '前片', opacity: 40 });
  expect(opacity.json).toMatchObject({ ok: true, layer: { opacity: 40 } });

  const saved = await callTool(client, 'save_document');
  expect(saved.json).toMatchObject({ ok: true, path: '练习.psd', format: 'psd' });
  expect(existsSync(join(workspace, '练习.psd'))).toBe(true);

  const canvas = await callTool(client, 'get_canvas_image', { max_size: 60 });
  expect(canvas.isError).toBe(false);
  expect(canvas.json).toMatchObject({ ok: true, width: 60, height: 40, images: [{ mime: 'image/png' }] });
  expect(JSON.stringify(canvas.json)).not.toContain('base64');
  expect(canvas.images).toHaveLength(1);
  expect(canvas.images[0]!.mimeType).toBe('image/png');
  const meta = await sharp(Buffer.from(canvas.images[0]!.data!, 'base64')).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(['png', 60, 40]);

  // A failed call is a result with isError and the error JSON.
  const failed = await callTool(client, 'set_layer_opacity', { name: '不存在', opacity: 10 });
  expect(failed.isError).toBe(true);
  expect(failed.json).toMatchObject({ ok: false, error: { code: 'not_found' } });
  const invalid = await callTool(client, 'create_layer', { name: 3, colour: 'red' });
  expect(invalid).toMatchObject({ isError: true, json: { error: { code: 'invalid_arguments' } } });
  const unknown = await callTool(client, 'no_such_tool');
  expect(unknown).toMatchObject({ isError: true, json: { error: { code: 'unknown_tool' } } });
}

/** A call made with a progress token reports its stages as MCP progress notifications, before its result. */
export async function expectProgress(client: Client): Promise<void> {
  await callTool(client, 'create_document', { width: 64, height: 64 });
  const seen: { progress: number; message?: string }[] = [];
  const result = await client.callTool(
    { name: 'save_document_as', arguments: { path: 'progress.psd' } },
    undefined,
    { onprogress: (p) => seen.push(p) },
  );
  expect(result.isError).toBeFalsy();
  expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
  // The SDK client runs notification handlers a microtask after reading them but settles a call at once, so a
  // stage it reads in one chunk with the result is dropped (modelcontextprotocol/typescript-sdk#2580): under
  // load the last stage may be missing here. The stdio test checks on the wire that the server sends both first.
  const stages = ['合成画面 (10%)', '编码 PSD (30%)'];
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.map((p) => p.message)).toEqual(stages.slice(0, seen.length));
}
