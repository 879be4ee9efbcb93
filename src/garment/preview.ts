/** Images for the chat: the labelled piece overview (identify_pieces) and the print preview (phase 1). */
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { distanceTransform } from '../engine/composite/distance.js';
import { renderDocument } from '../engine/composite/index.js';
import type { ImageOut } from '../engine/io/image-codec.js';
import type { DocState, Raster, Rect, RGB } from '../engine/model.js';
import { solidRaster } from '../engine/raster.js';
import { BUNDLED_FONT, ensureBundledFont, LINE_HEIGHT_EM } from '../engine/text.js';
import { applyPlans, type BuiltPiece, type PiecePlan, unionBounds } from './apply.js';
import { blitOver, type Caption, pngImage } from './image.js';
import { mainFront } from './main-front.js';
import { drawOutlines, MOTIF_SHARE, motifShare } from './render.js';
import { proxyPlacement, screenProxy, screenProxyAt } from './screen-proxy.js';
import { sewnFronts } from './sewn.js';
import type { Extraction, Part, PieceInfo, PieceShape, Placement, Proposal } from './types.js';
import { frameOf, uprightPiece, uprightView } from './upright.js';

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

/** The outline of a piece the reading is unsure of: it stands out from the others' near-black. */
const DOUBT_OUTLINE: RGB = { r: 230, g: 81, b: 0 };
const DOUBT_CSS = `rgb(${DOUBT_OUTLINE.r},${DOUBT_OUTLINE.g},${DOUBT_OUTLINE.b})`;
const INK_CSS = 'rgb(20,20,20)';

/**
 * Font sizes on the delivered image, px. A label is as large as fits in its piece up to LABEL_MAX (a body
 * panel's label still reads on the chat card, about a third of the image's width) and never below LABEL_MIN
 * (CJK ink about 18 px tall, as a pattern CAD printout's piece text): a piece that cannot hold its label at
 * LABEL_MIN gets a lettered badge and a legend entry instead of a label shrunk with it.
 */
export const LABEL_MAX = 44;
export const LABEL_MIN = 20;
/** A label turned along a narrow piece stays near the upright ones' size rather than run its whole length. */
const TURNED_MAX = 28;
/** Each smaller size tried for a label that does not fit. */
const SHRINK = 0.9;
/** Depth (px) a spot gives up per px it lies nearer its piece's middle, to break ties along a ridge. */
const TOWARD_MIDDLE = 0.02;

/** Where the overview's text went, image pixels (the delivered image's top-left at 0, 0). */
export interface OverviewLayout {
  readonly width: number;
  readonly height: number;
  /** Labels inside their piece: `piece` indexes the shapes given; `turned` reads bottom to top (a narrow piece). */
  readonly labels: readonly {
    piece: number;
    lines: readonly string[];
    size: number;
    box: Rect;
    turned: boolean;
  }[];
  /** Badges on pieces too small for their label, lettered in reading order; `anchor` is the spot on the piece. */
  readonly badges: readonly {
    piece: number;
    key: string;
    size: number;
    box: Rect;
    anchor: { x: number; y: number };
  }[];
  /** One legend entry per badge, beside the drawing (a tall marker) or below it (a wide one). */
  readonly legend: readonly { piece: number; key: string; text: string; size: number; box: Rect }[];
}

let measurer: SKRSContext2D | null = null;

function fontAt(size: number): string {
  return `${Number(size.toFixed(3))}px "${BUNDLED_FONT}"`;
}

/** Advance width of `line` at `size`, px. */
function textWidth(line: string, size: number): number {
  if (!measurer) {
    ensureBundledFont();
    measurer = createCanvas(1, 1).getContext('2d');
    measurer.font = fontAt(100);
  }
  return (measurer.measureText(line).width * size) / 100;
}

/** The box text of `lines` at `size` takes with its white backing: a pill for one short key. */
function textBox(lines: readonly string[], size: number): { w: number; h: number } {
  // Lines LINE_HEIGHT_EM apart; the CJK ink is about 1 em tall, so an eighth of an em above and below.
  const h = Math.ceil(((lines.length - 1) * LINE_HEIGHT_EM + 1.25) * size);
  const w = Math.ceil(Math.max(...lines.map((l) => textWidth(l, size))) + 0.6 * size);
  return { w: Math.max(w, h), h };
}

const overlaps = (a: Rect, b: Rect): boolean =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** A piece's room for text, in image pixels: inside-pixel counts (summed-area) and distance to its outside. */
interface Room {
  readonly x0: number;
  readonly y0: number;
  readonly w: number;
  readonly h: number;
  readonly sat: Int32Array;
  readonly dist: Float32Array;
  readonly deepest: number;
}

function roomOf(p: PieceShape, x0: number, y0: number): Room {
  const { w, h } = p.bounds;
  const sat = new Int32Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let run = 0;
    for (let x = 0; x < w; x++) {
      run += p.mask[y * w + x]!;
      sat[(y + 1) * (w + 1) + x + 1] = sat[y * (w + 1) + x + 1]! + run;
    }
  }
  // Distance to the nearest outside pixel (the engine's exact transform), on a plane one pixel larger all round:
  // beyond the bounds is outside.
  const W = w + 2;
  const d = distanceTransform(W, h + 2, (i) => {
    const x = (i % W) - 1;
    const y = Math.floor(i / W) - 1;
    return x < 0 || y < 0 || x >= w || y >= h || !p.mask[y * w + x];
  });
  const dist = new Float32Array(w * h);
  let deepest = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      dist[y * w + x] = d[(y + 1) * W + x + 1]!;
      deepest = Math.max(deepest, dist[y * w + x]!);
    }
  }
  return { x0, y0, w, h, sat, dist, deepest };
}

/**
 * The spot for a `bw × bh` box wholly inside the piece, `margin` px clear of its outside (its drawn outline),
 * overlapping none of `placed`: of all that fit, the one whose centre is deepest inside the piece (the pole
 * of inaccessibility on the distance transform, not the bounding box's centre, which on a sleeve or a curved
 * collar lies near or past the outline). Null when none fits.
 */
function fitIn(room: Room, bw: number, bh: number, margin: number, placed: readonly Rect[]): Rect | null {
  const W = bw + 2 * margin;
  const H = bh + 2 * margin;
  // A box fits only around a point at least half its smaller side deep.
  if (W > room.w || H > room.h || room.deepest < Math.min(W, H) / 2 - 1) return null;
  // On a grid a tenth of the box's smaller side first (a few px off the best spot do not show); every
  // position only where none of the grid's fits (a band barely taller than the label).
  const step = Math.max(1, Math.floor(Math.min(W, H) / 10));
  return (
    (step > 1 ? fitOnGrid(room, W, H, margin, placed, step) : null) ??
    fitOnGrid(room, W, H, margin, placed, 1)
  );
}

function fitOnGrid(
  room: Room,
  W: number,
  H: number,
  margin: number,
  placed: readonly Rect[],
  step: number,
): Rect | null {
  const { w, h, sat, dist } = room;
  const full = W * H;
  const S = w + 1;
  let best: Rect | null = null;
  let bestD = Number.NEGATIVE_INFINITY;
  for (let y = 0; y + H <= h; y += step) {
    for (let x = 0; x + W <= w; x += step) {
      // Along a ridge of equal depth (a band, a welt, a long panel), the spot nearest the middle.
      const d =
        dist[(y + (H >> 1)) * w + x + (W >> 1)]! -
        TOWARD_MIDDLE * Math.sqrt((x + (W - w) / 2) ** 2 + (y + (H - h) / 2) ** 2);
      if (d <= bestD) continue;
      if (sat[(y + H) * S + x + W]! - sat[y * S + x + W]! - sat[(y + H) * S + x]! + sat[y * S + x]! !== full)
        continue;
      const box = { x: room.x0 + x + margin, y: room.y0 + y + margin, w: W - 2 * margin, h: H - 2 * margin };
      if (placed.some((b) => overlaps(b, box))) continue;
      best = box;
      bestD = d;
    }
  }
  return best;
}

/** The piece's deepest inside point (of equal depths the nearest the middle), image pixels. */
function poleOf(room: Room): { x: number; y: number } {
  let best = 0;
  let bestD = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < room.dist.length; i++) {
    const x = i % room.w;
    const y = Math.floor(i / room.w);
    const d =
      room.dist[i]! - TOWARD_MIDDLE * Math.sqrt((x + 0.5 - room.w / 2) ** 2 + (y + 0.5 - room.h / 2) ** 2);
    if (d > bestD) {
      best = i;
      bestD = d;
    }
  }
  return { x: room.x0 + (best % room.w) + 0.5, y: room.y0 + Math.floor(best / room.w) + 0.5 };
}

/** A, B, … Z, AA, AB, …: letters, so a badge is never read as a layer's number ("图层 12") or a "#3". */
function keyOf(n: number): string {
  let s = '';
  for (let k = n + 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
}

/** Indices of `pieces` in reading order: rows top to bottom (a piece whose centre is within a row's first piece's height joins it), each left to right. */
function readingOrder(pieces: readonly { bounds: Rect }[], which: readonly number[]): number[] {
  const byY = [...which].sort(
    (a, b) => pieces[a]!.bounds.y + pieces[a]!.bounds.h / 2 - (pieces[b]!.bounds.y + pieces[b]!.bounds.h / 2),
  );
  const rows: number[][] = [];
  for (const i of byY) {
    const row = rows[rows.length - 1];
    const first = row ? pieces[row[0]!]!.bounds : null;
    const cy = pieces[i]!.bounds.y + pieces[i]!.bounds.h / 2;
    if (row && first && cy <= first.y + first.h) row.push(i);
    else rows.push([i]);
  }
  return rows.flatMap((r) => r.sort((a, b) => pieces[a]!.bounds.x - pieces[b]!.bounds.x));
}

/**
 * Where each piece's label goes on a `width × height` drawing (delivered at its own size), in the pieces'
 * `rooms` on it; `margins[i]` is the px piece i's outline covers.
 */
function planOverview(
  pieces: readonly PieceShape[],
  rooms: readonly Room[],
  texts: readonly string[],
  margins: readonly number[],
  width: number,
  height: number,
): OverviewLayout {
  const placed: Rect[] = [];
  const labels: OverviewLayout['labels'][number][] = [];
  const small: number[] = [];
  // Largest pieces first: where pieces overlap, the larger keeps its spot.
  const bySize = pieces.map((_, i) => i).sort((a, b) => pieces[b]!.area - pieces[a]!.area);
  for (const i of bySize) {
    const lines = texts[i]!.split('\n');
    // Two lines as given, or one (a collar, a band or a welt is wide and low); upright at any size before
    // turned along a narrow piece (a side panel, a facing), as a pattern's text runs along its grain.
    const variants = lines.length > 1 ? [lines, [lines.join(' ')]] : [lines];
    let done = false;
    for (const turned of [false, true]) {
      for (let size = turned ? TURNED_MAX : LABEL_MAX; !done; size = Math.max(LABEL_MIN, size * SHRINK)) {
        for (const v of turned ? [...variants].reverse() : variants) {
          const t = textBox(v, size);
          const box = fitIn(rooms[i]!, turned ? t.h : t.w, turned ? t.w : t.h, margins[i]!, placed);
          if (!box) continue;
          labels.push({ piece: i, lines: v, size, box, turned });
          placed.push(box);
          done = true;
          break;
        }
        if (size === LABEL_MIN) break;
      }
    }
    if (!done) small.push(i);
  }
  const badges: OverviewLayout['badges'][number][] = [];
  readingOrder(
    rooms.map((r) => ({ bounds: { x: r.x0, y: r.y0, w: r.w, h: r.h } })),
    small,
  ).forEach((i, n) => {
    const key = keyOf(n);
    const { w, h } = textBox([key], LABEL_MIN);
    const room = rooms[i]!;
    const inside = fitIn(room, w, h, margins[i]!, placed);
    let box = inside;
    const anchor = inside ? { x: inside.x + w / 2, y: inside.y + h / 2 } : poleOf(room);
    // Else on the piece's deepest spot, or the nearest free spot around it (with a leader line to it).
    for (let ring = 0; !box && ring <= 16; ring++) {
      const steps = ring === 0 ? 1 : 8 + 4 * ring;
      for (let k = 0; k < steps && !box; k++) {
        const a = (2 * Math.PI * k) / steps - Math.PI / 2;
        const r = (ring * h) / 2;
        const at = {
          x: Math.round(anchor.x + r * Math.cos(a) - w / 2),
          y: Math.round(anchor.y + r * Math.sin(a) - h / 2),
          w,
          h,
        };
        if (at.x < 0 || at.y < 0 || at.x + w > width || at.y + h > height) continue;
        if (!placed.some((b) => overlaps(b, at))) box = at;
      }
    }
    box ??= { x: Math.round(anchor.x - w / 2), y: Math.round(anchor.y - h / 2), w, h };
    placed.push(box);
    badges.push({ piece: i, key, size: LABEL_MIN, box, anchor });
  });
  // The legend: beside a tall drawing, below a wide one, in columns read top to bottom.
  const legend: OverviewLayout['legend'][number][] = [];
  let W = width;
  let H = height;
  if (badges.length) {
    const pad = Math.round(LABEL_MIN);
    const entries = badges.map((b) => {
      const text = texts[b.piece]!.split('\n').join(' ');
      return { b, text, w: b.box.w + Math.round(0.4 * LABEL_MIN) + Math.ceil(textWidth(text, LABEL_MIN)) };
    });
    const rowH = Math.ceil(badges[0]!.box.h + 0.4 * LABEL_MIN);
    const colW = Math.max(...entries.map((e) => e.w)) + pad;
    const beside = height >= width;
    const rows = beside
      ? Math.max(1, Math.floor((height - 2 * pad) / rowH))
      : Math.ceil(entries.length / Math.max(1, Math.floor((width - pad) / colW)));
    const perCol = Math.min(rows, entries.length);
    const cols = Math.ceil(entries.length / perCol);
    const x0 = beside ? width + Math.round(pad / 2) : pad;
    const y0 = beside ? pad : height;
    entries.forEach((e, k) => {
      const box = {
        x: x0 + Math.floor(k / perCol) * colW,
        y: y0 + (k % perCol) * rowH,
        w: e.w,
        h: e.b.box.h,
      };
      legend.push({ piece: e.b.piece, key: e.b.key, text: e.text, size: LABEL_MIN, box });
    });
    W = beside ? x0 + cols * colW : width;
    H = beside ? Math.max(height, y0 + perCol * rowH + pad) : height + perCol * rowH + pad;
  }
  return { width: W, height: H, labels, badges, legend };
}

function drawText(ctx: SKRSContext2D, lines: readonly string[], size: number, box: Rect): void {
  ctx.font = fontAt(size);
  ctx.fillStyle = INK_CSS;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  const first = box.y + box.h / 2 - ((lines.length - 1) * LINE_HEIGHT_EM * size) / 2;
  lines.forEach((l, k) => {
    ctx.fillText(l, box.x + box.w / 2, first + k * LINE_HEIGHT_EM * size);
  });
}

function drawBadge(ctx: SKRSContext2D, key: string, size: number, box: Rect, doubt: boolean): void {
  ctx.beginPath();
  ctx.roundRect(box.x + 0.5, box.y + 0.5, box.w - 1, box.h - 1, box.h / 2);
  ctx.fillStyle = 'white';
  ctx.fill();
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = doubt ? DOUBT_CSS : INK_CSS;
  ctx.stroke();
  drawText(ctx, [key], size, box);
}

/** The drawing with the layout's labels, badges and legend drawn over it (and the legend's room added). */
function drawLayout(
  drawing: Raster,
  layout: OverviewLayout,
  texts: readonly string[],
  doubt: (i: number) => boolean,
): Raster {
  const canvas = createCanvas(layout.width, layout.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, layout.width, layout.height);
  const image = ctx.createImageData(drawing.w, drawing.h);
  image.data.set(drawing.data);
  ctx.putImageData(image, 0, 0);
  for (const l of layout.labels) {
    ctx.beginPath();
    ctx.roundRect(l.box.x, l.box.y, l.box.w, l.box.h, 0.25 * l.size);
    ctx.fillStyle = 'rgba(255,255,255,0.86)';
    ctx.fill();
    if (l.turned) {
      ctx.save();
      ctx.translate(l.box.x + l.box.w / 2, l.box.y + l.box.h / 2);
      ctx.rotate(-Math.PI / 2);
      drawText(ctx, l.lines, l.size, { x: -l.box.h / 2, y: -l.box.w / 2, w: l.box.h, h: l.box.w });
      ctx.restore();
    } else {
      drawText(ctx, l.lines, l.size, l.box);
    }
  }
  for (const b of layout.badges) {
    const cx = b.box.x + b.box.w / 2;
    const cy = b.box.y + b.box.h / 2;
    if (Math.hypot(cx - b.anchor.x, cy - b.anchor.y) > b.box.h / 2) {
      ctx.beginPath();
      ctx.moveTo(b.anchor.x, b.anchor.y);
      ctx.lineTo(cx, cy);
      ctx.lineWidth = 1.5;
      ctx.strokeStyle = INK_CSS;
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(b.anchor.x, b.anchor.y, 2.5, 0, 2 * Math.PI);
      ctx.fillStyle = INK_CSS;
      ctx.fill();
    }
    drawBadge(ctx, b.key, b.size, b.box, doubt(b.piece));
  }
  if (layout.legend.length) {
    ctx.beginPath();
    if (layout.width > drawing.w) {
      ctx.moveTo(drawing.w - 0.5, 0);
      ctx.lineTo(drawing.w - 0.5, layout.height);
    } else {
      ctx.moveTo(0, drawing.h - 0.5);
      ctx.lineTo(layout.width, drawing.h - 0.5);
    }
    ctx.lineWidth = 1;
    ctx.strokeStyle = 'rgb(190,190,190)';
    ctx.stroke();
  }
  for (const e of layout.legend) {
    const badge = layout.badges.find((b) => b.key === e.key)!.box;
    const key = { x: e.box.x, y: e.box.y, w: badge.w, h: badge.h };
    drawBadge(ctx, e.key, e.size, key, doubt(e.piece));
    ctx.font = fontAt(e.size);
    ctx.fillStyle = INK_CSS;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.fillText(texts[e.piece]!.split('\n').join(' '), key.x + key.w + 0.4 * e.size, key.y + key.h / 2);
  }
  const data = ctx.getImageData(0, 0, layout.width, layout.height).data;
  return { x: 0, y: 0, w: layout.width, h: layout.height, data: new Uint8ClampedArray(data.buffer) };
}

/**
 * The overview's drawing before any text: the pieces on a proxy over white, tinted by part (a piece without one
 * as `other`) and outlined, the pieces `marked` (in doubt) thicker in orange; with each piece's room for text.
 * Labels in two languages are laid out on one drawing.
 */
type Labeller = (p: PieceShape & { part?: Part }, i: number) => string;

interface OverviewDrawing {
  readonly canvas: Raster;
  readonly pieces: readonly PieceShape[];
  readonly rooms: readonly Room[];
  readonly doubt: readonly boolean[];
  readonly margins: readonly number[];
}

async function overviewDrawing(
  state: DocState,
  shapes: readonly (PieceShape & { part?: Part })[],
  marked: (p: PieceShape & { part?: Part }) => boolean,
): Promise<OverviewDrawing> {
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
  const doubt = pieces.map((p) => marked(p));
  drawOutlines(canvas, pieces.filter((_, i) => !doubt[i]) as PieceInfo[], { r: 30, g: 30, b: 30 }, thick);
  drawOutlines(canvas, pieces.filter((_, i) => doubt[i]) as PieceInfo[], DOUBT_OUTLINE, thick * 2 + 1);
  return {
    canvas,
    pieces,
    rooms: pieces.map((p) => roomOf(p, p.bounds.x - canvas.x, p.bounds.y - canvas.y)),
    doubt,
    margins: doubt.map((d) => (d ? thick * 2 + 1 : thick)),
  };
}

function labelled(d: OverviewDrawing, labelOf: Labeller): { raster: Raster; layout: OverviewLayout } {
  const texts = d.pieces.map((p, i) => labelOf(p, i));
  const layout = planOverview(d.pieces, d.rooms, texts, d.margins, d.canvas.w, d.canvas.h);
  return { raster: drawLayout(d.canvas, layout, texts, (i) => d.doubt[i]!), layout };
}

/**
 * The overview as overviewImage delivers it (before PNG encoding), with where its text went and the pieces as
 * drawn (`origin`: the drawing's rect in their coordinates, the legend excluded): overviewDrawing with each
 * piece's label inside it where it fits, else a lettered badge and a legend entry.
 */
export async function drawOverview(
  state: DocState,
  shapes: readonly (PieceShape & { part?: Part })[],
  labelOf: Labeller,
  marked: (p: PieceShape & { part?: Part }) => boolean = () => false,
): Promise<{ raster: Raster; layout: OverviewLayout; pieces: readonly PieceShape[]; origin: Rect }> {
  const d = await overviewDrawing(state, shapes, marked);
  const { canvas } = d;
  return {
    ...labelled(d, labelOf),
    pieces: d.pieces,
    origin: { x: canvas.x, y: canvas.y, w: canvas.w, h: canvas.h },
  };
}

/**
 * The overview image (drawOverview) as PNG, at the size it is drawn: about 1024 px (the proxy and its margin),
 * more where a legend was added, never scaled down, which would shrink its text below LABEL_MIN. With `labels.en`
 * it is drawn a second time with those labels (laid out afresh: English words run longer) for the studio's
 * English mode (`base64En`).
 */
export async function overviewImage(
  state: DocState,
  shapes: readonly (PieceShape & { part?: Part })[],
  labels: { readonly zh: Labeller; readonly en?: Labeller },
  caption: Caption,
  marked: (p: PieceShape & { part?: Part }) => boolean = () => false,
): Promise<ImageOut> {
  const drawing = await overviewDrawing(state, shapes, marked);
  const png = async (labelOf: Labeller) => {
    const { raster } = labelled(drawing, labelOf);
    return pngImage(raster, caption, Math.max(1024, raster.w, raster.h));
  };
  // Together: one's PNG encodes on sharp's threads while the other is laid out and drawn.
  const [image, en] = await Promise.all([png(labels.zh), labels.en ? png(labels.en) : null]);
  return en ? { ...image, base64En: en.base64 } : image;
}

/**
 * Types and colours proposed from the photo. Where a motif goes, it goes on every front panel it falls on, about
 * the garment's centre front (placement.centres): both halves of a front cut in halves, the side panels a wide
 * motif reaches, every size of a graded marker. Without centres (no front, or fronts whose order is not told),
 * the main front (or the largest piece) carries it.
 */
export function proposalsFor(pieces: readonly PieceInfo[], ext: Extraction, pl: Placement): Proposal[] {
  const onMotif = new Set(
    ext.motif
      ? pieces.filter((p) => {
          const at = pl.centres?.find((c) => c.layerId === p.layerId);
          return at !== undefined && motifShare(uprightPiece(p), at, ext.motif!, pl.scale) >= MOTIF_SHARE;
        })
      : [],
  );
  if (onMotif.size === 0) {
    const carrier = mainFront(pieces) ?? [...pieces].sort((p, q) => q.area - p.area)[0];
    if (carrier) onMotif.add(carrier);
  }
  return pieces.map((p) => {
    let type = ext.kind;
    if (ext.kind === 'theme_pattern' && !onMotif.has(p)) type = 'solid';
    if (ext.kind === 'mixed_pattern' && !onMotif.has(p)) type = 'fill_pattern';
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
): Promise<{ image: ImageOut; sewn: ImageOut | null; built: BuiltPiece[] }> {
  const proxy = await screenProxy(state, pieces, PROXY_SIDE);
  const small = proxy.pieces;
  const smallPl = proxyPlacement(pl, proxy.k);
  const { state: applied, built } = await applyPlans(
    proxy.state,
    ext,
    smallPl,
    plansFrom(small, proposals),
    small,
  );
  const canvas = outlinedCanvas(applied, small);
  const image = await pngImage(canvas, {
    zh: '花样预览：照片中的花样按裁片轮廓填充（黑线为裁片轮廓），请确认',
    en: 'Print preview: the photo’s print filled into each piece’s outline (black lines are the outlines); please confirm',
  });
  return { image, sewn: await sewnImage(state, ext, pl, pieces, proposals), built };
}

function outlinedCanvas(state: DocState, pieces: readonly PieceInfo[]): Raster {
  const canvas = canvasAround(state, pieces);
  const thick = Math.max(1, Math.round(Math.max(canvas.w, canvas.h) / 500));
  drawOutlines(canvas, pieces, { r: 20, g: 20, b: 20 }, thick);
  return canvas;
}

/** The longer side of the front as sewn, at most (px): large enough to read a motif across the centre front. */
const SEWN_SIDE = 760;

/**
 * The front as sewn (sewn.ts), for a front of two panels or more: on the marker a motif across a zip front's
 * halves shows as two unrelated parts, here as one. The main front's size of a graded marker. Drawn on its own
 * proxy of those panels, sized for them (on the whole marker's proxy they were a few hundred pixels), with the
 * same code and placement as the preview.
 */
async function sewnImage(
  state: DocState,
  ext: Extraction,
  pl: Placement,
  pieces: readonly PieceInfo[],
  proposals: readonly Proposal[],
): Promise<ImageOut | null> {
  const size = pieces.find((p) => p.name === pl.anchor)?.size;
  const fronts = pieces.filter(
    (p) => p.size === size && pl.centres?.some((c) => c.layerId === p.layerId) === true,
  );
  if (fronts.length < 2) return null;
  // Side by side, upright: no wider than their widths together, no taller than the tallest.
  const upright = fronts.map(uprightPiece);
  const w = upright.reduce((s, p) => s + p.bounds.w, 0);
  const h = Math.max(...upright.map((p) => p.bounds.h));
  const proxy = await screenProxyAt(state, fronts, SEWN_SIDE / Math.max(w, h, 1));
  const small = proxy.pieces;
  const smallPl = proxyPlacement(pl, proxy.k);
  const names = new Set(fronts.map((p) => p.name));
  const { state: applied } = await applyPlans(
    proxy.state,
    ext,
    smallPl,
    plansFrom(
      small,
      proposals.filter((p) => names.has(p.name)),
    ),
    small,
  );
  const canvas = outlinedCanvas(applied, small);
  const views = small.map((p) => ({ piece: uprightPiece(p), canvas: uprightView(frameOf(p), canvas) }));
  const front = sewnFronts(views, smallPl).find((f) => f.size === size);
  if (!front) return null;
  const r = front.raster;
  const m = Math.round(Math.max(r.w, r.h) * 0.04) + 4;
  const out = solidRaster(
    { x: r.x - m, y: r.y - m, w: r.w + 2 * m, h: r.h + 2 * m },
    { r: 255, g: 255, b: 255 },
  );
  blitOver(out, r);
  return pngImage(out, {
    zh: '前身缝合示意：各前片按前中线拼在一起（缝份重叠处只显示一片），看花样和主题图案跨过前中线是否完整、连续',
    en: 'The front as sewn: the front panels put together at the centre front (where seam allowances overlap, one shows), to see that the print and the motif run on across it',
  });
}
