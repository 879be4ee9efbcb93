/** A document's composite as PNG, scaled to fit a square of `max` pixels (never enlarged). */

import { encodePng } from '../engine/io/image-codec.js';
import { shownCanvas } from '../engine/soft-proof.js';
import type { Session } from './session.js';

export interface Rendered {
  readonly png: Buffer;
  readonly width: number;
  readonly height: number;
  readonly documentWidth: number;
  readonly documentHeight: number;
}

/** `width` × `height` fitted in a `max` square, never enlarged, at least a pixel each way. */
export function fitWithin(width: number, height: number, max: number): { w: number; h: number } {
  const scale = Math.min(1, max / Math.max(width, height));
  return { w: Math.max(1, Math.round(width * scale)), h: Math.max(1, Math.round(height * scale)) };
}

/**
 * Renders the open document `name` after every call already queued in the session, beside a running call that
 * changes no document (Session.inspectSettled). Throws the editor's `not_found` error (with the open names) when
 * there is no such document.
 */
export async function renderDocument(session: Session, name: string, max: number): Promise<Rendered> {
  const { raster, state } = await session.inspectSettled('documents', (tx) => {
    const doc = tx.document(name);
    return { raster: tx.composite(doc.id), state: doc.state };
  });
  const { width, height, dpi } = state;
  const { w, h } = fitWithin(width, height, max);
  // A CMYK document is shown as it prints.
  const png = await encodePng(await shownCanvas(state, raster, w, h), dpi);
  return { png, width: w, height: h, documentWidth: width, documentHeight: height };
}
