/**
 * split_pieces on nested CAD markers whose pieces touch: outline drawings sharing a cut line, filled pieces
 * abutting along a darker outline, and pale pieces (closer than ΔE 10 to the paper) found by their outline. Each
 * piece comes out as its own layer matching the drawn piece (IoU), a piece's internal lines (grain line, labels,
 * a dart from the edge, a closed dart inside) do not split it, and undo brings the document back.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PixelLayer, Raster } from '../../src/engine/model.js';
import { deltaE76, rgbToLab } from '../../src/garment/color.js';
import { newSession, ok, tempDir } from '../support/session.js';
import { current } from './layer-fixtures.js';

const W = 1200;
const H = 760;
const LINE = 3;

type Pt = readonly [number, number];

interface Piece {
  readonly outline: readonly Pt[];
  /** Fill colour; none for an outline drawing. */
  readonly fill?: string;
  /** Drawn inside, never a piece of its own: labels, a grain line, darts. */
  readonly marks?: (g: SKRSContext2D) => void;
}

/** A front with every internal line a pattern carries: a label, a grain line, a dart from the hem, a closed dart. */
const frontMarks = (g: SKRSContext2D) => {
  g.font = '40px sans-serif';
  g.fillText('前片 M 8', 160, 200);
  g.beginPath();
  g.moveTo(200, 250); // grain line with open arrowheads
  g.lineTo(200, 450);
  g.moveTo(185, 270);
  g.lineTo(200, 250);
  g.lineTo(215, 270);
  g.moveTo(185, 430);
  g.lineTo(200, 450);
  g.lineTo(215, 430);
  g.moveTo(375, 540); // dart from the hem: 50 wide, 150 long
  g.lineTo(400, 390);
  g.lineTo(425, 540);
  g.moveTo(400, 220); // closed (fish-eye) dart
  g.lineTo(420, 290);
  g.lineTo(400, 360);
  g.lineTo(380, 290);
  g.closePath();
  g.stroke();
};

const label = (text: string, x: number, y: number) => (g: SKRSContext2D) => {
  g.font = '36px sans-serif';
  g.fillText(text, x, y);
  g.beginPath();
  g.moveTo(x + 20, y + 30);
  g.lineTo(x + 20, y + 120);
  g.stroke();
};

/** Front (A) and back (B) share the cut line x = 540; the sleeve (C) touches both; the collar (D) stands apart. */
function marker(fill?: readonly [string, string, string, string]): Piece[] {
  return [
    {
      outline: [
        [100, 60],
        [540, 60],
        [540, 540],
        [100, 540],
      ],
      fill: fill?.[0],
      marks: frontMarks,
    },
    {
      outline: [
        [540, 60],
        [860, 60],
        [860, 380],
        [540, 380],
      ],
      fill: fill?.[1],
      marks: label('后片', 600, 140),
    },
    {
      outline: [
        [540, 380],
        [860, 380],
        [800, 700],
        [540, 700],
      ],
      fill: fill?.[2],
      marks: label('袖', 600, 460),
    },
    {
      outline: [
        [920, 60],
        [1140, 60],
        [1140, 420],
      ],
      fill: fill?.[3],
      marks: label('领', 1020, 130),
    },
  ];
}

function tracePath(g: SKRSContext2D, outline: readonly Pt[]) {
  g.beginPath();
  g.moveTo(...outline[0]!);
  for (const p of outline.slice(1)) g.lineTo(...p);
  g.closePath();
}

/** The marker as an RGBA buffer: white paper, each piece filled (or not), its marks, then its cut line. */
function draw(pieces: readonly Piece[], stroke = '#000000'): Buffer {
  const c = createCanvas(W, H);
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, W, H);
  for (const p of pieces) {
    if (p.fill) {
      tracePath(g, p.outline);
      g.fillStyle = p.fill;
      g.fill();
    }
  }
  g.lineWidth = LINE;
  g.strokeStyle = stroke;
  g.fillStyle = stroke;
  for (const p of pieces) p.marks?.(g);
  for (const p of pieces) {
    tracePath(g, p.outline);
    g.stroke();
  }
  return Buffer.from(g.getImageData(0, 0, W, H).data.buffer);
}

/** What a pattern maker calls the piece: its shape with the whole cut line (a shared line belongs to both). */
function truth(p: Piece): Uint8Array {
  const c = createCanvas(W, H);
  const g = c.getContext('2d');
  tracePath(g, p.outline);
  g.fillStyle = '#000';
  g.fill();
  g.lineWidth = LINE;
  g.stroke();
  const d = g.getImageData(0, 0, W, H).data;
  const m = new Uint8Array(W * H);
  for (let i = 0; i < m.length; i++) m[i] = d[i * 4 + 3]! >= 128 ? 1 : 0;
  return m;
}

function iou(r: Raster, m: Uint8Array): number {
  let both = 0;
  let either = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const u = x - r.x;
      const v = y - r.y;
      const a = u >= 0 && v >= 0 && u < r.w && v < r.h && r.data[(v * r.w + u) * 4 + 3]! >= 128 ? 1 : 0;
      const b = m[y * W + x]!;
      both += a & b;
      either += a | b;
    }
  }
  return either ? both / either : 0;
}

/** The marker saved as a JPEG (quality 90, as a CAD export or a scan comes) and split. */
async function split(pieces: readonly Piece[], stroke?: string) {
  const dir = tempDir('atelier-split-touch-');
  const jpg = await sharp(draw(pieces, stroke), { raw: { width: W, height: H, channels: 4 } })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 90 })
    .toBuffer();
  writeFileSync(path.join(dir, 'marker.jpg'), jpg);
  const s = newSession(dir);
  await ok(s, 'open_document', { path: 'marker.jpg' });
  const before = current(s);
  const r = await ok(s, 'split_pieces');
  const names = (r.pieces as { name: string }[]).map((p) => p.name);
  const state = current(s);
  const rasters = names.map(
    (n) => ([...state.layers.values()].find((l) => l.name === n) as PixelLayer).raster,
  );
  return { s, r, rasters, before };
}

/** For each drawn piece, the best IoU any split layer reaches. */
function bestIous(pieces: readonly Piece[], rasters: readonly Raster[]): number[] {
  return pieces.map((p) => {
    const m = truth(p);
    return Math.max(...rasters.map((r) => iou(r, m)));
  });
}

describe('split_pieces on touching pieces', () => {
  it('splits an outline marker whose pieces share cut lines, one layer per enclosed piece, and undo restores it', async () => {
    const pieces = marker();
    const { s, r, rasters, before } = await split(pieces);
    expect(rasters).toHaveLength(4);
    for (const [k, v] of bestIous(pieces, rasters).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
    // The shared line x = 540 belongs to the front and to the back.
    const front = rasters.find((q) => q.x < 110)!;
    const back = rasters.find((q) => q.x > 520 && q.x < 545 && q.y < 70)!;
    expect(front.x + front.w).toBeGreaterThanOrEqual(541);
    expect(back.x).toBeLessThanOrEqual(539);
    expect(r.next).toContain('4 个裁片图层');
    await ok(s, 'undo');
    expect(current(s)).toBe(before);
  }, 60_000);

  it('splits filled pieces abutting along a darker outline', async () => {
    const pieces = marker(['#c8c8c8', '#d8c8b0', '#b0c0d8', '#c8c8c8']);
    const { rasters } = await split(pieces, '#303030');
    expect(rasters).toHaveLength(4);
    for (const [k, v] of bestIous(pieces, rasters).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
  }, 60_000);

  it('keeps a piece whole across its grain line, labels, a dart from the edge and a closed dart', async () => {
    for (const fill of [undefined, '#c8c8c8']) {
      const pieces = [{ ...marker()[0]!, fill }];
      const { rasters } = await split(pieces);
      expect(rasters, fill ?? 'outline').toHaveLength(1);
      expect(bestIous(pieces, rasters)[0], fill ?? 'outline').toBeGreaterThanOrEqual(0.98);
    }
  }, 60_000);

  it('finds pale pieces (under ΔE 10 from the paper) by their outline, touching a filled one or not', async () => {
    const pale = '#f4efe6';
    const lab = (hex: string) =>
      rgbToLab(
        Number.parseInt(hex.slice(1, 3), 16),
        Number.parseInt(hex.slice(3, 5), 16),
        Number.parseInt(hex.slice(5), 16),
      );
    expect(deltaE76(lab(pale), lab('#ffffff'))).toBeLessThan(10);
    expect(deltaE76(lab(pale), lab('#ffffff'))).toBeGreaterThan(4.9);
    const pieces = marker(['#c8c8c8', pale, pale, pale]);
    const { rasters } = await split(pieces);
    expect(rasters).toHaveLength(4);
    for (const [k, v] of bestIous(pieces, rasters).entries())
      expect(v, `piece ${k}`).toBeGreaterThanOrEqual(0.97);
  }, 60_000);
});
