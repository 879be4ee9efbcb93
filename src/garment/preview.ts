/** Images for the chat: the labelled piece overview (identify_pieces) and the print preview (phase 1). */
import { renderDocument } from '../engine/composite/index.js';
import type { ImageOut } from '../engine/io/image-codec.js';
import type { DocState, Raster, RGB } from '../engine/model.js';
import { BUNDLED_FONT, renderTextSpec } from '../engine/text.js';
import { applyPlans, type BuiltPiece, type PiecePlan, unionBounds } from './apply.js';
import { blitOver, pngImage } from './image.js';
import { drawOutlines } from './render.js';
import { proxyPlacement, screenProxy } from './screen-proxy.js';
import type { Extraction, Part, PieceInfo, PieceShape, Placement, Proposal } from './types.js';

const PART_TINT: Readonly<Record<Part, RGB>> = {
  front: { r: 231, g: 76, b: 60 },
  back: { r: 52, g: 152, b: 219 },
  left_sleeve: { r: 46, g: 204, b: 113 },
  right_sleeve: { r: 26, g: 188, b: 156 },
  collar: { r: 155, g: 89, b: 182 },
  cuff: { r: 241, g: 196, b: 15 },
  pocket: { r: 230, g: 126, b: 34 },
  waistband: { r: 149, g: 165, b: 166 },
  hood: { r: 52, g: 73, b: 94 },
  other: { r: 127, g: 140, b: 141 },
};

/**
 * The images are delivered at ≤ 1024 px: they are drawn on a proxy of the pieces this large (the margin
 * canvasAround adds brings it to about 1024).
 */
const PROXY_SIDE = 970;

function canvasAround(
  state: DocState,
  pieces: readonly { bounds: { x: number; y: number; w: number; h: number } }[],
): Raster {
  const u = unionBounds(pieces);
  const m = Math.round(Math.max(u.w, u.h) * 0.02) + 4;
  const rect = { x: u.x - m, y: u.y - m, w: u.w + 2 * m, h: u.h + 2 * m };
  const out = renderDocument(state, rect);
  // Over white, so transparent canvas areas read as paper.
  for (let i = 0; i < out.data.length; i += 4) {
    const a = out.data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) out.data[i + c] = out.data[i + c]! * a + 255 * (1 - a);
    out.data[i + 3] = 255;
  }
  return out;
}

/** Text centred on (cx, cy), each line on its own, over a white halo that keeps it readable over any print. */
function label(canvas: Raster, text: string, cx: number, cy: number, size: number): void {
  const lines = text.split('\n');
  const lineHeight = Math.round(size * 1.25);
  lines.forEach((line, k) => {
    const { raster: drawn } = renderTextSpec({
      content: line,
      x: 0,
      y: 0,
      size,
      color: { r: 20, g: 20, b: 20 },
      font: BUNDLED_FONT,
    });
    const raster: Raster = {
      ...drawn,
      x: Math.round(cx - drawn.w / 2),
      y: Math.round(cy - (lineHeight * lines.length) / 2 + k * lineHeight),
    };
    const halo: Raster = { ...raster, data: new Uint8ClampedArray(raster.data) };
    for (let i = 0; i < halo.data.length; i += 4) {
      halo.data[i] = 255;
      halo.data[i + 1] = 255;
      halo.data[i + 2] = 255;
      halo.data[i + 3] = halo.data[i + 3]! > 0 ? 200 : 0;
    }
    for (const [dx, dy] of [
      [-1, 0],
      [1, 0],
      [0, -1],
      [0, 1],
    ] as const)
      blitOver(canvas, { ...halo, x: halo.x + dx, y: halo.y + dy });
    blitOver(canvas, raster);
  });
}

/** The outline of a piece the reading is unsure of: it stands out from the others' near-black. */
const DOUBT_OUTLINE: RGB = { r: 230, g: 81, b: 0 };

/**
 * The pieces tinted by part (a piece without one as `other`), outlined and labelled; the pieces `marked` (in
 * doubt) outlined thicker in orange.
 */
export async function overviewImage(
  state: DocState,
  shapes: readonly (PieceShape & { part?: Part })[],
  labelOf: (p: PieceShape & { part?: Part }, i: number) => string,
  caption: string,
  marked: (p: PieceShape & { part?: Part }) => boolean = () => false,
): Promise<ImageOut> {
  const { state: small, pieces } = await screenProxy(state, shapes, PROXY_SIDE);
  const canvas = canvasAround(small, pieces);
  for (const p of pieces) {
    const tint = PART_TINT[p.part ?? 'other'];
    for (let y = 0; y < p.bounds.h; y++) {
      for (let x = 0; x < p.bounds.w; x++) {
        if (!p.mask[y * p.bounds.w + x]) continue;
        const o = ((p.bounds.y + y - canvas.y) * canvas.w + (p.bounds.x + x - canvas.x)) * 4;
        canvas.data[o] = canvas.data[o]! * 0.55 + tint.r * 0.45;
        canvas.data[o + 1] = canvas.data[o + 1]! * 0.55 + tint.g * 0.45;
        canvas.data[o + 2] = canvas.data[o + 2]! * 0.55 + tint.b * 0.45;
      }
    }
  }
  const thick = Math.max(1, Math.round(Math.max(canvas.w, canvas.h) / 600));
  drawOutlines(canvas, pieces.filter((p) => !marked(p)) as PieceInfo[], { r: 30, g: 30, b: 30 }, thick);
  drawOutlines(canvas, pieces.filter(marked) as PieceInfo[], DOUBT_OUTLINE, thick * 2 + 1);
  const scale = Math.min(1, 1024 / Math.max(canvas.w, canvas.h));
  pieces.forEach((p, i) => {
    // The image is often shown at a third of its size (a chat card): a large piece's label is up to 44 px on the
    // delivered image, so it still reads there; a small piece's fits inside it.
    const size = Math.max(8, Math.min(44 / scale, p.bounds.w / 5, p.bounds.h / 3));
    label(canvas, labelOf(p, i), p.bounds.x + p.bounds.w / 2, p.bounds.y + p.bounds.h / 2, size);
  });
  return pngImage(canvas, caption);
}

/** Types and colours proposed from the photo: where a motif goes, the front (or largest piece) carries it. */
export function proposalsFor(pieces: readonly PieceInfo[], ext: Extraction): Proposal[] {
  const carrier = pieces.find((p) => p.part === 'front') ?? [...pieces].sort((p, q) => q.area - p.area)[0];
  return pieces.map((p) => {
    let type = ext.kind;
    if (ext.kind === 'theme_pattern' && p !== carrier) type = 'solid';
    if (ext.kind === 'mixed_pattern' && p !== carrier) type = 'fill_pattern';
    return { name: p.name, type, color: ext.ground.hex };
  });
}

export function plansFrom(pieces: readonly PieceInfo[], proposals: readonly Proposal[]): PiecePlan[] {
  return proposals.map((pr) => {
    const piece = pieces.find((p) => p.name === pr.name)!;
    const n = Number.parseInt(pr.color.slice(1), 16);
    return { piece, type: pr.type, color: { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 } };
  });
}

/**
 * The document as phase 2 would leave it with the proposed types (the same code, run on a screen-size proxy of
 * the pieces), outlined, and what was built.
 */
export async function previewImage(
  state: DocState,
  ext: Extraction,
  pl: Placement,
  pieces: readonly PieceInfo[],
  proposals: readonly Proposal[],
): Promise<{ image: ImageOut; built: BuiltPiece[] }> {
  const proxy = await screenProxy(state, pieces, PROXY_SIDE);
  const small = proxy.pieces;
  const { state: applied, built } = await applyPlans(
    proxy.state,
    ext,
    proxyPlacement(pl, proxy.k),
    plansFrom(small, proposals),
    small,
  );
  const canvas = canvasAround(applied, small);
  const thick = Math.max(1, Math.round(Math.max(canvas.w, canvas.h) / 500));
  drawOutlines(canvas, small, { r: 20, g: 20, b: 20 }, thick);
  const image = await pngImage(canvas, '花样预览：照片中的花样按裁片轮廓填充（黑线为裁片轮廓），请确认');
  return { image, built };
}
