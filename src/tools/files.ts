/**
 * Files in the workspace: saving (PSD, PNG/JPG exports), opening, placing images as smart objects, and looking
 * at the canvas. Every check that can fail runs before anything is written, so a failing call leaves both the
 * documents and the workspace as they were.
 */
import path from 'node:path';
import { renderDocument } from '../engine/composite/index.js';
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import { BACKGROUND_NAME, NO_LOCKS, pixelLayer } from '../engine/factory.js';
import { unreadableByName } from '../engine/io/file-type.js';
import {
  DEFAULT_JPEG_QUALITY,
  decodeImage,
  encodeJpeg,
  encodePng,
  encodeTiff,
  type FlatOptions,
} from '../engine/io/image-codec.js';
import { encodePdf, type PdfOptions, type PdfSpot } from '../engine/io/pdf-export.js';
import { placedFile } from '../engine/io/placed-file.js';
import type { DecodePsdOptions } from '../engine/io/psd.js';
import { channelResourcesOf } from '../engine/io/psd-carry.js';
import { decodePsdOffThread, writePsdFileOffThread } from '../engine/io/psd-thread.js';
import { documentPixelBytes, psdCanvasPixels, reservePixels } from '../engine/memory-budget.js';
import type { DocState, Layer, Loss, PixelLayer, Raster, SmartLayer } from '../engine/model.js';
import {
  documentProfile,
  iccDescription,
  isPressProfile,
  type PressProfile,
} from '../engine/press-profile.js';
import { cropRaster } from '../engine/raster.js';
import { documentInkSources, newInkTable, recordPixels } from '../engine/raster-inks.js';
import sharp from '../engine/sharp.js';
import { placeScale, renderSmart } from '../engine/smart.js';
import { shownCanvas } from '../engine/soft-proof.js';
import { spotInkOf } from '../engine/spot-display.js';
import { allocateId, insertLayer, layerById, setActive, slotAbove } from '../engine/tree.js';
import {
  EXPORT_FORMAT_IDS,
  EXPORT_FORMATS,
  type ExportFormat,
  formatExtensions,
  KNOWN_FORMATS,
  READ_FORMATS,
} from '../registry/file-formats.js';
import { documentSummary, layerSummary } from './describe.js';
import { listUndrawn, undrawnAdjustments } from './guards.js';
import { activeDoc } from './resolve.js';
import type { ToolContext, ToolHandlers } from './types.js';

export type FileFormat = 'psd' | 'png' | 'jpg';

const FORMAT_OF_EXT: Readonly<Record<string, FileFormat>> = {
  '.psd': 'psd',
  '.psb': 'psd',
  '.png': 'png',
  '.jpg': 'jpg',
  '.jpeg': 'jpg',
};

const EXPORT_FORMAT_OF_EXT: Readonly<Record<string, ExportFormat>> = Object.fromEntries(
  EXPORT_FORMATS.flatMap((f) => f.extensions.map((ext) => [ext, f.id as ExportFormat])),
);

const FORMAT_NAMES: Readonly<Record<FileFormat | ExportFormat, string>> = Object.fromEntries(
  KNOWN_FORMATS.map((f) => [f.id, f.name]),
) as Record<FileFormat | ExportFormat, string>;

/**
 * Where a file asked for by `rel` and `format` is written, in which format, and what to say of it: the format
 * from the extension when none is given; a path without an extension gets the format's; an extension that names
 * another format is refused (a PNG named .psd fails at the print shop), an unknown one kept with a note.
 */
function fileTarget<F extends FileFormat | ExportFormat>(
  rel: string,
  format: F | undefined,
  ofExt: Readonly<Record<string, F>>,
  say: { readonly verb: string; readonly hint: string },
): { target: string; chosen: F; note?: string } {
  const ext = extOf(rel);
  const extFormat = ofExt[ext];
  if (!format && !extFormat) {
    fail('invalid_arguments', `无法从路径“${rel}”的扩展名推断文件格式`, {
      hint: say.hint,
      details: [{ parameter: 'path', value: rel }],
    });
  }
  const chosen = format ?? extFormat!;
  if (format && !ext) {
    const target = `${rel}.${format}`;
    return { target, chosen, note: `路径没有扩展名，已${say.verb}为“${target}”` };
  }
  if (format && extFormat !== format) {
    const named = KNOWN_EXTENSIONS.get(ext);
    if (named) {
      const fixed = `${rel.slice(0, -ext.length)}.${format}`;
      fail(
        'invalid_arguments',
        `format 为 ${format}（${FORMAT_NAMES[format]}），路径“${rel}”却以“${ext}”结尾（${named} 文件的扩展名），未${say.verb}`,
        {
          hint: `要${say.verb}为 ${FORMAT_NAMES[format]}，请用路径“${fixed}”${extFormat ? `；要${say.verb}为 ${FORMAT_NAMES[extFormat]}，请省略 format` : ''}`,
          details: [{ parameter: 'path', value: rel, message: `扩展名“${ext}”与 format “${format}”不符` }],
        },
      );
    }
    return {
      target: rel,
      chosen,
      note: `按 format 以 ${FORMAT_NAMES[format]} 格式${say.verb}，路径保持为“${rel}”（扩展名与格式不符）`,
    };
  }
  return { target: rel, chosen };
}

/**
 * The extensions that say what a file holds, with the format's name: a file saved under one of them must be of
 * that format (a poster.psd that is a PNG fails at the print shop). WebP and AVIF are read, never written.
 */
const KNOWN_EXTENSIONS: ReadonlyMap<string, string> = new Map(
  KNOWN_FORMATS.flatMap((f) => f.extensions.map((ext) => [ext, f.name] as const)),
);

function extOf(p: string): string {
  return path.posix.extname(p.replace(/\\/g, '/')).toLowerCase();
}

/** The file name without folders and extension (a document or layer name taken from a file). */
export function baseName(p: string): string {
  const file = path.posix.basename(p.replace(/\\/g, '/'));
  const ext = path.posix.extname(file);
  return (ext ? file.slice(0, -ext.length) : file) || file;
}

/**
 * The name a file opens under: its base name, as Photoshop's tab shows it. Documents are addressed by name, so
 * when another open file has that base name (sizes in folders of their own: `S/前片.png`, `M/前片.png`) the
 * folder tells them apart, `前片 (M)`, then a number.
 */
function documentNameFor(target: string, taken: ReadonlySet<string>): string {
  const base = baseName(target);
  if (!taken.has(base)) return base;
  const stem = folderStem(target);
  if (!taken.has(stem)) return stem;
  for (let n = 2; ; n++) if (!taken.has(`${stem} ${n}`)) return `${stem} ${n}`;
}

/** `前片 (M)` for `M/前片.png`; the base name alone for a file at the workspace's top. */
function folderStem(target: string): string {
  const base = baseName(target);
  const folder = path.posix.basename(path.posix.dirname(target.replace(/\\/g, '/')));
  return folder && folder !== '.' ? `${base} (${folder})` : base;
}

/** Every name documentNameFor can give `target`. */
function namesOf(target: string): RegExp {
  const quote = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^(?:${quote(baseName(target))}|${quote(folderStem(target))}(?: \\d+)?)$`);
}

/** A document name made safe as a file name in the workspace. */
function fileNameOf(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
  const safe = name.replace(/[/\\:*?"<>|\u0000-\u001f]/g, '_').trim();
  return safe === '' || safe === '.' || safe === '..' ? '未标题' : safe;
}

/** `rel` checked against the workspace (invalid_arguments for escapes) and normalised (forward slashes). */
function workspacePath(ctx: ToolContext, rel: string): string {
  return ctx.workspace.relative(ctx.workspace.resolve(rel));
}

/** The canvas-sized flattened image (the composite), with transparency. */
function canvasImage(ctx: ToolContext, doc: OpenDocument): Raster {
  const img = ctx.tx.peekComposite(doc.id);
  const { width, height } = doc.state;
  if (img.x === 0 && img.y === 0 && img.w === width && img.h === height) return img;
  return cropRaster(img, { x: 0, y: 0, w: width, h: height });
}

/**
 * Where save_document writes: the document's own PSD, or, for a new or flat-image document, `<name>.psd` —
 * `<name> (2).psd` and so on when a file or another open document already has that name: a default name never
 * replaces a file the user did not name (Photoshop asks for a name there).
 */
export async function psdPathOf(ctx: ToolContext, doc: OpenDocument): Promise<string> {
  const ext = doc.path ? extOf(doc.path) : '';
  if (doc.path && (ext === '.psd' || ext === '.psb')) return doc.path;
  const base = doc.path ? (ext ? doc.path.slice(0, -ext.length) : doc.path) : fileNameOf(doc.name);
  const others = new Set(
    ctx.tx
      .documents()
      .filter((d) => d.id !== doc.id)
      .map((d) => d.path),
  );
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${base}.psd` : `${base} (${n}).psd`;
    if (others.has(candidate) || (await ctx.workspace.exists(candidate))) continue;
    if (n > 1) ctx.warn(`“${base}.psd”已存在，已保存为“${candidate}”（原有文件未改动）`);
    return candidate;
  }
}

/**
 * Refuses to write over the file another open document was opened from or saved to: that document would say
 * it is saved while its file holds something else (Photoshop refuses too: the file is in use).
 */
function assertNotOpenElsewhere(ctx: ToolContext, doc: OpenDocument, target: string): void {
  const other = ctx.tx.documents().find((d) => d.id !== doc.id && d.path === target);
  if (other) {
    fail('conflict', `“${target}”是另一个打开的文档“${other.name}”的文件，不能用“${doc.name}”覆盖它`, {
      hint: `换一个文件名，或先关闭文档“${other.name}”`,
    });
  }
}

export interface Written {
  readonly path: string;
  readonly format: FileFormat | ExportFormat;
  readonly bytes: number;
}

/**
 * Decodes a PSD or PSB under the session's memory budget. The decoder runs on its own thread, where no budget
 * is charged: its least cost (one canvas of pixels) is reserved before, and what the decoded layers really
 * hold after, so that a file too large for the budget is not kept (its pixels go with the refusal).
 */
async function decodePsd(buf: Buffer, opts: DecodePsdOptions = {}): ReturnType<typeof decodePsdOffThread> {
  const least = psdCanvasPixels(buf) * 4;
  reservePixels(least, '打开的 PSD 文件');
  const decoded = await decodePsdOffThread(buf, opts);
  reservePixels(documentPixelBytes(decoded.state) - least, '打开的 PSD 文件');
  return decoded;
}

/** Writes the document as PSD to `rel` and records it as the document's file (Photoshop's Save / Save As). */
export async function savePsd(ctx: ToolContext, doc: OpenDocument, rel: string): Promise<Written> {
  const target = workspacePath(ctx, rel);
  assertNotOpenElsewhere(ctx, doc, target);
  ctx.progress('合成画面', 0.1);
  const canvas = canvasImage(ctx, doc);
  // The PSD writer's scratch space: 8 bytes per canvas pixel (engine/document-limits.ts).
  reservePixels(doc.state.width * doc.state.height * 8, '保存 PSD');
  ctx.progress('编码 PSD', 0.3);
  // Streamed into the temp file channel by channel: the file is never whole in memory.
  const { warnings, bytes, large } = await ctx.workspace.writeAtomicWith(target, async (handle) => {
    // A .psb name promises the large document format whatever the size: readers choose their parser by it.
    const psb = extOf(target) === '.psb';
    const warnings = await writePsdFileOffThread(handle.fd, doc.state, canvas, { name: doc.name, psb });
    // What was written, as the header says (version 2 is PSB): a large document or layer needs it.
    const header = Buffer.alloc(6);
    await handle.read(header, 0, 6, 0);
    return { warnings, bytes: (await handle.stat()).size, large: header.readUInt16BE(4) === 2 };
  });
  for (const w of warnings) ctx.warn(w);
  warnLosses(ctx, doc, target, 'PSD');
  warnUndrawn(ctx, doc, `“${target}”的合并图像`);
  ctx.tx.markSaved(doc.id, target);
  // `format` names the family (the save_document_as parameter's value); `psb` says the large variant was written.
  return { path: target, format: 'psd', ...(large ? { psb: true } : {}), bytes };
}

/**
 * Says again, at every save, what the file the document was opened from held that the file written lacks: the
 * open call said it once, but a save (above all one over that very file) is where it is lost.
 */
function warnLosses(ctx: ToolContext, doc: OpenDocument, target: string, format: string): void {
  const losses = doc.losses;
  if (!losses) return;
  // A layer's loss no longer matters once the layer is deleted (undo brings both back).
  const items = losses.items
    .filter((i) => i.layer === undefined || doc.state.layers.has(i.layer))
    .map((i) => i.what)
    .join('；');
  if (items === '') return;
  ctx.warn(
    target === losses.from
      ? `已覆盖原文件“${target}”：打开时未能保留的以下内容已从该文件中丢失：${items}`
      : `保存的 ${format}“${target}”不包含打开“${losses.from}”时未能保留的以下内容：${items}`,
  );
}

/**
 * The adjustment layers a saved picture lacks: kept in the PSD's layers, but of a kind the engine does not draw
 * (adjust/layer.ts), so neither its merged image nor an export shows them (Photoshop, reading the layers, does).
 */
function warnUndrawn(ctx: ToolContext, doc: OpenDocument, picture: string): void {
  const undrawn = undrawnAdjustments(doc.state, doc.state.root);
  if (undrawn.length === 0) return;
  ctx.warn(
    `${picture}不含调整图层${listUndrawn(undrawn)}的效果：这些调整图层保留在 PSD 的图层中（Photoshop 打开 PSD 时照常生效）`,
  );
}

/**
 * The spot and alpha channels an exported picture lacks: the document keeps them and its PSD holds them, but a
 * flattened picture has the colour channels only (Photoshop's Save a Copy drops them too, with a warning).
 */
function warnChannels(ctx: ToolContext, doc: OpenDocument, picture: string, spots: readonly PdfSpot[]): void {
  const channels = doc.state.channels ?? [];
  const printed = new Set(spots.map((s) => s.name));
  const left = channels.filter((c) => !printed.has(c.name));
  if (printed.size > 0) {
    const names = [...printed].map((n) => `“${n}”`).join('、');
    ctx.warn(`${picture}中专色通道 ${names} 作为专色分色（叠印）输出，印刷时各用其专色油墨`);
  }
  if (left.length === 0) return;
  const names = left.map((c) => `“${c.name}”`).join('、');
  ctx.warn(`${picture}不含专色或 Alpha 通道 ${names}：它们保留在文档中，保存为 PSD 时写入`);
}

/** The document's spot plates a PDF prints as separations: those whose ink has a colour (spot-display.ts). */
function pdfSpotsOf(state: DocState): PdfSpot[] {
  const alternates = channelResourcesOf(state);
  return (state.channels ?? []).flatMap((c) => {
    const ink = c.kind === 'spot' ? spotInkOf(c, alternates) : undefined;
    return ink ? [{ name: c.name, data: c.data, lab: ink.lab }] : [];
  });
}

/** Writes the flattened image as PNG or JPEG (Photoshop's Save a Copy: the document's own file is unchanged). */
async function exportImage(
  ctx: ToolContext,
  doc: OpenDocument,
  rel: string,
  format: ExportFormat,
  quality?: number,
  scale = 100,
  print: Pick<PdfOptions, 'bleedMm' | 'cropMarks'> = {},
): Promise<Written & { width: number; height: number; resolution: number }> {
  const target = workspacePath(ctx, rel);
  assertNotOpenElsewhere(ctx, doc, target);
  const { width, height, mode } = doc.state;
  // Scaled down, the picture keeps its printed size: fewer pixels at a lower resolution.
  const size = {
    w: Math.max(1, Math.round((width * scale) / 100)),
    h: Math.max(1, Math.round((height * scale) / 100)),
  };
  const dpi = (doc.state.dpi * size.w) / width;
  const what = `导出 ${FORMAT_NAMES[format]}`;
  // The encoder's copy of the pixels; a CMYK document's PNG, an RGB picture, also the proof's copy; its JPEG
  // also libvips' copy of the inks it is handed. A PDF holds the flattened pixels, their compressed copy and the
  // file pdf-lib writes around it at once.
  const proofed = format === 'png' && mode === 'cmyk';
  reservePixels(width * height * 4 * ((mode === 'cmyk' ? 2 : 1) + (format === 'pdf' ? 2 : 0)), what);
  // A CMYK document's PNG is what it prints, as Photoshop's copy in RGB is: through its profile (soft-proof.ts).
  const image = proofed
    ? await shownCanvas(doc.state, ctx.tx.peekComposite(doc.id), width, height)
    : canvasImage(ctx, doc);
  const flat = { ...flatOptions(doc.state), size };
  // The spot plates a PDF prints as separations; other formats hold the colour channels only.
  const spots = format === 'pdf' ? pdfSpotsOf(doc.state) : [];
  const buffer =
    format === 'png'
      ? await encodePng(image, dpi, size)
      : format === 'tiff'
        ? await encodeTiff(image, dpi, flat)
        : format === 'pdf'
          ? await encodePdf(image, dpi, {
              ...flat,
              ...print,
              title: doc.name,
              outputIntent: documentProfile(doc.state),
              spots,
            })
          : await encodeJpeg(image, dpi, { ...flat, ...(quality !== undefined ? { quality } : {}) });
  await ctx.workspace.writeAtomic(target, buffer);
  warnLosses(ctx, doc, target, FORMAT_NAMES[format]);
  warnUndrawn(ctx, doc, `导出的 ${FORMAT_NAMES[format]}“${target}”`);
  warnChannels(ctx, doc, `导出的 ${FORMAT_NAMES[format]}“${target}”`, spots);
  return {
    path: target,
    format,
    bytes: buffer.byteLength,
    width: size.w,
    height: size.h,
    resolution: Math.round(dpi * 100) / 100,
  };
}

/** A CMYK document's JPEG or TIFF keeps its layers' inks where its pixels show them (raster-inks.ts). */
function flatOptions(state: DocState): FlatOptions {
  if (state.mode !== 'cmyk') return {};
  const profile = documentProfile(state);
  return { cmyk: profile, inkSources: documentInkSources(state, profile.bytes) };
}

/** A flat image opened as a document: an opaque one becomes the background, one with transparency `图层 0`. */
function flatDocument(raster: Raster, dpi: number, cmykProfile?: Uint8Array): DocState {
  let opaque = true;
  for (let i = 3; i < raster.data.length; i += 4) {
    if (raster.data[i] !== 255) {
      opaque = false;
      break;
    }
  }
  const layer: PixelLayer = opaque
    ? { ...pixelLayer(1, BACKGROUND_NAME, raster), background: true }
    : pixelLayer(1, '图层 0', raster);
  return {
    width: raster.w,
    height: raster.h,
    dpi,
    mode: 'rgb',
    layers: new Map<number, Layer>([[1, layer]]),
    root: [1],
    active: 1,
    selected: [1],
    selection: null,
    guides: [],
    foreground: { r: 0, g: 0, b: 0 },
    nextId: 2,
    ...(cmykProfile ? cmykDocument(raster, cmykProfile) : {}),
  };
}

/**
 * A CMYK JPEG or TIFF opens as a CMYK document, as in Photoshop: its inks kept (decodeImage), so saving it
 * untouched writes them back, and its profile kept when it is not the press profile.
 */
function cmykDocument(raster: Raster, icc: Uint8Array): Pick<DocState, 'mode' | 'inkTable' | 'cmykProfile'> {
  const inkTable = newInkTable(icc);
  if (raster.inks) recordPixels(inkTable, raster.data, raster.inks.cmyk, 4);
  return { mode: 'cmyk', inkTable, ...(isPressProfile(icc) ? {} : { cmykProfile: icc }) };
}

/**
 * A CMYK file placed into a CMYK document whose profile is another: its inks are kept only through the same
 * profile (raster-inks.ts keptInks), so the document separates its colours afresh, and the print shop gets other
 * inks than the file holds: said, since nothing else shows it until the proof comes back.
 */
function warnInksConverted(ctx: ToolContext, state: DocState, icc: Uint8Array, file: string): void {
  if (state.mode !== 'cmyk') return;
  let profile: PressProfile;
  try {
    profile = documentProfile(state);
  } catch {
    return; // no usable press profile: every save of this document fails saying so
  }
  if (Buffer.compare(Buffer.from(icc), Buffer.from(profile.bytes)) === 0) return;
  const own = iccDescription(icc) ?? '未命名';
  ctx.warn(
    `置入的“${file}”为 CMYK 图像，其配置文件“${own}”与文档的 CMYK 配置文件“${profile.name}”不同：颜色已从“${own}”转换为“${profile.name}”，保存时按“${profile.name}”分色，油墨值与原文件不同`,
  );
}

/** How many of a placed PSD's findings its warning quotes. */
const PLACED_FINDINGS = 3;

/**
 * What reading a placed PSD found that its preview does not draw as Photoshop would (an effect, a blend mode, a
 * colour it could not read), said once about the smart object: the findings speak of the file's own layers, which
 * the document it is placed in does not show, and the file itself is embedded whole.
 */
function warnPlacedPreview(ctx: ToolContext, file: string, findings: readonly string[]): void {
  if (findings.length === 0) return;
  const quoted = findings.slice(0, PLACED_FINDINGS).join('；');
  const more = findings.length > PLACED_FINDINGS ? `（共 ${findings.length} 处）` : '';
  ctx.warn(
    `置入的“${file}”中有 Atelier 不能照 Photoshop 的样子绘制的内容，智能对象的预览可能与 Photoshop 中不同，文件本身原样嵌入、保存不丢失：${quoted}${more}`,
  );
}

/** Upscaled past this, interpolation shows (soft edges, visible in print): said when a placement does it. */
const UPSCALE_WARNING = 1.2;

/**
 * A placed image enlarged past its pixels prints soft: Photoshop places it all the same, a print designer is
 * told the effective resolution (what preflight checks: under 150 DPI reads soft at arm's length).
 */
function warnUpscaled(ctx: ToolContext, scale: number, dpi: number): void {
  if (scale <= UPSCALE_WARNING) return;
  const percent = Math.round(scale * 100);
  const effective = Math.round(dpi / scale);
  ctx.warn(
    `置入的图像被放大到 ${percent}%，像素经插值放大，边缘会发虚（有效分辨率约 ${effective} DPI，文档 ${dpi} DPI）；需要清晰印刷时请换用更高分辨率的原图，或把 size 设为 pixels 按原像素大小置入`,
  );
}

type Readable = 'psd' | 'image';

/** What a file is read as, by its extension: every format Atelier reads (WebP and AVIF are read, never written). */
const READ_FORMAT_OF_EXT: ReadonlyMap<string, (typeof READ_FORMATS)[number]> = new Map(
  READ_FORMATS.flatMap((f) => f.extensions.map((ext) => [ext, f] as const)),
);

function sourceFormatName(p: string): string {
  return READ_FORMAT_OF_EXT.get(extOf(p))?.name ?? 'PNG';
}

function readableKind(rel: string, what: string): Readable {
  const ext = extOf(rel);
  const format = READ_FORMAT_OF_EXT.get(ext);
  if (!format) {
    const known = unreadableByName(rel);
    fail('unsupported', `不支持的文件类型“${ext || '（无扩展名）'}”，无法${what}`, {
      hint: known?.hint ?? `支持 ${formatExtensions(READ_FORMATS)} 文件`,
    });
  }
  return format.id === 'psd' ? 'psd' : 'image';
}

/** The sharp-readable raw bytes of a raster, for scaling and encoding. */
function rawOf(r: Raster) {
  return sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), {
    raw: { width: r.w, height: r.h, channels: 4 },
    limitInputPixels: false,
  });
}

export const filesHandlers = {
  async save_document(_args, ctx) {
    const doc = activeDoc(ctx);
    const target = await psdPathOf(ctx, doc);
    const written = await savePsd(ctx, doc, target);
    const note =
      doc.path && doc.path !== written.path
        ? `文档来自 ${sourceFormatName(doc.path)} 文件“${doc.path}”，已按 PSD 格式保存到“${written.path}”（原文件未改动）`
        : undefined;
    if (note) ctx.warn(note);
    return { saved: true, ...written, document: documentSummary(ctx.tx.activeDocument()) };
  },

  async save_document_as({ path: rel, format }, ctx) {
    const doc = activeDoc(ctx);
    const { target, chosen, note } = fileTarget(rel, format, FORMAT_OF_EXT, {
      verb: '保存',
      hint: '请使用 .psd、.png、.jpg 扩展名，或给出 format（psd、png、jpg）',
    });
    const written =
      chosen === 'psd' ? await savePsd(ctx, doc, target) : await exportImage(ctx, doc, target, chosen);
    if (note) ctx.warn(note);
    return {
      saved: true,
      ...written,
      ...(note ? { note } : {}),
      // PNG/JPEG are copies (Photoshop's Save a Copy); the document keeps its own file.
      document_path_changed: chosen === 'psd',
      document: documentSummary(ctx.tx.activeDocument()),
    };
  },

  async export_image({ path: rel, format, quality, scale, bleed, crop_marks }, ctx) {
    const doc = activeDoc(ctx);
    const { target, chosen, note } = fileTarget(rel, format, EXPORT_FORMAT_OF_EXT, {
      verb: '导出',
      hint: `请使用 ${formatExtensions(EXPORT_FORMATS)} 扩展名，或给出 format（${EXPORT_FORMAT_IDS.join('、')}）`,
    });
    if (quality !== undefined && chosen !== 'jpg') {
      fail('invalid_arguments', `quality 只用于 JPEG，${FORMAT_NAMES[chosen]} 没有品质设置，未导出`, {
        hint: `${FORMAT_NAMES[chosen]} 是无损格式：省略 quality；要控制文件大小请导出为 jpg`,
        details: [{ parameter: 'quality', value: quality }],
      });
    }
    for (const [parameter, value] of [
      ['bleed', bleed],
      ['crop_marks', crop_marks],
    ] as const) {
      if (value === undefined || chosen === 'pdf') continue;
      fail(
        'invalid_arguments',
        `${parameter} 只用于 PDF，${FORMAT_NAMES[chosen]} 没有出血和裁切标记，未导出`,
        {
          hint: '导出为 pdf（路径以 .pdf 结尾，或 format 为 pdf），或省略此项',
          details: [{ parameter, value }],
        },
      );
    }
    // The trim box must keep some of the page: the bleed is under half of each side.
    const { width, height, dpi } = doc.state;
    const shortSideMm = (Math.min(width, height) / dpi) * 25.4;
    if (bleed !== undefined && 2 * bleed >= shortSideMm) {
      fail(
        'invalid_arguments',
        `出血 ${bleed} 毫米太大：文档较短的一边只有 ${Math.round(shortSideMm * 10) / 10} 毫米，裁切后不剩任何画面，未导出`,
        {
          hint: '出血通常为 3 毫米，须小于文档较短一边的一半',
          details: [{ parameter: 'bleed', value: bleed }],
        },
      );
    }
    const written = await exportImage(ctx, doc, target, chosen, quality, scale, {
      ...(bleed !== undefined ? { bleedMm: bleed } : {}),
      ...(crop_marks ? { cropMarks: true } : {}),
    });
    if (note) ctx.warn(note);
    return {
      exported: true,
      ...written,
      ...(chosen === 'jpg' ? { quality: quality ?? DEFAULT_JPEG_QUALITY } : {}),
      ...(bleed ? { bleed_mm: bleed } : {}),
      ...(crop_marks ? { crop_marks: true } : {}),
      ...(note ? { note } : {}),
      document_path_changed: false,
      document: documentSummary(ctx.tx.activeDocument()),
    };
  },

  get_canvas_image: async ({ max_size }, ctx) => {
    const doc = activeDoc(ctx);
    const { width, height } = doc.state;
    const scale = Math.min(1, max_size / Math.max(width, height));
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    // What the model looks at is what prints: a CMYK document through its profile, its spot plates over it.
    const image = await shownCanvas(doc.state, ctx.tx.peekComposite(doc.id), w, h, { spotInks: true });
    const png = await rawOf(image).png({ compressionLevel: 6 }).toBuffer();
    return {
      document: doc.name,
      document_width: width,
      document_height: height,
      width: w,
      height: h,
      scale: Math.round(scale * 10000) / 10000,
      images: [
        {
          mime: 'image/png',
          base64: png.toString('base64'),
          caption: `“${doc.name}”画布 ${width}×${height}${scale < 1 ? `，缩放为 ${w}×${h}` : ''}`,
          captionEn: `Canvas of “${doc.name}”, ${width}×${height}${scale < 1 ? `, scaled to ${w}×${h}` : ''}`,
        },
      ],
    };
  },

  async open_document({ path: rel }, ctx) {
    const target = workspacePath(ctx, rel);
    const kind = readableKind(target, '打开');
    const buf = await ctx.workspace.read(target);
    const open = ctx.tx.documents();
    // Opened from this very file (named after it): Photoshop brings that one to the front. A document only
    // saved there under its own name (未标题-1 saved as out.psd) may have the file opened beside it.
    const same = open.find((d) => d.path === target && namesOf(target).test(d.name));
    if (same) {
      fail('conflict', `“${target}”已经打开（文档“${same.name}”）`, {
        hint: `用 switch_document 切换到“${same.name}”，或先用 close_document 关闭它后重新打开`,
      });
    }
    const name = documentNameFor(target, new Set(open.map((d) => d.name)));
    let state: DocState;
    let losses: readonly Loss[] = [];
    ctx.progress('解码文件', 0.2);
    if (kind === 'psd') {
      const decoded = await decodePsd(buf);
      for (const w of decoded.warnings) ctx.warn(w);
      state = decoded.state;
      losses = decoded.losses;
    } else {
      const decoded = await decodeImage(buf);
      for (const w of decoded.warnings) ctx.warn(w);
      state = flatDocument(decoded.raster, decoded.dpi, decoded.cmykProfile);
      losses = decoded.losses.map((what) => ({ what }));
    }
    const doc = ctx.tx.addDocument(name, state, '打开文档', target, losses);
    return {
      opened: target,
      ...(name !== baseName(target)
        ? {
            note: `已有同名的打开文档“${baseName(target)}”，本文档命名为“${name}”（按名称切换、保存时用这个名称）`,
          }
        : {}),
      document: documentSummary(doc),
    };
  },

  async place_image({ path: rel, name, size }, ctx) {
    const doc = activeDoc(ctx);
    const target = workspacePath(ctx, rel);
    const kind = readableKind(target, '置入');
    const buf = await ctx.workspace.read(target);
    let source: Raster;
    let dpi: number | null;
    if (kind === 'psd') {
      const decoded = await decodePsd(buf, { placed: true });
      warnPlacedPreview(ctx, target, decoded.warnings);
      if (decoded.state.mode === 'cmyk') {
        warnInksConverted(ctx, doc.state, documentProfile(decoded.state).bytes, target);
      }
      source = renderDocument(decoded.state);
      dpi = decoded.state.dpi;
    } else {
      const decoded = await decodeImage(buf, { into: doc.state.mode });
      for (const w of decoded.warnings) ctx.warn(w);
      if (decoded.cmykProfile) warnInksConverted(ctx, doc.state, decoded.cmykProfile, target);
      source = decoded.raster;
      dpi = decoded.dpiStated ? decoded.dpi : null;
    }
    const { width, height } = doc.state;
    const { scale, why } = placeScale(
      { w: source.w, h: source.h, dpi },
      { w: width, h: height, dpi: doc.state.dpi },
      size ?? 'auto',
    );
    const placedW = Math.max(1, Math.round(source.w * scale));
    const placedH = Math.max(1, Math.round(source.h * scale));
    // Centred on whole pixels, so the identity placement needs no resampling: the raster is the source itself.
    const left = Math.floor((width - placedW) / 2);
    const top = Math.floor((height - placedH) / 2);
    source = { ...source, x: left, y: top };
    const transform = {
      cx: left + placedW / 2,
      cy: top + placedH / 2,
      scaleX: placedW / source.w,
      scaleY: placedH / source.h,
      angle: 0,
    };
    const raster =
      placedW === source.w && placedH === source.h ? source : await renderSmart(source, transform);
    const embedded = placedFile(buf, path.posix.basename(target.replace(/\\/g, '/')), source, dpi);
    const percent = Math.round(scale * 10000) / 100;
    const note =
      why === 'fit'
        ? `图像 ${source.w}×${source.h} 像素，已等比${scale < 1 ? '缩小' : '放大'}到 ${percent}% 放进 ${width}×${height} 的画布${scale < 1 ? '；智能对象保留原图，放大回去不损失画质' : ''}（size 为 pixels 时按原像素大小置入）`
        : why === 'resolution'
          ? `按分辨率保持实际尺寸：文件 ${dpi} DPI，文档 ${doc.state.dpi} DPI，缩放为 ${percent}%（size 为 pixels 时按原像素大小置入）`
          : undefined;
    warnUpscaled(ctx, scale, doc.state.dpi);
    const [id, allocated] = allocateId(doc.state);
    const layer: SmartLayer = {
      id,
      name: name ?? baseName(target),
      kind: 'smart',
      visible: true,
      opacity: 1,
      blend: 'normal',
      clipped: false,
      locks: NO_LOCKS,
      source,
      transform,
      raster,
      ...(embedded ? { embedded } : {}),
    };
    const slot = slotAbove(allocated, allocated.active);
    const next = setActive(insertLayer(allocated, layer, slot.parent, slot.index), id);
    ctx.tx.update(doc.id, next);
    return {
      placed: target,
      source_width: source.w,
      source_height: source.h,
      scale: percent,
      ...(note ? { note } : {}),
      layer: layerSummary(next, layerById(next, id)),
    };
  },
} satisfies ToolHandlers;
