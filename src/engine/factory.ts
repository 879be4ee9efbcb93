/** New documents and layers with Photoshop's defaults. */
import { checkCanvasSize } from './document-limits.js';
import type { DocState, FillLayer, GroupLayer, Layer, Locks, PixelLayer, Raster, RGB } from './model.js';
import { emptyRaster } from './raster.js';

export const NO_LOCKS: Locks = Object.freeze({
  all: false,
  pixels: false,
  position: false,
  transparency: false,
});
export const WHITE: RGB = Object.freeze({ r: 255, g: 255, b: 255 });
export const BLACK: RGB = Object.freeze({ r: 0, g: 0, b: 0 });
export const BACKGROUND_NAME = '背景';

const base = { visible: true, opacity: 1, blend: 'normal', clipped: false, locks: NO_LOCKS } as const;

export function pixelLayer(id: number, name: string, raster: Raster = emptyRaster()): PixelLayer {
  return { ...base, id, name, kind: 'pixel', raster };
}

export function groupLayer(id: number, name: string, children: readonly number[] = []): GroupLayer {
  return { ...base, id, name, kind: 'group', blend: 'pass through', children, open: true };
}

/** Photoshop's background: an opaque white layer, stored as a colour until something paints it. */
export function backgroundLayer(id: number, color: RGB = WHITE): FillLayer {
  return { ...base, id, name: BACKGROUND_NAME, kind: 'fill', color, background: true };
}

/** Photoshop's background layer: the opaque bottom layer named 背景, fixed in place. */
export function isBackground(layer: Layer): boolean {
  return (layer.kind === 'pixel' || layer.kind === 'fill') && layer.background === true;
}

export function newDocument(width: number, height: number, dpi: number): DocState {
  checkCanvasSize(width, height, '新文档');
  const bg = backgroundLayer(1);
  return {
    width,
    height,
    dpi,
    mode: 'rgb',
    layers: new Map<number, Layer>([[bg.id, bg]]),
    root: [bg.id],
    active: bg.id,
    selected: [bg.id],
    selection: null,
    guides: [],
    foreground: BLACK,
    nextId: 2,
  };
}
