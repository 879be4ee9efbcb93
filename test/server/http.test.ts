import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportTools } from '../../src/registry/formats/index.js';
import { labelsOf, toolsOf } from '../../src/registry/index.js';
import { ConfigError } from '../../src/server/config.js';
import { startServer } from '../../src/server/server.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/session.js';
import {
  createSession,
  errorOf,
  okCalls,
  sendCalls,
  startTestServer,
  type TestServer,
  TOKEN,
  toolCall,
} from './support.js';

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
});
afterAll(() => server.close());

async function pngSize(res: Response): Promise<{ width: number; height: number }> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/png');
  const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
  return { width: meta.width!, height: meta.height! };
}

/** A raw HTTP request, for headers fetch will not let a caller set (Host). */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('registry endpoints', () => {
  it('serves the tools in every format, the labels, and health', async () => {
    const tools = await fetch(`${base}/v1/tools`);
    expect(tools.status).toBe(200);
    expect(await tools.json()).toEqual(exportTools(toolsOf('full'), 'openai'));
    const mcp = await fetch(`${base}/v1/tools?variant=reduced&format=mcp`);
    expect(await mcp.json()).toEqual(exportTools(toolsOf('reduced'), 'mcp'));
    const strict = await fetch(`${base}/v1/tools?format=responses&strict=true`);
    expect(await strict.json()).toEqual(exportTools(toolsOf('full'), 'responses', { strict: true }));
    const labels = await fetch(`${base}/v1/labels?variant=extended`);
    expect(await labels.json()).toEqual(labelsOf('extended'));
    const health = await fetch(`${base}/v1/health`);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    // The fonts text can be set in: the bundled font's weights first, each one create_text_layer takes.
    const fonts = (await (await fetch(`${base}/v1/fonts`)).json()) as { default: string; fonts: string[] };
    expect(fonts.default).toBe('Noto Sans SC');
    expect(fonts.fonts.slice(0, 5)).toEqual([
      'Noto Sans SC Light',
      'Noto Sans SC DemiLight',
      'Noto Sans SC',
      'Noto Sans SC Medium',
      'Noto Sans SC Bold',
    ]);
    expect(new Set(fonts.fonts).size).toBe(fonts.fonts.length);
  });

  it('answers 400 naming the allowed values', async () => {
    const variant = await fetch(`${base}/v1/tools?variant=huge`);
    expect(variant.status).toBe(400);
    expect(await errorOf(variant)).toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('reduced、full、extended'),
      allowed: ['reduced', 'full', 'extended'],
    });
    const format = await fetch(`${base}/v1/tools?format=claude`);
    expect(format.status).toBe(400);
    expect((await errorOf(format)).message).toContain('openai、responses、anthropic、gemini、mcp');
    expect((await fetch(`${base}/v1/tools?format=gemini&strict=true`)).status).toBe(400);
    expect((await fetch(`${base}/v1/tools?strict=maybe`)).status).toBe(400);
    expect((await fetch(`${base}/v1/labels?variant=x`)).status).toBe(400);
    const unknown = await fetch(`${base}/v1/nothing`);
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('not_found');
  });
});

describe('sessions and tool calls', () => {
  it('takes an assistant message’s tool_calls and returns tool messages ready to append', async () => {
    const id = await createSession(base);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const assistant: ChatCompletionAssistantMessageParam = {
      role: 'assistant',
      content: null,
      tool_calls: [
        toolCall('create_document', { width: 300, height: 200, name: '海报' }, 'call_1'),
        toolCall('create_layer', { name: '标题' }, 'call_2'),
        toolCall('set_layer_opacity', { name: '标题', opacity: 150 }, 'call_3'),
        toolCall('get_canvas_image', { max_size: 60 }, 'call_4'),
      ],
    };
    // The whole assistant message is accepted as the body: only `tool_calls` is read.
    const res = await fetch(`${base}/v1/sessions/${id}/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(assistant),
    });
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: ChatCompletionMessageParam[] };
    const conversation: ChatCompletionMessageParam[] = [assistant, ...messages];
    expect(conversation).toHaveLength(5);
    expect(messages.map((m) => m.role)).toEqual(['tool', 'tool', 'tool', 'tool']);
    expect(messages.map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual([
      'call_1',
      'call_2',
      'call_3',
      'call_4',
    ]);
    const results = messages.map((m) => JSON.parse(m.content as string));
    expect(results[0]).toMatchObject({ ok: true, document: { name: '海报', width: 300 } });
    expect(results[1]).toMatchObject({ ok: true, layer: { name: '标题' } });
    // A failing call is a result; the rest still run.
    expect(results[2]).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    const image = results[3] as { ok: true; images: { url: string; mime: string }[] };
    expect(image.ok).toBe(true);
    expect(JSON.stringify(image)).not.toMatch(/base64/);
    expect(image.images).toEqual([
      expect.objectContaining({
        mime: 'image/png',
        url: expect.stringMatching(`^${base}/v1/sessions/${id}/images/`),
      }),
    ]);
    expect(await pngSize(await fetch(image.images[0]!.url))).toEqual({ width: 60, height: 40 });
  });

  it('answers arguments that are not JSON with where they broke, in Chinese', async () => {
    const id = await createSession(base);
    const res = await fetch(`${base}/v1/sessions/${id}/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'create_document', arguments: '{"width":64 "height":32}' },
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: { content: string }[] };
    expect(JSON.parse(messages[0]!.content)).toEqual({
      ok: false,
      error: {
        code: 'invalid_json',
        message:
          '参数不是有效的 JSON：在第 13 个字符处，属性值之后应为逗号“,”或“}”，而不是“"”。出错处：「{"width":64 ⟨此处⟩"height":32}」',
        hint: 'arguments 应为 JSON 对象字符串，如 {"name":"图层 1"}',
      },
    });
  });

  it('runs the calls of concurrent requests to one session one at a time, each request in its listed order', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [toolCall('create_document', { width: 32, height: 32 })]);
    const batches = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        okCalls(base, id, [
          toolCall('create_layer', { name: `层${i}` }),
          toolCall('rename_layer', { new_name: `层${i}-改` }),
          toolCall('get_active_layer_info'),
        ]),
      ),
    );
    // Had another request's call run between them, the active layer would be another one.
    batches.forEach((results, i) => {
      expect(JSON.stringify(results[2])).toContain(`层${i}-改`);
    });
    const [names] = await okCalls(base, id, [toolCall('list_all_layer_names')]);
    for (let i = 0; i < 10; i++) expect(JSON.stringify(names)).toContain(`层${i}-改`);
  });

  it('keeps a streamed request’s calls together too, with each call’s events in order', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [toolCall('create_document', { width: 32, height: 32 })]);
    const streams = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await fetch(`${base}/v1/sessions/${id}/tool-calls?stream=1`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            tool_calls: [
              toolCall('create_layer', { name: `流${i}` }),
              toolCall('rename_layer', { new_name: `流${i}-改` }),
              toolCall('get_active_layer_info'),
            ],
          }),
        });
        return (await res.text())
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => JSON.parse(l.slice(6)) as { type: string; name?: string; ok?: boolean });
      }),
    );
    streams.forEach((events, i) => {
      expect(events.map((e) => `${e.type}:${e.name ?? ''}`)).toEqual([
        'tool_call:create_layer',
        'tool_result:create_layer',
        'tool_call:rename_layer',
        'tool_result:rename_layer',
        'tool_call:get_active_layer_info',
        'tool_result:get_active_layer_info',
        'done:',
      ]);
      expect(events.filter((e) => e.type === 'tool_result' && e.ok !== true)).toEqual([]);
      // Had another request's call run between them, the active layer would be another one.
      expect(JSON.stringify(events[5])).toContain(`流${i}-改`);
    });
  });

  it('renders a document scaled to fit, never enlarged', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [toolCall('create_document', { width: 400, height: 100, name: '横幅/一' })]);
    const name = encodeURIComponent('横幅/一');
    expect(
      await pngSize(await fetch(`${base}/v1/sessions/${id}/documents/${name}/render.png?max=100`)),
    ).toEqual({
      width: 100,
      height: 25,
    });
    expect(await pngSize(await fetch(`${base}/v1/sessions/${id}/documents/${name}/render.png`))).toEqual({
      width: 400,
      height: 100,
    });
    expect(
      await pngSize(await fetch(`${base}/v1/sessions/${id}/documents/${name}/render.png?max=5000`)),
    ).toEqual({
      width: 400,
      height: 100,
    });
    const bad = await fetch(`${base}/v1/sessions/${id}/documents/${name}/render.png?max=0`);
    expect(bad.status).toBe(400);
    const missing = await fetch(`${base}/v1/sessions/${id}/documents/nope/render.png`);
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toMatchObject({ code: 'not_found', open_documents: ['横幅/一'] });
  });

  it('describes and deletes a session', async () => {
    const id = await createSession(base);
    await okCalls(base, id, [toolCall('create_document', { width: 10, height: 10 })]);
    const info = await fetch(`${base}/v1/sessions/${id}`);
    expect(await info.json()).toMatchObject({
      id,
      documents: [{ name: '未标题-1', width: 10, height: 10, unsaved_changes: true }],
      garment_photo: null,
    });
    expect((await fetch(`${base}/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${base}/v1/sessions/${id}`)).status).toBe(404);
    expect((await fetch(`${base}/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(404);
    const calls = await fetch(`${base}/v1/sessions/${id}/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"tool_calls":[]}',
    });
    expect(calls.status).toBe(404);
  });
});

describe('bad requests', () => {
  it('400 for a malformed body, 415 for another content type, 404 for unknown sessions', async () => {
    const id = await createSession(base);
    const post = (body: string, type = 'application/json') =>
      fetch(`${base}/v1/sessions/${id}/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
    const malformed = await post('{"tool_calls": [');
    expect(malformed.status).toBe(400);
    expect((await errorOf(malformed)).code).toBe('bad_request');
    // JSON nested thousands deep parses, but nothing after the parser could walk it: refused up front, on the
    // streamed route too (which would otherwise answer 200 and an empty stream).
    const deep = `{"tool_calls":[{"function":{"name":"create_layer","arguments":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}}]}`;
    for (const query of ['', '?stream=1']) {
      const r = await fetch(`${base}/v1/sessions/${id}/tool-calls${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: deep,
      });
      expect(r.status, query).toBe(400);
      expect(await errorOf(r)).toMatchObject({ code: 'bad_request', message: expect.stringContaining('64') });
    }
    expect((await post('{"calls": []}')).status).toBe(400);
    expect((await post('[1,2]')).status).toBe(400);
    expect((await post('null')).status).toBe(400);
    const text = await post('{"tool_calls": []}', 'text/plain');
    expect(text.status).toBe(415);
    expect((await errorOf(text)).code).toBe('unsupported_media_type');
    // Calls that are not tool calls are results, not HTTP errors.
    const { results } = await sendCalls(base, id, [42 as never, toolCall('no_such_tool')]);
    expect(results).toMatchObject([
      { ok: false, error: { code: 'invalid_arguments' } },
      { ok: false, error: { code: 'unknown_tool' } },
    ]);
    for (const sid of ['0'.repeat(32), 'not-an-id', '..%2F..%2Fetc']) {
      const res = await fetch(`${base}/v1/sessions/${sid}/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"tool_calls":[]}',
      });
      expect(res.status).toBe(404);
    }
  });

  it('413 for bodies over the limits', async () => {
    const small = await startTestServer({ bodyLimitBytes: 4096, uploadLimitBytes: 8192 });
    try {
      const id = await createSession(small.url);
      const big = JSON.stringify({ tool_calls: [toolCall('create_layer', { name: 'x'.repeat(5000) })] });
      const res = await fetch(`${small.url}/v1/sessions/${id}/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: big,
      });
      expect(res.status).toBe(413);
      expect(await errorOf(res)).toMatchObject({ code: 'payload_too_large', limit_bytes: 4096 });
      // Chunked, without a Content-Length: still counted.
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(big));
          c.close();
        },
      });
      const chunked = await fetch(`${small.url}/v1/sessions/${id}/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
      const png = await sharp({
        create: {
          width: 200,
          height: 200,
          channels: 3,
          background: '#000',
          noise: { type: 'gaussian', mean: 128, sigma: 60 },
        },
      })
        .png()
        .toBuffer();
      expect(png.byteLength).toBeGreaterThan(8192);
      const upload = await fetch(`${small.url}/v1/sessions/${id}/files?name=big.png`, {
        method: 'POST',
        body: png,
      });
      expect(upload.status).toBe(413);
      // The server is still fine.
      expect((await fetch(`${small.url}/v1/health`)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

/** Writes raw bytes to the server and returns what it answers before closing (or '' when it just closes). */
function rawExchange(port: number, chunks: string[], abortAfter = false): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      got += d;
    });
    socket.on('error', () => resolve(got));
    socket.on('close', () => resolve(got));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (abortAfter) setTimeout(() => socket.destroy(), 50);
      else setTimeout(() => socket.end(), 200);
    });
  });
}

describe('robustness', () => {
  it('answers headers too large for Node with 431, not a generic 400', async () => {
    const big = `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    expect(await rawExchange(server.port, [big])).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('survives garbage, aborted uploads and broken percent-encoding', async () => {
    const id = await createSession(base);
    expect(await rawExchange(server.port, ['GARBAGE \x00\x01 NOT HTTP\r\n\r\n'])).toMatch(/^HTTP\/1\.1 400/);
    await rawExchange(
      server.port,
      [
        `POST /v1/sessions/${id}/files?name=a.png HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n`,
        '\x89PNG\r\n\x1a\n partial',
      ],
      true,
    );
    await rawExchange(
      server.port,
      [
        `POST /v1/sessions/${id}/tool-calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        '5\r\n{"too\r\n',
      ],
      true,
    );
    expect((await fetch(`${base}/v1/sessions/${id}/documents/%E0%A4%A/render.png`)).status).toBe(404);
    expect((await fetch(`${base}/v1/sessions/${id}/files/%E0%A4%A`)).status).toBe(400);
    expect((await fetch(`${base}/v1/health`)).status).toBe(200);
    await okCalls(base, id, [toolCall('create_document', { width: 8, height: 8 })]);
    expect(await (await fetch(`${base}/v1/sessions/${id}/files`)).json()).toEqual({ files: [] });
  });

  it('lists no file through a symlinked folder (not even its name and size)', async () => {
    const id = await createSession(base);
    const outside = tempDir('atelier-outside-');
    await writeFile(path.join(outside, 'secret.txt'), 'not yours');
    const dir = server.store.get(id)!.dir;
    await mkdir(path.join(dir, 'real'), { recursive: true });
    await writeFile(path.join(dir, 'real', 'mine.txt'), 'yours');
    await symlink(outside, path.join(dir, 'link'));
    await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'file-link.txt'));
    expect(await (await fetch(`${base}/v1/sessions/${id}/files`)).json()).toEqual({
      files: [{ path: 'real/mine.txt', bytes: 5 }],
    });
  });
});

describe('files', () => {
  it('uploads PSD, PNG, JPEG, WebP and AVIF by content, refuses others with 415, and opens them in the session', async () => {
    const a = await createSession(base);
    await okCalls(base, a, [
      toolCall('create_document', { width: 40, height: 30, name: '样稿' }),
      toolCall('create_layer', { name: '前片' }),
      toolCall('save_document'),
    ]);
    const psd = await fetch(`${base}/v1/sessions/${a}/files/${encodeURIComponent('样稿.psd')}`);
    expect(psd.status).toBe(200);
    const psdBytes = Buffer.from(await psd.arrayBuffer());
    expect(psdBytes.subarray(0, 4).toString('latin1')).toBe('8BPS');
    // An export for print downloads as what it is.
    await okCalls(base, a, [toolCall('export_image', { path: 'out/样稿.pdf' })]);
    const pdf = await fetch(`${base}/v1/sessions/${a}/files/out/${encodeURIComponent('样稿.pdf')}`);
    expect([pdf.status, pdf.headers.get('content-type')]).toEqual([200, 'application/pdf']);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');

    const b = await createSession(base);
    // Raw body, named by ?name= (the extension is added from the content).
    const raw = await fetch(`${base}/v1/sessions/${b}/files?name=${encodeURIComponent('in/样稿')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: psdBytes,
    });
    expect(raw.status).toBe(201);
    expect(await raw.json()).toEqual({
      path: 'in/样稿.psd',
      type: 'psd',
      bytes: psdBytes.byteLength,
      role: null,
    });
    const [opened, structure] = await okCalls(base, b, [
      toolCall('open_document', { path: 'in/样稿.psd' }),
      toolCall('list_all_layer_names'),
    ]);
    expect(opened).toMatchObject({ document: { name: '样稿' } });
    expect(JSON.stringify(structure)).toContain('前片');

    // A photo too small to read a print from is refused as the garment photo, and not placed.
    const tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c04020' } })
      .jpeg()
      .toBuffer();
    const refusedForm = new FormData();
    refusedForm.set('file', new Blob([tiny], { type: 'image/jpeg' }), 'tiny.jpeg');
    refusedForm.set('role', 'garment');
    const refused = await fetch(`${base}/v1/sessions/${b}/files`, { method: 'POST', body: refusedForm });
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('8×8'),
    });

    // Multipart with a JPEG, marked as the garment photo.
    const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c04020' } })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.set('file', new Blob([jpeg], { type: 'image/png' }), 'photo.jpeg');
    form.set('role', 'garment');
    const garment = await fetch(`${base}/v1/sessions/${b}/files`, { method: 'POST', body: form });
    expect(garment.status).toBe(201);
    expect(await garment.json()).toMatchObject({ path: 'photo.jpeg', type: 'jpg', role: 'garment' });
    expect(await (await fetch(`${base}/v1/sessions/${b}`)).json()).toMatchObject({
      garment_photo: 'photo.jpeg',
    });
    const list = await fetch(`${base}/v1/sessions/${b}/files`);
    expect(await list.json()).toEqual({
      files: [
        { path: 'in/样稿.psd', bytes: psdBytes.byteLength },
        { path: 'photo.jpeg', bytes: jpeg.byteLength },
      ],
    });

    // WebP, as product photos saved from web shops are: taken by content, opened as a document, and taken as the
    // garment photo.
    const webp = await sharp({ create: { width: 96, height: 80, channels: 3, background: '#2050c0' } })
      .webp({ lossless: true })
      .toBuffer();
    const webpRaw = await fetch(`${base}/v1/sessions/${b}/files?name=${encodeURIComponent('参考')}`, {
      method: 'POST',
      body: webp,
    });
    expect(webpRaw.status).toBe(201);
    expect(await webpRaw.json()).toMatchObject({ path: '参考.webp', type: 'webp', role: null });
    const download = await fetch(`${base}/v1/sessions/${b}/files/${encodeURIComponent('参考.webp')}`);
    expect(download.headers.get('content-type')).toBe('image/webp');
    const [openedWebp] = await okCalls(base, b, [toolCall('open_document', { path: '参考.webp' })]);
    expect(openedWebp).toMatchObject({ document: { name: '参考', width: 96, height: 80 } });
    const webpForm = new FormData();
    webpForm.set('file', new Blob([webp], { type: 'image/webp' }), 'shop-photo.webp');
    webpForm.set('role', 'garment');
    const webpGarment = await fetch(`${base}/v1/sessions/${b}/files`, { method: 'POST', body: webpForm });
    expect(webpGarment.status).toBe(201);
    expect(await webpGarment.json()).toMatchObject({
      path: 'shop-photo.webp',
      type: 'webp',
      role: 'garment',
    });
    expect(await (await fetch(`${base}/v1/sessions/${b}`)).json()).toMatchObject({
      garment_photo: 'shop-photo.webp',
    });
    // A name that says another type is refused, as for the others.
    const webpAsPng = await fetch(`${base}/v1/sessions/${b}/files?name=x.png`, {
      method: 'POST',
      body: webp,
    });
    expect(webpAsPng.status).toBe(400);

    // AVIF, which web shops serve too: taken by content, served back as image/avif, taken as the garment photo.
    const avif = await sharp({ create: { width: 96, height: 80, channels: 3, background: '#20a050' } })
      .avif({ lossless: true })
      .toBuffer();
    const avifForm = new FormData();
    avifForm.set('file', new Blob([avif], { type: 'application/octet-stream' }), 'shop-photo-2');
    avifForm.set('role', 'garment');
    const avifGarment = await fetch(`${base}/v1/sessions/${b}/files`, { method: 'POST', body: avifForm });
    expect(avifGarment.status).toBe(201);
    expect(await avifGarment.json()).toMatchObject({
      path: 'shop-photo-2.avif',
      type: 'avif',
      role: 'garment',
    });
    const avifDownload = await fetch(`${base}/v1/sessions/${b}/files/shop-photo-2.avif`);
    expect(avifDownload.headers.get('content-type')).toBe('image/avif');
    // An iPhone's HEIC is refused as what it is, with how to export it.
    const heic = Buffer.concat([
      Buffer.from([0, 0, 0, 24]),
      Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'),
    ]);
    const heicUpload = await fetch(`${base}/v1/sessions/${b}/files?name=IMG_0042.HEIC`, {
      method: 'POST',
      body: Buffer.concat([heic, Buffer.alloc(200)]),
    });
    expect(heicUpload.status).toBe(415);
    expect(await errorOf(heicUpload)).toMatchObject({
      code: 'unsupported_media_type',
      message: expect.stringContaining('兼容性最佳'),
      format: 'HEIC',
    });

    // Content decides, not the declared type or name.
    const fake = await fetch(`${base}/v1/sessions/${b}/files?name=x.png`, {
      method: 'POST',
      headers: { 'content-type': 'image/png' },
      body: 'GIF89a not really',
    });
    expect(fake.status).toBe(415);
    expect((await errorOf(fake)).code).toBe('unsupported_media_type');
    const mismatch = await fetch(`${base}/v1/sessions/${b}/files?name=x.png`, { method: 'POST', body: jpeg });
    expect(mismatch.status).toBe(400);
    const psdGarment = await fetch(`${base}/v1/sessions/${b}/files?role=garment`, {
      method: 'POST',
      body: psdBytes,
    });
    expect(psdGarment.status).toBe(415);
    expect(
      (await fetch(`${base}/v1/sessions/${b}/files?role=model`, { method: 'POST', body: jpeg })).status,
    ).toBe(400);
    expect((await fetch(`${base}/v1/sessions/${b}/files`, { method: 'POST', body: '' })).status).toBe(400);
    const noFile = new FormData();
    noFile.set('name', 'x.png');
    expect((await fetch(`${base}/v1/sessions/${b}/files`, { method: 'POST', body: noFile })).status).toBe(
      400,
    );
    const badMultipart = await fetch(`${base}/v1/sessions/${b}/files`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
      body: '--zzz\r\nbroken',
    });
    expect(badMultipart.status).toBe(400);
  });

  it('keeps every path inside the session workspace', async () => {
    const id = await createSession(base);
    const png = await sharp({ create: { width: 4, height: 4, channels: 4, background: '#00000000' } })
      .png()
      .toBuffer();
    for (const name of ['../escape.png', '../../x.png', '/etc/x.png', 'a/../../x.png', 'dir/', '..']) {
      const res = await fetch(`${base}/v1/sessions/${id}/files?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        body: png,
      });
      expect(res.status, name).toBe(400);
    }
    for (const path of ['..%2F..%2Fpackage.json', '%2E%2E/%2E%2E/x', '%2Fetc%2Fpasswd', 'nothing.png']) {
      expect((await fetch(`${base}/v1/sessions/${id}/files/${path}`)).status, path).toBe(404);
    }
  });
});

describe('session isolation', () => {
  it('session B reaches none of session A’s documents, files or images', async () => {
    const a = await createSession(base);
    const b = await createSession(base);
    await okCalls(base, a, [
      toolCall('create_document', { width: 50, height: 50, name: '机密' }),
      toolCall('save_document'),
      toolCall('get_canvas_image', { max_size: 16 }),
    ]);
    // B cannot render A's document, list or download A's files, or fetch A's image as its own.
    expect(
      (await fetch(`${base}/v1/sessions/${b}/documents/${encodeURIComponent('机密')}/render.png`)).status,
    ).toBe(404);
    expect(await (await fetch(`${base}/v1/sessions/${b}/files`)).json()).toEqual({ files: [] });
    expect((await fetch(`${base}/v1/sessions/${b}/files/${encodeURIComponent('机密.psd')}`)).status).toBe(
      404,
    );
    expect(
      (await fetch(`${base}/v1/sessions/${b}/files/..%2F${a}%2F${encodeURIComponent('机密.psd')}`)).status,
    ).toBe(404);
    expect((await fetch(`${base}/v1/sessions/${b}/images/1.png`)).status).toBe(404);
    // Nor through tools: A's folder is outside B's workspace.
    const { results } = await sendCalls(base, b, [
      toolCall('list_documents'),
      toolCall('open_document', { path: `../${a}/机密.psd` }),
      toolCall('open_document', { path: `${server.config.workspace}/sessions/${a}/机密.psd` }),
      toolCall('switch_document', { name: '机密' }),
    ]);
    expect(results[0]).toMatchObject({ ok: true, count: 0 });
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    expect(results[2]).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    expect(results[3]).toMatchObject({ ok: false });
    // A still has everything.
    expect(
      (await fetch(`${base}/v1/sessions/${a}/documents/${encodeURIComponent('机密')}/render.png`)).status,
    ).toBe(200);
    expect((await fetch(`${base}/v1/sessions/${a}/images/1.png`)).status).toBe(200);
  });
});

describe('idle timeout', () => {
  it('closes a session unused for the timeout, and only then; its next request recovers it', async () => {
    // The timeout is long beside the 150 ms between the kept session's calls, so that a loaded machine's pauses
    // do not idle it out (1 s did, once, under a full CI run, and 3 s once more), and the idle session's closing is
    // waited for, not timed.
    const quick = await startTestServer({ idleTimeoutMs: 8_000 });
    try {
      const kept = await createSession(quick.url);
      const idle = await createSession(quick.url);
      await okCalls(quick.url, kept, [toolCall('create_document', { width: 10, height: 10 })]);
      await okCalls(quick.url, idle, [toolCall('create_document', { width: 10, height: 10 })]);
      // From here on: a session's first call warms its thread up and may take longer than the timeout.
      const since = quick.logs.length;
      const closed = (id: string) =>
        quick.logs.slice(since).some((l) => l.includes(`session ${id.slice(0, 8)}… closed after idling`));
      for (let i = 0; i < 400 && !closed(idle); i++) {
        await new Promise((r) => setTimeout(r, 150));
        await okCalls(quick.url, kept, [toolCall('get_document_info')]);
      }
      expect(closed(idle)).toBe(true);
      expect(closed(kept)).toBe(false);
      const info = await fetch(`${quick.url}/v1/sessions/${kept}`);
      expect(await info.json()).toMatchObject({ documents: [{ name: '未标题-1' }] });
      expect(quick.store.size).toBe(1);
      // Closed for idleness, it stays on disk (its journal): its next request brings it back as it was.
      const back = await fetch(`${quick.url}/v1/sessions/${idle}`);
      expect(await back.json()).toMatchObject({ documents: [{ name: '未标题-1' }] });
      expect(quick.store.get(idle)).toBeDefined();
    } finally {
      await quick.close();
    }
  });
});

describe('security', () => {
  it('with a token, every route but health needs it', async () => {
    const guarded = await startTestServer({ token: TOKEN });
    try {
      const auth = { authorization: `Bearer ${TOKEN}` };
      expect((await fetch(`${guarded.url}/v1/health`)).status).toBe(200);
      const none = await fetch(`${guarded.url}/v1/tools`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await errorOf(none)).code).toBe('unauthorized');
      for (const header of [
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(1)}`,
        TOKEN,
        `Basic ${TOKEN}`,
        'Bearer ',
      ]) {
        expect((await fetch(`${guarded.url}/v1/tools`, { headers: { authorization: header } })).status).toBe(
          401,
        );
      }
      expect((await fetch(`${guarded.url}/v1/sessions`, { method: 'POST' })).status).toBe(401);
      expect((await fetch(`${guarded.url}/mcp`, { method: 'POST' })).status).toBe(401);
      expect((await fetch(`${guarded.url}/v1/tools`, { headers: auth })).status).toBe(200);
      const id = await createSession(guarded.url, auth);
      await okCalls(guarded.url, id, [toolCall('create_document', { width: 8, height: 8 })], auth);
      expect((await fetch(`${guarded.url}/v1/sessions/${id}/documents/未标题-1/render.png`)).status).toBe(
        401,
      );
      expect(
        (await fetch(`${guarded.url}/v1/sessions/${id}/documents/未标题-1/render.png`, { headers: auth }))
          .status,
      ).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('refuses to bind a non-loopback address without a token', async () => {
    await expect(startServer({ host: '0.0.0.0', port: 0, workspace: tempDir() })).rejects.toThrow(
      ConfigError,
    );
    await expect(startServer({ host: '::', port: 0, workspace: tempDir() })).rejects.toThrow(/ATELIER_TOKEN/);
    const cli = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--workspace', tempDir()], {
      env: { ATELIER_TOKEN: '' },
    });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('atelier: 拒绝在 0.0.0.0 上不设令牌地监听：请设置环境变量 ATELIER_TOKEN');
    expect(cli.stdout).toBe('');
    const open = await startServer({
      host: '0.0.0.0',
      port: 0,
      workspace: tempDir(),
      token: TOKEN,
      log: () => {},
    });
    try {
      const res = await fetch(`http://127.0.0.1:${open.port}/v1/tools`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('without a token, refuses non-loopback Host names and foreign origins', async () => {
    expect(await rawGet(server.port, '/v1/health', { host: `127.0.0.1:${server.port}` })).toBe(200);
    expect(await rawGet(server.port, '/v1/health', { host: `localhost:${server.port}` })).toBe(200);
    expect(await rawGet(server.port, '/v1/health', { host: 'attacker.example:80' })).toBe(403);
    expect(
      await rawGet(server.port, '/v1/tools', {
        host: `127.0.0.1:${server.port}`,
        origin: 'https://attacker.example',
      }),
    ).toBe(403);
    expect(
      await rawGet(server.port, '/v1/tools', {
        host: `127.0.0.1:${server.port}`,
        origin: `http://localhost:${server.port}`,
      }),
    ).toBe(200);
  });

  it('caps the number of open sessions', async () => {
    const capped = await startTestServer({ maxSessions: 2 });
    try {
      await createSession(capped.url);
      const second = await createSession(capped.url);
      const third = await fetch(`${capped.url}/v1/sessions`, { method: 'POST' });
      expect(third.status).toBe(429);
      expect((await errorOf(third)).code).toBe('too_many_sessions');
      await fetch(`${capped.url}/v1/sessions/${second}`, { method: 'DELETE' });
      expect((await fetch(`${capped.url}/v1/sessions`, { method: 'POST' })).status).toBe(201);
    } finally {
      await capped.close();
    }
  });
});

describe('atelier serve', () => {
  it('starts the real binary, logs where it listens to stderr, and stops on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../support/cli.js');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--workspace', tempDir()], {
      env: { ...process.env, ATELIER_TOKEN: '' },
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const id = await createSession(url);
    await okCalls(url, id, [toolCall('create_document', { width: 20, height: 20 })]);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
