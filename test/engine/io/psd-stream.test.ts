/**
 * The streaming PSD writer's parts: packing a channel straight from interleaved pixels, the sinks' patches
 * (also across a flush), and whole files written to memory and to a file handle, read back by ag-psd.
 */
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packedRowLimit, packRow, packStrided } from '../../../src/engine/io/packbits.js';
import { decodePsd, encodePsd, writePsdFile } from '../../../src/engine/io/psd.js';
import { FileSink, fdWriter, MemorySink, type PsdSink } from '../../../src/engine/io/psd-sink.js';
import { partlyTransparentRows } from '../../../src/engine/io/psd-stream.js';
import type { Raster } from '../../../src/engine/model.js';
import { rng } from '../../support/rng.js';
import { doc, maskOf, pixel, rasterOf } from '../composite/support.js';
import { buildRichDoc, testComposite } from './psd-fixtures.js';

describe('packStrided', () => {
  it('packs one channel of interleaved samples exactly as packRow packs it copied out', () => {
    const rnd = rng(7);
    for (const w of [1, 2, 3, 127, 128, 129, 130, 257, 1000]) {
      for (const stride of [1, 4, 5]) {
        // Runs of every length around the packet limits, literals and noise.
        const src = new Uint8Array(w * stride + 3);
        let i = 0;
        while (i < w) {
          const len = 1 + Math.floor(rnd() * (rnd() < 0.5 ? 4 : 300));
          const v = Math.floor(rnd() * 3);
          for (let k = 0; k < len && i < w; k++, i++)
            src[i * stride + 1] = rnd() < 0.2 ? Math.floor(rnd() * 256) : v;
        }
        const row = new Uint8Array(w);
        for (let x = 0; x < w; x++) row[x] = src[x * stride + 1]!;
        const a = new Uint8Array(packedRowLimit(w));
        const b = new Uint8Array(packedRowLimit(w));
        const n = packRow(row, w, a, 0);
        expect(packStrided(src, 1, stride, w, b, 0), `w ${w} stride ${stride}`).toBe(n);
        expect(b.subarray(0, n)).toEqual(a.subarray(0, n));
      }
    }
  });
});

describe('PSD sinks', () => {
  /** 9 MiB appended in odd pieces, with patches inside the buffer and behind a flush. */
  async function exercise(sink: PsdSink): Promise<Uint8Array> {
    const expected = new Uint8Array(9 << 20);
    for (let i = 0; i < expected.length; i++) expected[i] = (i * 31) & 255;
    let at = 0;
    for (const n of [10, 3 << 20, 5 << 20, 1, (1 << 20) - 11]) {
      if (n > 1 << 20) {
        const view = await sink.space(n);
        view.set(expected.subarray(at, at + n));
        sink.commit(n);
      } else {
        await sink.append(expected.subarray(at, at + n));
      }
      at += n;
    }
    expect(sink.position).toBe(expected.length);
    for (const p of [2, (4 << 20) - 2, (9 << 20) - 5]) {
      const bytes = Uint8Array.from([1, 2, 3, 4]);
      expected.set(bytes, p);
      await sink.patch(p, bytes);
    }
    await expect(sink.patch(expected.length - 1, new Uint8Array(2))).rejects.toThrow(RangeError);
    return expected;
  }

  it('a memory sink gives the bytes appended, patched', async () => {
    const sink = new MemorySink();
    const expected = await exercise(sink);
    expect(Buffer.compare(await sink.finish(), Buffer.from(expected))).toBe(0);
  });

  it('a file sink writes the bytes appended, patched', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'atelier-sink-'));
    try {
      const file = path.join(dir, 'out.bin');
      const handle = await open(file, 'w');
      const sink = new FileSink(fdWriter(handle.fd));
      const expected = await exercise(sink);
      await sink.finish();
      await handle.close();
      expect(Buffer.compare(await readFile(file), Buffer.from(expected))).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('streamed PSD files', () => {
  it('are the same bytes in memory and in a file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'atelier-stream-'));
    try {
      // Smart objects get a fresh file id each time they are written: made plain pixel layers here.
      const rich = buildRichDoc();
      const layers = new Map(
        [...rich.layers].map(([id, l]) => [
          id,
          l.kind === 'smart' ? pixel(id, l.raster, { name: l.name }) : l,
        ]),
      );
      const state = { ...rich, layers };
      const composite = testComposite(state.width, state.height);
      const { buffer, warnings } = await encodePsd(state, composite);
      const file = path.join(dir, 'rich.psd');
      const handle = await open(file, 'w');
      const fileWarnings = await writePsdFile(handle.fd, state, composite);
      await handle.close();
      expect(fileWarnings).toEqual(warnings);
      expect(Buffer.compare(await readFile(file), buffer)).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keep every pixel of layers, masks and composite larger than the sink buffer', async () => {
    // Noise does not compress: 1100 × 1100 layers make a file of several sink buffers.
    const rnd = rng(3);
    const noise = (x0: number): Raster =>
      rasterOf({ x: x0, y: 5, w: 1100, h: 1100 }, () => [
        Math.floor(rnd() * 256),
        Math.floor(rnd() * 256),
        Math.floor(rnd() * 256),
        Math.floor(rnd() * 256),
      ]);
    const mask = maskOf({ x: 20, y: 0, w: 1000, h: 1000 }, () => Math.floor(rnd() * 256));
    const state = doc(1200, 1200, [pixel(1, noise(0)), pixel(2, noise(50), { mask })], [1, 2]);
    const composite = rasterOf({ x: 0, y: 0, w: 1200, h: 1200 }, (x, y) => [
      x & 255,
      y & 255,
      (x ^ y) & 255,
      (x + y) & 255,
    ]);
    const { buffer } = await encodePsd(state, composite);
    expect(buffer.length).toBeGreaterThan(3 * (4 << 20));
    const back = (await decodePsd(buffer)).state;
    for (const id of [1, 2]) {
      const a = state.layers.get(id) as { raster: Raster };
      const b = back.layers.get(id) as { raster: Raster };
      expect([b.raster.x, b.raster.y, b.raster.w, b.raster.h]).toEqual([a.raster.x, a.raster.y, 1100, 1100]);
      expect(Buffer.compare(Buffer.from(b.raster.data), Buffer.from(a.raster.data))).toBe(0);
    }
    const m = back.layers.get(2)!.mask!;
    expect([m.x, m.y, m.w, m.h]).toEqual([20, 0, 1000, 1000]);
    expect(Buffer.compare(Buffer.from(m.data), Buffer.from(mask.data))).toBe(0);
  });

  it('matte only the rows with semi-transparent pixels', () => {
    const r = rasterOf({ x: 0, y: 0, w: 4, h: 3 }, (x, y) => [
      0,
      0,
      0,
      y === 0 ? 255 : y === 1 && x === 2 ? 0 : y === 2 && x === 3 ? 7 : 255,
    ]);
    const { any, rows } = partlyTransparentRows(r);
    expect(any).toBe(true);
    expect([...rows]).toEqual([0, 0, 1]);
    expect(partlyTransparentRows(rasterOf({ x: 0, y: 0, w: 2, h: 2 }, () => [1, 2, 3, 255])).any).toBe(false);
  });
});
