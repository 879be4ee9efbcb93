/**
 * CMYK PSD/PSB files (colour mode 4), written and read around ag-psd, which writes RGB only and reads CMYK
 * with a naive formula.
 *
 * Writing (streamed by psd-stream.ts, which lays out the records and patches the header to colour mode 4 and four
 * or five channels): each layer's pixels become five channels — C, M, Y, K stored as 255 − ink, as Photoshop
 * stores them, and transparency — separated with the press profile when the layer is written and let go after
 * it; groups and their dividers carry five empty channels. The merged image (CMYK, plus transparency when the
 * composite has any) is separated band by band. The profile goes in image resource 1039, once.
 *
 * Reading: ag-psd parses the structure (layer records, masks, text, effects) with raw channel data; the channels
 * are unpacked here and converted to sRGB through the file's embedded profile (the press profile when it has
 * none). The inks are kept with the raster (model.ts `RasterInks`) and written back as they were while the
 * raster's pixels and the profile are unchanged: sRGB separated again would not give a press file's inks back.
 */
import type { Layer as AgLayer, Psd as AgPsd } from 'ag-psd';
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
import type { InkTable, Raster, RGB } from '../model.js';
import { emptyRaster } from '../raster.js';
import { type InkSource, inksOf, keptInks, separateComposite, takeKeptInks } from '../raster-inks.js';
import { packedRowLimit, packStrided } from './packbits.js';
import type { PsdSink } from './psd-sink.js';
import type { ChannelPlan, LayerPlan } from './psd-stream.js';

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

const RLE = 1;

/** `cmyka` (interleaved C M Y K A ink) as PSD stores the four colour channels: 255 − ink, in place. */
function invertInks(cmyka: Uint8Array): void {
  for (let i = 0; i < cmyka.length; i += 5) {
    cmyka[i] = 255 - cmyka[i]!;
    cmyka[i + 1] = 255 - cmyka[i + 1]!;
    cmyka[i + 2] = 255 - cmyka[i + 2]!;
    cmyka[i + 3] = 255 - cmyka[i + 3]!;
  }
}

/**
 * A layer's pixels as the channels of a CMYK record: transparency (unless `withAlpha` is false), C, M, Y, K, then
 * `extra` (its mask). The separation is made when the record is written and let go after it.
 */
export function cmykLayerPlan(
  r: Raster,
  profile: PlanProfile,
  withAlpha: boolean,
  extra: readonly ChannelPlan[],
  table?: InkTable,
): LayerPlan {
  let cmyka: Uint8Array | undefined;
  const { w, h } = r;
  const channel = (id: number, offset: number): ChannelPlan => ({
    id,
    w,
    h,
    pack: (y, out) => packStrided(cmyka!, y * w * 5 + offset, 5, w, out, 0),
  });
  return {
    channels: [...(withAlpha ? [channel(-1, 4)] : []), ...[0, 1, 2, 3].map((c) => channel(c, c)), ...extra],
    load: async () => {
      const kept = keptInks(r, profile.bytes);
      if (kept) cmyka = interleaved(kept, r.data, 0, w * h);
      else {
        cmyka = await cmykaFromRgba(r.data, w, h, profile.path);
        // Pixels of a colour the document's ink table holds (painted since, or left by an edit) take its inks.
        if (table) takeKeptInks(r.data, cmyka, r.x, r.y, w, h, [{ table }]);
      }
      invertInks(cmyka);
    },
    unload: () => {
      cmyka = undefined;
    },
  };
}

/** The press profile a file is written with: its path for sharp, its bytes to recognise inks read with it. */
export interface PlanProfile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** Pixels `from … from + count` as interleaved C M Y K A: inks from `cmyk`, alpha from the RGBA `rgba`. */
function interleaved(cmyk: Uint8Array, rgba: Uint8ClampedArray, from: number, count: number): Uint8Array {
  const out = new Uint8Array(count * 5);
  for (let p = 0, i = from * 4, j = 0; p < count; p++, i += 4, j += 5) {
    out[j] = cmyk[i]!;
    out[j + 1] = cmyk[i + 1]!;
    out[j + 2] = cmyk[i + 2]!;
    out[j + 3] = cmyk[i + 3]!;
    out[j + 4] = rgba[i + 3]!;
  }
  return out;
}

/** The four ink samples (as PSD stores them, 255 − ink) of an opaque colour separated with `profilePath`. */
export async function cmykSamplesOf(color: RGB, profilePath: string): Promise<number[]> {
  const cmyka = await cmykaFromRgba(Uint8Array.of(color.r, color.g, color.b, 255), 1, 1, profilePath);
  return [0, 1, 2, 3].map((c) => 255 - cmyka[c]!);
}

/** Rows of the merged image separated at a time: 5 bytes per pixel of a band, not of the canvas. */
const BAND_ROWS = 256;

/**
 * The merged image of a CMYK file, streamed: the composite separated band by band, matted over white paper (ink
 * scaled by alpha, as cmykMergedImage) and packed; a band's packed rows are kept until every band is done, the
 * channels being stored one after the other. A pixel that shows a layer's kept inks (`sources`) takes them.
 */
export async function writeCmykMergedImage(
  sink: PsdSink,
  composite: Raster,
  alpha: boolean,
  large: boolean,
  profile: PlanProfile,
  sources: readonly InkSource[],
  planes: readonly Uint8Array[] = [],
): Promise<void> {
  const { w, h, data } = composite;
  const channels = alpha ? 5 : 4;
  const countSize = large ? 4 : 2;
  const counts = Buffer.alloc((channels + planes.length) * h * countSize);
  const packed: Uint8Array[][] = Array.from({ length: channels + planes.length }, () => []);
  const limit = packedRowLimit(w);
  const setCount = (c: number, y: number, n: number) => {
    const at = (c * h + y) * countSize;
    if (large) counts.writeUInt32BE(n, at);
    else counts.writeUInt16BE(n, at);
  };
  for (let y0 = 0; y0 < h; y0 += BAND_ROWS) {
    const bh = Math.min(BAND_ROWS, h - y0);
    const cmyka = await separateComposite(
      data.subarray(y0 * w * 4, (y0 + bh) * w * 4),
      composite.x,
      composite.y + y0,
      w,
      bh,
      profile,
      sources,
    );
    for (let i = 0; i < cmyka.length; i += 5) {
      const a = cmyka[i + 4]!;
      if (a === 255) continue;
      for (let c = 0; c < 4; c++) cmyka[i + c] = Math.round((cmyka[i + c]! * a) / 255);
    }
    invertInks(cmyka);
    const out = new Uint8Array(bh * limit);
    for (let c = 0; c < channels; c++) {
      const offset = c === 4 ? 4 : c;
      let o = 0;
      for (let y = 0; y < bh; y++) {
        const n = packStrided(cmyka, y * w * 5 + offset, 5, w, out, o);
        setCount(c, y0 + y, n);
        o += n;
      }
      packed[c]!.push(out.slice(0, o));
    }
  }
  // The spot and alpha channels, after the inks and the transparency.
  const row = new Uint8Array(limit);
  planes.forEach((plane, k) => {
    for (let y = 0; y < h; y++) {
      const n = packStrided(plane, y * w, 1, w, row, 0);
      setCount(channels + k, y, n);
      packed[channels + k]!.push(row.slice(0, n));
    }
  });
  const head = Buffer.alloc(2);
  head.writeUInt16BE(RLE);
  await sink.append(head);
  await sink.append(counts);
  for (const chunks of packed) {
    for (let i = 0; i < chunks.length; i++) {
      await sink.append(chunks[i]!);
      chunks[i] = new Uint8Array(0);
    }
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* reading                                                                                                      */
/* ------------------------------------------------------------------------------------------------------------ */

/** Channel id → offset in interleaved C M Y K A samples (other channels, e.g. masks, have none). */
const offsetOf = (id: number): number | undefined => (id >= 0 && id <= 3 ? id : id === -1 ? 4 : undefined);

/**
 * One channel into interleaved C M Y K A (8-bit). A 16-bit channel arrives raw (psd.ts unpacked its RLE) or
 * zipped, and is rounded to 8 bits, as Photoshop's Image › Mode › 8 Bits/Channel does.
 */
function unpackInto(
  target: Uint8Array,
  w: number,
  h: number,
  offset: number,
  compression: number,
  data: Uint8Array,
  large: boolean,
  depth: 8 | 16,
): void {
  if (depth === 16) {
    const wide = new Uint16Array(w * h);
    if (compression === 0) {
      for (let i = 0, n = Math.min(w * h, data.length >> 1); i < n; i++)
        wide[i] = (data[2 * i]! << 8) | data[2 * i + 1]!;
    } else if (compression === 2 || compression === 3) {
      readDataZip(
        data,
        { width: w, height: h, data: wide as unknown as Uint8Array },
        w,
        h,
        16,
        1,
        0,
        compression === 3,
      );
    } else {
      throw new EditorError('unsupported', `PSD 图层通道使用了未知的压缩方式 ${compression}`);
    }
    for (let i = 0; i < wide.length; i++) target[i * 5 + offset] = Math.round(wide[i]! / 257);
    return;
  }
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

/** 8 or 16 bits per channel: what a CMYK file can hold (Photoshop has no 32-bit CMYK). */
function cmykDepth(bits: number | undefined): 8 | 16 {
  if (bits === 8 || bits === undefined) return 8;
  if (bits === 16) return 16;
  throw new EditorError('unsupported', `不支持 ${bits} 位/通道的 CMYK PSD`, {
    hint: 'CMYK 文件应为 8 或 16 位/通道；请在 Photoshop 中转换后再打开',
  });
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
  const depth = cmykDepth(raw.bitsPerChannel);
  const cmyka = new Uint8Array(w * h * 5);
  let alpha = false;
  for (const c of raw.channels) {
    const offset = offsetOf(c.id);
    if (offset === undefined || !c.data || c.data.length === 0) continue;
    unpackInto(cmyka, w, h, offset, c.compression, c.data, raw.large, depth);
    if (c.id === -1) alpha = true;
  }
  toInk(cmyka);
  if (!alpha) for (let i = 4; i < cmyka.length; i += 5) cmyka[i] = 255;
  const data = await rgbaFromCmyk(cmyka, w, h, 5, icc);
  return { x: l.left ?? 0, y: l.top ?? 0, w, h, data, inks: inksOf(cmyka, w, h, data, icc) };
}

/**
 * The merged image of a CMYK file (ag-psd's `rawCompositeData`, from its compression word on) as straight sRGB
 * RGBA through `icc`, its white matte undone; `alpha` when its fifth channel is the merged transparency (not a
 * spot or alpha channel: psd-channels.ts).
 */
export async function cmykMergedRaster(
  psd: AgPsd,
  icc: Uint8Array,
  large: boolean,
  alpha: boolean,
): Promise<Raster | undefined> {
  const bytes = psd.rawCompositeData;
  const { width: w, height: h } = psd;
  if (!bytes || bytes.length < 2 || w <= 0 || h <= 0) return undefined;
  const compression = (bytes[0]! << 8) | bytes[1]!;
  const offsets = alpha ? [0, 1, 2, 3, 4] : [0, 1, 2, 3];
  // Every channel's rows are counted before the first is stored: the spot and alpha channels after the inks are
  // listed too (at an offset past the pixel, which ag-psd's unpacker skips), or their counts are read as rows.
  const listed = [...offsets];
  while (listed.length < (psd.channels ?? offsets.length)) listed.push(5);
  const cmyka = new Uint8Array(w * h * 5);
  const body = bytes.subarray(2);
  if (cmykDepth(psd.bitsPerChannel) === 16) {
    // psd.ts left a 16-bit merged image raw, its RLE unpacked.
    if (compression !== 0)
      throw new EditorError('unsupported', `PSD 合并图像使用了不支持的压缩方式 ${compression}`);
    const plane = w * h * 2;
    offsets.forEach((offset, c) => {
      unpackInto(cmyka, w, h, offset, 0, body.subarray(c * plane, (c + 1) * plane), large, 16);
    });
  } else if (compression === 1) {
    const reader = createReader(body.buffer, body.byteOffset, body.byteLength);
    readDataRLE(reader, { width: w, height: h, data: cmyka }, w, h, 8, 5, listed, large);
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
  const data = await rgbaFromCmyk(cmyka, w, h, 5, icc);
  return { x: 0, y: 0, w, h, data, inks: inksOf(cmyka, w, h, data, icc) };
}
