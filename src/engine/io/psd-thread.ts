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
 * Robustness: the worker starts on first use and is unref'd, except while a job waits for it (a script awaiting
 * a save would otherwise exit). If it cannot start (it fails, exits or has not answered by its first job's
 * deadline), PSD work stays on the calling thread for the rest of the process. If it dies during a job, that job
 * runs again on the calling thread and the next job starts a new worker. A job that outlives its deadline (far
 * beyond any real encode or decode) fails with io_error and the worker is replaced, so no call waits forever.
 * Failures are logged once on stderr; the worker never writes to stdout (see psd-worker.ts).
 *
 * ATELIER_PSD_WORKER=0 keeps all PSD work on the calling thread.
 */
import { isMainThread, type Worker } from 'node:worker_threads';
import { EditorError } from '../errors.js';
import type { DocState, Raster } from '../model.js';
import { spawnSiblingWorker } from '../worker-boot.js';
import type { DecodedPsd, DecodePsdOptions, EncodedPsd, EncodePsdOptions } from './psd.js';
import { errorOf, type PsdJob, type PsdReply, type PsdResult, performPsdJob, revived } from './psd-job.js';

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
 * `auto`: jobs of MIN_PIXELS or more go to the worker. `off`: every job runs on the calling thread. `always`: for
 * tests, every job goes to the worker whatever its size.
 */
export type PsdThreadMode = 'auto' | 'off' | 'always';

export interface PsdThreadStats {
  /** Jobs the worker answered (failures included). */
  readonly worker: number;
  /** Jobs run on the calling thread: small ones, and all of them when the worker is off or cannot start. */
  readonly here: number;
  /** Jobs the worker lost (it died or could not send the answer) and the calling thread ran again. */
  readonly recovered: number;
}

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
  return { state: result.state, warnings: result.warnings };
}

/* ------------------------------------------------------------------------------------------------------------ */
/* the worker and its queue                                                                                     */
/* ------------------------------------------------------------------------------------------------------------ */

interface Thread {
  readonly worker: Worker;
  /** It has loaded its modules. */
  ready: boolean;
  /** Stopped on purpose: its exit says nothing about whether a worker can start. */
  stopping: boolean;
  /** Why it failed, when it did. */
  failure?: string;
}

interface Queued {
  readonly job: PsdJob;
  readonly pixels: number;
  readonly resolve: (r: PsdResult) => void;
  readonly reject: (e: unknown) => void;
  /** The worker running it, once posted. */
  on?: Thread;
  timer?: NodeJS.Timeout;
}

let mode: PsdThreadMode = 'auto';
let thread: Thread | null = null;
/** Set when a worker could not start: PSD work stays on the calling thread from then on. */
let disabled = false;
let running: Queued | null = null;
const queue: Queued[] = [];
const stats = { worker: 0, here: 0, recovered: 0 };
let logged = false;

export function setPsdThreadMode(m: PsdThreadMode): void {
  mode = m;
}

export function psdThreadStats(): PsdThreadStats {
  return { ...stats };
}

/** Starts the worker if needed and resolves to whether it is ready to take jobs (false when it cannot start). */
export async function psdThreadReady(): Promise<boolean> {
  const t = offThread() ? currentThread() : null;
  if (!t) return false;
  if (t.ready) return true;
  // Unref'd, the worker would not hold the process open while a script waits here for it.
  t.worker.ref();
  try {
    return await new Promise<boolean>((resolve) => {
      const onMessage = (m: PsdReply) => {
        if (m.kind === 'ready') settle(true);
      };
      const onExit = () => settle(false);
      const settle = (ok: boolean) => {
        t.worker.off('message', onMessage);
        t.worker.off('exit', onExit);
        resolve(ok);
      };
      t.worker.on('message', onMessage);
      t.worker.on('exit', onExit);
    });
  } finally {
    if (running?.on !== t) t.worker.unref();
  }
}

/** Stops the worker (the next job starts a new one); a job it was running is run again on the calling thread. */
export async function stopPsdThread(): Promise<void> {
  const t = thread;
  if (!t) return;
  t.stopping = true;
  await t.worker.terminate();
}

function offThread(): boolean {
  if (!isMainThread || disabled || mode === 'off') return false;
  return process.env.ATELIER_PSD_WORKER?.trim() !== '0';
}

function submit(job: PsdJob): Promise<PsdResult> {
  const pixels = pixelsOf(job);
  if (!offThread() || (mode === 'auto' && pixels < MIN_PIXELS)) {
    stats.here++;
    return performPsdJob(job);
  }
  return new Promise<PsdResult>((resolve, reject) => {
    queue.push({ job, pixels, resolve, reject });
    pump();
  });
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

/** Posts the next job when the worker is free; runs jobs here when there is no worker to post them to. */
function pump(): void {
  while (!running && queue.length > 0) {
    const q = queue.shift()!;
    const t = offThread() ? currentThread() : null;
    if (!t) {
      stats.here++;
      runHere(q);
      continue;
    }
    try {
      // Nothing is transferred: the caller keeps its buffers.
      t.worker.postMessage(q.job);
    } catch (err) {
      // A value the structured clone cannot copy: nothing reached the worker.
      logOnce(`a PSD job could not be posted to the worker (${reason(err)})`);
      stats.here++;
      runHere(q);
      continue;
    }
    running = q;
    q.on = t;
    t.worker.ref();
    q.timer = setTimeout(() => overdue(q), deadlineOf(q) + (t.ready ? 0 : STARTUP_MS));
    q.timer.unref();
  }
  if (!running && thread) thread.worker.unref();
}

function deadlineOf(q: Queued): number {
  return Math.min(MAX_DEADLINE_MS, DEADLINE_MS + q.pixels * DEADLINE_MS_PER_PIXEL);
}

function runHere(q: Queued): void {
  performPsdJob(q.job).then(q.resolve, q.reject);
}

/** Takes the running job off the worker to settle it; the caller then pumps. */
function release(): Queued {
  const q = running!;
  running = null;
  clearTimeout(q.timer);
  return q;
}

function currentThread(): Thread | null {
  if (thread) return thread;
  if (disabled) return null;
  let worker: Worker;
  try {
    worker = spawnSiblingWorker(import.meta.url, 'psd-worker', {});
  } catch (err) {
    cannotStart(`the PSD worker could not start (${reason(err)})`);
    return null;
  }
  const t: Thread = { worker, ready: false, stopping: false };
  thread = t;
  worker.on('message', (m: PsdReply) => answered(t, m));
  worker.on('messageerror', (err) => {
    logOnce(`an answer of the PSD worker could not be read (${reason(err)})`);
    lost(t);
  });
  worker.on('error', (err) => {
    t.failure = reason(err);
  });
  worker.on('exit', (code) => {
    if (thread === t) thread = null;
    const why = t.failure ?? `exit code ${code}`;
    if (!t.stopping) {
      if (t.ready) logOnce(`the PSD worker stopped (${why})`);
      else cannotStart(`the PSD worker could not start (${why})`);
    }
    lost(t);
  });
  // After the listeners: adding a 'message' listener refs the worker's port again.
  worker.unref();
  return t;
}

function answered(t: Thread, m: PsdReply): void {
  if (m.kind === 'ready') {
    t.ready = true;
  } else if (m.kind === 'lost') {
    logOnce(`the PSD worker could not send an answer (${m.reason})`);
    lost(t);
  } else if (running?.on === t) {
    const q = release();
    stats.worker++;
    if (m.kind === 'done') q.resolve(revived(m.result));
    else q.reject(errorOf(m.error));
    pump();
  }
}

/** The worker `t` will not answer the job it runs (if any): run that job again here. */
function lost(t: Thread): void {
  if (running?.on !== t) return;
  stats.recovered++;
  runHere(release());
  pump();
}

/** The running job outlived its deadline: stop its worker; fail the job, or run it here if the worker never started. */
function overdue(q: Queued): void {
  if (running !== q) return;
  const t = q.on!;
  release();
  t.stopping = true;
  if (thread === t) thread = null;
  void t.worker.terminate();
  if (!t.ready) {
    cannotStart('the PSD worker did not start in time');
    stats.recovered++;
    runHere(q);
  } else {
    const seconds = Math.round(deadlineOf(q) / 1000);
    logOnce(`a PSD job took longer than ${seconds} s; its worker was stopped`);
    const what = q.job.kind === 'decode' ? '读取' : '写入';
    q.reject(new EditorError('io_error', `PSD 文件${what}超时（超过 ${seconds} 秒），已中止`));
  }
  pump();
}

function cannotStart(why: string): void {
  disabled = true;
  logOnce(`${why}; PSD files are read and written on the main thread`);
}

function logOnce(message: string): void {
  if (logged) return;
  logged = true;
  process.stderr.write(`atelier: ${message}\n`);
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
