/**
 * Makes the garment example's inputs: `pieces.psd`, a T-shirt's cut pieces (FreeSewing's Teagan, size
 * cisMaleAdult42, from test/fixtures/freesewing) laid out as a marker at 30 DPI, one pixel layer per piece with
 * meaningless names (图层 1 … 图层 4, in a shuffled order, as a pattern program exports them); and three
 * product photos of a T-shirt lying flat on a light studio background — an all-over half-drop repeat of small
 * flowers on cream, a yellow star placed on a navy shirt, and a plain heather-grey shirt — with folds,
 * fabric turning away at the outline and noise, saved as JPEG.
 *
 *   npx tsx examples/garment/make-examples.ts      (writes into examples/garment/)
 *
 * Deterministic: the same files every run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { type Canvas, createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { writePsdBuffer } from 'ag-psd';
import sharp from 'sharp';
import { rasterisePiece } from '../../scripts/piece-raster.js';
import { PHOTO, shirtPath } from './shirt-outline.js';

const HERE = new URL('./', import.meta.url);
const DPI = 30;
const PX_PER_MM = DPI / 25.4;
const SEAM_ALLOWANCE_MM = 10;

interface Piece {
  readonly name: string;
  readonly widthMm: number;
  readonly heightMm: number;
  readonly poly: readonly (readonly [number, number])[];
}

// ---------------------------------------------------------------- the cut pieces

const fixtures = JSON.parse(
  readFileSync(new URL('../../test/fixtures/freesewing/pieces.json', import.meta.url), 'utf8'),
) as { garments: { id: string; pieces: Piece[] }[] };
const teagan = fixtures.garments.find((g) => g.id === 'teagan-cisMaleAdult42')!;
const part = (name: string) => teagan.pieces.find((p) => p.name === name)!;

/** The piece's cut line (seam line grown by the allowance) drawn opaque grey on a transparent canvas. */
function pieceImage(p: Piece, mirrored: boolean): { w: number; h: number; data: Uint8ClampedArray } {
  const img = rasterisePiece(p, PX_PER_MM, SEAM_ALLOWANCE_MM, 0, mirrored, '#d0d0d0');
  // Hard edges, as a cutting program exports them: alpha is 0 or 255.
  for (let i = 3; i < img.data.length; i += 4) img.data[i] = img.data[i]! >= 128 ? 255 : 0;
  return img;
}

function piecesPsd(): Buffer {
  const gap = 12;
  const front = pieceImage(part('teagan.front'), false);
  const back = pieceImage(part('teagan.back'), false);
  const sleeveL = pieceImage(part('teagan.sleeve'), false);
  const sleeveR = pieceImage(part('teagan.sleeve'), true);
  const placed = [
    { name: '图层 3', img: front, left: gap, top: gap },
    { name: '图层 1', img: back, left: 2 * gap + front.w, top: gap },
    { name: '图层 4', img: sleeveL, left: 3 * gap + front.w + back.w, top: gap },
    { name: '图层 2', img: sleeveR, left: 3 * gap + front.w + back.w, top: 2 * gap + sleeveL.h },
  ];
  const width = 4 * gap + front.w + back.w + sleeveL.w;
  const height = 2 * gap + Math.max(front.h, back.h, sleeveL.h + sleeveR.h + gap);
  const composite = new Uint8ClampedArray(width * height * 4);
  for (const p of placed) {
    for (let y = 0; y < p.img.h; y++) {
      for (let x = 0; x < p.img.w; x++) {
        const s = (y * p.img.w + x) * 4;
        if (!p.img.data[s + 3]) continue;
        composite.set(p.img.data.subarray(s, s + 4), ((p.top + y) * width + p.left + x) * 4);
      }
    }
  }
  // Layer order in the file (bottom → top) deliberately not the pieces' order.
  const order = ['图层 2', '图层 3', '图层 4', '图层 1'];
  const children = order.map((name) => {
    const p = placed.find((q) => q.name === name)!;
    return {
      name,
      left: p.left,
      top: p.top,
      right: p.left + p.img.w,
      bottom: p.top + p.img.h,
      imageData: { width: p.img.w, height: p.img.h, data: p.img.data },
    };
  });
  const resolution = {
    horizontalResolution: DPI,
    horizontalResolutionUnit: 'PPI' as const,
    widthUnit: 'Inches' as const,
    verticalResolution: DPI,
    verticalResolutionUnit: 'PPI' as const,
    heightUnit: 'Inches' as const,
  };
  return writePsdBuffer(
    {
      width,
      height,
      children,
      imageData: { width, height, data: composite },
      imageResources: { resolutionInfo: resolution },
    },
    { noBackground: true },
  );
}

// ---------------------------------------------------------------- the photos

/** The all-over print's tile: small pink flowers with a leaf on cream, 48 px, in a half-drop layout. */
function flowerTile(): Canvas {
  const t = createCanvas(96, 48);
  const c = t.getContext('2d');
  c.fillStyle = '#f3ead8';
  c.fillRect(0, 0, 96, 48);
  const flower = (x: number, y: number) => {
    // Drawn again one tile up and down, so a flower crossing the tile's edge wraps.
    for (const dy of [0, 48, -48]) {
      const fx = x;
      const fy = y + dy;
      c.fillStyle = '#d95f8a';
      for (let k = 0; k < 5; k++) {
        const a = (k * 2 * Math.PI) / 5;
        c.beginPath();
        c.arc(fx + Math.cos(a) * 6, fy + Math.sin(a) * 6, 5, 0, 2 * Math.PI);
        c.fill();
      }
      c.fillStyle = '#f2b632';
      c.beginPath();
      c.arc(fx, fy, 3, 0, 2 * Math.PI);
      c.fill();
      c.fillStyle = '#4f8a3c';
      c.beginPath();
      c.ellipse(fx + 14, fy + 12, 7, 3, 0.6, 0, 2 * Math.PI);
      c.fill();
    }
  };
  flower(20, 16);
  flower(68, 40); // the second column dropped by half a tile
  return t;
}

function star(ctx: SKRSContext2D, cx: number, cy: number, r: number): void {
  ctx.beginPath();
  for (let k = 0; k < 10; k++) {
    const a = (k * Math.PI) / 5 - Math.PI / 2;
    const rr = k % 2 ? r * 0.42 : r;
    ctx.lineTo(cx + Math.cos(a) * rr, cy + Math.sin(a) * rr);
  }
  ctx.closePath();
}

/** Folds, the fabric turning away along the outline, and noise, over the flat-lit garment. */
async function photograph(draw: (ctx: SKRSContext2D) => void, background: string): Promise<Buffer> {
  const canvas = createCanvas(PHOTO, PHOTO);
  const ctx = canvas.getContext('2d');
  const sweep = ctx.createLinearGradient(0, 0, 0, PHOTO);
  sweep.addColorStop(0, background);
  sweep.addColorStop(1, '#e4e4e4');
  ctx.fillStyle = sweep;
  ctx.fillRect(0, 0, PHOTO, PHOTO);
  ctx.save();
  shirtPath(ctx);
  ctx.clip();
  draw(ctx);
  // Two soft vertical folds and a shadow under each sleeve.
  ctx.globalCompositeOperation = 'multiply';
  for (const [x, width, depth] of [
    [330, 70, 0.12],
    [500, 55, 0.08],
  ] as const) {
    const g = ctx.createLinearGradient(x - width, 0, x + width, 0);
    g.addColorStop(0, 'rgb(255,255,255)');
    const v = Math.round(255 * (1 - depth));
    g.addColorStop(0.5, `rgb(${v},${v},${v})`);
    g.addColorStop(1, 'rgb(255,255,255)');
    ctx.fillStyle = g;
    ctx.fillRect(x - width, 0, 2 * width, PHOTO);
  }
  ctx.restore();
  // The outline: fabric turning away darkens a few pixels along it.
  ctx.save();
  ctx.globalCompositeOperation = 'multiply';
  shirtPath(ctx);
  ctx.clip();
  shirtPath(ctx);
  ctx.strokeStyle = 'rgba(150,150,150,0.25)';
  ctx.lineWidth = 8;
  ctx.stroke();
  ctx.restore();
  const img = ctx.getImageData(0, 0, PHOTO, PHOTO);
  let seed = 97;
  for (let i = 0; i < img.data.length; i += 4) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const n = ((seed >> 8) % 7) - 3;
    for (let k = 0; k < 3; k++) img.data[i + k] = Math.max(0, Math.min(255, img.data[i + k]! + n));
  }
  return sharp(Buffer.from(img.data), { raw: { width: PHOTO, height: PHOTO, channels: 4 } })
    .removeAlpha()
    .jpeg({ quality: 90 })
    .withMetadata({ density: 72 })
    .toBuffer();
}

const photos: Record<string, () => Promise<Buffer>> = {
  'photo-allover.jpg': () =>
    photograph((ctx) => {
      ctx.fillStyle = ctx.createPattern(flowerTile(), 'repeat')!;
      ctx.fillRect(0, 0, PHOTO, PHOTO);
    }, '#f7f7f7'),
  'photo-motif.jpg': () =>
    photograph((ctx) => {
      ctx.fillStyle = '#1d3557';
      ctx.fillRect(0, 0, PHOTO, PHOTO);
      ctx.fillStyle = '#ffd23f';
      star(ctx, PHOTO / 2, 390, 80);
      ctx.fill();
    }, '#f2f2f2'),
  'photo-solid.jpg': () =>
    photograph((ctx) => {
      ctx.fillStyle = '#8d9299';
      ctx.fillRect(0, 0, PHOTO, PHOTO);
    }, '#fafafa'),
};

writeFileSync(new URL('pieces.psd', HERE), piecesPsd());
for (const [file, make] of Object.entries(photos)) writeFileSync(new URL(file, HERE), await make());
console.log('wrote pieces.psd and', Object.keys(photos).join(', '), 'into examples/garment/');
