/**
 * Drawing the print into document space. One placement maps document pixels to photo pixels for the whole
 * document (one tile phase: the repeat runs on across pieces; a piece the marker turned is drawn upright and
 * turned onto the marker, upright.ts), except that the back's print is shifted to run
 * on from the front's across the side seams (seams.ts); the second piece of a mirrored pair samples its
 * partner's coordinates mirrored, so its print is the exact mirror image — except a front half under a print
 * without a repeat, which shows the photo where it lies on the garment (apply.ts).
 */
import type { Raster, Rect, RGB } from '../engine/model.js';
import { allocPixels, solidRaster } from '../engine/raster.js';
import { deltaE76 } from './color.js';
import { labOf, mirrored, resizeRaster } from './image.js';
import { frontSpread, mainFront } from './main-front.js';
import { mirrorAxes } from './mirror-axis.js';
import { frontAnchors, type PieceShift, type SeamMatch, seamShifts } from './seams.js';
import type { CentreAnchor, Extraction, Motif, PieceInfo, Placement } from './types.js';
import { uprightPiece } from './upright.js';

/** The fallback when a photo has no garment silhouette to measure: its file DPI, or 150 when it claims 72. */
const SWATCH_FALLBACK_DPI = 150;

/** Width of the longest run on the row at 65 % of the piece height (the body below the armholes). */
function widthAt65(p: PieceInfo): number {
  const y = Math.floor(p.bounds.h * 0.65);
  let best = 0;
  let run = 0;
  for (let x = 0; x < p.bounds.w; x++) {
    run = p.mask[y * p.bounds.w + x] ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best || p.bounds.w;
}

/**
 * The document ↔ photo mapping. Assumption (stated in results): the photo shows the garment's front laid flat,
 * so its body width (at 65 % of its height) equals the front piece's width at 65 % of its height; the scale
 * follows from that, and with it the repeat's real size at the document's DPI. A fabric swatch (no silhouette)
 * is taken at its file DPI (150 when the file says 72, the default of phone pictures).
 */
export function placementFor(ext: Extraction, marker: readonly PieceInfo[], dpi: number): Placement {
  // Measured on the pieces as they stand on the garment: a front laid sideways is as wide as it is upright.
  const pieces = marker.map(uprightPiece);
  // On a graded marker, the middle size's front: the photo shows one size, most likely near the middle.
  const sizes = [
    ...new Set(pieces.flatMap((p) => (p.part === 'front' && p.size !== undefined ? [p.size] : []))),
  ];
  sizes.sort((a, b) => a - b);
  const front = mainFront(pieces, sizes[(sizes.length - 1) >> 1]);
  const anchor = front ?? [...pieces].sort((p, q) => q.area - p.area)[0]!;
  // The photo's garment centre on the garment's centre front: a half's centre edge, not the half's middle.
  const centres = frontAnchors(pieces, dpi);
  const docX = centres.find((c) => c.layerId === anchor.layerId)?.x ?? anchor.bounds.x + anchor.bounds.w / 2;
  const docY = anchor.bounds.y;
  if (ext.swatch) {
    const photoDpi = (ext.photoDpi === 72 ? SWATCH_FALLBACK_DPI : ext.photoDpi) * ext.analysisScale;
    const scale = dpi / photoDpi;
    const photoX = ext.width / 2;
    const { printShift, ...seams } = seamShifts(
      ext,
      pieces,
      anchor,
      scale,
      dpi,
      placementAxes(ext, scale, docX, photoX),
    );
    return {
      ...seams,
      centres,
      scale,
      docX,
      docY,
      photoX: photoX - (printShift ?? 0) / scale,
      photoY: 0,
      anchor: anchor.name,
      scaleBasis: `照片为面料小样（无服装轮廓），按照片分辨率 ${ext.photoDpi === 72 ? `${SWATCH_FALLBACK_DPI}（文件标称 72，视为手机照片）` : ext.photoDpi} DPI 换算到文档 ${dpi} DPI`,
    };
  }
  // The photo shows the whole front: a front cut in halves, or with side panels, is wider than its main piece.
  const spread = front ? frontSpread(pieces, front) : 1;
  const anchorW = widthAt65(anchor);
  const docW = Math.round(anchorW * spread);
  const scale = docW / ext.bodyWidth;
  const photoX = ext.garment.x + ext.garment.w / 2;
  const { printShift, ...seams } = ext.lattice
    ? seamShifts(ext, pieces, anchor, scale, dpi, placementAxes(ext, scale, docX, photoX))
    : photoShifts(ext, pieces, anchor, scale, docX, centres);
  return {
    ...seams,
    centres,
    scale,
    docX,
    docY,
    photoX: photoX - (printShift ?? 0) / scale,
    photoY: ext.garment.y,
    anchor: anchor.name,
    scaleBasis:
      spread > 1.05
        ? `假设照片中服装平铺正面，衣身宽度（高度 65% 处）${ext.bodyWidth} px 等于整个前身的宽度 ${docW} px：主前片“${anchor.name}”同位置宽 ${anchorW} px，前片各片面积共是它的 ${spread.toFixed(2)} 倍（分为两片或带侧片的前身）`
        : `假设照片中服装平铺正面，衣身宽度（高度 65% 处）${ext.bodyWidth} px 等于裁片“${anchor.name}”同位置宽度 ${docW} px`,
  };
}

/**
 * The document columns (pixel centres at integers, within one repeat) where the placement lays the repeat's
 * mirror lines (mirror-axis.ts), for a print that is its own mirror image; none otherwise. fillRaster reads
 * tile column px = (X + 0.5 − docX) / scale + photoX − 0.5, the tile anchored at the photo's column 0.
 */
function placementAxes(ext: Extraction, scale: number, docX: number, photoX: number): number[] {
  if (!ext.lattice || !ext.tileIsRepeat) return [];
  const period = ext.tile.w * scale;
  return mirrorAxes(ext.tile).map((a) => {
    const x = (a + 0.5 - photoX) * scale + docX - 0.5;
    return ((x % period) + period) % period;
  });
}

/**
 * Without a repeat the print is the photo's own, and one phase for the whole marker would lay every piece but
 * the front on whatever lies beside the front in the photo (the background, mirrored garment). So each piece
 * takes the part of the photo that shows it best: a front panel lies where it lies on the garment, its centre
 * anchor (the centre front, beyond a half's own middle) on the photo's centre line; a back (of any size) lies on
 * the garment as the front does, its top centre on the garment's top centre — the photo shows the front, and the
 * back's print is taken to run as the front's —; and a smaller piece (sleeve, collar, band, pocket) is centred
 * on the body's largest clean stretch of print, which it fits in unbroken when it is no larger.
 */
function photoShifts(
  ext: Extraction,
  pieces: readonly PieceInfo[],
  anchor: PieceInfo,
  scale: number,
  docX: number,
  centres: readonly CentreAnchor[],
): SeamMatch {
  if (ext.swatch) return { shifts: [], seams: [], joins: [] };
  const docY = anchor.bounds.y;
  const photoX = ext.garment.x + ext.garment.w / 2;
  const body = ext.printArea ?? ext.garment;
  const shifts: PieceShift[] = [];
  for (const p of pieces) {
    if (p === anchor) continue;
    const b = p.bounds;
    // A front panel beside the centre (a half, a side panel) shows the photo where it lies on the garment.
    const at = centres.find((c) => c.layerId === p.layerId);
    if (at) {
      shifts.push({ layerId: p.layerId, dx: Math.round(at.x - docX), dy: Math.round(at.y - docY) });
      continue;
    }
    const panel = p.part === 'front' || p.part === 'back';
    const dx = panel ? b.x + b.w / 2 - docX : b.x + b.w / 2 - docX - (body.x + body.w / 2 - photoX) * scale;
    const dy = panel ? b.y - docY : b.y + b.h / 2 - docY - (body.y + body.h / 2 - ext.garment.y) * scale;
    shifts.push({ layerId: p.layerId, dx: Math.round(dx), dy: Math.round(dy) });
  }
  return {
    shifts,
    joins: [],
    seams: [
      '照片中没有重复花样：前后片都按前片的位置取照片中的印花，其余裁片取衣身中部的印花；裁片超出照片所示范围的部分以镜像延续（照片没有拍到的印花无从得知）',
    ],
  };
}

/** Mirror mapping for the second piece of a pair: its pixel X reads its partner's pixel at the mirrored offset. */
export interface Mirror {
  readonly from: Rect;
  readonly to: Rect;
}

/**
 * An opaque raster over `rect` holding the print as the placement puts it there (bilinear, wrapping the tile),
 * for the piece `layerId` (its seam shift, if any) or, with `mirror`, for its partner's mirrored coordinates.
 */
export function fillRaster(
  ext: Extraction,
  pl: Placement,
  rect: Rect,
  mirror: Mirror | null,
  layerId: number | null = null,
): Raster {
  const shift = pl.shifts.find((s) => s.layerId === layerId) ?? { dx: 0, dy: 0 };
  const out: Raster = { ...rect, data: allocPixels(rect.w * rect.h * 4) };
  const t = ext.tile;
  const W = t.w;
  const H = t.h;
  const wrap = ext.tileIsRepeat;
  const ox = wrap ? 0 : ext.garment.x;
  const oy = wrap ? 0 : ext.garment.y;
  // Without a repeat the tile is the garment's crop, mirrored past its edges (photo.ts, garmentCrop).
  const index = (v: number, n: number) => (wrap ? ((v % n) + n) % n : mirrored(v, n));
  // The mapping is a scale and a shift, so each column's two source columns and weight are the same on every
  // row: computed once. Bilinear is separable: per row, the two source rows are blended once over the tile's
  // width, then each pixel blends two entries of that row.
  const x0 = new Int32Array(rect.w);
  const x1 = new Int32Array(rect.w);
  const fx = new Float32Array(rect.w);
  for (let i = 0; i < rect.w; i++) {
    const X = rect.x + i;
    const sx = (mirror ? mirror.from.x + (mirror.to.x + mirror.to.w - 1 - X) : X) - shift.dx;
    const px = (sx + 0.5 - pl.docX) / pl.scale + pl.photoX - 0.5 - ox;
    const f = Math.floor(px);
    fx[i] = px - f;
    x0[i] = index(f, W) * 3;
    x1[i] = index(f + 1, W) * 3;
  }
  const row = new Float32Array(W * 3);
  const px32 = new Uint32Array(out.data.buffer, out.data.byteOffset, rect.w * rect.h);
  const opaque = 0xff000000;
  for (let j = 0; j < rect.h; j++) {
    const Y = rect.y + j;
    const sy = (mirror ? mirror.from.y + (Y - mirror.to.y) : Y) - shift.dy;
    const py = (sy + 0.5 - pl.docY) / pl.scale + pl.photoY - 0.5 - oy;
    const f = Math.floor(py);
    const fy = py - f;
    const top = index(f, H) * W * 4;
    const bot = index(f + 1, H) * W * 4;
    for (let u = 0; u < W; u++) {
      for (let k = 0; k < 3; k++) {
        row[u * 3 + k] = t.data[top + u * 4 + k]! * (1 - fy) + t.data[bot + u * 4 + k]! * fy;
      }
    }
    const base = j * rect.w;
    for (let i = 0; i < rect.w; i++) {
      const a = x0[i]!;
      const b = x1[i]!;
      const w = fx[i]!;
      // Rounded to nearest as a Uint8ClampedArray store would; little-endian RGBA.
      const r = (row[a]! + (row[b]! - row[a]!) * w + 0.5) | 0;
      const g = (row[a + 1]! + (row[b + 1]! - row[a + 1]!) * w + 0.5) | 0;
      const bl = (row[a + 2]! + (row[b + 2]! - row[a + 2]!) * w + 0.5) | 0;
      px32[base + i] = (opaque | (bl << 16) | (g << 8) | r) >>> 0;
    }
  }
  return out;
}

export function flatRaster(rect: Rect, color: RGB): Raster {
  return solidRaster(rect, color);
}

/** ΔE76 between the photo's motif and its multiply rendering above which a motif pixel counts as lost. */
const LOST_DE = 12;
/** Share of lost motif pixels from which the motif is cut out and drawn normally instead. */
const LOST_SHARE = 0.2;
/**
 * Share of lost motif pixels over a repeat from which the repeat is knocked out (white) under the motif: the
 * repeat's dark elements would otherwise show through a motif that covers them in the photo.
 */
const KNOCKOUT_SHARE = 0.02;

/** How a piece's motif layer is drawn, and why. */
export interface MotifMode {
  readonly blend: 'multiply' | 'normal';
  /** Share of the motif's pixels that multiply over this base would not reproduce (darker or recoloured). */
  readonly lost: number;
  /**
   * Multiply over a repeat that shows through the motif: the repeat layer is white under the motif (knocked
   * out, as screen printers do under a top colour) and the motif layer holds the motif's own colours on white.
   */
  readonly knockout: boolean;
}

/**
 * Multiply can only darken: a motif lighter than the base under it (a yellow star on a red shirt) comes out
 * as a darker shade of the base. Measured on the motif's own pixels — what multiply over `base` (a flat colour,
 * or null for the repeat the photo shows under the motif) would give against the print's colour (the photo's
 * without its light) — it keeps the spec's motif-on-white in multiply unless more than a fifth of the motif would
 * be lost, and then cuts the motif out (transparent around it) to be drawn in normal mode above the base.
 */
export function motifMode(ext: Extraction, base: RGB | null): MotifMode {
  const m = ext.motif!;
  let lost = 0;
  let total = 0;
  for (let i = 0; i < m.mask.length; i++) {
    if (!m.mask[i]) continue;
    const o = i * 4;
    const b = base
      ? [base.r, base.g, base.b]
      : [m.under.data[o]!, m.under.data[o + 1]!, m.under.data[o + 2]!];
    const shown = [0, 1, 2].map((c) => (b[c]! * m.onWhite.data[o + c]!) / 255);
    const want = labOf(m.print.data[o]!, m.print.data[o + 1]!, m.print.data[o + 2]!);
    total++;
    if (deltaE76(labOf(shown[0]!, shown[1]!, shown[2]!), want) > LOST_DE) lost++;
  }
  const share = total ? lost / total : 0;
  const blend = share > LOST_SHARE ? 'normal' : 'multiply';
  return {
    blend,
    lost: Math.round(share * 1000) / 1000,
    knockout: blend === 'multiply' && base === null && share > KNOCKOUT_SHARE,
  };
}

/**
 * The motif over `rect` at the placement's scale, its centre as far from the garment's centre line as in the
 * photo and its top as far below the garment's top. On a front panel those are the panel's centre anchor (`at`),
 * and the panel shows the part of the motif that lies on it: a motif on a front cut in halves is drawn across
 * both, whole about the centre front. Elsewhere they are the piece's own middle and top, and a mirrored piece
 * has the motif mirrored. In multiply, the motif on white (white elsewhere); in normal, the motif's own pixels
 * (the print's colours, Motif.print) cut out, transparent elsewhere.
 */
export async function motifRaster(
  ext: Extraction,
  pl: Placement,
  rect: Rect,
  mirroredPiece: boolean,
  blend: MotifMode['blend'] = 'multiply',
  at?: CentreAnchor,
): Promise<Raster> {
  const mirrored = mirroredPiece && !at;
  const m = ext.motif!;
  const w = Math.max(1, Math.round(m.bounds.w * pl.scale));
  const h = Math.max(1, Math.round(m.bounds.h * pl.scale));
  const source = blend === 'multiply' ? m.onWhite : cutout(m.print, m.mask);
  const scaled = w === source.w && h === source.h ? source : await resizeRaster(source, w, h);
  const out =
    blend === 'multiply'
      ? solidRaster(rect, { r: 255, g: 255, b: 255 })
      : { ...rect, data: allocPixels(rect.w * rect.h * 4) };
  const cx = (at ? at.x : rect.x + rect.w / 2) + (mirrored ? -m.dx : m.dx) * pl.scale;
  const left = Math.round(cx - w / 2);
  const top = Math.round((at ? at.y : rect.y) + m.dy * pl.scale);
  for (let y = 0; y < h; y++) {
    const Y = top + y - rect.y;
    if (Y < 0 || Y >= rect.h) continue;
    for (let x = 0; x < w; x++) {
      const X = left + x - rect.x;
      if (X < 0 || X >= rect.w) continue;
      const sx = mirrored ? w - 1 - x : x;
      const s = (y * w + sx) * 4;
      const o = (Y * rect.w + X) * 4;
      out.data[o] = scaled.data[s]!;
      out.data[o + 1] = scaled.data[s + 1]!;
      out.data[o + 2] = scaled.data[s + 2]!;
      if (blend === 'normal') out.data[o + 3] = scaled.data[s + 3]!;
    }
  }
  return out;
}

/** A panel carries the motif when this share of the motif's pixels, at least, falls on it: not a sliver. */
export const MOTIF_SHARE = 0.02;

/** The share of the motif's pixels that fall inside the upright piece `p`, the motif drawn about `at`. */
export function motifShare(p: PieceInfo, at: CentreAnchor, m: Motif, scale: number): number {
  return motifCovered([{ piece: p, at }], m, scale);
}

/**
 * The share of the motif's pixels that fall inside any of the upright `panels`, each drawing it about its own
 * anchor: a pixel in two panels' seam allowances is counted once.
 */
export function motifCovered(
  panels: readonly { readonly piece: PieceInfo; readonly at: CentreAnchor }[],
  m: Motif,
  scale: number,
): number {
  let on = 0;
  let all = 0;
  for (let y = 0; y < m.bounds.h; y++) {
    for (let x = 0; x < m.bounds.w; x++) {
      if (!m.mask[y * m.bounds.w + x]) continue;
      all++;
      const u = m.dx * scale - (m.bounds.w * scale) / 2 + (x + 0.5) * scale;
      const v = m.dy * scale + (y + 0.5) * scale;
      const inside = panels.some(({ piece: p, at }) => {
        const X = Math.floor(at.x + u) - p.bounds.x;
        const Y = Math.floor(at.y + v) - p.bounds.y;
        return X >= 0 && Y >= 0 && X < p.bounds.w && Y < p.bounds.h && p.mask[Y * p.bounds.w + X] === 1;
      });
      if (inside) on++;
    }
  }
  return all ? on / all : 0;
}

/**
 * How much of the motif the garment's front shows where the photo puts it: the share of its pixels on the front
 * panels of the anchor's size (upright `pieces`). Low when the photo's garment differs from the one cut (a chest
 * motif over a waistcoat's V-neck opening). Null without a motif or centre anchors.
 */
export function motifOnFabric(pieces: readonly PieceInfo[], ext: Extraction, pl: Placement): number | null {
  const anchor = pieces.find((p) => p.name === pl.anchor);
  const panels = pieces.flatMap((piece) => {
    const at = pl.centres?.find((c) => c.layerId === piece.layerId);
    return at && piece.size === anchor?.size ? [{ piece, at }] : [];
  });
  return ext.motif && panels.length ? motifCovered(panels, ext.motif, pl.scale) : null;
}

/** Below this share of the motif on the fabric, the preview warns and verify says why the motif does not show. */
export const MOTIF_ON_FABRIC = 0.6;

/**
 * The knockout (MotifMode.knockout) from the motif cut out over `rect` (motifRaster in normal mode): `fill` made
 * white under the motif, and the motif layer as the cut-out over white, so that their product is the motif's
 * own colours where it covers the repeat and the repeat elsewhere. Both in place of their inputs' pixels.
 */
export function knockOut(fill: Raster, cut: Raster): Raster {
  const motif = solidRaster(cut, { r: 255, g: 255, b: 255 });
  for (let i = 0; i < cut.w * cut.h; i++) {
    const o = i * 4;
    const a = cut.data[o + 3]! / 255;
    if (a === 0) continue;
    for (let c = 0; c < 3; c++) {
      motif.data[o + c] = 255 * (1 - a) + cut.data[o + c]! * a;
      fill.data[o + c] = fill.data[o + c]! * (1 - a) + 255 * a;
    }
  }
  return motif;
}

/** `photo` with alpha 255 where `mask` is set and 0 elsewhere. */
function cutout(photo: Raster, mask: Uint8Array): Raster {
  const data = new Uint8ClampedArray(photo.data);
  for (let i = 0; i < mask.length; i++) data[i * 4 + 3] = mask[i] ? 255 : 0;
  return { ...photo, data };
}

/**
 * Draws each piece's outline onto `canvas` (document coordinates): the piece's pixels that have a pixel outside
 * the piece (beyond its mask counts as outside) within `thick` px in x and y. Two passes of windowed counts,
 * so the cost is linear in the piece's pixels whatever the thickness (a print-resolution marker has millions).
 */
export function drawOutlines(canvas: Raster, pieces: readonly PieceInfo[], color: RGB, thick: number): void {
  const t = Math.max(0, Math.floor(thick));
  for (const p of pieces) {
    const { w, h } = p.bounds;
    if (w === 0 || h === 0) continue;
    // rowNear: an outside pixel within t columns, in the same row.
    const rowNear = new Uint8Array(w * h);
    const sums = new Int32Array(Math.max(w, h) + 1);
    for (let y = 0; y < h; y++) {
      const row = y * w;
      for (let x = 0; x < w; x++) sums[x + 1] = sums[x]! + (p.mask[row + x] === 1 ? 0 : 1);
      for (let x = 0; x < w; x++) {
        rowNear[row + x] = x - t < 0 || x + t >= w || sums[x + t + 1]! - sums[x - t]! > 0 ? 1 : 0;
      }
    }
    // Then any such row within t rows.
    for (let x = 0; x < w; x++) {
      for (let y = 0; y < h; y++) sums[y + 1] = sums[y]! + rowNear[y * w + x]!;
      for (let y = 0; y < h; y++) {
        if (p.mask[y * w + x] !== 1) continue;
        if (!(y - t < 0 || y + t >= h || sums[y + t + 1]! - sums[y - t]! > 0)) continue;
        const X = p.bounds.x + x - canvas.x;
        const Y = p.bounds.y + y - canvas.y;
        if (X < 0 || Y < 0 || X >= canvas.w || Y >= canvas.h) continue;
        const o = (Y * canvas.w + X) * 4;
        canvas.data[o] = color.r;
        canvas.data[o + 1] = color.g;
        canvas.data[o + 2] = color.b;
        canvas.data[o + 3] = 255;
      }
    }
  }
}
