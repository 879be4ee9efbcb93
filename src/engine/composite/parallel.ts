/**
 * The compositor's second core: a tiny pool of worker threads (os.availableParallelism() − 1, so one on a
 * two-core machine; none on one core) that share large renders with the main thread, while `renderInto`
 * stays synchronous for its callers.
 *
 * How a render is shared:
 * - Pixel buffers live in shared memory (raster.ts `allocPixels`), so the document state is posted to the
 *   worker as it is: structured clone copies the layer objects and the Map (small) but not the pixels, which
 *   a SharedArrayBuffer-backed array shares. The output buffer is shared too, and the worker writes its
 *   strips straight into it. Effect rasters the main thread has computed are posted along (they are shared
 *   as well) and primed into the worker's effect cache, so the worker never recomputes a stroke or shadow.
 * - Both threads build the same plan for the same rectangle and take strips from one shared counter
 *   (`Atomics.add`) until none are left: the split balances itself when the other core is busy, and the
 *   strips are exactly those a single thread would render, so the bytes are identical (a strip depends only
 *   on the plan and its rows; dissolve's noise is keyed on document position).
 * - When the main thread runs out of strips it either cancels the offer (the worker had not started it: a
 *   compare-exchange on the worker's state word decides who wins) or blocks in `Atomics.wait` until the
 *   worker has finished its last strip. Node allows `Atomics.wait` on the main thread; the wait is at most
 *   one strip long. A worker that fails reports it in the same word; one that stops making progress for a
 *   minute is given up on. Either way the main thread renders the whole rectangle again by itself and the
 *   pool is shut down (logged once on stderr).
 *
 * Only renders worth it go parallel: at least MIN_PIXELS of output and MIN_WORK layer-pixels of blending,
 * with every buffer the worker would receive in shared memory (otherwise the clone would copy pixels);
 * anything else renders on the main thread as before. A worker that is still starting (the first large
 * render of a process starts it) is simply not offered the job.
 *
 * The worker holds its copy of a state only during a job and then runs a garbage collection, so it never
 * keeps a dropped layer or composite alive (see parallel-worker.ts). It is unref'd (it never keeps the
 * process alive) and writes nothing to stdout (`atelier mcp` speaks JSON-RPC there; the worker points its
 * own stdout at stderr, should anything there ever print). In dist/ it is the .js file next to this one;
 * under tsx or vitest (sources) it is the .ts file, loaded through tsx's ESM hooks registered inside the
 * worker (Node 20 does not apply `--import tsx` from a worker's execArgv to the worker's entry module).
 *
 * ATELIER_COMPOSITE_WORKERS=n overrides the pool size (0 turns it off).
 *
 * A pool left without a render for a minute (once started) is stopped and starts again at the next large
 * render (which then runs on one thread while it starts): every session thread of the service has its own
 * pool, and an idle worker holds about 20 MB, so idle sessions would otherwise hold a pool each.
 *
 * The pools of one process share one budget of workers (the pool size above, counted process-wide): the
 * service passes its counter to every session thread (budget.ts), and a pool takes a worker only while
 * the budget has room, so 32 sessions compositing at once run at most cores − 1 compositor workers between them,
 * not 32 pools of them. A pool that found no room renders on its own thread and asks again at the next large
 * render. Each thread also counts what it holds, so the service gives back what a lost session thread held.
 */
import { availableParallelism } from 'node:os';
import { type Worker, workerData } from 'node:worker_threads';
import type { DocState, Layer, Rect } from '../model.js';
import { isSharedBuffer } from '../raster.js';
import { spawnSiblingWorker } from '../worker-boot.js';
import { returnToBudget, takeFromBudget } from './budget.js';
import { type EffectPaints, knownEffects, NO_EFFECTS } from './effects.js';
import type { Plan, PlanItem } from './plan.js';

/** Output pixels below which a render stays on the main thread (posting a job costs well under 1 ms). */
const MIN_PIXELS = 1 << 20;
/** Layer-pixels of blending (plus the output itself) below which a render stays on the main thread. */
const MIN_WORK = 2 << 20;
/** A worker that claims no new strip for this long is given up on. */
const STALL_MS = 60_000;
const MAX_WORKERS = 8;

// The control block of one job: an Int32Array on a SharedArrayBuffer. NEXT is the strip counter; then each
// worker offered the job has a state word and a count of the strips it claimed.
export const NEXT = 0;
export const OFFERED = 1;
export const RUNNING = 2;
export const DONE = 3;
export const FAILED = 4;
export const CANCELLED = 5;
export const stateIndex = (worker: number): number => 1 + 2 * worker;
export const claimedIndex = (worker: number): number => 2 + 2 * worker;

/** What the worker receives: the state, the rectangle, where to write, the effect rasters, its control. */
export interface JobMessage {
  readonly state: DocState;
  readonly rect: Rect;
  readonly strips: number;
  readonly out: Uint8ClampedArray;
  readonly stride: number;
  readonly ox: number;
  readonly oy: number;
  readonly effects: readonly (readonly [number, EffectPaints])[];
  readonly ctl: Int32Array;
  readonly worker: number;
}

/** `workerData` of a compositor worker. */
export interface WorkerInit {
  readonly atelierCompositeWorker: true;
  /** Set to 1 by the worker once its modules are loaded. */
  readonly ready: Int32Array;
}

export interface ParallelJob {
  readonly state: DocState;
  readonly plan: Plan;
  readonly strips: number;
  readonly out: Uint8ClampedArray;
  readonly stride: number;
  readonly ox: number;
  readonly oy: number;
}

/**
 * `auto`: share large renders when a worker is ready. `off`: always one thread. `workers`: for tests — any
 * render whose buffers are shared goes to the workers whatever its size, and the main thread waits for them
 * to finish before it looks for strips, so the workers render all of them.
 */
export type ParallelMode = 'auto' | 'off' | 'workers';

export interface ParallelStats {
  /** Renders shared with a worker. */
  readonly jobs: number;
  /** Strips rendered by workers and by the main thread in those renders. */
  readonly workerStrips: number;
  readonly mainStrips: number;
}

interface Slot {
  readonly worker: Worker;
  readonly ready: Int32Array;
  readonly started: Promise<boolean>;
  alive: boolean;
  /** Whether its place in the budget was given back (once: when it is stopped, or when it exits). */
  released: boolean;
}

const inWorker = (workerData as Partial<WorkerInit> | null)?.atelierCompositeWorker === true;
let mode: ParallelMode = 'auto';
let slots: Slot[] | null = null;
let stats = { jobs: 0, workerStrips: 0, mainStrips: 0 };
let logged = false;
let idleMs = 60_000;
let idleTimer: ReturnType<typeof setTimeout> | null = null;

export function setParallelMode(m: ParallelMode): void {
  mode = m;
}

export function parallelStats(): ParallelStats {
  return { ...stats };
}

/** How long an unused pool is kept (tests shorten it). */
export function setPoolIdleMs(ms: number): void {
  idleMs = ms;
}

/** Workers in the pool now, ready or starting (0 when it is stopped or was never started). */
export function poolWorkers(): number {
  return slots?.length ?? 0;
}

/** (Re)arms the idle timer: the pool was just started or used. */
function touchPool(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(retireIdlePool, idleMs);
  idleTimer.unref();
}

/**
 * Stops an idle pool so that the next large render starts a new one. No render is in flight: renders are
 * synchronous on this thread and finish with every offered worker done or withdrawn. A pool shut down after
 * a failure (empty) stays off.
 */
function retireIdlePool(): void {
  idleTimer = null;
  if (!slots?.length) return;
  // Still starting: it has not been idle yet.
  if (slots.some((s) => s.alive && Atomics.load(s.ready, 0) !== 1)) {
    touchPool();
    return;
  }
  for (const s of slots) stopSlot(s);
  slots = null;
}

/** Starts the pool if it is not running and resolves to the number of workers ready to take renders. */
export async function parallelReady(): Promise<number> {
  const pool = startPool();
  // The workers are unref'd; hold the process open while they start, or a script with nothing else to
  // do would exit while waiting here.
  for (const s of pool) s.worker.ref();
  const ok = await Promise.all(pool.map((s) => s.started));
  for (const s of pool) s.worker.unref();
  touchPool();
  return ok.filter(Boolean).length;
}

function workerCount(): number {
  const env = process.env.ATELIER_COMPOSITE_WORKERS;
  const n = env !== undefined && env.trim() !== '' ? Number(env) : availableParallelism() - 1;
  return Number.isFinite(n) ? Math.max(0, Math.min(MAX_WORKERS, Math.floor(n))) : 0;
}

function logOnce(message: string): void {
  if (logged) return;
  logged = true;
  process.stderr.write(`atelier: ${message}; compositing on one thread\n`);
}

/**
 * The pool, started on first use (empty when there are no spare cores or it was shut down). With no room in
 * the budget it stays unstarted, and the next large render asks again.
 */
function startPool(): Slot[] {
  if (slots) return slots;
  if (inWorker || !canWait()) {
    slots = [];
    return slots;
  }
  const n = workerCount();
  const pool: Slot[] = [];
  let failed = false;
  while (pool.length < n && takeFromBudget(n)) {
    const slot = startWorker();
    if (!slot) {
      returnToBudget();
      failed = true;
      break;
    }
    pool.push(slot);
  }
  // No room left by the other threads' pools: not started, so the next large render asks again.
  if (pool.length === 0 && n > 0 && !failed) return pool;
  slots = pool;
  return slots;
}

function giveBack(slot: Slot): void {
  if (slot.released) return;
  slot.released = true;
  returnToBudget();
}

/** Stops a worker of the pool, its place in the budget given back at once. */
function stopSlot(slot: Slot): void {
  slot.alive = false;
  giveBack(slot);
  void slot.worker.terminate();
}

/** Whether this thread may block in `Atomics.wait` (Node's main thread may; some embedders forbid it). */
function canWait(): boolean {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

function startWorker(): Slot | null {
  const ready = new Int32Array(new SharedArrayBuffer(4));
  const init: WorkerInit = { atelierCompositeWorker: true, ready };
  let worker: Worker;
  try {
    worker = spawn(init);
  } catch (err) {
    logOnce(`compositor worker could not start (${err instanceof Error ? err.message : String(err)})`);
    return null;
  }
  let settle: (ok: boolean) => void = () => {};
  const started = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  const slot: Slot = { worker, ready, started, alive: true, released: false };
  worker.on('message', (m: unknown) => {
    if (m === 'ready') settle(true);
  });
  worker.on('error', (err) => {
    slot.alive = false;
    settle(false);
    logOnce(`compositor worker failed (${err instanceof Error ? err.message : String(err)})`);
  });
  worker.on('exit', () => {
    slot.alive = false;
    settle(false);
    giveBack(slot);
  });
  // After the listeners: adding a 'message' listener refs the worker's port again.
  worker.unref();
  return slot;
}

/** The worker: parallel-worker.js in dist/; the .ts source through tsx's hooks when running from sources. */
function spawn(init: WorkerInit): Worker {
  return spawnSiblingWorker(import.meta.url, 'parallel-worker', { workerData: init });
}

function shutDown(reason: string): void {
  logOnce(reason);
  for (const s of slots ?? []) stopSlot(s);
  slots = [];
}

/**
 * Renders `job` together with the ready workers: `renderShare(next)` is the main thread's part (it renders
 * the strips `next` hands out). Returns false, having done nothing, when the render should stay on the
 * main thread.
 */
export function renderParallel(job: ParallelJob, renderShare: (next: () => number) => void): boolean {
  if (mode === 'off' || inWorker) return false;
  const { rect } = job.plan;
  if (mode === 'auto' && (job.strips < 2 || rect.w * rect.h < MIN_PIXELS || planWork(job.plan) < MIN_WORK)) {
    return false;
  }
  const pool = startPool();
  touchPool();
  const ready = pool.filter((s) => s.alive && Atomics.load(s.ready, 0) === 1);
  if (ready.length === 0) return false;
  if (!isSharedBuffer(job.out) || !layersShared(job.state)) return false;
  const effects = effectsOf(job.state);
  if (!effects) return false;

  const ctl = new Int32Array(new SharedArrayBuffer(4 * (1 + 2 * ready.length)));
  // The selection is not drawn, and might not be shared: leave it behind.
  const state: DocState = { ...job.state, selection: null };
  const offered: number[] = [];
  for (let i = 0; i < ready.length; i++) {
    ctl[stateIndex(i)] = OFFERED;
    const { strips, out, stride, ox, oy } = job;
    const message: JobMessage = { state, rect, strips, out, stride, ox, oy, effects, ctl, worker: i };
    try {
      ready[i]!.worker.postMessage(message);
      offered.push(i);
    } catch (err) {
      // A value the structured clone cannot copy: nothing reached the worker.
      ctl[stateIndex(i)] = CANCELLED;
      logOnce(`a render could not be posted to the compositor worker (${String(err)})`);
      return offered.length > 0 ? finish(job, ctl, ready, offered, renderShare) : false;
    }
  }
  return finish(job, ctl, ready, offered, renderShare);
}

function finish(
  job: ParallelJob,
  ctl: Int32Array,
  ready: readonly Slot[],
  offered: readonly number[],
  renderShare: (next: () => number) => void,
): true {
  let failed = false;
  // Waits until worker i is done with the job; false if it failed or stalled.
  const waitFor = (i: number): boolean => {
    const s = stateIndex(i);
    let claimed = Atomics.load(ctl, claimedIndex(i));
    let since = Date.now();
    for (;;) {
      const st = Atomics.load(ctl, s);
      if (st === DONE || st === CANCELLED) return true;
      if (st === FAILED) return false;
      if (Atomics.wait(ctl, s, st, 1000) !== 'timed-out') continue;
      const now = Atomics.load(ctl, claimedIndex(i));
      if (now !== claimed) {
        claimed = now;
        since = Date.now();
      } else if (Date.now() - since > STALL_MS) {
        return false;
      }
    }
  };
  if (mode === 'workers') {
    // Tests: let the workers render every strip; withdraw an offer not taken within 10 s.
    for (const i of offered) {
      if (Atomics.wait(ctl, stateIndex(i), OFFERED, 10_000) === 'timed-out') {
        Atomics.compareExchange(ctl, stateIndex(i), OFFERED, CANCELLED);
      }
      if (!waitFor(i)) failed = true;
    }
  }
  let mine = 0;
  if (!failed) {
    renderShare(() => {
      const i = Atomics.add(ctl, NEXT, 1);
      if (i < job.strips) mine++;
      return i;
    });
  }
  let theirs = 0;
  for (const i of offered) {
    // Not started yet: withdraw the offer (if the worker claims it first, wait for it instead).
    if (Atomics.compareExchange(ctl, stateIndex(i), OFFERED, CANCELLED) === OFFERED) continue;
    if (!waitFor(i)) {
      failed = true;
      ready[i]!.alive = false;
    }
    theirs += Atomics.load(ctl, claimedIndex(i));
  }
  if (failed) {
    shutDown('the compositor worker failed during a render');
    // Its strips may be half written: render everything here.
    let k = 0;
    renderShare(() => k++);
    return true;
  }
  stats = {
    jobs: stats.jobs + 1,
    workerStrips: stats.workerStrips + theirs,
    mainStrips: stats.mainStrips + mine,
  };
  return true;
}

/** Whether every pixel buffer of every layer (all are cloned with the state) is in shared memory. */
function layersShared(state: DocState): boolean {
  for (const layer of state.layers.values()) {
    if (layer.mask && !isSharedBuffer(layer.mask.data)) return false;
    if (!rastersShared(layer)) return false;
  }
  return true;
}

function rastersShared(layer: Layer): boolean {
  switch (layer.kind) {
    case 'pixel':
    case 'text':
      return isSharedBuffer(layer.raster.data);
    case 'smart':
      return isSharedBuffer(layer.raster.data) && isSharedBuffer(layer.source.data);
    case 'fill':
    case 'adjustment':
    case 'group':
      return true;
  }
}

/**
 * The effect rasters computed so far for the state's layers, by layer id; null when one is not in shared
 * memory. The main thread has built the plan already, which computes the effects of every layer the plan
 * looks at, so the worker, building the same plan, finds all it needs.
 */
function effectsOf(state: DocState): [number, EffectPaints][] | null {
  const out: [number, EffectPaints][] = [];
  for (const layer of state.layers.values()) {
    const paints = knownEffects(layer);
    if (!paints || paints === NO_EFFECTS) continue;
    for (const p of [...paints.below, ...paints.above]) {
      if (!isSharedBuffer(p.raster.data)) return null;
    }
    out.push([layer.id, paints]);
  }
  return out;
}

/** Roughly how many layer-pixels the render blends: each node's extent, plus the output itself. */
function planWork(plan: Plan): number {
  const area = (r: Rect) => r.w * r.h;
  const items = (list: readonly PlanItem[]): number => {
    let n = 0;
    for (const item of list) {
      for (const node of [item.node, ...item.clips]) {
        n += area(node.bounds);
        if (node.kind === 'group') n += items(node.items);
      }
    }
    return n;
  };
  return area(plan.rect) + items(plan.items);
}
