/** Hand-built documents for the compositor tests. */
import type {
  BlendMode,
  DocState,
  FillLayer,
  GroupLayer,
  Layer,
  LayerMask,
  PixelLayer,
  Raster,
  Rect,
  RGB,
} from '../../../src/engine/model.js';

export type Px = readonly [number, number, number, number];

interface Common {
  name?: string;
  visible?: boolean;
  opacity?: number;
  blend?: BlendMode;
  clipped?: boolean;
  mask?: LayerMask;
}

function base(id: number, o: Common) {
  return {
    id,
    name: o.name ?? `图层 ${id}`,
    visible: o.visible ?? true,
    opacity: o.opacity ?? 1,
    blend: o.blend ?? 'normal',
    clipped: o.clipped ?? false,
    locks: { all: false, pixels: false, position: false, transparency: false },
    ...(o.mask ? { mask: o.mask } : {}),
  };
}

export function pixel(id: number, raster: Raster, o: Common = {}): PixelLayer {
  return { ...base(id, o), kind: 'pixel', raster };
}

export function fill(id: number, color: RGB, o: Common = {}): FillLayer {
  return { ...base(id, o), kind: 'fill', color };
}

export function group(id: number, children: number[], o: Common = {}): GroupLayer {
  return { ...base(id, { blend: 'pass through', ...o }), kind: 'group', children, open: true };
}

/** A document with `root` (bottom → top) and every layer, nested ones included, in `layers`. */
export function doc(width: number, height: number, layers: Layer[], root: number[]): DocState {
  return {
    width,
    height,
    dpi: 72,
    mode: 'rgb',
    layers: new Map(layers.map((l) => [l.id, l])),
    root,
    active: null,
    selected: [],
    selection: null,
    guides: [],
    foreground: { r: 0, g: 0, b: 0 },
    nextId: Math.max(0, ...layers.map((l) => l.id)) + 1,
  };
}

/** A new state with `layer` replacing the one with its id; every other layer object is shared. */
export function withLayer(state: DocState, layer: Layer): DocState {
  const layers = new Map(state.layers);
  layers.set(layer.id, layer);
  return { ...state, layers };
}

export function rasterOf(r: Rect, f: (x: number, y: number) => Px): Raster {
  const data = new Uint8ClampedArray(r.w * r.h * 4);
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < r.w; x++) data.set(f(r.x + x, r.y + y), (y * r.w + x) * 4);
  }
  return { x: r.x, y: r.y, w: r.w, h: r.h, data };
}

export function solid(r: Rect, p: Px): Raster {
  return rasterOf(r, () => p);
}

export function maskOf(
  r: Rect,
  f: (x: number, y: number) => number,
  outside: 0 | 255 = 0,
  enabled = true,
): LayerMask {
  const data = new Uint8Array(r.w * r.h);
  for (let y = 0; y < r.h; y++) for (let x = 0; x < r.w; x++) data[y * r.w + x] = f(r.x + x, r.y + y);
  return { x: r.x, y: r.y, w: r.w, h: r.h, data, outside, enabled };
}

/** The pixel of `r` at document position (x, y). */
export function px(r: Raster, x: number, y: number): Px {
  const i = ((y - r.y) * r.w + (x - r.x)) * 4;
  return [r.data[i]!, r.data[i + 1]!, r.data[i + 2]!, r.data[i + 3]!];
}

/** The largest per-channel difference between two equally sized rasters. */
export function maxDiff(a: Raster, b: Raster): number {
  let m = 0;
  for (let i = 0; i < a.data.length; i++) m = Math.max(m, Math.abs(a.data[i]! - b.data[i]!));
  return m;
}
