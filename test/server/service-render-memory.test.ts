/**
 * Renders count in the server's pixel memory (`ATELIER_MEMORY_MB`), over real HTTP: the encoded image of a
 * render is held outside the session's pixels until the client has it (at 100 % zoom on a large document,
 * hundreds of MB), so one the pool has no room for is answered 503 `busy` with `Retry-After` before it is
 * made, a smaller one still works, and what a render took is given back once it is sent.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderBytes } from '../../src/server/routes/files.js';
import {
  createSession,
  okCalls,
  openNoiseDocument,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

const MB = 1024 * 1024;
const SIDE = 2000;

describe('renders within the pixel memory', () => {
  let server: TestServer;
  let id: string;
  const render = (max: number) =>
    fetch(`${server.url}/v1/sessions/${id}/documents/${encodeURIComponent('大图')}/render.png?max=${max}`);

  beforeAll(async () => {
    // The document's composite (15 MB) fits in the pool, and so does a fitted render beside it (8 MB); its
    // full-size render (its encoding and the copy handed over, 30.5 MB) does not.
    server = await startTestServer({ sessionMemoryBytes: 256 * MB, memoryBytes: 40 * MB });
    id = await createSession(server.url);
    await okCalls(server.url, id, [toolCall('create_document', { width: SIDE, height: SIDE, name: '大图' })]);
  });
  afterAll(() => server.close());

  it('makes a fitted render, and refuses before making it a full-size one the pool has no room for', async () => {
    const fitted = await render(1024);
    expect(fitted.status).toBe(200);
    const png = Buffer.from(await fitted.arrayBuffer());
    expect(fitted.headers.get('content-length')).toBe(String(png.byteLength));
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1024, height: 1024 });

    expect(renderBytes(SIDE, SIDE, SIDE)).toBe(2 * SIDE * SIDE * 4);
    const full = await render(SIDE);
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('30');
    const { error } = (await full.json()) as { error: Record<string, unknown> };
    expect(error).toMatchObject({
      code: 'busy',
      message: expect.stringContaining('调低 max'),
      needed_bytes: renderBytes(SIDE, SIDE, SIDE),
      limit_bytes: 40 * MB,
    });
  });
});

describe('what a render took', () => {
  it('is given back once the render is sent, or its client has gone away', async () => {
    // A document of noise: its full-size PNG hardly compresses (some 7 MB), and each render takes 15 MB of the
    // 100 MB pool while it is made. Kept after they are sent, a dozen renders would fill it.
    const server = await startTestServer({ sessionMemoryBytes: 256 * MB, memoryBytes: 100 * MB });
    try {
      const id = await createSession(server.url);
      await openNoiseDocument(server.url, id, 1400);
      const url = `${server.url}/v1/sessions/${id}/documents/noise/render.png?max=1400`;
      for (let i = 0; i < 16; i++) {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(4 * MB);
      }
      // Clients that go away before reading their renders give them back too.
      for (let i = 0; i < 16; i++) {
        const abort = new AbortController();
        const gone = await fetch(url, { signal: abort.signal });
        expect(gone.status).toBe(200);
        abort.abort();
      }
      await expect
        .poll(async () => {
          const res = await fetch(url);
          await res.arrayBuffer();
          return res.status;
        })
        .toBe(200);
    } finally {
      await server.close();
    }
  });
});
