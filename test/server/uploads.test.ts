import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { totalmem } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { ConfigError, configFrom } from '../../src/server/config.js';
import { MultipartParser } from '../../src/server/multipart.js';
import { startScriptedModel } from '../support/scripted-model.js';
import {
  createSession,
  errorOf,
  okCalls,
  sendCalls,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

const MB = 1024 * 1024;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * `total` bytes starting with `head`, made in 1 MiB chunks on demand (the test never holds the body); the
 * filler varies with `seed` and the chunk's index, so a misplaced or dropped chunk changes the hash.
 */
function* bodyOf(total: number, seed: number, head: Buffer = PNG_SIGNATURE): Generator<Buffer> {
  let sent = 0;
  for (let i = 0; sent < total; i++) {
    const n = Math.min(MB, total - sent);
    const chunk = Buffer.alloc(n, (seed * 31 + i) & 0xff);
    if (i === 0) head.copy(chunk, 0, 0, Math.min(head.length, n));
    chunk.writeUInt32BE(i, Math.min(n - 4, 4096));
    sent += n;
    yield chunk;
  }
}

function* multipartOf(
  boundary: string,
  file: Iterable<Buffer>,
  fields: Record<string, string> = {},
): Generator<Buffer> {
  for (const [name, value] of Object.entries(fields)) {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }
  yield Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\n` +
      'Content-Type: image/png\r\n\r\n',
  );
  yield* file;
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Bytes the client had written when the answer came. */
  sentBeforeAnswer: number;
}

/**
 * POSTs the chunks with backpressure (chunked transfer unless `contentLength` is given) and resolves with the
 * answer; stops sending once the server has answered. `gate` is awaited before every chunk after the first.
 */
function streamPost(
  url: string,
  chunks: Iterable<Buffer>,
  opts: { contentType?: string; contentLength?: number; gate?: () => Promise<void> } = {},
): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const headers: Record<string, string> = {
      'content-type': opts.contentType ?? 'application/octet-stream',
    };
    if (opts.contentLength !== undefined) headers['content-length'] = String(opts.contentLength);
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'POST', headers },
      (res) => {
        answered = true;
        const sentBeforeAnswer = sent;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, sentBeforeAnswer });
          req.destroy();
        });
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const pump = async () => {
      let first = true;
      for (const chunk of chunks) {
        if (answered || req.destroyed) return;
        if (!first && opts.gate) await opts.gate();
        first = false;
        sent += chunk.byteLength;
        if (!req.write(chunk)) {
          await new Promise<void>((r) => {
            const done = () => {
              req.off('drain', done);
              req.off('close', done);
              r();
            };
            req.on('drain', done);
            req.on('close', done);
          });
        }
      }
      if (!answered && !req.destroyed) req.end();
    };
    pump().catch(reject);
  });
}

function sha256OfChunks(chunks: Iterable<Buffer>): string {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
}

async function sha256OfFile(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const c of createReadStream(file)) h.update(c as Buffer);
  return h.digest('hex');
}

/** Every file in the session folder, temp files included. */
async function filesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true })).sort();
  } catch {
    return [];
  }
}

describe('uploads streamed to disk', () => {
  let server: TestServer;
  beforeAll(async () => {
    // One session may send half of them at once: 5.
    server = await startTestServer({ uploadLimitBytes: 100 * MB, maxConcurrentUploads: 10 });
  });
  afterAll(() => server.close());
  const dirOf = (id: string) => path.join(server.config.workspace, 'sessions', id);

  it('takes 5 concurrent 60 MB uploads, raw and multipart, with little memory, byte for byte', async () => {
    const size = 60 * MB;
    const ids = await Promise.all([0, 1, 2, 3, 4].map(() => createSession(server.url)));
    // Each session's thread up and running first: what is measured is what the uploads cost.
    await Promise.all(ids.map((id) => okCalls(server.url, id, [toolCall('list_documents', {})])));
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    let answers: Answer[];
    try {
      answers = await Promise.all(
        ids.map((id, i) =>
          i % 2 === 0
            ? streamPost(`${server.url}/v1/sessions/${id}/files?name=big`, bodyOf(size, i))
            : streamPost(
                `${server.url}/v1/sessions/${id}/files`,
                multipartOf(`----b${i}`, bodyOf(size, i), { name: `in/big-${i}.png` }),
                { contentType: `multipart/form-data; boundary=----b${i}` },
              ),
        ),
      );
    } finally {
      clearInterval(sampler);
    }
    const growthMb = (peak - before) / MB;
    console.log(`5 × 60 MB uploads: peak RSS growth ${growthMb.toFixed(1)} MB`);
    // Buffered, the bodies alone would be 300 MB (and multipart parsing doubles that).
    expect(growthMb).toBeLessThan(150);
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, answer.body).toBe(201);
      const expectedPath = i % 2 === 0 ? 'big.png' : `in/big-${i}.png`;
      expect(JSON.parse(answer.body)).toEqual({ path: expectedPath, type: 'png', bytes: size, role: null });
      const dir = dirOf(ids[i]!);
      expect(await sha256OfFile(path.join(dir, expectedPath))).toBe(sha256OfChunks(bodyOf(size, i)));
      expect(await filesIn(dir)).toEqual(i % 2 === 0 ? ['big.png'] : ['in', `in/big-${i}.png`]);
    }
  });

  it('gives uploads sent at once without a name a file each', async () => {
    const id = await createSession(server.url);
    // A folder and a file already hold the first two names.
    const first = await streamPost(
      `${server.url}/v1/sessions/${id}/files?name=upload-1.png/x`,
      bodyOf(1000, 9),
    );
    expect(first.status).toBe(201);
    expect((await streamPost(`${server.url}/v1/sessions/${id}/files`, bodyOf(1000, 8))).status).toBe(201);
    // As many as one session may send at once.
    const answers = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => streamPost(`${server.url}/v1/sessions/${id}/files`, bodyOf(64 * 1024, i))),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    const paths = answers.map((a) => (JSON.parse(a.body) as { path: string }).path);
    // Each its own name, none replacing another.
    expect([...paths].sort()).toEqual([3, 4, 5, 6, 7].map((n) => `upload-${n}.png`));
    for (const [i, p] of paths.entries()) {
      expect(await sha256OfFile(path.join(dirOf(id), p))).toBe(sha256OfChunks(bodyOf(64 * 1024, i)));
    }
    expect((await filesIn(dirOf(id))).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('refuses an upload over the limit mid-stream with 413, leaving no file', async () => {
    const small = await startTestServer({ uploadLimitBytes: 4 * MB });
    try {
      const id = await createSession(small.url);
      const dir = path.join(small.config.workspace, 'sessions', id);
      // Chunked: the size shows only as the bytes arrive.
      const total = 64 * MB;
      const answer = await streamPost(`${small.url}/v1/sessions/${id}/files?name=big`, bodyOf(total, 7));
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error).toMatchObject({ code: 'payload_too_large', limit_bytes: 4 * MB });
      expect(answer.sentBeforeAnswer).toBeLessThan(total / 2);
      expect(await filesIn(dir)).toEqual([]);
      // Multipart, chunked.
      const form = await streamPost(
        `${small.url}/v1/sessions/${id}/files`,
        multipartOf('xyz', bodyOf(total, 8)),
        { contentType: 'multipart/form-data; boundary=xyz' },
      );
      expect(form.status).toBe(413);
      expect(await filesIn(dir)).toEqual([]);
      // A declared length over the limit is refused before any byte is read.
      const declared = await streamPost(`${small.url}/v1/sessions/${id}/files`, bodyOf(total, 9), {
        contentLength: total,
      });
      expect(declared.status).toBe(413);
      expect(declared.sentBeforeAnswer).toBeLessThan(total / 2);
      expect(await filesIn(dir)).toEqual([]);
      // The server is fine, and an upload within the limit still works.
      const ok = await streamPost(`${small.url}/v1/sessions/${id}/files?name=ok`, bodyOf(3 * MB, 1));
      expect(ok.status).toBe(201);
      expect(await filesIn(dir)).toEqual(['ok.png']);
    } finally {
      await small.close();
    }
  });

  it('refuses a file that is not an image from its first bytes, before the rest arrives', async () => {
    const id = await createSession(server.url);
    const total = 64 * MB;
    const gif = streamPost(
      `${server.url}/v1/sessions/${id}/files?name=x.png`,
      bodyOf(total, 3, Buffer.from('GIF89a')),
    );
    const answer = await gif;
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.body).error.code).toBe('unsupported_media_type');
    expect(answer.sentBeforeAnswer).toBeLessThan(total / 2);
    expect(await filesIn(dirOf(id))).toEqual([]);
  });

  it('removes the temp file when the client goes away mid-upload', async () => {
    const id = await createSession(server.url);
    const u = new URL(`${server.url}/v1/sessions/${id}/files?name=gone`);
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: 'POST',
        headers: { 'content-length': String(50 * MB) },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      const chunks = bodyOf(4 * MB, 5);
      for (const c of chunks) req.write(c);
      setTimeout(() => req.destroy(), 300);
    });
    // The server notices the closed connection and cleans up; poll briefly.
    let left: string[] = [];
    for (let i = 0; i < 50; i++) {
      left = await filesIn(dirOf(id));
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(left).toEqual([]);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
  });
});

describe('the cap on concurrent uploads', () => {
  it('answers 503 beyond the cap, and takes uploads again once one finishes', async () => {
    const capped = await startTestServer({ maxConcurrentUploads: 2 });
    try {
      const ids = await Promise.all([0, 1, 2].map(() => createSession(capped.url)));
      let open!: () => void;
      const opened = new Promise<void>((r) => {
        open = r;
      });
      const slow = [0, 1].map((i) =>
        streamPost(`${capped.url}/v1/sessions/${ids[i]}/files?name=slow`, bodyOf(2 * MB, i), {
          gate: () => opened,
        }),
      );
      // The two slow uploads have sent their first chunk; wait until the server is inside both.
      await new Promise((r) => setTimeout(r, 300));
      const third = await streamPost(`${capped.url}/v1/sessions/${ids[2]}/files?name=third`, bodyOf(MB, 3));
      expect(third.status).toBe(503);
      expect(third.headers['retry-after']).toBe('5');
      const error = JSON.parse(third.body).error;
      expect(error).toMatchObject({ code: 'busy', limit: 2 });
      expect(error.message).toMatch(/2 个上传/);
      open();
      expect((await Promise.all(slow)).map((a) => a.status)).toEqual([201, 201]);
      const again = await streamPost(`${capped.url}/v1/sessions/${ids[2]}/files?name=third`, bodyOf(MB, 3));
      expect(again.status).toBe(201);
      const listed = (await (await fetch(`${capped.url}/v1/sessions/${ids[2]}/files`)).json()) as {
        files: { path: string }[];
      };
      expect(listed.files.map((f) => f.path)).toEqual(['third.png']);
    } finally {
      await capped.close();
    }
  });

  it('leaves the other sessions room: one session sends half the uploads at once at most', async () => {
    const capped = await startTestServer({ maxConcurrentUploads: 4 });
    try {
      const [busy, other] = await Promise.all([createSession(capped.url), createSession(capped.url)]);
      let open!: () => void;
      const opened = new Promise<void>((r) => {
        open = r;
      });
      // A session's uploads trickling in (a slow link, a script sending many at once).
      const slow = [1, 2].map((i) =>
        streamPost(`${capped.url}/v1/sessions/${busy}/files?name=slow-${i}`, bodyOf(2 * MB, i), {
          gate: () => opened,
        }),
      );
      // The server is inside both once their bytes have started to land in the session's folder.
      const temps = async () =>
        (await filesIn(path.join(capped.store.sessionsDir, busy))).filter((f) => f.endsWith('.tmp')).length;
      await expect.poll(temps).toBe(2);
      const more = await streamPost(`${capped.url}/v1/sessions/${busy}/files?name=more`, bodyOf(MB, 3));
      expect(more.status).toBe(503);
      expect(more.headers['retry-after']).toBe('5');
      expect(JSON.parse(more.body).error).toMatchObject({ code: 'busy', limit: 2 });
      // Another session's uploads go through meanwhile.
      const theirs = await Promise.all(
        [4, 5].map((i) => streamPost(`${capped.url}/v1/sessions/${other}/files?name=f-${i}`, bodyOf(MB, i))),
      );
      expect(theirs.map((a) => a.status)).toEqual([201, 201]);
      open();
      expect((await Promise.all(slow)).map((a) => a.status)).toEqual([201, 201]);
      expect(
        (await streamPost(`${capped.url}/v1/sessions/${busy}/files?name=more`, bodyOf(MB, 3))).status,
      ).toBe(201);
      expect(await filesIn(path.join(capped.store.sessionsDir, busy))).toEqual([
        'more.png',
        'slow-1.png',
        'slow-2.png',
      ]);
    } finally {
      await capped.close();
    }
  });
});

describe('the upload caps at one', () => {
  it('say "1 个上传", the session\'s cap and the server\'s alike, storing nothing', async () => {
    for (const [maxConcurrentUploads, scope] of [
      [3, '本会话正在发送 1 个上传'],
      [1, '服务正在接收 1 个上传'],
    ] as const) {
      const capped = await startTestServer({ maxConcurrentUploads });
      try {
        const id = await createSession(capped.url);
        let open!: () => void;
        const opened = new Promise<void>((r) => {
          open = r;
        });
        const slow = streamPost(`${capped.url}/v1/sessions/${id}/files?name=slow`, bodyOf(2 * MB, 1), {
          gate: () => opened,
        });
        const temps = async () =>
          (await filesIn(path.join(capped.store.sessionsDir, id))).filter((f) => f.endsWith('.tmp')).length;
        await expect.poll(temps).toBe(1);
        const more = await streamPost(`${capped.url}/v1/sessions/${id}/files?name=more`, bodyOf(MB, 2));
        expect(more.status).toBe(503);
        const error = JSON.parse(more.body).error;
        expect(error).toMatchObject({ code: 'busy', limit: 1 });
        expect(error.message).toContain(scope);
        expect(error.message).not.toMatch(/uploads/);
        open();
        expect((await slow).status).toBe(201);
        expect(await filesIn(path.join(capped.store.sessionsDir, id))).toEqual(['slow.png']);
      } finally {
        await capped.close();
      }
    }
  });
});

describe('the multipart parser', () => {
  async function formBytes(): Promise<{ body: Buffer; boundary: string; file: Buffer }> {
    // A file whose bytes contain CRLFs, dashes and a near-boundary, as a browser's FormData encodes it.
    const file = Buffer.concat([PNG_SIGNATURE, Buffer.from('\r\n--\r\n-----x\r\n--'), Buffer.alloc(3000, 7)]);
    const form = new FormData();
    form.set('name', '样稿/图 1.png');
    form.set('file', new Blob([file]), 'photo "1".png');
    form.set('role', 'garment');
    const req = new Request('http://localhost/', { method: 'POST', body: form });
    const boundary = /boundary=(.+)$/.exec(req.headers.get('content-type')!)![1]!;
    return { body: Buffer.from(await req.arrayBuffer()), boundary, file };
  }

  function parse(boundary: string, chunks: Buffer[]) {
    const parser = new MultipartParser(boundary);
    const parts: { name: string; filename: string | null; data: Buffer }[] = [];
    let current: { name: string; filename: string | null; chunks: Buffer[] } | null = null;
    for (const chunk of chunks) {
      for (const e of parser.push(chunk)) {
        if (e.kind === 'part') current = { ...e.part, chunks: [] };
        else if (e.kind === 'data') current!.chunks.push(Buffer.from(e.chunk));
        else {
          parts.push({
            name: current!.name,
            filename: current!.filename,
            data: Buffer.concat(current!.chunks),
          });
          current = null;
        }
      }
    }
    parser.finish();
    return parts;
  }

  it('reads the same parts however the body is cut into chunks', async () => {
    const { body, boundary, file } = await formBytes();
    const expected = [
      { name: 'name', filename: null, data: Buffer.from('样稿/图 1.png') },
      { name: 'file', filename: 'photo %221%22.png', data: file },
      { name: 'role', filename: null, data: Buffer.from('garment') },
    ];
    expect(parse(boundary, [body])).toEqual(expected);
    // Byte by byte: every boundary, CRLF and header is cut at every place.
    expect(
      parse(
        boundary,
        [...body].map((b) => Buffer.from([b])),
      ),
    ).toEqual(expected);
    for (let cut = 1; cut < body.length; cut += 29) {
      expect(parse(boundary, [body.subarray(0, cut), body.subarray(cut)])).toEqual(expected);
    }
  });

  it('refuses truncated and malformed bodies', async () => {
    const { body, boundary } = await formBytes();
    expect(() => parse(boundary, [body.subarray(0, body.length - 10)])).toThrow(/结束的 boundary/);
    expect(() => parse('zzz', [Buffer.from('--zzz\r\nbroken')])).toThrow(/结束的 boundary/);
    expect(() => parse('zzz', [Buffer.from('--zzzXY\r\n')])).toThrow(/没有换行/);
    expect(() =>
      parse('zzz', [Buffer.from('--zzz\r\nContent-Type: text/plain\r\n\r\nx\r\n--zzz--')]),
    ).toThrow(/Content-Disposition/);
    expect(() => parse('zzz', [Buffer.from(`--zzz\r\nX: ${'a'.repeat(20000)}`)])).toThrow(/头太长/);
  });
});

describe('upload errors as a client sees them', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('names what is wrong with a form', async () => {
    const id = await createSession(server.url);
    const twoFiles = new FormData();
    twoFiles.append('file', new Blob([PNG_SIGNATURE]), 'a.png');
    twoFiles.append('file', new Blob([PNG_SIGNATURE]), 'b.png');
    const res = await fetch(`${server.url}/v1/sessions/${id}/files`, { method: 'POST', body: twoFiles });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/不止一个 "file"/);
    const longField = new FormData();
    longField.set('name', 'x'.repeat(5000));
    longField.set('file', new Blob([PNG_SIGNATURE]), 'a.png');
    const long = await fetch(`${server.url}/v1/sessions/${id}/files`, { method: 'POST', body: longField });
    expect(long.status).toBe(400);
    const noBoundary = await fetch(`${server.url}/v1/sessions/${id}/files`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data' },
      body: 'x',
    });
    expect(noBoundary.status).toBe(400);
    expect((await errorOf(noBoundary)).message).toMatch(/boundary/);
    expect(await filesIn(path.join(server.config.workspace, 'sessions', id))).toEqual([]);
  });

  it('refuses a garment photo that starts like a PNG but is not one with 415, changing nothing', async () => {
    const id = await createSession(server.url);
    const broken = Buffer.concat([PNG_SIGNATURE, Buffer.alloc(200, 7)]);
    const raw = await fetch(`${server.url}/v1/sessions/${id}/files?name=photo.png&role=garment`, {
      method: 'POST',
      body: broken,
    });
    expect(raw.status).toBe(415);
    expect((await errorOf(raw)).code).toBe('unsupported_media_type');
    const form = new FormData();
    form.set('role', 'garment');
    form.set('file', new Blob([broken]), 'photo.png');
    const multipart = await fetch(`${server.url}/v1/sessions/${id}/files`, { method: 'POST', body: form });
    expect(multipart.status).toBe(415);
    expect(server.logs.join('\n')).not.toMatch(/internal|Error/);
    const session = (await (await fetch(`${server.url}/v1/sessions/${id}`)).json()) as {
      garment_photo: unknown;
    };
    expect(session.garment_photo).toBeNull();
    expect(await filesIn(path.join(server.config.workspace, 'sessions', id))).toEqual([]);
  });
});

describe('a stalled upload', () => {
  it('is answered 408 once its client sends nothing for a while, leaving its place and no file', async () => {
    const server = await startTestServer({ maxConcurrentUploads: 1, uploadStallMs: 1000 });
    try {
      const id = await createSession(server.url);
      // A client that sends the first megabyte and then nothing, its connection still open (a laptop put to
      // sleep, a network gone quiet): without a stall limit it holds the only upload place for minutes.
      const stalled = await streamPost(
        `${server.url}/v1/sessions/${id}/files?name=stuck`,
        bodyOf(4 * MB, 1),
        {
          contentLength: 4 * MB,
          gate: () => new Promise<void>(() => {}),
        },
      );
      expect(stalled.status).toBe(408);
      expect(JSON.parse(stalled.body).error).toMatchObject({ code: 'request_timeout' });
      const next = await streamPost(`${server.url}/v1/sessions/${id}/files?name=next`, bodyOf(MB, 2));
      expect(next.status).toBe(201);
      expect(await filesIn(path.join(server.store.sessionsDir, id))).toEqual(['next.png']);
    } finally {
      await server.close();
    }
  });
});

describe('the session disk quota', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ sessionDiskBytes: 3 * MB });
  });
  afterAll(() => server.close());
  const dirOf = (id: string) => path.join(server.config.workspace, 'sessions', id);

  it('refuses an upload past it with 507, raw or multipart, storing nothing; one over a file of the same name fits', async () => {
    const id = await createSession(server.url);
    const files = `${server.url}/v1/sessions/${id}/files`;
    expect((await streamPost(`${files}?name=a`, bodyOf(2 * MB, 1))).status).toBe(201);
    const raw = await streamPost(`${files}?name=b`, bodyOf(2 * MB, 2));
    expect(raw.status, raw.body).toBe(507);
    const refused = JSON.parse(raw.body).error;
    expect(refused).toMatchObject({
      code: 'quota_exceeded',
      message: expect.stringContaining('本会话的文件空间不足'),
      quota_bytes: 3 * MB,
    });
    // The file, and the journal's few hundred bytes (session-disk.test.ts: the journal counts too).
    expect(refused.used_bytes).toBeGreaterThanOrEqual(2 * MB);
    expect(refused.used_bytes).toBeLessThan(2 * MB + 4096);
    const form = await streamPost(files, multipartOf('----q', bodyOf(2 * MB, 3), { name: 'c.png' }), {
      contentType: 'multipart/form-data; boundary=----q',
    });
    expect(form.status, form.body).toBe(507);
    // Nothing of them is left, not even a temp file.
    expect(await filesIn(dirOf(id))).toEqual(['a.png']);
    // Replacing a.png takes only the difference.
    const again = await streamPost(`${files}?name=a`, bodyOf(2.5 * MB, 4));
    expect(again.status, again.body).toBe(201);
    expect(await sha256OfFile(path.join(dirOf(id), 'a.png'))).toBe(sha256OfChunks(bodyOf(2.5 * MB, 4)));
  });

  it('refuses a save or an export past it in Chinese, leaving no file and the document unsaved', async () => {
    const id = await createSession(server.url);
    // The session's files leave 1 KB.
    expect(
      (await streamPost(`${server.url}/v1/sessions/${id}/files?name=a`, bodyOf(3 * MB - 1024, 5))).status,
    ).toBe(201);
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '海报' }),
      toolCall('create_layer', { name: '甲' }),
      toolCall('fill_selection', { color: '#336699' }),
    ]);
    const { results } = await sendCalls(server.url, id, [
      toolCall('save_document_as', { path: 'out/海报.psd' }),
      toolCall('save_document_as', { path: 'out/海报.png' }),
    ]);
    for (const r of results) {
      expect(r).toMatchObject({
        ok: false,
        error: { code: 'out_of_bounds', message: expect.stringContaining('本会话的文件空间不足') },
      });
    }
    expect(await filesIn(dirOf(id))).toEqual(['a.png']);
    const [listed] = await okCalls(server.url, id, [toolCall('list_documents', {})]);
    expect(listed).toMatchObject({ documents: [{ name: '海报', path: null, unsaved_changes: true }] });
  });

  it('reads --session-disk over ATELIER_SESSION_DISK_MB, 10 GB by default', () => {
    expect(configFrom({}, {})).toMatchObject({ sessionDiskBytes: 10240 * MB });
    expect(configFrom({}, { ATELIER_SESSION_DISK_MB: '500' })).toMatchObject({ sessionDiskBytes: 500 * MB });
    expect(configFrom({ 'session-disk': '64' }, { ATELIER_SESSION_DISK_MB: '500' })).toMatchObject({
      sessionDiskBytes: 64 * MB,
    });
    expect(() => configFrom({}, { ATELIER_SESSION_DISK_MB: '0' })).toThrow(
      '环境变量 ATELIER_SESSION_DISK_MB 的值“0”无效：每个会话的磁盘空间（MB）应为大于 0 的数',
    );
  });

  it('refuses a session-thread or compositing-worker count that is not a whole number, rather than a default', () => {
    expect(() => configFrom({}, { ATELIER_SESSION_THREADS: 'abc' })).toThrow(
      '环境变量 ATELIER_SESSION_THREADS 的值“abc”无效：会话使用的工作线程数应为不小于 1 的整数',
    );
    expect(() => configFrom({}, { ATELIER_SESSION_THREADS: '0' })).toThrow(ConfigError);
    expect(() => configFrom({}, { ATELIER_COMPOSITE_WORKERS: '1.5' })).toThrow(/ATELIER_COMPOSITE_WORKERS/);
    expect(() =>
      configFrom({}, { ATELIER_SESSION_THREADS: '4', ATELIER_COMPOSITE_WORKERS: '0' }),
    ).not.toThrow();
  });
});

describe('files on a machine shared with other users', () => {
  it("makes a session's folders 0700 and its files 0600: uploads, saves, and its journal", async () => {
    const server = await startTestServer();
    try {
      const id = await createSession(server.url);
      const files = `${server.url}/v1/sessions/${id}/files`;
      expect((await streamPost(`${files}?name=in/a`, bodyOf(64 * 1024, 1))).status).toBe(201);
      expect((await streamPost(files, bodyOf(64 * 1024, 2))).status).toBe(201);
      await okCalls(server.url, id, [
        toolCall('create_document', { width: 40, height: 30 }),
        toolCall('save_document_as', { path: 'out/a.psd' }),
        toolCall('save_document_as', { path: 'out/a.png' }),
      ]);
      const root = server.config.workspace;
      const modes: Record<string, string> = {};
      const walk = async (dir: string): Promise<void> => {
        for (const entry of await readdir(dir, { withFileTypes: true })) {
          const abs = path.join(dir, entry.name);
          modes[path.relative(root, abs)] = ((await stat(abs)).mode & 0o777).toString(8);
          if (entry.isDirectory()) await walk(abs);
        }
      };
      await walk(root);
      const session = path.join('sessions', id);
      for (const rel of [
        'sessions',
        session,
        `${session}/in`,
        `${session}/out`,
        'journals',
        `journals/${id}`,
      ]) {
        expect(modes[rel], rel).toBe('700');
      }
      for (const rel of ['in/a.png', 'upload-1.png', 'out/a.psd', 'out/a.png']) {
        expect(modes[`${session}/${rel}`], rel).toBe('600');
      }
      const journal = Object.keys(modes).filter((rel) => rel.startsWith(`journals/${id}/`));
      expect(journal.length).toBeGreaterThan(1);
      for (const rel of journal)
        expect(modes[rel], rel).toBe(rel.endsWith('/files') || rel.endsWith('/buffers') ? '700' : '600');
    } finally {
      await server.close();
    }
  });
});

describe('chat images on a machine shared with other users', () => {
  it('keeps the images a chat turn showed in a 0700 chat-images/ folder as 0600 files, like the transcript', async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'create_document', arguments: { width: 64, height: 32 } }] },
      { toolCalls: [{ id: 'c2', name: 'get_canvas_image', arguments: { max_size: 64 } }] },
      { text: '好了' },
    ]);
    const server = await startTestServer({
      model: modelConfigFrom({}, { ATELIER_MODEL: 'scripted', ATELIER_MODEL_BASE_URL: model.url }),
    });
    try {
      const id = await createSession(server.url);
      const res = await fetch(`${server.url}/v1/sessions/${id}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: '新建文档，看看画布' }),
      });
      expect(await res.text()).toContain('"type":"done"');
      const session = path.join(server.store.sessionsDir, id);
      const kept = path.join(session, 'chat-images');
      const images = await readdir(kept);
      expect(images).toHaveLength(1);
      const mode = async (abs: string) => ((await stat(abs)).mode & 0o777).toString(8);
      expect(await mode(kept)).toBe('700');
      expect(await mode(path.join(kept, images[0]!))).toBe('600');
      expect(await mode(path.join(session, 'chat.jsonl'))).toBe('600');
    } finally {
      await server.close();
      await model.close();
    }
  });
});

describe('the deadline of a request', () => {
  it('leaves the largest upload time to arrive over a slow link, where Node would cut it after 5 minutes', async () => {
    const server = await startTestServer({ uploadLimitBytes: 200 * MB });
    try {
      // 200 MB at 5 Mbit/s takes 5.3 minutes; at 256 kbit/s, 1.8 hours.
      expect(server.http.requestTimeout).toBeGreaterThanOrEqual(((200 * MB) / (32 * 1024)) * 1000);
      // Headers still have their own, shorter deadline.
      expect(server.http.headersTimeout).toBeLessThan(server.http.requestTimeout);
    } finally {
      await server.close();
    }
    const small = await startTestServer({ uploadLimitBytes: MB });
    try {
      expect(small.http.requestTimeout).toBe(300_000);
    } finally {
      await small.close();
    }
  });
});

describe('the upload and memory settings', () => {
  it('reads --max-uploads and --session-memory over their variables, and refuses nonsense', () => {
    expect(configFrom({}, {})).toMatchObject({ maxConcurrentUploads: 4, sessionMemoryBytes: 4096 * MB });
    const env = { ATELIER_MAX_UPLOADS: '7', ATELIER_SESSION_MEMORY_MB: '512' };
    expect(configFrom({}, env)).toMatchObject({ maxConcurrentUploads: 7, sessionMemoryBytes: 512 * MB });
    expect(configFrom({ 'max-uploads': '2', 'session-memory': '64' }, env)).toMatchObject({
      maxConcurrentUploads: 2,
      sessionMemoryBytes: 64 * MB,
    });
    expect(() => configFrom({ 'max-uploads': '0' }, {})).toThrow(ConfigError);
    expect(() => configFrom({}, { ATELIER_SESSION_MEMORY_MB: 'lots' })).toThrow(
      /ATELIER_SESSION_MEMORY_MB 的值“lots”无效/,
    );
  });

  it('reads ATELIER_MEMORY_MB, the pixel memory of all sessions, by default half the machine’s', () => {
    const half = Math.floor(totalmem() / 2 / MB);
    // A container's limit, when there is one, may make it less.
    expect(configFrom({}, {}).memoryBytes).toBeLessThanOrEqual(half * MB);
    expect(configFrom({}, {}).memoryBytes).toBeGreaterThan(0);
    expect(configFrom({}, { ATELIER_MEMORY_MB: '6000' })).toMatchObject({ memoryBytes: 6000 * MB });
    expect(() => configFrom({}, { ATELIER_MEMORY_MB: '-1' })).toThrow(
      /环境变量 ATELIER_MEMORY_MB 的值“-1”无效/,
    );
  });
});
