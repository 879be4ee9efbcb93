/**
 * verify_pattern_result's evidence, measured against the photo itself (against-photo.ts) on a grid of fixed
 * physical size: the anchor piece against the photo where the placement puts it (colour and structure), every
 * printed piece's orientation and repeat scale (its autocorrelation against the photo garment's), the palette
 * both ways, coverage of every piece by its print layers, mirroring of pairs, the print across the side seam,
 * and whether the motif can be found; a print that a designer's layer clipped above it hides is named first (the
 * other measures would only see that layer), and before it a piece whose own mode or opacity (or its group's) the
 * print takes on: how far that moves what the canvas shows, while every other measure judges those pieces' print
 * as it would show in normal mode at 100 % (their colours on the canvas are the layer's doing, not the print's,
 * and re-applying cannot change them). Each becomes a sub-score in 0..1; the score is
 * 1 + 9 · mean · (0.4 + 0.6 · worst), so a single failed measure cannot hide behind good ones.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { renderDocument } from '../../engine/composite/index.js';
import type { DocState, Layer, Raster, Rect } from '../../engine/model.js';
import { childrenOf, isShown, layerById, parentOf } from '../../engine/tree.js';
import {
  coverSentence,
  GROUP_SUFFIX,
  lookSentence,
  type PieceLook,
  type PrintCover,
  pieceLooks,
  printCovers,
} from '../apply.js';
import { deltaE00, deltaE76 } from '../color.js';
import { crowdedFronts, frontSpread, mainFront } from '../main-front.js';
import { MOTIF_ON_FABRIC, MOTIF_SHARE, motifOnFabric, motifShare } from '../render.js';
import { sewnFronts } from '../sewn.js';
import type { AppliedRecord, Extraction, PieceInfo, PieceType, Placement } from '../types.js';
import { frameOf, isUpright, uprightPiece, uprightView } from '../upright.js';
import {
  autocorrelation,
  BoxSums,
  binnedGrid,
  type Grid,
  measureDpi,
  mirrored,
  type PhotoTruth,
  pearson,
  photoGrid,
} from './against-photo.js';
import { paletteDistance, paletteOf } from './palette.js';

export interface Measure {
  readonly key:
    | 'looks'
    | 'hidden'
    | 'photo'
    | 'outline'
    | 'texture'
    | 'palette'
    | 'coverage'
    | 'symmetry'
    | 'seams'
    | 'motif';
  readonly label: string;
  /** 0..1 */
  readonly score: number;
  readonly weight: number;
  readonly value: Record<string, unknown>;
  readonly suggestion: string | null;
}

/** Each measure's name in the studio's English mode (its `label` is the Chinese one). */
export const MEASURE_LABELS_EN: Readonly<Record<Measure['key'], string>> = {
  looks: 'Blending with what lies below',
  hidden: 'Print hidden',
  photo: 'Against the photo',
  outline: 'Scale (photo outline)',
  texture: 'Print direction and scale',
  palette: 'Colours',
  coverage: 'Coverage',
  symmetry: 'Left–right symmetry',
  seams: 'Side-seam matching',
  motif: 'Motif',
};

export interface Verdict {
  readonly score: number;
  readonly measures: readonly Measure[];
  readonly suggestions: readonly string[];
}

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;
const clamp01 = (v: number) => Math.max(0, Math.min(1, v));

/** A measure at or above this reads as met; below it (and above its own advice's threshold) it is named. */
const WELL = 0.9;

export function verdictOf(measures: readonly Measure[]): Verdict {
  const wsum = measures.reduce((s, m) => s + m.weight, 0);
  const mean = measures.reduce((s, m) => s + m.weight * m.score, 0) / wsum;
  const worst = Math.min(...measures.map((m) => m.score));
  const score = Math.max(1, Math.min(10, round(1 + 9 * mean * (0.4 + 0.6 * worst), 1)));
  const suggestions = measures.flatMap((m) => (m.suggestion ? [m.suggestion] : []));
  // No measure low enough to call for a change, but the score still says where the result falls short of the
  // photo: "all good" at 8.5 would hide it.
  const short = measures.filter((m) => m.weight > 0 && m.score < WELL).sort((p, q) => p.score - q.score);
  if (suggestions.length === 0)
    suggestions.push(
      short.length
        ? `没有必须修改之处，可以用 save_document 保存文档，或导出打印文件；得分未满主要因为${short.map((m) => `“${m.label}”（${round(m.score)}）`).join('、')}，详见 measures`
        : '各项指标良好：可以用 save_document 保存文档，或导出打印文件',
    );
  return { score, measures, suggestions };
}

/** Autocorrelation lags compared, in measuring cells (±16 mm: a repeat up to about 3 cm shows twice). */
const LAGS = 16;

interface PieceGrid {
  readonly piece: PieceInfo;
  readonly grid: Grid;
  /** The piece's bounds on the canvas. */
  readonly rect: Rect;
  /** The grid again with cells counted from the piece's right edge (the mirror of a pair's partner). */
  readonly fromRight: () => Grid;
}

/**
 * A piece as verify measures it: standing upright (upright.ts), with the pixels it shows in that frame — the
 * composite itself for a piece the marker laid upright, its bounds turned upright for one it turned.
 */
interface PieceView {
  readonly piece: PieceInfo;
  readonly canvas: Raster;
}

function viewOf(canvas: Raster, p: PieceInfo): PieceView {
  const f = frameOf(p);
  return isUpright(f) ? { piece: p, canvas } : { piece: uprightPiece(p), canvas: uprightView(f, canvas) };
}

function pieceGrid({ canvas, piece: p }: PieceView, step: number): PieceGrid {
  const x0 = Math.max(canvas.x, p.bounds.x);
  const y0 = Math.max(canvas.y, p.bounds.y);
  const b = {
    x: x0,
    y: y0,
    w: Math.min(canvas.x + canvas.w, p.bounds.x + p.bounds.w) - x0,
    h: Math.min(canvas.y + canvas.h, p.bounds.y + p.bounds.h) - y0,
  };
  // The grid reads the canvas's own pixels: the rect and the mask counted from its origin.
  const local = { ...b, x: b.x - canvas.x, y: b.y - canvas.y };
  const mask = { data: p.mask, x: p.bounds.x - canvas.x, y: p.bounds.y - canvas.y, w: p.bounds.w };
  return {
    piece: p,
    grid: binnedGrid(local, canvas.data, canvas.w, mask, step),
    rect: b,
    fromRight: () =>
      binnedGrid(local, canvas.data, canvas.w, mask, step, b.w - Math.floor(b.w / step) * step),
  };
}

/** The fabric cells' Lab values, every k-th so that at most `max` (a palette needs no more). */
function labSamples(g: Grid, max = 20_000): Float32Array {
  let n = 0;
  for (let i = 0; i < g.ok.length; i++) n += g.ok[i]!;
  const every = Math.max(1, Math.ceil(n / max));
  const out: number[] = [];
  let seen = 0;
  for (let i = 0; i < g.ok.length; i++) {
    if (!g.ok[i] || seen++ % every !== 0) continue;
    out.push(g.L[i]!, g.a[i]!, g.b[i]!);
  }
  return Float32Array.from(out);
}

const TYPE_LABEL: Record<PieceType, string> = {
  solid: '纯色',
  fill_pattern: '满印花样',
  theme_pattern: '主题图案',
  mixed_pattern: '满印加主题图案',
};

/**
 * Every measure compares the result with the photo itself (its garment region, segmented again), never with
 * the extraction, on a grid of fixed physical size (MEASURE_DPI), so a wrong extraction scores low and the same
 * result scores the same at any DPI. It takes seconds on a production marker and gives the event loop a turn
 * between its stages: the canvas's picture of the print just applied is made beside it (Session.inspectSettled)
 * rather than after it.
 */
export async function measureResult(
  state: DocState,
  canvas: Raster,
  pieces: readonly PieceInfo[],
  ext: Extraction,
  applied: AppliedRecord,
  truth: PhotoTruth,
  dpi: number,
): Promise<Measure[]> {
  const out: Measure[] = [];
  const pl = applied.placement;
  const cellsPerInch = measureDpi(pl, dpi);
  const step = dpi / cellsPerInch;
  const appliedBy = new Map(applied.pieces.map((a) => [a.layerId, a]));
  const typeOf = (p: PieceInfo) => appliedBy.get(p.layerId)?.type ?? null;
  const coverage: Record<string, number> = {};
  // Sampled every half cell: the share is a property of the fabric, not of the document's pixel count.
  const every = Math.max(1, Math.floor(step / 2));
  for (const p of pieces) coverage[p.name] = round(coverageOf(state, p, every), 3);
  await nextTurn();
  // A printed piece whose print a designer's layer clipped above it hides: the canvas shows that layer.
  // By layer id: a piece the marker turned is measured as an upright copy of it (upright.ts).
  const hiddenBy = new Map<number, { piece: PieceInfo; covers: PrintCover[] }>();
  for (const p of pieces) {
    const covers = appliedBy.has(p.layerId) ? printCovers(state, p) : [];
    if (covers.length) hiddenBy.set(p.layerId, { piece: p, covers });
  }
  if (hiddenBy.size) {
    const worst = Math.max(...[...hiddenBy.values()].flatMap((h) => h.covers.map((c) => c.share)));
    // First, so the reason leads the suggestions: no other measure can see a print that does not show.
    out.push({
      key: 'hidden',
      label: '花样被遮挡',
      score: round(1 - worst),
      weight: 0.25,
      value: {
        per_piece: Object.fromEntries(
          [...hiddenBy.values()].map(({ piece, covers }) => [
            piece.name,
            covers.map((c) => ({
              layer: c.name,
              blend_mode: c.blend,
              opacity: c.opacity,
              share: round(c.share),
            })),
          ]),
        ),
      },
      suggestion: `花样被遮挡：${[...hiddenBy.values()]
        .flatMap(({ piece, covers }) => covers.map((c) => coverSentence(piece.name, c)))
        .join('；')}`,
    });
  }
  // A piece without its print, or with its print hidden, is the coverage or the hidden measure's to report, not
  // a wrong print or colour.
  const covered = (p: PieceInfo) => (coverage[p.name] ?? 0) >= 0.95 && !hiddenBy.has(p.layerId);
  // The pieces whose print takes on their own (or their group's) mode or opacity are measured as they would show
  // with those layers in normal mode at 100 % (only their bounds are composited again); the looks measure says how
  // far the canvas is from that.
  const looks = new Map<number, PieceLook[]>();
  for (const p of pieces) {
    const l = appliedBy.has(p.layerId) && state.layers.has(p.layerId) ? pieceLooks(state, p.layerId) : [];
    if (l.length) looks.set(p.layerId, l);
  }
  const shown = pieces.map((p) => viewOf(canvas, p));
  const asPrinted = looks.size ? printedState(state, [...looks.values()].flat()) : state;
  const views = pieces.map((p, i) =>
    looks.has(p.layerId) ? viewOf(renderDocument(asPrinted, docClip(state, p.bounds)), p) : shown[i]!,
  );
  const grids: PieceGrid[] = [];
  for (const v of views) {
    grids.push(pieceGrid(v, step));
    await nextTurn();
  }
  if (looks.size) out.unshift(looksMeasure(pieces, looks, (i) => pieceGrid(shown[i]!, step).grid, grids));
  const photo = photoGrid(truth, pl, step);
  const photoPalette = paletteOf(labSamples(photo));
  await nextTurn();
  const printed = (t: PieceType | null) => t === 'fill_pattern' || t === 'mixed_pattern';
  const callFor = (name: string, type: PieceType) =>
    `调用 extract_and_apply_all_pieces，pieces 中“${name}”的 type 用 ${type}（${TYPE_LABEL[type]}）`;

  // The anchor piece against the photo where the placement puts it: the colours and the print's structure.
  const anchor = grids.find((g) => g.piece.name === pl.anchor) ?? grids[0]!;
  const photoSums = new BoxSums(
    { x: 0, y: 0, w: truth.photo.w, h: truth.photo.h },
    truth.photo.data,
    truth.photo.w,
    0,
    0,
    (x, y) => truth.inside[y * truth.photo.w + x] === 1,
  );
  // Both on the anchor's grid; NaN where either holds no fabric.
  const n = anchor.grid.w * anchor.grid.h;
  const resL = new Float64Array(n).fill(Number.NaN);
  const refL = new Float64Array(n).fill(Number.NaN);
  const des: number[] = [];
  const foot = step / pl.scale;
  for (let j = 0; j < anchor.grid.h; j++) {
    for (let i = 0; i < anchor.grid.w; i++) {
      const k = j * anchor.grid.w + i;
      if (!anchor.grid.ok[k]) continue;
      const X = anchor.rect.x + (i + 0.5) * step;
      const Y = anchor.rect.y + (j + 0.5) * step;
      const px = (X - pl.docX) / pl.scale + pl.photoX;
      const py = (Y - pl.docY) / pl.scale + pl.photoY;
      const m = photoSums.mean(px - foot / 2, py - foot / 2, px + foot / 2, py + foot / 2);
      if (!m || m.fill < 0.8) continue;
      const r = { L: anchor.grid.L[k]!, a: anchor.grid.a[k]!, b: anchor.grid.b[k]! };
      resL[k] = r.L;
      refL[k] = m.lab.L;
      des.push(deltaE76(r, m.lab));
    }
  }
  des.sort((a, b) => a - b);
  const medianDe = des.length ? des[des.length >> 1]! : Number.POSITIVE_INFINITY;
  // The photo's folds and shading are broad; a print is fine: compare what is left above a local mean.
  const res = detail(resL, anchor.grid.w, anchor.grid.h);
  const ref = detail(refL, anchor.grid.w, anchor.grid.h);
  const refStd = std(ref);
  const ncc = pearson(res, ref);
  const sColour = Number.isFinite(medianDe) ? Math.exp(-Math.max(0, medianDe - 5) / 8) : 0;
  const structured = refStd >= 3;
  const sStructure = structured ? clamp01((ncc - 0.1) / 0.5) : clamp01(1 - (std(res) - 3) / 10);
  const sPhoto = Math.min(sColour, sStructure);
  // No cell of the anchor falls on the photo's fabric (a swatch smaller than the piece, at the matched scale):
  // there is nothing to compare, which is not a mismatch. The palette and texture measures still read the photo.
  // An anchor without its print (not applied, its print layers hidden or deleted, the apply undone) is not a
  // wrong extraction either: the coverage measure says what is missing.
  if (des.length > 0 && covered(anchor.piece))
    out.push({
      key: 'photo',
      label: '与照片对照',
      score: round(sPhoto),
      weight: 0.3,
      value: {
        piece: anchor.piece.name,
        compared_cells: des.length,
        median_delta_e76: round(medianDe, 1),
        luminance_ncc: structured ? round(ncc) : null,
      },
      suggestion:
        sPhoto < 0.7
          ? `与照片对照：“${anchor.piece.name}”与照片中同一位置的服装不一致（色差中位数 ΔE ${round(medianDe, 1)}${structured ? `，明暗相关 ${round(ncc)}` : ''}）：${
              sColour < sStructure ? '颜色不对' : '花样的形状、方向或位置不对'
            }；${
              typeOf(anchor.piece) === ext.kind
                ? `请重新调用 generate_garment_preview 检查提取结果，确认后对“${anchor.piece.name}”重新调用 extract_and_apply_all_pieces，不要手动改动花样图层`
                : `${callFor(anchor.piece.name, ext.kind)}（照片读作 ${TYPE_LABEL[ext.kind]}）`
            }`
          : null,
    });

  // The placement's scale, checked against the garment in the photo: the anchor's body widths, mapped into the
  // photo, against the photo garment's widths on the same rows (the placement may be right when the print is not,
  // and the other way round: a photo read at the wrong scale renders a self-consistent but wrong-sized print).
  if (!truth.swatch) {
    // The photo shows the whole front: the anchor's share of it, as the placement measured it (main-front.ts).
    const spread = anchor.piece.part === 'front' ? frontSpread(pieces, anchor.piece) : 1;
    const ratio = outlineRatio(anchor.piece, truth, pl, spread);
    if (ratio !== null) {
      const sOutline = Math.exp(-Math.abs(Math.log(ratio)) / 0.1);
      out.push({
        key: 'outline',
        label: '比例（对照照片轮廓）',
        score: round(sOutline),
        weight: 0.15,
        value: { piece: anchor.piece.name, width_ratio_to_photo: round(ratio) },
        suggestion:
          sOutline < 0.7
            ? `比例：按预览的换算，“${anchor.piece.name}”在照片中的衣身宽度是照片中服装的 ${round(ratio)} 倍（应为 1）：${scaleCause(
                crowdedFronts(pieces),
              )}`
            : null,
      });
    }
  }

  // Orientation and repeat scale of every printed piece: its autocorrelation against the photo's, phase-free.
  await nextTurn();
  const photoAcf = autocorrelation(photo, LAGS);
  if (photoAcf) {
    const photoMirror = mirrored(photoAcf, LAGS);
    const centre = LAGS * (2 * LAGS + 1) + LAGS;
    const per: Record<string, number> = {};
    const bad: string[] = [];
    const partial: string[] = [];
    // One repeat of the print on the measuring grid: a piece at least this large shows all of it.
    const repeat = ext.tileIsRepeat
      ? { w: (ext.tile.w * pl.scale) / step, h: (ext.tile.h * pl.scale) / step }
      : null;
    const holdsRepeat = (g: PieceGrid) => !repeat || (g.grid.w >= repeat.w && g.grid.h >= repeat.h);
    const withPrint = grids.filter((g) => printed(typeOf(g.piece)) && covered(g.piece));
    // A band narrower than the lag window (a collar, a cuff) holds too few lags to tell a direction.
    const narrow = (g: PieceGrid) => Math.min(g.grid.w, g.grid.h) < LAGS + 4;
    const small = withPrint.filter(narrow).map((g) => g.piece.name);
    const judged = withPrint.filter((g) => !narrow(g));
    // A piece shorter or narrower than one repeat shows part of the print, whose autocorrelation is not the
    // photo's (a collar stand 27 mm tall under stripes 40 mm apart read 0.51, "turned or scaled"; a welt cut
    // between a print's motifs shows only its ground, no structure at all, read 0): it is judged only when no
    // piece shows a whole repeat.
    const whole = judged.some(holdsRepeat);
    for (const g of judged) {
      if (whole && !holdsRepeat(g)) {
        partial.push(g.piece.name);
        continue;
      }
      const acf = autocorrelation(g.grid, LAGS);
      const c = acf
        ? pearson(acf, g.piece.mirrorOf !== null ? photoMirror : photoAcf, (i) => i !== centre)
        : 0;
      per[g.piece.name] = round(c);
      if (c < 0.6) bad.push(g.piece.name);
    }
    const values = Object.values(per);
    if (values.length) {
      const worst = Math.min(...values);
      const sTexture = clamp01((worst - 0.3) / 0.5);
      out.push({
        key: 'texture',
        label: '花样方向与比例',
        score: round(sTexture),
        weight: 0.25,
        value: {
          autocorrelation_match: per,
          grid_mm: round(25.4 / cellsPerInch, 2),
          ...(small.length ? { too_narrow_to_judge: small } : {}),
          ...(partial.length ? { smaller_than_repeat: partial } : {}),
        },
        suggestion: bad.length
          ? `花样方向与比例：${bad.map((n) => `“${n}”`).join('、')}的花样方向或大小与照片不同（自相关匹配 ${bad.map((n) => per[n]).join('、')}，应接近 1）：花样可能被旋转或缩放了；请对这些裁片重新调用 extract_and_apply_all_pieces（不要旋转或缩放花样图层）`
          : null,
      });
    }
  } else if (grids.some((g) => printed(typeOf(g.piece)))) {
    const names = grids.filter((g) => printed(typeOf(g.piece))).map((g) => g.piece.name);
    out.push({
      key: 'texture',
      label: '花样方向与比例',
      score: 0,
      weight: 0.25,
      value: { photo_has_print: false },
      suggestion: `照片中的服装没有满印花样，${names.map((n) => `“${n}”`).join('、')}却套了满印；${names.map((n) => callFor(n, 'solid')).join('；')}`,
    });
  }

  // Palette: every piece's colours must be in the photo, and the photo's colours in the result.
  await nextTurn();
  const perPiece: Record<string, number> = {};
  const all: number[] = [];
  for (const g of grids) {
    // Only printed pieces: a bare piece's own grey is coverage's to report, not a colour missing from the photo.
    if (!covered(g.piece)) continue;
    const samples = labSamples(g.grid);
    for (const v of samples) all.push(v);
    const pal = paletteOf(samples);
    perPiece[g.piece.name] = round(paletteDistance(pal, photoPalette, deltaE00), 1);
  }
  // The pieces' samples pooled, every k-th so that at most 40 000 (18 pieces give 10⁵ and more).
  const keep = Math.max(1, Math.ceil(all.length / 3 / 40_000));
  const pooled = paletteOf(
    keep === 1
      ? Float32Array.from(all)
      : Float32Array.from(all.filter((_, i) => Math.floor(i / 3) % keep === 0)),
  );
  const missing = paletteDistance(photoPalette, pooled, deltaE00);
  const worstPiece = Object.entries(perPiece).sort((p, q) => q[1] - p[1])[0] ?? ['', 0];
  const dPal = Math.max(missing, worstPiece[1]);
  const sPal = Number.isFinite(dPal) ? Math.exp(-Math.max(0, dPal - 3) / 8) : 0;
  if (all.length > 0)
    out.push({
      key: 'palette',
      label: '配色',
      score: round(sPal),
      weight: 0.2,
      value: {
        delta_e00: round(dPal, 1),
        per_piece: perPiece,
        photo_colours_missing: round(missing, 1),
        photo: photoPalette.map((c) => c.hex),
        result: pooled.map((c) => c.hex),
      },
      suggestion:
        sPal < 0.7
          ? worstPiece[1] >= missing
            ? `配色：“${worstPiece[0]}”的颜色不在照片中（ΔE00 ${worstPiece[1]}；照片调色板 ${photoPalette.map((c) => c.hex).join('、')}）；请对“${worstPiece[0]}”重新调用 extract_and_apply_all_pieces，color 用照片主色 ${photoPalette[0]?.hex ?? ext.ground.hex}`
            : `配色：照片中的颜色在结果中缺失（ΔE00 ${round(missing, 1)}；照片调色板 ${photoPalette.map((c) => c.hex).join('、')}，结果 ${pooled.map((c) => c.hex).join('、')}）；请按 generate_garment_preview 的 proposed_pieces 重新调用 extract_and_apply_all_pieces`
          : null,
    });

  // Coverage: the share of each piece under its own visible print layers.
  const worstCov = Math.min(...Object.values(coverage));
  const sCov = clamp01((worstCov - 0.5) / 0.45);
  const thin = Object.entries(coverage).filter(([, c]) => c < 0.95);
  out.push({
    key: 'coverage',
    label: '覆盖率',
    score: round(sCov),
    weight: 0.25,
    value: { per_piece: coverage, worst: worstCov },
    suggestion: thin.length ? coverageAdvice(thin, applied, ext) : null,
  });

  // Symmetry: the second piece of each pair against its partner mirrored, on the measuring grid. Not a front's
  // halves that carry a motif across the centre front, or a print without a repeat (the photo's own): each shows
  // its own part of it (the motif measure's, the photo measure's).
  const anchored = (p: PieceInfo) => pl.centres?.some((c) => c.layerId === p.layerId) === true;
  const motifOn = (p: PieceInfo) => typeOf(p) === 'theme_pattern' || typeOf(p) === 'mixed_pattern';
  const acrossCentre = (p: PieceInfo, q: PieceInfo) =>
    anchored(p) && anchored(q) && (motifOn(p) || motifOn(q) || !ext.tileIsRepeat);
  const pairs = grids.filter((g) => {
    if (g.piece.mirrorOf === null || hiddenBy.has(g.piece.layerId)) return false;
    const partner = grids.find((l) => l.piece.layerId === g.piece.mirrorOf)?.piece;
    return !partner || !acrossCentre(partner, g.piece);
  });
  if (pairs.length) {
    const diffs: Record<string, number> = {};
    for (const r of pairs) {
      const l = grids.find((g) => g.piece.layerId === r.piece.mirrorOf);
      if (!l || hiddenBy.has(l.piece.layerId)) continue;
      let s = 0;
      let c = 0;
      // The mirror's cells counted from its right edge, so cell x of one is the mirror of cell x of the other.
      const rg = r.fromRight();
      const w = Math.min(l.grid.w, rg.w);
      const h = Math.min(l.grid.h, rg.h);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const a = y * l.grid.w + x;
          const b = y * rg.w + (rg.w - 1 - x);
          if (!l.grid.ok[a] || !rg.ok[b]) continue;
          s += deltaE76(
            { L: l.grid.L[a]!, a: l.grid.a[a]!, b: l.grid.b[a]! },
            { L: rg.L[b]!, a: rg.a[b]!, b: rg.b[b]! },
          );
          c++;
        }
      }
      diffs[`${l.piece.name} ↔ ${r.piece.name}`] = round(c ? s / c : 100, 1);
    }
    const worst = Math.max(0, ...Object.values(diffs));
    const sSym = Math.exp(-Math.max(0, worst - 3) / 6);
    const worstPair = Object.entries(diffs).sort((p, q) => q[1] - p[1])[0];
    out.push({
      key: 'symmetry',
      label: '左右对称',
      score: round(sSym),
      weight: 0.15,
      value: { mean_delta_e76: diffs },
      suggestion:
        sSym < 0.7 && worstPair
          ? `左右成对的裁片花样不是镜像（平均 ΔE ${worst}）：${worstPair[0]}；请调用 extract_and_apply_all_pieces 把这两片放在同一次调用中、使用相同的 type，第二片会自动使用镜像花样`
          : null,
    });
  }

  // Seams: every one the tool matched (placement.joins), the print inside the left panel's right seam against the
  // right panel's inside its left one at the same garment height (hems level). The horizontal phase is searched
  // over, so the measure judges the vertical phase the tool promises; the worst seam is the score. Where a
  // mirrored panel's print meets the other's as a mirror image (`reflected`: a skirt's whole front beside its
  // mirrored back half), the one is compared with the other mirrored about the seam; where it runs on (both panels
  // drawn the same way round, or a print that mirrors onto itself: seams.ts), it is judged as a continuation.
  // Only bands that carry enough print to tell are judged: a sparse print (small dots on a plain ground) leaves
  // the bands mostly ground, and then the seam is reported as not measurable and given no weight rather than
  // scored on a few motifs.
  const gridOf = (id: number) => grids.find((g) => g.piece.layerId === id);
  const shiftOf = (id: number) => pl.shifts.find((sh) => sh.layerId === id)?.dx ?? 0;
  const judged = pl.joins.flatMap((j) => {
    const a = gridOf(j.left);
    const b = gridOf(j.right);
    if (!a || !b) return [];
    // A mirrored pair meeting itself (halves at a centre) is its own mirror image by construction: the symmetry
    // measure's.
    if (j.reflected && (a.piece.mirrorOf === b.piece.layerId || b.piece.mirrorOf === a.piece.layerId))
      return [];
    if (hiddenBy.has(a.piece.layerId) || hiddenBy.has(b.piece.layerId)) return [];
    if (!printed(typeOf(a.piece)) || !printed(typeOf(b.piece))) return [];
    // Where the tool put the right panel's print: its column that continues the left one's, in cells.
    // A mirrored panel samples its partner's print, so no shift says where; there the seam lines' meeting does.
    const shifted = a.piece.mirrorOf === null && b.piece.mirrorOf === null && !j.reflected;
    const expected = shifted
      ? (a.rect.x - b.rect.x + shiftOf(b.piece.layerId) - shiftOf(a.piece.layerId)) / step
      : null;
    const seam = seamMatch(a.grid, b.grid, expected, j.reflected === true);
    return seam ? [{ a: a.piece.name, b: b.piece.name, at: j.at, seam }] : [];
  });
  const measured = judged.filter((j) => j.seam.ncc !== null);
  if (judged.length && !measured.length) {
    const first = judged[0]!.seam;
    out.push({
      key: 'seams',
      label: '侧缝对花',
      score: 1,
      weight: 0,
      value: {
        measurable: false,
        compared_rows: first.rows,
        structured_cells: first.structured,
        structured_cells_needed: MIN_STRUCTURE,
        note: '缝合处附近的花样太稀疏（大部分是底色），无法判断对花；此项不计分',
      },
      suggestion: null,
    });
  } else if (measured.length) {
    const worst = measured.reduce((w, j) => (j.seam.ncc! < w.seam.ncc! ? j : w));
    const sSeam = clamp01((worst.seam.ncc! - 0.3) / 0.4);
    out.push({
      key: 'seams',
      label: '侧缝对花',
      score: round(sSeam),
      weight: 0.1,
      value: {
        side_seam_ncc: round(worst.seam.ncc!),
        compared_rows: worst.seam.rows,
        structured_cells: worst.seam.structured,
        ...(judged.length > 1
          ? {
              per_seam: Object.fromEntries(
                judged.map((j) => [`${j.a} → ${j.b}`, j.seam.ncc === null ? null : round(j.seam.ncc)]),
              ),
            }
          : {}),
      },
      suggestion:
        sSeam < 0.7
          ? `${worst.at === 'side' ? `侧缝对花：“${worst.a}”右侧缝与“${worst.b}”左侧缝处` : worst.at === 'panel' ? `分割缝对花：“${worst.a}”与“${worst.b}”的分割缝处` : `中线对花：“${worst.a}”与“${worst.b}”的中线处`}同一衣身高度的花样没有对上（相关 ${round(worst.seam.ncc!)}）：“${worst.b}”的花样可能被移动了；请对“${worst.a}”和“${worst.b}”一起重新调用 extract_and_apply_all_pieces`
          : null,
    });
  }

  // Motif presence: normalised cross-correlation of the photo's motif (at the placement's scale) over the pieces.
  if (ext.motif) {
    const m = ext.motif;
    // Each size's front panels put together as sewn (sewn.ts) are searched too: a motif across a front cut in
    // halves is whole only there, and only if each half shows its own part of it (not a mirrored or missing one).
    const searched = [
      ...views.map((v) => ({ canvas: v.canvas, bounds: v.piece.bounds })),
      ...sewnFronts(views, pl).map(({ raster }) => ({ canvas: raster, bounds: raster as Rect })),
    ];
    const ncc = findMotif(searched, ext, pl.scale);
    // Where the placement puts the motif about the centre front, the panels it falls on and how much of it each
    // holds: one of them without a motif type shows the motif cut off at its seam, whatever the others show.
    const spans = views.flatMap((v) => {
      const at = pl.centres?.find((c) => c.layerId === v.piece.layerId);
      const share = at ? motifShare(v.piece, at, m, pl.scale) : 0;
      return share >= MOTIF_SHARE ? [{ piece: v.piece, share }] : [];
    });
    const drawn = spans.filter((sp) => motifOn(sp.piece));
    const cut = drawn.length ? spans.filter((sp) => !motifOn(sp.piece)) : [];
    const whole = cut.length
      ? drawn.reduce((t, sp) => t + sp.share, 0) / spans.reduce((t, sp) => t + sp.share, 0)
      : 1;
    const sMotif = Math.min(clamp01((ncc - 0.3) / 0.5), whole);
    const onFabric = motifOnFabric(
      views.map((v) => v.piece),
      ext,
      pl,
    );
    const fix = (p: PieceInfo) => (typeOf(p) === 'fill_pattern' ? 'mixed_pattern' : 'theme_pattern');
    out.push({
      key: 'motif',
      label: '主题图案',
      score: round(sMotif),
      weight: 0.15,
      value: {
        best_ncc: round(ncc),
        ...(cut.length ? { drawn_share: round(whole), cut_off_on: cut.map((sp) => sp.piece.name) } : {}),
      },
      suggestion: cut.length
        ? `主题图案只画出了 ${Math.round(whole * 100)}%：它跨过前中线，还落在${cut.map((sp) => `“${sp.piece.name}”`).join('、')}上，而这些裁片没有套用主题图案；请调用 extract_and_apply_all_pieces，把${cut.map((sp) => `“${sp.piece.name}”的 type 从 ${typeOf(sp.piece) ?? '未套图'} 改为 ${fix(sp.piece)}`).join('，')}`
        : sMotif < 0.7
          ? `结果中${ncc < 0.4 ? '找不到' : '没有清楚地出现'}照片中的主题图案（相关系数 ${round(ncc)}）；${
              onFabric !== null && onFabric < MOTIF_ON_FABRIC
                ? offFabricAdvice(onFabric)
                : motifAdvice(applied, pieces)
            }`
          : null,
    });
  }
  return out;
}

/**
 * `state` with the layers of `looks` in normal mode (where theirs changes the print) and at 100 % opacity: what
 * lookSentence's calls would give.
 */
function printedState(state: DocState, looks: readonly PieceLook[]): DocState {
  const layers = new Map(state.layers);
  for (const l of looks) {
    const layer = layers.get(l.layerId)!;
    layers.set(l.layerId, {
      ...layer,
      ...(l.blend !== null ? { blend: 'normal' } : {}),
      ...(l.opacity !== null ? { opacity: 1 } : {}),
    } as Layer);
  }
  return { ...state, layers };
}

function docClip(state: DocState, r: Rect): Rect {
  const x = Math.max(0, r.x);
  const y = Math.max(0, r.y);
  return {
    x,
    y,
    w: Math.max(1, Math.min(state.width, r.x + r.w) - x),
    h: Math.max(1, Math.min(state.height, r.y + r.h) - y),
  };
}

/**
 * How far the canvas shows each such piece from its print in normal mode at 100 %, cell by cell: the mean
 * CIEDE2000 difference (a mean, as a print gone on a light ground differs most in its motifs), and how much of
 * the print's light and dark still shows (the luminance correlation, where the print has any: screen on white
 * leaves none). A fade of a few percent costs next to nothing — the print itself is right — a print gone costs
 * as much as a print hidden. Each layer is named once, with the call that prints it true: re-applying cannot.
 */
function looksMeasure(
  pieces: readonly PieceInfo[],
  looks: ReadonlyMap<number, readonly PieceLook[]>,
  shownGrid: (i: number) => Grid,
  printed: readonly PieceGrid[],
): Measure {
  const per: Record<string, unknown> = {};
  const said = new Set<number>();
  const sentences: string[] = [];
  let worst = 1;
  let worstDe = 0;
  pieces.forEach((p, i) => {
    const ls = looks.get(p.layerId);
    if (!ls) return;
    const a = shownGrid(i);
    const b = printed[i]!.grid;
    let de = 0;
    const shown: number[] = [];
    const print: number[] = [];
    for (let k = 0; k < Math.min(a.ok.length, b.ok.length); k++) {
      if (!a.ok[k] || !b.ok[k]) continue;
      de += deltaE00({ L: a.L[k]!, a: a.a[k]!, b: a.b[k]! }, { L: b.L[k]!, a: b.a[k]!, b: b.b[k]! });
      shown.push(a.L[k]!);
      print.push(b.L[k]!);
    }
    de = shown.length ? de / shown.length : 0;
    const structured = std(print) >= 3;
    const ncc = structured ? pearson(shown, print) : null;
    const s = Math.min(Math.exp(-Math.max(0, de - 4) / 10), ncc === null ? 1 : clamp01((ncc - 0.1) / 0.5));
    worst = Math.min(worst, s);
    worstDe = Math.max(worstDe, de);
    per[p.name] = {
      delta_e00_to_normal: round(de, 1),
      luminance_ncc_to_normal: ncc === null ? null : round(ncc),
      layers: ls.map((l) => ({
        layer: l.name,
        group: l.group,
        blend_mode: l.blend,
        opacity: l.opacity === null ? null : round(l.opacity),
      })),
    };
    for (const l of ls) {
      if (said.has(l.layerId)) continue;
      said.add(l.layerId);
      sentences.push(lookSentence(p.name, l));
    }
  });
  return {
    key: 'looks',
    label: '花样与下方混合',
    score: round(worst),
    weight: 0.25,
    value: { per_piece: per, delta_e00_to_normal: round(worstDe, 1) },
    suggestion: `花样与下方混合：${sentences.join('；')}。其余各项按这些裁片改为正常模式、不透明度 100% 后的样子评判花样本身`,
  };
}

/** Pieces never applied are to be added; applied ones lost their print layers (hidden, moved, deleted). */
function coverageAdvice(thin: [string, number][], applied: AppliedRecord, ext: Extraction): string {
  const list = (names: [string, number][]) =>
    names.map(([n, c]) => `“${n}”（花样覆盖 ${Math.round(c * 100)}%）`).join('、');
  const done = thin.filter(([n]) => applied.pieces.some((a) => a.name === n));
  const never = thin.filter(([n]) => !applied.pieces.some((a) => a.name === n));
  const parts: string[] = [];
  if (never.length)
    parts.push(
      `${list(never)} 还没有套图：请调用 extract_and_apply_all_pieces，在 pieces 中加入${never.map(([n]) => `“${n}”`).join('、')}（type 用 ${ext.kind}）`,
    );
  if (done.length)
    parts.push(
      `${list(done)} 已套图，但花样图层被隐藏、移动或删除了：请显示“<裁片> 花样”组中的图层，或对${done.map(([n]) => `“${n}”`).join('、')}重新调用 extract_and_apply_all_pieces`,
    );
  return `以下裁片没有被花样完整覆盖：${parts.join('；')}`;
}

/** Longest run of `inside(x)` over x in [0, w). */
function longestRun(w: number, inside: (x: number) => boolean): number {
  let best = 0;
  let run = 0;
  for (let x = 0; x < w; x++) {
    run = inside(x) ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/**
 * Median over the body rows (55–75 % of the anchor's height, below the armholes) of the anchor's width mapped
 * into the photo over the photo garment's width on that row; null when too few rows land on the garment.
 */
function outlineRatio(p: PieceInfo, truth: PhotoTruth, pl: Placement, spread: number): number | null {
  const ratios: number[] = [];
  const { w: W, h: H } = truth.photo;
  const outline = truth.outline ?? truth.inside;
  for (let y = Math.floor(p.bounds.h * 0.55); y < p.bounds.h * 0.75; y++) {
    const doc = longestRun(p.bounds.w, (x) => p.mask[y * p.bounds.w + x] === 1);
    const py = Math.round((p.bounds.y + y + 0.5 - pl.docY) / pl.scale + pl.photoY - 0.5);
    if (py < 0 || py >= H || doc === 0) continue;
    // The inside mask was eroded by 3 px on each side.
    const photo = longestRun(W, (x) => outline[py * W + x] === 1);
    if (photo === 0) continue;
    ratios.push((doc * spread) / pl.scale / (photo + 6));
  }
  if (ratios.length < 5) return null;
  ratios.sort((a, b) => a - b);
  return ratios[ratios.length >> 1]!;
}

/** Strips of BAND cells inside each side seam, lower half of the body, rows counted up from the hems. */
const BAND = 8;
/** Horizontal offsets are searched in steps of 1/SUB cell (a cell is about 1 mm; a small dot spans a few). */
const SUB = 4;
/** A compared cell carries print when its luminance is at least this far from the median (the ground). */
const STRUCTURE_DL = 6;
/** Print cells each side must hold, where the tool put the back's print, for the seam to be judged. */
const MIN_STRUCTURE = 12;

/**
 * How well the print runs on across the side seam: the front's band inside its right seam against the back's
 * inside its left seam, row by row at the same garment height (hems level). The tool moves the back's print as
 * a whole (placement.shifts), so on a correct result the back is the front's print translated — by the same
 * horizontal offset on every row. The offset is searched (in 1/SUB cells, interpolated) and held across the rows,
 * in fabric columns, not in columns counted from each row's edge: a shaped side seam (a waist, a flare) moves
 * the two edges against each other row by row, which changes where along the print each edge falls but not
 * whether the print continues; counting from the edges would compare different parts of the repeat there. A
 * row compares the cells of both bands (the front's, and the cells whose partners lie in the back's band).
 * `ncc` is null when, at `expected` (the offset the tool's shift puts the back's print at, in cells), either side
 * holds fewer than MIN_STRUCTURE print cells: the bands are mostly plain ground (small dots on white), and the
 * best correlation over offsets would rest on offsets that pair a stray motif with ground — it says nothing
 * either way. Counted at the tool's offset because that is what a correct result compares; where a shaped seam
 * leaves a band's continuation off the other piece, its motifs are not counted.
 */
function seamMatch(
  front: Grid,
  back: Grid,
  expected: number | null,
  /** The back's print is the front's mirror image about the seam (a join `reflected`): cell i meets cell t − i. */
  mirrored = false,
): { ncc: number | null; rows: number; structured: { front: number; back: number } } | null {
  const rows = Math.floor(Math.min(front.h, back.h) / 2);
  const reach = Math.min(Math.floor(Math.min(front.w, back.w) / 3), 64);
  const edges: { fy: number; fx: number; by: number; bx: number }[] = [];
  for (let r = 1; r < rows; r++) {
    const fy = front.h - 1 - r;
    const by = back.h - 1 - r;
    let fx = -1;
    for (let x = front.w - 1; x >= 0 && fx < 0; x--) if (front.ok[fy * front.w + x]) fx = x;
    let bx = -1;
    for (let x = 0; x < back.w && bx < 0; x++) if (back.ok[by * back.w + x]) bx = x;
    if (fx >= BAND - 1 && bx >= 0 && bx + BAND <= back.w) edges.push({ fy, fx, by, bx });
  }
  if (edges.length < 8) return null;
  // The back column that continues the front's band start (mirrored: the sum of the two columns that meet), at
  // the median row; offsets are searched around it.
  const starts = edges.map((e) => (mirrored ? e.fx + e.bx : e.bx - (e.fx - BAND + 1))).sort((a, b) => a - b);
  const base = starts[starts.length >> 1]!;
  const a: number[] = [];
  const b: number[] = [];
  const pairsAt = (t: number) => {
    a.length = 0;
    b.length = 0;
    // The back cell that meets the front's cell i, and the other way round.
    const backOf = (i: number) => (mirrored ? t - i : i + t);
    const frontOf = (x: number) => (mirrored ? t - x : x - t);
    for (const e of edges) {
      // The front's band, and the front cells whose partners lie in the back's band.
      const ends = [frontOf(e.bx), frontOf(e.bx + BAND - 1)];
      const lo = Math.min(e.fx - BAND + 1, Math.ceil(Math.min(...ends)));
      const hi = Math.max(e.fx, Math.floor(Math.max(...ends)));
      for (let i = Math.max(0, lo); i <= Math.min(front.w - 1, hi); i++) {
        const x = backOf(i);
        if (!((i >= e.fx - BAND + 1 && i <= e.fx) || (x >= e.bx && x <= e.bx + BAND - 1))) continue;
        const f = e.fy * front.w + i;
        if (!front.ok[f]) continue;
        const j = Math.floor(x);
        const w = x - j;
        if (j < 0 || j >= back.w || (w > 0 && j + 1 >= back.w)) continue;
        const g = e.by * back.w + j;
        if (!back.ok[g] || (w > 0 && !back.ok[g + 1])) continue;
        a.push(front.L[f]!);
        b.push(w > 0 ? back.L[g]! * (1 - w) + back.L[g + 1]! * w : back.L[g]!);
      }
    }
  };
  // Enough print to tell? Counted where the tool put the back's print (else where the seam lines meet): what a
  // correct result compares there.
  pairsAt(expected === null ? base : Math.round(expected * SUB) / SUB);
  const structured = { front: printCells(a), back: printCells(b) };
  if (Math.min(structured.front, structured.back) < MIN_STRUCTURE)
    return { ncc: null, rows: edges.length, structured };
  let best = Number.NEGATIVE_INFINITY;
  for (let s = -reach * SUB; s <= reach * SUB; s++) {
    pairsAt(base + s / SUB);
    if (a.length < BAND * 8 || std(a) < 3 || std(b) < 3) continue;
    best = Math.max(best, pearson(a, b));
  }
  return Number.isFinite(best) ? { ncc: best, rows: edges.length, structured } : null;
}

/** Cells of `v` at least STRUCTURE_DL from its median (the ground): the print in a mostly plain band. */
function printCells(v: readonly number[]): number {
  const sorted = [...v].sort((p, q) => p - q);
  const ground = sorted[sorted.length >> 1] ?? 0;
  return v.filter((x) => Math.abs(x - ground) >= STRUCTURE_DL).length;
}

/** Fabric cells of `v` minus their mean over a 9 × 9 cell (about 9 mm) neighbourhood; broad light is gone. */
function detail(v: Float64Array, w: number, h: number): number[] {
  const R = 4;
  const out: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = v[y * w + x]!;
      if (Number.isNaN(c)) continue;
      let s = 0;
      let n = 0;
      for (let j = Math.max(0, y - R); j <= Math.min(h - 1, y + R); j++) {
        for (let i = Math.max(0, x - R); i <= Math.min(w - 1, x + R); i++) {
          const u = v[j * w + i]!;
          if (Number.isNaN(u)) continue;
          s += u;
          n++;
        }
      }
      out.push(c - s / n);
    }
  }
  return out;
}

function std(v: readonly number[]): number {
  if (v.length < 2) return 0;
  const m = v.reduce((s, x) => s + x, 0) / v.length;
  return Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / v.length);
}

/** Why the placement's scale is off: a marker read as one garment with several in it, or else the photo. */
function scaleCause(crowded: ReturnType<typeof crowdedFronts>): string {
  return crowded !== null
    ? `比例是按全部 ${crowded.fronts} 片前片合起来作为一个前身换算的，这份排料图像是多个尺码或多件衣服而尺码没有分出来；请把每个尺码（每件衣服）的裁片放在单独的文档中，再调用 identify_pieces、generate_garment_preview 和 extract_and_apply_all_pieces`
    : '照片的比例读错了，花样大小因此不对；请换一张平铺正面、轮廓完整的服装照片（set_garment_photo），再调用 generate_garment_preview 和 extract_and_apply_all_pieces';
}

/** Why a motif placed as in the photo does not show: it falls mostly where the cut garment has no fabric. */
export function offFabricAdvice(onFabric: number): string {
  return `按照片中的位置，主题图案以前中线为准画在前片上，但只有 ${Math.round(onFabric * 100)}% 落在裁片上（其余落在领口等开口处或裁片之外）：照片中的服装与这套裁片款式不同；可以换一张同款服装的照片（set_garment_photo）后重新预览，或用 move_layer 把各“<裁片> 主题图案”图层一起移到有面料的位置`;
}

/** What to do about a missing motif: never the type a piece already has; names the piece and the call. */
function motifAdvice(applied: AppliedRecord, pieces: readonly PieceInfo[]): string {
  const carriers = applied.pieces.filter((a) => a.type === 'theme_pattern' || a.type === 'mixed_pattern');
  if (carriers.length === 0) {
    const front = mainFront(pieces) ?? pieces[0];
    const had = applied.pieces.find((a) => a.name === front?.name)?.type;
    const to = had === 'fill_pattern' ? 'mixed_pattern' : 'theme_pattern';
    return `没有裁片使用主题图案：请调用 extract_and_apply_all_pieces，把“${front?.name ?? '前片'}”的 type 从 ${had ?? '未套图'} 改为 ${to}`;
  }
  return `已套用主题图案的裁片（${carriers.map((a) => `“${a.name}” ${a.type}`).join('、')}）中看不清图案：请检查“<裁片> 主题图案”图层是否可见、未被移动或遮挡，然后对这些裁片重新调用 extract_and_apply_all_pieces`;
}

/** The share of the piece's pixels (every `every`-th in x and y) under an opaque pixel of its print layers. */
function coverageOf(state: DocState, p: PieceInfo, every: number): number {
  if (!state.layers.has(p.layerId)) return 0;
  const parent = parentOf(state, p.layerId);
  if (parent === null) return 0;
  const group = layerById(state, parent);
  if (group.name !== `${p.name}${GROUP_SUFFIX}` || !isShown(state, parent)) return 0;
  const prints = childrenOf(state, parent)
    .map((id) => layerById(state, id))
    .filter((l) => l.id !== p.layerId && l.kind === 'pixel' && l.clipped && l.visible && l.opacity > 0);
  let covered = 0;
  let total = 0;
  for (let y = every >> 1; y < p.bounds.h; y += every) {
    for (let x = every >> 1; x < p.bounds.w; x += every) {
      if (!p.mask[y * p.bounds.w + x]) continue;
      total++;
      const X = p.bounds.x + x;
      const Y = p.bounds.y + y;
      for (const l of prints) {
        if (l.kind !== 'pixel') continue;
        const r = l.raster;
        const lx = X - r.x;
        const ly = Y - r.y;
        if (lx >= 0 && ly >= 0 && lx < r.w && ly < r.h && r.data[(ly * r.w + lx) * 4 + 3]! >= 128) {
          covered++;
          break;
        }
      }
    }
  }
  return total ? covered / total : 0;
}

/** Box-downscaled luminance of `r` inside `rect` by an integer factor. */
function lumDown(
  r: Raster,
  x0: number,
  y0: number,
  w: number,
  h: number,
  f: number,
): { w: number; h: number; v: Float64Array } {
  const dw = Math.floor(w / f);
  const dh = Math.floor(h / f);
  const v = new Float64Array(Math.max(0, dw * dh));
  for (let y = 0; y < dh; y++) {
    for (let x = 0; x < dw; x++) {
      let s = 0;
      for (let j = 0; j < f; j++) {
        for (let i = 0; i < f; i++) {
          const X = x0 + x * f + i;
          const Y = y0 + y * f + j;
          if (X < 0 || Y < 0 || X >= r.w || Y >= r.h) continue;
          const o = (Y * r.w + X) * 4;
          s += 0.2126 * r.data[o]! + 0.7152 * r.data[o + 1]! + 0.0722 * r.data[o + 2]!;
        }
      }
      v[y * dw + x] = s / (f * f);
    }
  }
  return { w: dw, h: dh, v };
}

/** The best correlation of the photo's motif over each canvas inside its bounds. */
function findMotif(
  views: readonly { readonly canvas: Raster; readonly bounds: Rect }[],
  ext: Extraction,
  scale: number,
): number {
  const m = ext.motif!;
  // Work where the motif template is about 32 px on its long side.
  const docSide = Math.max(m.bounds.w, m.bounds.h) * scale;
  const f = Math.max(1, Math.round(docSide / 32));
  const k = scale / f; // photo px → working px
  const tw = Math.max(4, Math.round(m.bounds.w * k));
  const th = Math.max(4, Math.round(m.bounds.h * k));
  const t = new Float64Array(tw * th);
  for (let y = 0; y < th; y++) {
    for (let x = 0; x < tw; x++) {
      // Box average of the photo motif crop over the source pixels of this working pixel.
      const sx0 = Math.floor((x * m.photo.w) / tw);
      const sx1 = Math.max(sx0 + 1, Math.floor(((x + 1) * m.photo.w) / tw));
      const sy0 = Math.floor((y * m.photo.h) / th);
      const sy1 = Math.max(sy0 + 1, Math.floor(((y + 1) * m.photo.h) / th));
      let s = 0;
      let c = 0;
      for (let yy = sy0; yy < sy1; yy++) {
        for (let xx = sx0; xx < sx1; xx++) {
          const o = (yy * m.photo.w + xx) * 4;
          s += 0.2126 * m.photo.data[o]! + 0.7152 * m.photo.data[o + 1]! + 0.0722 * m.photo.data[o + 2]!;
          c++;
        }
      }
      t[y * tw + x] = s / c;
    }
  }
  const tMean = t.reduce((a, b) => a + b, 0) / t.length;
  let tVar = 0;
  for (let i = 0; i < t.length; i++) {
    t[i] = t[i]! - tMean;
    tVar += t[i]! ** 2;
  }
  if (tVar === 0) return 0;
  let best = 0;
  for (const { canvas, bounds: b } of views) {
    const img = lumDown(canvas, b.x - canvas.x, b.y - canvas.y, b.w, b.h, f);
    for (const mirrored of [false, true]) {
      for (let y = 0; y + th <= img.h; y++) {
        for (let x = 0; x + tw <= img.w; x++) {
          let s = 0;
          let s2 = 0;
          let st = 0;
          for (let j = 0; j < th; j++) {
            const row = (y + j) * img.w + x;
            for (let i = 0; i < tw; i++) {
              const v = img.v[row + i]!;
              s += v;
              s2 += v * v;
              st += v * t[j * tw + (mirrored ? tw - 1 - i : i)]!;
            }
          }
          const n = tw * th;
          const varI = s2 - (s * s) / n;
          if (varI <= 1e-6) continue;
          const ncc = st / Math.sqrt(varI * tVar);
          if (ncc > best) best = ncc;
        }
      }
    }
  }
  return best;
}
