/**
 * What crosses between the main thread and the PSD worker (psd-thread.ts, psd-worker.ts): the jobs and their
 * results, how each side packs and unpacks them, and the job itself, which runs the same on either side (errors
 * cross as job-thread.ts packs them).
 */
import type { DocState, Raster } from '../model.js';
import { weighShared } from '../raster.js';
import {
  type DecodedPsd,
  type DecodePsdOptions,
  decodePsd,
  type EncodedPsd,
  type EncodePsdOptions,
  encodePsd,
  writePsdFile,
} from './psd.js';

export type PsdJob =
  | {
      readonly kind: 'encode';
      readonly state: DocState;
      readonly composite: Raster;
      readonly opts: EncodePsdOptions;
    }
  | {
      /** Streamed to the open file `fd` (a descriptor is valid in every thread of the process). */
      readonly kind: 'write';
      readonly fd: number;
      readonly state: DocState;
      readonly composite: Raster;
      readonly opts: EncodePsdOptions;
    }
  | { readonly kind: 'decode'; readonly bytes: Uint8Array; readonly opts: DecodePsdOptions };

export type PsdResult =
  | ({ readonly kind: 'encode' } & EncodedPsd)
  | { readonly kind: 'write'; readonly warnings: string[] }
  | ({ readonly kind: 'decode' } & DecodedPsd);

/** The job run on the calling thread: what the worker runs too. */
export async function performPsdJob(job: PsdJob): Promise<PsdResult> {
  if (job.kind === 'encode') {
    return { kind: 'encode', ...(await encodePsd(job.state, job.composite, job.opts)) };
  }
  if (job.kind === 'write') {
    return { kind: 'write', warnings: await writePsdFile(job.fd, job.state, job.composite, job.opts) };
  }
  return { kind: 'decode', ...(await decodePsd(job.bytes, job.opts)) };
}

/** The buffers to transfer with a result: the bytes written, when they own their memory (not a pool slice). */
export function transferablesOf(result: PsdResult): ArrayBuffer[] {
  if (result.kind !== 'encode') return [];
  const { buffer } = result;
  const whole = buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength;
  return whole && buffer.buffer instanceof ArrayBuffer ? [buffer.buffer] : [];
}

/** A result as the caller expects it: the posted bytes arrive as a Uint8Array, wrapped again without a copy. */
export function revived(result: PsdResult): PsdResult {
  if (result.kind === 'decode') {
    weighPixels(result.state);
    return result;
  }
  if (result.kind === 'write') return result;
  const b = result.buffer;
  return { ...result, buffer: Buffer.from(b.buffer, b.byteOffset, b.byteLength) };
}

/**
 * Gives the shared pixel buffers of a state decoded in the worker the weight raster.ts gives the buffers it
 * allocates (see "Pixel memory" there): V8 does not count shared memory towards the pressure that schedules
 * collections, and these buffers were weighed in the worker's heap, not in this one. Without it, a closed
 * document's layers would wait for an unrelated collection (gigabytes of them with large files).
 */
function weighPixels(state: DocState): void {
  const weigh = (view: ArrayBufferView) => weighShared(view.buffer);
  for (const layer of state.layers.values()) {
    if (layer.mask) weigh(layer.mask.data);
    if (layer.kind === 'pixel' || layer.kind === 'text' || layer.kind === 'smart') weigh(layer.raster.data);
    if (layer.kind === 'smart') weigh(layer.source.data);
  }
}
