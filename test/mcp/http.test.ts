/** MCP over streamable HTTP at `/mcp` of the real server, driven by the SDK's Client. */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, TOKEN } from '../server/support.js';
import { callTool, editingScenario, expectProgress, expectRegistryTools } from './support.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function connect(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: 'atelier-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('MCP over streamable HTTP', () => {
  it('lists the registry, edits, saves a PSD and returns the canvas as an image', async () => {
    const { client, transport } = await connect(server.url);
    try {
      const id = transport.sessionId!;
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      await expectRegistryTools(client, 'extended');
      await editingScenario(client, join(server.config.workspace, 'sessions', id));
      // The MCP session is a server session: its documents render through the HTTP API.
      const render = await fetch(
        `${server.url}/v1/sessions/${id}/documents/${encodeURIComponent('练习')}/render.png?max=30`,
      );
      expect(render.status).toBe(200);
      expect(render.headers.get('content-type')).toBe('image/png');
    } finally {
      await client.close();
    }
  });

  it('reports the stages of a long call to a client that asks for progress', async () => {
    const { client } = await connect(server.url);
    try {
      await expectProgress(client);
    } finally {
      await client.close();
    }
  });

  it('gives each connection its own session, closed when the client ends it', async () => {
    const before = server.store.size;
    const a = await connect(server.url);
    const b = await connect(server.url);
    const aId = a.transport.sessionId;
    try {
      expect(aId).not.toBe(b.transport.sessionId);
      expect(server.store.size).toBe(before + 2);
      await callTool(a.client, 'create_document', { width: 10, height: 10, name: '甲' });
      const saved = await callTool(a.client, 'save_document_as', { path: 'out/甲.png' });
      expect(saved.json).toMatchObject({ ok: true });
      const listed = await callTool(b.client, 'list_documents');
      expect(listed.json).toMatchObject({ ok: true, count: 0 });
      const switched = await callTool(b.client, 'switch_document', { name: '甲' });
      expect(switched.isError).toBe(true);
    } finally {
      await a.transport.terminateSession();
      await a.client.close();
      await b.client.close();
    }
    expect(server.store.size).toBe(before + 1);
    // Its protocol session ended, not its work: what it saved is still there to download, as after an idle
    // timeout (the Python SDK's client ends its session whenever it exits).
    const file = await fetch(`${server.url}/v1/sessions/${aId}/files/out/${encodeURIComponent('甲.png')}`);
    expect(file.status).toBe(200);
    expect(
      Buffer.from(await file.arrayBuffer())
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
    // A closed or unknown MCP session id is 404.
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': aId ?? 'x',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
  });

  it('answers requests that are not an initialize without opening a session', async () => {
    const before = server.store.size;
    const notInit = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(notInit.status).toBe(400);
    const garbage = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{nope',
    });
    expect(garbage.status).toBe(400);
    expect((await fetch(`${server.url}/mcp`)).status).toBe(400);
    // A malformed request with an id is answered with its id.
    const nullParams = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: null }),
    });
    expect(nullParams.status).toBe(400);
    expect(await nullParams.json()).toMatchObject({ id: 41, error: { code: -32602 } });
    expect(server.store.size).toBe(before);
  });

  it('closes an MCP session after the idle timeout', async () => {
    const quick = await startTestServer({ idleTimeoutMs: 300 });
    try {
      const { client, transport } = await connect(quick.url);
      await callTool(client, 'create_document', { width: 10, height: 10 });
      expect(quick.store.size).toBe(1);
      await new Promise((r) => setTimeout(r, 700));
      await expect(client.callTool({ name: 'list_documents', arguments: {} })).rejects.toThrow();
      expect(quick.store.size).toBe(0);
      expect(transport.sessionId).toBeDefined();
      await client.close();
    } finally {
      await quick.close();
    }
  });

  it('names the body limit when a request is over it, and the session goes on', async () => {
    const small = await startTestServer({ bodyLimitBytes: 2048 });
    try {
      const { client } = await connect(small.url);
      try {
        expect(await callTool(client, 'create_document', { width: 20, height: 10 })).toMatchObject({
          isError: false,
        });
        const over = await client
          .callTool({
            name: 'create_text_layer',
            arguments: { text: '字'.repeat(1000), x: 0, y: 0, font_size: 9 },
          })
          .then(
            () => null,
            (e: unknown) => e as Error,
          );
        expect(over?.message).toMatch(/Request body too large: at most 2048 bytes per request/);
        expect((await callTool(client, 'get_document_info')).json).toMatchObject({ ok: true });
      } finally {
        await client.close();
      }
    } finally {
      await small.close();
    }
  });

  it('needs the token when one is configured', async () => {
    const guarded = await startTestServer({ token: TOKEN });
    try {
      await expect(connect(guarded.url)).rejects.toThrow();
      const { client } = await connect(guarded.url, { authorization: `Bearer ${TOKEN}` });
      try {
        await expectRegistryTools(client, 'extended');
      } finally {
        await client.close();
      }
    } finally {
      await guarded.close();
    }
  });
});
