/**
 * Pieces laid a few degrees askew (builtin/piece-tilt.ts, upright.ts). A marker nudged by hand tilts pieces off
 * the canvas's axes; the print must run along each piece, as it will on the sewn garment, not along the canvas.
 * The tilt is read from a symmetric piece's axis; nothing drawn upright may read as tilted (every FreeSewing and
 * drafted piece of the fixtures is checked), and the fixture T-shirt laid with its front and back askew comes out
 * with the stripes along them, as the upright marker has them along its pieces.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rasterisePiece } from '../../scripts/piece-raster.js';
import type { Session } from '../../src/calls/session.js';
import type { DocState, Layer, PixelLayer, Raster } from '../../src/engine/model.js';
import { rotateRaster } from '../../src/engine/transform.js';
import { proxyOf } from '../../src/garment/builtin/piece-features.js';
import { tiltOf } from '../../src/garment/builtin/piece-tilt.js';
import { mirrorIoU } from '../../src/garment/builtin/pieces.js';
import type { PieceInfo } from '../../src/garment/types.js';
import {
  frameOf,
  onMarker,
  toMarker,
  toUpright,
  uprightPiece,
  uprightView,
} from '../../src/garment/upright.js';
import { markerDocument, NAMES, type PieceKey, pieceRaster, usePhoto } from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';
import { loadFixtures } from './freesewing-fixtures.js';

const maskOf = (r: Raster) =>
  Uint8Array.from({ length: r.w * r.h }, (_, i) => (r.data[i * 4 + 3]! >= 128 ? 1 : 0));

/** The tilt read on a mask, as identify_pieces reads it (its symmetry about the canvas's vertical first). */
function tilt(mask: Uint8Array, w: number, h: number): number | null {
  const p = proxyOf(mask, w, h);
  return tiltOf(mask, w, h, mirrorIoU(p.data, p.w, p.h, p.data, p.w, p.h))?.deg ?? null;
}

/** A drafted outline turned `deg` clockwise (mm, y down, its bounds' top-left at 0, 0 again). */
function turnedOutline(poly: readonly (readonly [number, number])[], deg: number) {
  const r = (deg * Math.PI) / 180;
  const pts = poly.map(
    ([x, y]) => [Math.cos(r) * x - Math.sin(r) * y, Math.sin(r) * x + Math.cos(r) * y] as const,
  );
  const mx = Math.min(...pts.map((p) => p[0]));
  const my = Math.min(...pts.map((p) => p[1]));
  const out = pts.map(([x, y]) => [x - mx, y - my] as const);
  return {
    poly: out,
    widthMm: Math.max(...out.map((p) => p[0])),
    heightMm: Math.max(...out.map((p) => p[1])),
  };
}

describe('reading a tilt', () => {
  it('reads the fixture pieces turned by a few degrees to a tenth of a degree, and none upright', async () => {
    for (const key of ['front', 'back', 'collar'] as const) {
      const drawn = pieceRaster(key);
      expect(tilt(maskOf(drawn), drawn.w, drawn.h), key).toBeNull();
      for (const deg of [-7, -2, 3.3, 12, 94]) {
        const r = await rotateRaster(pieceRaster(key), deg, { x: 200, y: 200 });
        const read = tilt(maskOf(r), r.w, r.h);
        expect(read, `${key} at ${deg}°`).not.toBeNull();
        // A quarter turn and 4° is 4° off the canvas's horizontal.
        expect(Math.abs(read! - (deg > 45 ? deg - 90 : deg)), `${key} at ${deg}°`).toBeLessThan(0.1);
      }
    }
    // The fixture's sleeve is asymmetric (a slanted side, a sloped cap): no axis, so no tilt.
    const sleeve = await rotateRaster(pieceRaster('left'), 4, { x: 0, y: 0 });
    expect(tilt(maskOf(sleeve), sleeve.w, sleeve.h)).toBeNull();
  });

  it('reads no tilt on any drafted piece laid upright, and the right one on those it reads askew', () => {
    // One size of each design: its other sizes are the same outlines graded.
    const seen = new Set<string>();
    const garments = loadFixtures().garments.filter((g) => !seen.has(g.design) && seen.add(g.design));
    let upright = 0;
    let pieces = 0;
    const read: number[] = [];
    for (const g of garments) {
      for (const p of g.pieces) {
        pieces++;
        for (const turns of [0, 1]) {
          const r = rasterisePiece(p, 0.5, 10, turns, false);
          if (tilt(maskOf({ x: 0, y: 0, ...r }), r.w, r.h) !== null) upright++;
        }
        // Askew by 4°, at another resolution: a half, a gore or a two-piece sleeve (symmetric about no line,
        // or about a slanted one) reads nothing; a piece that reads a tilt reads this one.
        const r = rasterisePiece(turnedOutline(p.poly, 4), 1, 10, 0, false);
        const t = tilt(maskOf({ x: 0, y: 0, ...r }), r.w, r.h);
        if (t !== null) read.push(t);
      }
    }
    expect(upright, 'upright pieces read as askew').toBe(0);
    const wrong = read.filter((t) => Math.abs(t - 4) > 0.5);
    console.log(
      `tilt: ${pieces} pieces, none upright read askew; at 4° ${read.length} read (${Math.round((100 * read.length) / pieces)} %), ${wrong.length} off by more than 0.5°`,
    );
    expect(wrong).toEqual([]);
    expect(read.length, 'symmetric pieces read askew').toBeGreaterThan(pieces / 3);
  }, 60_000);
});

describe('the frame of a piece laid askew', () => {
  it('maps both ways, turns the piece upright and its pixels back onto the marker', async () => {
    const drawn = pieceRaster('front');
    const laid = await rotateRaster(drawn, 6, { x: 220, y: 250 });
    const mask = maskOf(laid);
    const piece = {
      bounds: { x: laid.x, y: laid.y, w: laid.w, h: laid.h },
      mask,
      cx: laid.x + laid.w / 2,
      cy: laid.y + laid.h / 2,
      tilt: tilt(mask, laid.w, laid.h)!,
    } as unknown as PieceInfo;
    expect(piece.tilt).toBeCloseTo(6, 1);
    const f = frameOf(piece);
    for (const [X, Y] of [
      [laid.x, laid.y],
      [laid.x + 100, laid.y + 300],
    ] as const) {
      const [U, V] = toUpright(f, X, Y);
      const [x, y] = toMarker(f, U, V);
      expect(Math.abs(x - X) + Math.abs(y - Y)).toBeLessThanOrEqual(1);
    }
    // Upright again, the piece is the drawn one (its outline within the two resamplings' pixel), both read from
    // their tight bounds' top-left.
    const up = uprightPiece(piece);
    const want = maskOf(drawn);
    const rows = [...Array(drawn.h).keys()].filter((v) =>
      want.subarray(v * drawn.w, (v + 1) * drawn.w).includes(1),
    );
    const top = rows[0]!;
    expect(Math.abs(up.bounds.w - drawn.w)).toBeLessThanOrEqual(2);
    expect(Math.abs(up.bounds.h - rows.length)).toBeLessThanOrEqual(2);
    expect(up.symmetry).toBeGreaterThan(0.97);
    let inter = 0;
    let union = 0;
    for (let v = 0; v < rows.length; v++) {
      for (let u = 0; u < drawn.w; u++) {
        const a = want[(v + top) * drawn.w + u]!;
        const b = u < up.bounds.w && v < up.bounds.h ? up.mask[v * up.bounds.w + u]! : 0;
        inter += a & b;
        union += a | b;
      }
    }
    expect(inter / union).toBeGreaterThan(0.97);
    // A canvas read upright and drawn back onto the marker keeps its pixels inside the piece (bilinear twice).
    const view = uprightView(f, laid);
    const back = onMarker(f, view, piece.bounds);
    let off = 0;
    let inside = 0;
    for (let i = 0; i < mask.length; i++) {
      if (laid.data[i * 4 + 3] !== 255) continue;
      inside++;
      if (Math.abs(back.data[i * 4]! - laid.data[i * 4]!) > 2 || back.data[i * 4 + 3]! < 250) off++;
    }
    expect(off / inside).toBeLessThan(0.02);
  });
});

const KEYS = ['front', 'back', 'left', 'right', 'collar'] as const satisfies readonly PieceKey[];
const NAME = NAMES.none;
/** How far each piece is laid askew (degrees clockwise); the sleeves have no axis to read and stay as drawn. */
const ASKEW: Readonly<Record<PieceKey, number>> = { front: -5, back: 4, left: 0, right: 0, collar: 3 };

async function marker(session: Session, askew: Readonly<Record<PieceKey, number>>): Promise<void> {
  const layers = [];
  for (const key of KEYS) {
    const r = pieceRaster(key);
    const moved = { ...r, y: r.y + 40 };
    // Turned about its own centre: the same place on the marker.
    const raster = askew[key] ? await rotateRaster(moved, askew[key], centre(moved)) : moved;
    layers.push({ name: NAME[key], raster });
  }
  await markerDocument(session, { width: 1400, height: 600 }, layers);
}

const centre = (r: Raster) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });

function layerNamed(s: DocState, name: string): PixelLayer {
  const l = [...s.layers.values()].find((x: Layer) => x.name === name);
  if (l?.kind !== 'pixel') throw new Error(`no pixel layer ${name}`);
  return l;
}

const stateOf = (session: Session) => session.editor.begin().activeDocument().state;

/**
 * How much the print's lightness varies along the piece's own rows (turned upright by `deg`, independently of
 * upright.ts: sharp's rotation) against how much it varies in all, inside the piece less a margin: near 0 when
 * horizontal stripes run along the piece, near 1 when they cross it.
 */
async function alongRows(print: Raster, piece: Raster, deg: number): Promise<number> {
  const up = await rotateRaster(print, -deg, centre(piece));
  const shape = await rotateRaster(piece, -deg, centre(piece));
  const lum = (r: Raster, i: number) => 0.3 * r.data[i]! + 0.59 * r.data[i + 1]! + 0.11 * r.data[i + 2]!;
  let within = 0;
  let count = 0;
  const all: number[] = [];
  for (let y = shape.y + 40; y < shape.y + shape.h - 40; y++) {
    const row: number[] = [];
    for (let x = shape.x + 40; x < shape.x + shape.w - 40; x++) {
      const s = ((y - shape.y) * shape.w + (x - shape.x)) * 4;
      const p = ((y - up.y) * up.w + (x - up.x)) * 4;
      if (x < up.x || y < up.y || x >= up.x + up.w || y >= up.y + up.h) continue;
      if (shape.data[s + 3] !== 255 || up.data[p + 3] !== 255) continue;
      row.push(lum(up, p));
    }
    if (row.length < 20) continue;
    const m = row.reduce((a, b) => a + b, 0) / row.length;
    within += row.reduce((a, b) => a + (b - m) ** 2, 0);
    count += row.length;
    all.push(...row);
  }
  const mean = all.reduce((a, b) => a + b, 0) / all.length;
  const total = all.reduce((a, b) => a + (b - mean) ** 2, 0);
  expect(count).toBeGreaterThan(10_000);
  return within / total;
}

describe('a marker with pieces laid askew', () => {
  it('reads how far each is tilted and prints the stripes along each piece', async () => {
    const session = newSession();
    await marker(session, ASKEW);
    await usePhoto(session, 'stripes');
    const id = await ok(session, 'identify_pieces');
    const pieces = Object.fromEntries(
      (id.pieces as { name: string; part: string; tilt?: number }[]).map((p) => [p.name, p]),
    );
    expect(pieces[NAME.front]).toMatchObject({ part: 'front' });
    expect(pieces[NAME.back]).toMatchObject({ part: 'back' });
    for (const key of KEYS) {
      const t = pieces[NAME[key]]!.tilt;
      if (ASKEW[key]) expect(Math.abs(t! - ASKEW[key]), key).toBeLessThanOrEqual(0.1);
      else expect(t, key).toBeUndefined();
    }
    const preview = await ok(session, 'generate_garment_preview');
    await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
    const verdict = await ok(session, 'verify_pattern_result');
    expect(verdict.score as number).toBeGreaterThanOrEqual(8);
    const state = stateOf(session);
    for (const key of ['front', 'back'] as const) {
      const piece = layerNamed(state, NAME[key]).raster;
      const print = layerNamed(state, `${NAME[key]} 满印`).raster;
      // The stripes run along the piece: turned upright, its rows are all but one colour each; read along the
      // canvas instead they cross it (the control: the same print read without turning it back).
      expect(await alongRows(print, piece, ASKEW[key]), key).toBeLessThan(0.1);
      expect(await alongRows(print, piece, 0), `${key}, read along the canvas`).toBeGreaterThan(0.3);
    }
    await ok(session, 'save_document_as', { path: 'askew.png' });
    const out = join(import.meta.dirname, '../../test-artifacts/garment');
    mkdirSync(out, { recursive: true });
    copyFileSync(join(session.workspace.root, 'askew.png'), join(out, 'askew-marker.png'));
  }, 240_000);
});

describe('a tilt the designer states', () => {
  it('prints along a piece whose tilt is not read, and along the canvas where the designer says it lies so', async () => {
    const session = newSession();
    // The left sleeve (asymmetric: no axis) laid 6° askew as well.
    await marker(session, { ...ASKEW, left: 6 });
    await usePhoto(session, 'stripes');
    type Report = { name: string; part: string; tilt?: number; tilt_by?: string };
    const byName = (r: Record<string, unknown>) =>
      Object.fromEntries((r.pieces as Report[]).map((p) => [p.name, p]));
    const id = byName(await ok(session, 'identify_pieces'));
    expect(id[NAME.left]!.tilt, 'the sleeve has no axis to read').toBeUndefined();
    expect(id[NAME.front]).toMatchObject({ tilt: -5, tilt_by: 'shape' });

    // Out of range: refused, and nothing kept.
    const refused = await session.call({
      name: 'confirm_piece_parts',
      arguments: { pieces: [{ name: NAME.left, part: id[NAME.left]!.part, tilt: 60 }] },
    });
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).toContain('tilt');
    expect(session.garment.confirmations ?? []).toEqual([]);

    const confirmed = byName(
      await ok(session, 'confirm_piece_parts', {
        pieces: [
          { name: NAME.left, part: id[NAME.left]!.part, tilt: 6 },
          // The designer says the front lies along the canvas after all.
          { name: NAME.front, part: 'front', tilt: 0 },
        ],
      }),
    );
    expect(confirmed[NAME.left]).toMatchObject({ tilt: 6, tilt_by: 'user' });
    expect(confirmed[NAME.front]).toMatchObject({ tilt: 0, tilt_by: 'user' });
    expect(confirmed[NAME.back]).toMatchObject({ tilt: 4, tilt_by: 'shape' });
    // Kept when the pieces are identified again, as a stated turn is.
    const again = byName(await ok(session, 'identify_pieces'));
    expect(again[NAME.left]).toMatchObject({ tilt: 6, tilt_by: 'user' });
    expect(again[NAME.front]).toMatchObject({ tilt: 0, tilt_by: 'user' });

    const preview = await ok(session, 'generate_garment_preview');
    await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
    const state = stateOf(session);
    const rows = async (key: PieceKey, deg: number) =>
      alongRows(layerNamed(state, `${NAME[key]} 满印`).raster, layerNamed(state, NAME[key]).raster, deg);
    // The sleeve's stripes run along it as stated; the front's along the canvas, as the designer said.
    expect(await rows('left', 6), 'sleeve, along its stated tilt').toBeLessThan(0.1);
    expect(await rows('left', 0), 'sleeve, along the canvas').toBeGreaterThan(0.3);
    expect(await rows('front', 0), 'front, along the canvas as stated').toBeLessThan(0.1);
    expect(await rows('back', 4), 'back, as read').toBeLessThan(0.1);
  }, 240_000);
});
