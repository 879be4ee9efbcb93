/**
 * A PSD's spot and alpha channels, kept from the file read to the file written. ag-psd reads and writes the
 * colour channels and the merged transparency only; the others are read here from the merged image and the
 * image resources that describe them, and written back into the file ag-psd wrote.
 *
 * Where they are (Adobe's file format specification): the merged image holds the colour channels, then the
 * channels the Channels panel lists below them, in order; when the file's layer count is negative, or the first
 * of them carries Photoshop's identifier 0, that first one is the merged transparency. Four image resources list
 * the same channels in the same order, the transparency included — names (1006 Pascal, 1045 Unicode),
 * identifiers (1053) and display records (1077: colour, solidity, and whether it is a spot channel) —, and two
 * more refer to them by identifier (1067 alternate spot colours, 1043 spot halftones), carried as read.
 */
import type { Psd as AgPsd } from 'ag-psd';
import type { DocChannel } from '../model.js';
import { checkPackedRows } from './packbits.js';

const RES_NAMES = 1006;
const RES_UNICODE_NAMES = 1045;
const RES_IDENTIFIERS = 1053;
const RES_DISPLAY = 1077;
/** Image resource 1067: Photoshop's alternate spot colours (a Lab colour per channel identifier). */
export const RES_ALTERNATE_SPOT_COLOURS = 1067;
/** Resources that name channels by identifier: kept as read while every channel they may name is kept. */
const CARRIED_BY_IDENTIFIER = [RES_ALTERNATE_SPOT_COLOURS, 1043] as const;

/** An image resource carried as read: its id and its data. */
export interface CarriedResource {
  readonly id: number;
  readonly data: Uint8Array;
}

/** Photoshop's identifier of the merged transparency in resource 1053. */
const TRANSPARENCY_IDENTIFIER = 0;
/** A display record (resource 1077) after its 4-byte version: colour space, four colour words, solidity, kind. */
const DISPLAY_RECORD = 13;
const DISPLAY_KIND_SPOT = 2;
/** The display record Photoshop writes for the merged transparency (red at 100 %, "masked areas"). */
const TRANSPARENCY_DISPLAY = Uint8Array.of(0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 100, 1);

/** The extra channels of a file, and its image resources that refer to them. */
export interface ReadChannels {
  readonly channels: DocChannel[];
  /** Resources 1067 and 1043 as read (id, data), written back while the channels are. */
  readonly resources: CarriedResource[];
  /** The first channel after the colour channels is the merged transparency. */
  readonly transparency: boolean;
  /** Why the channels could not be read (Chinese), when the file has some. */
  readonly unread?: string;
}

/** The image resource blocks `ids` of a PSD, by id, as stored (their data only). */
export function imageResources(file: Uint8Array, ids: readonly number[]): Map<number, Uint8Array> {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const out = new Map<number, Uint8Array>();
  let at = 26;
  at += 4 + view.getUint32(at);
  const end = at + 4 + view.getUint32(at);
  at += 4;
  // Blocks are signed '8BIM' by Photoshop, 'MeSa' or 'PHUT' by other writers: any signature is read past.
  while (at + 12 <= end) {
    const id = view.getUint16(at + 4);
    const nameLength = file[at + 6]!;
    at += 6 + ((nameLength + 2) & ~1);
    const size = view.getUint32(at);
    at += 4;
    if (at + size > end) break;
    if (ids.includes(id)) out.set(id, file.subarray(at, at + size));
    at += size + (size & 1);
  }
  return out;
}

/** The signed layer count of a PSD's layer info (0 when it has none): negative when the merged image has alpha. */
function layerCount(file: Uint8Array, large: boolean): number {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  let at = 26;
  at += 4 + view.getUint32(at);
  at += 4 + view.getUint32(at);
  const lengthSize = large ? 8 : 4;
  const size = (p: number) => (large ? Number(view.getBigUint64(p)) : view.getUint32(p));
  if (at + 2 * lengthSize + 2 > file.length || size(at) === 0) return 0;
  at += lengthSize;
  if (size(at) === 0) return 0;
  return view.getInt16(at + lengthSize);
}

/** Colour channels of a PSD colour mode ag-psd opens: grey 1, RGB 3, CMYK 4. */
function colourChannels(mode: number | undefined): number {
  return mode === 4 ? 4 : mode === 1 ? 1 : 3;
}

/** How many channels the merged image of `psd` holds past its colour channels (the transparency included). */
export function listedChannels(psd: AgPsd): number {
  return Math.max(0, (psd.channels ?? 0) - colourChannels(psd.colorMode));
}

/**
 * The spot and alpha channels of `psd` (ag-psd's reading of `file`, with its `rawCompositeData`), each a canvas
 * of bytes. 16-bit channels keep their high byte, as the colour channels are brought to 8 bits.
 */
export function readExtraChannels(file: Uint8Array, psd: AgPsd, large: boolean): ReadChannels {
  const total = psd.channels ?? 0;
  const listed = listedChannels(psd);
  if (listed <= 0) return { channels: [], resources: [], transparency: false };
  const res = psd.imageResources ?? {};
  const names = (res.alphaChannelNames ?? []).map((n) => n.replace(/\0+$/, ''));
  const identifiers = res.alphaIdentifiers;
  const raw = imageResources(file, [RES_DISPLAY, ...CARRIED_BY_IDENTIFIER]);
  const display = displayRecords(raw.get(RES_DISPLAY));
  const transparency = layerCount(file, large) < 0 || identifiers?.[0] === TRANSPARENCY_IDENTIFIER;
  const first = transparency ? 1 : 0;
  const none: ReadChannels = { channels: [], resources: [], transparency };
  if (listed - first <= 0) return none;
  const planes = mergedPlanes(psd, total, colourChannels(psd.colorMode) + first, large);
  if (typeof planes === 'string') return { ...none, unread: planes };
  const channels = planes.map((data, k): DocChannel => {
    const i = first + k;
    const record = display[i];
    return {
      name: names[i] || `Alpha ${k + 1}`,
      kind: record && record[DISPLAY_RECORD - 1] === DISPLAY_KIND_SPOT ? 'spot' : 'alpha',
      data,
      ...(identifiers?.[i] !== undefined ? { identifier: identifiers[i] } : {}),
      ...(record ? { display: record } : {}),
    };
  });
  const resources = CARRIED_BY_IDENTIFIER.flatMap((id) => {
    const data = raw.get(id);
    return data ? [{ id, data: data.slice() }] : [];
  });
  return { channels, resources, transparency };
}

function displayRecords(data: Uint8Array | undefined): Uint8Array[] {
  if (!data || data.length < 4) return [];
  const out: Uint8Array[] = [];
  for (let at = 4; at + DISPLAY_RECORD <= data.length; at += DISPLAY_RECORD) {
    out.push(data.slice(at, at + DISPLAY_RECORD));
  }
  return out;
}

/** Channels `from`…`total − 1` of the merged image, 8 bits each; or why they cannot be read. */
function mergedPlanes(psd: AgPsd, total: number, from: number, large: boolean): Uint8Array[] | string {
  const bytes = psd.rawCompositeData;
  const { width: w, height: h } = psd;
  if (!bytes || bytes.length < 2) return '文件没有合并图像数据';
  const depth = Math.max(1, (psd.bitsPerChannel ?? 8) / 8);
  if (depth !== 1 && depth !== 2) return `${psd.bitsPerChannel} 位/通道的额外通道不支持读取`;
  const compression = (bytes[0]! << 8) | bytes[1]!;
  const body = bytes.subarray(2);
  const rowBytes = w * depth;
  const planes: Uint8Array[] = [];
  const rows = new Uint8Array(h * rowBytes);
  if (compression === 0) {
    const plane = h * rowBytes;
    if (body.length < total * plane) return '合并图像数据不完整';
    for (let c = from; c < total; c++) planes.push(toBytes(body.subarray(c * plane, (c + 1) * plane), depth));
    return planes;
  }
  if (compression !== 1) return `合并图像使用了不支持的压缩方式 ${compression}`;
  const countSize = large ? 4 : 2;
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  if (body.length < total * h * countSize) return '合并图像数据不完整';
  // Each channel's rows follow the previous channel's: skip to channel `from` by the row counts.
  let at = total * h * countSize;
  for (let r = 0; r < from * h; r++) at += large ? view.getUint32(r * 4) : view.getUint16(r * 2);
  for (let c = from; c < total; c++) {
    const counts = body.subarray(c * h * countSize, (c + 1) * h * countSize);
    let length = 0;
    for (let y = 0; y < h; y++)
      length += large ? view.getUint32((c * h + y) * 4) : view.getUint16((c * h + y) * 2);
    // checkPackedRows reads the counts before the rows: hand it this channel's counts and rows together.
    const packed = new Uint8Array(counts.length + length);
    packed.set(counts);
    packed.set(body.subarray(at, at + length), counts.length);
    const problem = checkPackedRows(packed, h, rowBytes, large, rows);
    if (problem) return `合并图像的第 ${c + 1} 个通道${problem}`;
    planes.push(toBytes(rows, depth));
    at += length;
  }
  return planes;
}

/** A plane of `depth`-byte samples as bytes (16-bit samples keep their high byte). */
function toBytes(samples: Uint8Array, depth: number): Uint8Array {
  if (depth === 1) return samples.slice();
  const out = new Uint8Array(samples.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = samples[i * 2]!;
  return out;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* writing                                                                                                      */
/* ------------------------------------------------------------------------------------------------------------ */

/** One image resource block as a PSD stores it: signature, id, empty name, size, data padded to even. */
function resourceBlock(id: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length + (data.length & 1));
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x3842494d);
  view.setUint16(4, id);
  view.setUint32(8, data.length);
  out.set(data, 12);
  return out;
}

function pascalNames(names: readonly string[]): Uint8Array {
  const parts = names.map((n) => {
    // Pascal strings are single-byte: what is not Latin-1 is a '?' there (1045 holds the real name).
    const bytes = Uint8Array.from([...n].slice(0, 255), (ch) => {
      const code = ch.codePointAt(0)!;
      return code < 256 ? code : 0x3f;
    });
    return Uint8Array.of(bytes.length, ...bytes);
  });
  return concat(parts);
}

function unicodeNames(names: readonly string[]): Uint8Array {
  const parts = names.map((n) => {
    const units = `${n}\0`;
    const out = new Uint8Array(4 + units.length * 2);
    const view = new DataView(out.buffer);
    view.setUint32(0, units.length);
    for (let i = 0; i < units.length; i++) view.setUint16(4 + i * 2, units.charCodeAt(i));
    return out;
  });
  return concat(parts);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A display record for a channel the file gave none: an alpha channel shown red at 50 %, as Photoshop's new ones. */
function defaultDisplay(): Uint8Array {
  return Uint8Array.of(0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 50, 1);
}

/**
 * The image resource blocks that describe `channels` in a file whose merged image has them after its colour
 * channels, preceded by the merged transparency when `transparency`: names, identifiers, display records, and
 * the carried resources that refer to them.
 */
export function channelResourceBlocks(
  channels: readonly DocChannel[],
  transparency: boolean,
  carried: readonly CarriedResource[],
): Uint8Array {
  if (channels.length === 0) return new Uint8Array(0);
  const names = [...(transparency ? ['Transparency'] : []), ...channels.map((c) => c.name)];
  const display = concat([
    Uint8Array.of(0, 0, 0, 1),
    ...(transparency ? [TRANSPARENCY_DISPLAY] : []),
    ...channels.map((c) => c.display ?? defaultDisplay()),
  ]);
  const blocks = [
    resourceBlock(RES_NAMES, pascalNames(names)),
    resourceBlock(RES_UNICODE_NAMES, unicodeNames(names)),
    resourceBlock(RES_DISPLAY, display),
  ];
  if (channels.every((c) => c.identifier !== undefined)) {
    const ids = [...(transparency ? [TRANSPARENCY_IDENTIFIER] : []), ...channels.map((c) => c.identifier!)];
    const data = new Uint8Array(ids.length * 4);
    const view = new DataView(data.buffer);
    for (let i = 0; i < ids.length; i++) view.setUint32(i * 4, ids[i]!);
    blocks.push(resourceBlock(RES_IDENTIFIERS, data));
    for (const r of carried) blocks.push(resourceBlock(r.id, r.data));
  }
  return concat(blocks);
}

/** `file` (a PSD or PSB ag-psd wrote, without channel resources) with `blocks` appended to its image resources. */
export function withResourceBlocks(file: Uint8Array, blocks: Uint8Array): Uint8Array {
  if (blocks.length === 0) return file;
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  let at = 26;
  at += 4 + view.getUint32(at);
  const lengthAt = at;
  const end = at + 4 + view.getUint32(at);
  const out = new Uint8Array(file.length + blocks.length);
  out.set(file.subarray(0, end));
  out.set(blocks, end);
  out.set(file.subarray(end), end + blocks.length);
  new DataView(out.buffer).setUint32(lengthAt, view.getUint32(lengthAt) + blocks.length);
  return out;
}

/**
 * The carried resources without what they say of the channel `identifier` (a deleted channel): its entry of the
 * alternate spot colours (1067) is taken out. The spot halftones (1043) are Photoshop's own structure, carried
 * whole: an entry for a channel that is no longer there names nothing.
 */
export function withoutChannel(carried: readonly CarriedResource[], identifier: number): CarriedResource[] {
  return carried.map((r) => {
    if (r.id !== RES_ALTERNATE_SPOT_COLOURS || r.data.length < 4) return r;
    const view = new DataView(r.data.buffer, r.data.byteOffset, r.data.byteLength);
    const count = view.getUint16(2);
    const kept: Uint8Array[] = [];
    for (let k = 0, at = 4; k < count && at + 14 <= r.data.length; k++, at += 14) {
      if (view.getUint32(at) !== identifier) kept.push(r.data.subarray(at, at + 14));
    }
    const data = new Uint8Array(4 + kept.length * 14);
    data.set(r.data.subarray(0, 2));
    new DataView(data.buffer).setUint16(2, kept.length);
    for (const [i, entry] of kept.entries()) data.set(entry, 4 + i * 14);
    return { id: r.id, data };
  });
}
