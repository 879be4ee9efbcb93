/**
 * verify_pattern_result's evidence, measured on the composite: palette distance to the photo (CIEDE2000),
 * repeat scale (lattice cell of the result vs the extraction at the placement's scale), coverage of every piece
 * by its print layers, left/right mirror agreement of pairs, and whether the motif can be found (normalised
 * cross-correlation). Each becomes a sub-score in 0..1; the score is 1 + 9 · mean · (0.4 + 0.6 · worst), so a
 * single failed measure (a missing piece, a 2× repeat) cannot hide behind good ones.
 */
import type { DocState, Raster } from '../../engine/model.js';
import { childrenOf, isShown, layerById, parentOf } from '../../engine/tree.js';
import { GROUP_SUFFIX } from '../apply.js';
import { deltaE00, deltaE76 } from '../color.js';
import { erode, labOf, luminance } from '../image.js';
import type { AppliedRecord, Extraction, PieceInfo } from '../types.js';
import { paletteDistance, paletteOf } from './palette.js';
import { detectLattice } from './repeat.js';

export interface Measure {
  readonly key: 'palette' | 'scale' | 'coverage' | 'symmetry' | 'motif';
  readonly label: string;
  /** 0..1 */
  readonly score: number;
  readonly weight: number;
  readonly value: Record<string, unknown>;
  readonly suggestion: string | null;
}

export interface Verdict {
  readonly score: number;
  readonly measures: readonly Measure[];
  readonly suggestions: readonly string[];
}

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;
const clamp01 = (v: number) => Math.max(0, Math.min(1, v));

export function verdictOf(measures: readonly Measure[]): Verdict {
  const wsum = measures.reduce((s, m) => s + m.weight, 0);
  const mean = measures.reduce((s, m) => s + m.weight * m.score, 0) / wsum;
  const worst = Math.min(...measures.map((m) => m.score));
  const score = Math.max(1, Math.min(10, round(1 + 9 * mean * (0.4 + 0.6 * worst), 1)));
  const suggestions = measures.flatMap((m) => (m.suggestion ? [m.suggestion] : []));
  if (suggestions.length === 0)
    suggestions.push('各项指标良好：可以用 save_document 保存文档，或导出打印文件');
  return { score, measures, suggestions };
}

export function measureResult(
  state: DocState,
  canvas: Raster,
  pieces: readonly PieceInfo[],
  ext: Extraction,
  applied: AppliedRecord,
): Measure[] {
  const out: Measure[] = [];
  const inCanvas = (x: number, y: number) => x >= 0 && y >= 0 && x < canvas.w && y < canvas.h;
  const px = (x: number, y: number) => (y * canvas.w + x) * 4;

  // Palette: result colours inside the pieces vs the photo's, nearest-colour distance both ways, the worse one.
  const samples: number[] = [];
  const total = pieces.reduce((s, p) => s + p.area, 0);
  const step = Math.max(1, Math.floor(Math.sqrt(total / 40_000)));
  for (const p of pieces) {
    for (let y = 0; y < p.bounds.h; y += step) {
      for (let x = 0; x < p.bounds.w; x += step) {
        if (!p.mask[y * p.bounds.w + x]) continue;
        const X = p.bounds.x + x;
        const Y = p.bounds.y + y;
        if (!inCanvas(X, Y)) continue;
        const c = labOf(canvas.data[px(X, Y)]!, canvas.data[px(X, Y) + 1]!, canvas.data[px(X, Y) + 2]!);
        samples.push(c.L, c.a, c.b);
      }
    }
  }
  const resultPalette = paletteOf(Float32Array.from(samples));
  const d1 = paletteDistance(ext.palette, resultPalette, deltaE00);
  const d2 = paletteDistance(resultPalette, ext.palette, deltaE00);
  const dPal = Math.max(d1, d2);
  const sPal = Number.isFinite(dPal) ? Math.exp(-Math.max(0, dPal - 3) / 8) : 0;
  out.push({
    key: 'palette',
    label: '配色',
    score: round(sPal),
    weight: 0.3,
    value: {
      delta_e00: round(dPal, 1),
      photo: ext.palette.map((c) => c.hex),
      result: resultPalette.map((c) => c.hex),
    },
    suggestion:
      sPal < 0.7
        ? `配色与照片相差 ΔE00 ${round(dPal, 1)}：照片主色为 ${ext.ground.hex}（调色板 ${ext.palette.map((c) => c.hex).join('、')}），结果为 ${resultPalette.map((c) => c.hex).join('、')}；请用 identify_pieces 建议的 color 重新套图`
        : null,
  });

  // Repeat scale.
  const appliedBy = new Map(applied.pieces.map((a) => [a.layerId, a]));
  if (ext.lattice) {
    const filled = pieces
      .filter((p) => {
        const t = appliedBy.get(p.layerId)?.type;
        return t === 'fill_pattern' || t === 'mixed_pattern';
      })
      .sort((p, q) => q.area - p.area);
    const expected =
      Math.sqrt(Math.abs(ext.lattice.v1[0] * ext.lattice.v2[1] - ext.lattice.v1[1] * ext.lattice.v2[0])) *
      applied.placement.scale;
    let ratio: number | null = null;
    let found: number | null = null;
    if (filled.length) {
      const p = filled[0]!;
      const crop: Raster = { ...p.bounds, data: new Uint8ClampedArray(p.bounds.w * p.bounds.h * 4) };
      for (let y = 0; y < p.bounds.h; y++) {
        for (let x = 0; x < p.bounds.w; x++) {
          const X = p.bounds.x + x;
          const Y = p.bounds.y + y;
          if (inCanvas(X, Y))
            crop.data.set(canvas.data.subarray(px(X, Y), px(X, Y) + 4), (y * p.bounds.w + x) * 4);
        }
      }
      const lat = detectLattice(
        luminance(crop),
        erode(p.mask, p.bounds.w, p.bounds.h, 2),
        p.bounds.w,
        p.bounds.h,
      );
      if (lat) {
        found = Math.sqrt(Math.abs(lat.v1[0] * lat.v2[1] - lat.v1[1] * lat.v2[0]));
        ratio = found / expected;
      }
    }
    const sScale = ratio === null ? 0 : Math.exp(-Math.abs(Math.log(ratio)) / 0.25);
    out.push({
      key: 'scale',
      label: '花样比例',
      score: round(sScale),
      weight: 0.25,
      value: {
        expected_cell_px: round(expected, 1),
        result_cell_px: found === null ? null : round(found, 1),
        ratio: ratio === null ? null : round(ratio),
      },
      suggestion:
        ratio === null
          ? filled.length
            ? '结果中检测不到重复花样：照片是满印花样，请确认满印图层可见且未被改动'
            : '照片是满印（重复）花样，但没有裁片使用 fill_pattern 或 mixed_pattern；请按 identify_pieces 的建议重新套图'
          : sScale < 0.7
            ? `花样大小是照片的 ${round(ratio)} 倍（应为 1 倍，重复单元约 ${round(expected, 1)} px）；请重新调用 extract_and_apply_all_pieces，不要手动缩放花样图层`
            : null,
    });
  }

  // Coverage: the share of each piece under its own visible print layers.
  const coverage: Record<string, number> = {};
  for (const p of pieces) coverage[p.name] = round(coverageOf(state, p), 3);
  const worstCov = Math.min(...Object.values(coverage));
  const sCov = clamp01((worstCov - 0.5) / 0.45);
  const thin = Object.entries(coverage).filter(([, c]) => c < 0.95);
  out.push({
    key: 'coverage',
    label: '覆盖率',
    score: round(sCov),
    weight: 0.25,
    value: { per_piece: coverage, worst: worstCov },
    suggestion: thin.length
      ? `以下裁片没有被花样完整覆盖：${thin.map(([n, c]) => `“${n}” ${Math.round(c * 100)}%`).join('、')}；请在 pieces 中加入这些裁片重新套图`
      : null,
  });

  // Symmetry: the second piece of each pair against its partner mirrored.
  const pairs = pieces.filter((p) => p.mirrorOf !== null);
  if (pairs.length) {
    const diffs: Record<string, number> = {};
    for (const r of pairs) {
      const l = pieces.find((p) => p.layerId === r.mirrorOf);
      if (!l) continue;
      let s = 0;
      let c = 0;
      const w = Math.min(l.bounds.w, r.bounds.w);
      const h = Math.min(l.bounds.h, r.bounds.h);
      for (let y = 0; y < h; y += 2) {
        for (let x = 0; x < w; x += 2) {
          const lx = l.bounds.x + x;
          const rx = r.bounds.x + r.bounds.w - 1 - x;
          const ly = l.bounds.y + y;
          const ry = r.bounds.y + y;
          if (!l.mask[y * l.bounds.w + x] || !r.mask[y * r.bounds.w + (r.bounds.w - 1 - x)]) continue;
          if (!inCanvas(lx, ly) || !inCanvas(rx, ry)) continue;
          const a = px(lx, ly);
          const b = px(rx, ry);
          s += deltaE76(
            labOf(canvas.data[a]!, canvas.data[a + 1]!, canvas.data[a + 2]!),
            labOf(canvas.data[b]!, canvas.data[b + 1]!, canvas.data[b + 2]!),
          );
          c++;
        }
      }
      diffs[`${l.name} ↔ ${r.name}`] = round(c ? s / c : 100, 1);
    }
    const worst = Math.max(0, ...Object.values(diffs));
    const sSym = Math.exp(-Math.max(0, worst - 3) / 8);
    out.push({
      key: 'symmetry',
      label: '左右对称',
      score: round(sSym),
      weight: 0.1,
      value: { mean_delta_e76: diffs },
      suggestion:
        sSym < 0.7
          ? `左右成对的裁片花样不是镜像（平均 ΔE ${worst}）：${Object.keys(diffs).join('、')}；两片应使用相同的 type 并一起重新套图`
          : null,
    });
  }

  // Motif presence: normalised cross-correlation of the photo's motif (at the placement's scale) over the pieces.
  if (ext.motif) {
    const ncc = findMotif(canvas, pieces, ext, applied.placement.scale);
    const sMotif = clamp01((ncc - 0.3) / 0.5);
    out.push({
      key: 'motif',
      label: '主题图案',
      score: round(sMotif),
      weight: 0.1,
      value: { best_ncc: round(ncc) },
      suggestion:
        sMotif < 0.7
          ? `结果中${ncc < 0.4 ? '找不到' : '没有清楚地出现'}照片中的主题图案（相关系数 ${round(ncc)}）；${motifAdvice(applied)}`
          : null,
    });
  }
  return out;
}

/** What to do about a missing motif: never the type a piece already has. */
function motifAdvice(applied: AppliedRecord): string {
  const carriers = applied.pieces.filter((a) => a.type === 'theme_pattern' || a.type === 'mixed_pattern');
  if (carriers.length === 0)
    return '没有裁片使用主题图案：请调用 extract_and_apply_all_pieces，把前片的 type 改为 theme_pattern（纯色底）或 mixed_pattern（满印底）';
  return `已套用主题图案的裁片（${carriers.map((a) => `“${a.name}” ${a.type}`).join('、')}）中看不清图案：请检查“<裁片> 主题图案”图层是否可见、未被移动或遮挡，然后对这些裁片重新调用 extract_and_apply_all_pieces`;
}

function coverageOf(state: DocState, p: PieceInfo): number {
  if (!state.layers.has(p.layerId)) return 0;
  const parent = parentOf(state, p.layerId);
  if (parent === null) return 0;
  const group = layerById(state, parent);
  if (group.name !== `${p.name}${GROUP_SUFFIX}` || !isShown(state, parent)) return 0;
  const prints = childrenOf(state, parent)
    .map((id) => layerById(state, id))
    .filter((l) => l.id !== p.layerId && l.kind === 'pixel' && l.clipped && l.visible && l.opacity > 0);
  let covered = 0;
  for (let y = 0; y < p.bounds.h; y++) {
    for (let x = 0; x < p.bounds.w; x++) {
      if (!p.mask[y * p.bounds.w + x]) continue;
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
  return covered / p.area;
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

function findMotif(canvas: Raster, pieces: readonly PieceInfo[], ext: Extraction, scale: number): number {
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
  for (const p of pieces) {
    const img = lumDown(canvas, p.bounds.x, p.bounds.y, p.bounds.w, p.bounds.h, f);
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
