/**
 * Pieces a marker lays down turned: identify_pieces reads how each body piece lies (upright.ts, piece-turn.ts),
 * the print is drawn as the piece stands on the garment and turned onto the marker, and verify measures it in
 * the same frame. The fixture T-shirt is laid out twice — upright, and with the front turned a quarter turn
 * clockwise, the back a quarter turn the other way and the left sleeve head to toe — and its front and back must
 * come out the same, pixel for pixel, and the sleeves still mirror each other.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import type { DocState, Layer, PixelLayer, Raster } from '../../src/engine/model.js';
import type { PieceInfo, Turn } from '../../src/garment/types.js';
import {
  frameOf,
  onMarker,
  toMarker,
  toUpright,
  uprightPiece,
  uprightRect,
  uprightView,
} from '../../src/garment/upright.js';
import { markerDocument, NAMES, type PieceKey, pieceRaster, usePhoto } from '../support/garment-fixtures.js';
import { newSession, ok, refused } from '../support/session.js';

const KEYS = ['front', 'back', 'left', 'right', 'collar'] as const satisfies readonly PieceKey[];
const NAME = NAMES.none;

/** `r` turned `q` quarter turns clockwise, its top-left at (x, y). */
function turned(r: Raster, q: number, x: number, y: number): Raster {
  const w = q % 2 ? r.h : r.w;
  const h = q % 2 ? r.w : r.h;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let v = 0; v < r.h; v++) {
    for (let u = 0; u < r.w; u++) {
      // Clockwise: (u, v) → (H − 1 − v, u), applied q times.
      let [i, j, W, H] = [u, v, r.w, r.h];
      for (let k = 0; k < q; k++) [i, j, W, H] = [H - 1 - j, i, H, W];
      data.set(r.data.subarray((v * r.w + u) * 4, (v * r.w + u) * 4 + 4), (j * w + i) * 4);
    }
  }
  return { x, y, w, h, data };
}

/** Where each piece lies on the turned marker, and how it is turned (the others as in the fixture). */
const LAYOUT: Readonly<Record<PieceKey, { q: number; x: number; y: number }>> = {
  front: { q: 1, x: 30, y: 30 },
  back: { q: 3, x: 510, y: 30 },
  left: { q: 2, x: 990, y: 30 },
  right: { q: 0, x: 1230, y: 30 },
  collar: { q: 0, x: 990, y: 260 },
};

/** The fixture's pieces (meaningless names), upright as drawn or laid down as LAYOUT turns them. */
async function marker(session: Session, laid: boolean): Promise<void> {
  const layers = KEYS.map((key) => {
    const r = pieceRaster(key);
    const at = LAYOUT[key];
    return { name: NAME[key], raster: laid ? turned(r, at.q, at.x, at.y) : r };
  });
  await markerDocument(session, { width: 1480, height: 520 }, layers);
}

function layerNamed(s: DocState, name: string): PixelLayer {
  const l = [...s.layers.values()].find((x: Layer) => x.name === name);
  if (l?.kind !== 'pixel') throw new Error(`no pixel layer ${name}`);
  return l;
}

const stateOf = (session: Session) => session.editor.begin().activeDocument().state;

interface PieceReport {
  readonly name: string;
  readonly part: string;
  readonly turn?: number;
  readonly turn_by?: string;
  readonly turn_confidence?: number;
}

async function applied(laid: boolean, photo: 'stripes' | 'star') {
  const session = newSession();
  await marker(session, laid);
  await usePhoto(session, photo);
  const id = await ok(session, 'identify_pieces');
  const preview = await ok(session, 'generate_garment_preview');
  await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
  const verdict = await ok(session, 'verify_pattern_result');
  return { session, pieces: id.pieces as PieceReport[], verdict };
}

describe('upright frames', () => {
  it('maps marker and upright pixels both ways, and turns a piece and its pixels back exactly', () => {
    for (const q of [1, 2, 3]) {
      const r = pieceRaster('left');
      const laid = turned(r, q, 17, 9);
      const mask = new Uint8Array(laid.w * laid.h);
      for (let i = 0; i < mask.length; i++) mask[i] = laid.data[i * 4 + 3]! >= 128 ? 1 : 0;
      const piece = {
        bounds: { x: laid.x, y: laid.y, w: laid.w, h: laid.h },
        mask,
        cx: laid.x + laid.w / 2,
        cy: laid.y + laid.h / 2,
        grain: { turn: (q * 90) as Turn, by: 'user', confidence: 1 },
      } as unknown as PieceInfo;
      const f = frameOf(piece);
      for (const [X, Y] of [
        [17, 9],
        [17 + laid.w - 1, 9 + laid.h - 1],
        [40, 30],
        [-5, 300],
      ] as const) {
        const [U, V] = toUpright(f, X, Y);
        expect(toMarker(f, U, V)).toEqual([X, Y]);
      }
      expect(uprightRect(f, piece.bounds)).toEqual(f.upright);
      // The piece turned upright is the drawn piece again, and so are its pixels.
      const up = uprightPiece(piece);
      const drawn = Uint8Array.from({ length: r.w * r.h }, (_, i) => (r.data[i * 4 + 3]! >= 128 ? 1 : 0));
      expect([up.bounds.w, up.bounds.h]).toEqual([r.w, r.h]);
      expect(Buffer.from(up.mask).equals(Buffer.from(drawn))).toBe(true);
      const view = uprightView(f, laid);
      expect(Buffer.from(view.data).equals(Buffer.from(r.data))).toBe(true);
      expect(Buffer.from(onMarker(f, view, piece.bounds).data).equals(Buffer.from(laid.data))).toBe(true);
    }
  });
});

describe('a marker with turned pieces', () => {
  it('reads how the front and back lie, and prints them as they stand on the garment, pixel for pixel', async () => {
    const upright = await applied(false, 'stripes');
    const laid = await applied(true, 'stripes');
    const byName = (ps: PieceReport[]) => Object.fromEntries(ps.map((p) => [p.name, p]));
    const u = byName(upright.pieces);
    const l = byName(laid.pieces);
    for (const key of KEYS) expect(l[NAME[key]]!.part, key).toBe(u[NAME[key]]!.part);
    expect(u[NAME.front]!.turn, 'an upright marker has no turns').toBeUndefined();
    expect(upright.pieces.every((p) => p.turn === undefined)).toBe(true);
    expect(l[NAME.front]).toMatchObject({ turn: 90, turn_by: 'shape' });
    expect(l[NAME.back]).toMatchObject({ turn: 270, turn_by: 'shape' });
    expect(l[NAME.left], 'a sleeve laid head to toe').toMatchObject({ turn: 180, turn_by: 'shape' });
    for (const key of ['right', 'collar'] as const) expect(l[NAME[key]]!.turn).toBeUndefined();

    // The front's and back's stripes, turned back upright, are the upright marker's: the placement is anchored
    // on the front and the back's print runs on from the front's, so neither depends on where the pieces lie.
    for (const key of ['front', 'back'] as const) {
      const want = layerNamed(stateOf(upright.session), `${NAME[key]} 满印`).raster;
      const got = layerNamed(stateOf(laid.session), `${NAME[key]} 满印`).raster;
      const q = LAYOUT[key].q;
      const back = turned(got, (4 - q) % 4, want.x, want.y);
      expect([back.w, back.h], key).toEqual([want.w, want.h]);
      expect(Buffer.from(back.data).equals(Buffer.from(want.data)), key).toBe(true);
    }
    // The right sleeve's print is still the mirror image of the left's as the two stand on the garment.
    const left = layerNamed(stateOf(laid.session), `${NAME.left} 满印`).raster;
    const upLeft = turned(left, 2, left.x, left.y);
    const right = layerNamed(stateOf(laid.session), `${NAME.right} 满印`).raster;
    expect([upLeft.w, upLeft.h]).toEqual([right.w, right.h]);
    let unlike = 0;
    for (let j = 0; j < right.h; j++) {
      for (let i = 0; i < right.w; i++) {
        const a = (j * right.w + i) * 4;
        const b = (j * right.w + (right.w - 1 - i)) * 4;
        if (Math.abs(right.data[a]! - upLeft.data[b]!) > 1) unlike++;
      }
    }
    expect(unlike, 'sleeve pixels that are not the mirror image').toBe(0);
    // verify measures each piece upright: the same result scores the same however the marker lays it.
    expect(Math.abs((laid.verdict.score as number) - (upright.verdict.score as number))).toBeLessThanOrEqual(
      0.5,
    );
    expect(laid.verdict.score as number).toBeGreaterThanOrEqual(8);

    // What a designer sees (kept for a look): the stripes run along the turned front and back.
    await ok(laid.session, 'save_document_as', { path: 'laid.png' });
    const out = join(import.meta.dirname, '../../test-artifacts/garment');
    mkdirSync(out, { recursive: true });
    copyFileSync(join(laid.session.workspace.root, 'laid.png'), join(out, 'turned-marker.png'));
  }, 240_000);

  it('places a motif on a turned front where it sits on the upright one', async () => {
    const upright = await applied(false, 'star');
    const laid = await applied(true, 'star');
    const front = laid.pieces.find((p) => p.name === NAME.front)!;
    expect(front.turn).toBe(90);
    const name = [...stateOf(upright.session).layers.values()].find((l) =>
      l.name.startsWith(`${NAME.front} 主题`),
    )?.name;
    expect(name, 'the front carries a motif layer').toBeDefined();
    const want = layerNamed(stateOf(upright.session), name!).raster;
    const got = layerNamed(stateOf(laid.session), name!).raster;
    const back = turned(got, 3, want.x, want.y);
    expect(Buffer.from(back.data).equals(Buffer.from(want.data))).toBe(true);
  }, 240_000);

  it('takes the turn a designer states, keeps it, and prints along it', async () => {
    const session = newSession();
    await marker(session, true);
    await usePhoto(session, 'stripes');
    await ok(session, 'identify_pieces');
    const frontOf = (r: Record<string, unknown>) =>
      (r.pieces as PieceReport[]).find((p) => p.name === NAME.front)!;
    /** Which way the front's stripes run on the canvas: the print changes along columns (rows) when they run across (down). */
    const stripes = async () => {
      const preview = await ok(session, 'generate_garment_preview');
      await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
      const r = layerNamed(stateOf(session), `${NAME.front} 满印`).raster;
      let down = 0;
      let across = 0;
      for (let y = 1; y < r.h; y++) {
        for (let x = 1; x < r.w; x++) {
          const o = (y * r.w + x) * 4;
          down += Math.abs(r.data[o]! - r.data[o - r.w * 4]!);
          across += Math.abs(r.data[o]! - r.data[o - 4]!);
        }
      }
      return down > 4 * across ? 'across' : across > 4 * down ? 'down' : 'neither';
    };
    expect(await stripes(), 'read by shape: the front lies sideways').toBe('down');
    // Said upright (the designer's word over the shape's), kept by a later identify_pieces.
    const said = await ok(session, 'confirm_piece_parts', {
      pieces: [{ name: NAME.front, part: 'front', turn: 0 }],
    });
    expect(frontOf(said).turn).toBeUndefined();
    expect(frontOf(await ok(session, 'identify_pieces')).turn).toBeUndefined();
    expect(await stripes()).toBe('across');
    // A half turn, which the shape library does not read, is the designer's to state; confirming the part again
    // without a turn keeps it.
    await ok(session, 'confirm_piece_parts', { pieces: [{ name: NAME.front, part: 'front', turn: 270 }] });
    const kept = await ok(session, 'confirm_piece_parts', { pieces: [{ name: NAME.front, part: 'front' }] });
    expect(frontOf(kept)).toMatchObject({ turn: 270, turn_by: 'user' });
    expect(await stripes()).toBe('down');
    const cleared = await ok(session, 'confirm_piece_parts', { pieces: [] });
    expect(frontOf(cleared)).toMatchObject({ turn: 90, turn_by: 'shape' });

    await refused(
      session,
      'confirm_piece_parts',
      { pieces: [{ name: NAME.back, part: 'back', turn: 45 }] },
      'invalid_arguments',
    );
  }, 240_000);
});
