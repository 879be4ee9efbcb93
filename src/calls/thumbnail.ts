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
import { fitWithin, type Rendered } from './render.js';
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

/** An encoded thumbnail and its size. */
interface Encoded {
  readonly png: Buffer;
  readonly w: number;
  readonly h: number;
}

/** A `w` × `h` PNG of one colour (a fill layer; an empty layer, transparent). */
async function solid(
  w: number,
  h: number,
  background: { r: number; g: number; b: number; alpha: number },
): Promise<Encoded> {
  const png = await sharp({ create: { width: w, height: h, channels: 4, background } })
    .png()
    .toBuffer();
  return { png, w, h };
}

/**
 * The mask over the canvas, fitted in `max`: each thumbnail pixel the mask's value at the middle of the canvas
 * area it stands for (a thumbnail is a few dozen pixels: sampling beats reading a 60-Mpx canvas for it).
 */
async function encodeMask(mask: LayerMask, width: number, height: number, max: number): Promise<Encoded> {
  const { w, h } = fitWithin(width, height, max);
  const grey = Buffer.alloc(w * h);
  for (let v = 0; v < h; v++) {
    const y = Math.min(height - 1, Math.floor(((v + 0.5) * height) / h));
    for (let u = 0; u < w; u++) {
      const x = Math.min(width - 1, Math.floor(((u + 0.5) * width) / w));
      const inside = x >= mask.x && y >= mask.y && x < mask.x + mask.w && y < mask.y + mask.h;
      grey[v * w + u] = inside ? mask.data[(y - mask.y) * mask.w + (x - mask.x)]! : mask.outside;
    }
  }
  const png = await sharp(grey, { raw: { width: w, height: h, channels: 1 } })
    .png()
    .toBuffer();
  return { png, w, h };
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

/** A layer's own pixels cropped to where they are, fitted in `max`; an empty layer, the canvas's shape. */
async function encodePixels(r: Raster, width: number, height: number, max: number): Promise<Encoded> {
  const bounds = opaqueBounds(r, width, height);
  if (!bounds) {
    // An empty layer: a transparent picture of the canvas' shape, as Photoshop shows one.
    const { w, h } = fitWithin(width, height, max);
    return solid(w, h, { r: 0, g: 0, b: 0, alpha: 0 });
  }
  const { w, h } = fitWithin(bounds.w, bounds.h, max);
  const raw = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
  const png = await sharp(raw, { raw: { width: r.w, height: r.h, channels: 4 }, limitInputPixels: false })
    .extract({ left: bounds.x - r.x, top: bounds.y - r.y, width: bounds.w, height: bounds.h })
    .resize(w, h, { kernel: 'lanczos3', fit: 'fill' })
    .png({ compressionLevel: 6 })
    .toBuffer();
  return { png, w, h };
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
  const { layer, width, height } = await session.inspectSettled('documents', (tx) => {
    const doc = tx.document(name);
    const layer = doc.state.layers.get(layerId);
    if (!layer) {
      fail('not_found', `文档“${name}”里没有编号为 ${layerId} 的图层`, {
        details: { document: name, layer_ids: [...doc.state.layers.keys()] },
      });
    }
    return { layer, width: doc.state.width, height: doc.state.height };
  });
  const sizeKey = `${max}.${width}x${height}`;
  const served = (holder: Raster | LayerMask | undefined, encoded: Encoded): Rendered => {
    const rendered = {
      png: encoded.png,
      width: encoded.w,
      height: encoded.h,
      documentWidth: width,
      documentHeight: height,
    };
    if (holder) cache.set(holder, (cache.get(holder) ?? new Map<string, Rendered>()).set(sizeKey, rendered));
    return rendered;
  };
  if (of === 'mask') {
    const mask = layer.mask;
    if (!mask)
      fail('unsupported', `图层“${layer.name}”没有蒙版`, { details: { layer: layer.id, mask: false } });
    return cache.get(mask)?.get(sizeKey) ?? served(mask, await encodeMask(mask, width, height, max));
  }
  if (layer.kind === 'fill') {
    // Its picture is its colour: nothing to keep it under but the colour itself, and it is made in no time.
    const { w, h } = fitWithin(width, height, max);
    return served(undefined, await solid(w, h, { ...layer.color, alpha: 1 }));
  }
  if (layer.kind === 'group' || layer.kind === 'text' || layer.kind === 'adjustment') {
    const what = { group: '组', text: '文字图层', adjustment: '调整图层' }[layer.kind];
    fail('unsupported', `图层“${layer.name}”是${what}，没有缩略图（图层面板显示它的图标）`, {
      details: { layer: layerId, type: layer.kind },
    });
  }
  const raster = layer.raster;
  return cache.get(raster)?.get(sizeKey) ?? served(raster, await encodePixels(raster, width, height, max));
}
