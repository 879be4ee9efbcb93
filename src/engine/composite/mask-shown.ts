/**
 * A layer mask as Photoshop draws it: with the density and feather of its Properties panel applied. The mask's
 * own pixels stay as painted (editing, saving and the mask's thumbnail use them); the compositor and the effects
 * draw through this one, made once per mask and kept while the mask object lives.
 */
import { FEATHER_SIGMA_PER_RADIUS } from '../feather.js';
import type { DocState, Layer, LayerMask, Rect } from '../model.js';
import { growRect, maskAt, unionRect } from '../raster.js';
import { boxBlur3, gaussBoxRadii } from './distance.js';

type Size = Pick<DocState, 'width' | 'height'>;

const shown = new WeakMap<LayerMask, { cover: Rect; canvas: Size; mask: LayerMask }>();

/**
 * The enabled mask of `layer` as drawn, covering at least `cover` (where the layer can have pixels); or null.
 * The canvas's edge is not an edge of the mask: a feather repeats the mask's values there, as the selection's
 * feather does (a mask painted white to the canvas's border does not darken along it).
 */
export function shownMask(layer: Layer, cover: Rect, canvas: Size): LayerMask | null {
  const mask = layer.mask?.enabled ? layer.mask : null;
  if (!mask) return null;
  const density = mask.density ?? 1;
  const feather = mask.feather ?? 0;
  if (density >= 1 && !(feather > 0)) return mask;
  const kept = shown.get(mask);
  const same = kept && kept.canvas.width === canvas.width && kept.canvas.height === canvas.height;
  if (kept && same && contains(kept.cover, cover)) return kept.mask;
  // A feather reaches a margin past the mask's rectangle. Past that a mask is its `outside` value, which a density
  // changes only when it hides (0): then the mask drawn also covers wherever the layer can have pixels, so that
  // nothing drawn reads the value beyond it. Otherwise it stays the size of the mask, whatever the canvas.
  let area = growRect(mask, featherMargin(feather));
  let covers: Rect = INFINITE;
  if (density < 1 && mask.outside === 0) {
    area = unionRect(area, kept && same ? unionRect(cover, kept.cover) : cover);
    covers = area;
  }
  const made = drawnMask(mask, area, density, feather, canvas);
  shown.set(mask, { cover: covers, canvas, mask: made });
  return made;
}

const INFINITE: Rect = { x: -(2 ** 40), y: -(2 ** 40), w: 2 ** 41, h: 2 ** 41 };

/** How far past its rectangle a mask's feather reaches (the blur's support, with a pixel to spare). */
function featherMargin(feather: number): number {
  return feather > 0 ? Math.ceil(4 * feather * FEATHER_SIGMA_PER_RADIUS) + 2 : 0;
}

function contains(outer: Rect, inner: Rect): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.w <= outer.x + outer.w &&
    inner.y + inner.h <= outer.y + outer.h
  );
}

function drawnMask(mask: LayerMask, area: Rect, density: number, feather: number, canvas: Size): LayerMask {
  const data = new Uint8Array(area.w * area.h);
  const lost = 255 * (1 - density);
  const outside = Math.round(lost + density * mask.outside) >= 128 ? 255 : 0;
  if (!(feather > 0)) {
    for (let y = 0; y < area.h; y++) {
      for (let x = 0; x < area.w; x++) {
        data[y * area.w + x] = Math.round(lost + density * maskAt(mask, area.x + x, area.y + y));
      }
    }
    return { ...area, data, outside, enabled: true };
  }
  // The blur reads a margin beyond the area; past the plane it would read zero, so the plane starts that far out.
  const margin = featherMargin(feather);
  const w = area.w + 2 * margin;
  const h = area.h + 2 * margin;
  const plane = new Float32Array(w * h);
  const clamp = (v: number, size: number) => (size > 0 ? Math.min(size - 1, Math.max(0, v)) : v);
  for (let y = 0; y < h; y++) {
    const my = clamp(area.y - margin + y, canvas.height);
    for (let x = 0; x < w; x++) plane[y * w + x] = maskAt(mask, clamp(area.x - margin + x, canvas.width), my);
  }
  // Hand-written rather than sharp's blur: compositing is synchronous. Three box passes approximate the Gaussian
  // as the drop shadow's do.
  boxBlur3(plane, w, h, gaussBoxRadii(feather * FEATHER_SIGMA_PER_RADIUS));
  for (let y = 0; y < area.h; y++) {
    const row = (y + margin) * w + margin;
    for (let x = 0; x < area.w; x++) data[y * area.w + x] = Math.round(lost + density * plane[row + x]!);
  }
  return { ...area, data, outside, enabled: true };
}

/**
 * Where the enabled mask of `layer`, as drawn, can show anything: its rectangle (grown by a feather's reach) when
 * it hides everything beyond it, or null when it does not (no mask, a mask showing beyond its rectangle, a
 * density under 100 %).
 */
export function maskReach(layer: Layer): Rect | null {
  const mask = layer.mask;
  if (!mask?.enabled || mask.outside !== 0 || (mask.density ?? 1) < 1) return null;
  return growRect(mask, featherMargin(mask.feather ?? 0));
}
