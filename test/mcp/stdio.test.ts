/** The real `atelier mcp` binary as a desktop MCP client launches it, driven by the SDK's Client over stdio. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { toolsOf } from '../../src/registry/index.js';
import { BIN, runCli } from '../support/cli.js';
import { tempDir } from '../support/session.js';
import { callTool, editingScenario, expectProgress, expectRegistryTools } from './support.js';

type RawMessage = {
  jsonrpc: string;
  id: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
};

/**
 * The real binary spoken to in raw JSON-RPC lines, initialized (id 1); `finish` closes stdin and resolves with
 * the exit code, every answer written to stdout (each must parse) by id, every line in the order written
 * (notifications too), and stderr.
 */
function rawMcp(workspace: string) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--workspace', workspace]);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    send,
    call: (id: number, name: string, args: unknown) =>
      send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
    async finish(): Promise<{
      code: number | null;
      messages: RawMessage[];
      written: RawMessage[];
      stderr: string;
    }> {
      child.stdin.end();
      const code = await closed;
      const written = stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as RawMessage);
      const messages = written.filter((m) => m.id !== undefined).sort((a, b) => a.id - b.id);
      return { code, messages, written, stderr };
    },
  };
}

async function connect(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as PassThrough).setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const client = new Client({ name: 'atelier-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('atelier mcp (stdio)', () => {
  it('lists the registry, edits, saves a PSD and returns the canvas as an image', async () => {
    const workspace = tempDir('atelier-mcp-');
    const { client, stderr } = await connect(['--workspace', workspace]);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'atelier' });
      await expectRegistryTools(client, 'extended');
      await editingScenario(client, workspace);
    } finally {
      await client.close();
    }
    expect(stderr()).toContain('MCP server on stdio');
  });

  it('lists the chosen variant, and one process is one session', async () => {
    const workspace = tempDir('atelier-mcp-');
    const { client } = await connect(['--variant', 'reduced', '--workspace', workspace]);
    try {
      await expectRegistryTools(client, 'reduced');
      await callTool(client, 'create_document', { width: 10, height: 10 });
      const listed = await callTool(client, 'list_documents');
      expect(listed.json).toMatchObject({ ok: true, count: 1 });
      // An unknown name is answered with listed tools only, and hints name listed tools only.
      const listedNames = new Set(toolsOf('reduced').map((t) => t.name));
      for (const [typo, meant] of [
        ['get_layer_structur', 'get_layer_structure'],
        ['create_documents', undefined],
      ] as const) {
        const unknown = await callTool(client, typo);
        expect(unknown).toMatchObject({ isError: true, json: { error: { code: 'unknown_tool' } } });
        const closest = (unknown.json as { error: { details: { closest: string[] } } }).error.details.closest;
        if (meant) expect(closest).toContain(meant);
        expect(closest.filter((n) => !listedNames.has(n))).toEqual([]);
      }
      const missing = await callTool(client, 'set_layer_opacity', { name: '不存在', opacity: 10 });
      expect(missing.json).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(JSON.stringify(missing.json)).not.toContain('list_all_layer_names');
    } finally {
      await client.close();
    }
  });

  it('reports the stages of a long call to a client that asks for progress', async () => {
    const { client } = await connect(['--workspace', tempDir('atelier-mcp-')]);
    try {
      await expectProgress(client);
    } finally {
      await client.close();
    }
  });

  it('writes every stage of a long call before its result', async () => {
    // On the wire, where the order is the server's alone; the SDK client may still drop the last stage if it
    // reads it in one chunk with the result (it runs notification handlers a microtask late).
    const { send, call, finish } = rawMcp(tempDir('atelier-mcp-'));
    call(2, 'create_document', { width: 64, height: 64 });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'save_document_as', arguments: { path: 'p.psd' }, _meta: { progressToken: 'save' } },
    });
    const { code, written } = await finish();
    expect(code).toBe(0);
    const after = written.filter((m) => m.id === 3 || m.params?.progressToken === 'save');
    expect(after.map((m) => m.method ?? m.id)).toEqual([
      'notifications/progress',
      'notifications/progress',
      3,
    ]);
    expect(after.slice(0, 2).map((m) => m.params)).toEqual([
      { progressToken: 'save', progress: 1, message: '合成画面 (10%)' },
      { progressToken: 'save', progress: 2, message: '编码 PSD (30%)' },
    ]);
    expect(after[2]!.result).not.toMatchObject({ isError: true });
  });

  it('writes nothing but JSON-RPC messages to stdout', async () => {
    const { send, call, finish } = rawMcp(tempDir('atelier-mcp-'));
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    call(3, 'create_document', { width: 30, height: 20 });
    call(4, 'save_document_as', { path: 'out/a.png' });
    call(5, 'get_canvas_image', {});
    call(6, 'open_document', { path: '../outside.psd' });
    send({ jsonrpc: '2.0', id: 7, method: 'no/such/method' });
    // Malformed requests with an id are answered, never left waiting.
    send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: null });
    send({ jsonrpc: '2.0', id: 9, params: {} });
    send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: [1] });
    // tools/call's own params wrong: arguments as an OpenAI-style JSON string, no tool name.
    send({
      jsonrpc: '2.0',
      id: 11,
      method: 'tools/call',
      params: { name: 'create_document', arguments: '{"width":10}' },
    });
    send({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: {} });
    const { code, messages } = await finish();
    expect(code).toBe(0);
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(messages[5]!.result).toMatchObject({ isError: true });
    expect(messages[6]!.error).toMatchObject({ code: -32601 });
    expect(messages[7]!.error).toMatchObject({ code: -32602 });
    expect(messages[8]!.error).toMatchObject({ code: -32600 });
    expect(messages[9]!.error).toMatchObject({ code: -32602 });
    expect(messages[10]!.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('not a JSON string'),
    });
    expect(messages[11]!.error).toMatchObject({ code: -32602, message: expect.stringContaining('"name"') });
  });

  it('answers every request sent before the client closes stdin', async () => {
    const workspace = tempDir('atelier-mcp-');
    const { call, finish } = rawMcp(workspace);
    call(2, 'create_document', { width: 3000, height: 3000 });
    call(3, 'save_document_as', { path: 'big.psd' });
    call(4, 'save_document_as', { path: 'big.png' });
    const { code, messages } = await finish();
    expect(code).toBe(0);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(messages.slice(1).map((m) => m.result)).not.toContainEqual(
      expect.objectContaining({ isError: true }),
    );
    expect(existsSync(join(workspace, 'big.png'))).toBe(true);
  });

  it('answers a message beyond the transport buffer and keeps the session', async () => {
    const { call, finish } = rawMcp(tempDir('atelier-mcp-'));
    call(2, 'create_document', { width: 10, height: 10 });
    call(3, 'create_text_layer', { text: '字'.repeat(4 * 2 ** 20) });
    call(4, 'list_documents', {});
    const { code, messages } = await finish();
    expect(code).toBe(0);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(messages[2]!.error).toMatchObject({ code: -32600, message: expect.stringContaining('MiB') });
    const listed = messages[3]!.result as { content: { text: string }[] };
    expect(JSON.parse(listed.content[0]!.text)).toMatchObject({ ok: true, count: 1 });
  });

  it('logs a notification beyond the transport buffer on stderr (it cannot be answered) and keeps the session', async () => {
    const { send, call, finish } = rawMcp(tempDir('atelier-mcp-'));
    call(2, 'create_document', { width: 10, height: 10 });
    send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 2, reason: '字'.repeat(4 * 2 ** 20) },
    });
    call(3, 'list_documents', {});
    const { code, messages, stderr } = await finish();
    expect(code).toBe(0);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(stderr).toContain(
      'atelier: mcp: dropped the notification "notifications/cancelled": it is 12.0 MiB, at most 10.0 MiB per message',
    );
    const listed = messages[2]!.result as { content: { text: string }[] };
    expect(JSON.parse(listed.content[0]!.text)).toMatchObject({ ok: true, count: 1 });
  });

  it('rejects an unknown variant as a usage error, writing nothing to stdout', async () => {
    const r = await runCli(['mcp', '--variant', 'huge']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--variant 的值“huge”无效：可选 reduced、full、extended');
  });
});
