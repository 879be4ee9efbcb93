/**
 * A file named `.psb` is a Large Document Format file (version 2) whatever its size: Photoshop opens a `.psb`
 * only as PSB. Saved through the real Session (save_document_as, then save_document on the opened file), read
 * back by psd-tools and by the session.
 */
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodePsd, encodePsd, PSD_MAX_BYTES, writePsdFile } from '../../../src/engine/io/psd.js';
import { psdToolsAvailable, readWithPsdTools } from '../../support/psd-tools.js';
import { newSession, ok, tempDir } from '../../support/session.js';
import { DocBuilder, ramp, testComposite } from './psd-fixtures.js';

describe.skipIf(!psdToolsAvailable())('a .psb file name', () => {
  it('writes version 2 for a small document, which psd-tools reads, and keeps it when saved again', async () => {
    const s = newSession();
    await ok(s, 'create_document', { name: '小图', width: 40, height: 30 });
    await ok(s, 'create_layer', { name: '色块' });
    await ok(s, 'fill_selection', { color: '#c83228' });
    await ok(s, 'save_document_as', { path: 'out/small.psb' });
    const file = await readFile(path.join(s.workspace.root, 'out/small.psb'));
    expect(file.readUInt16BE(4)).toBe(2);
    const { dump, composite } = await readWithPsdTools(file, { composite: true });
    expect(dump.version).toBe(2);
    expect([dump.width, dump.height]).toEqual([40, 30]);
    expect(dump.layers.map((l) => l.name)).toContain('色块');
    expect([...composite!.data.subarray(0, 4)]).toEqual([200, 50, 40, 255]);

    // Opened again and saved with save_document: still a PSB; a .psd name stays version 1.
    const t = newSession(s.workspace.root);
    await ok(t, 'open_document', { path: 'out/small.psb' });
    await ok(t, 'create_layer', { name: '再存' });
    await ok(t, 'save_document');
    const again = await readFile(path.join(s.workspace.root, 'out/small.psb'));
    expect(again.readUInt16BE(4)).toBe(2);
    expect((await readWithPsdTools(again)).dump.layers.map((l) => l.name)).toContain('再存');
    await ok(t, 'save_document_as', { path: 'out/small.psd' });
    expect((await readFile(path.join(s.workspace.root, 'out/small.psd'))).readUInt16BE(4)).toBe(1);
  });

  it('encodePsd writes PSB on request, which decodePsd and psd-tools read back', async () => {
    const b = new DocBuilder();
    const state = b.state([b.pixel('条', ramp(3, 4, 20, 10, { r: 5, g: 90, b: 200 }, 255))]);
    const { buffer } = await encodePsd(state, testComposite(), { psb: true });
    expect(buffer.readUInt16BE(4)).toBe(2);
    expect((await readWithPsdTools(buffer)).dump.layers[0]?.bbox).toEqual([3, 4, 23, 14]);
    const back = await decodePsd(buffer);
    const layer = [...back.state.layers.values()][0]!;
    expect(layer.kind === 'pixel' && [...layer.raster.data.subarray(0, 4)]).toEqual([5, 90, 200, 255]);
  });

  it("a file past PSD's 2 GB is written as PSB instead, with a warning (the limit lowered to test it)", async () => {
    const b = new DocBuilder();
    const state = b.state([
      b.pixel('底', ramp(0, 0, 120, 90, { r: 250, g: 240, b: 230 }, 255)),
      b.pixel('条', ramp(3, 4, 60, 40, { r: 5, g: 90, b: 200 }, 200)),
    ]);
    expect(PSD_MAX_BYTES).toBe(2 ** 31 - 1);
    const psd = await encodePsd(state, testComposite());
    expect(psd.buffer.readUInt16BE(4)).toBe(1);
    expect(psd.warnings).toEqual([]);
    const limit = psd.buffer.length - 1;

    const big = await encodePsd(state, testComposite(), { maxPsdBytes: limit });
    expect(big.buffer.readUInt16BE(4)).toBe(2);
    expect(big.warnings.join('\n')).toMatch(/超过.*PSD 格式的上限.*PSB/);
    const { dump } = await readWithPsdTools(big.buffer);
    expect(dump.version).toBe(2);
    expect(dump.layers.map((l) => l.name)).toEqual(['底', '条']);
    const back = await decodePsd(big.buffer);
    expect([...back.state.layers.values()].map((l) => l.name)).toEqual(['底', '条']);

    // Streamed to a file: the PSB is written over the PSD begun first, and the file ends where it does.
    const file = path.join(tempDir('atelier-psb-limit-'), 'big.psd');
    const fd = await open(file, 'w+');
    try {
      const warnings = await writePsdFile(fd.fd, state, testComposite(), { maxPsdBytes: limit });
      expect(warnings).toEqual(big.warnings);
    } finally {
      await fd.close();
    }
    const written = await readFile(file);
    expect(written.readUInt16BE(4)).toBe(2);
    expect(written.length).toBe(big.buffer.length);
    expect((await readWithPsdTools(written)).dump.layers.map((l) => l.name)).toEqual(['底', '条']);
  });

  it('a .psd past 30,000 px a side is written as PSB, and the result and a warning say so', async () => {
    const s = newSession();
    await ok(s, 'create_document', { name: '长条', width: 30_001, height: 8 });
    const wide = await ok(s, 'save_document_as', { path: 'wide.psd' });
    expect(wide).toMatchObject({ format: 'psd', psb: true });
    expect((wide.warnings as string[]).join('\n')).toMatch(
      /30001×8 超过 PSD 每边 30,000 像素的上限，已按 PSB/,
    );
    expect((await readFile(path.join(s.workspace.root, 'wide.psd'))).readUInt16BE(4)).toBe(2);
    // Named .psb, the large format is what was asked: no warning. A small .psd is a plain PSD.
    const named = await ok(s, 'save_document_as', { path: 'wide.psb' });
    expect(named).toMatchObject({ psb: true });
    expect(named.warnings).toBeUndefined();
    await ok(s, 'create_document', { name: '小', width: 20, height: 8 });
    const small = await ok(s, 'save_document_as', { path: 'small.psd' });
    expect(small.psb).toBeUndefined();
  });
});
