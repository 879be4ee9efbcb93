/**
 * Drawing nested CAD markers for split_pieces tests: pieces as outlines or fills with their internal marks, drawn
 * with canvas, saved as JPEG as a CAD export or a scan comes, and split; the truth a pattern maker would draw.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import sharp from 'sharp';
import type { PixelLayer, Raster } from '../../src/engine/model.js';
import { BUNDLED_FONT, ensureBundledFont } from '../../src/engine/text.js';
import { newSession, ok, tempDir } from '../support/session.js';
import { current } from './layer-fixtures.js';

export const W = 1200;
export const H = 760;
export const LINE = 3;

export type Pt = readonly [number, number];

// Labels in the bundled CJK font: the system's sans-serif has no CJK glyphs and would draw each as a box.
ensureBundledFont();
const font = (px: number) => `${px}px "${BUNDLED_FONT}"`;

export interface Piece {
  readonly outline: readonly Pt[];
  /** Fill colour; none for an outline drawing. */
  readonly fill?: string;
  /** Drawn inside, never a piece of its own: labels, a grain line, darts. */
  readonly marks?: (g: SKRSContext2D) => void;
}

/** A front with every internal line a pattern carries: a label, a grain line, a dart from the hem, a closed dart. */
export const frontMarks = (g: SKRSContext2D) => {
  g.font = font(40);
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

export const label = (text: string, x: number, y: number) => (g: SKRSContext2D) => {
  g.font = font(36);
  g.fillText(text, x, y);
  g.beginPath();
  g.moveTo(x + 20, y + 30);
  g.lineTo(x + 20, y + 120);
  g.stroke();
};

/** Front (A) and back (B) share the cut line x = 540; the sleeve (C) touches both; the collar (D) stands apart. */
export function marker(fill?: readonly [string, string, string, string]): Piece[] {
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

export function tracePath(g: SKRSContext2D, outline: readonly Pt[]) {
  g.beginPath();
  g.moveTo(...outline[0]!);
  for (const p of outline.slice(1)) g.lineTo(...p);
  g.closePath();
}

/** The marker as an RGBA buffer: white paper, each piece filled (or not), its marks, then its cut line. */
export function draw(pieces: readonly Piece[], stroke = '#000000', width = LINE): Buffer {
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
  g.lineWidth = width;
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
export function truth(p: Piece, width = LINE): Uint8Array {
  const c = createCanvas(W, H);
  const g = c.getContext('2d');
  tracePath(g, p.outline);
  g.fillStyle = '#000';
  g.fill();
  g.lineWidth = width;
  g.stroke();
  const d = g.getImageData(0, 0, W, H).data;
  const m = new Uint8Array(W * H);
  for (let i = 0; i < m.length; i++) m[i] = d[i * 4 + 3]! >= 128 ? 1 : 0;
  return m;
}

export function iou(r: Raster, m: Uint8Array): number {
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
export async function split(pieces: readonly Piece[], stroke?: string, width?: number) {
  const dir = tempDir('atelier-split-touch-');
  const jpg = await sharp(draw(pieces, stroke, width), { raw: { width: W, height: H, channels: 4 } })
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
export function bestIous(pieces: readonly Piece[], rasters: readonly Raster[], width?: number): number[] {
  return pieces.map((p) => {
    const m = truth(p, width);
    return Math.max(...rasters.map((r) => iou(r, m)));
  });
}

/** A grain line with open arrowheads from (x, y0) down to (x, y1). */
export const grain = (x: number, y0: number, y1: number) => (g: SKRSContext2D) => {
  g.beginPath();
  g.moveTo(x, y0);
  g.lineTo(x, y1);
  g.moveTo(x - 15, y0 + 20);
  g.lineTo(x, y0);
  g.lineTo(x + 15, y0 + 20);
  g.moveTo(x - 15, y1 - 20);
  g.lineTo(x, y1);
  g.lineTo(x + 15, y1 - 20);
  g.stroke();
};

/** Straight lines drawn inside a piece, each from one point to another. */
export const lines =
  (...segments: readonly (readonly [Pt, Pt])[]) =>
  (g: SKRSContext2D) => {
    g.beginPath();
    for (const [a, b] of segments) {
      g.moveTo(...a);
      g.lineTo(...b);
    }
    g.stroke();
  };

export const marks =
  (...all: readonly ((g: SKRSContext2D) => void)[]) =>
  (g: SKRSContext2D) => {
    for (const m of all) m(g);
  };

/**
 * Two pieces whose curved side seams nest against each other, touching only at their ends: the paper between
 * them, a diamond from (400, 300) to (600, 300), is enclosed by both pieces' outlines.
 */
export function gapMarker(fill?: string): Piece[] {
  return [
    {
      outline: [
        [100, 60],
        [500, 60],
        [400, 300],
        [500, 540],
        [100, 540],
      ],
      fill,
      marks: marks(label('前片', 160, 140), grain(250, 300, 500)),
    },
    {
      outline: [
        [500, 60],
        [900, 60],
        [900, 540],
        [500, 540],
        [600, 300],
      ],
      fill,
      marks: marks(label('后片', 700, 140), grain(750, 300, 500)),
    },
  ];
}

/** The x where the segment from `a` to `b` crosses height `y`. */
const xAt = (a: Pt, b: Pt, y: number) => a[0] + ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]);

/**
 * A trouser front with a hip line and a knee line drawn from edge to edge, sharing its side seam x = 540 with a
 * back piece. The front's grain line crosses both lines, or (`apart`) stays below the knee line.
 */
export function referenceLineMarker(fill?: string, apart = false): Piece[] {
  const tl: Pt = [120, 60];
  const bl: Pt = [80, 700];
  const across = (y: number): [Pt, Pt] => [
    [xAt(tl, bl, y), y],
    [540, y],
  ];
  return [
    {
      outline: [tl, [540, 60], [540, 700], bl],
      fill,
      marks: marks(
        label('前片', 200, 120),
        lines(across(250), across(480)),
        apart ? grain(330, 520, 680) : grain(330, 180, 680),
      ),
    },
    {
      outline: [
        [540, 60],
        [900, 60],
        [860, 700],
        [540, 700],
      ],
      fill,
      marks: marks(label('后片', 620, 120), grain(720, 300, 650)),
    },
  ];
}

/**
 * A skirt panel with a wide dart from its waist (120 wide, 120 deep: its mouth is 31 % of its boundary), beside a
 * yoke nested in a notch of a back panel (the yoke runs along the back on three sides, 3/4 of its boundary).
 */
export function wideDartMarker(fill?: string): Piece[] {
  return [
    {
      outline: [
        [100, 60],
        [500, 60],
        [540, 700],
        [60, 700],
      ],
      fill,
      marks: marks(
        label('前裙片', 160, 300),
        grain(300, 400, 650),
        lines(
          [
            [240, 60],
            [300, 180],
          ],
          [
            [300, 180],
            [360, 60],
          ],
        ),
      ),
    },
    {
      outline: [
        [640, 60],
        [1140, 60],
        [1140, 700],
        [640, 700],
        [640, 360],
        [840, 360],
        [840, 200],
        [640, 200],
      ],
      fill,
      marks: marks(label('后裙片', 900, 300), grain(1000, 400, 650)),
    },
    {
      outline: [
        [640, 200],
        [840, 200],
        [840, 360],
        [640, 360],
      ],
      fill,
      marks: label('育克', 680, 240),
    },
  ];
}

/**
 * Two plain waistbands side by side sharing their long cut line y = 220, neither labelled; or (`pencil`) one band
 * with a line drawn along its middle in a fine grey pencil, a fold line: one piece.
 */
export function bandsMarker(fill?: string, pencil = false): Piece[] {
  const band = (y0: number, y1: number): Piece => ({
    outline: [
      [100, y0],
      [1000, y0],
      [1000, y1],
      [100, y1],
    ],
    fill,
  });
  if (!pencil) return [band(100, 220), band(220, 340)];
  const fold = (g: SKRSContext2D) => {
    g.save();
    g.strokeStyle = '#8c8c8c';
    g.lineWidth = 1;
    lines([
      [100, 220],
      [1000, 220],
    ])(g);
    g.restore();
  };
  return [{ ...band(100, 340), marks: fold }];
}

/** A drill hole or a button mark centred on (x, y), `d` across: a filled dot, a ring, or a cross. */
export type PointMark = 'dot' | 'ring' | 'cross' | 'x';

export const point = (kind: PointMark, x: number, y: number, d: number) => (g: SKRSContext2D) => {
  g.beginPath();
  if (kind === 'dot') {
    g.arc(x, y, d / 2, 0, 2 * Math.PI);
    g.fill();
    return;
  }
  if (kind === 'ring') {
    g.arc(x, y, d / 2 - g.lineWidth / 2, 0, 2 * Math.PI);
  } else if (kind === 'x') {
    const r = d / 2 / Math.SQRT2;
    g.moveTo(x - r, y - r);
    g.lineTo(x + r, y + r);
    g.moveTo(x - r, y + r);
    g.lineTo(x + r, y - r);
  } else {
    g.moveTo(x - d / 2, y);
    g.lineTo(x + d / 2, y);
    g.moveTo(x, y - d / 2);
    g.lineTo(x, y + d / 2);
  }
  g.stroke();
};

/** A label in the bundled font at `px` pixels, without the grain stroke `label` draws under it. */
export const text = (words: string, x: number, y: number, px: number) => (g: SKRSContext2D) => {
  g.font = font(px);
  g.fillText(words, x, y);
};

/**
 * A trouser front cut by a hip line drawn edge to edge in the outline's pen, sharing its side seam x = 540 with a
 * back piece: `above` marks the front's part above the hip line (its label), `below` the part under it.
 */
export function hipMarker(
  above: (g: SKRSContext2D) => void,
  below: ((g: SKRSContext2D) => void) | undefined,
  fill?: string,
): Piece[] {
  const tl: Pt = [120, 60];
  const bl: Pt = [80, 700];
  return [
    {
      outline: [tl, [540, 60], [540, 700], bl],
      fill,
      marks: marks(
        above,
        lines([
          [xAt(tl, bl, 250), 250],
          [540, 250],
        ]),
        ...(below ? [below] : []),
      ),
    },
    {
      outline: [
        [540, 60],
        [900, 60],
        [860, 700],
        [540, 700],
      ],
      fill,
      marks: marks(label('后片', 620, 120), grain(720, 300, 650)),
    },
  ];
}

/**
 * A waistband folded along its middle (a fine grey fold line), button marks on both halves and nothing else: an
 * unlabelled piece, whole.
 */
export function buttonBandMarker(kind: PointMark, d: number, fill?: string): Piece[] {
  const fold = (g: SKRSContext2D) => {
    g.save();
    g.strokeStyle = '#8c8c8c';
    g.lineWidth = 1;
    lines([
      [100, 300],
      [1000, 300],
    ])(g);
    g.restore();
  };
  const row = (y: number) => [250, 450, 650, 850].map((x) => point(kind, x, y, d));
  return [
    {
      outline: [
        [100, 180],
        [1000, 180],
        [1000, 420],
        [100, 420],
      ],
      fill,
      marks: marks(fold, ...row(240), ...row(360)),
    },
  ];
}

/** A skirt panel with nothing drawn inside but a wide dart from its waist (120 wide, 120 deep): one piece. */
export function plainDartMarker(fill?: string): Piece[] {
  const dart = lines(
    [
      [240, 60],
      [300, 180],
    ],
    [
      [300, 180],
      [360, 60],
    ],
  );
  return [{ ...wideDartMarker(fill)[0]!, marks: dart }];
}

/** The split layers over the marker's page, each tinted its own colour, as a PNG to look at. */
export async function tinted(rasters: readonly Raster[]): Promise<Buffer> {
  const out = Buffer.alloc(W * H * 4, 255);
  rasters.forEach((r, k) => {
    const hue = (k * 137) % 360;
    const c = createCanvas(1, 1).getContext('2d');
    c.fillStyle = `hsl(${hue} 80% 50%)`;
    c.fillRect(0, 0, 1, 1);
    const [tr, tg, tb] = c.getImageData(0, 0, 1, 1).data;
    for (let v = 0; v < r.h; v++) {
      for (let u = 0; u < r.w; u++) {
        const i = (v * r.w + u) * 4;
        const x = r.x + u;
        const y = r.y + v;
        if (r.data[i + 3]! < 128 || x < 0 || y < 0 || x >= W || y >= H) continue;
        const o = (y * W + x) * 4;
        // The piece's own drawing darkens its tint: the lines stay readable.
        const l = (r.data[i]! + r.data[i + 1]! + r.data[i + 2]!) / 765;
        out[o] = Math.round(((out[o]! + tr!) / 2) * l);
        out[o + 1] = Math.round(((out[o + 1]! + tg!) / 2) * l);
        out[o + 2] = Math.round(((out[o + 2]! + tb!) / 2) * l);
      }
    }
  });
  return sharp(out, { raw: { width: W, height: H, channels: 4 } })
    .png()
    .toBuffer();
}

/**
 * Unlabelled pieces that a dart's rule must leave apart: a yoke nested in a notch of a back panel (blunt, not a
 * wedge), and two triangles sharing their long side (wedges, neither in a notch of the other).
 */
export function unlabelledNestMarker(fill?: string): Piece[] {
  const [, back, yoke] = wideDartMarker(fill);
  return [
    { ...back!, marks: undefined },
    { ...yoke!, marks: undefined },
    {
      outline: [
        [100, 100],
        [500, 100],
        [100, 700],
      ],
      fill,
    },
    {
      outline: [
        [500, 100],
        [500, 700],
        [100, 700],
      ],
      fill,
    },
  ];
}
