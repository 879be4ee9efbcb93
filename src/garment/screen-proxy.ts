/**
 * A screen-size stand-in for a print-resolution marker: the piece layers alone, each resampled (libvips) by one
 * factor so that the pieces' union fits `maxSide`, with the pieces measured again on their resampled alpha and
 * the placement scaled to match. The chat's images (the piece overview, the print preview) are drawn on it,
 * never on a 9000 × 18000 px document that is shown at 1024 px anyway; layers other than the pieces (a
 * background, marker annotations) are left out of it, since the images show the pieces.
 */
import { pixelLayer } from '../engine/factory.js';
import type { DocState, Layer, Raster } from '../engine/model.js';
import { unionBounds } from './apply.js';
import { resizeRaster } from './image.js';
import type { PieceShape, Placement } from './types.js';

export interface ScreenProxy<T extends PieceShape> {
  readonly state: DocState;
  readonly pieces: T[];
  /** Proxy px per document px (1 when the document is already small enough). */
  readonly k: number;
}

/** The factor that fits the pieces' union into `maxSide` px, never enlarging. */
function proxyFactor(pieces: readonly PieceShape[], maxSide: number): number {
  const u = unionBounds(pieces);
  return Math.min(1, maxSide / Math.max(u.w, u.h, 1));
}

export function screenProxy<T extends PieceShape>(
  state: DocState,
  pieces: readonly T[],
  maxSide: number,
): Promise<ScreenProxy<T>> {
  return screenProxyAt(state, pieces, proxyFactor(pieces, maxSide));
}

/** The pieces resampled by `k` (at most 1), when what must fit is not their union on the marker. */
export async function screenProxyAt<T extends PieceShape>(
  state: DocState,
  pieces: readonly T[],
  k: number,
): Promise<ScreenProxy<T>> {
  if (k >= 1) return { state, pieces: [...pieces], k: 1 };
  const scaled = await Promise.all(pieces.map((p) => scaledRaster(p.raster, k)));
  const layers = new Map<number, Layer>();
  const small = pieces.map((p, i) => {
    const raster = scaled[i]!;
    const original = state.layers.get(p.layerId);
    layers.set(p.layerId, {
      ...pixelLayer(p.layerId, p.name, raster),
      ...(original ? { opacity: original.opacity, blend: original.blend } : {}),
    });
    return { ...p, raster, ...measured(raster) };
  });
  // The pieces in the document's stacking order (depth-first, bottom → top), all at the top level.
  const order = stackOrder(state).filter((id) => layers.has(id));
  return {
    state: {
      ...state,
      width: Math.max(1, Math.ceil(state.width * k)),
      height: Math.max(1, Math.ceil(state.height * k)),
      dpi: state.dpi * k,
      layers,
      root: order,
      active: null,
      selected: [],
      selection: null,
      guides: [],
    },
    pieces: small,
    k,
  };
}

/** The placement for a proxy of factor `k`: the same photo mapping in the proxy's pixels. */
export function proxyPlacement(pl: Placement, k: number): Placement {
  if (k === 1) return pl;
  return {
    ...pl,
    scale: pl.scale * k,
    docX: pl.docX * k,
    docY: pl.docY * k,
    shifts: pl.shifts.map((s) => ({ ...s, dx: s.dx * k, dy: s.dy * k })),
    ...(pl.centres ? { centres: pl.centres.map((c) => ({ ...c, x: c.x * k, y: c.y * k })) } : {}),
  };
}

/**
 * The last resampling of each piece raster (rasters are immutable): identify's overview and the preview draw
 * the same pieces at the same factor, and resampling a print-resolution piece is most of either image's cost.
 */
const resampled = new WeakMap<Raster, { k: number; out: Promise<Raster> }>();

function scaledRaster(r: Raster, k: number): Promise<Raster> {
  const kept = resampled.get(r);
  if (kept?.k === k) return kept.out;
  const out = resample(r, k);
  resampled.set(r, { k, out });
  // A failed resampling is not kept.
  out.catch(() => resampled.delete(r));
  return out;
}

/** `r` resampled by `k` about the document origin: its corners land on the nearest proxy pixels. */
async function resample(r: Raster, k: number): Promise<Raster> {
  const x0 = Math.round(r.x * k);
  const y0 = Math.round(r.y * k);
  const w = Math.max(1, Math.round((r.x + r.w) * k) - x0);
  const h = Math.max(1, Math.round((r.y + r.h) * k) - y0);
  const out = await resizeRaster(r, w, h);
  return { ...out, x: x0, y: y0 };
}

/** The shape fields that depend on pixels: bounds of alpha ≥ 128, its mask, area and centroid. */
function measured(r: Raster): Pick<PieceShape, 'bounds' | 'mask' | 'area' | 'cx' | 'cy'> {
  let x0 = r.w;
  let y0 = r.h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < r.w; x++) {
      if (r.data[(y * r.w + x) * 4 + 3]! < 128) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0)
    return { bounds: { x: r.x, y: r.y, w: 0, h: 0 }, mask: new Uint8Array(0), area: 0, cx: r.x, cy: r.y };
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const mask = new Uint8Array(w * h);
  let area = 0;
  let sx = 0;
  let sy = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (r.data[((y0 + y) * r.w + x0 + x) * 4 + 3]! < 128) continue;
      mask[y * w + x] = 1;
      area++;
      sx += x;
      sy += y;
    }
  }
  const bx = r.x + x0;
  const by = r.y + y0;
  return { bounds: { x: bx, y: by, w, h }, mask, area, cx: bx + sx / area + 0.5, cy: by + sy / area + 0.5 };
}

/** Every layer id of the document, depth-first, bottom → top. */
function stackOrder(state: DocState): number[] {
  const out: number[] = [];
  const walk = (ids: readonly number[]) => {
    for (const id of ids) {
      out.push(id);
      const l = state.layers.get(id);
      if (l?.kind === 'group') walk(l.children);
    }
  };
  walk(state.root);
  return out;
}
