/**
 * Sessions on threads of their own, so that the thread that accepts requests (HTTP, MCP) stays responsive
 * whatever a session computes.
 *
 * Why a thread per session, not a pool sized to the cores with sessions pinned to it: a session's state (its
 * documents, history, composites and garment memory, often hundreds of MB) lives where its calls run, and
 * moving it between threads would cost a copy or a re-encoding per call; pinned to a shared thread, a session's
 * small call would wait behind whatever heavy call another session on that thread runs — the very stall this
 * removes. With one thread each, the operating system's scheduler shares the cores: a small call wakes up and
 * runs within a time slice while blurs and saves of other sessions compute. The cost is a thread's start-up
 * (modules loaded once per thread, hidden by keeping a spare thread warm) and its own heap (some tens of MB
 * while idle); the store's session limit bounds the number of threads. Rasters stay what they are: the engine's
 * own workers (compositing, PSD) are started from the session's thread as before.
 *
 * `WorkerSession` is the main thread's side of one session: the same `SessionHandle` the surfaces use with a
 * `Session`, over messages (session-messages.ts). A call's progress comes back as messages while it runs. The
 * garment photo is mirrored from each answer, so reading it needs no round trip.
 */
import type { Worker } from 'node:worker_threads';
import type { DocumentListing, SessionHandle } from '../calls/handle.js';
import { internalMessage } from '../calls/internal-error.js';
import type { Rendered } from '../calls/render.js';
import { failure, type ToolResult } from '../calls/result.js';
import { type CallOptions, type Progress, sessionDeleted } from '../calls/session.js';
import type { SessionSnapshot } from '../calls/snapshot.js';
import type { ThumbnailOf } from '../calls/thumbnail.js';
import { reclaimCompositeBudget, sharedCompositeBudget } from '../engine/composite/budget.js';
import { EditorError, type ErrorCode } from '../engine/errors.js';
import { jobThreadPort } from '../engine/job-thread.js';
import { spawnSiblingWorker } from '../engine/worker-boot.js';
import { type CloseReason, type HostOptions, sessionWorkspace } from './hosted-session.js';
import { SessionHeldElsewhere } from './session-lock.js';
import type { Answer, FromWorker, Request, ToWorker, WireError } from './session-messages.js';
import type { SessionWorkspace } from './session-workspace.js';

/**
 * Session threads at most (`ATELIER_SESSION_THREADS`): each costs some 55–60 MB and 0.5–1 s of start-up when no
 * warm spare is left (`npm run bench -- threads`), so past this
 * many sessions a new one shares the thread with the fewest sessions (and may wait behind their calls).
 */
export const MAX_SESSION_THREADS = Math.max(1, Number(process.env.ATELIER_SESSION_THREADS) || 32);

/** How long a thread asked to stop may take to end itself before it is terminated (`SessionThread.stop`). */
const STOP_GRACE_MS = 2000;

type AnswerOf<O extends Answer['op']> = Extract<Answer, { op: O }>;

interface Pending {
  readonly resolve: (answer: Answer) => void;
  readonly reject: (err: Error) => void;
  readonly onProgress?: (progress: Progress) => void;
}

/** The thread has stopped (it crashed or ran out of memory): its sessions are gone from memory. */
export class SessionThreadLost extends Error {}

/** A request that could not be copied to the thread: it never ran, and the thread is as it was. */
export class UnsendableRequest extends Error {}

function unwire(err: WireError): Error {
  if (err.kind === 'editor') {
    return new EditorError(err.code as ErrorCode, err.message, {
      ...(err.hint ? { hint: err.hint } : {}),
      ...(err.details !== undefined ? { details: err.details } : {}),
    });
  }
  if (err.kind === 'held') return new SessionHeldElsewhere(err.pid, err.host);
  return new Error(err.message);
}

/** One worker thread and the requests it has not answered yet. */
class SessionThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private stopped = false;
  /** Resolves when the thread has exited (stopped, or lost): nothing it ran can write any more. */
  readonly exited: Promise<void>;
  /** Sessions this thread hosts. */
  sessions = 0;
  /** Called once each when the thread stops unasked, with the reason. */
  readonly onLost = new Set<(reason: string) => void>();

  /** Where the worker's log lines go: the store of the session it runs. */
  log: (line: string) => void = () => {};

  constructor() {
    // Its compositor workers count against the process's one budget; what it still holds when it stops (its
    // workers stop with it, without saying so) is given back here.
    const budget = sharedCompositeBudget();
    // Its garment photos are analysed on the process's one photo worker (garment/builtin/photo-thread.ts).
    const jobs = jobThreadPort();
    this.worker = spawnSiblingWorker(import.meta.url, 'session-worker', {
      stdout: false,
      stderr: false,
      workerData: { compositeBudget: budget, jobs },
      transferList: [jobs],
    });
    this.worker.on('message', (message: FromWorker) => this.receive(message));
    this.worker.on('error', (err) => this.lose(`session thread failed: ${err.stack ?? err.message}`));
    this.exited = new Promise((resolve) => {
      this.worker.on('exit', (code) => {
        reclaimCompositeBudget(budget);
        this.lose(`session thread exited with code ${code}`);
        resolve();
      });
    });
    // After the listeners: adding a message listener refs the worker's port again.
    this.worker.unref();
  }

  get alive(): boolean {
    return !this.stopped;
  }

  request<O extends Request['op']>(
    request: Extract<Request, { op: O }>,
    onProgress?: (progress: Progress) => void,
    signal?: AbortSignal,
  ): Promise<AnswerOf<O>> {
    if (this.stopped) return Promise.reject(new SessionThreadLost('the session thread has stopped'));
    const seq = ++this.seq;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(seq, { resolve, reject, ...(onProgress ? { onProgress } : {}) });
      // Held open only while something waits for an answer (a script awaiting a call must not exit early).
      if (this.pending.size === 1) this.worker.ref();
      try {
        this.worker.postMessage({ seq, request });
      } catch (err) {
        // The request could not be copied to the thread (nested too deep, or a value that cannot be cloned):
        // the thread never saw it and is as it was.
        this.pending.delete(seq);
        if (this.pending.size === 0) this.worker.unref();
        reject(new UnsendableRequest(err instanceof Error ? err.message : String(err)));
        return;
      }
      // The caller gave up (CallOptions.signal): the thread is told, and the call keeps nothing.
      const cancel = () => {
        if (this.pending.has(seq) && !this.stopped) this.worker.postMessage({ cancel: seq });
      };
      if (signal?.aborted) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    }) as Promise<AnswerOf<O>>;
  }

  private receive(message: FromWorker): void {
    if ('log' in message) {
      this.log(message.log);
      return;
    }
    const waiting = this.pending.get(message.seq);
    if (!waiting) return;
    if ('progress' in message) {
      waiting.onProgress?.(message.progress);
      return;
    }
    this.pending.delete(message.seq);
    if (this.pending.size === 0) this.worker.unref();
    if ('error' in message) waiting.reject(unwire(message.error));
    else waiting.resolve(message.answer);
  }

  private lose(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const waiting of this.pending.values()) waiting.reject(new SessionThreadLost(reason));
    this.pending.clear();
    for (const lost of this.onLost) lost(reason);
  }

  /**
   * Ends the thread: it is asked to end itself, and terminated only if it has not within `STOP_GRACE_MS` (a call
   * computing without a pause). Why not terminate at once: Node 20 aborts the whole process (`Assertion failed:
   * (req_wrap) != nullptr` in AsyncDestCall) when a thread is terminated from outside just as its JavaScript
   * starts a promise file operation, which a session's writes and quota checks do all the time; a thread ending
   * itself between two tasks cannot be caught there. A thread that outlives the grace is inside a computation.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const waiting of this.pending.values()) waiting.reject(new SessionThreadLost('stopped'));
    this.pending.clear();
    try {
      this.worker.postMessage({ stop: true } satisfies ToWorker);
    } catch {
      // Already gone.
    }
    const force = setTimeout(() => void this.worker.terminate(), STOP_GRACE_MS);
    force.unref();
    void this.exited.then(() => clearTimeout(force));
  }
}

/** The threads sessions run on: one per open session, plus a few started ahead for the next ones. */
class SessionThreads {
  private readonly idle: SessionThread[] = [];
  private readonly running = new Set<SessionThread>();

  take(log: (line: string) => void): SessionThread {
    for (const t of this.running) if (!t.alive) this.running.delete(t);
    let thread: SessionThread | undefined;
    // The warm spare counts as one of the threads: it is the next session's, not one too many.
    if (this.running.size >= MAX_SESSION_THREADS) {
      thread = [...this.running].reduce((a, b) => (b.sessions < a.sessions ? b : a));
    } else {
      thread = this.idle.pop();
      while (thread && !thread.alive) thread = this.idle.pop();
      thread ??= new SessionThread();
      this.running.add(thread);
      if (this.running.size + this.idle.length < MAX_SESSION_THREADS) this.warm();
    }
    thread.log = log;
    return thread;
  }

  /** Starts a thread ahead of the next session, if none is idle: its modules load while nobody waits. */
  warm(): void {
    if (this.idle.length === 0) this.idle.push(new SessionThread());
  }

  /**
   * A thread whose last session closed ends, and a fresh one is warmed in its place if none is idle: its heap
   * may still hold that session's documents (garbage an idle thread has no reason to collect), which ending the
   * thread frees at once. `npm run bench -- threads`: resident memory left after deleting a session that held
   * an 8000 × 8000 document was 1.00× what it held when the thread was kept idle, −0.10× with it ended.
   */
  giveBack(thread: SessionThread): void {
    if (!thread.alive || thread.sessions > 0) return;
    this.running.delete(thread);
    thread.stop();
    if (this.running.size + this.idle.length < MAX_SESSION_THREADS) this.warm();
  }
}

const threads = new SessionThreads();

/** A render or thumbnail handed over by the session's thread, as the surfaces take it. */
function renderedOf({
  png,
  width,
  height,
  documentWidth,
  documentHeight,
}: AnswerOf<'render' | 'thumbnail'>): Rendered {
  return {
    png: Buffer.from(png.buffer, png.byteOffset, png.byteLength),
    width,
    height,
    documentWidth,
    documentHeight,
  };
}

/** Starts a session thread ahead of the first session (a server starting). */
export function warmSessionThreads(): void {
  threads.warm();
}

export interface WorkerSessionOptions {
  readonly log: (line: string) => void;
  /** Called when the session's thread stopped unasked: the session is no longer in memory. */
  readonly onLost: (reason: string) => void;
}

export class WorkerSession implements SessionHandle {
  private readonly id: string;
  readonly workspace: SessionWorkspace;
  garmentPhoto: string | null = null;
  private closed = false;
  /** Why the store closed the session, once it has: a call cut short by it says so. */
  private closing: CloseReason | null = null;
  private readonly lost: (reason: string) => void;

  private constructor(
    host: Pick<HostOptions, 'id' | 'dir' | 'journalDir' | 'diskQuotaBytes'>,
    private readonly thread: SessionThread,
    opts: WorkerSessionOptions,
  ) {
    this.id = host.id;
    this.workspace = sessionWorkspace(host);
    thread.sessions++;
    this.lost = (reason) => {
      this.closed = true;
      opts.onLost(reason);
    };
    thread.onLost.add(this.lost);
  }

  /** A new session on a thread of its own (available at once: requests wait for the thread to start). */
  static open(host: HostOptions, opts: WorkerSessionOptions): WorkerSession {
    const session = new WorkerSession(host, threads.take(opts.log), opts);
    session.thread
      .request({ op: 'open', host })
      .catch((err) => opts.log(`atelier: session ${host.id.slice(0, 8)}…: ${String(err)}`));
    return session;
  }

  /** The session its journal describes, rebuilt on a thread of its own. */
  static async recover(
    host: Omit<HostOptions, 'kind' | 'createdAt'>,
    opts: WorkerSessionOptions,
  ): Promise<{ session: WorkerSession; kind: string; createdAt: number; report: string }> {
    const session = new WorkerSession(host, threads.take(opts.log), opts);
    try {
      const answer = await session.thread.request({ op: 'recover', host });
      session.garmentPhoto = answer.garmentPhoto;
      return { session, kind: answer.kind, createdAt: answer.createdAt, report: answer.report };
    } catch (err) {
      session.release();
      throw err;
    }
  }

  async call(toolCall: unknown, opts: CallOptions = {}): Promise<ToolResult> {
    try {
      const answer = await this.thread.request(
        {
          op: 'call',
          id: this.id,
          call: toolCall,
          progress: opts.onProgress !== undefined,
          ...(opts.gesture !== undefined ? { gesture: opts.gesture } : {}),
        },
        opts.onProgress,
        opts.signal,
      );
      this.garmentPhoto = answer.garmentPhoto;
      return answer.result;
    } catch (err) {
      // Deleted while the call ran or waited: its thread stopped under it, or no longer hosts the session.
      if (this.closing === 'deleted') return sessionDeleted();
      if (err instanceof UnsendableRequest) {
        return failure(
          'invalid_arguments',
          `调用无法处理：参数嵌套过深或含有无法传递的值（${err.message}）`,
          {
            hint: '参数应为普通的 JSON 对象，层级不超过几层',
          },
        );
      }
      return failure('internal', internalMessage(err, '会话的工作线程已停止：'), {
        hint: '请重试：会话会从它的日志恢复到最后一次完成的调用之后',
      });
    }
  }

  async setGarmentPhoto(path: string | null): Promise<void> {
    await this.thread.request({ op: 'garment_photo', id: this.id, path });
    this.garmentPhoto = path;
  }

  async snapshot(): Promise<SessionSnapshot> {
    return (await this.thread.request({ op: 'snapshot', id: this.id })).snapshot;
  }

  async documents(): Promise<DocumentListing[]> {
    return (await this.thread.request({ op: 'documents', id: this.id })).documents;
  }

  async inkPreview(value: string): Promise<string | undefined> {
    return (await this.thread.request({ op: 'ink', id: this.id, value })).hex ?? undefined;
  }

  async render(name: string, max: number): Promise<Rendered> {
    return renderedOf(await this.thread.request({ op: 'render', id: this.id, name, max }));
  }

  async layerAt(name: string, x: number, y: number): Promise<number | null> {
    return (await this.thread.request({ op: 'layer_at', id: this.id, name, x, y })).layer;
  }

  async thumbnail(name: string, layer: number, max: number, of: ThumbnailOf = 'pixels'): Promise<Rendered> {
    return renderedOf(await this.thread.request({ op: 'thumbnail', id: this.id, name, layer, max, of }));
  }

  /** Removes a file of the session's folder between two of its calls (hosted-session.ts `removeFile`). */
  async removeFile(relPath: string): Promise<void> {
    await this.thread.request({ op: 'remove_file', id: this.id, path: relPath });
  }

  /** Keeps the session's journal lock alive. */
  async heartbeat(): Promise<void> {
    await this.thread.request({ op: 'heartbeat', id: this.id });
  }

  /**
   * After `close`: resolves once no call of the session can write any more. Its thread was ended with its last
   * session (which stops a call running there at once), or the call running on the shared thread has ended.
   */
  async ended(): Promise<void> {
    if (!this.thread.alive) return this.thread.exited;
    await this.thread.request({ op: 'ended', id: this.id }).catch(() => this.thread.exited);
  }

  /** Closes the session's journal on its thread (hosted-session.ts `closeHosted`), then frees the thread. */
  async close(why: CloseReason): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing = why;
    try {
      await this.thread.request({ op: 'close', id: this.id, why });
    } finally {
      this.release();
    }
  }

  private release(): void {
    this.closed = true;
    this.thread.onLost.delete(this.lost);
    this.thread.sessions--;
    threads.giveBack(this.thread);
  }
}
