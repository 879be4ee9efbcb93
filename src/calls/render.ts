/** A document's composite as PNG, scaled to fit a square of `max` pixels (never enlarged). */

import { encodePng } from '../engine/io/image-codec.js';
import type { DocState, Raster } from '../engine/model.js';
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
  const { raster, state, id, open } = await session.inspectSettled('documents', (tx) => {
    const doc = tx.document(name);
    return {
      raster: tx.composite(doc.id),
      state: doc.state,
      id: doc.id,
      open: new Set(tx.documents().map((d) => d.id)),
    };
  });
  const kept = lastRenders(session);
  for (const other of kept.keys()) if (!open.has(other)) kept.delete(other);
  const last = kept.get(id);
  if (last?.state.deref() === state && last.max === max) return last.rendered;
  const rendered = encoded(state, raster, max);
  kept.set(id, { state: new WeakRef(state), max, rendered });
  const forget = () => {
    if (kept.get(id)?.rendered === rendered) kept.delete(id);
  };
  rendered.then((r) => {
    if (r.png.byteLength > KEPT_RENDER_BYTES) forget();
  }, forget);
  return rendered;
}

async function encoded(state: DocState, raster: Raster, max: number): Promise<Rendered> {
  const { width, height, dpi } = state;
  const { w, h } = fitWithin(width, height, max);
  // A CMYK document is shown as it prints, spot plates included.
  const png = await encodePng(await shownCanvas(state, raster, w, h, { spotInks: true }), dpi);
  return { png, width: w, height: h, documentWidth: width, documentHeight: height };
}

/**
 * A finished render larger than this is shared only while it is made: one at 100 % zoom of a production marker
 * is hundreds of MB, which the server's pixel memory counts only until it is sent. A screen's is a few MB.
 */
const KEPT_RENDER_BYTES = 32 * 1024 * 1024;

/**
 * Each document's last render, made or being made: asked for again for the same state at the same size, it is
 * that render. The studio asks twice for each change a model makes — once told of the call, again when the new
 * state's history comes and gives its picture a new key, which drops the first request in the browser but not
 * the work on the server — and on a production marker each is seconds of resizing and encoding. One a document,
 * so a long history holds no pictures of its steps; the state is held weakly, and a closed document's render
 * goes at the next render, so neither keeps pixels the session's memory no longer counts.
 */
interface LastRender {
  readonly state: WeakRef<DocState>;
  readonly max: number;
  readonly rendered: Promise<Rendered>;
}

const renders = new WeakMap<Session, Map<number, LastRender>>();

function lastRenders(session: Session): Map<number, LastRender> {
  let kept = renders.get(session);
  if (!kept) {
    kept = new Map();
    renders.set(session, kept);
  }
  return kept;
}
