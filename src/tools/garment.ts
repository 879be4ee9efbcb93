/**
 * Group B: the garment workflow (DESIGN.md §6) — identify_pieces → generate_garment_preview → (user confirms)
 * → extract_and_apply_all_pieces → verify_pattern_result — plus set_garment_photo (group E). The garment
 * memory (analysis, extraction, preview, application) is staged and kept only when the call succeeds.
 */
import { createHash } from 'node:crypto';
import type { OpenDocument } from '../engine/editor.js';
import { fail } from '../engine/errors.js';
import { sniffFileType, unreadableFormat } from '../engine/io/file-type.js';
import { decodeImage } from '../engine/io/image-codec.js';
import type { DocState, Rect } from '../engine/model.js';
import { closest } from '../engine/names.js';
import { hexToRgb } from '../engine/raster.js';
import { isShown, layerById, layerRef, topDown } from '../engine/tree.js';
import type { Workspace } from '../engine/workspace.js';
import {
  applyPlans,
  coverSentence,
  fillSentence,
  lookSentence,
  type PiecePlan,
  pieceFill,
  pieceLooks,
  printCovers,
} from '../garment/apply.js';
import { photoTruth } from '../garment/builtin/against-photo.js';
import { inOriginal } from '../garment/builtin/level.js';
import { analysePhotoAhead, analysePhotoOffThread } from '../garment/builtin/photo-thread.js';
import { withTilts } from '../garment/builtin/piece-tilt.js';
import { withGrains } from '../garment/builtin/piece-turn.js';
import {
  candidateLayers,
  clearLayer,
  collectPieces,
  isPieceKind,
  isPieceNow,
  likelyWrongLayers,
  outsideCanvas,
  sameGroupMasks,
  sameMasks,
} from '../garment/builtin/pieces.js';
import { MEASURE_LABELS_EN, measureResult, offFabricAdvice, verdictOf } from '../garment/builtin/score.js';
import { pngImage } from '../garment/image.js';
import { crowdedFronts } from '../garment/main-front.js';
import { photoSmallWarning, photoTooSmall } from '../garment/photo-size.js';
import { overviewImage, previewImage, proposalsFor } from '../garment/preview.js';
import { MOTIF_ON_FABRIC, type MotifMode, motifOnFabric, placementFor } from '../garment/render.js';
import { pieceSizedRegions } from '../garment/split.js';
import {
  type AppliedRecord,
  alternativesOf,
  byPartThenName,
  EMPTY_GARMENT_MEMORY,
  type Extraction,
  type GarmentAnalysis,
  type GarmentMemory,
  PART_LABELS,
  PART_LABELS_EN,
  type Part,
  type PieceInfo,
  type PieceShape,
  type Placement,
  TURNS,
  type Turn,
} from '../garment/types.js';
import { typeUnavailable } from '../garment/types-available.js';
import { uprightPiece } from '../garment/upright.js';
import { consult, selectVision } from '../garment/vision.js';
import { formatNames, IMAGE_FORMATS } from '../registry/file-formats.js';
import { boundsReport } from './describe.js';
import { assertFree } from './guards.js';
import { activeDoc } from './resolve.js';
import type { ToolContext, ToolHandlers } from './types.js';

const NEED_PHOTO_HINT = '请用户上传服装照片，或把照片放进工作区后调用 set_garment_photo 指定它';

const NOT_PRINT_LABELS = {
  fold_shadow: '褶皱与袖窿的阴影（服装本色变暗、边缘柔和）：是光影，不是图案',
  neck_opening: '领口开口（露出背景或后片内侧）：不是图案',
} as const;

interface Photo {
  readonly path: string;
  readonly bytes: Buffer;
  readonly hash: string;
}

async function readPhoto(ctx: ToolContext): Promise<Photo> {
  const path = ctx.session.garmentPhoto;
  if (!path) fail('invalid_state', '还没有服装照片', { hint: NEED_PHOTO_HINT });
  return photoAt(ctx.workspace, path);
}

async function photoAt(workspace: Workspace, path: string): Promise<Photo> {
  const bytes = await workspace.read(path);
  return { path, bytes, hash: createHash('sha1').update(bytes).digest('hex') };
}

/**
 * Starts reading a photo set without a call (an upload with role=garment) as set_garment_photo does, so the
 * designer's first garment call finds it read, unless the session `holds` its extraction already. Quietly does
 * nothing when the file cannot be read: the call that wants it reports that.
 */
export async function readGarmentPhotoAhead(
  workspace: Workspace,
  path: string,
  holds: Extraction | null,
): Promise<void> {
  try {
    const photo = await photoAt(workspace, path);
    if (!heldFor(holds, photo)) analysePhotoAhead(photo.bytes, photo.path, photo.hash);
  } catch {
    // The garment call reads the photo again and says what is wrong with it.
  }
}

/** Whether `kept` was made from these exact bytes at this path (extractionFor reuses it). */
function heldFor(kept: Extraction | null, photo: Photo): kept is Extraction {
  return kept !== null && kept.photoHash === photo.hash && kept.photoPath === photo.path;
}

/** The stored extraction when it was made from these exact bytes, else a new one (the expensive step, once). */
async function extractionFor(ctx: ToolContext, photo: Photo): Promise<{ ext: Extraction; reused: boolean }> {
  const kept = ctx.session.garment.extraction;
  if (heldFor(kept, photo)) return { ext: kept, reused: true };
  return { ext: await analysePhotoOffThread(photo.bytes, photo.path, photo.hash), reused: false };
}

/** A photo reading under way (wrapped: an async function would otherwise wait for the promise it returns). */
type PhotoReading = { readonly result: Promise<{ ext: Extraction; reused: boolean }> } | null;

/**
 * The photo's extraction started before the pieces are measured (null without a photo): the analysis runs on
 * its own thread meanwhile (photo-thread.ts). Awaited by identifyPieces; if the call fails before that, the
 * reading is dropped (a failure of its own is then not reported, as the call has already failed).
 */
async function startPhotoReading(ctx: ToolContext): Promise<PhotoReading> {
  if (!ctx.session.garmentPhoto) return null;
  const result = extractionFor(ctx, await readPhoto(ctx));
  result.catch(() => {});
  return { result };
}

/** The analysis of the active document, checked to still describe its layers. */
function currentAnalysis(ctx: ToolContext, doc: OpenDocument): GarmentAnalysis {
  const a = ctx.session.garment.analysis;
  if (!a || a.docId !== doc.id) {
    fail('invalid_state', `还没有识别文档“${doc.name}”的裁片`, { hint: '先调用 identify_pieces' });
  }
  for (const p of a.pieces) {
    const layer = doc.state.layers.get(p.layerId);
    if (
      !layer ||
      !isPieceKind(layer) ||
      layer.raster !== p.raster ||
      (layer.mask ?? null) !== p.layerMask ||
      !sameGroupMasks(doc.state, p) ||
      layer.name !== p.layerName
    ) {
      fail('invalid_state', `裁片图层“${p.name}”在识别之后被修改、改名或删除了`, {
        hint: '重新调用 identify_pieces',
      });
    }
  }
  // A layer that is a piece now and was none at identification: added or shown since, or revealed (its mask,
  // or its group's, deleted or painted white), or painted on. A layer that still shows nothing is none.
  const known = new Set(a.pieces.map((p) => p.layerId));
  const fresh = candidateLayers(doc.state).filter((l) => !known.has(l.id) && isPieceNow(doc.state, l));
  if (fresh.length) {
    const seen = new Set(a.examined ?? []);
    const list = (ls: readonly { id: number }[]) =>
      ls.map((l) => `“${layerRef(doc.state, l.id)}”`).join('、');
    const added = fresh.filter((l) => !seen.has(l.id));
    const changed = fresh.filter((l) => seen.has(l.id));
    fail(
      'invalid_state',
      [
        ...(added.length ? [`识别之后文档中新增（或重新显示）了图层${list(added)}，它可能是裁片`] : []),
        ...(changed.length
          ? [
              `图层${list(changed)}在识别时不是裁片（被蒙版完全遮住、太小、铺满画布或在画布之外），之后它的像素或蒙版变了（如蒙版被删除），现在它可能是裁片`,
            ]
          : []),
      ].join('；'),
      { hint: '重新调用 identify_pieces（不是裁片的图层可先隐藏）' },
    );
  }
  return a;
}

/** Warns of the designer's layers clipped above the pieces' print that hide it (apply.ts printCovers). */
function warnCovered(ctx: ToolContext, state: DocState, pieces: readonly PieceInfo[]): void {
  for (const p of pieces) for (const c of printCovers(state, p)) ctx.warn(coverSentence(p.name, c));
  for (const s of lookSentences(state, pieces)) ctx.warn(s);
}

/**
 * What the pieces' own mode and opacity, and their groups', do to their print (apply.ts pieceLooks): a group
 * holding several pieces said once.
 */
function lookSentences(state: DocState, pieces: readonly { layerId: number; name: string }[]): string[] {
  const said = new Set<number>();
  const out: string[] = [];
  for (const p of pieces) {
    if (!state.layers.has(p.layerId)) continue;
    for (const l of pieceLooks(state, p.layerId)) {
      if (said.has(l.layerId)) continue;
      said.add(l.layerId);
      out.push(lookSentence(p.name, l));
    }
  }
  return out;
}

/** Says which pieces are at a fill below 100 %, which applying sets to 100 % (apply.ts pieceFill). */
function warnFill(ctx: ToolContext, state: DocState, pieces: readonly PieceShape[], done: boolean): void {
  for (const p of pieces) {
    const layer = state.layers.get(p.layerId);
    const fill = layer ? pieceFill(layer) : null;
    if (fill !== null) ctx.warn(fillSentence(p.name, fill, done));
  }
}

function round(v: number, d = 2): number {
  return Math.round(v * 10 ** d) / 10 ** d;
}

function repeatReport(ext: Extraction, pl: Placement | null, dpi: number | null) {
  const lat = ext.lattice;
  if (!lat) return { found: false };
  const cell = Math.sqrt(Math.abs(lat.v1[0] * lat.v2[1] - lat.v1[1] * lat.v2[0]));
  const toPhoto = 1 / ext.analysisScale;
  return {
    found: true,
    layout: lat.layout,
    tile_width: round(lat.tileW * toPhoto, 1),
    tile_height: round(lat.tileH * toPhoto, 1),
    vectors: [lat.v1.map((v) => round(v * toPhoto, 1)), lat.v2.map((v) => round(v * toPhoto, 1))],
    confidence: lat.confidence,
    confidence_basis: '花样与自身平移一个重复单元后的归一化相关系数（0–1，1 为完全重复）',
    repeats_in_photo: lat.repeats,
    ...(lat.shorter
      ? {
          shorter_candidate_rejected: {
            vectors: [
              lat.shorter.v1.map((v) => round(v * toPhoto, 1)),
              lat.shorter.v2.map((v) => round(v * toPhoto, 1)),
            ],
            confidence: lat.shorter.confidence,
            reason:
              '较短的候选周期不是精确重复（如格子中相似但不相同的小格），其整数倍处的相关性明显更高，采用完整周期',
          },
        }
      : {}),
    ...(pl && dpi
      ? {
          document_tile_width: round(lat.tileW * pl.scale, 1),
          document_tile_height: round(lat.tileH * pl.scale, 1),
          real_cell_mm: round(((cell * pl.scale) / dpi) * 25.4, 1),
        }
      : {}),
  };
}

/** A box of the analysed photo in the photo's own px, as taken: a levelled photo's box turned back (its bounds). */
function inPhotoAsTaken(ext: Extraction, b: Rect): Rect {
  const k = ext.analysisScale;
  if (!ext.level) {
    return { x: Math.round(b.x / k), y: Math.round(b.y / k), w: Math.round(b.w / k), h: Math.round(b.h / k) };
  }
  const corners = [
    [b.x, b.y],
    [b.x + b.w, b.y],
    [b.x, b.y + b.h],
    [b.x + b.w, b.y + b.h],
  ].map(([x, y]) => inOriginal(ext.level!, x! / k, y! / k));
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const x = Math.round(Math.min(...xs));
  const y = Math.round(Math.min(...ys));
  return { x, y, w: Math.round(Math.max(...xs)) - x, h: Math.round(Math.max(...ys)) - y };
}

function extractionReport(ext: Extraction, pl: Placement | null, dpi: number | null) {
  return {
    photo: ext.photoPath,
    kind: ext.kind,
    ground_color: ext.ground.hex,
    palette: ext.palette.map((c) => ({ hex: c.hex, share: c.share })),
    repeat: repeatReport(ext, pl, dpi),
    motif: ext.motif
      ? {
          found: true,
          share_of_garment: ext.motif.share,
          bounds_in_photo: boundsReport(inPhotoAsTaken(ext, ext.motif.bounds)),
        }
      : { found: false },
    garment_in_photo: ext.swatch ? 'swatch' : 'silhouette',
    ...(ext.level
      ? {
          levelled: {
            degrees: ext.level.degrees,
            note: ext.swatch
              ? `照片中的面料${ext.level.degrees > 0 ? '顺' : '逆'}时针倾斜 ${Math.abs(ext.level.degrees)}°，已按花样自身的方向扶正后读取印花`
              : `照片中的服装${ext.level.degrees > 0 ? '顺' : '逆'}时针倾斜 ${Math.abs(ext.level.degrees)}°，已按衣身中线扶正后读取印花`,
          },
        }
      : {}),
    flatness: ext.flatness,
    ...(ext.worn
      ? { worn: { note: '照片中的服装穿在人身上：头颈、手臂、腿等露出的部分已排除，不计入服装轮廓和配色' } }
      : {}),
    ...(ext.notPrint.length
      ? { not_print: ext.notPrint.map((k) => ({ kind: k, label: NOT_PRINT_LABELS[k] })) }
      : {}),
  };
}

function pieceReport(p: PieceInfo, proposal?: { type: string; color: string }) {
  return {
    name: p.name,
    part: p.part,
    part_label: PART_LABELS[p.part],
    confidence: round(p.confidence),
    decided_by: p.decidedBy,
    reason: p.reason,
    bounds: boundsReport(p.bounds),
    area: p.area,
    copies: p.copies,
    ...(p.sameOutline.length ? { same_outline: p.sameOutline } : {}),
    ...(p.duplicateOf ? { duplicate_of: p.duplicateOf } : {}),
    ...(p.pairWith ? { pair_with: p.pairWith, print_mirrored: p.mirrorOf !== null } : {}),
    ...(p.size !== undefined ? { size: p.size } : {}),
    ...(p.grain
      ? {
          turn: p.grain.turn,
          turn_by: p.grain.by,
          ...(p.grain.by === 'shape' ? { turn_confidence: p.grain.confidence } : {}),
        }
      : {}),
    ...(p.tilt || p.tiltBy
      ? { tilt: Math.round((p.tilt ?? 0) * 10) / 10, tilt_by: p.tiltBy ?? 'shape' }
      : {}),
    ...(p.doubt
      ? {
          alternative: p.doubt.part,
          alternative_label: PART_LABELS[p.doubt.part],
          alternative_confidence: round(p.doubt.confidence),
          alternatives: alternativesOf(p.doubt).map((a) => ({
            part: a.part,
            part_label: PART_LABELS[a.part],
            confidence: round(a.confidence),
          })),
        }
      : {}),
    ...(proposal ? { type: proposal.type, color: proposal.color } : {}),
  };
}

/** How a piece lies on the marker, in the overview's words: its quarter turn and how far askew (`zh`: Chinese). */
function layCaption(p: PieceInfo, zh: boolean): string {
  const tilt = p.tilt ? Math.round(Math.abs(p.tilt)) || 1 : 0;
  const clockwise = (p.tilt ?? 0) > 0;
  const said = [
    ...(p.grain ? [zh ? `转 ${p.grain.turn}°` : `turned ${p.grain.turn}°`] : []),
    ...(tilt
      ? [
          zh
            ? `${clockwise ? '顺' : '逆'}时针斜 ${tilt}°`
            : `askew ${tilt}° ${clockwise ? 'clockwise' : 'anticlockwise'}`,
        ]
      : []),
  ];
  if (!said.length) return '';
  return zh ? `（${said.join('，')}）` : ` (${said.join(', ')})`;
}

/** A piece's part as the overview labels it: in doubt with a question mark, with how the marker lays it. */
const partCaption = (p: PieceInfo) => `${PART_LABELS[p.part]}${p.doubt ? '？' : ''}${layCaption(p, true)}`;

/** A piece's part and its layer name (`joint` between them), said once where the layer is named as its part. */
const once = (a: string, b: string, joint: string) => (a === b ? a : `${a}${joint}${b}`);
const partCaptionEn = (p: PieceInfo) =>
  `${PART_LABELS_EN[p.part]}${p.doubt ? '?' : ''}${layCaption(p, false)}`;

const percent = (x: number) => `${Math.round(x * 100)}%`;

/**
 * The pieces in doubt in the order to ask about them: most layers likely wrong first. Every answer decides the
 * other pieces again, so the first answers help most. Left one design out, one answer per garment asked this way takes the
 * layers right from 85.4 % to 91.1 % (in a replay: least sure first 90.1 %, largest piece first 89.4 %);
 * test/garment/piece-model.test.ts prints the figures. One question per outline: the answer for its first layer
 * in doubt decides the layers cut from the same outline (a mirrored pair of sleeves, front halves).
 */
function inDoubt(pieces: readonly PieceInfo[]): PieceInfo[] {
  const likelyWrong = (p: PieceInfo) => likelyWrongLayers(p.confidence, p.copies);
  const asked = new Set<string>();
  return pieces
    .filter((p) => {
      if (!p.doubt || asked.has(p.name)) return false;
      for (const n of p.sameOutline) asked.add(n);
      return true;
    })
    .sort((a, b) => likelyWrong(b) - likelyWrong(a));
}

/** “name”, with the layers cut from the same outline when there are any. */
const withSameOutline = (p: PieceInfo) =>
  `“${p.name}”${p.sameOutline.length ? `（与${p.sameOutline.map((n) => `“${n}”`).join('、')}同一裁片，答一个即可）` : ''}`;

/** The pieces the garment-level assignment is unsure of (in the order to ask), as one sentence for the user. */
function doubtSentence(unsure: readonly PieceInfo[]): string {
  const each = unsure.map(
    (p) =>
      `${withSameOutline(p)}识别为${PART_LABELS[p.part]}（${percent(p.confidence)}），也可能是${PART_LABELS[p.doubt!.part]}（${percent(p.doubt!.confidence)}）${p.doubt!.next ? `或${PART_LABELS[p.doubt!.next.part]}` : ''}`,
  );
  return `以下裁片的部位不确定（最该先问的在前）：${each.join('；')}。请向用户确认（逐个问时先问第一个：每次确认后其余裁片随之重新判断，常常不必再问）；用户回答后调用 confirm_piece_parts 记下确认或更正的部位，或用 rename_layer 把图层改名为部位名称（如“前片”“后片”“袖子”）后重新识别。`;
}

/** Piece layers that share a name, and what the garment tools call each (collectPieces): null when none do. */
function sharedNames(pieces: readonly PieceInfo[]): string | null {
  const byLayer = new Map<string, string[]>();
  for (const p of pieces) {
    if (p.name !== p.layerName) byLayer.set(p.layerName, [...(byLayer.get(p.layerName) ?? []), p.name]);
  }
  if (!byLayer.size) return null;
  const each = [...byLayer].map(
    ([layer, names]) =>
      `${names.length} 个裁片图层都叫“${layer}”，从上到下称为${byPosition(names)
        .map((n) => `“${n}”`)
        .join('、')}`,
  );
  return `${each.join('；')}。在 confirm_piece_parts 和 extract_and_apply_all_pieces 中用这些名称指定裁片（图层本身未改名；也可用 rename_layer 改成不同的名称后重新识别）`;
}

function motifReport(m: MotifMode) {
  return {
    blend_mode: m.blend,
    lost_under_multiply: m.lost,
    reason:
      m.blend === 'normal'
        ? `主题图案比其下的底色浅：正片叠底只能压暗，会让 ${Math.round(m.lost * 100)}% 的图案变暗或变色；已抠出图案（透明背景）以正常模式放在底色之上，仍是单独可编辑的图层`
        : m.knockout
          ? `主题图案为白底图案，以正片叠底叠在满印上；照片中图案盖住了其下的花样（否则 ${Math.round(m.lost * 100)}% 的图案会透出满印的深色花纹），满印图层在图案下方已镂空为白色`
          : '主题图案为白底图案，以正片叠底叠在底色上（图案颜色可由正片叠底还原）',
  };
}

function sameAnalysis(a: GarmentAnalysis | null, b: GarmentAnalysis): boolean {
  if (!a || a.docId !== b.docId || a.pieces.length !== b.pieces.length) return false;
  return a.pieces.every((p, i) => {
    const q = b.pieces[i]!;
    return (
      p.layerId === q.layerId &&
      p.raster === q.raster &&
      p.layerMask === q.layerMask &&
      sameMasks(p.groupMasks, q.groupMasks) &&
      p.part === q.part &&
      p.mirrorOf === q.mirrorOf &&
      p.grain?.turn === q.grain?.turn &&
      p.tilt === q.tilt
    );
  });
}

const byPosition = (names: readonly string[]) =>
  [...names].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));

function noSuchPiece(name: string, pieces: readonly PieceShape[], state: DocState): never {
  const names = pieces.map((p) => p.name);
  // A layer of that name that is not a piece because it is hidden: say so, rather than that it does not exist.
  const hidden = [...topDown(state)].find(
    ({ layer }) => (layer.name === name || layerRef(state, layer.id) === name) && !isShown(state, layer.id),
  );
  if (hidden) {
    fail('not_found', `图层“${name}”是隐藏的：隐藏的图层不算裁片`, {
      hint: `如是裁片，先用 set_layer_visible 显示它${hidden.parent !== null ? '（或它所在的图层组）' : ''}，再调用 identify_pieces`,
      details: { pieces: names },
    });
  }
  const clear = [...topDown(state)].find(
    ({ layer }) =>
      (layer.name === name || layerRef(state, layer.id) === name) && clearLayer(state, layer.id) !== null,
  );
  if (clear) {
    const at = clearLayer(state, clear.layer.id)!;
    const which = at === clear.layer.id ? '' : `所在的图层组“${layerRef(state, at)}”`;
    const it = which ? `图层组“${layerRef(state, at)}”` : '它';
    if (layerById(state, at).opacity > 0) {
      fail('not_found', `图层“${name}”的填充不透明度为 0% 且没有描边等图层样式：完全看不见的图层不算裁片`, {
        hint: '如是裁片，先用 set_layer_fill_opacity 调高它的填充不透明度（或用 add_stroke 给它加描边，作为轮廓线稿的裁片），再调用 identify_pieces',
        details: { pieces: names },
      });
    }
    fail('not_found', `图层“${name}”${which}的不透明度为 0%：完全看不见的图层不算裁片`, {
      hint: `如是裁片，先用 set_layer_opacity 调高${it}的不透明度，再调用 identify_pieces`,
      details: { pieces: names },
    });
  }
  const shared = byPosition(pieces.filter((p) => p.layerName === name).map((p) => p.name));
  if (shared.length) {
    fail('not_found', `有 ${shared.length} 个裁片图层都叫“${name}”，不能确定指哪一个`, {
      hint: `从上到下依次是 ${shared.map((n) => `“${n}”`).join('、')}：请用其中的名称（见 identify_pieces 结果的 shared_layer_names）`,
      details: { closest: shared, pieces: names },
    });
  }
  const near = closest(name, names);
  fail('not_found', `没有名为“${name}”的裁片`, {
    hint: near.length ? `是否指 ${near.map((n) => `“${n}”`).join('、')}？` : `裁片有：${names.join('、')}`,
    details: { closest: near, pieces: names },
  });
}

/** The candidate piece layers lying wholly outside the canvas (collectPieces leaves them out). */
function offCanvasLayers(state: DocState): string[] {
  return candidateLayers(state)
    .filter((layer) => outsideCanvas(state, layer.raster))
    .map((layer) => layerRef(state, layer.id));
}

/** The active document's piece layers; refused when it has none. */
function piecesOf(doc: OpenDocument): PieceShape[] {
  const shapes = collectPieces(doc.state);
  if (shapes.length === 0) {
    const flat = flatMarker(doc.state);
    fail('invalid_state', `文档“${doc.name}”中没有裁片图层`, {
      hint: flat
        ? `排料图像是一整张图像（图层“${flat}”不透明，裁片画在底色上）：先调用 split_pieces 把它拆成每片一个图层，再调用 identify_pieces`
        : '裁片应是透明背景上的不透明形状，每个裁片一个可见的像素图层或智能对象（背景、文字图层和剪贴图层不算）；可用 open_document 打开裁片文件，或用 place_image 置入透明背景的裁片图（PNG 或 PSD）',
    });
  }
  return shapes;
}

/** A shown pixel layer that is the background or covers (nearly) the canvas: a flat marker, as a JPG opens. */
function flatMarker(state: DocState): string | null {
  for (const { layer } of topDown(state)) {
    if (layer.kind !== 'pixel' || !isShown(state, layer.id) || layer.raster.w * layer.raster.h === 0)
      continue;
    const r = layer.raster;
    const covered =
      Math.max(0, Math.min(r.x + r.w, state.width) - Math.max(r.x, 0)) *
      Math.max(0, Math.min(r.y + r.h, state.height) - Math.max(r.y, 0));
    if (layer.background || covered >= state.width * state.height * 0.9) return layerRef(state, layer.id);
  }
  return null;
}

/** Piece layers that seem to hold several pieces (a merged or exported marker): split_pieces first. */
function warnSeveral(ctx: ToolContext, shapes: readonly PieceShape[]): void {
  const several = shapes.filter((s) => pieceSizedRegions(s.mask, s.bounds.w, s.bounds.h) >= 2);
  if (several.length) {
    ctx.warn(
      `图层${several.map((s) => `“${s.name}”`).join('、')}上有几块互不相连的区域，像是几个裁片在同一个图层上（每个图层应只有一个裁片）：先调用 split_pieces 把它拆成每片一个图层，再调用 identify_pieces；这次仍按每个图层一片识别`,
    );
  }
}

/** The parts the user confirmed for the document's pieces (layer id → part), those still piece layers. */
function confirmationsOf(
  ctx: ToolContext,
  doc: OpenDocument,
  shapes: readonly PieceShape[],
): Map<number, Part> {
  const { analysis, confirmations } = ctx.session.garment;
  const ids = new Set(shapes.map((s) => s.layerId));
  const kept = confirmations
    ? confirmations.filter((c) => c.docId === doc.id)
    : analysis?.docId === doc.id
      ? (analysis.confirmed ?? [])
      : [];
  return new Map(kept.filter((c) => ids.has(c.layerId)).map((c) => [c.layerId, c.part]));
}

/** How the user said the document's pieces lie on the marker: layer id → quarter turn, and → tilt. */
interface StatedLie {
  readonly turns: Map<number, Turn>;
  readonly tilts: Map<number, number>;
}

function statedLie(ctx: ToolContext, doc: OpenDocument, shapes: readonly PieceShape[]): StatedLie {
  const ids = new Set(shapes.map((s) => s.layerId));
  const kept = (ctx.session.garment.confirmations ?? []).filter(
    (c) => c.docId === doc.id && ids.has(c.layerId),
  );
  return {
    turns: new Map(kept.flatMap((c) => (c.turn !== undefined ? [[c.layerId, c.turn] as const] : []))),
    tilts: new Map(kept.flatMap((c) => (c.tilt !== undefined ? [[c.layerId, c.tilt] as const] : []))),
  };
}

function memoryWith(ctx: ToolContext, change: Partial<GarmentMemory>): GarmentMemory {
  return { ...ctx.session.garment, ...change };
}

/**
 * identify_pieces and confirm_piece_parts: the pieces' parts (the user's confirmations kept as they are, the rest
 * decided around them), the photo's proposals, and the result both tools return.
 */
async function identifyPieces(
  ctx: ToolContext,
  doc: OpenDocument,
  shapes: readonly PieceShape[],
  confirmed: ReadonlyMap<number, Part>,
  photoReading: PhotoReading,
  stated: StatedLie,
) {
  ctx.progress('识别裁片', 0.1);
  const away = offCanvasLayers(doc.state);
  if (away.length) {
    ctx.warn(
      `图层${away.map((n) => `“${n}”`).join('、')}完全在画布之外，不算裁片（画布外的像素不会打印）；如是裁片，用 move_layer 移回画布后重新识别`,
    );
  }
  const { value: parts, provider } = await consult(
    selectVision(),
    (v) =>
      v.identify({
        shapes,
        confirmed,
        marks: () =>
          overviewImage(
            doc.state,
            shapes,
            { zh: (p, i) => `#${i + 1}\n${p.name}` },
            {
              zh: '裁片编号与图层名',
              en: 'Piece numbers and layer names',
            },
          ),
      }),
    (m) => ctx.warn(m),
  );
  const pieces = withTilts(withGrains(parts, stated.turns), stated.tilts);
  warnFill(ctx, doc.state, pieces, false);
  for (const p of pieces) {
    if (p.duplicateOf) {
      ctx.warn(
        `图层“${p.name}”与“${p.duplicateOf}”完全重叠（像是复制图层后没有移开）：按同一裁片处理，不算另一片，也不与它成对。请向用户确认：多余的副本可用 delete_layer 删除；如是另一片裁片，用 move_layer 移到它在排料图上的位置后重新识别`,
      );
    } else if (p.overlaps) {
      ctx.warn(
        `图层“${p.name}”与“${p.overlaps.name}”重叠（较小一片的 ${Math.round(p.overlaps.share * 100)}% 被盖住；排料图上的裁片不会叠放，像是复制或翻转图层后没有移开）：暂按两片裁片识别，排料可能还没完成。请向用户确认排料：用 move_layer 把裁片移到它在排料图上的位置后重新识别；多余的图层可用 delete_layer 删除`,
      );
    }
  }
  const crowded = crowdedFronts(pieces);
  if (crowded !== null) {
    ctx.warn(
      `识别出 ${crowded.fronts} 片前片、${crowded.backs} 片后片，多于一件衣服的（前身或后身是整片、左右两片，或中片加侧片共 3–4 片，整片各一片）：如果这份排料图是一件衣服的多个尺码（放码排料）或多件衣服，尺码没有分出来（各尺码同一裁片的轮廓按比例对不上），花样比例会按全部前片合起来换算而大小出错。请向用户确认：多个尺码或多件衣服时，把每个尺码（每件衣服）的裁片放在单独的文档中套图；确是一件多片拼接的衣服（如束身衣）时可以继续`,
    );
  }
  // Drawn while the photo's analysis, if any, runs on its own thread.
  ctx.progress('绘制裁片总览', 0.4);
  const sorted = [...pieces].sort(byPartThenName);
  const doubts = pieces.some((p) => p.doubt);
  const image = await overviewImage(
    doc.state,
    pieces,
    {
      zh: (p) => once(partCaption(p as PieceInfo), p.name, '\n'),
      en: (p) => once(partCaptionEn(p as PieceInfo), p.name, '\n'),
    },
    {
      zh: `裁片识别结果：${sorted.map((p) => once(p.name, partCaption(p), ' = ')).join('，')}${doubts ? '（橙色轮廓、带“？”的裁片部位待确认）' : ''}`,
      en: `Pieces identified: ${sorted.map((p) => once(p.name, partCaptionEn(p), ' = ')).join(', ')}${doubts ? ' (pieces outlined in orange with a “?” need their part confirmed)' : ''}`,
    },
    (p) => (p as PieceInfo).doubt !== undefined,
  );
  let ext: Extraction | null = null;
  let reused = false;
  if (photoReading) {
    ctx.progress('分析服装照片', 0.6);
    ({ ext, reused } = await photoReading.result);
  }
  const proposals = ext ? proposalsFor(pieces, ext, placementFor(ext, pieces, doc.state.dpi)) : null;
  const analysis: GarmentAnalysis = {
    docId: doc.id,
    pieces,
    provider,
    proposals,
    examined: candidateLayers(doc.state).map((l) => l.id),
  };
  const prior = ctx.session.garment;
  const confirmations = [
    ...(prior.confirmations ?? []).filter((c) => c.docId !== doc.id),
    ...[...confirmed].map(([layerId, part]) => {
      const turn = stated.turns.get(layerId);
      const tilt = stated.tilts.get(layerId);
      return {
        docId: doc.id,
        layerId,
        part,
        ...(turn !== undefined ? { turn } : {}),
        ...(tilt !== undefined ? { tilt } : {}),
      };
    }),
  ];
  const unchanged = sameAnalysis(prior.analysis, analysis);
  // Parts that differ from the document's previous identification (a confirmation moves the others too).
  const before = prior.analysis?.docId === doc.id ? prior.analysis.pieces : [];
  const changed = pieces.flatMap((p) => {
    const was = before.find((q) => q.layerId === p.layerId);
    return was && was.part !== p.part
      ? [
          {
            name: p.name,
            from: was.part,
            from_label: PART_LABELS[was.part],
            to: p.part,
            to_label: PART_LABELS[p.part],
          },
        ]
      : [];
  });
  ctx.session.stage({
    garment: {
      analysis,
      extraction: ext ?? prior.extraction,
      // A preview and an application stay valid while the pieces and the photo are the same.
      preview: unchanged && (!ext || prior.preview?.photoHash === ext.photoHash) ? prior.preview : null,
      applied: prior.applied?.docId === doc.id ? prior.applied : null,
      confirmations,
    },
  });
  const byName = new Map(proposals?.map((p) => [p.name, p]) ?? []);
  const unsure = inDoubt(pieces);
  const doubt = unsure.length ? doubtSentence(unsure) : null;
  const confirm = doubt
    ? '先把 confirmation 中列出的裁片和可选部位告诉用户并请其确认（不要直接继续）；用户确认后，'
    : '';
  const shared = sharedNames(pieces);
  const sizes = Math.max(0, ...pieces.map((p) => p.size ?? 0));
  return {
    document: doc.name,
    provider,
    ...(shared ? { shared_layer_names: shared } : {}),
    ...(sizes ? { graded_sizes: sizes } : {}),
    needs_confirmation: doubt !== null,
    ...(doubt ? { confirmation: doubt, ask_order: unsure.map((p) => p.name) } : {}),
    pieces: pieces.map((p) => pieceReport(p, byName.get(p.name))),
    ...(changed.length ? { changed } : {}),
    pairs: pieces
      .filter((p) => p.mirrorOf !== null)
      .map((p) => [pieces.find((q) => q.layerId === p.mirrorOf)!.name, p.name]),
    garment_photo: ctx.session.garmentPhoto,
    ...(ext
      ? {
          photo_analysis: { ...extractionReport(ext, null, null), reused },
          proposed_pieces: proposals,
          next: `${confirm}调用 generate_garment_preview 生成预览（不要再次调用 identify_pieces）；proposed_pieces 可直接作为 extract_and_apply_all_pieces 的 pieces 参数`,
        }
      : {
          next: `${confirm}还没有服装照片：请用户上传服装照片（或调用 set_garment_photo），然后调用 generate_garment_preview；type 和 color 会在预览结果中给出`,
        }),
    images: [image],
  };
}

export const garmentHandlers = {
  async identify_pieces(_args, ctx) {
    const doc = activeDoc(ctx);
    const photoReading = await startPhotoReading(ctx);
    const shapes = piecesOf(doc);
    warnSeveral(ctx, shapes);
    return identifyPieces(
      ctx,
      doc,
      shapes,
      confirmationsOf(ctx, doc, shapes),
      photoReading,
      statedLie(ctx, doc, shapes),
    );
  },

  async confirm_piece_parts({ pieces: entries }, ctx) {
    const doc = activeDoc(ctx);
    const shapes = piecesOf(doc);
    const names = shapes.map((s) => s.name);
    const seen = new Set<string>();
    for (const e of entries) {
      if (!names.includes(e.name)) noSuchPiece(e.name, shapes, doc.state);
      if (seen.has(e.name)) fail('invalid_arguments', `裁片“${e.name}”在 pieces 中出现了两次`);
      if (e.turn !== undefined && !(TURNS as readonly number[]).includes(e.turn)) {
        fail(
          'invalid_arguments',
          `裁片“${e.name}”的 turn 是 ${e.turn}：只能是 ${TURNS.join('、')}（顺时针转过的角度）`,
          {
            details: { piece: e.name, turn: e.turn },
          },
        );
      }
      seen.add(e.name);
    }
    // An empty list clears the confirmations; otherwise these are added to (or change) the ones kept.
    const confirmed = entries.length ? confirmationsOf(ctx, doc, shapes) : new Map<number, Part>();
    const stated: StatedLie = entries.length
      ? statedLie(ctx, doc, shapes)
      : { turns: new Map(), tilts: new Map() };
    for (const e of entries) {
      for (const s of shapes) {
        if (s.name !== e.name) continue;
        confirmed.set(s.layerId, e.part);
        if (e.turn !== undefined) stated.turns.set(s.layerId, e.turn as Turn);
        // A tenth of a degree, as identify_pieces reports it.
        if (e.tilt !== undefined) stated.tilts.set(s.layerId, Math.round(e.tilt * 10) / 10 || 0);
      }
    }
    return identifyPieces(ctx, doc, shapes, confirmed, await startPhotoReading(ctx), stated);
  },

  async generate_garment_preview(_args, ctx) {
    const doc = activeDoc(ctx);
    if (!ctx.session.garmentPhoto)
      fail('invalid_state', '还没有服装照片，无法生成预览', { hint: NEED_PHOTO_HINT });
    const analysis = currentAnalysis(ctx, doc);
    const photo = await readPhoto(ctx);
    ctx.progress('提取印花', 0.1);
    const { ext, reused } = await extractionFor(ctx, photo);
    const placement = placementFor(ext, analysis.pieces, doc.state.dpi);
    const proposals =
      analysis.proposals && ctx.session.garment.extraction?.photoHash === ext.photoHash
        ? analysis.proposals
        : proposalsFor(analysis.pieces, ext, placement);
    ctx.progress('绘制预览', 0.7);
    const { image, sewn, built } = await previewImage(doc.state, ext, placement, analysis.pieces, proposals);
    // Only the front panels the motif is drawn about (and the main front, for its size) are turned upright: turning
    // a print-resolution mask is not free, and the others play no part.
    const drawnAbout = ext.motif
      ? analysis.pieces.filter(
          (p) => p.name === placement.anchor || placement.centres?.some((c) => c.layerId === p.layerId),
        )
      : [];
    const onFabric = motifOnFabric(drawnAbout.map(uprightPiece), ext, placement);
    if (onFabric !== null && onFabric < MOTIF_ON_FABRIC) ctx.warn(offFabricAdvice(onFabric));
    warnFill(ctx, doc.state, analysis.pieces, false);
    warnCovered(ctx, doc.state, analysis.pieces);
    const motifs = built.filter((b) => b.motif).map((b) => ({ piece: b.name, ...motifReport(b.motif!) }));
    ctx.session.stage({
      garment: memoryWith(ctx, {
        analysis: { ...analysis, proposals },
        extraction: ext,
        preview: { docId: doc.id, photoHash: ext.photoHash, placement },
      }),
    });
    return {
      document: doc.name,
      extraction: { ...extractionReport(ext, placement, doc.state.dpi), reused },
      placement: {
        scale: round(placement.scale, 4),
        anchor_piece: placement.anchor,
        assumption: placement.scaleBasis,
        tile_phase: `整份文档共用一个花样相位：以服装的前中线（分为两片的前身在两片的中线止口处）和主前片“${placement.anchor}”的上沿对齐照片中服装的中线和上沿；主题图案以前中线为准，画在它所覆盖的每一片前片上（各片只显示落在该片上的部分）；成对裁片中的第二片使用镜像花样${placement.shifts.length ? (ext.lattice ? '；后片的花样从前片接续（见 seams）' : '；各裁片另取照片中合适位置的印花（见 seams）') : ''}`,
        ...(placement.seams.length ? { seams: placement.seams } : {}),
        ...(onFabric !== null ? { motif_on_fabric: round(onFabric, 2) } : {}),
      },
      proposed_pieces: proposals,
      ...(motifs.length ? { motif_layers: motifs } : {}),
      next: '请用户确认预览图；确认后调用 extract_and_apply_all_pieces，pieces 可直接使用 proposed_pieces（可按用户意见修改 type 或 color）。不要再次调用 identify_pieces 或本工具',
      images: sewn ? [image, sewn] : [image],
    };
  },

  async extract_and_apply_all_pieces({ pieces: entries }, ctx) {
    const doc = activeDoc(ctx);
    if (!ctx.session.garmentPhoto) fail('invalid_state', '还没有服装照片', { hint: NEED_PHOTO_HINT });
    const analysis = currentAnalysis(ctx, doc);
    const memory = ctx.session.garment;
    const photo = await readPhoto(ctx);
    const ext = memory.extraction;
    const preview = memory.preview;
    if (
      !ext ||
      !preview ||
      preview.docId !== doc.id ||
      preview.photoHash !== photo.hash ||
      ext.photoHash !== photo.hash
    ) {
      fail('invalid_state', '还没有为当前文档和服装照片生成预览，用户尚未确认', {
        hint: '先调用 generate_garment_preview，并请用户确认预览图',
      });
    }
    if (entries.length === 0)
      fail('invalid_arguments', 'pieces 不能为空', {
        hint: '使用 identify_pieces 或预览结果中的 proposed_pieces',
      });
    const names = analysis.pieces.map((p) => p.name);
    const seen = new Set<string>();
    const plans: PiecePlan[] = [];
    for (const e of entries) {
      const piece = analysis.pieces.find((p) => p.name === e.name);
      if (!piece) noSuchPiece(e.name, analysis.pieces, doc.state);
      if (seen.has(e.name)) fail('invalid_arguments', `裁片“${e.name}”在 pieces 中出现了两次`);
      seen.add(e.name);
      if ((e.type === 'solid' || e.type === 'theme_pattern') && !e.color) {
        fail('invalid_arguments', `裁片“${e.name}”的 type 为 ${e.type}，必须提供 color（十六进制颜色）`, {
          hint: '使用 identify_pieces 或预览结果中 proposed_pieces 的 color',
          details: [{ path: `pieces[${entries.indexOf(e)}].color`, piece: e.name }],
        });
      }
      const unavailable = typeUnavailable(ext, e.type);
      if (unavailable) {
        fail('invalid_state', `${unavailable}，裁片“${e.name}”不能使用 ${e.type}`, {
          hint: `改用预览结果中 proposed_pieces 的 type（照片读作 ${ext.kind}）`,
          details: { piece: e.name, type: e.type, photo_kind: ext.kind },
        });
      }
      const layer = doc.state.layers.get(piece.layerId)!;
      // The piece moves into a group of its own: a locked group around it refuses that, as move_layer does.
      assertFree(doc.state, layer, '套图');
      plans.push({ piece, type: e.type, color: e.color ? hexToRgb(e.color) : null });
    }
    ctx.progress('套用花样', 0.1);
    const { state, built } = await applyPlans(doc.state, ext, preview.placement, plans, analysis.pieces);
    for (const b of built) if (b.fill !== null) ctx.warn(fillSentence(b.name, b.fill, true));
    warnCovered(
      ctx,
      state,
      plans.map((p) => p.piece),
    );
    const first = built[0]!;
    const next: DocState = { ...state, active: first.groupId, selected: [first.groupId] };
    ctx.tx.update(doc.id, next);
    const previous =
      memory.applied?.docId === doc.id ? memory.applied.pieces.filter((p) => !seen.has(p.name)) : [];
    const applied: AppliedRecord = {
      docId: doc.id,
      photoHash: photo.hash,
      placement: preview.placement,
      pieces: [
        ...previous,
        ...built.map((b) => ({
          name: b.name,
          layerId: b.layerId,
          type: b.type,
          color: entries.find((e) => e.name === b.name)!.color ?? null,
          groupId: b.groupId,
        })),
      ],
    };
    ctx.session.stage({ garment: memoryWith(ctx, { applied, preview: { ...preview, applied: true } }) });
    const missing = names.filter((n) => !applied.pieces.some((p) => p.name === n));
    return {
      document: doc.name,
      applied: built.map((b) => ({
        piece: b.name,
        type: b.type,
        group: `${b.name} 花样`,
        layers: [
          { name: b.name, role: 'clipping_base' },
          ...b.layers.map((l) => ({ name: l.name, clipped: true, blend_mode: l.blend })),
        ],
        ...(b.motif ? { motif_layer: motifReport(b.motif) } : {}),
      })),
      structure:
        '每个裁片一个图层组：裁片图层在组内最下方作为剪贴蒙版的基底，花样图层剪贴在其上（在 Photoshop 中可直接编辑）',
      history_steps: 1,
      ...(preview.placement.seams.length &&
      built.some((b) => b.type === 'fill_pattern' || b.type === 'mixed_pattern')
        ? { seams: preview.placement.seams }
        : {}),
      ...(missing.length ? { pieces_without_pattern: missing } : {}),
      next: '调用 verify_pattern_result 验证套图效果',
    };
  },

  async verify_pattern_result(_args, ctx) {
    const doc = activeDoc(ctx);
    if (!ctx.session.garmentPhoto)
      fail('invalid_state', '还没有服装照片，无法对比', { hint: NEED_PHOTO_HINT });
    const memory = ctx.session.garment;
    if (!memory.applied || memory.applied.docId !== doc.id) {
      fail('invalid_state', `文档“${doc.name}”还没有套图`, { hint: '先调用 extract_and_apply_all_pieces' });
    }
    // The record outlives an undo of the apply (it is the session's, not the document's history): with none of
    // its pattern groups left in the document, there is no result to score — bare pieces are not a bad print.
    if (!memory.applied.pieces.some((p) => doc.state.layers.has(p.groupId))) {
      fail('invalid_state', `文档“${doc.name}”中已没有套图结果（套图的图层组已被撤销或删除）`, {
        hint: '先调用 extract_and_apply_all_pieces 重新套图，或用 redo 恢复撤销的套图',
      });
    }
    const analysis = currentAnalysis(ctx, doc);
    const photo = await readPhoto(ctx);
    const ext = memory.extraction;
    if (!ext || ext.photoHash !== photo.hash || memory.applied.photoHash !== photo.hash) {
      fail('invalid_state', '服装照片在套图之后更换了', {
        hint: '重新调用 generate_garment_preview 和 extract_and_apply_all_pieces',
      });
    }
    ctx.progress('合成画面', 0.1);
    const canvas = ctx.tx.peekComposite(doc.id);
    ctx.progress('测量套图效果', 0.4);
    const truth = await photoTruth(photo.bytes, ext);
    const measures = await measureResult(
      doc.state,
      canvas,
      analysis.pieces,
      ext,
      memory.applied,
      truth,
      doc.state.dpi,
    );
    const verdict = verdictOf(measures);
    const { value: opinion, provider } = await consult(
      selectVision(),
      (v) =>
        v.review({
          measures,
          classicalScore: verdict.score,
          photo: async () =>
            pngImage((await decodeImage(photo.bytes)).raster, { zh: '服装照片', en: 'Garment photo' }),
          canvas: async () => pngImage({ ...canvas }, { zh: '套图结果', en: 'Applied result' }),
        }),
      (m) => ctx.warn(m),
    );
    const score = opinion ? round((verdict.score + opinion.score) / 2, 1) : verdict.score;
    // A piece whose mode or opacity its print takes on (score.ts, the looks measure): the reason is the layer.
    const looks = measures.some((m) => m.key === 'looks');
    return {
      document: doc.name,
      score,
      scale: '1-10（10 最好）',
      provider,
      ...(opinion ? { measured_score: verdict.score, model_score: opinion.score } : {}),
      measures: measures.map((m) => ({
        measure: m.key,
        label: m.label,
        label_en: MEASURE_LABELS_EN[m.key],
        score: m.score,
        ...m.value,
      })),
      delta_e_formula: 'CIEDE2000',
      suggestions: [...verdict.suggestions, ...(opinion?.suggestions ?? [])],
      next:
        score >= 8 && !looks
          ? '效果良好：可以用 save_document 保存'
          : measures.some((m) => m.key === 'hidden') || looks
            ? '先按 suggestions 处理盖住花样的图层或裁片的混合模式、不透明度（请用户确认如何处理），再调用本工具验证'
            : '按 suggestions 调整后重新调用 extract_and_apply_all_pieces，再调用本工具验证',
    };
  },

  async set_garment_photo({ path: rel }, ctx) {
    const target = ctx.workspace.relative(ctx.workspace.resolve(rel));
    const bytes = await ctx.workspace.read(target);
    const format = sniffFileType(bytes);
    if (format === null || format === 'psd') {
      const known = unreadableFormat(bytes);
      fail(
        'unsupported',
        known
          ? `“${target}”是 ${known.what}，无法读取`
          : `“${target}”不是 ${formatNames(IMAGE_FORMATS)} 图像`,
        { hint: known?.hint ?? `服装照片须为 ${formatNames(IMAGE_FORMATS)} 文件` },
      );
    }
    const { raster } = await decodeImage(bytes);
    const small = photoTooSmall(target, raster.w, raster.h);
    if (small) fail('invalid_arguments', small.message, { hint: small.hint });
    const warning = photoSmallWarning(raster.w, raster.h);
    if (warning) ctx.warn(warning);
    const hash = createHash('sha1').update(bytes).digest('hex');
    const memory = ctx.session.garment;
    const held = heldFor(memory.extraction, { path: target, bytes, hash });
    // identify_pieces will want its reading: started now on the photo worker, it is often done by then.
    if (!held) analysePhotoAhead(bytes, target, hash);
    const same =
      ctx.session.garmentPhoto === target &&
      (memory.extraction === null || memory.extraction.photoHash === hash);
    if (!same) {
      ctx.session.stage({
        garmentPhoto: target,
        garment:
          memory === EMPTY_GARMENT_MEMORY
            ? memory
            : {
                analysis: memory.analysis ? { ...memory.analysis, proposals: null } : null,
                extraction: held ? memory.extraction : null,
                preview: null,
                applied: memory.applied,
                ...(memory.confirmations ? { confirmations: memory.confirmations } : {}),
              },
      });
    }
    return {
      garment_photo: target,
      width: raster.w,
      height: raster.h,
      format,
      next: memory.analysis
        ? '调用 identify_pieces 获取基于新照片的 type 和 color 建议，然后调用 generate_garment_preview'
        : '调用 identify_pieces',
    };
  },
} satisfies ToolHandlers;
