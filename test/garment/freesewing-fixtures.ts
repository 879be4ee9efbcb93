/**
 * Real cut pieces as editor documents: FreeSewing's seam lines (test/fixtures/freesewing/pieces.json, made by
 * scripts/gen-freesewing-fixtures.mjs) and our own drafts (drafted.json, scripts/draft-garments.mjs) rasterised with their seam allowance into pixel layers laid out like a
 * cutting marker — every cut copy present, the even copies of a piece mirrored (left/right), rows of pieces
 * across a 150 cm fabric width, layers stacked in a shuffled order.
 */
import { readFileSync } from 'node:fs';
import { type OutlineMm, rasterisePiece } from '../../scripts/piece-raster.js';
import type { Session } from '../../src/calls/session.js';
import { pixelLayer } from '../../src/engine/factory.js';
import type { PixelLayer, Raster } from '../../src/engine/model.js';
import { allocateId, childrenOf, insertLayer } from '../../src/engine/tree.js';
import type { Label } from '../../src/garment/builtin/piece-model.js';
import { measure } from '../../src/garment/builtin/pieces.js';
import type { PieceShape } from '../../src/garment/types.js';
import { rng } from '../support/rng.js';
import { ok } from '../support/session.js';

/** The ground truth: the classifier's label (either sleeve as 'sleeve'; left/right is checked apart). */
export type { Label };

export interface FsPiece {
  readonly name: string;
  readonly label: Label;
  readonly zh: string;
  readonly en: string;
  readonly cut: number;
  readonly onFold: boolean;
  readonly grainDeg: number | null;
  readonly widthMm: number;
  readonly heightMm: number;
  /** Seam line, mm, y down, top-left of its bounds at 0, 0. */
  readonly poly: readonly (readonly [number, number])[];
}

export interface FsGarment {
  readonly id: string;
  readonly design: string;
  readonly size: string;
  readonly set: 'freesewing' | 'drafted';
  readonly pieces: readonly FsPiece[];
}

export interface FsFixtures {
  readonly seamAllowanceMm: number;
  readonly versions: Readonly<Record<string, string>>;
  readonly garments: readonly FsGarment[];
}

export function loadFixtures(): FsFixtures {
  const [fs, ours] = ['pieces.json', 'drafted.json'].map(
    (f) =>
      JSON.parse(readFileSync(new URL(`../fixtures/freesewing/${f}`, import.meta.url), 'utf8')) as FsFixtures,
  );
  return { ...fs!, garments: [...fs!.garments, ...ours!.garments] };
}

export type Naming = 'none' | 'zh' | 'en';

export interface MarkerLayer {
  readonly name: string;
  readonly truth: Label;
  /** FreeSewing part and copy number (1-based), e.g. "simon.cuff#3". */
  readonly source: string;
  readonly mirrored: boolean;
  readonly raster: Raster;
}

export interface Marker {
  readonly width: number;
  readonly height: number;
  readonly dpi: number;
  readonly layers: readonly MarkerLayer[];
}

function seedOf(text: string): number {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.codePointAt(0)!, 16777619);
  return h >>> 0;
}

function shuffle<T>(items: T[], rnd: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** The piece's cut outline (seam line grown by the seam allowance, round joins) as a raster at `x, y`. */
function rasterise(
  p: FsPiece,
  pxPerMm: number,
  saMm: number,
  mirrored: boolean,
  x: number,
  y: number,
): Raster {
  return { x, y, ...rasterisePiece(p, pxPerMm, saMm, 0, mirrored) };
}

/**
 * The garment's marker at `pxPerMm`: each piece `cut` times (odd copies as drafted, even copies mirrored),
 * rows on a 150 cm wide fabric, tallest first; layers named meaninglessly ("图层 N", N shuffled) or with a
 * Chinese / English name (copies named "袖子 拷贝", "Sleeve copy 2"), stacked in a shuffled order.
 */
export function marker(g: FsGarment, naming: Naming, pxPerMm: number, saMm: number): Marker {
  const copies: { p: FsPiece; copy: number }[] = [];
  for (const p of g.pieces) for (let c = 1; c <= p.cut; c++) copies.push({ p, copy: c });
  const order = [...copies].sort((a, b) => b.p.heightMm - a.p.heightMm || a.p.name.localeCompare(b.p.name));
  const gap = 25;
  const fabric = Math.max(1500, ...g.pieces.map((p) => p.widthMm + 2 * saMm + 2 * gap));
  const placed: { p: FsPiece; copy: number; x: number; y: number }[] = [];
  let x = gap;
  let y = gap;
  let rowH = 0;
  for (const c of order) {
    const w = c.p.widthMm + 2 * saMm;
    if (x + w + gap > fabric) {
      x = gap;
      y += rowH + gap;
      rowH = 0;
    }
    placed.push({ ...c, x, y });
    x += w + gap;
    rowH = Math.max(rowH, c.p.heightMm + 2 * saMm);
  }
  const heightMm = y + rowH + gap;
  const rnd = rng(seedOf(`${g.id}/${naming}`));
  const stack = shuffle([...placed], rnd);
  const numbers = shuffle(
    stack.map((_, i) => i + 1),
    rnd,
  );
  const layers = stack.map((c, i) => {
    const base = naming === 'zh' ? c.p.zh : c.p.en;
    // Copies named as Photoshop names duplicated layers: "袖子 拷贝", "袖子 拷贝 2" / "Sleeve copy 2".
    const dup = naming === 'zh' ? '拷贝' : 'copy';
    const name =
      naming === 'none'
        ? `图层 ${numbers[i]}`
        : c.copy === 1
          ? base
          : `${base} ${dup}${c.copy > 2 ? ` ${c.copy - 1}` : ''}`;
    const mirrored = c.copy % 2 === 0;
    return {
      name,
      truth: c.p.label,
      source: `${c.p.name}#${c.copy}`,
      mirrored,
      raster: rasterise(c.p, pxPerMm, saMm, mirrored, Math.round(c.x * pxPerMm), Math.round(c.y * pxPerMm)),
    };
  });
  return {
    width: Math.ceil(fabric * pxPerMm),
    height: Math.ceil(heightMm * pxPerMm),
    dpi: Math.round(pxPerMm * 25.4),
    layers,
  };
}

/** Opens the marker as a new document of `session` (pixel layers bottom → top in the marker's stack order). */
export async function openMarker(session: Session, m: Marker, name: string): Promise<void> {
  await ok(session, 'create_document', { width: m.width, height: m.height, resolution: m.dpi, name });
  const tx = session.editor.begin();
  const doc = tx.activeDocument();
  let state = doc.state;
  for (const l of m.layers) {
    const [id, next] = allocateId(state);
    state = insertLayer(next, pixelLayer(id, l.name, l.raster), null, childrenOf(next, null).length);
  }
  tx.update(doc.id, state);
  session.editor.commit(tx, 'fixture', true);
}

/** One drafted piece as identify_pieces measures a layer of it (its mask over tight bounds), as a marker lays it. */
export function measuredPiece(
  p: OutlineMm,
  pxPerMm: number,
  saMm: number,
  turns: number,
  mirrored: boolean,
): PieceShape {
  const r = rasterisePiece(p, pxPerMm, saMm, turns, mirrored);
  const layer = {
    kind: 'pixel',
    id: 1,
    name: '图层 1',
    raster: { x: 0, y: 0, ...r },
  } as unknown as PixelLayer;
  return measure(layer)!;
}
