/**
 * The result images the server keeps for its sessions (the studio's and the model's `/images/<n>.png` links) are
 * bounded all together, not only per session, and counted in the pixel memory pool (`ATELIER_MEMORY_MB`): many
 * sessions' images cannot take the process past its memory.
 */
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { IMAGE_SHARE_OF_POOL, SessionStore } from '../../src/service/sessions.js';
import type { ImageOut } from '../../src/tools/types.js';
import { tempDir } from '../support/session.js';

const MB = 1024 * 1024;
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) {
    s.closeAll();
    await s.settled();
  }
});

function store(memoryPoolBytes: number): SessionStore {
  const s = new SessionStore({
    root: tempDir('atelier-images-'),
    idleTimeoutMs: 3600_000,
    maxSessions: 20,
    memoryPoolBytes,
    isolation: 'inline',
    log: () => {},
  });
  stores.push(s);
  return s;
}

/** A PNG of noise, which does not compress: about 1 MB. */
async function noisePng(): Promise<ImageOut> {
  const side = 512;
  const png = await sharp(randomBytes(side * side * 4), { raw: { width: side, height: side, channels: 4 } })
    .png()
    .toBuffer();
  return { mime: 'image/png', base64: png.toString('base64') };
}

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });

describe('result images kept for the sessions', () => {
  it('take at most an eighth of the pool together, the oldest of any session dropped first', async () => {
    const s = store(40 * MB);
    const cap = (40 * MB) / IMAGE_SHARE_OF_POOL;
    const image = await noisePng();
    const bytes = Buffer.from(image.base64, 'base64').byteLength;
    expect(bytes).toBeGreaterThan(MB);
    const sessions = [s.create('http'), s.create('http'), s.create('http')];
    // Each session well inside its own limits (64 images, 64 MB); together twice the budget.
    const files = sessions.map((entry) => [1, 2, 3, 4].map(() => entry.images.add(image)));
    expect(12 * bytes).toBeGreaterThan(2 * cap);

    expect(s.images.bytes).toBeLessThanOrEqual(cap);
    expect(sessions.reduce((sum, e) => sum + e.images.bytes, 0)).toBe(s.images.bytes);
    // The newest are kept, the first session's (the oldest) are gone.
    expect(sessions[2]!.images.get(files[2]![3]!)).toBeDefined();
    expect(files[0]!.map((f) => sessions[0]!.images.get(f))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('count in the pixel memory pool: a document that fits beside none is refused beside them, until their session closes', async () => {
    const image = await noisePng();
    // 2300 × 2100, a layer and its composite: 38.6 MB of a 41.9 MB pool.
    const big = call('create_document', { width: 2300, height: 2100, name: '大' });

    const empty = store(40 * MB);
    expect(await empty.create('http').session.call(big)).toMatchObject({ ok: true });

    const s = store(40 * MB);
    const viewer = s.create('http');
    for (let i = 0; i < 4; i++) viewer.images.add(image);
    expect(s.images.bytes).toBeGreaterThan(2 * MB);
    const designer = s.create('http');
    expect(await designer.session.call(big)).toMatchObject({ ok: false, error: { code: 'out_of_bounds' } });

    // Its images go with the session that showed them.
    s.delete(viewer.id);
    expect(s.images.bytes).toBe(0);
    expect(await designer.session.call(big)).toMatchObject({ ok: true });
  });
});
