/**
 * Toolsets: a client that takes only about 40 tools chooses the toolsets it wants (`atelier mcp --toolsets`,
 * `/mcp?toolsets=` or `X-MCP-Toolsets`), gets their tools and core's listed, and nothing else runs. Driven by the
 * SDK's Client over the real binary (dist/) and over the real server's HTTP endpoint.
 */
import type { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Toolset, toolsOf } from '../../src/registry/index.js';
import { TOOLSET_KEYS } from '../../src/registry/toolsets.js';
import { startTestServer, type TestServer } from '../server/support.js';
import { BIN, runCli } from '../support/cli.js';
import { tempDir } from '../support/session.js';
import { callTool } from './support.js';

/** The registry's own grouping: the extended variant's tools of these toolsets and core, toolset by toolset. */
function registryToolsOf(chosen: readonly Toolset[]): string[] {
  const wanted = new Set<Toolset>(['core', ...chosen]);
  return TOOLSET_KEYS.filter((k) => wanted.has(k)).flatMap((key) =>
    toolsOf('extended')
      .filter((t) => t.toolset === key)
      .map((t) => t.name),
  );
}

async function stdioClient(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--workspace', tempDir('atelier-toolsets-'), ...args],
    stderr: 'pipe',
  });
  (transport.stderr as PassThrough).resume();
  const client = new Client({ name: 'atelier-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** What a client can see of the document: its layers, its size, its pixels. */
async function documentState(client: Client) {
  const layers = await callTool(client, 'get_layer_structure');
  const info = await callTool(client, 'get_document_info');
  const canvas = await callTool(client, 'get_canvas_image', { max_size: 64 });
  expect([layers.isError, info.isError, canvas.isError]).toEqual([false, false, false]);
  return { layers: layers.json, info: info.json, pixels: canvas.images[0]?.data };
}

/**
 * With garment and text chosen: exactly their tools and core's are listed; a text tool runs; a layer tool and a
 * destructive arrange tool are refused naming their toolset, and the document is as before.
 */
async function expectGarmentAndText(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(registryToolsOf(['garment', 'text']));
  expect(tools.length).toBeLessThanOrEqual(40);

  await callTool(client, 'create_document', { width: 40, height: 30, name: '样稿' });
  const text = await callTool(client, 'create_text_layer', { text: '春', x: 4, y: 4, font_size: 12 });
  expect(text.json).toMatchObject({ ok: true });
  const before = await documentState(client);

  for (const [name, args, toolset] of [
    ['create_layer', { name: '新层' }, 'layers'],
    ['flatten_image', {}, 'arrange'],
  ] as const) {
    const refused = await callTool(client, name, args);
    expect(refused.isError).toBe(true);
    expect(refused.json).toMatchObject({
      ok: false,
      error: {
        code: 'unknown_tool',
        message: `工具“${name}”属于工具组 ${toolset}，本连接只提供工具组 core、garment、text，没有执行。`,
        details: { toolset, toolsets: ['core', 'garment', 'text'] },
      },
    });
  }
  expect(await documentState(client)).toEqual(before);
  // Nothing was recorded for undo either: the one step back takes away the text layer.
  await callTool(client, 'undo');
  const after = await callTool(client, 'get_layer_structure');
  expect(JSON.stringify(after.json)).not.toContain('春');
}

describe('MCP toolsets over stdio (atelier mcp --toolsets)', () => {
  it('lists only the chosen toolsets and core, and refuses a call outside them leaving the document unchanged', async () => {
    const client = await stdioClient(['--toolsets', 'garment, text']);
    try {
      await expectGarmentAndText(client);
    } finally {
      await client.close();
    }
  });

  it('refuses an unknown toolset in Chinese, naming the valid ones', async () => {
    const run = await runCli([
      'mcp',
      '--workspace',
      tempDir('atelier-toolsets-'),
      '--toolsets',
      'garment,lyers',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`未知的工具组“lyers”：可选 ${TOOLSET_KEYS.join('、')}`);
    const empty = await runCli(['mcp', '--toolsets', ' , ']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('没有指定工具组');
  });

  it('lists every tool by default, core and the garment flow within the first 40', async () => {
    const client = await stdioClient([]);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(new Set(names)).toEqual(new Set(toolsOf('extended').map((t) => t.name)));
      expect(names).toHaveLength(toolsOf('extended').length);
      const first40 = new Set(names.slice(0, 40));
      for (const t of toolsOf('extended').filter((t) => t.toolset === 'core' || t.toolset === 'garment')) {
        expect(first40, t.name).toContain(t.name);
      }
    } finally {
      await client.close();
    }
  });
});

describe('MCP toolsets over HTTP (/mcp?toolsets=, X-MCP-Toolsets)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  async function httpClient(path: string, headers: Record<string, string> = {}): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
      requestInit: { headers },
    });
    const client = new Client({ name: 'atelier-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('takes the toolsets from the initialize URL and refuses calls outside them', async () => {
    const client = await httpClient('/mcp?toolsets=text,garment');
    try {
      await expectGarmentAndText(client);
    } finally {
      await client.close();
    }
  });

  it('takes the toolsets from an X-MCP-Toolsets header', async () => {
    const client = await httpClient('/mcp', { 'X-MCP-Toolsets': 'layers' });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(registryToolsOf(['layers']));
    } finally {
      await client.close();
    }
  });

  it('refuses an unknown toolset with a Chinese JSON-RPC error naming the valid ones, opening no session', async () => {
    const before = server.store.size;
    const initialize = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '0' },
          },
        }),
      });
    const res = await initialize('/mcp?toolsets=garment,paint');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32602,
        message: `未知的工具组“paint”：可选 ${TOOLSET_KEYS.join('、')}（用逗号分隔；core 总是提供）`,
        data: { unknown: ['paint'], valid: [...TOOLSET_KEYS] },
      },
    });
    const header = await initialize('/mcp', { 'X-MCP-Toolsets': 'Garment' });
    expect(header.status).toBe(400);
    expect(((await header.json()) as { error: { message: string } }).error.message).toContain('“Garment”');
    const clash = await initialize('/mcp?toolsets=text', { 'X-MCP-Toolsets': 'garment' });
    expect(clash.status).toBe(400);
    expect(((await clash.json()) as { error: { message: string } }).error.message).toContain('不一致');
    await expect(httpClient('/mcp?toolsets=nope')).rejects.toThrow(/未知的工具组“nope”/);
    expect(server.store.size).toBe(before);
  });
});

describe('toolsets in the registry', () => {
  it('put every tool in one toolset, each with core within 40 tools', () => {
    const counts = Object.fromEntries(
      TOOLSET_KEYS.map((key) => [key, toolsOf('extended').filter((t) => t.toolset === key).length]),
    );
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(toolsOf('extended').length);
    for (const key of TOOLSET_KEYS) {
      expect(counts[key], key).toBeGreaterThan(0);
      expect(registryToolsOf([key]).length, key).toBeLessThanOrEqual(40);
    }
  });
});
