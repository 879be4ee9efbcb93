/**
 * PSD / PSB read and write with ag-psd (engine.md §2.2), mapping ag-psd's layer model to ours and back.
 *
 * ag-psd's `children[0]` is the bottom layer, as in our model. It does not composite: the caller supplies the
 * merged image, otherwise Photoshop's "maximize compatibility" image (and every previewer) would show black.
 * It writes RGB only: CMYK documents are written and read as CMYK files by psd-cmyk.ts around it.
 */
import { randomUUID } from 'node:crypto';
import { ftruncate } from 'node:fs';
import { promisify } from 'node:util';
import {
  type BlendMode as AgBlendMode,
  type Color as AgColor,
  type LayerEffectsInfo as AgEffects,
  type Layer as AgLayer,
  type LinkedFile as AgLinkedFile,
  type LayerMaskData as AgMask,
  type ParagraphStyle as AgParagraphStyle,
  type PixelData as AgPixelData,
  type Psd as AgPsd,
  type TextStyle as AgTextStyle,
  getCompositeImageData,
  getLayerImageData,
  getLayerMaskImageData,
  initializeCanvas,
  readPsd,
  type UnitsValue,
} from 'ag-psd';
import { infoHandlersMap } from 'ag-psd/dist/additionalInfo.js';
import { toBlendMode } from 'ag-psd/dist/helpers.js';
import { readUint32 } from 'ag-psd/dist/psdReader.js';
import { writeBytes, writeUint32 } from 'ag-psd/dist/psdWriter.js';
import { WARP_BEND_MAX } from '../../registry/tools/text-params.js';
import { undrawnReason } from '../adjust/layer.js';
import { adjustmentName } from '../adjust/names.js';
import { rgbaFromCmyk } from '../cmyk-pixels.js';
import { channelValues } from '../descriptor-colour.js';
import {
  MAX_DOCUMENT_PIXELS,
  MAX_LAYER_REACH,
  PSB_MAX_SIDE,
  PSD_MAX_SIDE,
  psdVersionFor,
  reachOf,
} from '../document-limits.js';
import { EditorError } from '../errors.js';
import {
  type AdjustmentLayer,
  type BlendMode,
  type CharacterSettings,
  type ColorMode,
  type DocState,
  type DropShadowEffect,
  type Effects,
  type FauxStyles,
  FILL_OVERLAY_MAX_PIXELS,
  type Guide,
  type InkTable,
  isBlendMode,
  type Layer,
  type LayerMask,
  type Locks,
  type Loss,
  type PsdText,
  type Raster,
  type RGB,
  type SmartEmbedded,
  type SmartTransform,
  type StrokeEffect,
  type TextLayer,
  type TextMatrix,
  type TextSpec,
} from '../model.js';
import { documentProfile, iccDescription, isPressProfile, pressProfile } from '../press-profile.js';
import { allocMask, allocPixels, cropRaster, emptyRaster, sharePixels } from '../raster.js';
import {
  documentInkSources,
  type InkSource,
  inksOfColour,
  newInkTable,
  recordPixels,
  tableApplies,
} from '../raster-inks.js';
import { spotColourOf } from '../spot-display.js';
import {
  isIdentityMatrix,
  layoutText,
  psdFontName,
  renderTextSpec,
  TEXT_BASELINE_EM,
  textAnchor,
  textLines,
  textWarpBox,
} from '../text.js';
import { settingsOf } from '../text-character.js';
import { FAUX_KEYS, type FauxKey, fauxOf } from '../text-decoration.js';
import { anchorDrop, isVertical } from '../text-orientation.js';
import {
  isJustification,
  isTextBox,
  isTextIndent,
  isTextSpace,
  type ParagraphSettings,
  paragraphAt,
  paragraphOf,
  sameParagraph,
  withParagraphs,
} from '../text-paragraph.js';
import { hasRuns, runList, sameRuns, styleAt, withRuns } from '../text-runs.js';
import { decodeImage, encodePng } from './image-codec.js';
import { checkPackedRows } from './packbits.js';
import {
  carriedDocumentFields,
  carriedLayerData,
  carriedLayerFields,
  carriedResources,
  channelResourcesOf,
  globalAngleOf,
  maskExtras,
  psdDocumentOf,
  styleToWrite,
  writableStyle,
} from './psd-carry.js';
import { listedChannels, type ReadChannels, readExtraChannels } from './psd-channels.js';
import {
  CMYK_COLOR_MODE,
  cmykLayerPlan,
  cmykLayerRaster,
  cmykMergedRaster,
  cmykSamplesOf,
  embeddedProfile,
  embedProfile,
  type PlanProfile,
  setUpCmykSupport,
} from './psd-cmyk.js';
import { invalidCompression } from './psd-compression.js';
import { legacyNameReadings } from './psd-legacy-name.js';
import { FileSink, fdWriter, MemorySink, type PsdSink } from './psd-sink.js';
import {
  type ChannelPlan,
  type ChannelPlans,
  emptyChannel,
  flatChannel,
  hasTransparency,
  PsdTooLarge,
  planeChannel,
  rgbaChannel,
  streamPsd,
} from './psd-stream.js';
import { STYLE_EFFECT_KEYS, type StyleReading, shadowOf, styleEffectsOf } from './psd-styles.js';
import { uniformOpaqueColour } from './psd-uniform.js';
import { shapeRaster, withVectorMask } from './psd-vector-mask.js';
import { colourInSrgb, rasterInSrgb, type SourceProfile, sourceProfile, srgbProfile } from './rgb-profile.js';

/**
 * TEXT_BASELINE_EM: distance from the top of a text box to the first baseline, in ems — the text renderer's own
 * layout constant. Photoshop anchors point text at its baseline (its start, centre or end, by its alignment) and
 * states paragraph text's box from the transform's origin; our TextSpec's anchor is TEXT_BASELINE_EM below its
 * `x, y`. Used in both directions, so round trips are exact and Photoshop re-renders ("update text layers") where
 * we drew.
 */
export { TEXT_BASELINE_EM };

/** Photoshop's "lock all" flag in the `lspf` block (ag-psd only knows the three lower bits). */
const LOCK_ALL_FLAG = 0x80000000;

export interface EncodePsdOptions {
  /** Document name, used in messages. */
  readonly name?: string;
  /**
   * Write the large document format (PSB, version 2) whatever the size, as a file named `.psb` must be. Without
   * it, PSB only when a side exceeds 30,000 px.
   */
  readonly psb?: boolean;
  /**
   * The largest file written as a PSD (version 1): a larger one is written again as PSB, with a warning.
   * Default Photoshop's 2 GB (PSD_MAX_BYTES); tests lower it.
   */
  readonly maxPsdBytes?: number;
}

/**
 * The most bytes a PSD may take: Photoshop refuses to save a PSD of 2 GB or more (its offsets are signed 32-bit
 * numbers) and asks for the large document format; readers of the format expect no more.
 */
export const PSD_MAX_BYTES = 2 ** 31 - 1;

/**
 * The highest resolution a PSD records: a signed 16.16 fixed-point number. ag-psd writes a higher one wrapped
 * around to a negative value (40,000 DPI, from a PNG's pHYs, came back as 72 without a word).
 */
const PSD_MAX_DPI = 32767;

export interface EncodedPsd {
  readonly buffer: Buffer;
  /** Chinese, for the tool result. */
  readonly warnings: string[];
}

export interface DecodedPsd {
  readonly state: DocState;
  /** Chinese, for the tool result: everything that could not be kept. */
  readonly warnings: string[];
  /**
   * What the file holds that the document does not (short Chinese phrases, e.g. 调整图层“曲线 1”（curves））: a
   * save writes a file without them, so every save names them again (tools/files.ts).
   */
  readonly losses: Loss[];
}

/* ------------------------------------------------------------------------------------------------------------ */
/* ag-psd set-up                                                                                                */
/* ------------------------------------------------------------------------------------------------------------ */

type LockedProtection = NonNullable<AgLayer['protected']> & { all?: boolean };

let agReady = false;

/** Errors ag-psd met reading the layers of a 16- or 32-bit file, by the file read (setUpAgPsd). */
const layerInfoErrors = new WeakMap<object, unknown>();

/** `psd`, or what ag-psd met and swallowed reading its layers, thrown. */
function withoutLayerInfoFailure(psd: AgPsd): AgPsd {
  if (layerInfoErrors.has(psd)) throw layerInfoErrors.get(psd);
  return psd;
}

/**
 * ag-psd needs a canvas factory even with `useImageData`; plain `{width, height, data}` objects are enough.
 * It also drops Photoshop's "lock all" bit, so its `lspf` handler is replaced to read and write it.
 * And ImageMagick 6.9.11 (Debian's) writes layer blend-mode keys byte-swapped ('mron' for 'norm'), which
 * ag-psd rejects: the swapped keys are added to its read table (writing is unaffected).
 */
function setUpAgPsd(): void {
  if (agReady) return;
  agReady = true;
  setUpCmykSupport();
  const createImageData = (width: number, height: number) => ({
    width,
    height,
    // Decoded layers land in documents: shared memory (raster.ts).
    data: allocPixels(width * height * 4),
    colorSpace: 'srgb' as const,
  });
  // ag-psd's declarations name DOM types (HTMLCanvasElement, ImageData) that lib ES2023 lacks.
  initializeCanvas((width: number, height: number) => ({ width, height }) as never, createImageData as never);
  for (const [key, mode] of Object.entries({ ...toBlendMode })) {
    const swapped = [...key].reverse().join('');
    if (!(swapped in toBlendMode)) toBlendMode[swapped] = mode;
  }
  // ag-psd swallows a handler's error unless asked to throw for every unparsed block: a 16- or 32-bit file
  // whose layers (its Lr16/Lr32 block) cannot be read opened as its merged image alone, every layer gone
  // without a word. The error is kept and raised after the read (`withoutLayerInfoFailure`).
  for (const key of ['Lr16', 'Lr32']) {
    const handler = infoHandlersMap[key];
    if (!handler) continue;
    const read = handler.read;
    handler.read = (reader, target, left, psd, resources) => {
      try {
        read(reader, target, left, psd, resources);
      } catch (err) {
        layerInfoErrors.set(psd, err);
        throw err;
      }
    };
  }
  const lspf = infoHandlersMap.lspf;
  if (lspf) {
    lspf.read = (reader, target) => {
      const flags = readUint32(reader);
      const prot: LockedProtection = {
        transparency: (flags & 0x01) !== 0,
        composite: (flags & 0x02) !== 0,
        position: (flags & 0x04) !== 0,
      };
      if (flags & 0x08) prot.artboards = true;
      if ((flags & LOCK_ALL_FLAG) !== 0) prot.all = true;
      target.protected = prot;
    };
    lspf.write = (writer, target) => {
      const prot = (target.protected ?? {}) as LockedProtection;
      const flags =
        (prot.transparency ? 0x01 : 0) |
        (prot.composite ? 0x02 : 0) |
        (prot.position ? 0x04 : 0) |
        (prot.artboards ? 0x08 : 0) |
        (prot.all ? LOCK_ALL_FLAG : 0);
      writeUint32(writer, flags >>> 0);
    };
  }
  patchGradientMapMethod();
  keepAdjustmentBlocks();
}

/** Layer record `l`'s adjustment, with the blocks that held it in the file (keepAdjustmentBlocks). */
function withFileBlocks(l: AgLayer): AdjustmentLayer['adjustment'] {
  const adjustment = l.adjustment as unknown as AdjustmentLayer['adjustment'];
  const fileBlocks = adjustmentBlocks.get(l);
  return (fileBlocks ? { ...adjustment, fileBlocks } : adjustment) as AdjustmentLayer['adjustment'];
}

/** The blocks of an adjustment layer's settings, by key: Photoshop's own layouts of each adjustment. */
const ADJUSTMENT_BLOCKS = [
  'brit',
  'CgEd',
  'levl',
  'curv',
  'expA',
  'vibA',
  'hue2',
  'blnc',
  'blwh',
  'phfl',
  'mixr',
  'clrL',
  'nvrt',
  'post',
  'thrs',
  'grdm',
  'selc',
] as const;

/** Each layer record's adjustment blocks as the file had them (withFileBlocks). */
const adjustmentBlocks = new WeakMap<object, Record<string, Uint8Array>>();

/**
 * Atelier never changes an adjustment layer's settings, so each of its blocks is written back as the file had it.
 * ag-psd re-encodes them from what it read and loses on the way: a Levels block written with 63 records and no
 * 'Lvls' (psd-tools refused the file), a Channel Mixer's fourth coefficients dropped, Brightness/Contrast's legacy
 * block filled where Photoshop leaves it empty, a gradient map's method that it could not write (the save failed).
 * A block is kept only while the adjustment it was read with is the layer's (`fileBlocks` on that record).
 */
function keepAdjustmentBlocks(): void {
  for (const key of ADJUSTMENT_BLOCKS) {
    const handler = infoHandlersMap[key];
    if (!handler) continue;
    const { read, write } = handler;
    handler.read = (reader, target, left, psd, resources) => {
      const from = reader.view.byteOffset + reader.offset;
      const bytes = new Uint8Array(reader.view.buffer.slice(from, from + left()));
      read(reader, target, left, psd, resources);
      const kept = adjustmentBlocks.get(target) ?? {};
      kept[key] = bytes;
      adjustmentBlocks.set(target, kept);
    };
    handler.write = (writer, target, psd, options) => {
      const raw = (target.adjustment as { fileBlocks?: Record<string, Uint8Array> } | undefined)
        ?.fileBlocks?.[key];
      if (raw) writeBytes(writer, raw);
      else write(writer, target, psd, options);
    };
  }
}

/** Photoshop's four letters for a gradient's interpolation method, by ag-psd's name for it. */
const GRADIENT_METHOD_CODES: Readonly<Record<string, string>> = {
  classic: 'Gcls',
  perceptual: 'Perc',
  linear: 'Lnr ',
  smooth: 'Smoo',
};

/**
 * A gradient map (Photoshop 2022+, its block's version 3) holds its interpolation method as four letters after the
 * reverse and dither bytes. ag-psd 31 decodes them as a descriptor enum, so it reads every method as Perceptual (and
 * writes the enum's long form where four letters go, which it refuses: keepAdjustmentBlocks writes the file's own
 * block instead). The letters are read here.
 */
function patchGradientMapMethod(): void {
  const grdm = infoHandlersMap.grdm;
  if (!grdm) return;
  const { read } = grdm;
  grdm.read = (reader, target, left, psd, resources) => {
    const at = reader.offset;
    const v = reader.view;
    const letters =
      v.getUint16(at) >= 3 && v.getUint8(at + 4) !== 0
        ? String.fromCharCode(v.getUint8(at + 4), v.getUint8(at + 5), v.getUint8(at + 6), v.getUint8(at + 7))
        : undefined;
    read(reader, target, left, psd, resources);
    const adjustment = target.adjustment as { method?: string } | undefined;
    if (!adjustment || letters === undefined) return;
    // A method ag-psd has no name for (Stripes) is left unnamed rather than called Perceptual.
    const method = Object.keys(GRADIENT_METHOD_CODES).find((m) => GRADIENT_METHOD_CODES[m] === letters);
    if (method) adjustment.method = method;
    else delete adjustment.method;
  };
}

/* ------------------------------------------------------------------------------------------------------------ */
/* shared helpers                                                                                               */
/* ------------------------------------------------------------------------------------------------------------ */

const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;

/**
 * PSD stores layer opacity as a byte. Snap it back to the whole percent it came from when there is one, so
 * that 37 % → 94 → 37 % round-trips, while bytes no percent maps to stay exact (byte / 255).
 */
export function opacityFromByte(byte: number): number {
  const b = Math.max(0, Math.min(255, Math.round(byte)));
  const pct = Math.round(b / 2.55);
  return Math.round((pct / 100) * 255) === b ? pct / 100 : b / 255;
}

function pixelDataOf(r: Raster): AgPixelData {
  return { width: r.w, height: r.h, data: r.data };
}

/**
 * Runs ag-psd's synchronous `read`, keeping what it prints about data it cannot parse (a damaged text's engine
 * data, unknown effect keys) in `notes` instead of on stdout, which `atelier run` answers on in JSONL. Nothing
 * else runs on this thread while `read` does.
 */
function withAgLog<T>(notes: string[], read: () => T): T {
  const log = console.log;
  console.log = (...args: unknown[]) => {
    notes.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  };
  try {
    return read();
  } finally {
    console.log = log;
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* encode                                                                                                       */
/* ------------------------------------------------------------------------------------------------------------ */

interface EncodeContext {
  readonly state: DocState;
  readonly warnings: string[];
  readonly linkedFiles: AgLinkedFile[];
  /**
   * Files are streamed (psd-stream.ts): each layer's channels are planned here instead of handed to ag-psd as
   * images, so no RGBA mask copy, canvas-sized solid raster or whole-document separation is made.
   */
  readonly plans: ChannelPlans;
  /** A CMYK file: layers are separated with the press profile (psd-cmyk.ts) as they are written. */
  readonly cmyk?: {
    readonly profilePath: string;
    readonly profile: PlanProfile;
    readonly inkSources: readonly InkSource[];
    /** The document's ink table, when it was made with this profile. */
    readonly table?: InkTable;
  };
  /** The bottom layer is Photoshop's Background (no transparency channel when opaque and unmasked). */
  readonly background: boolean;
}

function locksToAg(l: Locks): LockedProtection {
  const prot: LockedProtection = {
    transparency: l.transparency || l.all,
    composite: l.pixels || l.all,
    position: l.position || l.all,
  };
  if (l.all) prot.all = true;
  return prot;
}

/** The mask's record fields; its pixels are the layer's -2 channel (planned in layerToAg). */
function maskToAg(m: LayerMask): AgMask {
  const out: AgMask = { defaultColor: m.outside, disabled: !m.enabled };
  if (m.density !== undefined) out.userMaskDensity = m.density;
  if (m.feather !== undefined) out.userMaskFeather = m.feather;
  if (m.relative) out.positionRelativeToLayer = true;
  // Reveal-all and hide-all masks have no pixels and no bounds.
  if (m.w > 0 && m.h > 0) Object.assign(out, { left: m.x, top: m.y, right: m.x + m.w, bottom: m.y + m.h });
  return out;
}

const px = (value: number): UnitsValue => ({ units: 'Pixels', value });

/**
 * The inks (C, M, Y, K, 0–255) a colour is written with in a CMYK file: those the document's ink table holds for
 * it (the separation it came from, or the file it was read from), else its separation with the press profile.
 */
async function inksFor(cmyk: NonNullable<EncodeContext['cmyk']>, c: RGB): Promise<number[]> {
  const kept = inksOfColour(cmyk.table, c);
  if (kept) return kept;
  return (await cmykSamplesOf(c, cmyk.profilePath)).map((s) => 255 - s);
}

/**
 * A layer-style colour as the file's descriptor holds it: RGB, or in a CMYK file its inks in percent (a CMYK
 * file's styles in RGB would be separated again by whoever reads them, and psd-tools cannot composite an RGB
 * stroke over CMYK pixels at all).
 */
async function descriptorColour(ctx: EncodeContext, c: RGB): Promise<AgColor> {
  if (!ctx.cmyk) return { r: c.r, g: c.g, b: c.b };
  const [cy, m, y, k] = (await inksFor(ctx.cmyk, c)).map((v) => (v * 100) / 255);
  return { c: cy!, m: m!, y: y!, k: k! };
}

/** A text colour as the text engine data holds it: RGB, or in a CMYK file its inks, which ag-psd takes 0–255. */
async function textColour(ctx: EncodeContext, c: RGB): Promise<AgColor> {
  if (!ctx.cmyk) return { r: c.r, g: c.g, b: c.b };
  const [cy, m, y, k] = await inksFor(ctx.cmyk, c);
  return { c: cy!, m: m!, y: y!, k: k! };
}

async function effectsToAg(ctx: EncodeContext, fx: Effects): Promise<AgEffects | undefined> {
  const out: AgEffects = {};
  if (fx.stroke) {
    const s = fx.stroke;
    out.stroke = [
      {
        enabled: true,
        present: true,
        showInDialog: true,
        overprint: false,
        size: px(s.size),
        position: s.position,
        fillType: 'color',
        blendMode: s.blend,
        opacity: s.opacity,
        color: await descriptorColour(ctx, s.color),
      },
    ];
  }
  if (fx.dropShadow) {
    const d = fx.dropShadow;
    out.dropShadow = [
      {
        enabled: true,
        present: true,
        showInDialog: true,
        blendMode: d.blend,
        color: await descriptorColour(ctx, d.color),
        opacity: d.opacity,
        angle: d.angle,
        useGlobalLight: false,
        distance: px(d.distance),
        // Photoshop's "Spread" (percent) lives in the `Ckmt` key, which is typed in pixels.
        choke: px(d.spread),
        size: px(d.size),
        antialiased: false,
        layerConceals: true,
      },
    ];
  }
  return out.stroke || out.dropShadow ? out : undefined;
}

/** The four corners (TL, TR, BR, BL) of a smart object's source placed by `t`. */
export function smartCorners(t: SmartTransform, w: number, h: number): number[] {
  const rad = (t.angle * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  const out: number[] = [];
  for (const [lx, ly] of [
    [-w / 2, -h / 2],
    [w / 2, -h / 2],
    [w / 2, h / 2],
    [-w / 2, h / 2],
  ] as const) {
    const sx = lx * t.scaleX;
    const sy = ly * t.scaleY;
    out.push(t.cx + sx * cos - sy * sin, t.cy + sx * sin + sy * cos);
  }
  return out;
}

function fileNameFor(name: string): string {
  const clean = name.replace(/[\\/:*?"<>|\0]/g, '_').trim();
  return `${clean || '智能对象'}.png`;
}

async function layerToAg(ctx: EncodeContext, id: number): Promise<AgLayer> {
  const { state, warnings } = ctx;
  const layer = state.layers.get(id);
  if (!layer) throw new EditorError('internal', `文档结构损坏：找不到图层 ${id}`);
  let blend: AgBlendMode = layer.blend;
  if (blend === 'pass through' && layer.kind !== 'group') {
    blend = 'normal';
    warnings.push(`图层“${layer.name}”的混合模式“穿透”只适用于图层组，已按“正常”保存`);
  }
  const carried = carriedLayerFields(layer);
  const out: AgLayer = {
    ...carried,
    name: layer.name,
    hidden: !layer.visible,
    opacity: layer.opacity,
    blendMode: blend,
    clipping: layer.clipped,
    protected: { ...carried.protected, ...locksToAg(layer.locks) },
  };
  // Only when below 100 %, so files without fill opacity are written as before. ag-psd stores `fillOpacity ×
  // 255` with setUint8, which truncates: half a step up lands on the byte we mean whatever the float error.
  const fill = layer.fillOpacity;
  if (fill !== undefined && fill < 1) out.fillOpacity = (Math.round(Math.max(0, fill) * 255) + 0.5) / 255;
  if (layer.mask) out.mask = maskToAg(layer.mask);
  const ours = layer.effects ? await effectsToAg(ctx, layer.effects) : undefined;
  const fx = styleToWrite(layer, ours, globalAngleOf(state));
  if (fx) out.effects = writableStyle(fx, layer.name, warnings);
  // The mask's channel follows the colour channels, as ag-psd and Photoshop order them.
  const m = layer.mask;
  const maskChannels = m
    ? [m.w > 0 && m.h > 0 ? planeChannel(-2, m.w, m.h, m.data) : emptyChannel(-2, 1)]
    : [];
  const plan = (channels: ChannelPlan[]): void => {
    ctx.plans.set(out, { channels: [...channels, ...maskChannels] });
  };
  const cmyk = ctx.cmyk;
  /** Channel ids of a layer without pixels: transparency and the colour channels. */
  const emptyIds = cmyk ? [-1, 0, 1, 2, 3] : [-1, 0, 1, 2];
  const bottom = ctx.background && state.root[0] === id;
  const place = (r: Raster): void => {
    out.left = r.x;
    out.top = r.y;
    out.right = r.x + r.w;
    out.bottom = r.y + r.h;
    if (r.w === 0 || r.h === 0) {
      plan(emptyIds.map((c) => emptyChannel(c)));
      return;
    }
    // Photoshop's Background has no transparency channel.
    const withAlpha = !(bottom && !layer.mask && !hasTransparency(r.data));
    if (cmyk) {
      ctx.plans.set(out, cmykLayerPlan(r, cmyk.profile, withAlpha, maskChannels, cmyk.table));
      return;
    }
    const colour = [0, 1, 2].map((c) => rgbaChannel(c, r, c));
    plan(withAlpha ? [rgbaChannel(-1, r, 3), ...colour] : colour);
  };
  switch (layer.kind) {
    case 'pixel':
      place(layer.raster);
      break;
    case 'fill': {
      // Real pixels over the canvas: Photoshop has no "lazy" solid layer that every reader understands.
      const { width: w, height: h } = state;
      Object.assign(out, { left: 0, top: 0, right: w, bottom: h });
      const c = layer.color;
      const samples = cmyk ? (await inksFor(cmyk, c)).map((ink) => 255 - ink) : [c.r, c.g, c.b];
      const colour = samples.map((v, i) => flatChannel(i, w, h, v));
      plan(bottom && !layer.mask ? colour : [flatChannel(-1, w, h, 255), ...colour]);
      // Photoshop's own solid colour fill layer again (the pixels stay, for readers that do not know one).
      if (layer.solidColorLayer) out.vectorFill = { type: 'color', color: await descriptorColour(ctx, c) };
      break;
    }
    case 'text': {
      const t = layer.text;
      place(layer.raster);
      const kept = await keptText(ctx, layer, state.mode);
      if (kept) {
        out.text = kept;
        break;
      }
      if (layer.psdText) {
        const record = layer.psdText.record as unknown as NonNullable<AgLayer['text']>;
        const lost = textDropped(record);
        if (lost.length > 0) {
          warnings.push(`文字图层“${layer.name}”已修改，其${lost.join('、')}不再保留：各字按其字符样式保存`);
        }
      }
      out.text = await textRecordOf(ctx, t);
      break;
    }
    case 'smart': {
      place(layer.raster);
      const src = layer.source;
      const embedded = layer.embedded;
      if (embedded && embedded.source === src && typeof embedded.file.id === 'string') {
        // The content is still the file's: its own bytes go back (a layered PSD stays layered), placed anew.
        const file = embedded.file as unknown as AgLinkedFile;
        if (!ctx.linkedFiles.some((f) => f.id === file.id)) ctx.linkedFiles.push(file);
        out.placedLayer = {
          ...(embedded.placed as Omit<NonNullable<AgLayer['placedLayer']>, 'transform'>),
          transform: smartCorners(layer.transform, src.w, src.h),
        };
      } else if (src.w > 0 && src.h > 0) {
        if (embedded) {
          warnings.push(
            `智能对象“${layer.name}”的内容已更改，已按 PNG 嵌入，原嵌入文件“${String(embedded.file.name ?? '')}”不再保留`,
          );
        }
        const fileId = randomUUID();
        const png = await encodePng({ ...src, x: 0, y: 0 }, state.dpi);
        ctx.linkedFiles.push({ id: fileId, name: fileNameFor(layer.name), type: 'png', data: png });
        out.placedLayer = {
          id: fileId,
          placed: fileId,
          type: 'raster',
          transform: smartCorners(layer.transform, src.w, src.h),
          width: src.w,
          height: src.h,
          resolution: { units: 'Density', value: state.dpi },
        };
      } else {
        warnings.push(`智能对象“${layer.name}”没有源图像，已按普通像素图层保存`);
      }
      break;
    }
    case 'adjustment':
      out.adjustment = layer.adjustment as unknown as AgLayer['adjustment'];
      plan(emptyIds.map((c) => emptyChannel(c)));
      break;
    case 'group': {
      out.opened = layer.open;
      const children: AgLayer[] = [];
      for (let i = 0; i < layer.children.length; i++) {
        children.push(await layerToAg(ctx, layer.children[i]!));
      }
      out.children = children;
      plan(emptyIds.map((c) => emptyChannel(c)));
      break;
    }
  }
  return out;
}

/**
 * A text record for `t` as it is now: its words in their fonts, sizes and colours (a style run each where they
 * differ, over the first one's as the record's own style), its paragraph settings (point or
 * paragraph text with its box, its alignment) and its transform, whose origin is where Photoshop anchors the
 * text: the first baseline's start, centre or end for point text; for paragraph text the origin the box is
 * stated from. The font by PostScript name: a file's own name as the file gave it, whatever font draws it here.
 */
async function textRecordOf(ctx: EncodeContext, t: TextSpec): Promise<NonNullable<AgLayer['text']>> {
  const { justification, box, indent, space } = paragraphOf(t);
  // Paragraphs that differ: a paragraph run each (its text and its return), every setting stated.
  const runs = t.paragraphs
    ? textLines(t.content).map((line, k) => ({
        length: line.length + 1,
        style: { ...paragraphStyleOf(paragraphAt(t, k)), ...(box ? COMPOSED_AS_DRAWN : {}) },
      }))
    : undefined;
  const styleRuns = hasRuns(t)
    ? await Promise.all(
        runList(t).map(async (r) => ({
          length: r.length,
          style: {
            font: { name: psdFontName(r.font) },
            fontSize: r.size,
            fillColor: await textColour(ctx, r.color),
            ...agFaux(r),
            ...agSettings(r),
          },
        })),
      )
    : undefined;
  const [a, b, c, d] = t.transform ?? [1, 0, 0, 1];
  const anchor = textAnchor(t);
  // The anchor's place in the text's own space: the origin for point text; for paragraph text the box's left
  // edge, TEXT_BASELINE_EM below its top (x, y is the box's top-left corner).
  const [u, v] = box ? [box[0], box[1] + anchorDrop(t)] : [0, 0];
  const origin = { x: anchor.x - (a * u + c * v), y: anchor.y - (b * u + d * v) };
  const tidy = (n: number) => Math.round(n * 1e6) / 1e6 + 0;
  return {
    text: t.content,
    transform: [a, b, c, d, tidy(origin.x), tidy(origin.y)],
    antiAlias: 'smooth',
    style: {
      font: { name: psdFontName(t.font) },
      fontSize: t.size,
      fillColor: await textColour(ctx, t.color),
      ...agFaux(t),
      ...agSettings(t),
    },
    ...(justification || indent || space || box
      ? {
          paragraphStyle: {
            ...(justification ? { justification } : {}),
            ...(indent
              ? { startIndent: indent.left, firstLineIndent: indent.first, endIndent: indent.right }
              : {}),
            ...(space ? { spaceBefore: space.before, spaceAfter: space.after } : {}),
            ...(box ? COMPOSED_AS_DRAWN : {}),
          },
        }
      : {}),
    ...(styleRuns ? { styleRuns } : {}),
    ...(runs ? { paragraphStyleRuns: runs } : {}),
    ...(isVertical(t) ? { orientation: 'vertical' as const } : {}),
    ...(box ? { shapeType: 'box' as const, boxBounds: [...box] } : {}),
    ...(t.warp ? { bounds: warpBounds(t, anchor) } : {}),
    ...(t.warp
      ? {
          warp: {
            style: 'arc' as const,
            value: t.warp.bend,
            perspective: 0,
            perspectiveOther: 0,
            rotate: 'horizontal' as const,
          },
        }
      : {}),
  };
}

/** The box a warp bends (textWarpBox), from the text's anchor, in the record's points (px): what arcWarpOf reads. */
function warpBounds(t: TextSpec, anchor: { x: number; y: number }) {
  const box = textWarpBox(t);
  const pt = (value: number) => ({ units: 'Points' as const, value: Math.round(value * 1e4) / 1e4 + 0 });
  if (!box) return { left: pt(0), top: pt(0), right: pt(0), bottom: pt(0) };
  return {
    left: pt(box.left - anchor.x),
    top: pt(box.top - anchor.y),
    right: pt(box.right - anchor.x),
    bottom: pt(box.bottom - anchor.y),
  };
}

/**
 * The PSD's own text record for a text layer that is as it was read, or only moved (PsdText): moved by as much,
 * so the file keeps its paragraph box, style runs and the rest. After a change of colour mode (which converts the
 * spec read along with the layer's), the record in the document's mode: its one text colour as it is now.
 * Undefined once the text itself was edited, or when the mode changed under a record of several colours or with
 * a stroke (colours of the file's old mode that it cannot restate).
 */
async function keptText(
  ctx: EncodeContext,
  layer: TextLayer,
  mode: ColorMode,
): Promise<AgLayer['text'] | undefined> {
  const kept = layer.psdText;
  if (!kept) return undefined;
  const a = kept.spec;
  const b = layer.text;
  if (a !== b) {
    const same =
      a.content === b.content &&
      a.orientation === b.orientation &&
      a.size === b.size &&
      a.font === b.font &&
      a.color.r === b.color.r &&
      a.color.g === b.color.g &&
      a.color.b === b.color.b &&
      JSON.stringify(a.transform ?? null) === JSON.stringify(b.transform ?? null) &&
      sameParagraph(a, b) &&
      sameRuns(a, b);
    if (!same) return undefined;
  }
  let record = kept.record as unknown as NonNullable<AgLayer['text']>;
  if (kept.mode !== mode) {
    const recoloured = await recolouredText(ctx, record, b);
    if (!recoloured) return undefined;
    record = recoloured;
  }
  const m = record.transform ?? [1, 0, 0, 1, 0, 0];
  const moved = [...m.slice(0, 4), (m[4] ?? 0) + b.x - a.x, (m[5] ?? 0) + b.y - a.y];
  return { ...record, transform: moved };
}

/**
 * `record` with its text colours restated as `spec`'s, in the document's mode: each style run takes the colour of
 * the spec's character it starts at (the spec's runs are the record's with those of one font, size and colour
 * merged). Undefined with a stroke, whose colour a TextSpec does not hold.
 */
async function recolouredText(
  ctx: EncodeContext,
  record: NonNullable<AgLayer['text']>,
  spec: TextSpec,
): Promise<NonNullable<AgLayer['text']> | undefined> {
  const styles = [record.style ?? {}, ...(record.styleRuns ?? []).map((r) => r.style)];
  if (styles.some((st) => st.strokeFlag === true)) return undefined;
  const fillColor = await textColour(ctx, spec.color);
  let at = 0;
  const styleRuns = record.styleRuns
    ? await Promise.all(
        record.styleRuns.map(async (r) => {
          const start = at;
          at += r.length;
          return {
            ...r,
            style: { ...r.style, fillColor: await textColour(ctx, styleAt(spec, start).color) },
          };
        }),
      )
    : undefined;
  return { ...record, style: { ...(record.style ?? {}), fillColor }, ...(styleRuns ? { styleRuns } : {}) };
}

/** Whether `layer` should be written as Photoshop's locked "Background" (no transparency channel). */
function isBackgroundLayer(state: DocState, layer: Layer | undefined): boolean {
  if (!layer || !(layer.kind === 'pixel' || layer.kind === 'fill') || !layer.background) return false;
  if (layer.kind === 'fill') return true;
  const r = layer.raster;
  return r.x === 0 && r.y === 0 && r.w === state.width && r.h === state.height;
}

/**
 * Writes `state` as a layered PSD (PSB when a side exceeds 30,000 px, or when `opts.psb` asks for it).
 * `composite` is the flattened document, stored as the merged image; it should cover the canvas and is cropped
 * to it when it does not.
 */
export async function encodePsd(
  state: DocState,
  composite: Raster,
  opts: EncodePsdOptions = {},
): Promise<EncodedPsd> {
  const sink = new MemorySink();
  const warnings = await writePsd(sink, state, composite, opts);
  return { buffer: await sink.finish(), warnings };
}

/**
 * Writes `state` as `encodePsd` does to the open file `fd` (from its start, truncated to what was written),
 * streaming an RGB document channel by channel. Returns the warnings. A descriptor, not a file handle: the PSD
 * worker thread writes through the one its caller opened (psd-thread.ts).
 */
export async function writePsdFile(
  fd: number,
  state: DocState,
  composite: Raster,
  opts: EncodePsdOptions = {},
): Promise<string[]> {
  const sink = new FileSink(fdWriter(fd));
  const warnings = await writePsd(sink, state, composite, opts);
  await sink.finish();
  // A job run again after its worker died writes over what the first attempt left.
  await promisify(ftruncate)(fd, sink.position);
  return warnings;
}

/** The first layer whose pixels or mask are wider or taller than a PSD (version 1) records, if any. */
function oversizedLayer(state: DocState): { name: string; w: number; h: number } | undefined {
  for (const layer of state.layers.values()) {
    for (const r of [layer.mask, 'raster' in layer ? layer.raster : undefined]) {
      if (r && (r.w > PSD_MAX_SIDE || r.h > PSD_MAX_SIDE)) return { name: layer.name, w: r.w, h: r.h };
    }
  }
  return undefined;
}

/** Streams the document to `sink` (psd-stream.ts); returns the warnings. */
async function writePsd(
  sink: PsdSink,
  state: DocState,
  composite: Raster,
  opts: EncodePsdOptions,
): Promise<string[]> {
  setUpAgPsd();
  const docName = opts.name ? `“${opts.name}”` : '';
  const { width, height } = state;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new EditorError('invalid_state', `文档${docName}尺寸 ${width}×${height} 无效，无法保存为 PSD`);
  }
  if (width > PSB_MAX_SIDE || height > PSB_MAX_SIDE || width * height > MAX_DOCUMENT_PIXELS) {
    throw new EditorError(
      'out_of_bounds',
      `文档${docName}尺寸 ${width}×${height} 超过上限（每边最多 ${PSB_MAX_SIDE.toLocaleString('en-US')} 像素，宽×高最多 ${MAX_DOCUMENT_PIXELS.toLocaleString('en-US')} 像素，约 2.68 亿），无法保存`,
      { hint: '用 resize_image 或 crop_document 减小文档尺寸后再保存' },
    );
  }
  // Rectangles are signed 32-bit in the file: one beyond would be written wrapped to the other side.
  for (const layer of state.layers.values()) {
    const rects = [layer.mask, 'raster' in layer ? layer.raster : undefined].filter((r) => r !== undefined);
    for (const r of rects) {
      if (reachOf(r) > MAX_LAYER_REACH) {
        throw new EditorError('out_of_bounds', `图层“${layer.name}”的位置超出 PSD 能记录的范围，无法保存`, {
          hint: '用 move_layer 把图层移回画布附近后再保存',
        });
      }
    }
  }
  // The press profile first: a CMYK document whose profile is missing fails before any work.
  const profile = state.mode === 'cmyk' ? documentProfile(state) : undefined;
  const warnings: string[] = [];
  let merged = composite;
  if (merged.x !== 0 || merged.y !== 0 || merged.w !== width || merged.h !== height) {
    merged = cropRaster(merged, { x: 0, y: 0, w: width, h: height });
  }
  if (merged.data.length !== width * height * 4) {
    throw new EditorError(
      'invalid_arguments',
      `合成图像素数据长度 ${merged.data.length} 与尺寸 ${width}×${height} 不符`,
    );
  }

  const bottom = state.root.length > 0 ? state.layers.get(state.root[0]!) : undefined;
  const background = isBackgroundLayer(state, bottom);
  const plans: ChannelPlans = new WeakMap();
  const cmyk = profile
    ? {
        profilePath: profile.path,
        profile,
        inkSources: documentInkSources(state, profile.bytes),
        ...(tableApplies(state.inkTable, profile.bytes) ? { table: state.inkTable } : {}),
      }
    : undefined;
  const ctx: EncodeContext = {
    state,
    warnings,
    linkedFiles: [],
    background,
    plans,
    ...(cmyk ? { cmyk } : {}),
  };
  const children: AgLayer[] = [];
  for (let i = 0; i < state.root.length; i++) {
    children.push(await layerToAg(ctx, state.root[i]!));
  }

  let dpi = state.dpi;
  if (dpi > PSD_MAX_DPI) {
    warnings.push(
      `文档${docName}的分辨率 ${dpi} DPI 超过 PSD 能记录的上限，已按 ${PSD_MAX_DPI} DPI 保存（像素不变）`,
    );
    dpi = PSD_MAX_DPI;
  }
  const carried = carriedResources(state);
  const psd: AgPsd = {
    ...carriedDocumentFields(state),
    width,
    height,
    imageData: pixelDataOf(merged),
    children,
    imageResources: {
      ...carried,
      resolutionInfo: {
        // The units Photoshop shows the resolution and size in, as the file had them; the numbers are ours.
        horizontalResolutionUnit: 'PPI',
        widthUnit: 'Inches',
        verticalResolutionUnit: 'PPI',
        heightUnit: 'Inches',
        ...carried.resolutionInfo,
        horizontalResolution: dpi,
        verticalResolution: dpi,
      },
    },
  };
  delete psd.imageResources!.gridAndGuidesInformation;
  if (state.guides.length > 0) {
    psd.imageResources!.gridAndGuidesInformation = {
      grid: carried.gridAndGuidesInformation?.grid ?? { horizontal: 18 * 32, vertical: 18 * 32 },
      guides: state.guides.map((g) => ({ location: g.position, direction: g.direction })),
    };
  }
  if (ctx.linkedFiles.length > 0) psd.linkedFiles = ctx.linkedFiles;

  // A PSD records a layer no wider or taller than its canvas may be (readers refuse it, and a packed row of one
  // over 65,535 bytes would not fit its 16-bit count): a layer beyond that, e.g. a long line of text, needs a PSB.
  const oversized = psdVersionFor(width, height) === 1 ? oversizedLayer(state) : undefined;
  const psb = opts.psb === true || psdVersionFor(width, height) === 2 || oversized !== undefined;
  if (oversized && opts.psb !== true) {
    warnings.push(
      `图层“${oversized.name}”${oversized.w}×${oversized.h} 像素，超过 PSD 每边 ${PSD_MAX_SIDE.toLocaleString('en-US')} 像素的上限，已按 PSB（大型文档格式）保存，Photoshop 照常打开`,
    );
  }
  if (psdVersionFor(width, height) === 2 && opts.psb !== true) {
    warnings.push(
      `文档${docName}尺寸 ${width}×${height} 超过 PSD 每边 ${PSD_MAX_SIDE.toLocaleString('en-US')} 像素的上限，已按 PSB（大型文档格式）保存，Photoshop 照常打开；只支持 PSD 的软件读不了它，文件名宜用 .psb`,
    );
  }
  const maxBytes = psb ? undefined : (opts.maxPsdBytes ?? PSD_MAX_BYTES);
  // RGB documents are sRGB: saying so keeps Photoshop and RIPs from taking them in their own working space.
  embedProfile(psd, profile ? profile.bytes : srgbProfile());
  try {
    await streamPsd(sink, psd, plans, merged, {
      psb,
      background,
      ...(cmyk ? { cmyk } : {}),
      maxBytes,
      channels: state.channels ?? [],
      channelResources: channelResourcesOf(state),
    });
    return warnings;
  } catch (err) {
    if (err instanceof PsdTooLarge) {
      sink.reset();
      const again = await writePsd(sink, state, composite, { ...opts, psb: true });
      const size = err.limit >= 1024 ** 3 ? `${Math.round(err.limit / 1024 ** 3)} GB` : `${err.limit} 字节`;
      return [
        ...again,
        `文档${docName}按 PSD 保存将超过 ${size}（PSD 格式的上限），已按 PSB（大型文档格式）保存，Photoshop 照常打开；只支持 PSD 的软件需要更小的文件（减少或合并图层）`,
      ];
    }
    if (err instanceof EditorError) throw err;
    throw new EditorError('io_error', `写入${profile ? ' CMYK ' : ' '}PSD 失败：${reason(err)}`);
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* decode                                                                                                       */
/* ------------------------------------------------------------------------------------------------------------ */

interface DecodeContext {
  readonly psd: AgPsd;
  readonly layers: Map<number, Layer>;
  readonly warnings: string[];
  readonly losses: Loss[];
  /** The file is placed, not opened: see DecodePsdOptions. */
  readonly placed?: boolean;
  readonly dpi: number;
  /** For a CMYK file: the profile its inks are converted to sRGB with. */
  readonly icc?: Uint8Array;
  /** For a CMYK file: its ink table, the colours of its layers with the inks the file holds for them. */
  readonly inkTable?: InkTable;
  /** For an RGB or grayscale file tagged with a profile other than sRGB: its conversion to sRGB. */
  readonly source?: SourceProfile;
  nextId: number;
}

const clamp255 = (v: number): number => Math.max(0, Math.min(255, Math.round(v)));

/**
 * Warns of something the document will not keep, and lists it (`what`, of `layer` when it is one layer's) among
 * the losses every save repeats. A placed file is embedded whole, so nothing of it is lost and no warning is due:
 * what stands in for it (a text layer's or a smart object's own pixels) is what Photoshop drew.
 */
function lose(
  ctx: Pick<DecodeContext, 'warnings' | 'losses' | 'placed'>,
  warning: string,
  what: string,
  layer?: number,
): void {
  if (!ctx.placed) ctx.warnings.push(warning);
  ctx.losses.push(layer === undefined ? { what } : { what, layer });
}

/** sRGB from the colour forms PSD descriptors and text engine data use. */
function colorToRgb(c: AgColor | undefined, warnings: string[], what: string): RGB {
  if (!c) return { r: 0, g: 0, b: 0 };
  if ('r' in c) return { r: clamp255(c.r), g: clamp255(c.g), b: clamp255(c.b) };
  const values = channelValues(c);
  if (values)
    return { r: clamp255(values[0] * 255), g: clamp255(values[1] * 255), b: clamp255(values[2] * 255) };
  if ('c' in c) {
    // Naive ink → RGB; colours in effects are rarely CMYK.
    const k = c.k / 100;
    return {
      r: clamp255(255 * (1 - c.c / 100) * (1 - k)),
      g: clamp255(255 * (1 - c.m / 100) * (1 - k)),
      b: clamp255(255 * (1 - c.y / 100) * (1 - k)),
    };
  }
  if ('l' in c) {
    // CIE Lab (D50) → sRGB.
    const fy = (c.l + 16) / 116;
    const fx = fy + c.a / 500;
    const fz = fy - c.b / 200;
    const inv = (t: number) => (t ** 3 > 0.008856 ? t ** 3 : (t - 16 / 116) / 7.787);
    const X = 0.9642 * inv(fx);
    const Y = 1.0 * inv(fy);
    const Z = 0.8249 * inv(fz);
    const lin = [
      3.1339 * X - 1.6169 * Y - 0.4906 * Z,
      -0.9788 * X + 1.9161 * Y + 0.0335 * Z,
      0.0719 * X - 0.229 * Y + 1.4052 * Z,
    ];
    const enc = (u: number) => 255 * (u <= 0.0031308 ? 12.92 * u : 1.055 * u ** (1 / 2.4) - 0.055);
    return { r: clamp255(enc(lin[0]!)), g: clamp255(enc(lin[1]!)), b: clamp255(enc(lin[2]!)) };
  }
  warnings.push(`${what}的颜色格式无法识别，已改为黑色`);
  return { r: 0, g: 0, b: 0 };
}

/**
 * A colour of the file's layers (fills, text, effects) in sRGB: ink colours of a CMYK file and colours of a
 * tagged RGB or gray file through the file's profile, as its pixels are; Lab is absolute, taken as it is. In a
 * 32-bit file they are linear light, as its pixels are: Photoshop stores a 32-bit document's colours in its
 * linear profile (the default Blue, Red, Yellow gradient's blue, 10 0 178 in sRGB, is saved as 0.74 0 113.5 —
 * psd-tools' colormodes/4x4_32bit_rgb.psd — and a gray's ink as 100 % less its linear lightness).
 */
async function fileColour(c: AgColor | undefined, ctx: DecodeContext, what: string): Promise<RGB> {
  const linear = ctx.psd.bitsPerChannel === 32 && c ? channelValues(c) : undefined;
  if (linear) {
    const data = await linearInSrgb({ width: 1, height: 1, data: new Float32Array([...linear, 1]) }, ctx);
    return { r: data[0]!, g: data[1]!, b: data[2]! };
  }
  if (c && 'c' in c && ctx.icc) {
    const inks = new Uint8Array([c.c, c.m, c.y, c.k].map((v) => clamp255((v * 255) / 100)));
    const rgba = await rgbaFromCmyk(inks, 1, 1, 4, ctx.icc);
    // Saved again with the very inks it was given (a C100 fill stays C100), as the file's pixels are.
    if (ctx.inkTable) recordPixels(ctx.inkTable, rgba, inks, 4);
    return { r: rgba[0]!, g: rgba[1]!, b: rgba[2]! };
  }
  const rgb = colorToRgb(c, ctx.warnings, what);
  return c && 'l' in c ? rgb : colourInSrgb(ctx.source, rgb);
}

function unitsToPx(u: UnitsValue | undefined, dpi: number): number {
  if (!u) return 0;
  switch (u.units) {
    case 'Points':
      return (u.value * dpi) / 72;
    case 'Millimeters':
      return (u.value * dpi) / 25.4;
    case 'Centimeters':
      return (u.value * dpi) / 2.54;
    case 'Inches':
      return u.value * dpi;
    case 'Picas':
      return (u.value * dpi) / 6;
    default:
      return u.value;
  }
}

/** Steps of the linear-light → sRGB table: fine enough that no 8-bit result is off by one (16 bits). */
const LINEAR_STEPS = 65536;
let srgbOfLinear: Uint8Array | undefined;

/** The sRGB transfer function (IEC 61966-2-1) on a linear value, 0–1 → 0–255, as a table. */
function linearToSrgbTable(): Uint8Array {
  if (srgbOfLinear) return srgbOfLinear;
  const t = new Uint8Array(LINEAR_STEPS + 1);
  for (let i = 0; i <= LINEAR_STEPS; i++) {
    const u = i / LINEAR_STEPS;
    t[i] = Math.round(255 * (u <= 0.0031308 ? 12.92 * u : 1.055 * u ** (1 / 2.4) - 0.055));
  }
  srgbOfLinear = t;
  return t;
}

/**
 * Straight RGBA8 from ag-psd pixel data of any depth. 32-bit (float) files hold linear light — Photoshop keeps
 * 32 bits/channel documents in a linear version of their profile (its primaries, gamma 1), converting 8- and
 * 16-bit pixels when it makes one — so their colour channels are taken to linear sRGB with `linear` (the file
 * profile's SourceProfile.linear; none for sRGB) and encoded with the sRGB curve (values beyond 0–1, HDR
 * highlights and colours outside sRGB, are clipped); alpha and `coverage` data (masks) are coverage, taken as
 * they are.
 */
function toRgba8(p: AgPixelData, coverage = false, linear?: readonly number[]): Uint8ClampedArray {
  const d = p.data;
  // 8-bit data is used as it is when already in shared memory (allocated by createImageData), else copied.
  if (d instanceof Uint8ClampedArray || d instanceof Uint8Array) return sharePixels(d);
  const out = allocPixels(d.length);
  if (d instanceof Uint16Array) {
    for (let i = 0; i < d.length; i++) out[i] = Math.round(d[i]! / 257);
    return out;
  }
  const srgb = linearToSrgbTable();
  if (linear && !coverage) {
    const m = linear;
    const encode = (v: number) => srgb[Math.round((Math.max(0, Math.min(1, v)) || 0) * LINEAR_STEPS)]!;
    for (let i = 0; i < d.length; i += 4) {
      const r = d[i]!;
      const g = d[i + 1]!;
      const b = d[i + 2]!;
      out[i] = encode(m[0]! * r + m[1]! * g + m[2]! * b);
      out[i + 1] = encode(m[3]! * r + m[4]! * g + m[5]! * b);
      out[i + 2] = encode(m[6]! * r + m[7]! * g + m[8]! * b);
      out[i + 3] = Math.round((Math.max(0, Math.min(1, d[i + 3]!)) || 0) * 255);
    }
    return out;
  }
  for (let i = 0; i < d.length; i++) {
    const v = Math.max(0, Math.min(1, d[i]!)) || 0;
    out[i] = coverage || (i & 3) === 3 ? Math.round(v * 255) : srgb[Math.round(v * LINEAR_STEPS)]!;
  }
  return out;
}

const unit = (v: number): number => Math.max(0, Math.min(1, v)) || 0;

/**
 * Straight sRGB RGBA8 of a 32-bit file's linear pixels (or colours): through the matrix of its profile's
 * colorants (toRgba8; none for sRGB), or, for a LUT-based profile, which has none, through the profile itself
 * at 16 bits by LittleCMS (SourceProfile.convertWide). Either way they are not read through the profile as
 * 8-bit values, which would take them as encoded with its curve.
 */
async function linearInSrgb(p: AgPixelData, ctx: DecodeContext): Promise<Uint8ClampedArray> {
  const source = ctx.source;
  const d = p.data;
  if (!source || source.linear || !(d instanceof Float32Array)) return toRgba8(p, false, source?.linear);
  const n = p.width * p.height;
  const rgb = new Uint16Array(n * 3);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) rgb[i * 3 + c] = Math.round(unit(d[i * 4 + c]!) * 65535);
  }
  const out = await source.convertWide(rgb, p.width, p.height);
  for (let i = 0; i < n; i++) out[i * 4 + 3] = Math.round(unit(d[i * 4 + 3]!) * 255);
  return out;
}

/** The layer's pixel data as ag-psd decodes it, when it has any. */
function layerImageOf(l: AgLayer): AgPixelData | undefined {
  const w = (l.right ?? 0) - (l.left ?? 0);
  const h = (l.bottom ?? 0) - (l.top ?? 0);
  if (w <= 0 || h <= 0) return undefined;
  return getLayerImageData(l);
}

function rasterOf(l: AgLayer): Raster {
  const img = layerImageOf(l);
  if (!img) return emptyRaster();
  return { x: l.left ?? 0, y: l.top ?? 0, w: img.width, h: img.height, data: toRgba8(img) };
}

/** A 32-bit file's layer in sRGB (linearInSrgb). */
async function linearRasterOf(l: AgLayer, ctx: DecodeContext): Promise<Raster> {
  const img = layerImageOf(l);
  if (!img) return emptyRaster();
  return { x: l.left ?? 0, y: l.top ?? 0, w: img.width, h: img.height, data: await linearInSrgb(img, ctx) };
}

function maskOf(l: AgLayer): LayerMask | undefined {
  const m = l.mask;
  if (!m) return undefined;
  const outside: 0 | 255 = (m.defaultColor ?? 0) >= 128 ? 255 : 0;
  const enabled = !m.disabled;
  const w = (m.right ?? 0) - (m.left ?? 0);
  const h = (m.bottom ?? 0) - (m.top ?? 0);
  const img = w > 0 && h > 0 ? getLayerMaskImageData(l) : undefined;
  if (!img) return { x: 0, y: 0, w: 0, h: 0, data: new Uint8Array(0), outside, enabled };
  const src = toRgba8(img, true);
  const n = img.width * img.height;
  const data = allocMask(n);
  for (let i = 0; i < n; i++) data[i] = src[i * 4]!;
  return { x: m.left ?? 0, y: m.top ?? 0, w: img.width, h: img.height, data, outside, enabled };
}

function locksOf(l: AgLayer): Locks {
  const p = (l.protected ?? {}) as LockedProtection;
  return {
    all: !!p.all,
    pixels: !!p.composite,
    position: !!p.position,
    transparency: !!p.transparency || !!l.transparencyProtected,
  };
}

const EFFECT_NAMES: Record<string, string> = {
  innerShadow: '内阴影',
  outerGlow: '外发光',
  innerGlow: '内发光',
  bevel: '斜面和浮雕',
  solidFill: '颜色叠加',
  satin: '光泽',
  gradientOverlay: '渐变叠加',
  patternOverlay: '图案叠加',
};

/** A Photoshop solid colour fill layer covering the canvas (a fill layer here, not pixels). */
function isSolidColorFill(
  l: AgLayer,
): l is AgLayer & { vectorFill: Extract<NonNullable<AgLayer['vectorFill']>, { type: 'color' }> } {
  return l.vectorFill?.type === 'color' && !l.vectorMask;
}

async function effectsOf(l: AgLayer, ctx: DecodeContext): Promise<Effects | undefined> {
  const fx = l.effects;
  const name = l.name ?? '';
  if (!fx) return undefined;
  // The file's style is carried whole (carriedOf), so what is not shown here is still written back.
  if (fx.disabled) {
    ctx.warnings.push(`图层“${name}”的图层样式处于关闭状态：预览不显示，保存时原样保留`);
    return undefined;
  }
  const blendOf = (m: AgBlendMode | undefined, what: string): BlendMode => {
    if (m === undefined) return 'normal';
    if (isBlendMode(m) && m !== 'pass through') return m;
    ctx.warnings.push(`图层“${name}”的${what}混合模式“${m}”不受支持，预览按“正常”显示`);
    return 'normal';
  };
  let stroke: StrokeEffect | undefined;
  let dropShadow: DropShadowEffect | undefined;
  const strokes = (fx.stroke ?? []).filter((s) => s.enabled !== false);
  if (strokes.length > 0) {
    const s = strokes[0]!;
    if (s.fillType && s.fillType !== 'color') {
      ctx.warnings.push(`图层“${name}”的描边使用渐变或图案填充：预览不显示，保存时原样保留`);
    } else {
      stroke = {
        size: round6(unitsToPx(s.size, ctx.dpi)),
        position: s.position ?? 'outside',
        color: await fileColour(s.color, ctx, `图层“${name}”描边`),
        opacity: s.opacity ?? 1,
        blend: blendOf(s.blendMode, '描边'),
      };
    }
    if (strokes.length > 1) ctx.warnings.push(`图层“${name}”有多个描边：预览只显示第一个，保存时全部保留`);
  }
  const read: StyleReading = {
    colour: (c, what) => fileColour(c, ctx, what),
    px: (u) => round6(unitsToPx(u, ctx.dpi)),
    globalAngle: ctx.psd.imageResources?.globalAngle,
  };
  const shadows = (fx.dropShadow ?? []).filter((s) => s.enabled !== false);
  if (shadows.length > 0) {
    const d = shadows[0]!;
    dropShadow = await shadowOf(d, blendOf(d.blendMode, '投影'), `图层“${name}”投影`, read);
    if (shadows.length > 1) ctx.warnings.push(`图层“${name}”有多个投影：预览只显示第一个，保存时全部保留`);
  }
  // Overlays are drawn on a layer with pixels of its own and on a solid colour fill layer (whose shape is the
  // canvas), glows and inner shadows on the first only; a group's are kept and said not to be.
  const fill = isSolidColorFill(l);
  const canDraw = !l.children && (!fill || ctx.psd.width * ctx.psd.height <= FILL_OVERLAY_MAX_PIXELS);
  const styled = await styleEffectsOf(l, canDraw, !fill, name, read);
  const { undrawn: styleUndrawn, ...drawn } = styled;
  const dropped = Object.keys(EFFECT_NAMES).filter((k) => {
    if (STYLE_EFFECT_KEYS.has(k)) return false;
    const v = (fx as Record<string, unknown>)[k];
    const list = Array.isArray(v) ? v : v ? [v] : [];
    return list.some((e) => (e as { enabled?: boolean }).enabled !== false);
  });
  const undrawn = [...styleUndrawn, ...dropped.map((k) => EFFECT_NAMES[k])];
  if (undrawn.length > 0) {
    ctx.warnings.push(`图层“${name}”的图层样式（${undrawn.join('、')}）预览不显示，保存时原样保留`);
  }
  if (!stroke && !dropShadow && Object.keys(drawn).length === 0) return undefined;
  return { ...(stroke ? { stroke } : {}), ...(dropShadow ? { dropShadow } : {}), ...drawn };
}

/** The smart transform placing a `w × h` source at the corners TL, TR, BR, BL; undefined when not affine. */
export function smartTransformFromCorners(
  c: readonly number[],
  w: number,
  h: number,
): SmartTransform | undefined {
  if (c.length < 8 || w <= 0 || h <= 0) return undefined;
  const [x0, y0, x1, y1, x2, y2, x3, y3] = c as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ux = x1 - x0;
  const uy = y1 - y0;
  const vx = x3 - x0;
  const vy = y3 - y0;
  const tol = 0.01 * Math.max(1, Math.hypot(ux, uy), Math.hypot(vx, vy));
  // A parallelogram (TL + BR = TR + BL) whose sides are perpendicular: scale, rotation, translation only.
  if (Math.abs(x0 + x2 - x1 - x3) > tol || Math.abs(y0 + y2 - y1 - y3) > tol) return undefined;
  if (Math.abs(ux * vx + uy * vy) > tol * Math.max(1, Math.hypot(ux, uy), Math.hypot(vx, vy)))
    return undefined;
  const angleRad = Math.atan2(uy, ux);
  const scaleX = Math.hypot(ux, uy) / w;
  // Project v on the rotated y axis (-sin, cos): negative when the source is flipped vertically.
  const scaleY = (-vx * Math.sin(angleRad) + vy * Math.cos(angleRad)) / h;
  if (scaleX === 0 || scaleY === 0) return undefined;
  let angle = (angleRad * 180) / Math.PI;
  if (angle <= -180) angle += 360;
  return {
    cx: round6((x0 + x1 + x2 + x3) / 4),
    cy: round6((y0 + y1 + y2 + y3) / 4),
    scaleX: round6(scaleX),
    scaleY: round6(scaleY),
    angle: round6(angle) === 0 ? 0 : round6(angle),
  };
}

async function smartSourceOf(
  l: AgLayer,
  ctx: DecodeContext,
): Promise<{ source: Raster; transform: SmartTransform; embedded: SmartEmbedded } | string> {
  const placed = l.placedLayer!;
  const file = ctx.psd.linkedFiles?.find((f) => f.id === placed.id);
  if (!file?.data) return '其源文件没有嵌入在 PSD 中';
  if (placed.nonAffineTransform && placed.transform) {
    const same = placed.nonAffineTransform.every((v, i) => Math.abs(v - placed.transform[i]!) < 0.01);
    if (!same) return '使用了透视变形';
  }
  const warpStyle = placed.warp?.style;
  if (warpStyle && warpStyle !== 'none' && !isIdentityWarp(placed)) {
    return '使用了变形';
  }
  let source: Raster | undefined;
  if (isPsdBytes(file.data)) {
    // Photoshop's "Convert to Smart Object" embeds a PSB: its merged image is the source.
    source = embeddedPsdComposite(file.data);
    if (source)
      ctx.warnings.push(
        `智能对象“${l.name ?? ''}”内嵌的 PSD 按合并图像显示；内容不变时保存时原样写回，替换或修改内容后其内部图层不再保留`,
      );
  } else {
    try {
      source = (await decodeImage(file.data)).raster;
    } catch {
      source = undefined;
    }
  }
  if (!source) return `其源文件“${file.name}”的格式无法读取`;
  const transform = smartTransformFromCorners(placed.transform, source.w, source.h);
  if (!transform) return '其变换不是单纯的缩放、旋转和移动';
  // The corners are written from `transform`; the rest of the placement describes the file, kept with it.
  const { transform: _corners, nonAffineTransform: _same, warp: _identity, ...rest } = placed;
  // A copy of the bytes: ag-psd's are a view into the whole file's buffer, which the layer would keep alive (and a
  // session snapshot would write out) for as long as the document lives.
  const kept = { ...file, data: file.data.slice() };
  return { source, transform, embedded: { source, file: kept, placed: rest } };
}

function isPsdBytes(d: Uint8Array): boolean {
  return d.length >= 26 && d[0] === 0x38 && d[1] === 0x42 && d[2] === 0x50 && d[3] === 0x53; // '8BPS'
}

function embeddedPsdComposite(d: Uint8Array): Raster | undefined {
  try {
    checkHeader(d);
    const inner = withAgLog([], () =>
      readPsd(d, {
        useRawData: true,
        skipLayerImageData: true,
        skipThumbnail: true,
        skipLinkedFilesData: true,
      }),
    );
    checkMergedImage(inner, d[5] === 2);
    const img = getCompositeImageData(inner);
    if (!img || img.width <= 0 || img.height <= 0) return undefined;
    const data = toRgba8(img);
    // With layers, Photoshop (and ag-psd) store the transparent merged image blended over white.
    if ((inner.children?.length ?? 0) > 0) unblendWhite(data);
    return { x: 0, y: 0, w: img.width, h: img.height, data };
  } catch {
    return undefined;
  }
}

/** Undoes the white matte on semi-transparent pixels of a merged image, in place. */
function unblendWhite(d: Uint8ClampedArray): Uint8ClampedArray {
  for (let i = 0; i < d.length; i += 4) {
    const a = d[i + 3]!;
    if (a === 0 || a === 255) continue;
    const f = a / 255;
    const white = 255 * (1 - f);
    d[i] = (d[i]! - white) / f;
    d[i + 1] = (d[i + 1]! - white) / f;
    d[i + 2] = (d[i + 2]! - white) / f;
  }
  return d;
}

/** ag-psd reports a regular 4×4 mesh over the source for unwarped smart objects. */
function isIdentityWarp(placed: NonNullable<AgLayer['placedLayer']>): boolean {
  const warp = placed.warp;
  if (!warp) return true;
  if (warp.style !== 'custom') return (warp.value ?? 0) === 0;
  const mesh = warp.customEnvelopeWarp?.meshPoints;
  const w = placed.width ?? 0;
  const h = placed.height ?? 0;
  if (!mesh) return true;
  if (mesh.length !== 16 || !w || !h) return false;
  const left = (warp.bounds?.left as UnitsValue | undefined)?.value ?? 0;
  const top = (warp.bounds?.top as UnitsValue | undefined)?.value ?? 0;
  return mesh.every((p, i) => {
    const ex = left + ((i % 4) * w) / 3;
    const ey = top + (Math.floor(i / 4) * h) / 3;
    return Math.abs(p.x - ex) < 0.01 * Math.max(1, w) && Math.abs(p.y - ey) < 0.01 * Math.max(1, h);
  });
}

/**
 * A text colour on the scale of descriptor colours, which fileColour reads: ag-psd gives the text engine's CMYK
 * inks and gray (a grayscale file's ink amount, as descriptors' `Gry `) 0–255 (its 0–1 values × 255),
 * descriptors give them in percent.
 */
function textFill(c: AgColor | undefined): AgColor | undefined {
  if (!c) return c;
  const percent = (v: number) => (v * 100) / 255;
  if ('c' in c) return { c: percent(c.c), m: percent(c.m), y: percent(c.y), k: percent(c.k) };
  if ('k' in c) return { k: percent(c.k) };
  return c;
}

/**
 * How paragraph text is composed, stated so that Photoshop breaks its lines where Atelier drew them once the text is
 * edited there (ag-psd writes its own defaults for what a record leaves unstated): at spaces and between CJK
 * characters only, never inside a word (text-paragraph.ts), so Hyphenate off; and its justified lines' spaces only
 * ever widened, never narrowed to take one more word, so the words' spacing at least 100 % — the spacing Photoshop's
 * own files state (test/fixtures/photoshop-text: the renderings its justified lines are compared with), where
 * ag-psd's default lets Photoshop narrow the spaces to 80 %.
 */
const COMPOSED_AS_DRAWN = {
  autoHyphenate: false,
  wordSpacing: [1, 1, 2],
  letterSpacing: [0, 0, 0.05],
} as const satisfies Partial<AgParagraphStyle>;

/** Every paragraph style of a text record: the record's own, then each run over it. */
function paragraphStyles(t: NonNullable<AgLayer['text']>): AgParagraphStyle[] {
  return [
    t.paragraphStyle ?? {},
    ...(t.paragraphStyleRuns ?? []).map((r) => ({ ...t.paragraphStyle, ...r.style })),
  ];
}

/** A word Photoshop's Hyphenate may break: at least its HyphenatedWordSize letters of a Latin script. */
function hyphenatable(t: NonNullable<AgLayer['text']>): boolean {
  const on = paragraphStyles(t).filter((p) => p.autoHyphenate === true);
  if (on.length === 0) return false;
  const shortest = Math.max(1, Math.min(...on.map((p) => p.hyphenatedWordSize ?? 6)));
  return new RegExp(`\\p{Script=Latin}{${shortest},}`, 'u').test(t.text ?? '');
}

/** Character attributes a TextSpec does not hold, with the value that means "not used" and their names. */
const TEXT_STYLE_DEFAULTS: readonly (readonly [keyof AgTextStyle, unknown, string])[] = [
  ['strokeFlag', false, '文字描边'],
];

/**
 * Each paragraph's alignment, indents and space in a text record, first paragraph first: the run a paragraph
 * starts in over the record's default (ag-psd), as Photoshop applies a paragraph run to whole paragraphs.
 */
function paragraphSettingsOf(t: NonNullable<AgLayer['text']>): ParagraphSettings[] {
  const base = t.paragraphStyle ?? {};
  const runs = t.paragraphStyleRuns ?? [];
  const settings: ParagraphSettings[] = [];
  let start = 0;
  for (const paragraph of (t.text ?? '').split('\n')) {
    let end = 0;
    const run = runs.find((r) => {
      end += r.length;
      return start < end;
    });
    const p: AgParagraphStyle = { ...base, ...(run?.style ?? runs.at(-1)?.style ?? {}) };
    const indent = { left: p.startIndent ?? 0, first: p.firstLineIndent ?? 0, right: p.endIndent ?? 0 };
    const space = { before: p.spaceBefore ?? 0, after: p.spaceAfter ?? 0 };
    settings.push({
      ...(isJustification(p.justification) && p.justification !== 'left'
        ? { justification: p.justification }
        : {}),
      ...(isTextIndent(indent) ? { indent } : {}),
      ...(isTextSpace(space) ? { space } : {}),
    });
    start += paragraph.length + 1;
  }
  return settings;
}

/** A paragraph's settings as ag-psd writes a paragraph run: every one stated, so none comes from another's. */
function paragraphStyleOf(p: ParagraphSettings): AgParagraphStyle {
  return {
    justification: p.justification ?? 'left',
    startIndent: p.indent?.left ?? 0,
    firstLineIndent: p.indent?.first ?? 0,
    endIndent: p.indent?.right ?? 0,
    spaceBefore: p.space?.before ?? 0,
    spaceAfter: p.space?.after ?? 0,
  };
}

/** The four faux styles, each stated (a run's false overrides the record's own style, which ag-psd puts under it). */
function agFaux(s: FauxStyles): Pick<AgTextStyle, FauxKey> {
  return Object.fromEntries(FAUX_KEYS.map((k) => [k, s[k] === true])) as Pick<AgTextStyle, FauxKey>;
}

/**
 * A character style's settings (text-character.ts) as a PSD's style states them, every one stated (a run's default
 * overrides the record's own style, which ag-psd puts under it). The text engine's FontCaps is 1 for small caps and
 * 2 for all caps, its FontBaseline 1 for superscript and 2 for subscript.
 */
function agSettings(s: CharacterSettings): Partial<AgTextStyle> {
  const {
    leading,
    tracking,
    kerning,
    baselineShift,
    horizontalScale,
    verticalScale,
    caps,
    position,
    upright,
    tsume,
  } = settingsOf(s);
  return {
    ...(leading !== undefined ? { autoLeading: false, leading } : { autoLeading: true }),
    tracking: tracking ?? 0,
    // A manually kerned character is out of the font's own (metrics) kerning, as Photoshop saves it.
    ...(kerning !== undefined ? { autoKerning: false, kerning } : { autoKerning: true, kerning: 0 }),
    baselineShift: baselineShift ?? 0,
    horizontalScale: horizontalScale ?? 1,
    verticalScale: verticalScale ?? 1,
    fontCaps: caps === 'small' ? 1 : caps === 'all' ? 2 : 0,
    fontBaseline: position === 'superscript' ? 1 : position === 'subscript' ? 2 : 0,
    // Photoshop's Standard Vertical Roman Alignment: 2 turns half-width characters in a column, 1 stands them up.
    baselineDirection: upright ? 1 : 2,
    tsume: tsume ?? 0,
  };
}

/** A PSD style's character settings (agSettings' inverse; Photoshop writes a leading with auto leading on too). */
function settingsOfAg(st: AgTextStyle, vertical: boolean): CharacterSettings {
  return settingsOf({
    // Read in vertical text only: Photoshop writes 1 into horizontal text too, where it draws nothing.
    upright: vertical && st.baselineDirection === 1 ? true : undefined,
    tsume: st.tsume,
    leading: st.autoLeading !== true ? st.leading : undefined,
    tracking: st.tracking,
    kerning: st.kerning,
    baselineShift: st.baselineShift,
    horizontalScale: st.horizontalScale,
    verticalScale: st.verticalScale,
    caps: st.fontCaps === 1 ? 'small' : st.fontCaps === 2 ? 'all' : undefined,
    position: st.fontBaseline === 1 ? 'superscript' : st.fontBaseline === 2 ? 'subscript' : undefined,
  });
}

/** Every character's style of a text record: the record's own, then each run over it. */
function characterStyles(t: NonNullable<AgLayer['text']>): AgTextStyle[] {
  return [t.style ?? {}, ...(t.styleRuns ?? []).map((r) => ({ ...(t.style ?? {}), ...r.style }))];
}

/**
 * What of a text layer the TextSpec (one font, size and colour, one alignment; point text or paragraph text in
 * its box) cannot hold, by Photoshop's names: saving writes the text without it.
 */
function textDropped(t: NonNullable<AgLayer['text']>): string[] {
  const out: string[] = [];
  if (t.shapeType === 'box' && !isTextBox(t.boxBounds)) out.push('段落文本框');
  const styles = characterStyles(t);
  for (const [key, none, what] of TEXT_STYLE_DEFAULTS) {
    if (styles.some((st) => st[key] !== undefined && st[key] !== none)) out.push(what);
  }
  if (t.warp && t.warp.style !== undefined && t.warp.style !== 'none' && !arcWarpOf(t)) out.push('文字变形');
  if (t.shapeType === 'box' && hyphenatable(t)) out.push('自动连字（行尾断词）');
  if (t.shapeType === 'box' && paragraphStyles(t).some((p) => p.hanging === true)) out.push('罗马式溢出标点');
  return out;
}

/**
 * The record's warp where the engine draws it again (text-warp.ts): Photoshop's Arc, bent horizontally without
 * distortion, on point text set in rows, with the box it bends (`bounds`, from the anchor). Null for anything
 * else, which an edit drops (textDropped).
 */
function arcWarpOf(t: NonNullable<AgLayer['text']>): { bend: number; top: number; bottom: number } | null {
  const w = t.warp;
  if (w?.style !== 'arc' || t.shapeType === 'box' || t.orientation === 'vertical') return null;
  if ((w.rotate ?? 'horizontal') !== 'horizontal' || (w.perspective ?? 0) !== 0) return null;
  if ((w.perspectiveOther ?? 0) !== 0) return null;
  const bend = w.value ?? 0;
  const top = (t.bounds?.top as UnitsValue | undefined)?.value ?? Number.NaN;
  const bottom = (t.bounds?.bottom as UnitsValue | undefined)?.value ?? Number.NaN;
  const bends = Math.abs(bend) <= WARP_BEND_MAX && bend !== 0;
  return bends && Number.isFinite(top) && Number.isFinite(bottom) && top < bottom
    ? { bend, top, bottom }
    : null;
}

/**
 * `spec` with the record's Arc warp (arcWarpOf), its box stated as ems of the size above the first baseline and
 * below the last, so the box follows the lines when the text is edited.
 */
function withWarp(spec: TextSpec, t: NonNullable<AgLayer['text']>): TextSpec {
  const arc = arcWarpOf(t);
  if (!arc) return spec;
  const lines = layoutText(spec).lines;
  if (lines.length === 0) return spec;
  const below = lines.at(-1)!.baseline - lines[0]!.baseline;
  return {
    ...spec,
    warp: {
      style: 'arc',
      bend: round6(arc.bend),
      ascent: round6(-arc.top / spec.size),
      descent: round6((arc.bottom - below) / spec.size),
    },
  };
}

async function textSpecOf(l: AgLayer, ctx: DecodeContext): Promise<TextSpec | string> {
  const t = l.text!;
  const m = t.transform ?? [1, 0, 0, 1, 0, 0];
  const [xx, xy, yx, yy, tx, ty] = m as [number, number, number, number, number, number];
  // Photoshop's convention, which is also ours (the writer, set_text_size, rendering): the font size as the file
  // states it, drawn through the text's matrix as the file states it (scale, rotation, flip, skew, stretch), so
  // the layer stays editable and saving it again writes the same size and matrix.
  const linear = [xx, xy, yx, yy].map(round6) as unknown as TextMatrix;
  const [a, b, c, d] = linear;
  if (!(Math.abs(a * d - b * c) > 1e-12) || ![xx, xy, yx, yy, tx, ty].every(Number.isFinite)) {
    return '文字的变换矩阵无效';
  }
  const runs = t.styleRuns ?? [];
  const style = { ...(t.style ?? {}), ...(runs[0]?.style ?? {}) };
  // Kept as the file has them while the text is not edited (PsdText); an edit writes each character in its font,
  // size and colour, its paragraph box and alignment kept, without what a TextSpec cannot hold.
  const dropped = textDropped(t);
  if (dropped.length > 0) {
    ctx.warnings.push(
      `文字图层“${l.name ?? ''}”的${dropped.join('、')}在文字未修改（可移动）时原样保存；修改其内容、字号、颜色、字体或变换后不再保留`,
    );
  }
  const size = round6(style.fontSize ?? 12);
  const font = style.font?.name ?? 'NotoSansSC-Regular';
  // Photoshop's anchor: point text's first baseline starts, is centred or ends at the transform's origin (by its
  // alignment); paragraph text's box is stated from that origin in the text's own space. Our spec's anchor is
  // (x, y + TEXT_BASELINE_EM · size), with x, y the box's top-left for paragraph text.
  const box = t.shapeType === 'box' && isTextBox(t.boxBounds) ? t.boxBounds : undefined;
  const orientation = t.orientation === 'vertical' ? ({ orientation: 'vertical' } as const) : {};
  const drop = anchorDrop({ ...orientation, size });
  const [u, v] = box ? [box[0], box[1] + drop] : [0, 0];
  const spec: TextSpec = {
    content: t.text,
    x: round6(tx + a * u + c * v),
    y: round6(ty + b * u + d * v - drop),
    ...orientation,
    size,
    color: await fileColour(textFill(style.fillColor), ctx, `文字图层“${l.name ?? ''}”`),
    font,
    renderedFont: font,
    ...fauxOf(style),
    ...(isIdentityMatrix(linear) ? {} : { transform: linear }),
    ...(box ? { box: [box[0], box[1], box[2], box[3]] as const } : {}),
    ...settingsOfAg(style, isVertical(orientation)),
  };
  // Each paragraph's alignment, indents and space (one set for all where they agree), each character's style.
  const styled = withParagraphs(spec, paragraphSettingsOf(t));
  const total = runs.reduce((n, r) => n + r.length, 0);
  if (runs.length < 2 || total !== t.text.length) return withWarp(styled, t);
  const where = `文字图层“${l.name ?? ''}”`;
  const characters = await Promise.all(
    runs.map(async (r) => {
      const st = { ...(t.style ?? {}), ...r.style };
      return {
        length: r.length,
        font: st.font?.name ?? font,
        size: round6(st.fontSize ?? size),
        color: await fileColour(textFill(st.fillColor), ctx, where),
        ...fauxOf(st),
        ...settingsOfAg(st, isVertical(orientation)),
      };
    }),
  );
  return withWarp(withRuns(styled, characters), t);
}

function isOpaque(r: Raster): boolean {
  const d = r.data;
  for (let i = 3; i < d.length; i += 4) if (d[i] !== 255) return false;
  return true;
}

function isUniformOpaque(r: Raster): RGB | undefined {
  const d = r.data;
  if (d.length < 4) return undefined;
  const r0 = d[0]!;
  const g0 = d[1]!;
  const b0 = d[2]!;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i] !== r0 || d[i + 1] !== g0 || d[i + 2] !== b0 || d[i + 3] !== 255) return undefined;
  }
  return { r: r0, g: g0, b: b0 };
}

async function layerFromAg(l: AgLayer, ctx: DecodeContext, isBottom: boolean): Promise<number | undefined> {
  const name = l.name ?? `图层 ${ctx.nextId}`;
  checkLayerChannels(l, name, ctx.psd.colorMode ?? 3);
  const id = ctx.nextId++;
  let blend: BlendMode = 'normal';
  if (isBlendMode(l.blendMode)) blend = l.blendMode;
  else if (l.blendMode !== undefined) {
    lose(
      ctx,
      `图层“${name}”的混合模式“${l.blendMode}”不受支持，已改为“正常”`,
      `图层“${name}”的混合模式“${l.blendMode}”`,
      id,
    );
  }
  const fill = l.fillOpacity === undefined ? 1 : opacityFromByte(l.fillOpacity * 255);
  const base = {
    id,
    name,
    visible: !l.hidden,
    opacity: opacityFromByte((l.opacity ?? 1) * 255),
    ...(fill < 1 ? { fillOpacity: fill } : {}),
    blend,
    clipped: !!l.clipping,
    locks: locksOf(l),
  };
  // A pixel layer's or group's vector mask becomes its layer mask (a shape layer's pixels already show it).
  const vector =
    l.vectorMask && !l.vectorMask.disable && !l.vectorFill && l.vectorMask.paths.length
      ? l.vectorMask
      : undefined;
  const readMask = layerPixels(name, () => maskOf(l));
  const pixelMask = readMask ? { ...readMask, ...maskExtras(l) } : undefined;
  const mask = vector ? withVectorMask(vector, ctx.psd, pixelMask) : pixelMask;
  if (vector)
    lose(
      ctx,
      `图层“${name}”的矢量蒙版已转为图层蒙版（像素）：显示效果不变，路径不再可编辑`,
      `图层“${name}”的矢量蒙版路径`,
      id,
    );
  const effects = await effectsOf(l, ctx);
  const carried = carriedLayerData(l, effects, ctx.warnings);
  const extras = {
    ...(mask ? { mask } : {}),
    ...(effects ? { effects } : {}),
    ...(carried ? { psd: carried } : {}),
  };

  if (l.adjustment) {
    delete l.rawData;
    ctx.layers.set(id, {
      ...base,
      ...extras,
      kind: 'adjustment',
      adjustment: withFileBlocks(l),
    });
    const reason = l.hidden
      ? undefined
      : undrawnReason(
          l.adjustment as unknown as AdjustmentLayer['adjustment'],
          ctx.psd.colorMode === CMYK_COLOR_MODE ? 'cmyk' : 'rgb',
        );
    if (reason) {
      ctx.warnings.push(
        `调整图层“${name}”（${adjustmentName(l.adjustment.type)}）已保留，保存 PSD 时原样写回（Photoshop 中照常生效）；但${reason}，预览和导出的图像不含它的效果`,
      );
    }
    return id;
  }
  if (l.children) {
    const children: number[] = [];
    for (const c of l.children) {
      const cid = await layerFromAg(c, ctx, false);
      if (cid !== undefined) children.push(cid);
    }
    ctx.layers.set(id, { ...base, ...extras, kind: 'group', children, open: l.opened !== false });
    // Photoshop shows an artboard's layers inside its rectangle only; drawn as a group they reach the whole
    // canvas. The artboard itself is carried (carriedLayerFields) and saved as it was.
    if (l.artboard && !ctx.placed) {
      ctx.warnings.push(
        `画板“${name}”按普通图层组显示：预览和导出的图像不把其中的图层裁切到画板范围内，可能与 Photoshop 不同；保存 PSD 时画板原样保留`,
      );
    }
    return id;
  }
  if (blend === 'pass through') {
    base.blend = 'normal';
  }
  // Photoshop's Background has no transparency channel.
  const background = isBottom && !!l.rawData && !l.rawData.channels.some((c) => c.id === -1);
  const flat =
    isBottom && !extras.mask && !extras.effects && !l.effects ? flatBackgroundColour(l, ctx) : undefined;
  if (flat) {
    delete l.rawData;
    const color = await colourInSrgb(ctx.source, flat);
    ctx.layers.set(id, {
      ...base,
      ...extras,
      kind: 'fill',
      color,
      ...(background ? { background } : {}),
    });
    return id;
  }
  const icc = ctx.icc;
  const raster = icc
    ? await layerPixels(name, () => cmykLayerRaster(l, icc))
    : ctx.psd.bitsPerChannel === 32
      ? await layerPixels(name, () => linearRasterOf(l, ctx))
      : await rasterInSrgb(
          ctx.source,
          layerPixels(name, () => rasterOf(l)),
        );
  delete l.rawData;

  if (l.text) {
    const spec = await textSpecOf(l, ctx);
    if (typeof spec !== 'string') {
      // Photoshop's own rendering is kept; a file that carries no pixels for its text gets ours.
      const own =
        raster.w === 0 && spec.content.trim() !== '' ? renderTextSpec(spec) : { text: spec, raster };
      const psdText: PsdText = {
        spec: own.text,
        mode: ctx.psd.colorMode === CMYK_COLOR_MODE ? 'cmyk' : 'rgb',
        record: l.text as unknown as PsdText['record'],
      };
      ctx.layers.set(id, { ...base, ...extras, kind: 'text', text: own.text, raster: own.raster, psdText });
      return id;
    }
    lose(ctx, `文字图层“${name}”${spec}，已转为像素图层`, `文字图层“${name}”的可编辑文字`, id);
  } else if (l.placedLayer) {
    const smart = await smartSourceOf(l, ctx);
    if (typeof smart !== 'string') {
      ctx.layers.set(id, { ...base, ...extras, kind: 'smart', ...smart, raster });
      return id;
    }
    lose(ctx, `智能对象“${name}”${smart}，已转为像素图层`, `智能对象“${name}”`, id);
  } else if (isSolidColorFill(l)) {
    const color = await fileColour(l.vectorFill.color, ctx, `填充图层“${name}”`);
    ctx.layers.set(id, { ...base, ...extras, kind: 'fill', color, solidColorLayer: true });
    return id;
  } else if (l.vectorFill) {
    if (raster.w === 0 && l.vectorFill.type === 'color' && l.vectorMask && !l.vectorMask.disable) {
      // A file that carries no pixels for its shape layer (some writers expect Photoshop to draw it): ours.
      const color = await fileColour(l.vectorFill.color, ctx, `形状图层“${name}”`);
      lose(ctx, `形状图层“${name}”已按其路径和颜色绘制为像素图层`, `形状图层“${name}”的路径`, id);
      ctx.layers.set(
        id,
        plainLayer(
          ctx,
          { ...base, ...extras },
          shapeRaster(l.vectorMask, color, ctx.psd),
          isBottom,
          background,
        ),
      );
      return id;
    }
    lose(ctx, `形状或填充图层“${name}”已转为像素图层（保留其像素）`, `形状或填充图层“${name}”`, id);
  }

  ctx.layers.set(id, plainLayer(ctx, { ...base, ...extras }, raster, isBottom, background));
  return id;
}

/** Channel names by id: RGB, CMYK and grayscale files'. */
const CHANNEL_NAMES: Record<number, readonly [string, string, string]> = {
  [-2]: ['图层蒙版', '图层蒙版', '图层蒙版'],
  [-1]: ['透明度', '透明度', '透明度'],
  0: ['红', '青色', '灰色'],
  1: ['绿', '洋红', ''],
  2: ['蓝', '黄色', ''],
  3: ['', '黑色', ''],
};

/** The name of channel `id` in a file of colour mode `mode` (its number), or its id. */
function channelName(id: number, mode: number): string {
  const names = CHANNEL_NAMES[id];
  const name = names?.[mode === CMYK_COLOR_MODE ? 1 : mode === GRAYSCALE_COLOR_MODE ? 2 : 0];
  return name || String(id);
}

const RAW = 0;
const RLE = 1;

/**
 * Checks the packed channels of a layer before they are decoded, so that damaged pixel data is refused with the
 * layer's name instead of read as garbage (packbits.ts `checkPackedRows`): raw channels must hold every sample,
 * RLE rows must unpack to exactly a row. RLE channels of 16- and 32-bit files are unpacked to raw here, since
 * ag-psd unpacks RLE one byte per sample whatever the depth (a 16-bit red read as 1).
 */
function checkLayerChannels(l: AgLayer, name: string, mode: number): void {
  const raw = l.rawData;
  if (!raw) return;
  const bytes = Math.max(1, raw.bitsPerChannel / 8);
  for (const c of raw.channels) {
    if (bytes === 4 && c.compression === RAW && c.data) c.data = ownedSamples(c.data);
    const names = CHANNEL_NAMES[c.id];
    if (!names || !c.data || c.data.length === 0) continue;
    const r = c.id === -2 ? l.mask : l;
    const w = Math.max(0, (r?.right ?? 0) - (r?.left ?? 0));
    const h = Math.max(0, (r?.bottom ?? 0) - (r?.top ?? 0));
    if (w === 0 || h === 0) continue;
    let problem: string | undefined;
    if (c.compression === RAW && c.data.length < w * h * bytes) {
      problem = `数据不完整（应有 ${w * h * bytes} 字节，只有 ${c.data.length} 字节）`;
    } else if (c.compression === RLE) {
      const out = bytes > 1 ? new Uint8Array(w * h * bytes) : undefined;
      problem = checkPackedRows(c.data, h, w * bytes, raw.large, out);
      if (!problem && out) {
        c.compression = RAW;
        c.data = out;
      }
    }
    if (problem) {
      throw new EditorError(
        'io_error',
        `PSD 文件已损坏：图层“${name}”的${channelName(c.id, mode)}通道${problem}`,
        {
          hint: '请用 Photoshop 重新保存该文件，或改用未损坏的副本',
        },
      );
    }
  }
}

/**
 * A copy of raw 32-bit samples, which ag-psd swaps to native byte order where they lie: in the caller's buffer,
 * which would then read as garbage a second time (a retry, the same bytes on another thread). Only raw float
 * data is swapped in place; RLE is unpacked to new memory above and ZIP inflated to new memory by ag-psd.
 */
function ownedSamples(data: Uint8Array): Uint8Array {
  return data.slice();
}

/**
 * Refuses a layer channel whose compression word is not 0–3, naming the layer and channel, before ag-psd reads
 * the file. ag-psd does not refuse every such channel: when the word read one byte later is 0–3 it takes that
 * instead, reading the channel from there — a damaged RLE channel's word 0x0900 became raw data made of its row
 * counts and packed bytes, opened as garbage without a word. Photoshop refuses such a layer ("A problem was
 * encountered reading layer", ag-psd issue #135), as psd-tools does.
 */
function checkCompressionWords(buf: Uint8Array): void {
  const bad = invalidCompression(buf);
  if (!bad) return;
  throw new EditorError(
    'io_error',
    `PSD 文件已损坏：图层“${bad.layer}”的${channelName(bad.channel, buf[25]!)}通道的压缩方式 ${bad.code} 无效（只能是 0–3）`,
    { hint: '请用 Photoshop 重新保存该文件，或改用未损坏的副本' },
  );
}

/** Decodes a layer's pixels, naming the layer when its data cannot be decoded (a damaged ZIP stream). */
function layerPixels<T>(name: string, decode: () => T): T {
  const fail = (err: unknown): never => {
    if (err instanceof EditorError) throw err;
    throw new EditorError('io_error', `PSD 文件已损坏：图层“${name}”的像素数据无法解码（${reason(err)}）`, {
      hint: '请用 Photoshop 重新保存该文件，或改用未损坏的副本',
    });
  };
  try {
    const out = decode();
    return out instanceof Promise ? (out.catch(fail) as T) : out;
  } catch (err) {
    return fail(err);
  }
}

/**
 * `checkLayerChannels` for the merged image of a flattened file (ag-psd's `rawCompositeData`, from its compression
 * word on): every channel's rows one after the other, their counts first.
 */
function checkMergedImage(psd: AgPsd, large: boolean): void {
  const data = psd.rawCompositeData;
  const { width: w, height: h } = psd;
  if (!data || data.length < 2 || w <= 0 || h <= 0) return;
  const compression = (data[0]! << 8) | data[1]!;
  const bytes = Math.max(1, (psd.bitsPerChannel ?? 8) / 8);
  const rows = (psd.channels ?? 3) * h;
  const body = data.subarray(2);
  if (compression === RAW && bytes === 4) psd.rawCompositeData = ownedSamples(data);
  let problem: string | undefined;
  if (compression === RAW && body.length < rows * w * bytes) {
    problem = `数据不完整（应有 ${rows * w * bytes} 字节，只有 ${body.length} 字节）`;
  } else if (compression === RLE) {
    const out = bytes > 1 ? new Uint8Array(2 + rows * w * bytes) : undefined;
    problem = checkPackedRows(body, rows, w * bytes, large, out?.subarray(2));
    if (!problem && out) psd.rawCompositeData = out; // compression word 0: raw
  }
  if (problem) {
    throw new EditorError('io_error', `PSD 文件已损坏：合并图像${problem}`, {
      hint: '请用 Photoshop 重新保存该文件，或改用未损坏的副本',
    });
  }
}

/**
 * The colour of a plain RGB layer that `plainLayer` would make a fill — one flat opaque colour over exactly the
 * canvas — found in its packed channels without unpacking them (psd-uniform.ts).
 */
function flatBackgroundColour(l: AgLayer, ctx: DecodeContext): RGB | undefined {
  const { width, height } = ctx.psd;
  const plain = !l.text && !l.placedLayer && !l.vectorFill && !l.vectorMask && !l.adjustment;
  const covers = (l.left ?? 0) === 0 && (l.top ?? 0) === 0 && l.right === width && l.bottom === height;
  if (!plain || !covers || !l.rawData || ctx.icc) return undefined;
  return uniformOpaqueColour(l.rawData, width, height);
}

type LayerProps = Omit<Extract<Layer, { kind: 'pixel' }>, 'kind' | 'raster' | 'background'>;

/**
 * A pixel layer, or a lazy fill when it is the bottom layer and one flat opaque colour over exactly the canvas
 * (a Photoshop white Background, or our own fill layer written as pixels).
 */
function plainLayer(
  ctx: DecodeContext,
  props: LayerProps,
  raster: Raster,
  isBottom: boolean,
  background: boolean,
): Layer {
  const { width, height } = ctx.psd;
  const bg = background ? { background } : {};
  if (
    isBottom &&
    !props.mask &&
    !props.effects &&
    !props.psd?.style &&
    raster.x === 0 &&
    raster.y === 0 &&
    raster.w === width &&
    raster.h === height
  ) {
    const color = isUniformOpaque(raster);
    if (color) {
      // The file's inks for it go into the document's ink table, which the fill is written from.
      if (ctx.inkTable && raster.inks)
        recordPixels(ctx.inkTable, raster.data.subarray(0, 4), raster.inks.cmyk, 4);
      return { ...props, kind: 'fill', color, ...bg };
    }
  }
  return { ...props, kind: 'pixel', raster, ...bg };
}

const GRAYSCALE_COLOR_MODE = 1;

/** Colour modes the decoder refuses (grayscale, RGB and CMYK are read), by their Photoshop names. */
const COLOR_MODE_NAMES: Record<number, string> = {
  0: '位图',
  2: '索引颜色',
  7: '多通道',
  8: '双色调',
  9: 'Lab',
};

function checkHeader(buf: Uint8Array): void {
  if (buf.length < 26 || String.fromCharCode(buf[0]!, buf[1]!, buf[2]!, buf[3]!) !== '8BPS') {
    throw new EditorError('unsupported', '文件不是 PSD/PSB 格式（文件头不是 8BPS）');
  }
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const version = view.getUint16(4);
  if (version !== 1 && version !== 2) {
    throw new EditorError('unsupported', `不支持的 PSD 版本 ${version}`);
  }
  const depth = view.getUint16(22);
  const mode = view.getUint16(24);
  const modeName = COLOR_MODE_NAMES[mode];
  if (modeName) {
    throw new EditorError('unsupported', `暂不支持打开 ${modeName} 模式的 PSD`, {
      hint: '请先在 Photoshop 中用“图像 › 模式 › RGB 颜色”转换后再打开',
    });
  }
  if (![1, 8, 16, 32].includes(depth)) {
    throw new EditorError('unsupported', `不支持的 PSD 位深度 ${depth}`);
  }
  if (mode === CMYK_COLOR_MODE && depth !== 8 && depth !== 16) {
    throw new EditorError('unsupported', `不支持 ${depth} 位/通道的 CMYK PSD`, {
      hint: 'CMYK 文件应为 8 或 16 位/通道；请在 Photoshop 中用“图像 › 模式”转换后再打开',
    });
  }
  const height = view.getUint32(14);
  const width = view.getUint32(18);
  if (width * height > MAX_DOCUMENT_PIXELS) {
    // Past a limit, as a PNG or JPEG past it is (image-codec.ts): the same code and the same words for the limit.
    throw new EditorError(
      'out_of_bounds',
      `PSD 画布 ${width}×${height} 超过文档上限（宽×高最多 ${MAX_DOCUMENT_PIXELS.toLocaleString('en-US')} 像素，约 2.68 亿），无法打开`,
      { hint: '请在 Photoshop 中缩小或裁剪后再打开' },
    );
  }
}

export interface DecodePsdOptions {
  /**
   * Refuse (`out_of_bounds`) files whose layer and mask pixels would take more than this many bytes once
   * decoded; a PSD can declare huge layers at almost no cost in file size. Default 4 GiB.
   */
  readonly maxPixelBytes?: number;
  /**
   * The file is placed into a document (place_image: embedded as it is, shown through its composite), not opened
   * as one: what it says of a document of its own (which profile it keeps and saves with, what a save would not
   * keep) is not said; what its preview does not draw as Photoshop would still is.
   */
  readonly placed?: boolean;
}

const DEFAULT_MAX_PIXEL_BYTES = 4 * 1024 ** 3;

/** Bytes the decoded layer and mask bitmaps of `layers` will take (RGBA, as ag-psd decodes them). */
function decodedBytes(layers: readonly AgLayer[] | undefined): number {
  let total = 0;
  for (const l of layers ?? []) {
    const w = Math.max(0, (l.right ?? 0) - (l.left ?? 0));
    const h = Math.max(0, (l.bottom ?? 0) - (l.top ?? 0));
    total += w * h * 4;
    if (l.mask) {
      const mw = Math.max(0, (l.mask.right ?? 0) - (l.mask.left ?? 0));
      const mh = Math.max(0, (l.mask.bottom ?? 0) - (l.mask.top ?? 0));
      total += mw * mh * 5;
    }
    total += decodedBytes(l.children);
  }
  return total;
}

/** A flattened RGB or gray file's merged image, in sRGB. */
async function compositeOf(ctx: DecodeContext, extra: ReadChannels): Promise<Raster | undefined> {
  const img = getCompositeImageData(ctx.psd);
  if (!img || img.width <= 0 || img.height <= 0) return undefined;
  // ag-psd reads the channel after the colour ones as transparency; an alpha or spot channel it is not.
  const colours = ctx.psd.colorMode === GRAYSCALE_COLOR_MODE ? 1 : 3;
  if (!extra.transparency && (ctx.psd.channels ?? 0) > colours) {
    const opaque = img.data instanceof Float32Array ? 1 : img.data instanceof Uint16Array ? 0xffff : 0xff;
    for (let i = 3; i < img.data.length; i += 4) img.data[i] = opaque;
  }
  if (ctx.psd.bitsPerChannel === 32) {
    return { x: 0, y: 0, w: img.width, h: img.height, data: await linearInSrgb(img, ctx) };
  }
  return rasterInSrgb(ctx.source, { x: 0, y: 0, w: img.width, h: img.height, data: toRgba8(img) });
}

/**
 * The profile a CMYK file's inks are read with: its embedded one, else the press profile. The document keeps an
 * embedded profile that is not the press profile as its own (DocState `cmykProfile`): saving separates with it and
 * embeds it, as Photoshop keeps a file's profile, so an unedited file keeps its inks.
 */
function cmykProfileOf(psd: AgPsd, warnings: string[], placed = false): Uint8Array {
  const embedded = embeddedProfile(psd);
  let press: { bytes: Uint8Array; name: string } | undefined;
  try {
    press = pressProfile();
  } catch (err) {
    if (!embedded) throw err;
  }
  if (!embedded) {
    warnings.push(`CMYK PSD 没有嵌入 ICC 配置文件，已按当前 CMYK 印刷配置文件“${press!.name}”解释其油墨值`);
    return press!.bytes;
  }
  if (!placed && press && Buffer.compare(Buffer.from(embedded), Buffer.from(press.bytes)) !== 0) {
    const name = iccDescription(embedded) ?? '未命名';
    warnings.push(
      `CMYK PSD 嵌入的配置文件“${name}”与当前 CMYK 印刷配置文件“${press.name}”不同：文档保留“${name}”，颜色按它读取，保存时仍按它分色并嵌入（未改动的油墨不变）`,
    );
  }
  return embedded;
}

/** Reads a PSD or PSB (RGB or CMYK) into a document state (ids 1..n in file order, the top layer active). */
/** Names stored only as legacy Pascal strings, in UTF-8 or GBK, read as written (psd-legacy-name.ts). */
function readLegacyNames(psd: AgPsd, file: Uint8Array, large: boolean): void {
  const readings = legacyNameReadings(file, large);
  if (!readings.size) return;
  const walk = (layers: readonly AgLayer[] | undefined) => {
    for (const l of layers ?? []) {
      const name = l.name !== undefined ? readings.get(l.name) : undefined;
      if (name !== undefined) l.name = name;
      walk(l.children);
    }
  };
  walk(psd.children);
}

export async function decodePsd(buf: Buffer | Uint8Array, opts: DecodePsdOptions = {}): Promise<DecodedPsd> {
  setUpAgPsd();
  checkHeader(buf);
  checkCompressionWords(buf);
  let psd: AgPsd;
  let version: 1 | 2 = 1;
  const unparsed: string[] = [];
  try {
    psd = withAgLog(unparsed, () =>
      withoutLayerInfoFailure(readPsd(buf, { useRawData: true, skipThumbnail: true, useRawThumbnail: true })),
    );
    version = buf[5] === 2 ? 2 : 1;
    readLegacyNames(psd, buf, version === 2);
  } catch (err) {
    const msg = reason(err);
    const blend = /Invalid blend mode: '(.*)'/.exec(msg);
    if (blend) {
      throw new EditorError('unsupported', `PSD 使用了无法识别的混合模式“${blend[1]}”，无法打开`);
    }
    if (/not supported|unsupported/i.test(msg)) {
      throw new EditorError('unsupported', `PSD 文件包含不支持的内容：${msg}`);
    }
    throw new EditorError('io_error', `PSD 文件无法读取（可能已损坏）：${msg}`);
  }
  // The canvas-sized merged image, and a byte per canvas pixel for each spot or alpha channel (psd-channels.ts).
  const bytes = decodedBytes(psd.children) + psd.width * psd.height * (4 + listedChannels(psd));
  const limit = opts.maxPixelBytes ?? DEFAULT_MAX_PIXEL_BYTES;
  if (bytes > limit) {
    const gib = (n: number) => (n / 1024 ** 3).toFixed(1);
    throw new EditorError(
      'out_of_bounds',
      `PSD 的图层像素解码后约需 ${gib(bytes)} GiB 内存，超过上限 ${gib(limit)} GiB，无法打开`,
      { hint: '请在 Photoshop 中合并或裁剪图层后再打开' },
    );
  }
  const warnings: string[] = [];
  const losses: Loss[] = [];
  const notes = { warnings, losses, placed: opts.placed === true };
  if (unparsed.length > 0) {
    const more = unparsed.length > 1 ? `等 ${unparsed.length} 处` : '';
    const first = unparsed[0]!.replace(/\p{Cc}/gu, '?').slice(0, 120);
    lose(notes, `PSD 中有无法解析的数据（可能已损坏），已跳过：${first}${more}`, '无法解析的数据');
  }
  if (psd.bitsPerChannel === 32) {
    lose(
      notes,
      'PSD 为 32 位/通道（线性光 HDR），已转换为 sRGB 8 位/通道，超出白色的高光已截断',
      '32 位/通道（HDR）的精度和高光',
    );
  } else if ((psd.bitsPerChannel ?? 8) > 8) {
    lose(notes, `PSD 为 ${psd.bitsPerChannel} 位/通道，已转换为 8 位`, `${psd.bitsPerChannel} 位/通道的精度`);
  }
  // Documents are RGB or CMYK: a black-and-white job saved back as RGB would print in four inks, not black.
  if (psd.colorMode === GRAYSCALE_COLOR_MODE)
    lose(
      notes,
      'PSD 为灰度模式，已转换为 RGB 颜色，保存时为 RGB（需要灰度文件时请在 Photoshop 中转回灰度）',
      '灰度模式（保存为 RGB）',
    );
  // Spot and alpha channels: ag-psd reads the colour channels and the transparency only; they are read here.
  const extra = readExtraChannels(buf, psd, version === 2);
  if (extra.channels.length > 0 && !notes.placed) {
    const names = extra.channels.map((c) => `“${c.name}”`).join('、');
    warnings.push(
      `PSD 有 ${extra.channels.length} 个专色或 Alpha 通道：${names}。已保留，保存为 PSD 时原样写回；画布上专色按其油墨颜色和密度叠印显示（Alpha 通道不显示）；导出 PDF 时专色作为专色分色输出，导出 PNG、JPEG 或 TIFF 时不包含`,
    );
    for (const c of extra.channels) {
      if (c.kind === 'spot' && !spotColourOf(c, extra.resources)) {
        warnings.push(`专色通道“${c.name}”的显示颜色不是 RGB 或 Lab 颜色，画布上不显示它（文件中照常保留）`);
      }
    }
  } else if (extra.unread) {
    lose(
      notes,
      `PSD 的专色或 Alpha 通道无法读取（${extra.unread}），已丢弃；印刷需要它们时请在 Photoshop 中完成`,
      '专色或 Alpha 通道',
    );
  }

  const res = psd.imageResources?.resolutionInfo;
  let dpi = 72;
  if (res && res.horizontalResolution > 0) {
    // Always pixels per inch in the file: the unit (PPI or PPCM) is only how Photoshop displays it (Adobe's
    // file format specification, ResolutionInfo; ImageMagick reads it so too).
    const read = res.horizontalResolution;
    // Some writers store a placeholder (ImageMagick: 1/65536 ppi), which no document could be saved with:
    // read as Photoshop reads a file without resolution.
    if (read >= 1) dpi = Math.round(read * 1e4) / 1e4;
    else warnings.push(`PSD 记录的分辨率（${read.toPrecision(3)} DPI）无效，已按 72 DPI 读取`);
  }
  const guides: Guide[] = (psd.imageResources?.gridAndGuidesInformation?.guides ?? []).map((g) => ({
    direction: g.direction,
    position: g.location,
  }));

  const cmyk = psd.colorMode === CMYK_COLOR_MODE;
  const icc = cmyk ? cmykProfileOf(psd, warnings, opts.placed) : undefined;
  const source = cmyk
    ? undefined
    : await sourceProfile(embeddedProfile(psd), psd.colorMode === GRAYSCALE_COLOR_MODE, warnings);
  const ctx: DecodeContext = {
    psd,
    layers: new Map(),
    warnings,
    losses,
    placed: notes.placed,
    dpi,
    nextId: 1,
    ...(icc ? { icc, inkTable: newInkTable(icc) } : {}),
    ...(source ? { source } : {}),
  };
  const root: number[] = [];
  try {
    const top = psd.children ?? [];
    for (let i = 0; i < top.length; i++) {
      const id = await layerFromAg(top[i]!, ctx, i === 0);
      if (id !== undefined) root.push(id);
    }
    if (top.length === 0) {
      // A flattened file: its merged image is the whole document.
      checkMergedImage(psd, version === 2);
      const raster = icc
        ? await cmykMergedRaster(psd, icc, version === 2, extra.transparency)
        : await compositeOf(ctx, extra);
      if (raster) {
        const id = ctx.nextId++;
        const props: LayerProps = {
          id,
          name: '背景',
          visible: true,
          opacity: 1,
          blend: 'normal',
          clipped: false,
          locks: { all: false, pixels: false, position: false, transparency: false },
        };
        ctx.layers.set(id, plainLayer(ctx, props, raster, true, isOpaque(raster)));
        root.push(id);
      }
    }
  } catch (err) {
    if (err instanceof EditorError) throw err;
    throw new EditorError('io_error', `PSD 图层数据无法读取（可能已损坏）：${reason(err)}`);
  }
  delete psd.rawCompositeData;

  const active = root.length > 0 ? root[root.length - 1]! : null;
  const state: DocState = {
    width: psd.width,
    height: psd.height,
    dpi,
    mode: cmyk ? 'cmyk' : 'rgb',
    layers: ctx.layers,
    root,
    active,
    selected: active === null ? [] : [active],
    selection: null,
    guides,
    foreground: { r: 0, g: 0, b: 0 },
    nextId: ctx.nextId,
    ...(ctx.inkTable ? { inkTable: withLayerInks(ctx.inkTable, ctx.layers) } : {}),
    ...(icc && !isPressProfile(icc) ? { cmykProfile: icc } : {}),
    ...psdDocumentOf(psd, extra.resources),
    ...(extra.channels.length > 0 ? { channels: extra.channels } : {}),
  };
  return { state, warnings, losses };
}

/** The ink table with the colours of the layers' pixels and the inks the file holds for them. */
function withLayerInks(table: InkTable, layers: ReadonlyMap<number, Layer>): InkTable {
  for (const layer of layers.values()) {
    if ('raster' in layer && layer.raster.inks)
      recordPixels(table, layer.raster.data, layer.raster.inks.cmyk, 4);
  }
  return table;
}
