/**
 * Whole-document geometry: changing the canvas (resize_canvas, crop_document, trim_document) and resampling
 * the image (resize_image). Canvas changes are pure state operations that move layers by changing their
 * positions only; a layer's buffer is copied only when its pixels must be cut (a crop) or it is the background
 * (which Photoshop keeps exactly canvas-sized and opaque).
 */
import { reframedChannels, resizedChannels } from './channels.js';
import { checkCanvasSize } from './document-limits.js';
import { WHITE } from './factory.js';
import type { DocState, FillLayer, Guide, Layer, LayerMask, Mask, Raster, Rect, RGB } from './model.js';
import {
  allocPixels,
  alphaBounds,
  cropMask,
  EMPTY_RECT,
  emptyRaster,
  intersectRect,
  isEmptyRect,
  solidRaster,
  trimRaster,
} from './raster.js';
import { cropSelection, translateSelection, uniformInside } from './selection.js';
import { renderSmart, scaleSmart } from './smart.js';
import { isUniformScale, renderTextSpec, scaleTextSpec, transformTextSpec } from './text.js';
import { scaleMask, scaleRaster } from './transform.js';

/** Photoshop's default background colour, which fills new canvas on the background layer. */
export const BACKGROUND_COLOR: RGB = WHITE;

/** Whether `layer` is Photoshop's background layer (a fill or pixel layer flagged `background`). */
function shifted<T extends Rect>(r: T, dx: number, dy: number): T {
  return dx === 0 && dy === 0 ? r : { ...r, x: r.x + dx, y: r.y + dy };
}

/** Moves one layer's own content (not its children) by whole pixels; no pixel is copied. */
function shiftLayer(layer: Layer, dx: number, dy: number): Layer {
  if (dx === 0 && dy === 0) return layer;
  const mask = layer.mask ? { mask: shifted(layer.mask, dx, dy) } : {};
  switch (layer.kind) {
    case 'pixel':
      return { ...layer, ...mask, raster: shifted(layer.raster, dx, dy) };
    case 'text':
      return {
        ...layer,
        ...mask,
        raster: shifted(layer.raster, dx, dy),
        text: { ...layer.text, x: layer.text.x + dx, y: layer.text.y + dy },
      };
    case 'smart':
      return {
        ...layer,
        ...mask,
        raster: shifted(layer.raster, dx, dy),
        transform: { ...layer.transform, cx: layer.transform.cx + dx, cy: layer.transform.cy + dy },
      };
    case 'fill':
    case 'adjustment':
    case 'group':
      return { ...layer, ...mask };
  }
}

/** A raster's pixels inside `rect`, trimmed to what is not transparent (the same object when nothing is cut). */
function cropPixels(r: Raster, rect: Rect): Raster {
  if (isEmptyRect(r)) return r;
  const common = intersectRect(r, rect);
  if (isEmptyRect(common)) return emptyRaster();
  if (common.x === r.x && common.y === r.y && common.w === r.w && common.h === r.h) return r;
  const out = allocPixels(common.w * common.h * 4);
  for (let row = 0; row < common.h; row++) {
    const s = ((common.y + row - r.y) * r.w + (common.x - r.x)) * 4;
    out.set(r.data.subarray(s, s + common.w * 4), row * common.w * 4);
  }
  return trimRaster({ ...common, data: out });
}

/**
 * A background raster made exactly canvas-sized: its pixels inside the canvas are kept, canvas that lay outside
 * the old canvas (`oldCanvas`, in new coordinates) gets the background colour, as Photoshop's Canvas Size does.
 */
function backgroundRaster(r: Raster, canvas: Rect, oldCanvas: Rect, color: RGB): Raster {
  if (r.x === canvas.x && r.y === canvas.y && r.w === canvas.w && r.h === canvas.h) return r;
  const data = allocPixels(canvas.w * canvas.h * 4);
  const kept = intersectRect(oldCanvas, canvas);
  for (let y = 0; y < canvas.h; y++) {
    const inOldRow = y >= kept.y && y < kept.y + kept.h;
    for (let x = 0; x < canvas.w; x++) {
      if (inOldRow && x >= kept.x && x < kept.x + kept.w) continue;
      const i = (y * canvas.w + x) * 4;
      data[i] = color.r;
      data[i + 1] = color.g;
      data[i + 2] = color.b;
      data[i + 3] = 255;
    }
  }
  const common = intersectRect(r, canvas);
  for (let row = 0; row < common.h; row++) {
    const s = ((common.y + row - r.y) * r.w + (common.x - r.x)) * 4;
    data.set(r.data.subarray(s, s + common.w * 4), ((common.y + row) * canvas.w + common.x) * 4);
  }
  return { ...canvas, data };
}

/**
 * A background held as one flat colour, on the new canvas: the colour stays lazy while it still covers the whole
 * canvas as a pixel background would (the canvas only shrank, or new canvas gets that very colour); otherwise it
 * becomes the canvas-sized pixel background that a painted one would be, so the result does not depend on how the
 * background came to be flat.
 */
function reframedFillBackground(layer: FillLayer, canvas: Rect, oldCanvas: Rect, color: RGB): Layer {
  const kept = intersectRect(oldCanvas, canvas);
  const shrunk = kept.w === canvas.w && kept.h === canvas.h;
  const { r, g, b } = layer.color;
  if (shrunk || (r === color.r && g === color.g && b === color.b)) return layer;
  const { kind: _kind, color: flat, ...base } = layer;
  const raster = solidRaster(canvas, color);
  const row = new Uint8ClampedArray(kept.w * 4);
  for (let i = 0; i < row.length; i += 4) row.set([flat.r, flat.g, flat.b, 255], i);
  for (let y = kept.y; y < kept.y + kept.h; y++) raster.data.set(row, (y * canvas.w + kept.x) * 4);
  return { ...base, kind: 'pixel', raster };
}

export type ReframeMode =
  /** Canvas Size: layers keep pixels beyond the canvas (PSD stores them); only the background is cut. */
  | 'extend'
  /** Crop with "Delete Cropped Pixels": pixel layers and masks lose what lies outside the new canvas. */
  | 'crop';

/**
 * The document with its canvas changed to `frame`, given in the current document coordinates (it may reach
 * beyond the canvas on any side). Every layer moves by `-frame.x, -frame.y`; the background is cut to the new
 * canvas and its new area filled with the background colour (a lazy fill background stays a fill while that
 * changes nothing). Other fill layers cover any canvas, as Photoshop's infinite fill layers do. Text and
 * smart objects are never cut (Photoshop keeps them whole on a crop). The pixel selection moves and is cut to the
 * canvas; guides move and those beyond the canvas are dropped.
 */
export function reframeCanvas(state: DocState, frame: Rect, mode: ReframeMode): DocState {
  checkCanvasSize(frame.w, frame.h, '调整后的画布');
  const dx = -frame.x;
  const dy = -frame.y;
  const canvas: Rect = { x: 0, y: 0, w: frame.w, h: frame.h };
  const oldCanvas: Rect = { x: dx, y: dy, w: state.width, h: state.height };
  const layers = new Map<number, Layer>();
  for (const [id, layer] of state.layers) {
    let next = shiftLayer(layer, dx, dy);
    if (next.kind === 'pixel' && next.background) {
      next = { ...next, raster: backgroundRaster(next.raster, canvas, oldCanvas, BACKGROUND_COLOR) };
    } else if (next.kind === 'fill' && next.background) {
      next = reframedFillBackground(next, canvas, oldCanvas, BACKGROUND_COLOR);
    } else if (mode === 'crop') {
      if (next.kind === 'pixel') next = { ...next, raster: cropPixels(next.raster, canvas) };
      if (next.mask) next = { ...next, mask: cropMask(next.mask, canvas) };
    }
    layers.set(id, next);
  }
  let selection: Mask | null = null;
  if (state.selection) {
    const moved = cropSelection(translateSelection(state.selection, dx, dy), canvas);
    const uniform = uniformInside(moved);
    const empty =
      isEmptyRect(moved) || (uniform !== undefined ? uniform === 0 : !moved.data.some((v) => v !== 0));
    selection = empty && moved.outside === 0 ? null : moved;
  }
  const guides = state.guides
    .map((g): Guide => ({ ...g, position: g.position + (g.direction === 'vertical' ? dx : dy) }))
    .filter((g) => g.position >= 0 && g.position <= (g.direction === 'vertical' ? canvas.w : canvas.h));
  const channels = state.channels && reframedChannels(state.channels, state.width, state.height, frame);
  return {
    ...state,
    width: frame.w,
    height: frame.h,
    layers,
    selection,
    guides,
    ...(channels ? { channels } : {}),
  };
}

export type Anchor =
  | 'top-left'
  | 'top'
  | 'top-right'
  | 'left'
  | 'center'
  | 'right'
  | 'bottom-left'
  | 'bottom'
  | 'bottom-right';

/**
 * Where the old canvas goes on a `width × height` canvas anchored at `anchor`: the frame to give
 * `reframeCanvas`. An odd difference puts the extra pixel on the right / bottom, growing or shrinking.
 */
export function anchorFrame(state: DocState, width: number, height: number, anchor: Anchor): Rect {
  const fx = anchor.endsWith('left') ? 0 : anchor.endsWith('right') ? 1 : 0.5;
  const fy = anchor.startsWith('top') ? 0 : anchor.startsWith('bottom') ? 1 : 0.5;
  const offset = (diff: number, f: number) => (f === 0.5 ? Math.trunc(diff / 2) : f * diff);
  const ox = offset(width - state.width, fx);
  const oy = offset(height - state.height, fy);
  return { x: -ox, y: -oy, w: width, h: height };
}

/* ---------------------------------------------------------------------------------------------------------- */
/* trim                                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

export type TrimType = 'transparent' | 'topleft';

/**
 * The box Trim keeps, in the raster's document coordinates: pixels with alpha > 0 (`transparent`), or pixels
 * whose RGBA differs from the top-left pixel (`topleft`). Empty when nothing would be left.
 */
export function trimBox(image: Raster, type: TrimType): Rect {
  if (isEmptyRect(image)) return EMPTY_RECT;
  if (type === 'transparent') return alphaBounds(image);
  const d = image.data;
  const [r0, g0, b0, a0] = [d[0], d[1], d[2], d[3]];
  const differs = (i: number) => d[i] !== r0 || d[i + 1] !== g0 || d[i + 2] !== b0 || d[i + 3] !== a0;
  let minX = image.w;
  let minY = image.h;
  let maxX = -1;
  let maxY = -1;
  for (let y = 0; y < image.h; y++) {
    const row = y * image.w * 4;
    let first = -1;
    for (let x = 0; x < image.w; x++) {
      if (differs(row + x * 4)) {
        first = x;
        break;
      }
    }
    if (first < 0) continue;
    let last = first;
    for (let x = image.w - 1; x > first; x--) {
      if (differs(row + x * 4)) {
        last = x;
        break;
      }
    }
    if (first < minX) minX = first;
    if (last > maxX) maxX = last;
    if (y < minY) minY = y;
    maxY = y;
  }
  if (maxX < 0) return EMPTY_RECT;
  return { x: image.x + minX, y: image.y + minY, w: maxX - minX + 1, h: maxY - minY + 1 };
}

/* ---------------------------------------------------------------------------------------------------------- */
/* resize_image                                                                                               */
/* ---------------------------------------------------------------------------------------------------------- */

const ORIGIN = { x: 0, y: 0 } as const;

export interface ResizedImage {
  readonly state: DocState;
  /** Chinese notes for the result (e.g. a turned smart object scaled along its own axes). */
  readonly warnings: string[];
}

/**
 * Image Size: the document resampled to `width × height` about the origin. Rasters, masks and the selection are
 * resampled with lanczos3 (transform.ts), positions and guides scale, text specs scale their position and size
 * and are re-rendered (text.ts; a non-uniform resize stretches the rendered pixels instead, with a warning),
 * smart objects scale their transform and are re-rendered from their source (smart.ts), layer styles scale
 * (Photoshop's "Scale Styles"). The resolution is kept unless `dpi` is given. Fill layers (the lazy background)
 * stay fills.
 */
export async function resizeImage(
  state: DocState,
  width: number,
  height: number,
  dpi?: number,
): Promise<ResizedImage> {
  checkCanvasSize(width, height, '调整后的图像');
  const sx = width / state.width;
  const sy = height / state.height;
  const s = Math.sqrt(sx * sy);
  const warnings: string[] = [];
  const layers = new Map<number, Layer>();
  const place = <T extends Rect>(r: T): T => ({
    ...r,
    x: Math.round(r.x * sx) + 0,
    y: Math.round(r.y * sy) + 0,
  });
  for (const [id, layer] of state.layers) {
    let next: Layer = layer;
    switch (layer.kind) {
      case 'pixel':
        next = {
          ...layer,
          raster: isEmptyRect(layer.raster)
            ? place(layer.raster)
            : await scaleRaster(layer.raster, sx, sy, ORIGIN),
        };
        break;
      case 'text': {
        // Re-rendered, so the glyphs stay sharp and match what a later edit renders: a uniform scale changes
        // the font size, a stretch goes into the text's transform (still editable, as in Photoshop).
        const spec = isUniformScale(sx, sy)
          ? scaleTextSpec(layer.text, sx, sy, ORIGIN)
          : transformTextSpec(layer.text, [sx, 0, 0, sy], ORIGIN);
        const { text, raster } = renderTextSpec(spec);
        next = { ...layer, text, raster };
        break;
      }
      case 'smart': {
        const { transform, alongObjectAxes } = scaleSmart(layer.transform, sx, sy, ORIGIN);
        if (alongObjectAxes) {
          warnings.push(`智能对象“${layer.name}”有旋转，不等比缩放沿其自身方向进行`);
        }
        next = { ...layer, transform, raster: await renderSmart(layer.source, transform) };
        break;
      }
      case 'fill':
      case 'group':
        break;
    }
    if (layer.mask) {
      next = {
        ...next,
        mask: isEmptyRect(layer.mask)
          ? place(layer.mask)
          : await scaleMask<LayerMask>(layer.mask, sx, sy, ORIGIN),
      };
    }
    if (layer.effects) {
      const { stroke, dropShadow } = layer.effects;
      next = {
        ...next,
        effects: {
          ...(stroke ? { stroke: { ...stroke, size: Math.max(1, Math.round(stroke.size * s)) } } : {}),
          ...(dropShadow
            ? { dropShadow: { ...dropShadow, distance: dropShadow.distance * s, size: dropShadow.size * s } }
            : {}),
        },
      };
    }
    layers.set(id, next);
  }
  let selection: Mask | null = null;
  if (state.selection) {
    selection = isEmptyRect(state.selection)
      ? place(state.selection)
      : await scaleMask(state.selection, sx, sy, ORIGIN);
  }
  const guides = state.guides.map(
    (g): Guide => ({ ...g, position: g.position * (g.direction === 'vertical' ? sx : sy) }),
  );
  const channels =
    state.channels && (await resizedChannels(state.channels, state.width, state.height, width, height));
  return {
    state: {
      ...state,
      width,
      height,
      dpi: dpi ?? state.dpi,
      layers,
      selection,
      guides,
      ...(channels ? { channels } : {}),
    },
    warnings,
  };
}
