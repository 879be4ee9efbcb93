/**
 * What a session keeps on disk, over real HTTP: the disk quota counts the session's journal (the copies of the
 * files its calls read, its snapshots) with its files, and a designer makes room by deleting files
 * (`DELETE /v1/sessions/:id/files/<path>`), which is refused outside the session's folder, for a file an open
 * document or the garment photo uses, and from a page that may not change anything.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_EVERY_CALLS } from '../../src/service/journal.js';
import { withoutThumbnailKeys } from '../support/session.js';
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

const MB = 1024 * 1024;

/** A PNG of noise (it hardly compresses): about 1.2 MB at 700 × 600, 1.8 MB at 800 × 800. */
function noisePng(width: number, height: number): Promise<Buffer> {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
}

async function upload(server: TestServer, id: string, name: string, body: Buffer): Promise<Response> {
  return fetch(`${server.url}/v1/sessions/${id}/files?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    body,
  });
}

function fileUrl(server: TestServer, id: string, rel: string): string {
  return `${server.url}/v1/sessions/${id}/files/${rel.split('/').map(encodeURIComponent).join('/')}`;
}

/** Files under `dir`, relative, sorted (nothing when it does not exist). */
function filesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** A raw request, for paths and headers fetch would change or refuse (`..`, Origin, Sec-Fetch-Site). */
function raw(
  server: TestServer,
  method: string,
  urlPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method, path: urlPath, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the disk quota counts the journal', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ sessionDiskBytes: 3 * MB });
  });
  afterAll(() => server.close());
  const sessionDir = (id: string) => path.join(server.store.sessionsDir, id);
  const journalDir = (id: string) => path.join(server.store.journalsDir, id);

  it("refuses an upload that fits beside the files alone but not beside the journal's copy of an opened file", async () => {
    const id = await createSession(server.url);
    const png = await noisePng(700, 600);
    expect((await upload(server, id, 'a.png', png)).status).toBe(201);
    // Opening it keeps a copy in the journal (a restart replays the call on those bytes).
    await okCalls(server.url, id, [toolCall('open_document', { path: 'a.png' })]);
    expect(filesIn(path.join(journalDir(id), 'files'))).toHaveLength(1);
    // The files alone would take 1.2 + 1 MB of the 3; with the journal's copy, 3.4.
    const res = await upload(server, id, 'b.png', Buffer.concat([png.subarray(0, 8), Buffer.alloc(MB)]));
    expect(res.status).toBe(507);
    const error = await errorOf(res);
    expect(error).toMatchObject({ code: 'quota_exceeded', quota_bytes: 3 * MB });
    expect(error.used_bytes).toBeGreaterThanOrEqual(2 * png.byteLength);
    expect(error.message).toContain('用于恢复会话的记录');
    expect(filesIn(sessionDir(id))).toEqual(['a.png']);
  });

  it('undoes, in Chinese, a call whose copy of the file it read would pass the quota, leaving nothing', async () => {
    const id = await createSession(server.url);
    const png = await noisePng(800, 800);
    expect((await upload(server, id, '大图.png', png)).status).toBe(201);
    const { results } = await sendCalls(server.url, id, [toolCall('open_document', { path: '大图.png' })]);
    expect(results[0]).toMatchObject({
      ok: false,
      error: {
        code: 'out_of_bounds',
        message: expect.stringMatching(
          /^本会话的文件空间不足：另存一份读取的文件“大图\.png”.*调用已撤销，会话保持原样$/,
        ),
        hint: expect.stringContaining('删除'),
        details: { quota_bytes: 3 * MB, needed_bytes: png.byteLength },
      },
    });
    const [listed] = await okCalls(server.url, id, [toolCall('list_documents', {})]);
    expect(listed).toMatchObject({ documents: [] });
    expect(filesIn(path.join(journalDir(id), 'files'))).toEqual([]);
    expect(filesIn(journalDir(id)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(filesIn(sessionDir(id))).toEqual(['大图.png']);
  });

  it('writes no snapshot past the quota, and the session still comes back exactly after a restart', async () => {
    const workspace = server.config.workspace;
    const id = await createSession(server.url);
    // The files leave 1.5 MB; a snapshot of a 700 × 700 document with a filled layer needs about 2.
    const pad = Buffer.concat([(await noisePng(8, 8)).subarray(0, 8), Buffer.alloc(1.5 * MB)]);
    expect((await upload(server, id, 'pad.png', pad)).status).toBe(201);
    const calls = [
      toolCall('create_document', { width: 700, height: 700, name: '海报' }),
      toolCall('create_layer', { name: '底色' }),
      toolCall('fill_selection', { color: '#336699' }),
    ];
    for (let i = calls.length; i < SNAPSHOT_EVERY_CALLS + 2; i++) {
      calls.push(toolCall('set_layer_opacity', { name: '底色', opacity: 50 + (i % 40) }, `call_${i}`));
    }
    await okCalls(server.url, id, calls);
    await server.store.settled();
    await expect.poll(() => server.logs.join('\n')).toContain('快照没有写入');
    expect(readdirSync(journalDir(id)).filter((n) => n.startsWith('snapshot-'))).toEqual([]);
    expect(filesIn(path.join(journalDir(id), 'buffers'))).toEqual([]);
    const before = await (await fetch(`${server.url}/v1/sessions/${id}/state`)).json();

    await server.close();
    server = await startTestServer({ sessionDiskBytes: 3 * MB, workspace });
    const after = await (await fetch(`${server.url}/v1/sessions/${id}/state`)).json();
    expect(withoutThumbnailKeys(after)).toEqual(withoutThumbnailKeys(before));
  });
});

describe('deleting a file of the session', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ sessionDiskBytes: 3 * MB });
  });
  afterAll(() => server.close());
  const sessionDir = (id: string) => path.join(server.store.sessionsDir, id);
  const journalDir = (id: string) => path.join(server.store.journalsDir, id);

  it('gives the room back: an upload refused for the quota fits once a file is deleted', async () => {
    const id = await createSession(server.url);
    const head = (await noisePng(8, 8)).subarray(0, 8);
    const big = Buffer.concat([head, Buffer.alloc(2 * MB)]);
    expect((await upload(server, id, 'out/旧稿.png', big)).status).toBe(201);
    expect((await upload(server, id, 'new.png', big)).status).toBe(507);

    const res = await fetch(fileUrl(server, id, 'out/旧稿.png'), { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(filesIn(sessionDir(id))).toEqual([]);
    const list = await (await fetch(`${server.url}/v1/sessions/${id}/files`)).json();
    expect(list).toEqual({ files: [] });
    expect((await upload(server, id, 'new.png', big)).status).toBe(201);
    // Gone is gone: a second delete finds nothing.
    const again = await fetch(fileUrl(server, id, 'out/旧稿.png'), { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect((await errorOf(again)).message).toContain('会话里没有文件“out/旧稿.png”');
  });

  it("lets go of the journal's copy of a deleted file that was opened and closed, so its room comes back too", async () => {
    const id = await createSession(server.url);
    const png = await noisePng(700, 600);
    expect((await upload(server, id, 'a.png', png)).status).toBe(201);
    await okCalls(server.url, id, [
      toolCall('open_document', { path: 'a.png' }),
      toolCall('close_document', {}),
    ]);
    expect(filesIn(path.join(journalDir(id), 'files'))).toHaveLength(1);
    expect((await fetch(fileUrl(server, id, 'a.png'), { method: 'DELETE' })).status).toBe(204);
    expect(filesIn(path.join(journalDir(id), 'files'))).toEqual([]);
    // 2.9 MB fits now: nothing of a.png is kept anywhere.
    const fill = Buffer.concat([png.subarray(0, 8), Buffer.alloc(2.9 * MB)]);
    expect((await upload(server, id, 'b.png', fill)).status).toBe(201);
  });

  it("lets go of a closed document's pixels kept by the journal's last snapshot", async () => {
    const id = await createSession(server.url);
    expect((await upload(server, id, 'x.png', await noisePng(20, 20))).status).toBe(201);
    const calls = [
      toolCall('create_document', { width: 400, height: 400, name: '海报' }),
      toolCall('create_layer', { name: '底色' }),
      toolCall('fill_selection', { color: '#336699' }),
    ];
    for (let i = calls.length; i < SNAPSHOT_EVERY_CALLS + 1; i++) {
      calls.push(toolCall('set_layer_opacity', { name: '底色', opacity: 50 + (i % 40) }, `call_${i}`));
    }
    await okCalls(server.url, id, calls);
    const buffers = path.join(journalDir(id), 'buffers');
    await expect.poll(() => filesIn(buffers).length).toBeGreaterThan(0);
    await okCalls(server.url, id, [toolCall('close_document', {})]);
    expect(filesIn(buffers).length).toBeGreaterThan(0);
    expect((await fetch(fileUrl(server, id, 'x.png'), { method: 'DELETE' })).status).toBe(204);
    expect(filesIn(buffers)).toEqual([]);
  });

  it('refuses, in Chinese, a file an open document or the garment photo uses, and keeps it', async () => {
    const id = await createSession(server.url);
    const png = await noisePng(200, 150);
    expect((await upload(server, id, 'in/a.png', png)).status).toBe(201);
    const [opened] = await okCalls(server.url, id, [toolCall('open_document', { path: 'in/a.png' })]);
    const name = (opened as { document: { name: string } }).document.name;
    // Named another way, it is the same file.
    const used = await raw(server, 'DELETE', `/v1/sessions/${id}/files/in/./a.png`);
    expect(used.status).toBe(409);
    expect(JSON.parse(used.body).error).toMatchObject({
      code: 'conflict',
      message: `“in/a.png”正被打开的文档“${name}”使用（从它打开或保存到它），没有删除：先关闭该文档，再删除它`,
      hint: expect.stringContaining('close_document'),
      documents: [name],
    });
    // A document saved to a file uses it too.
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 40, height: 30, name: '草稿' }),
      toolCall('save_document_as', { path: 'out/草稿.psd' }),
    ]);
    expect((await fetch(fileUrl(server, id, 'out/草稿.psd'), { method: 'DELETE' })).status).toBe(409);

    const photo = await fetch(`${server.url}/v1/sessions/${id}/files?name=photo.png&role=garment`, {
      method: 'POST',
      body: png,
    });
    expect(photo.status).toBe(201);
    const garment = await fetch(fileUrl(server, id, 'photo.png'), { method: 'DELETE' });
    expect(garment.status).toBe(409);
    expect((await errorOf(garment)).message).toBe(
      '“photo.png”是本会话的服装照片，服装工具还要读取它，没有删除：先上传另一张服装照片，再删除它',
    );
    expect(filesIn(sessionDir(id))).toEqual(['in/a.png', 'out/草稿.psd', 'photo.png']);

    // Closed, the file is the designer's to delete.
    await okCalls(server.url, id, [toolCall('close_document', {}), toolCall('close_document', {})]);
    expect((await fetch(fileUrl(server, id, 'in/a.png'), { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(fileUrl(server, id, 'out/草稿.psd'), { method: 'DELETE' })).status).toBe(204);
    expect(filesIn(sessionDir(id))).toEqual(['photo.png']);
  });

  it('refuses paths outside the session folder, folders and links, touching nothing', async () => {
    const id = await createSession(server.url);
    const other = await createSession(server.url);
    const png = await noisePng(20, 20);
    expect((await upload(server, other, 'secret.png', png)).status).toBe(201);
    expect((await upload(server, id, 'in/a.png', png)).status).toBe(201);
    // A journaled call: the journal's folder is there by its answer.
    await okCalls(server.url, id, [toolCall('create_document', { width: 10, height: 10 })]);
    const outside = path.join(server.config.workspace, 'outside.txt');
    writeFileSync(outside, 'not yours');
    symlinkSync(outside, path.join(sessionDir(id), 'link.txt'));
    mkdirSync(path.join(sessionDir(id), 'empty'));

    const base = `/v1/sessions/${id}/files/`;
    for (const [rel, status] of [
      [`..%2F${other}%2Fsecret.png`, 400],
      [`..%2F..%2Fjournals%2F${id}%2Fmeta.json`, 400],
      ['%2Fetc%2Fhostname', 400],
      ['link.txt', 400],
      ['in', 400],
      ['empty', 400],
      ['nothing.png', 404],
    ] as const) {
      const res = await raw(server, 'DELETE', base + rel);
      expect(res.status, `${rel}: ${res.body}`).toBe(status);
      expect(JSON.parse(res.body).error.message, rel).toMatch(/[\u4e00-\u9fff]/);
    }
    expect(filesIn(path.join(server.store.sessionsDir, other))).toEqual(['secret.png']);
    expect(existsSync(outside)).toBe(true);
    expect(existsSync(path.join(server.store.journalsDir, id, 'meta.json'))).toBe(true);
    expect(filesIn(sessionDir(id))).toEqual(['in/a.png']);
    expect(lstatSync(path.join(sessionDir(id), 'link.txt')).isSymbolicLink()).toBe(true);
  });

  it('is refused to pages that may not change anything: another origin, an opaque one', async () => {
    const id = await createSession(server.url);
    expect((await upload(server, id, 'a.png', await noisePng(20, 20))).status).toBe(201);
    const url = `/v1/sessions/${id}/files/a.png`;
    const foreign = await raw(server, 'DELETE', url, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const opaque = await raw(server, 'DELETE', url, { origin: 'null' });
    expect(opaque.status).toBe(403);
    const rebound = await raw(server, 'DELETE', url, { host: 'evil.example' });
    expect(rebound.status).toBe(403);
    expect(filesIn(sessionDir(id))).toEqual(['a.png']);
    // The studio's own page (same origin) may.
    expect((await raw(server, 'DELETE', url, { origin: server.url })).status).toBe(204);
  });

  it('needs the token when the server has one', async () => {
    const guarded = await startTestServer({ token: TOKEN });
    try {
      const auth = { authorization: `Bearer ${TOKEN}` };
      const id = await createSession(guarded.url, auth);
      const res = await fetch(`${guarded.url}/v1/sessions/${id}/files?name=a.png`, {
        method: 'POST',
        headers: auth,
        body: await noisePng(20, 20),
      });
      expect(res.status).toBe(201);
      const url = `${guarded.url}/v1/sessions/${id}/files/a.png`;
      expect((await fetch(url, { method: 'DELETE' })).status).toBe(401);
      expect(filesIn(path.join(guarded.store.sessionsDir, id))).toEqual(['a.png']);
      expect((await fetch(url, { method: 'DELETE', headers: auth })).status).toBe(204);
    } finally {
      await guarded.close();
    }
  });
});
