/**
 * A Photoshop vector mask as pixels. The engine keeps raster layer masks only, so a file's vector mask becomes
 * one (what the layer shows is kept; the editable path is not): the path components are drawn by Skia
 * (@napi-rs/canvas) with their fill rule and combined in order with their boolean operations, as Photoshop's
 * path operations do (combine, subtract, intersect, exclude overlapping).
 */
import { createCanvas, Path2D, type SKRSContext2D } from '@napi-rs/canvas';
import type { BezierPath, LayerVectorMask } from 'ag-psd';
import type { LayerMask, Raster, Rect, RGB } from '../model.js';
import { allocMask, allocPixels, EMPTY_RECT, intersectRect, maskAt, unionRect } from '../raster.js';

/** How a component joins what the components before it made. */
const COMPOSITE: Record<NonNullable<BezierPath['operation']>, GlobalCompositeOperation> = {
  combine: 'source-over',
  subtract: 'destination-out',
  intersect: 'destination-in',
  exclude: 'xor',
};

type GlobalCompositeOperation = SKRSContext2D['globalCompositeOperation'];

/**
 * One component as a canvas path, in `rect`'s coordinates. A knot's points are the control point before its
 * anchor, the anchor, and the control point after it (document pixels, as ag-psd reads them).
 */
function componentPath(c: BezierPath, rect: Rect): Path2D {
  const path = new Path2D();
  const k = c.knots;
  if (!k.length) return path;
  const at = (i: number, j: number) => [k[i]!.points[j]! - rect.x, k[i]!.points[j + 1]! - rect.y] as const;
  path.moveTo(...at(0, 2));
  const segments = c.open ? k.length - 1 : k.length;
  for (let i = 0; i < segments; i++) {
    const next = (i + 1) % k.length;
    path.bezierCurveTo(...at(i, 4), ...at(next, 0), ...at(next, 2));
  }
  if (!c.open) path.closePath();
  return path;
}

/** The mask's values (0 hidden … 255 shown) over `rect`, row by row. */
export function vectorMaskValues(vm: LayerVectorMask, rect: Rect): Uint8Array {
  const out = allocMask(rect.w * rect.h);
  if (rect.w <= 0 || rect.h <= 0) return out;
  const canvas = createCanvas(rect.w, rect.h);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  if (vm.fillStartsWithAllPixels) ctx.fillRect(0, 0, rect.w, rect.h);
  const layer = createCanvas(rect.w, rect.h);
  const lctx = layer.getContext('2d');
  lctx.fillStyle = '#fff';
  for (const c of vm.paths) {
    // An open component encloses nothing in Photoshop's fill.
    if (c.open) continue;
    const path = componentPath(c, rect);
    const rule = c.fillRule === 'even-odd' ? 'evenodd' : 'nonzero';
    const op = c.operation ?? 'combine';
    if (op === 'combine') {
      ctx.globalCompositeOperation = 'source-over';
      ctx.fill(path, rule);
      continue;
    }
    // The other operations act on the component as a whole: drawn alone, then composited.
    lctx.clearRect(0, 0, rect.w, rect.h);
    lctx.fill(path, rule);
    ctx.globalCompositeOperation = COMPOSITE[op];
    ctx.drawImage(layer, 0, 0);
  }
  const rgba = ctx.getImageData(0, 0, rect.w, rect.h).data;
  for (let i = 0; i < out.length; i++) out[i] = vm.invert ? 255 - rgba[i * 4 + 3]! : rgba[i * 4 + 3]!;
  return out;
}

/** The bounds of a mask's closed components (their control points hold the curves), whole pixels. */
function pathBounds(vm: LayerVectorMask): Rect | null {
  let x0 = Number.POSITIVE_INFINITY;
  let y0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  let y1 = Number.NEGATIVE_INFINITY;
  for (const c of vm.paths) {
    if (c.open) continue;
    for (const k of c.knots) {
      for (let j = 0; j < 6; j += 2) {
        x0 = Math.min(x0, k.points[j]!);
        x1 = Math.max(x1, k.points[j]!);
        y0 = Math.min(y0, k.points[j + 1]!);
        y1 = Math.max(y1, k.points[j + 1]!);
      }
    }
  }
  if (!Number.isFinite(x0)) return null;
  const x = Math.floor(x0);
  const y = Math.floor(y0);
  return { x, y, w: Math.ceil(x1) - x + 1, h: Math.ceil(y1) - y + 1 };
}

/**
 * The layer mask a layer with this vector mask has in the engine: the vector mask drawn over its paths' bounds
 * (within the canvas), times the layer's own raster mask when it has one (Photoshop applies both).
 */
export function withVectorMask(
  vm: LayerVectorMask,
  canvas: { width: number; height: number },
  raster: LayerMask | undefined,
): LayerMask {
  // Beyond the paths the mask is what the fill starts with (all or nothing), inverted when the mask is.
  const beyond: 0 | 255 = !!vm.fillStartsWithAllPixels !== !!vm.invert ? 255 : 0;
  const page = { x: 0, y: 0, w: canvas.width, h: canvas.height };
  const own = pathBounds(vm);
  const drawn = own ? intersectRect(own, page) : EMPTY_RECT;
  const values = vectorMaskValues(vm, drawn);
  if (!raster?.enabled) return { ...drawn, data: values, outside: beyond, enabled: true };
  // Both masks: their product, over the union of where either is not constant.
  const rect = intersectRect(unionRect(drawn, raster), page);
  const data = allocMask(rect.w * rect.h);
  const vectorAt = (x: number, y: number) =>
    x < drawn.x || y < drawn.y || x >= drawn.x + drawn.w || y >= drawn.y + drawn.h
      ? beyond
      : values[(y - drawn.y) * drawn.w + (x - drawn.x)]!;
  for (let y = 0; y < rect.h; y++) {
    for (let x = 0; x < rect.w; x++) {
      const X = rect.x + x;
      const Y = rect.y + y;
      data[y * rect.w + x] = Math.round((vectorAt(X, Y) * maskAt(raster, X, Y)) / 255);
    }
  }
  const outside: 0 | 255 = beyond === 255 && raster.outside === 255 ? 255 : 0;
  return { ...rect, data, outside, enabled: true };
}

/** A colour shape layer drawn from its path: the colour where the vector mask shows, over the path's bounds. */
export function shapeRaster(
  vm: LayerVectorMask,
  color: RGB,
  canvas: { width: number; height: number },
): Raster {
  const own = pathBounds(vm);
  if (!own || vm.invert || vm.fillStartsWithAllPixels) {
    // The shape reaches beyond its paths: drawn over the whole canvas.
    return coloured(vm, color, { x: 0, y: 0, w: canvas.width, h: canvas.height });
  }
  return coloured(vm, color, intersectRect(own, { x: 0, y: 0, w: canvas.width, h: canvas.height }));
}

function coloured(vm: LayerVectorMask, color: RGB, rect: Rect): Raster {
  const alpha = vectorMaskValues(vm, rect);
  const data = allocPixels(rect.w * rect.h * 4);
  for (let i = 0; i < alpha.length; i++) {
    data[i * 4] = color.r;
    data[i * 4 + 1] = color.g;
    data[i * 4 + 2] = color.b;
    data[i * 4 + 3] = alpha[i]!;
  }
  return { ...rect, data };
}
