/**
 * CMYK PSD/PSB files (colour mode 4), written and read around ag-psd, which writes RGB only and reads CMYK
 * with a naive formula.
 *
 * Writing: psd.ts builds ag-psd's layer structures as for RGB; here each layer's pixels become five channels
 * (C, M, Y, K stored as 255 − ink, as Photoshop stores them, and transparency), separated with the press
 * profile and packed with our PackBits encoder, and are handed to ag-psd as `rawData`, which it writes as they
 * are. Groups are laid out here as their section-divider records, so they carry five channels as well. ag-psd
 * then writes the file for a 1 × 1 canvas — its merged image would otherwise be an RGB canvas of zeros — and
 * the header (canvas size, channel count, colour mode 4) and the merged image (CMYK, plus transparency when the
 * composite has any) are put right afterwards. The profile goes in image resource 1039, once.
 *
 * Reading: ag-psd parses the structure (layer records, masks, text, effects) with raw channel data; the channels
 * are unpacked here and converted to sRGB through the file's embedded profile (the press profile when it has
 * none).
 */
import type { LayerRawDataChannel as AgChannel, Layer as AgLayer, Psd as AgPsd } from 'ag-psd';
import { fromBlendMode } from 'ag-psd/dist/helpers.js';
import { resourceHandlers, resourceHandlersMap } from 'ag-psd/dist/imageResources.js';
import {
  createReader,
  readBytes,
  readDataRLE,
  readDataZip,
  supportedColorModes,
} from 'ag-psd/dist/psdReader.js';
import { writeBytes } from 'ag-psd/dist/psdWriter.js';
import { cmykaFromRgba, rgbaFromCmyk } from '../cmyk-pixels.js';
import { EditorError } from '../errors.js';
import type { Raster } from '../model.js';
import { emptyRaster } from '../raster.js';
import {
  layerChannelBytes,
  mergedImageBytes,
  type PackedChannel,
  packChannel,
  packedRowLimit,
} from './packbits.js';

export const CMYK_COLOR_MODE = 4;
/** Image resource "ICC Profile". */
const ICC_RESOURCE = 1039;

/** ag-psd's image resources, with the ICC profile our handler reads and writes. */
interface WithIcc {
  iccProfile?: Uint8Array;
}

/** Teaches ag-psd image resource 1039 (the ICC profile) and lets it parse CMYK files (we decode their pixels). */
export function setUpCmykSupport(): void {
  if (!resourceHandlersMap[ICC_RESOURCE]) {
    const handler = {
      key: ICC_RESOURCE,
      has: (target: WithIcc) => target.iccProfile !== undefined,
      read: (reader: Parameters<typeof readBytes>[0], target: WithIcc, left: () => number) => {
        target.iccProfile = readBytes(reader, left()).slice();
      },
      write: (writer: Parameters<typeof writeBytes>[0], target: WithIcc) =>
        writeBytes(writer, target.iccProfile),
    };
    resourceHandlers.push(handler as unknown as (typeof resourceHandlers)[number]);
    resourceHandlersMap[ICC_RESOURCE] = handler as unknown as (typeof resourceHandlers)[number];
  }
  if (!supportedColorModes.includes(CMYK_COLOR_MODE)) supportedColorModes.push(CMYK_COLOR_MODE);
}

/** The ICC profile embedded in a parsed file, if any. */
export function embeddedProfile(psd: AgPsd): Uint8Array | undefined {
  return (psd.imageResources as WithIcc | undefined)?.iccProfile;
}

/** Puts `icc` in the image resources ag-psd writes. */
export function embedProfile(psd: AgPsd, icc: Uint8Array): void {
  psd.imageResources ??= {};
  (psd.imageResources as WithIcc).iccProfile = icc;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* writing                                                                                                      */
/* ------------------------------------------------------------------------------------------------------------ */

const RAW = 0;
const RLE = 1;

const emptyChannel = (id: number): AgChannel => ({ id, compression: RAW, data: new Uint8Array(0) });

function packed(c: PackedChannel, id: number, large: boolean): AgChannel {
  return { id, compression: RLE, data: layerChannelBytes(c, large) };
}

function isOpaque(rgba: ArrayLike<number>): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

interface CmykWriteOptions {
  readonly profilePath: string;
  readonly large: boolean;
}

/** A layer's channels: pixels separated to CMYK (when it has any), then its mask. Clears its RGBA data. */
async function cmykChannels(l: AgLayer, o: CmykWriteOptions, background: boolean): Promise<AgChannel[]> {
  const channels: AgChannel[] = [];
  const img = l.imageData;
  if (img && img.width > 0 && img.height > 0) {
    const { width: w, height: h } = img;
    const rgba = img.data as Uint8ClampedArray;
    const cmyka = await cmykaFromRgba(rgba, w, h, o.profilePath);
    const scratch = new Uint8Array(h * packedRowLimit(w));
    // Photoshop's Background has no transparency channel.
    if (!(background && !l.mask && isOpaque(rgba))) {
      channels.push(packed(packChannel(cmyka, w, h, 5, 4, false, scratch), -1, o.large));
    }
    for (let c = 0; c < 4; c++)
      channels.push(packed(packChannel(cmyka, w, h, 5, c, true, scratch), c, o.large));
    l.right = (l.left ?? 0) + w;
    l.bottom = (l.top ?? 0) + h;
    delete l.imageData;
  } else {
    for (const id of [-1, 0, 1, 2, 3]) channels.push(emptyChannel(id));
    l.right = l.left ?? 0;
    l.bottom = l.top ?? 0;
  }
  const m = l.mask;
  if (m) {
    const mi = m.imageData;
    if (mi && mi.width > 0 && mi.height > 0) {
      // The grey is in R of the RGBA mask image (as ag-psd takes masks).
      channels.push(
        packed(packChannel(mi.data as Uint8ClampedArray, mi.width, mi.height, 4, 0), -2, o.large),
      );
      delete m.imageData;
    } else {
      channels.push(emptyChannel(-2));
    }
  }
  return channels;
}

/**
 * ag-psd layers (bottom → top, groups with `children`, pixels as RGBA `imageData`) as the flat CMYK layer
 * records to write: each with `rawData`, groups as their opening divider, children and closing record (as
 * ag-psd's own `addChildren` lays them out). `background`: the bottom layer is Photoshop's Background.
 */
export async function cmykLayerRecords(
  layers: readonly AgLayer[],
  o: CmykWriteOptions,
  background: boolean,
): Promise<AgLayer[]> {
  const out: AgLayer[] = [];
  const raw = (channels: AgChannel[]) => ({
    colorMode: CMYK_COLOR_MODE,
    bitsPerChannel: 8,
    channels,
    large: o.large,
  });
  for (let i = 0; i < layers.length; i++) {
    const l = layers[i]!;
    if (l.children) {
      const divider: AgLayer = { name: '</Layer group>', sectionDivider: { type: 3 } };
      divider.rawData = raw(await cmykChannels(divider, o, false));
      out.push(divider, ...(await cmykLayerRecords(l.children, o, false)));
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
      record.rawData = raw(await cmykChannels(record, o, false));
      out.push(record);
    } else {
      const record: AgLayer = { ...l };
      record.rawData = raw(await cmykChannels(record, o, background && i === 0));
      out.push(record);
    }
  }
  return out;
}

/**
 * The merged image section's data after its compression word: the composite (straight RGBA, canvas-sized)
 * separated to CMYK and, as Photoshop stores a merged image with transparency, matted over white paper (ink
 * scaled by alpha); the transparency channel follows when `alpha`.
 */
export async function cmykMergedImage(
  composite: Raster,
  o: CmykWriteOptions,
  alpha: boolean,
): Promise<Uint8Array> {
  const { w, h } = composite;
  const cmyka = await cmykaFromRgba(composite.data, w, h, o.profilePath);
  for (let i = 0; i < cmyka.length; i += 5) {
    const a = cmyka[i + 4]!;
    if (a === 255) continue;
    for (let c = 0; c < 4; c++) cmyka[i + c] = Math.round((cmyka[i + c]! * a) / 255);
  }
  const scratch = new Uint8Array(h * packedRowLimit(w));
  const channels: PackedChannel[] = [];
  for (let c = 0; c < 4; c++) {
    const p = packChannel(cmyka, w, h, 5, c, true, scratch);
    channels.push({ rowBytes: p.rowBytes, data: p.data });
  }
  if (alpha) channels.push(packChannel(cmyka, w, h, 5, 4, false, scratch));
  return mergedImageBytes(channels, o.large);
}

/** Where the merged image section starts in a PSD/PSB: after the header and three length-prefixed sections. */
export function mergedImageOffset(file: Uint8Array): number {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const large = view.getUint16(4) === 2;
  let at = 26;
  at += 4 + view.getUint32(at); // colour mode data
  at += 4 + view.getUint32(at); // image resources
  at += large ? 8 + Number(view.getBigUint64(at)) : 4 + view.getUint32(at); // layer and mask information
  if (at > file.length) throw new EditorError('internal', 'PSD 结构异常：图层区长度超出文件');
  return at;
}

/**
 * The final CMYK file from what ag-psd wrote for a 1 × 1 canvas: its header made the real one (canvas size, four
 * or five channels, colour mode 4) and its merged image replaced with `merged` (RLE).
 */
export function finishCmykFile(
  written: Uint8Array,
  width: number,
  height: number,
  alpha: boolean,
  merged: Uint8Array,
): Buffer {
  const at = mergedImageOffset(written);
  const out = Buffer.allocUnsafe(at + 2 + merged.length);
  out.set(written.subarray(0, at), 0);
  out.writeUInt16BE(alpha ? 5 : 4, 12);
  out.writeUInt32BE(height, 14);
  out.writeUInt32BE(width, 18);
  out.writeUInt16BE(CMYK_COLOR_MODE, 24);
  out.writeUInt16BE(RLE, at);
  out.set(merged, at + 2);
  return out;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* reading                                                                                                      */
/* ------------------------------------------------------------------------------------------------------------ */

/** Channel id → offset in interleaved C M Y K A samples (other channels, e.g. masks, have none). */
const offsetOf = (id: number): number | undefined => (id >= 0 && id <= 3 ? id : id === -1 ? 4 : undefined);

function unpackInto(
  target: Uint8Array,
  w: number,
  h: number,
  offset: number,
  compression: number,
  data: Uint8Array,
  large: boolean,
): void {
  const pixels = { width: w, height: h, data: target };
  switch (compression) {
    case 0:
      for (let i = 0, n = Math.min(w * h, data.length); i < n; i++) target[i * 5 + offset] = data[i]!;
      return;
    case 1:
      readDataRLE(
        createReader(data.buffer, data.byteOffset, data.byteLength),
        pixels,
        w,
        h,
        8,
        5,
        [offset],
        large,
      );
      return;
    case 2:
    case 3:
      readDataZip(data, pixels, w, h, 8, 5, offset, compression === 3);
      return;
    default:
      throw new EditorError('unsupported', `PSD 图层通道使用了未知的压缩方式 ${compression}`);
  }
}

/** File samples (255 − ink) as ink, in place, for the four colour channels of interleaved CMYKA. */
function toInk(cmyka: Uint8Array): void {
  for (let i = 0; i < cmyka.length; i += 5) {
    cmyka[i] = 255 - cmyka[i]!;
    cmyka[i + 1] = 255 - cmyka[i + 1]!;
    cmyka[i + 2] = 255 - cmyka[i + 2]!;
    cmyka[i + 3] = 255 - cmyka[i + 3]!;
  }
}

/** A CMYK layer's pixels (from ag-psd's raw channel data) as straight sRGB RGBA through `icc`. */
export async function cmykLayerRaster(l: AgLayer, icc: Uint8Array): Promise<Raster> {
  const w = (l.right ?? 0) - (l.left ?? 0);
  const h = (l.bottom ?? 0) - (l.top ?? 0);
  const raw = l.rawData;
  if (w <= 0 || h <= 0 || !raw) return emptyRaster();
  if (raw.bitsPerChannel !== 8) {
    throw new EditorError('unsupported', `暂不支持 ${raw.bitsPerChannel} 位/通道的 CMYK PSD`, {
      hint: '请在 Photoshop 中转为 8 位/通道后再打开',
    });
  }
  const cmyka = new Uint8Array(w * h * 5);
  let alpha = false;
  for (const c of raw.channels) {
    const offset = offsetOf(c.id);
    if (offset === undefined || !c.data || c.data.length === 0) continue;
    unpackInto(cmyka, w, h, offset, c.compression, c.data, raw.large);
    if (c.id === -1) alpha = true;
  }
  toInk(cmyka);
  if (!alpha) for (let i = 4; i < cmyka.length; i += 5) cmyka[i] = 255;
  return { x: l.left ?? 0, y: l.top ?? 0, w, h, data: await rgbaFromCmyk(cmyka, w, h, 5, icc) };
}

/**
 * The merged image of a CMYK file (ag-psd's `rawCompositeData`, from its compression word on) as straight sRGB
 * RGBA through `icc`, its white matte undone.
 */
export async function cmykMergedRaster(
  psd: AgPsd,
  icc: Uint8Array,
  large: boolean,
): Promise<Raster | undefined> {
  const bytes = psd.rawCompositeData;
  const { width: w, height: h } = psd;
  if (!bytes || bytes.length < 2 || w <= 0 || h <= 0) return undefined;
  const compression = (bytes[0]! << 8) | bytes[1]!;
  const alpha = (psd.channels ?? 4) >= 5;
  const offsets = alpha ? [0, 1, 2, 3, 4] : [0, 1, 2, 3];
  const cmyka = new Uint8Array(w * h * 5);
  const body = bytes.subarray(2);
  if (compression === 1) {
    const reader = createReader(body.buffer, body.byteOffset, body.byteLength);
    readDataRLE(reader, { width: w, height: h, data: cmyka }, w, h, 8, 5, offsets, large);
  } else if (compression === 0) {
    offsets.forEach((offset, c) => {
      const plane = body.subarray(c * w * h, (c + 1) * w * h);
      for (let i = 0; i < plane.length; i++) cmyka[i * 5 + offset] = plane[i]!;
    });
  } else {
    throw new EditorError('unsupported', `PSD 合并图像使用了不支持的压缩方式 ${compression}`);
  }
  toInk(cmyka);
  for (let i = 0; i < cmyka.length; i += 5) {
    if (!alpha) cmyka[i + 4] = 255;
    const a = cmyka[i + 4]!;
    if (a === 0 || a === 255) continue;
    for (let c = 0; c < 4; c++) cmyka[i + c] = Math.min(255, Math.round((cmyka[i + c]! * 255) / a));
  }
  return { x: 0, y: 0, w, h, data: await rgbaFromCmyk(cmyka, w, h, 5, icc) };
}
