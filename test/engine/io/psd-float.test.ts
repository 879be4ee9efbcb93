/**
 * 32 bits/channel PSDs hold linear light: Photoshop keeps 32-bit documents in a linear profile and converts 8- and
 * 16-bit pixels to it when it makes one (a mid grey 128 becomes about 0.216). Read as if gamma-encoded, they came
 * out dark (0.214 → 55 instead of 127). They are opened as 8-bit sRGB, with a warning.
 *
 * No tool at hand writes 32-bit PSDs (ImageMagick 6 writes at most 16 bits, GIMP 2.10 8), so the files are built
 * here as Photoshop lays them out: layers in the `Lr32` block, their channels ZIP-compressed with prediction,
 * the merged image raw big-endian floats. ImageMagick is the reference: it reads the floats as they are (as
 * psd-tools does), and `-set colorspace RGB -colorspace sRGB` states that they are linear and encodes them with
 * its own sRGB curve. Ours must agree within 1/255 (colour and alpha, which is coverage and not encoded).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import type { Layer as AgLayer, Color } from 'ag-psd';
import { infoHandlersMap } from 'ag-psd/dist/additionalInfo.js';
import { createWriter, getWriterBuffer, writeSection, writeSignature } from 'ag-psd/dist/psdWriter.js';
import { describe, expect, it } from 'vitest';
import { decodePsd, encodePsd } from '../../../src/engine/io/psd.js';
import type { Layer, RGB } from '../../../src/engine/model.js';
import { CONVERT, imageMagickAvailable } from '../../support/imagemagick.js';
import { psdToolsAvailable, readWithPsdTools } from '../../support/psd-tools.js';
import { withTempFiles } from '../press-profile-support.js';
import { colorants, lutProfile } from './lut-profile.js';
import { testComposite } from './psd-fixtures.js';

const run = promisify(execFile);

const W = 64;
const H = 6;

/** Linear-light R, G, B and alpha of pixel (x, y): ramps, the 0.214 of sRGB's mid grey, HDR values above 1. */
function sample(x: number, y: number): [number, number, number, number] {
  return [x / (W - 1), y < 3 ? 0.214 : 0.5, x > 60 ? 1.5 : y / 10, x < 48 ? 1 : 0.25 + (x - 48) / 32];
}

class Bytes {
  private readonly parts: Buffer[] = [];
  u8(v: number): this {
    return this.push(Buffer.from([v]));
  }
  u16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    return this.push(b);
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v);
    return this.push(b);
  }
  i32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return this.push(b);
  }
  str(s: string): this {
    return this.push(Buffer.from(s, 'latin1'));
  }
  push(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** One channel's floats (big-endian), ZIP-compressed with prediction as Photoshop stores 32-bit layer channels. */
function zipPredicted(values: Float32Array, w: number, h: number): Buffer {
  const be = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) be.writeFloatBE(values[i]!, i * 4);
  // Each row's bytes are regrouped by significance (all first bytes, then all second, …), then delta-coded.
  const out = Buffer.alloc(be.length);
  for (let y = 0; y < h; y++) {
    const row = y * w * 4;
    for (let x = 0; x < w; x++) for (let b = 0; b < 4; b++) out[row + b * w + x] = be[row + x * 4 + b]!;
    for (let i = w * 4 - 1; i > 0; i--) out[row + i] = (out[row + i]! - out[row + i - 1]! + 256) & 255;
  }
  return deflateSync(out);
}

/** A channel of the layer, ZIP-compressed with prediction; `damaged`: with bytes flipped in its stream. */
function zipped(values: Float32Array, damaged: boolean): Buffer {
  const z = zipPredicted(values, W, H);
  if (damaged) for (let i = 10; i < 20; i++) z[i] = z[i]! ^ 0x5a;
  return z;
}

function samplePlane(channel: number): Float32Array {
  const p = new Float32Array(W * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) p[y * W + x] = sample(x, y)[channel]!;
  return p;
}

function u16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v);
  return b;
}

/** One channel's floats as raw big-endian samples. */
function raw(values: Float32Array): Buffer {
  const b = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) b.writeFloatBE(values[i]!, i * 4);
  return b;
}

/**
 * A 32-bit RGB PSD: the merged image and one layer, its channels raw or ZIP-compressed with prediction (which
 * ImageMagick 6 cannot read: "CompressionNotSupported ZipWithPrediction(32 bit)"), or no layer.
 */
interface FloatOptions {
  /** Bytes flipped in the ZIP stream of the green channel. */
  readonly damaged?: boolean;
  /** The compression word of the layer's transparency channel (0: raw). */
  readonly alphaCode?: number;
  /** An ICC profile to embed (image resource 1039). */
  readonly icc?: Buffer;
  /** A grayscale file, its gray channel the red ramp. */
  readonly gray?: boolean;
  /** Every pixel of the layer and merged image this linear colour (R, G, B; gray: R), opaque. */
  readonly colour?: readonly [number, number, number];
  /** Tagged blocks (a fill's SoCo, effects' lfx2, text's TySh) for the layer's extra data. */
  readonly blocks?: Buffer;
}

function floatPsd(layer: 'raw' | 'zip' | 'none', opts: FloatOptions = {}): Buffer {
  const { damaged = false, alphaCode = 0, icc, gray = false, colour, blocks = Buffer.alloc(0) } = opts;
  const plane = (c: number): Float32Array =>
    colour ? new Float32Array(W * H).fill(c === 3 ? 1 : colour[c]!) : samplePlane(c);
  const flat = layer === 'none';
  const colours = gray ? 1 : 3;
  const header = new Bytes().str('8BPS').u16(1).push(Buffer.alloc(6)).u16(colours).u32(H).u32(W).u16(32);
  header.u16(gray ? 1 : 3);
  const file = header.u32(0); // colour mode data
  if (icc) {
    const resource = new Bytes().str('8BIM').u16(1039).u16(0).u32(icc.length).push(icc);
    if (icc.length % 2) resource.u8(0);
    const resources = resource.done();
    file.u32(resources.length).push(resources);
  } else file.u32(0);
  if (flat) file.u32(0);
  else {
    const channels = [-1, 0, 1, 2].slice(0, colours + 1).map((id) => ({
      id,
      data:
        layer === 'zip'
          ? Buffer.concat([Buffer.from([0, 3]), zipped(plane(id === -1 ? 3 : id), damaged && id === 1)])
          : Buffer.concat([u16(id === -1 ? alphaCode : 0), raw(plane(id === -1 ? 3 : id))]),
    }));
    const name = Buffer.from('linear', 'latin1');
    const pascal = Buffer.alloc(Math.ceil((name.length + 1) / 4) * 4);
    pascal[0] = name.length;
    name.copy(pascal, 1);
    const extra = new Bytes().u32(0).u32(0).push(pascal).push(blocks).done();
    const rec = new Bytes().i32(0).i32(0).i32(H).i32(W).u16(channels.length);
    for (const c of channels) rec.u16(c.id).u32(c.data.length);
    rec.str('8BIMnorm').u8(255).u8(0).u8(8).u8(0).u32(extra.length).push(extra);
    const info = new Bytes().u16(1).push(rec.done());
    for (const c of channels) info.push(c.data);
    let body = info.done();
    if (body.length % 4) body = Buffer.concat([body, Buffer.alloc(4 - (body.length % 4))]);
    // 16- and 32-bit files keep their layers in the Lr16/Lr32 block, the layer info proper left empty.
    const lr32 = new Bytes().str('8BIMLr32').u32(body.length).push(body).done();
    const section = new Bytes().u32(0).u32(0).push(lr32).done();
    file.u32(section.length).push(section);
  }
  file.u16(0); // raw
  for (let c = 0; c < colours; c++) file.push(raw(plane(c)));
  return file.done();
}

/** ImageMagick's reading of image `index` of the file, its floats taken as linear and encoded as sRGB. */
async function magickSrgb(psd: Buffer, index: number): Promise<Buffer> {
  return withTempFiles({ 'in.psd': psd }, async (f) => {
    const args = [`${f['in.psd']}[${index}]`, '-set', 'colorspace', 'RGB', '-colorspace', 'sRGB'];
    const { stdout } = await run(CONVERT, [...args, '-depth', '8', 'rgba:-'], {
      encoding: 'buffer',
      maxBuffer: 1 << 24,
    });
    return stdout;
  });
}

const ICC_DIR = '/usr/share/color/icc/ghostscript';
const A98 = path.join(ICC_DIR, 'a98.icc');
const SRGB = path.join(ICC_DIR, 'srgb.icc');
const SGRAY = path.join(ICC_DIR, 'sgray.icc');

/** `icc` with its tone curves (rTRC, gTRC, bTRC) made gamma 1: the linear version Photoshop keeps 32-bit documents in. */
function linearVersion(icc: Buffer): Buffer {
  const out = Buffer.from(icc);
  const count = out.readUInt32BE(128);
  for (let i = 0; i < count; i++) {
    const at = 132 + i * 12;
    if (!['rTRC', 'gTRC', 'bTRC'].includes(out.toString('latin1', at, at + 4))) continue;
    const offset = out.readUInt32BE(at + 4);
    expect(out.readUInt32BE(at + 8)).toBeGreaterThanOrEqual(14);
    out.write('curv', offset, 'latin1');
    out.writeUInt32BE(0, offset + 4);
    out.writeUInt32BE(1, offset + 8); // one entry: a gamma, u8Fixed8
    out.writeUInt16BE(0x0100, offset + 12);
  }
  return out;
}

/**
 * LittleCMS's (through ImageMagick) reading of image `index` of the file as linear light in the primaries of
 * `icc`: its profile dropped, the linear version of `icc` assigned, then converted to sRGB.
 */
async function littleCmsSrgb(psd: Buffer, index: number, icc: Buffer): Promise<Buffer> {
  return withTempFiles({ 'in.psd': psd, 'linear.icc': linearVersion(icc) }, async (f) => {
    const args = [
      `${f['in.psd']}[${index}]`,
      '+profile',
      '*',
      '-profile',
      f['linear.icc']!,
      '-profile',
      SRGB,
    ];
    const { stdout } = await run(CONVERT, [...args, '-depth', '8', 'rgba:-'], {
      encoding: 'buffer',
      maxBuffer: 1 << 24,
    });
    return stdout;
  });
}

function worst(a: Uint8Array | Uint8ClampedArray, b: Uint8Array, channels: number[]): number {
  let d = 0;
  for (let i = 0; i < a.length; i += 4)
    for (const c of channels) d = Math.max(d, Math.abs(a[i + c]! - b[i + c]!));
  return d;
}

function onlyLayer(layers: Iterable<Layer>): Layer & { raster: { data: Uint8ClampedArray } } {
  const all = [...layers];
  expect(all).toHaveLength(1);
  const l = all[0]!;
  if (!('raster' in l)) throw new Error(`expected a layer with pixels, got ${l.kind}`);
  return l;
}

describe.skipIf(!imageMagickAvailable())('32-bit PSD', () => {
  it('opens a layer as 8-bit sRGB from linear light, as ImageMagick encodes it, with a warning', async () => {
    const file = floatPsd('raw');
    const { state, warnings } = await decodePsd(file);
    expect(warnings.join('\n')).toMatch(/32 位\/通道.*线性.*8 位/);
    const layer = onlyLayer(state.layers.values());
    expect(layer.name).toBe('linear');
    const ours = layer.raster.data;
    expect(ours.length).toBe(W * H * 4);
    // sRGB's mid grey: 0.214 linear is 127.5 encoded (gamma-encoded reading gave 55).
    expect(Math.abs(ours[1]! - 127.5)).toBeLessThanOrEqual(1);
    const magick = await magickSrgb(file, 1);
    expect(magick.length).toBe(W * H * 4);
    expect(worst(ours, magick, [0, 1, 2])).toBeLessThanOrEqual(1);
    // Alpha is coverage, scaled as it is (ImageMagick's passes through its 16-bit quantum: 0.53125 → 136, not 135).
    expect(worst(ours, magick, [3])).toBeLessThanOrEqual(1);
    expect(ours[(0 * W + 57) * 4 + 3]).toBe(135);
    // HDR highlights (1.5) are white.
    expect(ours[(0 * W + 62) * 4 + 2]).toBe(255);

    // Photoshop's own compression of 32-bit layers gives the same pixels.
    const zipped = onlyLayer((await decodePsd(floatPsd('zip'))).state.layers.values());
    expect(Buffer.from(zipped.raster.data).equals(Buffer.from(ours))).toBe(true);
  });

  it("leaves the caller's bytes untouched (ag-psd swaps raw float samples where they lie)", async () => {
    for (const layer of ['raw', 'none'] as const) {
      const file = floatPsd(layer);
      const before = Buffer.from(file);
      const first = await decodePsd(file);
      expect(file.equals(before)).toBe(true);
      // The same bytes read again (a retry, another thread) give the same pixels.
      const again = await decodePsd(file);
      const pixels = (d: typeof first) => Buffer.from(onlyLayer(d.state.layers.values()).raster.data);
      expect(pixels(again).equals(pixels(first))).toBe(true);
    }
  });

  it('refuses a layer whose ZIP data is damaged, naming it', async () => {
    const err = await decodePsd(floatPsd('zip', { damaged: true })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'io_error', message: expect.stringMatching(/已损坏.*图层“linear”/) });
  });

  it('refuses a layer channel whose compression code is not 0–3, naming it', async () => {
    // Not opened as its merged image alone, every layer gone without a word, as ag-psd left it in 32-bit files.
    const err = await decodePsd(floatPsd('raw', { alphaCode: 0x0909 })).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'io_error',
      message: expect.stringMatching(/已损坏.*图层“linear”的透明度通道的压缩方式 2313 无效/),
    });
  });

  it.skipIf(!existsSync(A98) || !existsSync(SRGB))(
    'reads a file tagged Adobe RGB as linear light in its primaries, as LittleCMS converts it',
    async () => {
      const a98 = readFileSync(A98);
      for (const [layer, index] of [
        ['raw', 1],
        ['none', 0],
      ] as const) {
        const file = floatPsd(layer, { icc: a98 });
        const { state, warnings } = await decodePsd(file);
        expect(warnings.join('\n')).toMatch(/不是 sRGB/);
        const ours = onlyLayer(state.layers.values()).raster.data;
        const reference = await littleCmsSrgb(file, index, a98);
        expect(reference.length).toBe(W * H * 4);
        // Where every channel is within 0–1: ImageMagick clips HDR values (1.5, x > 60) before converting, we after.
        let diff = 0;
        for (let y = 0; y < H; y++)
          for (let x = 0; x <= 60; x++)
            for (let c = 0; c < 3; c++) {
              const i = (y * W + x) * 4 + c;
              diff = Math.max(diff, Math.abs(ours[i]! - reference[i]!));
            }
        expect(diff, `${layer}`).toBeLessThanOrEqual(1);
        // The reference is a conversion, not sRGB's reading of the numbers (Adobe RGB's red is redder).
        expect(worst(reference, await magickSrgb(file, index), [0, 1, 2])).toBeGreaterThan(20);
      }
    },
  );

  it.skipIf(!existsSync(SGRAY))(
    'reads a 32-bit grayscale file as linear gray whatever its gray profile',
    async () => {
      // A gray profile with a gamma 2.2 curve (sgray's, which is close to sRGB's, made 2.2): its curve does not
      // apply to linear pixels, which are a linear neutral in sRGB as in any RGB space.
      const gamma22 = Buffer.from(readFileSync(SGRAY));
      const count = gamma22.readUInt32BE(128);
      for (let i = 0; i < count; i++) {
        const at = 132 + i * 12;
        if (gamma22.toString('latin1', at, at + 4) !== 'kTRC') continue;
        const offset = gamma22.readUInt32BE(at + 4);
        gamma22.write('curv', offset, 'latin1');
        gamma22.writeUInt32BE(0, offset + 4);
        gamma22.writeUInt32BE(1, offset + 8);
        gamma22.writeUInt16BE(0x0233, offset + 12); // 2.2 in u8Fixed8
      }
      const file = floatPsd('raw', { icc: gamma22, gray: true });
      const { state, warnings } = await decodePsd(file);
      expect(warnings.join('\n')).toMatch(/灰度/);
      const ours = onlyLayer(state.layers.values()).raster.data;
      // The red ramp of the untagged RGB file, encoded with the sRGB curve by ImageMagick.
      const reference = await magickSrgb(floatPsd('raw'), 1);
      for (let i = 0; i < W * H * 4; i += 4) {
        expect(Math.abs(ours[i]! - reference[i]!), `${i / 4}`).toBeLessThanOrEqual(1);
        expect(ours[i + 1]).toBe(ours[i]);
      }
    },
  );

  it('opens a flattened file (its merged image) the same way', async () => {
    const file = floatPsd('none');
    const { state, warnings } = await decodePsd(file);
    expect(warnings.join('\n')).toMatch(/32 位\/通道/);
    const ours = onlyLayer(state.layers.values()).raster.data;
    const magick = await magickSrgb(file, 0);
    expect(magick.length).toBe(W * H * 4);
    expect(worst(ours, magick, [0, 1, 2])).toBeLessThanOrEqual(1);
  });
});

/** The tagged blocks ag-psd writes for `target` (a fill's SoCo, effects' lfx2, text's TySh), for a layer's extra data. */
function taggedBlocks(target: AgLayer): Buffer {
  const writer = createWriter();
  for (const key of ['SoCo', 'lfx2', 'TySh']) {
    const handler = infoHandlersMap[key]!;
    if (!handler.has(target)) continue;
    writeSignature(writer, '8BIM');
    writeSignature(writer, key);
    writeSection(
      writer,
      2,
      () =>
        handler.write(writer, target, { width: W, height: H }, { layerIds: new Set(), layerToId: new Map() }),
      true,
    );
  }
  return Buffer.from(getWriterBuffer(writer));
}

/** sRGB's linear light of an encoded value (0–255), 0–1. */
function linear(v: number): number {
  const u = v / 255;
  return u <= 0.04045 ? u / 12.92 : ((u + 0.055) / 1.055) ** 2.4;
}

/** How Photoshop stores the sRGB colour `c` in a 32-bit document: linear light, on the 0–255 scale. */
function stored(c: RGB): Color {
  return { r: linear(c.r) * 255, g: linear(c.g) * 255, b: linear(c.b) * 255 };
}

function near(a: RGB | undefined, b: RGB, what: string): void {
  expect(a, what).toBeDefined();
  for (const k of ['r', 'g', 'b'] as const)
    expect(Math.abs(a![k] - b[k]), `${what} ${k}`).toBeLessThanOrEqual(1);
}

describe('32-bit PSD colours', () => {
  const FILL: RGB = { r: 200, g: 60, b: 30 };
  const STROKE: RGB = { r: 20, g: 120, b: 220 };
  const TEXT: RGB = { r: 240, g: 200, b: 10 };
  const fillLinear = [linear(FILL.r), linear(FILL.g), linear(FILL.b)] as const;

  it('reads fill, stroke and text colours as linear light, as the pixels beside them, and saves them so', async () => {
    const blocks = taggedBlocks({
      vectorFill: { type: 'color', color: stored(FILL) },
      effects: {
        stroke: [
          {
            enabled: true,
            present: true,
            showInDialog: true,
            size: { units: 'Pixels', value: 3 },
            position: 'outside',
            fillType: 'color',
            blendMode: 'normal',
            opacity: 1,
            color: stored(STROKE),
          },
        ],
      },
    });
    const { state } = await decodePsd(floatPsd('raw', { colour: fillLinear, blocks }));
    const fill = [...state.layers.values()][0]!;
    if (fill.kind !== 'fill') throw new Error(`expected a fill layer, got ${fill.kind}`);
    // Read as encoded values the fill came out 147 42 17 and the stroke 1 47 183.
    near(fill.color, FILL, 'fill');
    near(fill.effects?.stroke?.color, STROKE, 'stroke');
    // The same layer without its fill block is its pixels (one colour over the canvas: read as a fill too).
    const plain = [...(await decodePsd(floatPsd('raw', { colour: fillLinear }))).state.layers.values()][0]!;
    if (plain.kind !== 'fill') throw new Error(plain.kind);
    expect(plain.color).toEqual(fill.color);

    const text = taggedBlocks({
      text: {
        text: '文字',
        transform: [1, 0, 0, 1, 2, 20],
        style: { font: { name: 'NotoSansSC-Regular' }, fontSize: 16, fillColor: stored(TEXT) },
      },
    });
    const typed = [
      ...(await decodePsd(floatPsd('raw', { colour: fillLinear, blocks: text }))).state.layers.values(),
    ];
    const layer = typed[0]!;
    if (layer.kind !== 'text') throw new Error(`expected a text layer, got ${layer.kind}`);
    near(layer.text.color, TEXT, 'text');

    // Saved (8-bit sRGB), the colours are the ones shown: psd-tools reads the fill's pixels and the stroke so.
    const { buffer } = await encodePsd(state, testComposite(W, H));
    // Photoshop's solid colour fill layer is written as one again (with its pixels), and read back as one.
    const again = [...(await decodePsd(buffer)).state.layers.values()][0]!;
    if (again.kind !== 'fill') throw new Error(`expected a fill layer, got ${again.kind}`);
    expect(again.color).toEqual(fill.color);
    expect(again.effects?.stroke?.color).toEqual(fill.effects?.stroke?.color);
    if (psdToolsAvailable()) {
      const { dump, pixels: decoded } = await readWithPsdTools(buffer, { pixels: true });
      const stroke = dump.layers[0]!.effects.find((e) => e.type === 'Stroke');
      const [sr, sg, sb] = stroke!.color!;
      near({ r: sr, g: sg, b: sb }, fill.effects!.stroke!.color, 'psd-tools stroke');
      const own = decoded!.find((p) => p.layer === dump.layers[0]!.name)!;
      const step = own.mode.length;
      expect(own.data.length).toBe(W * H * step);
      near({ r: own.data[0]!, g: own.data[1]!, b: own.data[2]! }, fill.color, 'psd-tools fill pixels');
    }
  });

  it("reads a grayscale file's fill as linear gray", async () => {
    // 50 % linear light is 188 encoded: Photoshop stores it as 50 % ink.
    const blocks = taggedBlocks({ vectorFill: { type: 'color', color: { k: 50 } } });
    const { state } = await decodePsd(floatPsd('raw', { gray: true, colour: [0.5, 0.5, 0.5], blocks }));
    const fill = [...state.layers.values()][0]!;
    if (fill.kind !== 'fill') throw new Error(fill.kind);
    near(fill.color, { r: 188, g: 188, b: 188 }, 'gray fill');
  });
});

describe.skipIf(!imageMagickAvailable() || !existsSync(A98) || !existsSync(SRGB))(
  '32-bit PSD with a LUT-based profile',
  () => {
    it('is read through the profile by LittleCMS, as ImageMagick converts it, not through the sRGB curve', async () => {
      // A linear profile (as Photoshop embeds in 32-bit files) made of a lookup table: Adobe RGB's primaries.
      const icc = lutProfile('Linear LUT RGB', colorants(readFileSync(A98)), 1);
      for (const [layer, index] of [
        ['raw', 1],
        ['none', 0],
      ] as const) {
        const file = floatPsd(layer, { icc });
        const { state, warnings } = await decodePsd(file);
        expect(warnings.join('\n')).not.toMatch(/查找表/);
        const ours = onlyLayer(state.layers.values()).raster.data;
        const reference = await littleCmsSrgb(file, index, icc);
        // Within 1/255 away from the edges of sRGB's gamut (every channel 16–239). At and beyond them up to
        // 12/255: sharp converts 16-bit images through Display P3, clipping there first, and LittleCMS's
        // precomputed tables bend where they clip. HDR values (x > 60) ImageMagick clips before converting.
        let inside = 0;
        let outside = 0;
        for (let y = 0; y < H; y++)
          for (let x = 0; x <= 60; x++) {
            const i = (y * W + x) * 4;
            const clipped = [0, 1, 2].some((c) => reference[i + c]! < 16 || reference[i + c]! > 239);
            for (let c = 0; c < 3; c++) {
              const d = Math.abs(ours[i + c]! - reference[i + c]!);
              if (clipped) outside = Math.max(outside, d);
              else inside = Math.max(inside, d);
            }
          }
        expect(inside, layer).toBeLessThanOrEqual(1);
        expect(outside, layer).toBeLessThanOrEqual(12);
        // What it was read as before: encoded with the sRGB curve, then converted as gamma-encoded values.
        expect(worst(ours, await magickSrgb(file, index), [0, 1, 2])).toBeGreaterThan(20);
      }
    });
  },
);
