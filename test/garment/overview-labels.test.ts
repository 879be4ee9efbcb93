/**
 * The identify_pieces overview reads like a pattern CAD printout: every label at LABEL_MIN px or more on the
 * delivered image, inside its piece, or, for a piece too small to hold it, a lettered badge on the piece and a
 * legend entry; no two texts overlapping. Checked on FreeSewing markers at the studio's small DPIs (a blazer with
 * welts, jets and pockets; the five-piece T-shirt) and on the delivered PNG's pixels.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Raster, Rect } from '../../src/engine/model.js';
import { drawOverview, LABEL_MIN, type OverviewLayout } from '../../src/garment/preview.js';
import { PART_LABELS, type PieceInfo, type PieceShape } from '../../src/garment/types.js';
import { newSession, ok } from '../support/session.js';
import { loadFixtures, marker, openMarker } from './freesewing-fixtures.js';

/** The label identify_pieces gives a piece (tools/garment.ts, partCaption and the layer's name). */
const labelOf = (p: PieceShape) => {
  const q = p as PieceInfo;
  return `${PART_LABELS[q.part]}${q.doubt ? '？' : ''}${q.grain ? `（转 ${q.grain.turn}°）` : ''}\n${q.name}`;
};

const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Extent (px) of dark ink in `box` of `img` across the text's lines: rows, or columns for text turned on its side. */
function inkExtent(img: Raster, box: Rect, turned: boolean): number {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let y = box.y; y < box.y + box.h; y++) {
    for (let x = box.x; x < box.x + box.w; x++) {
      const o = (y * img.w + x) * 4;
      if (Math.max(img.data[o]!, img.data[o + 1]!, img.data[o + 2]!) >= 90) continue;
      const v = turned ? x : y;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return hi >= lo ? hi - lo + 1 : 0;
}

async function identified(id: string, dpi: number) {
  const session = newSession();
  const g = loadFixtures().garments.find((x) => x.id === id)!;
  await openMarker(session, marker(g, 'none', dpi / 25.4, 10), id);
  const found = await ok(session, 'identify_pieces');
  const png = Buffer.from((found.images as { base64: string }[])[0]!.base64, 'base64');
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const delivered: Raster = { x: 0, y: 0, w: info.width, h: info.height, data: new Uint8ClampedArray(data) };
  const state = session.editor.begin().activeDocument().state;
  const pieces = session.garment.analysis!.pieces;
  const drawn = await drawOverview(state, pieces, labelOf, (p) => (p as PieceInfo).doubt !== undefined);
  return { delivered, ...drawn };
}

/** The checks every overview passes. */
function checkReadable(
  delivered: Raster,
  raster: Raster,
  layout: OverviewLayout,
  pieces: readonly PieceShape[],
  origin: Rect,
): void {
  // What identify_pieces delivered is this drawing, at the size it was laid out for (not scaled down).
  expect([delivered.w, delivered.h]).toEqual([layout.width, layout.height]);
  expect(Buffer.from(delivered.data).equals(Buffer.from(raster.data))).toBe(true);

  // Each piece has exactly one label or one badge, and each badge one legend entry.
  const named = [...layout.labels.map((l) => l.piece), ...layout.badges.map((b) => b.piece)].sort(
    (a, b) => a - b,
  );
  expect(named).toEqual(pieces.map((_, i) => i));
  expect(layout.legend.map((e) => [e.key, e.piece])).toEqual(layout.badges.map((b) => [b.key, b.piece]));
  expect(new Set(layout.badges.map((b) => b.key)).size).toBe(layout.badges.length);

  for (const l of layout.labels) {
    expect(l.size).toBeGreaterThanOrEqual(LABEL_MIN);
    // Wholly inside its piece.
    const p = pieces[l.piece]!;
    let outside = 0;
    for (let y = l.box.y; y < l.box.y + l.box.h; y++) {
      for (let x = l.box.x; x < l.box.x + l.box.w; x++) {
        const u = x + origin.x - p.bounds.x;
        const v = y + origin.y - p.bounds.y;
        if (u < 0 || v < 0 || u >= p.bounds.w || v >= p.bounds.h || !p.mask[v * p.bounds.w + u]) outside++;
      }
    }
    expect(outside, `label of ${p.name} crosses its outline`).toBe(0);
    // The delivered pixels: dark ink at least 0.8 em of LABEL_MIN tall (CJK ink is about 0.9 em).
    expect(inkExtent(delivered, l.box, l.turned), `label of ${p.name}`).toBeGreaterThanOrEqual(
      0.8 * LABEL_MIN,
    );
  }
  for (const b of [...layout.badges, ...layout.legend]) {
    expect(b.size).toBeGreaterThanOrEqual(LABEL_MIN);
    // A capital letter's ink is about 0.7 em.
    expect(inkExtent(delivered, b.box, false), `badge ${b.key}`).toBeGreaterThanOrEqual(0.6 * LABEL_MIN);
  }
  // The legend lies beside or below the drawing, inside the image.
  for (const e of layout.legend) {
    expect(e.box.x >= origin.w || e.box.y >= origin.h).toBe(true);
    expect(e.box.x + e.box.w).toBeLessThanOrEqual(layout.width);
    expect(e.box.y + e.box.h).toBeLessThanOrEqual(layout.height);
  }
  // No two texts overlap.
  const boxes = [...layout.labels, ...layout.badges, ...layout.legend].map((t) => t.box);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i]!, boxes[j]!)).toBe(false);
  }
}

describe('identify_pieces overview labels', () => {
  it('a blazer marker at 13 DPI: labels ≥ LABEL_MIN inside their pieces, small pieces badged with a legend', async () => {
    const { delivered, raster, layout, pieces, origin } = await identified('blazer-M', 13);
    expect(pieces.length).toBe(26);
    checkReadable(delivered, raster, layout, pieces, origin);
    // The body panels and sleeves hold their labels; the welts and pocket bags cannot and are badged in
    // reading order (rows top to bottom, each left to right) with a legend beside the tall drawing.
    expect(layout.labels.length).toBeGreaterThanOrEqual(12);
    expect(layout.badges.length).toBeGreaterThan(0);
    expect(layout.badges.map((b) => b.key)).toEqual(layout.badges.map((_, n) => String.fromCharCode(65 + n)));
    expect(layout.width).toBeGreaterThan(origin.w);
  }, 120_000);

  it('the five-piece T-shirt at 30 DPI: every label in its piece, no legend', async () => {
    const { delivered, raster, layout, pieces, origin } = await identified('tshirt-M', 30);
    expect(pieces.length).toBe(5);
    checkReadable(delivered, raster, layout, pieces, origin);
    expect(layout.badges).toEqual([]);
    expect([layout.width, layout.height]).toEqual([origin.w, origin.h]);
    // The body panels' and sleeves' labels large enough to read on the chat card (about a third of the width).
    const big = layout.labels.filter((l) => (pieces[l.piece] as PieceInfo).part !== 'collar');
    expect(big.length).toBe(4);
    for (const l of big) expect(l.size * (330 / layout.width)).toBeGreaterThanOrEqual(9);
  }, 120_000);
});
