/**
 * The labelled set for verify_pattern_result: the synthetic T-shirt pieces at any DPI, the workflow run as a
 * user runs it, and deliberately wrong applications made the way a user could end up with them — by editing
 * the applied document (a print layer replaced, scaled, rotated, moved or hidden) or by applying the wrong way.
 */
import type { Session } from '../../src/calls/session.js';
import { pixelLayer } from '../../src/engine/factory.js';
import type { DocState, Layer, PixelLayer, Raster } from '../../src/engine/model.js';
import { allocateId, childrenOf, insertLayer } from '../../src/engine/tree.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { fillRaster } from '../../src/garment/render.js';
import type { Extraction, Placement } from '../../src/garment/types.js';
import {
  DOC,
  garmentPhoto,
  NAMES,
  type PhotoKind,
  PIECES,
  type PieceKey,
  scaledPieceRaster,
  usePhoto,
} from '../support/garment-fixtures.js';
import { newSession, ok } from '../support/session.js';

export const KEYS = ['front', 'back', 'left', 'right', 'collar'] as const satisfies readonly PieceKey[];
const NAME = NAMES.zh;

/** The pieces document at `dpi` (the fixture's geometry scaled from its 150 DPI). */
export async function piecesAt(session: Session, dpi: number): Promise<void> {
  const k = dpi / DOC.dpi;
  await ok(session, 'create_document', {
    width: Math.round(DOC.width * k),
    height: Math.round(DOC.height * k),
    resolution: dpi,
    name: '裁片',
  });
  const tx = session.editor.begin();
  const doc = tx.activeDocument();
  let state = doc.state;
  for (const key of KEYS) {
    const p = PIECES[key];
    const raster = scaledPieceRaster(key, k, k, Math.round(p.x * k), Math.round(p.y * k));
    const [id, next] = allocateId(state);
    state = insertLayer(next, pixelLayer(id, NAME[key], raster), null, childrenOf(next, null).length);
  }
  tx.update(doc.id, state);
  session.editor.commit(tx, 'fixture', true);
}

export interface Applied {
  readonly session: Session;
  readonly proposed: { name: string; type: string; color?: string }[];
}

/**
 * identify → preview → apply as proposed, on the pieces at `dpi` with the photo `kind`; `misread` multiplies
 * the preview's document ↔ photo scale before applying (the photo read at the wrong scale, as a failed garment
 * outline does: the print then comes out consistently at the wrong size).
 */
export async function appliedFlow(
  kind: PhotoKind,
  dpi: number,
  skip: readonly string[] = [],
  misread = 1,
): Promise<Applied> {
  const session = newSession();
  await piecesAt(session, dpi);
  await usePhoto(session, kind);
  await ok(session, 'identify_pieces');
  const preview = await ok(session, 'generate_garment_preview');
  if (misread !== 1) {
    const g = session.garment;
    const placement = { ...g.preview!.placement, scale: g.preview!.placement.scale * misread };
    session.garment = { ...g, preview: { ...g.preview!, placement } };
  }
  const proposed = preview.proposed_pieces as Applied['proposed'];
  await ok(session, 'extract_and_apply_all_pieces', {
    pieces: proposed.filter((p) => !skip.includes(p.name)),
  });
  return { session, proposed };
}

export async function score(
  session: Session,
): Promise<{ score: number; suggestions: string[]; measures: unknown }> {
  const v = await ok(session, 'verify_pattern_result');
  return { score: v.score as number, suggestions: v.suggestions as string[], measures: v.measures };
}

function layerNamed(s: DocState, name: string): PixelLayer {
  const l = [...s.layers.values()].find((x: Layer) => x.name === name);
  if (l?.kind !== 'pixel') throw new Error(`no pixel layer ${name}`);
  return l;
}

/** Edits the active document's layers as one history step (what a user's edits amount to). */
export function edit(
  session: Session,
  change: (s: DocState, ext: Extraction, pl: Placement) => DocState,
): void {
  const tx = session.editor.begin();
  const doc = tx.activeDocument();
  const g = session.garment;
  tx.update(doc.id, change(doc.state, g.extraction!, g.applied!.placement));
  session.editor.commit(tx, 'edit', true);
}

function withRaster(s: DocState, name: string, raster: (l: PixelLayer) => Raster): DocState {
  const l = layerNamed(s, name);
  const layers = new Map(s.layers);
  layers.set(l.id, { ...l, raster: raster(l) });
  return { ...s, layers };
}

function withLayer(s: DocState, name: string, patch: Partial<PixelLayer>): DocState {
  const l = layerNamed(s, name);
  const layers = new Map(s.layers);
  layers.set(l.id, { ...l, ...patch } as PixelLayer);
  return { ...s, layers };
}

/** The print layers of the pieces (a fill's `满印`; a theme's `底色`). */
export function printLayers(s: DocState): string[] {
  return [...s.layers.values()].filter((l) => / (满印|底色)$/.test(l.name)).map((l) => l.name);
}

/** The fill of every piece redrawn with the placement changed (a rescaled or moved print). */
export function refill(session: Session, plOf: (pl: Placement, layer: PixelLayer) => Placement): void {
  edit(session, (s, ext, pl) => {
    let out = s;
    for (const name of printLayers(s).filter((n) => n.endsWith('满印'))) {
      out = withRaster(out, name, (l) => fillRaster(ext, plOf(pl, l), l.raster, null, pieceIdOf(s, name)));
    }
    return out;
  });
}

function pieceIdOf(s: DocState, printName: string): number {
  return layerNamed(s, printName.replace(/ (满印|底色|主题图案)$/, '')).id;
}

/** Every fill rotated 90° about its layer's centre (the print turned on the piece). */
export function rotateFills(session: Session): void {
  edit(session, (s, ext, pl) => {
    let out = s;
    for (const name of printLayers(s).filter((n) => n.endsWith('满印'))) {
      out = withRaster(out, name, (l) => {
        const r = l.raster;
        const side = Math.max(r.w, r.h);
        const sq = fillRaster(ext, pl, { x: r.x, y: r.y, w: side, h: side }, null, pieceIdOf(s, name));
        const data = new Uint8ClampedArray(r.w * r.h * 4);
        for (let y = 0; y < r.h; y++) {
          for (let x = 0; x < r.w; x++) {
            const o = (x * side + (side - 1 - y)) * 4;
            data.set(sq.data.subarray(o, o + 4), (y * r.w + x) * 4);
          }
        }
        return { ...r, data };
      });
    }
    return out;
  });
}

/** The right sleeve's print drawn in its own place instead of as its partner's mirror image. */
export function unmirrorSleeve(session: Session): void {
  edit(session, (s, ext, pl) => {
    const name = `${NAME.right} 满印`;
    return withRaster(s, name, (l) => fillRaster(ext, pl, l.raster, null, null));
  });
}

/** The back's print moved down by `fraction` of a repeat, half by default (the side seams no longer meet). */
export function breakSeam(session: Session, fraction = 0.5, backName: string = NAME.back): void {
  edit(session, (s, ext, pl) => {
    const back = pieceIdOf(s, `${backName} 满印`);
    const half = ext.lattice!.tileH * pl.scale * fraction;
    // The main front has no shift of its own: it keeps the placement.
    const own = pl.shifts.find((sh) => sh.layerId === back) ?? { layerId: back, dx: 0, dy: 0 };
    const shifts = [...pl.shifts.filter((sh) => sh.layerId !== back), { ...own, dy: own.dy + half }];
    return withRaster(s, `${backName} 满印`, (l) => fillRaster(ext, { ...pl, shifts }, l.raster, null, back));
  });
}

/** Every print layer's colours turned (R, G, B) → (B, R, G): the same print in the wrong colours. */
export function recolour(session: Session): void {
  edit(session, (s) => {
    let out = s;
    for (const name of printLayers(s)) {
      out = withRaster(out, name, (l) => {
        const data = new Uint8ClampedArray(l.raster.data);
        for (let i = 0; i < data.length; i += 4) {
          const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
          data[i] = b;
          data[i + 1] = r;
          data[i + 2] = g;
        }
        return { ...l.raster, data };
      });
    }
    return out;
  });
}

/** Every print layer replaced by the print read from another photo (a wrong print, correctly applied). */
export async function replacePrint(session: Session, other: PhotoKind): Promise<void> {
  const ext = await analysePhoto(await garmentPhoto(other), `${other}.png`, other);
  edit(session, (s, _ext, pl) => {
    let out = s;
    for (const name of printLayers(s)) {
      out = withRaster(out, name, (l) => fillRaster(ext, { ...pl, shifts: [] }, l.raster, null, null));
    }
    return out;
  });
}

/** A layer hidden (an unfilled piece, a motif gone). */
export function hide(session: Session, name: string): void {
  edit(session, (s) => withLayer(s, name, { visible: false }));
}

export { NAME };

/**
 * How much a print layer's pixels change across (between columns) and down (between rows), opaque pixels only,
 * over R, G and B: horizontal stripes change down, not across; streaks (an edge pixel stretched) neither across.
 */
export function printChanges(r: PixelLayer['raster']): { down: number; across: number } {
  let down = 0;
  let across = 0;
  for (let y = 1; y < r.h; y++) {
    for (let x = 1; x < r.w; x++) {
      const o = (y * r.w + x) * 4;
      if (!r.data[o + 3] || !r.data[o - 4 + 3] || !r.data[o - r.w * 4 + 3]) continue;
      for (let k = 0; k < 3; k++) {
        down += Math.abs(r.data[o + k]! - r.data[o - r.w * 4 + k]!);
        across += Math.abs(r.data[o + k]! - r.data[o - 4 + k]!);
      }
    }
  }
  return { down, across };
}
