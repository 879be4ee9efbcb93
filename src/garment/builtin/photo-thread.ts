/**
 * A garment photo is analysed off the calling thread (job-thread.ts, in photo-worker.ts): the analysis takes about
 * a second at its working size, and identify_pieces measures and classifies the pieces meanwhile, so on two cores
 * it costs the longer of the two rather than their sum. The worker runs photo.ts's own `analysePhoto`, so the
 * extraction is the same whichever thread made it; the silhouette it segmented comes back with it and is kept
 * for verify as `analysePhoto` keeps it (against-photo.ts).
 *
 * One worker serves the process: the service's session threads post their photos to the main thread's worker
 * (job-thread.ts `jobThreadPort`), so a studio session's identify_pieces runs beside its analysis as the command
 * line's does, and many sessions hold one worker's memory, not one each. A photo finds at most MAX_WAITING
 * others waiting for it; beyond that its session analyses it on its own thread at once (as it does when the
 * worker cannot run it), rather than queue behind other sessions' photos. A photo is read ahead as soon as it is
 * set (`analysePhotoAhead`), when the worker is free; another session's photo wanted meanwhile does not wait for
 * that reading.
 *
 * Photos under MIN_BYTES are analysed here: they take a few tens of milliseconds, too little to be worth a worker.
 * ATELIER_PHOTO_WORKER=0 keeps every analysis on the calling thread.
 */
import { EditorError } from '../../engine/errors.js';
import { type AheadJob, JobThread } from '../../engine/job-thread.js';
import type { Extraction } from '../types.js';
import { keepSilhouette, keptSilhouette, type PhotoTruth } from './against-photo.js';
import { analysePhoto } from './photo.js';

export interface PhotoJob {
  readonly bytes: Uint8Array;
  readonly path: string;
  readonly hash: string;
}

export interface PhotoResult {
  readonly ext: Extraction;
  readonly truth: PhotoTruth | null;
}

/**
 * Encoded bytes below which a photo is analysed here. Measured on the test photos: 160 px, 55 KB, ~35 ms; 256 px,
 * ~130 KB, 110–200 ms; 1280 px, 2.1 MB, ~1.1 s.
 */
const MIN_BYTES = 64 << 10;
/** Some 50 times the analysis of a 1280 px photo (~1.1 s here): it only catches a worker that hangs. */
const DEADLINE_MS = 60_000;
const STARTUP_MS = 30_000;
/**
 * An idle worker is stopped after this long (it holds about 70 MB once it has analysed a photo): identify,
 * preview and apply follow one another within it; a photo set later starts it again (`analysePhotoAhead`).
 */
const IDLE_STOP_MS = 120_000;
/**
 * Photos that may wait for the worker while it analyses another. A photo that would wait behind more analyses
 * than that (~1.1 s each) is sooner done on its session's own thread, beside the call that wants it.
 */
const MAX_WAITING = 1;

/** The analysis, on whichever thread runs it. */
export async function performPhotoJob(job: PhotoJob): Promise<PhotoResult> {
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  const ext = await analysePhoto(bytes, job.path, job.hash);
  return { ext, truth: keptSilhouette(ext) };
}

/** The thread's mode, statistics, start and stop (job-thread.ts), for tests and benchmarks. */
export const photoThread = new JobThread<PhotoJob, PhotoResult>({
  what: 'photo analysis',
  fallback: 'garment photos are analysed on the calling thread',
  callerUrl: import.meta.url,
  workerModule: 'photo-worker',
  envOff: 'ATELIER_PHOTO_WORKER',
  perform: performPhotoJob,
  sizeOf: (job) => job.bytes.byteLength,
  minSize: MIN_BYTES,
  deadlineMs: () => DEADLINE_MS,
  startupMs: STARTUP_MS,
  idleStopMs: IDLE_STOP_MS,
  shared: { maxWaiting: MAX_WAITING },
  revive: (r) => {
    // The structured clone made a new extraction object: the silhouette is kept for it.
    if (r.truth) keepSilhouette(r.ext, r.truth);
    return r;
  },
  overdueError: (_job, seconds) =>
    new EditorError('internal', `服装照片分析超时（超过 ${seconds} 秒），已中止`, {
      hint: '换一张较小的照片后重试',
    }),
});

/** Readings started ahead: the last two photos set (a session sets one at a time). */
const AHEAD_KEPT = 2;
/** A reading started ahead and not taken within this is dropped with what it holds (a few MB at 1280 px). */
const AHEAD_KEPT_MS = 10 * 60_000;
const early = new Map<string, AheadJob<PhotoResult>>();

const earlyKey = (path: string, hash: string) => `${hash}\n${path}`;

/**
 * Starts analysing a photo as soon as it is set, on the worker if it is free (`JobThread.ahead`): the designer
 * uploads the photo, then asks for the print, and by the time the model calls identify_pieces the reading is
 * done and identify costs only the pieces' measuring. Never on the calling thread, never holding the process
 * open; when it cannot run ahead, `analysePhotoOffThread` reads the photo when it is wanted, as before.
 */
export function analysePhotoAhead(bytes: Buffer, path: string, hash: string): void {
  const key = earlyKey(path, hash);
  if (early.has(key)) return;
  const reading = photoThread.ahead({ bytes, path, hash });
  early.set(key, reading);
  void reading.result.then(
    (done) => {
      // Not run (mostly known at once: worker busy or off): the photo is read when wanted, with nothing to wait for.
      if (!done && early.get(key) === reading) early.delete(key);
    },
    () => early.get(key) === reading && early.delete(key),
  );
  for (const old of early.keys()) if (early.size > AHEAD_KEPT) early.delete(old);
  setTimeout(() => {
    if (early.get(key) === reading) early.delete(key);
  }, AHEAD_KEPT_MS).unref();
}

/**
 * Analyses the photo like `analysePhoto`, off the calling thread when it is large enough, or takes the reading
 * started ahead (`analysePhotoAhead`) for these bytes. The job is posted before this returns, so the caller's
 * synchronous work that follows runs beside it.
 */
export async function analysePhotoOffThread(bytes: Buffer, path: string, hash: string): Promise<Extraction> {
  const key = earlyKey(path, hash);
  const reading = early.get(key);
  if (reading) {
    early.delete(key);
    const done = await reading.want().catch(() => null);
    if (done) return done.ext;
  }
  return (await photoThread.submit({ bytes, path, hash })).ext;
}
