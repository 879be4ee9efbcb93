/**
 * Refusals an integrator meets over HTTP and MCP, compared with each other: the same situation gets the same
 * code, the limit it hit and (where waiting helps) when to retry; every HTTP envelope's message is Chinese
 * beside a stable English code; and a refused request changes nothing.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSession,
  errorOf,
  okCalls,
  sendCalls,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

const CJK = /[\u4e00-\u9fff]/;

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});

function mcpInitialize(url: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: INITIALIZE,
  });
}

describe('429 for one session too many, over HTTP and MCP alike', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ maxSessions: 1, idleTimeoutMs: 90_000 });
  });
  afterAll(() => server.close());

  it('names the limit and says when to retry, on both surfaces', async () => {
    await createSession(server.url);
    const http = await fetch(`${server.url}/v1/sessions`, { method: 'POST' });
    expect(http.status).toBe(429);
    const httpRetry = Number(http.headers.get('retry-after'));
    expect(httpRetry).toBeGreaterThanOrEqual(1);
    expect(httpRetry).toBeLessThanOrEqual(90);
    const error = await errorOf(http);
    expect(error).toMatchObject({ code: 'too_many_sessions', limit: 1, retry_after_seconds: httpRetry });
    expect(error.message).toMatch(CJK);
    expect(error.message).toContain('1 个会话');

    const mcp = await mcpInitialize(server.url);
    expect(mcp.status).toBe(429);
    expect(mcp.headers.get('mcp-session-id')).toBeNull();
    const mcpRetry = Number(mcp.headers.get('retry-after'));
    expect(mcpRetry).toBeGreaterThanOrEqual(1);
    const rpc = (await mcp.json()) as { error: { code: number; message: string; data: unknown } };
    expect(rpc.error.data).toEqual({ limit: 1, retry_after_seconds: mcpRetry });
    expect(rpc.error.message).toMatch(/at most 1\b/);
    expect(server.store.size).toBe(1);
  });
});

describe('an MCP initialize that finds the store filled meanwhile', () => {
  it('is answered 429 with the limit, not a parse error, and opens nothing', async () => {
    const server = await startTestServer({ maxSessions: 1 });
    try {
      await createSession(server.url);
      // As when another request takes the last session between the endpoint's check and this one's session:
      // the check passes, the store then refuses.
      const real = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(server.store), 'full')!.get!;
      let asked = 0;
      Object.defineProperty(server.store, 'full', {
        get() {
          return asked++ === 0 ? false : real.call(this);
        },
      });
      const res = await mcpInitialize(server.url);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      const rpc = (await res.json()) as { error: { message: string; data: unknown } };
      expect(rpc.error.data).toMatchObject({ limit: 1 });
      expect(server.store.size).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('a file past the size limits', () => {
  let server: TestServer;
  let id: string;
  beforeAll(async () => {
    server = await startTestServer();
    id = await createSession(server.url);
  });
  afterAll(() => server.close());

  /** A PNG whose header says `w` × `h` (its pixel data stays a few bytes: the header is refused first). */
  async function pngSaying(w: number, h: number): Promise<Buffer> {
    const png = Buffer.from(
      await sharp({ create: { width: 4, height: 4, channels: 3, background: '#808080' } })
        .png()
        .toBuffer(),
    );
    png.writeUInt32BE(w, 16);
    png.writeUInt32BE(h, 20);
    png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
    return png;
  }

  it('is out_of_bounds naming the limit, whether it is a PSD or a PNG', async () => {
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 8, height: 8, name: '小' }),
      toolCall('save_document_as', { path: 'small.psd' }),
    ]);
    const psd = Buffer.from(readFileSync(path.join(server.store.sessionsDir, id, 'small.psd')));
    // 20000 × 20000: past the documents' 16383² pixels.
    psd.writeUInt32BE(20_000, 14);
    psd.writeUInt32BE(20_000, 18);
    for (const [name, bytes] of [
      ['huge.psd', psd],
      ['huge.png', await pngSaying(20_000, 20_000)],
    ] as const) {
      const up = await fetch(`${server.url}/v1/sessions/${id}/files?name=${name}`, {
        method: 'POST',
        body: bytes,
      });
      expect(up.status).toBe(201);
    }
    const before = await (await fetch(`${server.url}/v1/sessions/${id}/state`)).json();
    const { results } = await sendCalls(server.url, id, [
      toolCall('open_document', { path: 'huge.psd' }),
      toolCall('open_document', { path: 'huge.png' }),
      toolCall('place_image', { path: 'huge.png' }),
    ]);
    for (const r of results as { ok: boolean; error: { code: string; message: string } }[]) {
      expect(r.ok).toBe(false);
      expect(r.error.code).toBe('out_of_bounds');
      expect(r.error.message).toContain('20000×20000');
      expect(r.error.message).toContain('268,402,689');
    }
    expect(await (await fetch(`${server.url}/v1/sessions/${id}/state`)).json()).toEqual(before);
  });
});

describe('protocol refusals over HTTP', () => {
  let server: TestServer;
  let id: string;
  beforeAll(async () => {
    server = await startTestServer({ bodyLimitBytes: 4096 });
    id = await createSession(server.url);
    await okCalls(server.url, id, [toolCall('create_document', { width: 8, height: 8, name: '稿' })]);
  });
  afterAll(() => server.close());

  const json = { 'content-type': 'application/json' };
  const cases: [string, string, string, RequestInit, number, string][] = [
    ['bad JSON', 'POST', '/tool-calls', { headers: json, body: '{bad' }, 400, 'bad_request'],
    ['an empty body', 'POST', '/tool-calls', { headers: json }, 400, 'bad_request'],
    ['the wrong shape', 'POST', '/tool-calls', { headers: json, body: '{"calls":[]}' }, 400, 'bad_request'],
    ['no JSON content type', 'POST', '/tool-calls', { body: '{}' }, 415, 'unsupported_media_type'],
    [
      'a body past the limit',
      'POST',
      '/tool-calls',
      { headers: json, body: 'x'.repeat(5000) },
      413,
      'payload_too_large',
    ],
    [
      'a bad query value',
      'POST',
      '/tool-calls?stream=maybe',
      { headers: json, body: '{}' },
      400,
      'bad_request',
    ],
    ['an unknown route', 'GET', '/nothing-here', {}, 404, 'not_found'],
    ['a missing file', 'GET', '/files/nothing.png', {}, 404, 'not_found'],
    ['a missing document', 'GET', '/documents/nothing/render.png', {}, 404, 'not_found'],
    ['a missing image', 'GET', '/images/7.png', {}, 404, 'not_found'],
    [
      'an upload that is no image',
      'POST',
      '/files?name=a.png',
      { body: 'hello' },
      415,
      'unsupported_media_type',
    ],
    ['an empty upload', 'POST', '/files', {}, 400, 'bad_request'],
  ];

  for (const [what, method, route, init, status, code] of cases) {
    it(`answers ${what} with ${status} ${code} and a Chinese message`, async () => {
      const res = await fetch(`${server.url}/v1/sessions/${id}${route}`, { method, ...init });
      expect(res.status).toBe(status);
      const error = await errorOf(res);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(CJK);
    });
  }

  it('says where a request body stops being JSON', async () => {
    const res = await fetch(`${server.url}/v1/sessions/${id}/tool-calls`, {
      method: 'POST',
      headers: json,
      body: '{"tool_calls": [1, 2,]}',
    });
    const error = await errorOf(res);
    expect(error.message).toContain('请求体不是有效的 JSON：');
    expect(error.message).toContain('第 22 个字符');
  });

  it('answers a missing session with 404 not_found in Chinese, on every route', async () => {
    const gone = '0123456789abcdef0123456789abcdef';
    for (const [method, route] of [
      ['GET', ''],
      ['POST', '/tool-calls?stream=1'],
      ['POST', '/chat'],
      ['GET', '/files'],
      ['GET', '/ink?color=cmyk(0,0,0,100)'],
    ] as const) {
      const res = await fetch(`${server.url}/v1/sessions/${gone}${route}`, {
        method,
        headers: json,
        body: method === 'POST' ? '{"tool_calls":[]}' : null,
      });
      expect(res.status, route).toBe(404);
      const error = await errorOf(res);
      expect(error.code).toBe('not_found');
      expect(error.message).toContain(gone);
      expect(error.message).toMatch(CJK);
    }
  });

  it('answers a known path asked with the wrong method 405 with Allow, an unknown one 404', async () => {
    for (const [method, route, allow] of [
      ['PUT', '/v1/sessions', 'POST'],
      ['GET', `/v1/sessions/${id}/tool-calls`, 'POST'],
      ['PATCH', `/v1/sessions/${id}`, 'DELETE, GET, HEAD'],
      ['POST', '/v1/tools', 'GET, HEAD'],
    ] as const) {
      const res = await fetch(`${server.url}${route}`, { method });
      expect(res.status, `${method} ${route}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      const error = await errorOf(res);
      expect(error.code).toBe('method_not_allowed');
      expect(error.message).toMatch(CJK);
    }
    const unknown = await fetch(`${server.url}/v1/sessionz`, { method: 'PUT' });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).message).toMatch(CJK);
  });

  it('answers headers too large for Node with 431 and the same JSON envelope', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(`GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      });
      let got = '';
      socket.setEncoding('utf8').on('data', (d: string) => {
        got += d;
      });
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toMatch(/\r\nContent-Type: application\/json\r\n/i);
    const error = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error;
    expect(error.code).toBe('headers_too_large');
    expect(error.message).toMatch(CJK);
  });

  it('changes nothing for any of them', async () => {
    const state = (await (await fetch(`${server.url}/v1/sessions/${id}/state`)).json()) as {
      documents: { name: string }[];
    };
    expect(state.documents.map((d) => d.name)).toEqual(['稿']);
    const files = (await (await fetch(`${server.url}/v1/sessions/${id}/files`)).json()) as {
      files: unknown[];
    };
    expect(files.files).toEqual([]);
    expect(server.store.size).toBe(1);
  });
});

/** CRC-32 (PNG's) of `bytes`. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
