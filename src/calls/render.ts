/** A document's composite as PNG, scaled to fit a square of `max` pixels (never enlarged). */

import { encodePng } from '../engine/io/image-codec.js';
import type { Raster } from '../engine/model.js';
import sharp from '../engine/sharp.js';
import type { Session } from './session.js';

export interface Rendered {
  readonly png: Buffer;
  readonly width: number;
  readonly height: number;
  readonly documentWidth: number;
  readonly documentHeight: number;
}

/**
 * The canvas-sized composite. The compositor builds every composite over the canvas alone (composite/cache.ts,
 * test/calls/render.test.ts), so this returns it as it is; a raster of another extent would be cropped here.
 */
function canvasOf(raster: Raster, width: number, height: number): Raster {
  if (raster.x === 0 && raster.y === 0 && raster.w === width && raster.h === height) return raster;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    const sy = y - raster.y;
    if (sy < 0 || sy >= raster.h) continue;
    const x0 = Math.max(0, raster.x);
    const x1 = Math.min(width, raster.x + raster.w);
    if (x1 <= x0) continue;
    const from = (sy * raster.w + (x0 - raster.x)) * 4;
    data.set(raster.data.subarray(from, from + (x1 - x0) * 4), (y * width + x0) * 4);
  }
  return { x: 0, y: 0, w: width, h: height, data };
}

/** `width` × `height` fitted in a `max` square, never enlarged, at least a pixel each way. */
export function fitWithin(width: number, height: number, max: number): { w: number; h: number } {
  const scale = Math.min(1, max / Math.max(width, height));
  return { w: Math.max(1, Math.round(width * scale)), h: Math.max(1, Math.round(height * scale)) };
}

/**
 * Renders the open document `name` after every call already queued in the session. Throws the editor's
 * `not_found` error (with the open names) when there is no such document.
 */
export async function renderDocument(session: Session, name: string, max: number): Promise<Rendered> {
  const { raster, width, height, dpi } = await session.inspect((tx) => {
    const doc = tx.document(name);
    return {
      raster: tx.composite(doc.id),
      width: doc.state.width,
      height: doc.state.height,
      dpi: doc.state.dpi,
    };
  });
  const canvas = canvasOf(raster, width, height);
  const { w, h } = fitWithin(width, height, max);
  let png: Buffer;
  if (w === width && h === height) {
    png = await encodePng(canvas, dpi);
  } else {
    const raw = Buffer.from(canvas.data.buffer, canvas.data.byteOffset, canvas.data.byteLength);
    png = await sharp(raw, { raw: { width, height, channels: 4 }, limitInputPixels: false })
      .resize(w, h, { kernel: 'lanczos3', fit: 'fill' })
      .png({ compressionLevel: 6 })
      .toBuffer();
  }
  return { png, width: w, height: h, documentWidth: width, documentHeight: height };
}
