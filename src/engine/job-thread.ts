/**
 * One worker thread that runs a module's jobs off the calling thread, whatever the jobs are (PSD files,
 * io/psd-thread.ts; a garment photo's analysis, garment/builtin/photo-thread.ts): the queue, the worker's
 * life, what crosses between the threads and what happens when the worker fails. The job itself is the same
 * function on either side, so a job the worker cannot run is run on the calling thread with the same result.
 *
 * Jobs go to the worker one at a time, in order.
 *
 * Robustness: the worker starts on first use and is unref'd, except while a job waits for it (a script awaiting
 * a job would otherwise exit). If it cannot start (it fails, exits or has not answered by its first job's
 * deadline), jobs stay on the calling thread for the rest of the process. If it dies during a job, that job
 * runs again on the calling thread and the next job starts a new worker. A job that outlives its deadline (far
 * beyond any real job) fails with the error the owner gives and the worker is replaced, so no call waits
 * forever. Failures are logged once on stderr; the worker never writes to stdout (see `serveJobs`).
 *
 * The worker belongs to the process's main thread. Other threads (the service's session threads) reach a
 * `shared` one through a port the main thread hands them (`jobThreadPort`, `useJobThreadPort`): a worker per
 * session thread would multiply the memory, and with a session's own analysis on its own thread a call that
 * could run beside it costs the sum of both. The main thread runs none of their jobs itself: a job it cannot
 * give its worker (worker off or unable to start, queue full, worker lost during the job) is sent back to run
 * on the thread that asked, with the same result.
 */
import { isMainThread, MessageChannel, type MessagePort, parentPort, type Worker } from 'node:worker_threads';
import { EditorError, type ErrorCode } from './errors.js';
import { garbageCollector, spawnSiblingWorker } from './worker-boot.js';

/** An error as it crosses threads: `code` set for an EditorError. */
export interface ThreadFailure {
  readonly code?: ErrorCode;
  readonly name: string;
  readonly message: string;
  readonly hint?: string;
  readonly details?: unknown;
  readonly stack?: string;
}

/** What the worker posts: ready once loaded, then one answer per job. `lost`: the answer could not be sent. */
export type ThreadReply<R> =
  | { readonly kind: 'ready' }
  | { readonly kind: 'done'; readonly result: R }
  | { readonly kind: 'failed'; readonly error: ThreadFailure }
  | { readonly kind: 'lost'; readonly reason: string };

export function failureOf(err: unknown): ThreadFailure {
  if (err instanceof EditorError) {
    const { code, name, message, hint, details } = err;
    return { code, name, message, ...(hint !== undefined ? { hint } : {}), details };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: e.name, message: e.message, ...(e.stack !== undefined ? { stack: e.stack } : {}) };
}

export function errorOf(f: ThreadFailure): Error {
  if (f.code) return new EditorError(f.code, f.message, { hint: f.hint, details: f.details });
  const e = new Error(f.message);
  e.name = f.name;
  if (f.stack) e.stack = f.stack;
  return e;
}

/**
 * The worker's side, called by its entry module once stdout points at stderr (`atelier mcp` speaks JSON-RPC on
 * the process's stdout, which a worker's stdout feeds). Runs each job it is posted and posts back the result,
 * transferring what `transferablesOf` names; after each job it collects its garbage, letting go of shared
 * pixels at once.
 */
export function serveJobs<J, R>(
  perform: (job: J) => Promise<R>,
  transferablesOf: (result: R) => ArrayBuffer[] = () => [],
): void {
  const collect = garbageCollector();
  const port = parentPort!;
  const run = async (job: J): Promise<void> => {
    let reply: ThreadReply<R>;
    let transfer: ArrayBuffer[] = [];
    try {
      const result = await perform(job);
      reply = { kind: 'done', result };
      transfer = transferablesOf(result);
    } catch (err) {
      reply = { kind: 'failed', error: failureOf(err) };
    }
    try {
      port.postMessage(reply, transfer);
    } catch (err) {
      // A value the structured clone cannot copy (nothing was sent): the calling thread runs the job itself.
      port.postMessage({ kind: 'lost', reason: reasonOf(err) } satisfies ThreadReply<R>);
    }
  };
  port.on('message', (job: J) => {
    void run(job).then(() => setImmediate(collect));
  });
  port.postMessage({ kind: 'ready' } satisfies ThreadReply<R>);
}

/**
 * `auto`: jobs of the owner's minimum size or more go to the worker. `off`: every job runs on the calling thread.
 * `always`: for tests, every job goes to the worker whatever its size.
 */
export type ThreadMode = 'auto' | 'off' | 'always';

export interface ThreadStats {
  /** Jobs the worker answered (failures included). */
  readonly worker: number;
  /** Jobs run on the calling thread: small ones, and all of them when the worker is off or cannot start. */
  readonly here: number;
  /** Jobs the worker lost (it died or could not send the answer) and the calling thread ran again. */
  readonly recovered: number;
  /** Jobs other threads posted to this thread's worker (`jobThreadPort`), those it sent back included. */
  readonly relayed: number;
  /** Of those, the ones sent back to run on the thread that posted them (no worker, or too many waiting). */
  readonly declined: number;
  /** Workers started. */
  readonly starts: number;
}

/** What a job thread is for. */
export interface JobThreadOptions<J, R> {
  /** How the logs name its jobs ("PSD", "photo analysis"). */
  readonly what: string;
  /** What the logs say the jobs fall back to ("PSD files are read and written on the main thread"). */
  readonly fallback: string;
  /** The caller's `import.meta.url` and the worker's module beside it (see spawnSiblingWorker). */
  readonly callerUrl: string;
  readonly workerModule: string;
  /** The variable that, set to 0, keeps every job on the calling thread. */
  readonly envOff: string;
  /** The job, run on the calling thread. */
  readonly perform: (job: J) => Promise<R>;
  /** How big a job is (its deadline grows with it), and the size below which it stays here in `auto` mode. */
  readonly sizeOf: (job: J) => number;
  readonly minSize: number;
  readonly deadlineMs: (size: number) => number;
  /** Added to the deadline of a job that waits for the worker to load its modules (tsx compiles them first). */
  readonly startupMs: number;
  /** A result as the caller expects it, from what the structured clone delivered. */
  readonly revive: (result: R) => R;
  /** The error of a job that outlived its deadline. */
  readonly overdueError: (job: J, seconds: number) => Error;
  /**
   * A worker left without a job this long is stopped (the next job starts another), so an idle process does not
   * keep what the worker holds; absent, it runs until the process ends.
   */
  readonly idleStopMs?: number;
  /**
   * Other threads' jobs run on the main thread's worker (`jobThreadPort`); without it each thread runs its own
   * jobs. A job of theirs is sent back to run there when this many jobs already wait for the worker (absent: no
   * bound), so that one thread's burst does not make the others wait longer than running their job themselves.
   */
  readonly shared?: { readonly maxWaiting?: number };
}

interface Thread {
  readonly worker: Worker;
  /** It has loaded its modules. */
  ready: boolean;
  /** Stopped on purpose: its exit says nothing about whether a worker can start. */
  stopping: boolean;
  /** Why it failed, when it did. */
  failure?: string;
}

interface Queued<J, R> {
  readonly job: J;
  readonly size: number;
  readonly resolve: (r: R) => void;
  readonly reject: (e: unknown) => void;
  /** Another thread's job: run there, not here, when the worker cannot run it. */
  readonly from?: { readonly port: MessagePort; readonly runThere: (why: 'declined' | 'lost') => void };
  /**
   * Started ahead of need (`ahead`): it never holds the process open, and where another job would run on the
   * calling thread it is skipped instead.
   */
  ahead?: boolean;
  /** This thread's job started ahead: called instead of running it here. */
  readonly skip?: () => void;
  /** The worker running it, once posted. */
  on?: Thread;
  timer?: NodeJS.Timeout;
}

export class JobThread<J, R> {
  private mode: ThreadMode = 'auto';
  private thread: Thread | null = null;
  /** Set when a worker could not start: jobs stay on the calling thread from then on. */
  private disabled = false;
  private running: Queued<J, R> | null = null;
  private readonly queue: Queued<J, R>[] = [];
  private readonly counts = { worker: 0, here: 0, recovered: 0, relayed: 0, declined: 0, starts: 0 };
  private logged = false;
  private idleStopMs: number | undefined;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: JobThreadOptions<J, R>) {
    this.idleStopMs = opts.idleStopMs;
    if (opts.shared) sharedThreads.set(opts.what, this as JobThread<unknown, unknown>);
  }

  /** How long an idle worker is kept (tests shorten it). */
  setIdleStop(ms: number): void {
    this.idleStopMs = ms;
    if (this.thread && !this.running) this.idle();
  }

  setMode(m: ThreadMode): void {
    this.mode = m;
  }

  stats(): ThreadStats {
    return { ...this.counts };
  }

  /** Whether a worker is running or starting. */
  get started(): boolean {
    return this.thread !== null;
  }

  /** Whether the worker is running a job. */
  get working(): boolean {
    return this.running !== null;
  }

  /**
   * Runs `job`: on the worker when it is large enough and a worker can take it, else here. Off the main thread, the
   * worker is the main thread's (`useJobThreadPort`). The job is posted before this returns.
   */
  submit(job: J): Promise<R> {
    const size = this.opts.sizeOf(job);
    if (this.staysHere(size)) {
      this.counts.here++;
      return this.opts.perform(job);
    }
    if (!isMainThread) return this.submitToMain(job);
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ job, size, resolve, reject });
      this.pump();
    });
  }

  /**
   * Starts `job` on the worker ahead of the call that will want its result, if the worker is free: resolves to the
   * result, or to null when the job did not run there (worker busy, off or unable to start, job too small, worker
   * lost, job failed or overdue). It never runs on the calling thread and never holds the process open: the
   * caller that needs the result later submits the job as usual when this gave null. This thread's own job
   * submitted while it runs waits for it, as behind any other job; another thread's is sent back to run there
   * (`relayed`).
   */
  ahead(job: J): AheadJob<R> {
    const size = this.opts.sizeOf(job);
    if (this.staysHere(size)) return NOT_AHEAD;
    if (!isMainThread) return this.aheadOnMain(job);
    if (this.running || this.queue.length) return NOT_AHEAD;
    let q: Queued<J, R> | undefined;
    const result = new Promise<R | null>((resolve) => {
      const skip = () => resolve(null);
      q = { job, size, resolve, reject: skip, ahead: true, skip };
      this.queue.push(q);
      this.pump();
    });
    return {
      result,
      want: () => {
        if (q?.ahead) {
          q.ahead = false;
          if (this.running === q) q.on!.worker.ref();
        }
        return result;
      },
    };
  }

  /** Whether a job of `size` runs on the calling thread whatever the worker's state. */
  private staysHere(size: number): boolean {
    return !this.offThread() || (this.mode === 'auto' && size < this.opts.minSize);
  }

  /** Starts the worker if needed and resolves to whether it is ready to take jobs (false when it cannot start). */
  async ready(): Promise<boolean> {
    const t = this.offThread() && isMainThread ? this.currentThread() : null;
    if (!t) return false;
    if (t.ready) return true;
    // Unref'd, the worker would not hold the process open while a script waits here for it.
    t.worker.ref();
    try {
      return await new Promise<boolean>((resolve) => {
        const onMessage = (m: ThreadReply<R>) => {
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
      if (this.running?.on !== t) {
        t.worker.unref();
        this.idle();
      }
    }
  }

  /** Stops the worker (the next job starts a new one); a job it was running is run again on the calling thread. */
  async stop(): Promise<void> {
    const t = this.thread;
    if (!t) return;
    t.stopping = true;
    await t.worker.terminate();
  }

  private offThread(): boolean {
    if (this.disabled || this.mode === 'off') return false;
    if (!isMainThread && !(this.opts.shared && relay)) return false;
    return process.env[this.opts.envOff]?.trim() !== '0';
  }

  /** Off the main thread: the job goes to the main thread's worker, or runs here if that one sends it back. */
  private async submitToMain(job: J): Promise<R> {
    let answer: RelayAnswer<R>;
    try {
      answer = await relay!.ask<J, R>(this.opts.what, job);
    } catch (err) {
      // A value the structured clone cannot copy: nothing was posted.
      this.logOnce(`a ${this.opts.what} job could not be posted to the main thread (${reasonOf(err)})`);
      this.counts.here++;
      return this.opts.perform(job);
    }
    switch (answer.kind) {
      case 'done':
        this.counts.worker++;
        return this.opts.revive(answer.result);
      case 'failed':
        this.counts.worker++;
        throw errorOf(answer.error);
      case 'declined':
        this.counts.here++;
        return this.opts.perform(job);
      case 'lost':
        this.counts.recovered++;
        return this.opts.perform(job);
    }
  }

  /** Off the main thread: `ahead` on the main thread's worker; null for anything but its result. */
  private aheadOnMain(job: J): AheadJob<R> {
    let asked: { readonly seq: number; readonly answer: Promise<RelayAnswer<R>> };
    try {
      asked = relay!.post<J, R>(this.opts.what, job, true);
    } catch {
      // A value the structured clone cannot copy: nothing was posted.
      return NOT_AHEAD;
    }
    const result = asked.answer.then((answer) => {
      if (answer.kind !== 'done') return null;
      this.counts.worker++;
      return this.opts.revive(answer.result);
    });
    return {
      result,
      want: () => {
        relay!.hold(asked.seq);
        return result;
      },
    };
  }

  /**
   * Another thread's job (`jobThreadPort`): queued for the worker, or sent back at once to run there when this
   * thread would run it itself, enough jobs already wait or the worker runs a job started ahead (a job `ahead`:
   * when any job runs or waits).
   * `answer` carries the result as the worker gave it.
   */
  relayed(job: J, port: MessagePort, answer: (a: RelayAnswer<R>) => void, ahead = false): void {
    this.counts.relayed++;
    const size = this.opts.sizeOf(job);
    const maxWaiting = this.opts.shared?.maxWaiting ?? Number.POSITIVE_INFINITY;
    // A job started ahead waits for nothing, and nothing waits for it: the job that may be wanted soon never
    // delays one wanted now (it runs on its own thread instead, at once).
    const busy = ahead
      ? this.running !== null || this.queue.length > 0
      : this.queue.length >= maxWaiting || this.running?.ahead === true;
    if (!isMainThread || this.staysHere(size) || busy) {
      this.counts.declined++;
      answer({ kind: 'declined' });
      return;
    }
    this.queue.push({
      job,
      size,
      resolve: (result) => answer({ kind: 'done', result }),
      reject: (err) => answer({ kind: 'failed', error: failureOf(err) }),
      from: {
        port,
        runThere: (why) => {
          if (why === 'declined') this.counts.declined++;
          answer({ kind: why });
        },
      },
      ...(ahead ? { ahead: true as const } : {}),
    });
    this.pump();
  }

  /** The jobs `port`'s thread posted and the worker has not begun: that thread has gone. */
  dropJobsOf(port: MessagePort): void {
    for (let i = this.queue.length - 1; i >= 0; i--)
      if (this.queue[i]!.from?.port === port) this.queue.splice(i, 1);
  }

  /** Posts the next job when the worker is free; runs jobs here when there is no worker to post them to. */
  private pump(): void {
    while (!this.running && this.queue.length > 0) {
      const q = this.queue.shift()!;
      const t = this.offThread() ? this.currentThread() : null;
      if (!t) {
        this.runHere(q, 'declined');
        continue;
      }
      try {
        // This thread's own job is copied: the caller keeps its buffers (to run the job itself if the worker
        // fails). Another thread's came here by transfer and goes on the same way: that thread keeps its own
        // bytes to run the job again, so nothing here needs them once posted.
        t.worker.postMessage(q.job, q.from ? ownBuffersOf(q.job) : []);
      } catch (err) {
        // A value the structured clone cannot copy: nothing reached the worker.
        this.logOnce(`a ${this.opts.what} job could not be posted to the worker (${reasonOf(err)})`);
        this.runHere(q, 'declined');
        continue;
      }
      this.running = q;
      q.on = t;
      this.busy();
      if (!q.ahead) t.worker.ref();
      q.timer = setTimeout(
        () => this.overdue(q),
        this.opts.deadlineMs(q.size) + (t.ready ? 0 : this.opts.startupMs),
      );
      q.timer.unref();
    }
    if (!this.running && this.thread) {
      this.thread.worker.unref();
      this.idle();
    }
    // Jobs wait behind one started ahead: the worker holds the process open for them as for their own.
    if (this.running?.ahead && this.queue.length) this.running.on!.worker.ref();
  }

  /** The worker has no job: it is stopped if it gets none within the idle time. */
  private idle(): void {
    this.busy();
    if (this.idleStopMs === undefined) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      const t = this.thread;
      if (!t || this.running || this.queue.length) return;
      t.stopping = true;
      this.thread = null;
      void t.worker.terminate();
    }, this.idleStopMs);
    this.idleTimer.unref();
  }

  private busy(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /**
   * Runs a job the worker did not take (`declined`) or lost (`lost`) on the thread that submitted it: here, or
   * another thread's, which is told to.
   */
  private runHere(q: Queued<J, R>, why: 'declined' | 'lost'): void {
    if (why === 'lost') this.counts.recovered++;
    if (q.from) {
      q.from.runThere(why);
      return;
    }
    if (q.skip) {
      q.skip();
      return;
    }
    if (why === 'declined') this.counts.here++;
    this.opts.perform(q.job).then(q.resolve, q.reject);
  }

  /** Takes the running job off the worker to settle it; the caller then pumps. */
  private release(): Queued<J, R> {
    const q = this.running!;
    this.running = null;
    clearTimeout(q.timer);
    return q;
  }

  private currentThread(): Thread | null {
    if (this.thread) return this.thread;
    if (this.disabled) return null;
    let worker: Worker;
    try {
      worker = spawnSiblingWorker(this.opts.callerUrl, this.opts.workerModule, {});
    } catch (err) {
      this.cannotStart(`the ${this.opts.what} worker could not start (${reasonOf(err)})`);
      return null;
    }
    const t: Thread = { worker, ready: false, stopping: false };
    this.thread = t;
    this.counts.starts++;
    worker.on('message', (m: ThreadReply<R>) => this.answered(t, m));
    worker.on('messageerror', (err) => {
      this.logOnce(`an answer of the ${this.opts.what} worker could not be read (${reasonOf(err)})`);
      this.lost(t);
    });
    worker.on('error', (err) => {
      t.failure = reasonOf(err);
    });
    worker.on('exit', (code) => {
      if (this.thread === t) this.thread = null;
      const why = t.failure ?? `exit code ${code}`;
      if (!t.stopping) {
        if (t.ready) this.logOnce(`the ${this.opts.what} worker stopped (${why})`);
        else this.cannotStart(`the ${this.opts.what} worker could not start (${why})`);
      }
      this.lost(t);
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    return t;
  }

  private answered(t: Thread, m: ThreadReply<R>): void {
    if (m.kind === 'ready') {
      t.ready = true;
    } else if (m.kind === 'lost') {
      this.logOnce(`the ${this.opts.what} worker could not send an answer (${m.reason})`);
      this.lost(t);
    } else if (this.running?.on === t) {
      const q = this.release();
      this.counts.worker++;
      // Another thread's result crosses once more: that thread revives it.
      if (m.kind === 'done') q.resolve(q.from ? m.result : this.opts.revive(m.result));
      else q.reject(errorOf(m.error));
      this.pump();
    }
  }

  /** The worker `t` will not answer the job it runs (if any): run that job again here. */
  private lost(t: Thread): void {
    if (this.running?.on !== t) return;
    this.runHere(this.release(), 'lost');
    this.pump();
  }

  /** The running job outlived its deadline: stop its worker; fail the job, or run it here if the worker never started. */
  private overdue(q: Queued<J, R>): void {
    if (this.running !== q) return;
    const t = q.on!;
    this.release();
    t.stopping = true;
    if (this.thread === t) this.thread = null;
    void t.worker.terminate();
    if (!t.ready) {
      this.cannotStart(`the ${this.opts.what} worker did not start in time`);
      this.runHere(q, 'lost');
    } else {
      const seconds = Math.round(this.opts.deadlineMs(q.size) / 1000);
      this.logOnce(`a ${this.opts.what} job took longer than ${seconds} s; its worker was stopped`);
      q.reject(this.opts.overdueError(q.job, seconds));
    }
    this.pump();
  }

  private cannotStart(why: string): void {
    this.disabled = true;
    this.logOnce(`${why}; ${this.opts.fallback}`);
  }

  private logOnce(message: string): void {
    if (this.logged) return;
    this.logged = true;
    process.stderr.write(`atelier: ${message}\n`);
  }
}

/**
 * `job` with each binary field (a typed array or DataView among its own fields, not in shared memory) copied into a buffer of its own,
 * and those buffers, to post it by transfer: the one copy made here replaces the structured clone's two (into
 * the message, out of it), and the caller keeps its own bytes.
 */
export function handOver<J>(job: J): { job: J; transfer: ArrayBuffer[] } {
  if (job === null || typeof job !== 'object' || Array.isArray(job)) return { job, transfer: [] };
  const transfer: ArrayBuffer[] = [];
  const out: Record<string, unknown> = { ...(job as Record<string, unknown>) };
  for (const [key, value] of Object.entries(out)) {
    // Shared memory crosses as it is, without a copy.
    if (!ArrayBuffer.isView(value) || !(value.buffer instanceof ArrayBuffer)) continue;
    const bytes = new Uint8Array(value.byteLength);
    bytes.set(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    // The same kind of view over the copy (a Buffer arrives as a Uint8Array, as it does cloned).
    out[key] =
      value instanceof DataView
        ? new DataView(bytes.buffer)
        : Buffer.isBuffer(value)
          ? bytes
          : new (value.constructor as new (buffer: ArrayBuffer) => ArrayBufferView)(bytes.buffer);
    transfer.push(bytes.buffer);
  }
  return { job: out as J, transfer };
}

/** The buffers a job that arrived by transfer (`handOver`) holds alone, to pass it on the same way. */
function ownBuffersOf(job: unknown): ArrayBuffer[] {
  if (job === null || typeof job !== 'object') return [];
  const buffers: ArrayBuffer[] = [];
  for (const value of Object.values(job)) {
    if (
      ArrayBuffer.isView(value) &&
      value.buffer instanceof ArrayBuffer &&
      value.byteOffset === 0 &&
      value.byteLength === value.buffer.byteLength &&
      !buffers.includes(value.buffer)
    ) {
      buffers.push(value.buffer);
    }
  }
  return buffers;
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A job started ahead of need (`JobThread.ahead`). */
export interface AheadJob<R> {
  /** Its result, or null when it did not run on the worker. */
  readonly result: Promise<R | null>;
  /** `result`, for a caller that now waits for it: from here the job holds the process open as any job does. */
  want(): Promise<R | null>;
}

const NOT_AHEAD: AheadJob<never> = { result: Promise.resolve(null), want: () => Promise.resolve(null) };

/** What the main thread answers a job another thread posted (`jobThreadPort`). */
export type RelayAnswer<R> =
  | { readonly kind: 'done'; readonly result: R }
  | { readonly kind: 'failed'; readonly error: ThreadFailure }
  /** Not posted to the worker (none can run, or enough jobs wait): the thread that asked runs it. */
  | { readonly kind: 'declined' }
  /** The worker died or could not start during the job: the thread that asked runs it again. */
  | { readonly kind: 'lost' };

interface RelayRequest {
  readonly what: string;
  readonly seq: number;
  readonly job: unknown;
  readonly ahead?: true;
}

/** The main thread's shared job threads, by what their jobs are. */
const sharedThreads = new Map<string, JobThread<unknown, unknown>>();

/**
 * A port for another thread (the service's session threads) to post the jobs of `shared` job threads to the main
 * thread's workers; transfer it to the thread, which passes it to `useJobThreadPort`. When that thread ends, its
 * jobs the worker has not begun are dropped. The port does not keep the process alive.
 */
export function jobThreadPort(): MessagePort {
  const { port1: port, port2: theirs } = new MessageChannel();
  port.on('message', (m: RelayRequest) => {
    const thread = sharedThreads.get(m.what);
    const answer = (a: RelayAnswer<unknown>) => port.postMessage({ seq: m.seq, ...a });
    if (!thread) answer({ kind: 'declined' });
    else thread.relayed(m.job, port, answer, m.ahead === true);
  });
  port.on('close', () => {
    for (const thread of sharedThreads.values()) thread.dropJobsOf(port);
  });
  // After the listener: adding a 'message' listener refs the port again.
  port.unref();
  return theirs;
}

/** This thread's way to the main thread's workers (`jobThreadPort`). */
class Relay {
  private seq = 0;
  private readonly pending = new Map<number, (a: RelayAnswer<unknown>) => void>();
  /** The answers awaited that hold the thread open (all but those of jobs started ahead). */
  private readonly holding = new Set<number>();

  constructor(private readonly port: MessagePort) {
    port.on('message', ({ seq, ...a }: { seq: number } & RelayAnswer<unknown>) => {
      const settle = this.pending.get(seq);
      if (!settle) return;
      this.pending.delete(seq);
      if (this.holding.delete(seq) && this.holding.size === 0) this.port.unref();
      settle(a);
    });
    port.unref();
  }

  /**
   * Posts `job` at once (throws if it cannot be copied); resolves to the main thread's answer. Its binary fields
   * are handed over (`handOver`), so the main thread, which only passes the job on to its worker, never holds
   * a copy of them: a garment photo of 40 MB would otherwise be copied into the main thread and again out of
   * it, and held there for as long as the job waits and runs.
   */
  ask<J, R>(what: string, job: J): Promise<RelayAnswer<R>> {
    return this.post<J, R>(what, job, false).answer;
  }

  /** `ask`, the job's number beside its answer; a job `ahead` (`JobThread.ahead`) is not held until `hold`. */
  post<J, R>(what: string, job: J, ahead: boolean): { seq: number; answer: Promise<RelayAnswer<R>> } {
    const seq = ++this.seq;
    const { job: sent, transfer } = handOver(job);
    this.port.postMessage(
      { what, seq, job: sent, ...(ahead ? { ahead: true as const } : {}) } satisfies RelayRequest,
      transfer,
    );
    const answer = new Promise<RelayAnswer<R>>((resolve) => {
      this.pending.set(seq, resolve as (a: RelayAnswer<unknown>) => void);
    });
    if (!ahead) this.hold(seq);
    return { seq, answer };
  }

  /** Holds the thread open until job `seq` is answered: a thread awaiting its job must not end early. */
  hold(seq: number): void {
    if (!this.pending.has(seq) || this.holding.has(seq)) return;
    if (this.holding.size === 0) this.port.ref();
    this.holding.add(seq);
  }
}

let relay: Relay | null = null;

/** Sends this thread's jobs of `shared` job threads to the main thread's workers through `port` (jobThreadPort). */
export function useJobThreadPort(port: MessagePort): void {
  relay = new Relay(port);
}
