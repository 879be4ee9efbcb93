/**
 * PSD files streamed by the worker thread into a file its caller opened (writePsdFileOffThread): the bytes are
 * those encodePsd gives on the calling thread, a file longer than what is written is cut to it, and the
 * calling thread writes it itself when the worker is off.
 */
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import {
  psdThreadStats,
  setPsdThreadMode,
  stopPsdThread,
  writePsdFileOffThread,
} from '../../../src/engine/io/psd-thread.js';
import type { DocState, Raster } from '../../../src/engine/model.js';
import { allocPixels } from '../../../src/engine/raster.js';
import { rng } from '../../support/rng.js';
import { doc, fill, pixel } from '../composite/support.js';

function noise(r: { x: number; y: number; w: number; h: number }, seed: number): Raster {
  const rand = rng(seed);
  const data = allocPixels(r.w * r.h * 4);
  for (let i = 0; i < data.length; i++) data[i] = rand() * 256;
  return { ...r, data };
}

/** Noise that does not compress: a file of several of the writer's 4 MiB buffers. */
function noisyDoc(): { state: DocState; composite: Raster } {
  const side = 1400;
  const layers = [
    { ...fill(1, { r: 255, g: 255, b: 255 }), background: true },
    pixel(2, noise({ x: 0, y: 0, w: side, h: side }, 1), { name: '噪点', blend: 'multiply' }),
  ];
  return { state: doc(side, side, layers, [1, 2]), composite: noise({ x: 0, y: 0, w: side, h: side }, 2) };
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'atelier-psd-write-'));
});
afterAll(async () => {
  await stopPsdThread();
  if (dir) await rm(dir, { recursive: true, force: true });
});
afterEach(() => setPsdThreadMode('auto'));

async function writeThrough(file: string, state: DocState, composite: Raster): Promise<string[]> {
  const handle = await open(file, 'r+');
  try {
    return await writePsdFileOffThread(handle.fd, state, composite);
  } finally {
    await handle.close();
  }
}

describe('writePsdFileOffThread', () => {
  it('streams from the worker the bytes encodePsd gives, over a longer file', async () => {
    setPsdThreadMode('always');
    const { state, composite } = noisyDoc();
    const expected = (await encodePsd(state, composite)).buffer;
    expect(expected.length).toBeGreaterThan(8 << 20);
    const file = path.join(dir, 'worker.psd');
    // A stale, longer file: what is written must not keep its tail.
    await writeFile(file, Buffer.alloc(expected.length + 12345, 7));
    const before = psdThreadStats().worker;
    expect(await writeThrough(file, state, composite)).toEqual([]);
    expect(psdThreadStats().worker).toBe(before + 1);
    const written = await readFile(file);
    expect(written.length).toBe(expected.length);
    expect(Buffer.compare(written, expected)).toBe(0);
    const back = (await decodePsd(written)).state.layers.get(2) as { raster: Raster };
    const layer = state.layers.get(2) as { raster: Raster };
    expect(Buffer.compare(Buffer.from(back.raster.data), Buffer.from(layer.raster.data))).toBe(0);
  }, 60_000);

  it('writes on the calling thread when the worker is off', async () => {
    setPsdThreadMode('off');
    const { state, composite } = noisyDoc();
    const file = path.join(dir, 'here.psd');
    await writeFile(file, '');
    const before = psdThreadStats().here;
    await writeThrough(file, state, composite);
    expect(psdThreadStats().here).toBe(before + 1);
    expect(Buffer.compare(await readFile(file), (await encodePsd(state, composite)).buffer)).toBe(0);
  }, 60_000);
});
