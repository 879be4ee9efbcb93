/**
 * Damaged layer pixel data: a file whose bytes are flipped inside a layer's RLE channel data is refused with an
 * error naming the layer and channel (psd-tools refuses the same files: "Invalid RLE compression"), instead of
 * opening with garbage pixels and no word, as ag-psd's decoder gave. Also: RLE channels of 16-bit files, which
 * ag-psd unpacks one byte per sample (a 16-bit red read as 1), are read as ImageMagick reads them.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { convertStateToCmyk } from '../../../src/engine/color-mode.js';
import { EditorError } from '../../../src/engine/errors.js';
import { checkPackedRows, packChannel } from '../../../src/engine/io/packbits.js';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import { CONVERT, imageMagickAvailable, pixelsOf } from '../../support/imagemagick.js';
import { psdToolsAvailable, SYSTEM_PYTHON } from '../../support/psd-tools.js';
import { newSession, ok, refused } from '../../support/session.js';
import { withTempFiles } from '../press-profile-support.js';
import { DocBuilder, gradientMask, ramp, testComposite } from './psd-fixtures.js';

const run = promisify(execFile);

interface ChannelRange {
  layer: string;
  id: number;
  /** Offset of the channel's compression word. */
  start: number;
  length: number;
}

/** Where each layer's channel data lies in a PSD (version 1, layers in the layer info section). */
function channelRanges(buf: Buffer): ChannelRange[] {
  let at = 26;
  at += 4 + buf.readUInt32BE(at); // colour mode data
  at += 4 + buf.readUInt32BE(at); // image resources
  at += 8; // layer and mask information length, layer info length
  const count = Math.abs(buf.readInt16BE(at));
  at += 2;
  const records: { name: string; channels: { id: number; length: number }[] }[] = [];
  for (let i = 0; i < count; i++) {
    at += 16; // rectangle
    const channels = Array.from({ length: buf.readUInt16BE(at) }, (_, c) => ({
      id: buf.readInt16BE(at + 2 + c * 6),
      length: buf.readUInt32BE(at + 4 + c * 6),
    }));
    at += 2 + channels.length * 6 + 12; // channels, signature, blend key, opacity, clipping, flags, filler
    const extraEnd = at + 4 + buf.readUInt32BE(at);
    let p = at + 4;
    p += 4 + buf.readUInt32BE(p); // mask data
    p += 4 + buf.readUInt32BE(p); // blending ranges
    records.push({ name: buf.subarray(p + 1, p + 1 + buf[p]!).toString('latin1'), channels });
    at = extraEnd;
  }
  const out: ChannelRange[] = [];
  for (const r of records) {
    for (const c of r.channels) {
      out.push({ layer: r.name, id: c.id, start: at, length: c.length });
      at += c.length;
    }
  }
  return out;
}

function docWithLayers() {
  const b = new DocBuilder();
  return b.state([
    b.pixel('base', ramp(0, 0, 40, 30, { r: 250, g: 250, b: 250 }, 255)),
    b.pixel('ramp', ramp(3, 4, 40, 30, { r: 5, g: 90, b: 200 }, 200), {
      mask: gradientMask(3, 4, 40, 30, 0),
    }),
  ]);
}

/** `buf` with `edit` applied to a copy of the channel `id` of `layer` (offsets from its compression word). */
function damaged(buf: Buffer, layer: string, id: number, edit: (b: Buffer, at: number) => void): Buffer {
  const r = channelRanges(buf).find((c) => c.layer === layer && c.id === id);
  if (!r) throw new Error(`no channel ${id} in ${layer}`);
  const out = Buffer.from(buf);
  edit(out, r.start);
  return out;
}

async function refusal(file: Buffer): Promise<EditorError> {
  const err = await decodePsd(Buffer.from(file)).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(EditorError);
  return err as EditorError;
}

async function psdToolsError(file: Buffer, layer: string): Promise<string> {
  return withTempFiles({ 'in.psd': file }, async (f) => {
    const script = [
      'import sys',
      'from psd_tools import PSDImage',
      'psd = PSDImage.open(sys.argv[1])',
      'layer = [l for l in psd.descendants() if l.name == sys.argv[2]][0]',
      'try:',
      '    layer.topil()',
      "    print('ok')",
      'except Exception as e:',
      '    print(repr(e))',
    ].join('\n');
    const { stdout } = await run(SYSTEM_PYTHON, ['-c', script, f['in.psd']!, layer], { encoding: 'utf8' });
    return stdout.trim();
  });
}

function flip(b: Buffer, at: number, bits: number): void {
  b[at] = b[at]! ^ bits;
}

const ROW_COUNTS = 2; // the row counts start after the compression word

describe('damaged layer pixel data', () => {
  it('is refused with the layer and channel named when a row count is flipped', async () => {
    const { buffer } = await encodePsd(docWithLayers(), testComposite());
    await decodePsd(Buffer.from(buffer)); // the undamaged file opens
    const file = damaged(buffer, 'ramp', 1, (b, at) => {
      flip(b, at + ROW_COUNTS + 10, 0xff); // row 6's count, high byte
    });
    const err = await refusal(file);
    expect(err.code).toBe('io_error');
    expect(err.message).toMatch(/已损坏.*图层“ramp”的绿通道/);
    if (psdToolsAvailable()) expect(await psdToolsError(file, 'ramp')).toMatch(/Invalid RLE/);
  });

  it('is refused when packet headers inside the rows are flipped', async () => {
    const { buffer } = await encodePsd(docWithLayers(), testComposite());
    const h = 30;
    const file = damaged(buffer, 'ramp', 0, (b, at) => {
      // The first packet header of rows 10 and 20: a literal run becomes a repeat, or the reverse.
      let row = at + ROW_COUNTS + h * 2;
      for (let y = 0; y < h; y++) {
        if (y === 10 || y === 20) flip(b, row, 0x80);
        row += b.readUInt16BE(at + ROW_COUNTS + y * 2);
      }
    });
    const err = await refusal(file);
    expect(err.message).toMatch(/图层“ramp”的红通道第 \d+ 行的压缩数据无效/);
    if (psdToolsAvailable()) expect(await psdToolsError(file, 'ramp')).toMatch(/Invalid RLE/);
  });

  it('is refused with the layer and channel named when a compression code is not 0–3', async () => {
    const { buffer } = await encodePsd(docWithLayers(), testComposite());
    const file = damaged(buffer, 'ramp', 1, (b, at) => {
      b.writeUInt16BE(0x0707, at);
    });
    const err = await refusal(file);
    expect(err.code).toBe('io_error');
    expect(err.message).toMatch(/已损坏.*图层“ramp”的绿通道的压缩方式 1799 无效/);
    // psd-tools refuses the file as it opens it.
    if (psdToolsAvailable()) {
      const opened = await psdToolsError(file, 'ramp').catch((e: { stderr?: string }) => e.stderr ?? '');
      expect(opened).toMatch(/1799 is not a valid Compression/);
    }
  });

  it('is refused when ag-psd would read a damaged compression word one byte later, shifting the channel', async () => {
    // Noise packs to more than its raw size, so the RLE channel read as raw from the wrong place is long enough.
    const w = 40;
    const h = 30;
    const data = new Uint8ClampedArray(w * h * 4);
    let seed = 12345;
    for (let i = 0; i < data.length; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      data[i] = (i & 3) === 3 ? 255 : seed >>> 24;
    }
    const b = new DocBuilder();
    const doc = b.state([b.pixel('noise', { x: 0, y: 0, w, h, data })]);
    const { buffer } = await encodePsd(doc, testComposite());
    const green = channelRanges(buffer).find((c) => c.layer === 'noise' && c.id === 1)!;
    expect(green.length - 2).toBeGreaterThan(w * h);
    // 0x0001 (RLE) damaged to 0x0900: ag-psd took the 0x0000 one byte on (its row count's high byte) as raw.
    const file = damaged(buffer, 'noise', 1, (b, at) => {
      b.writeUInt16BE(0x0900, at);
    });
    const err = await refusal(file);
    expect(err.code).toBe('io_error');
    expect(err.message).toMatch(/已损坏.*图层“noise”的绿通道的压缩方式 2304 无效/);
    if (psdToolsAvailable()) {
      const opened = await psdToolsError(file, 'noise').catch((e: { stderr?: string }) => e.stderr ?? '');
      expect(opened).toMatch(/2304 is not a valid Compression/);
    }
    // open_document refuses it, leaving the editor as it was (refused compares its state).
    const s = newSession();
    await ok(s, 'create_document', { width: 20, height: 10 });
    await writeFile(path.join(s.workspace.root, 'shifted.psd'), file);
    const error = await refused(s, 'open_document', { path: 'shifted.psd' }, 'io_error');
    expect(error.message).toMatch(/图层“noise”的绿通道的压缩方式 2304 无效/);
  });

  it('names the mask, and the ink of a CMYK file', async () => {
    const { buffer } = await encodePsd(docWithLayers(), testComposite());
    const mask = damaged(buffer, 'ramp', -2, (b, at) => {
      flip(b, at + ROW_COUNTS + 1, 0x40);
    });
    expect((await refusal(mask)).message).toMatch(/图层“ramp”的图层蒙版通道/);

    const cmyk = (await encodePsd(await convertStateToCmyk(docWithLayers()), testComposite())).buffer;
    const ink = damaged(cmyk, 'ramp', 1, (b, at) => {
      flip(b, at + ROW_COUNTS + 20, 0xff);
    });
    expect((await refusal(ink)).message).toMatch(/图层“ramp”的洋红通道/);
  }, 60_000);

  it('is refused by open_document, which leaves the editor unchanged', async () => {
    const { buffer } = await encodePsd(docWithLayers(), testComposite());
    const s = newSession();
    await ok(s, 'create_document', { width: 20, height: 10 });
    const file = damaged(buffer, 'ramp', 2, (b, at) => {
      flip(b, at + ROW_COUNTS + 4, 0xff);
    });
    await writeFile(path.join(s.workspace.root, 'bad.psd'), file);
    const error = await refused(s, 'open_document', { path: 'bad.psd' }, 'io_error');
    expect(error.message).toMatch(/图层“ramp”的蓝通道/);
  });

  it('names the merged image of a flattened file whose pixels are cut short, in one plain sentence', async () => {
    // Header (RGB, 8 bits, 100 × 100), empty colour mode, resource and layer sections, raw merged image of 3 bytes.
    const header = Buffer.alloc(26);
    header.write('8BPS', 0);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(3, 12);
    header.writeUInt32BE(100, 14);
    header.writeUInt32BE(100, 18);
    header.writeUInt16BE(8, 22);
    header.writeUInt16BE(3, 24);
    const file = Buffer.concat([header, Buffer.alloc(12), Buffer.from([0, 0, 1, 2, 3])]);
    const err = await refusal(file);
    expect(err.message).toMatch(/^PSD 文件已损坏：合并图像数据不完整（应有 30000 字节，只有 \d+ 字节）$/);
  });

  it('checkPackedRows accepts every row PackBits gives and refuses rows of the wrong size', () => {
    const w = 300;
    const h = 7;
    const src = new Uint8Array(w * h);
    for (let i = 0; i < src.length; i++) src[i] = i % 17 < 9 ? 42 : (i * 31) & 255;
    for (const large of [false, true]) {
      const packed = packChannel(src, w, h, 1, 0);
      const size = large ? 4 : 2;
      const bytes = new Uint8Array(h * size + packed.data.length);
      const view = new DataView(bytes.buffer);
      packed.rowBytes.forEach((n, y) => {
        if (large) view.setUint32(y * 4, n);
        else view.setUint16(y * 2, n);
      });
      bytes.set(packed.data, h * size);
      const out = new Uint8Array(w * h);
      expect(checkPackedRows(bytes, h, w, large, out)).toBeUndefined();
      expect(Buffer.from(out).equals(Buffer.from(src))).toBe(true);
      expect(checkPackedRows(bytes, h, w + 1, large)).toMatch(/第 1 行/);
      expect(checkPackedRows(bytes.subarray(0, bytes.length - 1), h, w, large)).toMatch(/不完整/);
    }
  });
});

describe.skipIf(!imageMagickAvailable())('16-bit RLE channels', () => {
  /** A 16-bit RGB PSD written by ImageMagick with RLE channels: one layer, a vertical red → blue gradient. */
  async function sixteenBit(): Promise<Buffer> {
    const args = ['-size', '64x8', 'gradient:red-blue', '-depth', '16', '-compress', 'RLE', 'psd:-'];
    const { stdout } = await run(CONVERT, args, { encoding: 'buffer', maxBuffer: 1 << 24 });
    return stdout;
  }

  it('are read as ImageMagick reads them, in a layer and in a flattened file', async () => {
    const file = await sixteenBit();
    expect(file.readUInt16BE(22)).toBe(16);
    const reference = await pixelsOf(file, 'psd');
    const { state } = await decodePsd(Buffer.from(file));
    const layer = [...state.layers.values()][0]!;
    if (!('raster' in layer)) throw new Error(layer.kind);
    expect(layer.raster.data[0]).toBe(255); // red, not 1
    let worst = 0;
    for (let i = 0; i < reference.data.length; i++) {
      worst = Math.max(worst, Math.abs(reference.data[i]! - layer.raster.data[i]!));
    }
    expect(worst).toBeLessThanOrEqual(1);

    // The same pixels as a flattened file: its layer section emptied, the merged image (RLE) kept.
    let at = 26;
    at += 4 + file.readUInt32BE(at);
    at += 4 + file.readUInt32BE(at);
    const merged = file.subarray(at + 4 + file.readUInt32BE(at));
    expect(merged.readUInt16BE(0)).toBe(1); // RLE
    const flat = Buffer.concat([file.subarray(0, at), Buffer.alloc(4), merged]);
    const back = [...(await decodePsd(flat)).state.layers.values()][0]!;
    if (!('raster' in back)) throw new Error(back.kind);
    worst = 0;
    for (let i = 0; i < reference.data.length; i++) {
      worst = Math.max(worst, Math.abs(reference.data[i]! - back.raster.data[i]!));
    }
    expect(worst).toBeLessThanOrEqual(1);
  });
});
