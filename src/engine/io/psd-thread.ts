/**
 * PSD files are written and read off the main thread. Packing and unpacking the channels takes seconds on large
 * documents (a 9000 × 18000 marker: ~3 s to save, ~4 s to open), during which `atelier serve` would answer no
 * other session. `encodePsdOffThread`, `writePsdFileOffThread` and `decodePsdOffThread` run psd.ts's own
 * `encodePsd`, `writePsdFile` and `decodePsd` (its ag-psd set-up included) in one worker thread (psd-worker.ts),
 * so bytes, warnings and errors are theirs.
 *
 * What crosses between the threads:
 * - Layer pixels live in shared memory (raster.ts `allocPixels`, which psd.ts also decodes into): the structured
 *   clone of a DocState copies the layer objects and the Map, not the pixels, in both directions. A buffer that
 *   is not shared is copied; the selection, which a PSD does not store, is left behind.
 * - A file to read is copied once into the worker; the bytes written come back transferred, not copied, or are
 *   written by the worker straight into the caller's open file (`writePsdFileOffThread`: a file descriptor is
 *   the process's, valid in every thread).
 * - An EditorError comes back as its code, message, hint and details, and is thrown again as an EditorError.
 * (psd-job.ts packs and unpacks all of it.)
 *
 * Jobs go to the worker one at a time, in order: a second document in the worker while the first is written
 * would only raise the peak memory, and the main thread is free either way.
 *
 * Robustness (job-thread.ts): if the worker cannot start, PSD work stays on the calling thread for the rest of the
 * process; if it dies during a job, that job runs again on the calling thread; a job that outlives its deadline
 * (far beyond any real encode or decode) fails with io_error and the worker is replaced.
 *
 * ATELIER_PSD_WORKER=0 keeps all PSD work on the calling thread.
 */
import { EditorError } from '../errors.js';
import { JobThread, type ThreadMode, type ThreadStats } from '../job-thread.js';
import type { DocState, Raster } from '../model.js';
import type { DecodedPsd, DecodePsdOptions, EncodedPsd, EncodePsdOptions } from './psd.js';
import { type PsdJob, type PsdResult, performPsdJob, revived } from './psd-job.js';

/**
 * Pixels (canvas plus layers; for a file, the larger of its canvas and a pixel per 4 bytes) below which a job
 * stays on the calling thread. ag-psd writes ~20 and reads ~30 million pixels per second here, so 2^18 pixels
 * (a 512 × 512 document) block for 5–15 ms: about what cloning a document of many layers and a round trip cost,
 * and a first call also waits for the worker to start. Anything larger is worth posting.
 */
const MIN_PIXELS = 1 << 18;
/**
 * A job's deadline, some 20 times the time ag-psd needs: it only catches a worker that hangs. Capped, since a
 * header's canvas size is whatever the file says (and Node fires a timeout beyond 2^31 ms at once).
 */
const DEADLINE_MS = 60_000;
const DEADLINE_MS_PER_PIXEL = 1e-3;
const MAX_DEADLINE_MS = 30 * 60_000;
/** Added to the deadline of a job that waits for the worker to load its modules (tsx compiles them first). */
const STARTUP_MS = 30_000;
/**
 * An idle worker is stopped after this long. After a 4000 × 4000 document was written and read back it held
 * ~80 MB more than when it started, and stopping it gave ~50 MB of RSS back (measured under tsx); on a shared
 * service that would otherwise stay taken until the process ends. A new worker starts with the next large job.
 */
const IDLE_STOP_MS = 120_000;

/**
 * `auto`: jobs of MIN_PIXELS or more go to the worker. `off`: every job runs on the calling thread. `always`: for
 * tests, every job goes to the worker whatever its size.
 */
export type PsdThreadMode = ThreadMode;
export type PsdThreadStats = ThreadStats;

const psdThread = new JobThread<PsdJob, PsdResult>({
  what: 'PSD',
  fallback: 'PSD files are read and written on the main thread',
  callerUrl: import.meta.url,
  workerModule: 'psd-worker',
  envOff: 'ATELIER_PSD_WORKER',
  perform: performPsdJob,
  sizeOf: pixelsOf,
  minSize: MIN_PIXELS,
  deadlineMs: (pixels) => Math.min(MAX_DEADLINE_MS, DEADLINE_MS + pixels * DEADLINE_MS_PER_PIXEL),
  startupMs: STARTUP_MS,
  idleStopMs: IDLE_STOP_MS,
  revive: revived,
  overdueError: (job, seconds) =>
    new EditorError(
      'io_error',
      `PSD 文件${job.kind === 'decode' ? '读取' : '写入'}超时（超过 ${seconds} 秒），已中止`,
    ),
});

/** Writes `state` as PSD like `encodePsd`, on the worker thread when the document is large enough. */
export async function encodePsdOffThread(
  state: DocState,
  composite: Raster,
  opts: EncodePsdOptions = {},
): Promise<EncodedPsd> {
  const result = await submit({ kind: 'encode', state: { ...state, selection: null }, composite, opts });
  if (result.kind !== 'encode') throw new EditorError('internal', 'PSD 线程返回了错误类型的结果');
  return { buffer: result.buffer, warnings: result.warnings };
}

/**
 * Writes `state` as PSD like `writePsdFile` to the open file `fd` (streamed, never whole in memory), on the worker
 * thread when the document is large enough. Returns the warnings.
 */
export async function writePsdFileOffThread(
  fd: number,
  state: DocState,
  composite: Raster,
  opts: EncodePsdOptions = {},
): Promise<string[]> {
  const result = await submit({ kind: 'write', fd, state: { ...state, selection: null }, composite, opts });
  if (result.kind !== 'write') throw new EditorError('internal', 'PSD 线程返回了错误类型的结果');
  return result.warnings;
}

/** Reads a PSD or PSB like `decodePsd`, on the worker thread when the file is large enough. */
export async function decodePsdOffThread(
  bytes: Uint8Array,
  opts: DecodePsdOptions = {},
): Promise<DecodedPsd> {
  const result = await submit({ kind: 'decode', bytes, opts });
  if (result.kind !== 'decode') throw new EditorError('internal', 'PSD 线程返回了错误类型的结果');
  return { state: result.state, warnings: result.warnings, losses: result.losses };
}

export function setPsdThreadMode(m: PsdThreadMode): void {
  psdThread.setMode(m);
}

export function psdThreadStats(): PsdThreadStats {
  return psdThread.stats();
}

/** Starts the worker if needed and resolves to whether it is ready to take jobs (false when it cannot start). */
export function psdThreadReady(): Promise<boolean> {
  return psdThread.ready();
}

/** Whether a worker is running or starting. */
export function psdThreadStarted(): boolean {
  return psdThread.started;
}

/** How long an idle worker is kept (for tests). */
export function setPsdThreadIdleStop(ms: number): void {
  psdThread.setIdleStop(ms);
}

/** Stops the worker (the next job starts a new one); a job it was running is run again on the calling thread. */
export function stopPsdThread(): Promise<void> {
  return psdThread.stop();
}

function submit(job: PsdJob): Promise<PsdResult> {
  return psdThread.submit(job);
}

/** Roughly how many pixels a job moves: what its cost, and so its deadline, grow with. */
function pixelsOf(job: PsdJob): number {
  if (job.kind === 'decode') {
    const b = job.bytes;
    // A PSD header gives the canvas height at byte 14 and its width at byte 18.
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const canvas = b.byteLength >= 26 ? view.getUint32(14) * view.getUint32(18) : 0;
    return Math.max(canvas, b.byteLength / 4);
  }
  let n = job.state.width * job.state.height;
  for (const layer of job.state.layers.values()) {
    if (layer.kind === 'pixel' || layer.kind === 'text' || layer.kind === 'smart') {
      n += layer.raster.w * layer.raster.h;
    }
    if (layer.mask) n += layer.mask.w * layer.mask.h;
  }
  return n;
}
