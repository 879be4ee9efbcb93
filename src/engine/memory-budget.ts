/**
 * A session's pixel memory and its budget. A session holds the pixel buffers of its documents — every layer
 * raster, smart-object source, layer and selection mask reachable from any history step (steps share the
 * buffers they did not change, so each buffer counts once) — and the composite each document's cache keeps.
 *
 * While a call runs under a budget, every pixel buffer the engine allocates (`sharedBuffer` in raster.ts) is
 * charged first, and one that would take the session over the budget is refused before it exists. The charge
 * is cumulative for the call: temporaries freed during the call still count, so a call is refused a little
 * early rather than late. Decoders whose output lands in ordinary memory first (opening or placing an image
 * file) reserve what the decoded image will take before decoding (`reservePixels`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EditorState } from './editor.js';
import { fail } from './errors.js';
import type { DocState, Raster } from './model.js';

const MIB = 1024 * 1024;

/** Bytes of the distinct pixel buffers of every document's history, plus the composites given. */
export function sessionPixelBytes(state: EditorState, composites: readonly Raster[] = []): number {
  const seen = new Set<ArrayBufferLike>();
  let bytes = 0;
  const count = (view: { data: ArrayBufferView; w: number; h: number } | null | undefined) => {
    if (!view) return;
    // Data made on first read (a uniform selection rectangle, src/engine/selection.ts) is not read here, which
    // would allocate it: it is counted as the one-byte-per-pixel mask it may become.
    if (Object.getOwnPropertyDescriptor(view, 'data')?.get) {
      bytes += view.w * view.h;
      return;
    }
    if (seen.has(view.data.buffer)) return;
    seen.add(view.data.buffer);
    bytes += view.data.buffer.byteLength;
    // A CMYK raster's kept inks (raster-inks.ts): four more bytes per pixel.
    const inks = (view as Partial<Raster>).inks?.cmyk;
    if (inks && !seen.has(inks.buffer)) {
      seen.add(inks.buffer);
      bytes += inks.buffer.byteLength;
    }
  };
  for (const doc of state.docs) {
    for (const step of doc.history.states) {
      count(step.selection);
      // A CMYK document's ink table (raster-inks.ts), shared by its steps.
      const table = step.inkTable;
      if (table && !seen.has(table.keys.buffer)) {
        seen.add(table.keys.buffer);
        bytes += table.keys.byteLength + table.values.byteLength;
      }
      // Spot and alpha channels: a byte per canvas pixel each, shared by the steps that did not change the canvas.
      for (const c of step.channels ?? []) count({ data: c.data, w: step.width, h: step.height });
      for (const layer of step.layers.values()) {
        if ('raster' in layer) count(layer.raster);
        if ('source' in layer) count(layer.source);
        count(layer.mask);
      }
    }
  }
  for (const composite of composites) count(composite);
  return bytes;
}

/** Bytes as whole megabytes, rounded up, for messages: '1,024 MB'. */
export const mib = (bytes: number): string => `${Math.ceil(bytes / MIB).toLocaleString('en-US')} MB`;

interface Budget {
  readonly limit: number;
  /** The session's pixel bytes when the call began; measured when first needed (most calls allocate little). */
  readonly measure: () => number;
  baseline: number | null;
  /** Bytes allocated by the call so far. */
  charged: number;
}

const budgets = new AsyncLocalStorage<Budget>();

/** Runs `fn` (one call of a session) under a budget of `limit` bytes; `measure` gives the session's bytes now. */
export function withMemoryBudget<T>(limit: number, measure: () => number, fn: () => Promise<T>): Promise<T> {
  return budgets.run({ limit, measure, baseline: null, charged: 0 }, fn);
}

function refuse(budget: Budget, used: number, bytes: number, what: string): never {
  fail(
    'out_of_bounds',
    `${what}${/[A-Za-z0-9]$/.test(what) ? ' ' : ''}需要约 ${mib(bytes)} 像素内存，本会话已用 ${mib(used)}，会超过每个会话 ${mib(budget.limit)} 的内存上限`,
    {
      hint: '关闭不用的文档（close_document，需要时先保存），或减小画布、图像尺寸后重试；服务的管理员可调大 ATELIER_SESSION_MEMORY_MB',
      details: { limit_bytes: budget.limit, used_bytes: used, needed_bytes: bytes },
    },
  );
}

/**
 * Charges `bytes` about to be allocated by the running call; refuses (`out_of_bounds`) when they would take the
 * session over its budget. `what` names the thing in the message (e.g. '新文档'). Without a budget, does nothing.
 */
export function reservePixels(bytes: number, what = '此操作'): void {
  const budget = budgets.getStore();
  if (!budget || bytes <= 0) return;
  budget.baseline ??= budget.measure();
  const used = budget.baseline + budget.charged;
  if (used + bytes > budget.limit) refuse(budget, used, bytes, what);
  budget.charged += bytes;
}

/** Bytes of the distinct pixel buffers of one document state (e.g. one just decoded, before it is kept). */
export function documentPixelBytes(state: DocState): number {
  return sessionPixelBytes({ docs: [{ history: { states: [state] } }] } as unknown as EditorState);
}

/**
 * The pixels of the canvas a PSD or PSB file declares in its header (0 when the bytes are not one): what
 * decoding it costs at least, known before decoding.
 */
export function psdCanvasPixels(bytes: Uint8Array): number {
  if (bytes.length < 26 || bytes[0] !== 0x38 || bytes[1] !== 0x42 || bytes[2] !== 0x50 || bytes[3] !== 0x53) {
    return 0;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.getUint32(14) * view.getUint32(18);
}

/**
 * Refuses (`out_of_bounds`) a result the budget could not even show: `bytes` is what it needs once painted and
 * rendered (e.g. a canvas-sized layer and the composite of a new document, which itself allocates nothing yet).
 * Charges nothing: the buffers are charged when they are allocated.
 */
export function requireRoom(bytes: number, what: string): void {
  const budget = budgets.getStore();
  if (!budget || bytes <= 0) return;
  budget.baseline ??= budget.measure();
  const used = budget.baseline + budget.charged;
  if (used + bytes > budget.limit) refuse(budget, used, bytes, what);
}
