/**
 * A layer's thumbnail, as the layers panel shows it: its own pixels cropped to where they are (Photoshop's
 * "layer bounds" thumbnails, so a small cut piece on a large marker is seen whole and large, not as a speck), or
 * a fill layer's colour. A group and a text layer have none: the panel shows their glyph, as Photoshop does.
 * Mask, effects, opacity and blend mode are not applied: the thumbnail is the layer's content, the canvas the result.
 * A layer's mask has a thumbnail of its own, beside it as in Photoshop: white where it shows the layer, black where
 * it hides it, over the whole canvas.
 */
import { randomBytes } from 'node:crypto';
import { fail } from '../engine/errors.js';
import type { Layer, LayerMask, Raster } from '../engine/model.js';
import sharp from '../engine/sharp.js';
import type { Rendered } from './render.js';
import type { Session } from './session.js';

/** The largest thumbnail served, px: a layers panel shows them a few dozen CSS px wide. */
export const THUMBNAIL_MAX = 256;

/** What a thumbnail shows: the layer's own pixels, or its mask. */
export type ThumbnailOf = 'pixels' | 'mask';

/**
 * Layers are immutable: a new raster object is new pixels. Each raster (a fill layer: each colour) gets a serial
 * the first time it is seen, and the process a tag of its own, so a key never names two different contents, not
 * even across a restart of the session's thread, and a client may keep a thumbnail for as long as its key holds.
 */
const serials = new WeakMap<Raster | LayerMask, number>();
let lastSerial = 0;
const PROCESS_TAG = randomBytes(4).toString('hex');

function serialOf(raster: Raster | LayerMask): number {
  let s = serials.get(raster);
  if (s === undefined) {
    s = ++lastSerial;
    serials.set(raster, s);
  }
  return s;
}

/**
 * What the layer's thumbnail is a function of, as a short string that changes when it does; undefined for a
 * layer without one. Properties (name, visibility, opacity) keep it: they change the row, not the picture.
 */
export function thumbnailKey(layer: Layer, width: number, height: number): string | undefined {
  switch (layer.kind) {
    case 'pixel':
    case 'smart':
      return `${PROCESS_TAG}.${serialOf(layer.raster)}.${width}x${height}`;
    case 'fill':
      return `${PROCESS_TAG}.c${layer.color.r}-${layer.color.g}-${layer.color.b}.${width}x${height}`;
    default:
      return undefined;
  }
}

/** The key of the layer's mask thumbnail (as thumbnailKey), undefined for a layer without a mask. */
export function maskThumbnailKey(layer: Layer, width: number, height: number): string | undefined {
  return layer.mask ? `${PROCESS_TAG}.m${serialOf(layer.mask)}.${width}x${height}` : undefined;
}

/** Encoded thumbnails by raster, then by size asked for and canvas: the panel asks again on every redraw of a tab. */
const cache = new WeakMap<Raster | LayerMask, Map<string, Rendered>>();

/**
 * The mask over the canvas, fitted in `max`: each thumbnail pixel the mask's value at the middle of the canvas
 * area it stands for (a thumbnail is a few dozen pixels: sampling beats reading a 60-Mpx canvas for it).
 */
function encodeMask(mask: LayerMask, width: number, height: number, max: number): Promise<Buffer> {
  const size = fitted(width, height, max);
  const grey = Buffer.alloc(size.w * size.h);
  for (let v = 0; v < size.h; v++) {
    const y = Math.min(height - 1, Math.floor(((v + 0.5) * height) / size.h));
    for (let u = 0; u < size.w; u++) {
      const x = Math.min(width - 1, Math.floor(((u + 0.5) * width) / size.w));
      const inside = x >= mask.x && y >= mask.y && x < mask.x + mask.w && y < mask.y + mask.h;
      grey[v * size.w + u] = inside ? mask.data[(y - mask.y) * mask.w + (x - mask.x)]! : mask.outside;
    }
  }
  return sharp(grey, { raw: { width: size.w, height: size.h, channels: 1 } })
    .png()
    .toBuffer();
}

/** The tight bounds of the raster's non-transparent pixels within the canvas, or null when there are none. */
function opaqueBounds(r: Raster, width: number, height: number) {
  const x0 = Math.max(0, r.x);
  const y0 = Math.max(0, r.y);
  const x1 = Math.min(width, r.x + r.w);
  const y1 = Math.min(height, r.y + r.h);
  let left = x1;
  let right = x0 - 1;
  let top = -1;
  let bottom = -1;
  const d = r.data;
  for (let y = y0; y < y1; y++) {
    const row = (y - r.y) * r.w - r.x;
    let first = -1;
    for (let x = x0; x < x1; x++) {
      if (d[(row + x) * 4 + 3]) {
        first = x;
        break;
      }
    }
    if (first < 0) continue;
    if (top < 0) top = y;
    bottom = y;
    if (first < left) left = first;
    for (let x = x1 - 1; x > right; x--) {
      if (d[(row + x) * 4 + 3]) {
        right = x;
        break;
      }
    }
  }
  return top < 0 ? null : { x: left, y: top, w: right - left + 1, h: bottom - top + 1 };
}

/** `w` × `h` fitted in a `max` square, never enlarged. */
function fitted(w: number, h: number, max: number): { w: number; h: number } {
  const s = Math.min(1, max / Math.max(w, h));
  return { w: Math.max(1, Math.round(w * s)), h: Math.max(1, Math.round(h * s)) };
}

async function encodeThumbnail(layer: Layer, width: number, height: number, max: number): Promise<Buffer> {
  if (layer.kind === 'fill') {
    const size = fitted(width, height, max);
    const { r, g, b } = layer.color;
    return sharp({
      create: { width: size.w, height: size.h, channels: 4, background: { r, g, b, alpha: 1 } },
    })
      .png()
      .toBuffer();
  }
  if (layer.kind !== 'pixel' && layer.kind !== 'smart')
    throw new Error(`no thumbnail for a ${layer.kind} layer`);
  const r = layer.raster;
  const bounds = opaqueBounds(r, width, height);
  if (!bounds) {
    // An empty layer: a transparent picture of the canvas' shape, as Photoshop shows one.
    const size = fitted(width, height, max);
    return sharp({
      create: { width: size.w, height: size.h, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
  }
  const size = fitted(bounds.w, bounds.h, max);
  const raw = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
  return sharp(raw, { raw: { width: r.w, height: r.h, channels: 4 }, limitInputPixels: false })
    .extract({ left: bounds.x - r.x, top: bounds.y - r.y, width: bounds.w, height: bounds.h })
    .resize(size.w, size.h, { kernel: 'lanczos3', fit: 'fill' })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/**
 * The thumbnail of layer `layerId` (its id: names may be shared) of the open document `name`, within a `max`
 * square: of its pixels, or of its mask. Throws the editor's `not_found` when there is no such document or layer,
 * `unsupported` for a layer that has no such thumbnail (a group or a text layer has no pixels' one, a layer
 * without a mask no mask's one).
 */
export async function renderLayerThumbnail(
  session: Session,
  name: string,
  layerId: number,
  max: number,
  of: ThumbnailOf = 'pixels',
): Promise<Rendered> {
  const { layer, width, height } = await session.inspect((tx) => {
    const doc = tx.document(name);
    const layer = doc.state.layers.get(layerId);
    if (!layer) {
      fail('not_found', `文档“${name}”里没有编号为 ${layerId} 的图层`, {
        details: { document: name, layer_ids: [...doc.state.layers.keys()] },
      });
    }
    return { layer, width: doc.state.width, height: doc.state.height };
  });
  if (of === 'mask') return maskThumbnail(layer, width, height, max);
  const key = thumbnailKey(layer, width, height);
  if (key === undefined) {
    fail(
      'unsupported',
      `图层“${layer.name}”是${layer.kind === 'group' ? '组' : '文字图层'}，没有缩略图（图层面板显示它的图标）`,
      {
        details: { layer: layerId, type: layer.kind },
      },
    );
  }
  // A fill layer's picture is its colour: cached under the colour's own key, not a raster.
  const holder: Raster | undefined = layer.kind === 'fill' ? undefined : (layer as { raster: Raster }).raster;
  const sizeKey = `${max}.${width}x${height}`;
  const cached = holder ? cache.get(holder)?.get(sizeKey) : undefined;
  if (cached) return cached;
  return kept(holder, sizeKey, await encodeThumbnail(layer, width, height, max), width, height);
}

async function maskThumbnail(layer: Layer, width: number, height: number, max: number): Promise<Rendered> {
  const mask = layer.mask;
  if (!mask) {
    fail('unsupported', `图层“${layer.name}”没有蒙版`, { details: { layer: layer.id, mask: false } });
  }
  const sizeKey = `${max}.${width}x${height}`;
  const cached = cache.get(mask)?.get(sizeKey);
  if (cached) return cached;
  return kept(mask, sizeKey, await encodeMask(mask, width, height, max), width, height);
}

/** The thumbnail as served, kept under what it shows (when that is an object: a fill's colour is not). */
async function kept(
  holder: Raster | LayerMask | undefined,
  sizeKey: string,
  png: Buffer,
  width: number,
  height: number,
): Promise<Rendered> {
  const meta = await sharp(png).metadata();
  const rendered: Rendered = {
    png,
    width: meta.width ?? 1,
    height: meta.height ?? 1,
    documentWidth: width,
    documentHeight: height,
  };
  if (holder) {
    const sizes = cache.get(holder) ?? new Map<string, Rendered>();
    sizes.set(sizeKey, rendered);
    cache.set(holder, sizes);
  }
  return rendered;
}
