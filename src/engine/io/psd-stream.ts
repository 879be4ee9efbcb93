/**
 * An RGB PSD/PSB written channel by channel (issue 13: a 9000 × 18000 marker peaked at 4.2× its layer bytes in
 * ag-psd's writer, which packs every layer into memory, copies the canvas for its merged image and needs 8
 * bytes of scratch per canvas pixel).
 *
 * ag-psd still writes everything that is not pixels — header, image resources, layer records with their text,
 * effects, locks and smart objects, the global additional info with linked files — as a small "skeleton": every
 * layer's channels are handed to it as empty raw data and its canvas is 1 × 1. The skeleton is then copied out
 * with the pixels spliced in: each channel is packed row by row (our PackBits encoder) straight into the sink,
 * its row counts and its length in the layer record patched once known (they are fixed-width fields), then
 * the section lengths, then the merged image packed row by row from the composite. Nothing canvas-sized or
 * layer-sized is allocated; the bytes in flight are one sink buffer.
 */
import type { LayerRawDataChannel as AgChannel, Layer as AgLayer, Psd as AgPsd } from 'ag-psd';
import { writePsdBuffer } from 'ag-psd';
import { fromBlendMode } from 'ag-psd/dist/helpers.js';
import { EditorError } from '../errors.js';
import type { DocChannel, Raster } from '../model.js';
import type { InkSource } from '../raster-inks.js';
import { packedRowLimit, packRow, packStrided } from './packbits.js';
import { type CarriedResource, channelResourceBlocks, withResourceBlocks } from './psd-channels.js';
import { CMYK_COLOR_MODE, type PlanProfile, writeCmykMergedImage } from './psd-cmyk.js';
import { withLegacyNames } from './psd-legacy-name.js';
import type { PsdSink } from './psd-sink.js';

const RAW = 0;
const RLE = 1;

/** One channel of a layer record, produced row by row when the file is written. */
export interface ChannelPlan {
  readonly id: number;
  readonly w: number;
  readonly h: number;
  /** Packs row `y` into `out` at 0 (`packedRowLimit(w)` bytes free) and returns the bytes written. */
  readonly pack: (y: number, out: Uint8Array) => number;
  /** Every row is the same (a flat fill): packed once. */
  readonly uniform?: boolean;
  /** The compression word of a channel without samples (ag-psd writes 0 for layers, 1 for masks). */
  readonly emptyCompression?: number;
}

/**
 * A layer record's channels; `load` runs before the first is packed and `unload` after the last, so what they
 * read (a CMYK separation of the layer) exists for one layer at a time.
 */
export interface LayerPlan {
  readonly channels: readonly ChannelPlan[];
  readonly load?: () => Promise<void>;
  readonly unload?: () => void;
}

/** The channels of ag-psd layers, by layer object (the ones in the tree handed to `streamPsd`). */
export type ChannelPlans = WeakMap<AgLayer, LayerPlan>;

/** Channel `offset` (0–3) of straight RGBA pixels. */
export function rgbaChannel(id: number, r: Raster, offset: number): ChannelPlan {
  const { w, h, data } = r;
  return { id, w, h, pack: (y, out) => packStrided(data, y * w * 4 + offset, 4, w, out, 0) };
}

/** A channel of one value over `w × h`. */
export function flatChannel(id: number, w: number, h: number, value: number): ChannelPlan {
  return { id, w, h, uniform: true, pack: (_y, out) => packRow(new Uint8Array(w).fill(value), w, out, 0) };
}

/** A one-byte-per-pixel channel (a layer mask). */
export function planeChannel(id: number, w: number, h: number, data: Uint8Array): ChannelPlan {
  return { id, w, h, pack: (y, out) => packStrided(data, y * w, 1, w, out, 0) };
}

export const emptyChannel = (id: number, emptyCompression = RAW): ChannelPlan => ({
  id,
  w: 0,
  h: 0,
  pack: () => 0,
  emptyCompression,
});

/** Whether any pixel of straight RGBA pixels is not fully opaque. */
export function hasTransparency(data: Uint8Array | Uint8ClampedArray): boolean {
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return true;
  return false;
}

/** Which rows of straight RGBA pixels hold a semi-transparent pixel (neither 0 nor 255): those get a matte. */
export function partlyTransparentRows(r: Raster): { any: boolean; rows: Uint8Array } {
  const { w, h, data } = r;
  const rows = new Uint8Array(h);
  let any = false;
  for (let y = 0; y < h; y++) {
    for (let p = y * w * 4 + 3, end = p + w * 4; p < end; p += 4) {
      const a = data[p]!;
      if (a !== 255) {
        any = true;
        if (a !== 0) {
          rows[y] = 1;
          break;
        }
      }
    }
  }
  return { any, rows };
}

/** A PSD (version 1) that grew past `StreamOptions.maxBytes`: it is to be written as PSB instead. */
export class PsdTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`PSD exceeds ${limit} bytes`);
  }
}

interface StreamOptions {
  readonly psb: boolean;
  /** For a PSD: the most bytes it may take (PsdTooLarge once past them, checked after every channel). */
  readonly maxBytes?: number;
  /** The bottom layer is Photoshop's Background. */
  readonly background: boolean;
  /** A CMYK file (colour mode 4): the press profile the merged image is separated with. */
  readonly cmyk?: { readonly profile: PlanProfile; readonly inkSources: readonly InkSource[] };
  /** Spot and alpha channels, after the colour channels (and the transparency) of the merged image. */
  readonly channels?: readonly DocChannel[];
  /** The image resources carried with them (psd-channels.ts). */
  readonly channelResources?: readonly CarriedResource[];
}

/**
 * Writes `psd` (its layers carrying plans in `plans`) with `merged` (straight RGBA covering the canvas) as its
 * merged image to `sink`. `psd` is changed: its canvas becomes 1 × 1 and its layers get placeholder raw data.
 */
export async function streamPsd(
  sink: PsdSink,
  psd: AgPsd,
  plans: ChannelPlans,
  merged: Raster,
  o: StreamOptions,
): Promise<void> {
  const { width, height } = psd;
  const partly = partlyTransparentRows(merged);
  const extras = o.channels ?? [];
  const alpha = partly.any;
  const colorMode = o.cmyk ? CMYK_COLOR_MODE : 3;
  // ag-psd lays groups out with RGB dividers (four channels): a CMYK file gets its own, with five.
  if (o.cmyk) psd.children = cmykFlatRecords(psd.children ?? [], plans);
  const records = flatRecords(psd.children ?? [], plans);
  if (records.length === 0) records.push(null);
  for (const l of layersOf(psd.children ?? [])) {
    const p = plans.get(l);
    if (p) l.rawData = { colorMode, bitsPerChannel: 8, channels: p.channels.map(placeholder), large: o.psb };
  }
  Object.assign(psd, {
    width: 1,
    height: 1,
    imageData: { width: 1, height: 1, data: new Uint8ClampedArray([255, 255, 255, alpha ? 0 : 255]) },
  });
  const skeleton = withResourceBlocks(
    withLegacyNames(
      writePsdBuffer(psd, { psb: o.psb, noBackground: !o.background }),
      o.psb,
      recordNames(psd.children ?? []),
    ),
    channelResourceBlocks(extras, alpha, o.channelResources ?? []),
  );
  const shape = skeletonLayout(skeleton, o.psb);
  if (shape.records.length !== records.length) {
    throw new EditorError(
      'internal',
      `PSD 结构异常：图层记录 ${shape.records.length} 条，应为 ${records.length} 条`,
    );
  }
  const head = Buffer.from(skeleton.subarray(0, shape.channelData));
  head.writeUInt32BE(height, 14);
  head.writeUInt32BE(width, 18);
  head.writeUInt16BE((o.cmyk ? 4 : 3) + (alpha ? 1 : 0) + extras.length, 12);
  if (o.cmyk) head.writeUInt16BE(CMYK_COLOR_MODE, 24);
  await sink.append(head);

  const lengthSize = o.psb ? 8 : 4;
  let skAt = shape.channelData;
  for (let r = 0; r < records.length; r++) {
    const fields = shape.records[r]!;
    const plan = records[r];
    if (plan?.load) await plan.load();
    for (let c = 0; c < fields.length; c++) {
      const skLength = fields[c]!.length;
      const ch = plan?.channels[c];
      if (!ch || ch.w === 0 || ch.h === 0) {
        await sink.append(skeleton.subarray(skAt, skAt + skLength));
      } else {
        const length = await writeChannel(sink, ch, o.psb);
        if (o.maxBytes !== undefined && sink.position > o.maxBytes) throw new PsdTooLarge(o.maxBytes);
        await sink.patch(fields[c]!.at, sizeField(length, o.psb));
      }
      skAt += skLength;
    }
    plan?.unload?.();
  }
  // The layer info is padded to four bytes, and its length counts the padding.
  const infoLength = roundUp(sink.position - shape.infoBody, 4);
  await sink.append(new Uint8Array(shape.infoBody + infoLength - sink.position));
  await sink.patch(shape.infoBody - lengthSize, sizeField(infoLength, o.psb));
  const sectionLength = shape.sectionLength + (infoLength - shape.infoLength);
  await sink.append(skeleton.subarray(shape.infoBody + shape.infoLength, shape.merged));
  await sink.patch(shape.section, sizeField(sectionLength, o.psb));

  const planes = extras.map((c) => c.data);
  if (o.cmyk)
    await writeCmykMergedImage(sink, merged, alpha, o.psb, o.cmyk.profile, o.cmyk.inkSources, planes);
  else await writeMergedImage(sink, merged, partly.rows, alpha, o.psb, planes);
  if (o.maxBytes !== undefined && sink.position > o.maxBytes) throw new PsdTooLarge(o.maxBytes);
}

function placeholder(c: ChannelPlan): AgChannel {
  const empty = c.w === 0 || c.h === 0;
  return { id: c.id, compression: empty ? (c.emptyCompression ?? RAW) : RLE, data: new Uint8Array(0) };
}

/** Every layer of the tree, groups included. */
function layersOf(layers: readonly AgLayer[]): AgLayer[] {
  const out: AgLayer[] = [];
  for (const l of layers) {
    out.push(l);
    if (l.children) out.push(...layersOf(l.children));
  }
  return out;
}

/**
 * The plans of the layer records in file order, as ag-psd lays the tree out (its `addChildren`): a group is its
 * closing divider (no plan: ag-psd's empty channels), its children, then its own record.
 */
function flatRecords(layers: readonly AgLayer[], plans: ChannelPlans): (LayerPlan | null)[] {
  const out: (LayerPlan | null)[] = [];
  for (const l of layers) {
    if (l.children) out.push(null, ...flatRecords(l.children, plans));
    out.push(plans.get(l) ?? null);
  }
  return out;
}

/** The names of the layer records in file order, as ag-psd lays the tree out (see flatRecords). */
function recordNames(layers: readonly AgLayer[]): string[] {
  const out: string[] = [];
  for (const l of layers) {
    if (l.children) out.push('</Layer group>', ...recordNames(l.children));
    out.push(l.name ?? '');
  }
  return out;
}

/**
 * The tree as the flat list of records ag-psd would make of it (its `addChildren`), with CMYK dividers: five
 * empty channels, like every group record of a CMYK file.
 */
function cmykFlatRecords(layers: readonly AgLayer[], plans: ChannelPlans): AgLayer[] {
  const empties: LayerPlan = { channels: [-1, 0, 1, 2, 3].map((id) => emptyChannel(id)) };
  const out: AgLayer[] = [];
  for (const l of layers) {
    if (!l.children) {
      out.push(l);
      continue;
    }
    const divider: AgLayer = { name: '</Layer group>', sectionDivider: { type: 3 } };
    plans.set(divider, empties);
    out.push(divider, ...cmykFlatRecords(l.children, plans));
    const { children: _children, ...group } = l;
    const record: AgLayer = {
      ...group,
      blendMode: l.blendMode === 'pass through' ? 'normal' : l.blendMode,
      sectionDivider: {
        type: l.opened === false ? 2 : 1,
        key: (l.blendMode && fromBlendMode[l.blendMode]) || 'pass',
        subType: 0,
      },
    };
    const plan = plans.get(l);
    if (plan) plans.set(record, plan);
    out.push(record);
  }
  return out;
}

const roundUp = (n: number, k: number): number => Math.ceil(n / k) * k;

/** A length as PSD (32-bit) or PSB (64-bit) stores it, big-endian. */
function sizeField(n: number, large: boolean): Uint8Array {
  const out = Buffer.alloc(large ? 8 : 4);
  if (large) out.writeBigUInt64BE(BigInt(n));
  else if (n > 0xffffffff) throw new EditorError('unsupported', 'PSD 数据超过 4 GiB，无法以 PSD 格式保存');
  else out.writeUInt32BE(n);
  return out;
}

interface ChannelField {
  /** Where the channel's length is in the file. */
  readonly at: number;
  /** The skeleton's channel bytes: compression word and data. */
  readonly length: number;
}

interface SkeletonLayout {
  /** The layer and mask section's length field, and its value. */
  readonly section: number;
  readonly sectionLength: number;
  /** Where the layer info starts (after its length field), and its length (padding included). */
  readonly infoBody: number;
  readonly infoLength: number;
  readonly records: ChannelField[][];
  /** Where the channel image data starts. */
  readonly channelData: number;
  /** Where the merged image starts. */
  readonly merged: number;
}

/** Finds the fields the pixels go in, reading the structure ag-psd wrote (Adobe's file format specification). */
function skeletonLayout(sk: Uint8Array, large: boolean): SkeletonLayout {
  const view = new DataView(sk.buffer, sk.byteOffset, sk.byteLength);
  const size = (at: number): number => (large ? Number(view.getBigUint64(at)) : view.getUint32(at));
  const lengthSize = large ? 8 : 4;
  let at = 26;
  at += 4 + view.getUint32(at); // colour mode data
  at += 4 + view.getUint32(at); // image resources
  const section = at;
  const sectionLength = size(at);
  at += lengthSize;
  const infoLength = size(at);
  at += lengthSize;
  const infoBody = at;
  const count = Math.abs(view.getInt16(at));
  at += 2;
  const records: ChannelField[][] = [];
  for (let i = 0; i < count; i++) {
    at += 16; // bounds
    const channels = view.getUint16(at);
    at += 2;
    const fields: ChannelField[] = [];
    for (let c = 0; c < channels; c++) {
      fields.push({ at: at + 2, length: size(at + 2) });
      at += 2 + lengthSize;
    }
    at += 12; // blend signature and key, opacity, clipping, flags, filler
    at += 4 + view.getUint32(at); // extra data
    records.push(fields);
  }
  const channelData = at;
  // The section's length leaves out the byte that pads it to an even length.
  const merged = section + lengthSize + sectionLength + (sectionLength % 2);
  const channelBytes = records.flat().reduce((n, f) => n + f.length, 0);
  const bad = channelData + channelBytes > infoBody + infoLength || infoBody + infoLength > merged;
  if (bad || merged + 2 > sk.length || view.getUint16(merged) !== RLE) {
    throw new EditorError('internal', 'PSD 结构异常：无法定位图层通道数据');
  }
  return { section, sectionLength, infoBody, infoLength, records, channelData, merged };
}

/** One channel (compression word, row counts, packed rows) appended to `sink`; returns its length. */
async function writeChannel(sink: PsdSink, ch: ChannelPlan, large: boolean): Promise<number> {
  const start = sink.position;
  const { h } = ch;
  const head = Buffer.alloc(2);
  head.writeUInt16BE(RLE);
  await sink.append(head);
  const counts = Buffer.alloc(h * (large ? 4 : 2));
  const countsAt = sink.position;
  await sink.append(counts);
  await packRows(sink, ch, counts, 0, large);
  await sink.patch(countsAt, counts);
  return sink.position - start;
}

/** Packs every row of `ch` into `sink`, its byte counts into `counts` from row index `first`. */
async function packRows(
  sink: PsdSink,
  ch: ChannelPlan,
  counts: Buffer,
  first: number,
  large: boolean,
): Promise<void> {
  const { w, h } = ch;
  const limit = packedRowLimit(w);
  let packed: Uint8Array | undefined;
  for (let y = 0; y < h; y++) {
    let n: number;
    if (ch.uniform && packed) {
      (await sink.space(packed.length)).set(packed);
      n = packed.length;
    } else {
      const out = await sink.space(limit);
      n = ch.pack(y, out);
      if (ch.uniform) packed = out.slice(0, n);
    }
    sink.commit(n);
    if (large) counts.writeUInt32BE(n, (first + y) * 4);
    else counts.writeUInt16BE(n, (first + y) * 2);
  }
}

/**
 * The merged image: R, G, B (and transparency when the composite has any), then the spot and alpha channels
 * `planes`, packed row by row. As Photoshop (and ag-psd) store it, semi-transparent pixels are matted over white.
 */
async function writeMergedImage(
  sink: PsdSink,
  merged: Raster,
  partlyTransparent: Uint8Array,
  alpha: boolean,
  large: boolean,
  planes: readonly Uint8Array[],
): Promise<void> {
  const { w, h, data } = merged;
  const channels = alpha ? 4 : 3;
  const head = Buffer.alloc(2);
  head.writeUInt16BE(RLE);
  await sink.append(head);
  const counts = Buffer.alloc((channels + planes.length) * h * (large ? 4 : 2));
  const countsAt = sink.position;
  await sink.append(counts);
  const row = new Uint8Array(w);
  for (let c = 0; c < channels; c++) {
    const pack = (y: number, out: Uint8Array): number => {
      const start = y * w * 4;
      if (c === 3 || !partlyTransparent[y]) return packStrided(data, start + c, 4, w, out, 0);
      for (let x = 0, p = start; x < w; x++, p += 4) {
        const a = data[p + 3]!;
        const v = data[p + c]!;
        // The same arithmetic as ag-psd's matte, truncated by the byte array as there.
        row[x] = a === 0 || a === 255 ? v : v * (a / 255) + 255 * (1 - a / 255);
      }
      return packRow(row, w, out, 0);
    };
    await packRows(sink, { id: c, w, h, pack }, counts, c * h, large);
  }
  for (let k = 0; k < planes.length; k++) {
    await packRows(sink, planeChannel(channels + k, w, h, planes[k]!), counts, (channels + k) * h, large);
  }
  await sink.patch(countsAt, counts);
}
