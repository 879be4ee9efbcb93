/**
 * The server's sessions. Each has an unguessable id (128 random bits), its own workspace folder
 * `<workspace>/sessions/<id>/` (so no session can name another's files), the images its results carried, and
 * a journal in `<workspace>/journals/<id>/` (journal.ts) that lets any process on the same workspace bring it
 * back exactly as after its last completed call.
 *
 * Sessions come back lazily: a request for an id that is not in memory but has a journal on disk (this process
 * restarted, or another process served it and died) recovers it first (`recover`). A session unused for the
 * idle timeout leaves memory after a final snapshot, keeping its folder and journal, and is recovered by its
 * next request (so does one left alone for a minute when other sessions' calls are short of pixel memory:
 * `makeRoom`); one that is running a request never idles out. Deleting a session removes its journal at once,
 * so nothing can bring it back, and its folder once no call of it can write there any more (a call running then
 * is cut short or runs to its end, answered as cancelled); a session past its retention goes the same way.
 *
 * Several processes on one workspace: each session is served by one process at a time, the holder of the lock
 * file in its journal folder (session-lock.ts); a request that reaches another process while the holder lives
 * is refused (`SessionHeldElsewhere`), one that arrives after the holder died takes the session over. Put the
 * processes behind a load balancer with affinity on the session id in the path, so that a session's requests
 * go to one process and move only when it dies — e.g. nginx:
 *
 *   map $uri $atelier_session { ~^/v1/sessions/(?<sid>[0-9a-f]{32}) $sid; default $http_mcp_session_id; }
 *   upstream atelier { hash $atelier_session consistent; server 10.0.0.1:8080; server 10.0.0.2:8080; }
 *
 * MCP-over-HTTP sessions are journaled too, but their protocol connection lives in one process: after a move
 * the client opens a new MCP session (the old one's documents stay readable under /v1/sessions/<id>/).
 */
import { randomBytes } from 'node:crypto';
import { lstat, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { SessionHandle } from '../calls/handle.js';
import {
  heldBytes,
  type MemoryPool,
  newMemoryPool,
  newPoolShare,
  noteWanted,
  type PoolShare,
  releaseShare,
  setHeld,
  shareBytes,
  takeWanted,
} from '../calls/memory-pool.js';
import type { ImageOut } from '../tools/types.js';
import {
  type CloseReason,
  callsEnded,
  closeHosted,
  type HostedSession,
  type HostOptions,
  hostNew,
  hostRecovered,
  removeFile,
} from './hosted-session.js';
import { hasJournal, SessionJournal } from './journal.js';
import { LOCK_HEARTBEAT_MS, releaseHeldByThisProcess, SessionLock } from './session-lock.js';
import { SessionWorkspace } from './session-workspace.js';
import { WorkerSession, warmSessionThreads } from './worker-session.js';

/** 32 lowercase hex digits. */
const ID_PATTERN = /^[0-9a-f]{32}$/;

export function newSessionId(): string {
  return randomBytes(16).toString('hex');
}

export function isSessionId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/**
 * The result images of all the sessions of a store, kept on the store's thread for the studio and the model to
 * fetch: at most `maxBytes` together, the oldest dropped first whichever session it came from, and counted in the
 * pixel memory pool when there is one (a share of their own), so that what they hold is room the sessions' calls
 * do not get, and many sessions' images cannot take the process past its memory.
 */
export class ImageBudget {
  /** Every kept image, oldest first. */
  private readonly kept = new Map<
    number,
    { readonly shelf: ImageShelf; readonly file: string; readonly bytes: number }
  >();
  private total = 0;
  private seq = 0;

  constructor(
    readonly maxBytes: number,
    private readonly share?: PoolShare,
  ) {}

  /** Bytes the kept images hold. */
  get bytes(): number {
    return this.total;
  }

  /** Counts an image `shelf` keeps as `file`, dropping the oldest images (of any shelf) beyond the budget. */
  took(shelf: ImageShelf, file: string, bytes: number): number {
    const key = ++this.seq;
    this.kept.set(key, { shelf, file, bytes });
    this.total += bytes;
    for (const [k, old] of this.kept) {
      if (this.total <= this.maxBytes || k === key) break;
      this.kept.delete(k);
      this.total -= old.bytes;
      old.shelf.forget(old.file);
    }
    this.count();
    return key;
  }

  /** An image its shelf dropped (its own limits, or its session closed). */
  gave(key: number): void {
    const image = this.kept.get(key);
    if (!image) return;
    this.kept.delete(key);
    this.total -= image.bytes;
    this.count();
  }

  private count(): void {
    if (this.share) setHeld(this.share, this.total);
  }
}

export interface StoredImage {
  readonly mime: ImageOut['mime'];
  readonly data: Buffer;
}

/**
 * A session's result images, newest kept: at most `maxCount` images and `maxBytes` bytes, and what the store's
 * budget (shared by all its sessions) leaves.
 */
export class ImageShelf {
  private readonly images = new Map<string, StoredImage & { readonly key: number }>();
  private held = 0;
  private seq = 0;

  constructor(
    private readonly maxCount = 64,
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly budget?: ImageBudget,
  ) {}

  /** Bytes the shelf holds. */
  get bytes(): number {
    return this.held;
  }

  /** Stores the image and returns its file name (`<n>.png` or `<n>.jpg`). */
  add(image: ImageOut): string {
    const data = Buffer.from(image.base64, 'base64');
    const file = `${++this.seq}.${image.mime === 'image/png' ? 'png' : 'jpg'}`;
    const key = this.budget?.took(this, file, data.byteLength) ?? 0;
    this.images.set(file, { mime: image.mime, data, key });
    this.held += data.byteLength;
    for (const [name, old] of this.images) {
      if (this.images.size <= this.maxCount && this.held <= this.maxBytes) break;
      if (name === file) break;
      this.forget(name);
      this.budget?.gave(old.key);
    }
    return file;
  }

  get(file: string): StoredImage | undefined {
    return this.images.get(file);
  }

  /** Drops an image (the budget's call: it has stopped counting it). */
  forget(file: string): void {
    const image = this.images.get(file);
    if (!image) return;
    this.images.delete(file);
    this.held -= image.data.byteLength;
  }

  /** Drops every image: the session closed, and its links lead nowhere now. */
  clear(): void {
    for (const [file, image] of this.images) {
      this.forget(file);
      this.budget?.gave(image.key);
    }
  }
}

export type SessionKind = 'http' | 'mcp';

export interface SessionEntry {
  readonly id: string;
  readonly kind: SessionKind;
  /** The session: on a thread of its own (worker-session.ts), or on this one when the store runs inline. */
  readonly session: SessionHandle;
  /** Absolute path of the session's workspace folder. */
  readonly dir: string;
  /**
   * The session's disk as this thread measures it (its folder and its journal, within its quota), for what the
   * service writes beside the session's own calls: its chat record.
   */
  readonly disk: SessionWorkspace;
  readonly images: ImageShelf;
  readonly createdAt: number;
  lastUsed: number;
  /** Requests running now; a busy session never times out. */
  busy: number;
  /** Run once each when the session is closed (e.g. to close its MCP transport, to cancel its chat). */
  readonly closers: (() => void)[];
  /** Where the session runs: what the store needs to keep its journal alive and to close it. */
  readonly host: SessionHost;
}

/** The store's side of where a session runs. */
export interface SessionHost {
  heartbeat(): Promise<void>;
  close(why: CloseReason): Promise<void>;
  /** After `close`: resolves once no call of the session can write any more (its folder may go then). */
  ended(): Promise<void>;
  /**
   * Removes a file of the session's folder between two of its calls; refused (`EditorError`) when an open
   * document or the garment photo uses it.
   */
  removeFile(relPath: string): Promise<void>;
}

/** A session run on the store's own thread, with its journal (tests, and tools that drive a store directly). */
export class InlineHost implements SessionHost {
  constructor(
    readonly hosted: HostedSession,
    private readonly journalDir: string,
  ) {}

  async heartbeat(): Promise<void> {
    await (await this.hosted.journal).heartbeat();
  }

  close(why: CloseReason): Promise<void> {
    return closeHosted(this.hosted, why, this.journalDir);
  }

  ended(): Promise<void> {
    return callsEnded(this.hosted);
  }

  removeFile(relPath: string): Promise<void> {
    return removeFile(this.hosted, relPath);
  }
}

export interface SessionStoreOptions {
  /** The server's workspace; sessions live in its `sessions/` folder. */
  readonly root: string;
  readonly idleTimeoutMs: number;
  readonly maxSessions: number;
  /** Pixel memory each session may hold (Session's `memoryBudgetBytes`); unlimited when unset. */
  readonly memoryBudgetBytes?: number;
  /** Pixel memory all the sessions together may hold (memory-pool.ts); unlimited when unset. */
  readonly memoryPoolBytes?: number;
  /** Bytes each session may keep on disk, its folder's files and its journal together; unlimited when unset. */
  readonly diskQuotaBytes?: number;
  /**
   * Bytes the result images of all sessions may hold together (`ImageBudget`); by default an eighth of the pixel
   * memory pool, in which they are counted; unbounded but for each session's own limits without a pool.
   */
  readonly imageBytes?: number;
  /**
   * `thread` (the default): each session runs on a worker thread of its own (worker-session.ts says why), so
   * no session's work holds the thread that accepts requests. `inline`: on the store's thread (tests that
   * look inside a session).
   */
  readonly isolation?: 'thread' | 'inline';
  readonly log: (line: string) => void;
  /** For tests: the clock. */
  readonly now?: () => number;
  /** How long a session out of memory stays recoverable on disk after its last change (`SESSION_RETENTION_MS`). */
  readonly retentionMs?: number;
}

/** The store is full: `limit` sessions are open; one may have left after `retryAfterSeconds` (its idle timeout). */
export class TooManySessions extends Error {
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`too many open sessions (at most ${limit})`);
  }
}

/** Memory taken from the pixel memory pool for a while (a render on its way to the client). */
export interface Reservation {
  /** Counts `bytes` instead (what is held now that the work is done). */
  resize(bytes: number): void;
  /** Gives it back; the second time gives nothing. */
  release(): void;
}

/** A reservation the pool had no room for: how much it holds, and its limit. */
export interface NoRoom {
  readonly heldBytes: number;
  readonly limitBytes: number;
}

/** What a folder renamed aside to be removed is called (`sessions/` and `journals/`): `.deleted-<id>-<random>`. */
const DELETED_PREFIX = '.deleted-';

/**
 * Removes the folder `sessions/<id>/` of a deleted or expired session: renamed aside first, in one step (a
 * request racing the deletion finds no folder, never a half-removed one), then removed. Nothing outside it goes:
 * `id` must be a session id, and links are removed as links, never followed (`fs.rm` does not follow them).
 */
export async function removeSessionFolder(sessionsDir: string, id: string): Promise<void> {
  if (!isSessionId(id)) return;
  const dir = path.join(sessionsDir, id);
  const info = await lstat(dir).catch(() => null);
  if (!info) return;
  if (!info.isDirectory()) {
    await unlink(dir);
    return;
  }
  const aside = path.join(sessionsDir, `${DELETED_PREFIX}${id}-${randomBytes(4).toString('hex')}`);
  await rename(dir, aside);
  await rm(aside, { recursive: true, force: true });
}

/** When anything under `dir` last changed (links not followed); 0 when nothing can be read. */
async function lastChange(dir: string): Promise<number> {
  const info = await lstat(dir).catch(() => null);
  if (!info?.isDirectory()) return info?.mtimeMs ?? 0;
  let newest = info.mtimeMs;
  const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of names) {
    const abs = path.join(dir, entry.name);
    const at = entry.isDirectory()
      ? await lastChange(abs)
      : await lstat(abs).then(
          (st) => st.mtimeMs,
          () => 0,
        );
    newest = Math.max(newest, at);
  }
  return newest;
}

/**
 * A session that left memory (idle, or its process stopped) stays recoverable this long after its journal was
 * last written; then the next purge (at start-up, and hourly) removes its journal and its folder. A session
 * folder without a journal (its session deleted before deleting removed folders, or by a process that died
 * half-way) goes once nothing in it has changed for as long.
 */
export const SESSION_RETENTION_MS = 7 * 24 * 3600 * 1000;
const PURGE_EVERY_MS = 3600 * 1000;

/** The part of the pixel memory pool the result images of all sessions may take: an eighth. */
export const IMAGE_SHARE_OF_POOL = 8;

/** How long a session must have been left alone to be closed early when the pixel memory pool is short. */
export const POOL_IDLE_MS = 60_000;

export class SessionStore {
  private readonly entries = new Map<string, SessionEntry>();
  /** Sessions being recovered, and sessions whose journal is being closed (a recovery waits for it). */
  private readonly recovering = new Map<string, Promise<SessionEntry | undefined>>();
  private readonly closing = new Map<string, Promise<void>>();
  /** Folders of deleted sessions being removed (once their calls have ended). */
  private readonly removing = new Set<Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly purger: NodeJS.Timeout;
  private purging: Promise<string[]> | undefined;
  private readonly now: () => number;
  private readonly pool: MemoryPool | undefined;
  /** The result images of every session. */
  readonly images: ImageBudget;
  /** Each session's part of the pool, to know what closing it would give back. */
  private readonly shares = new WeakMap<SessionEntry, PoolShare>();
  readonly sessionsDir: string;
  readonly journalsDir: string;

  constructor(private readonly opts: SessionStoreOptions) {
    this.now = opts.now ?? Date.now;
    this.pool = opts.memoryPoolBytes === undefined ? undefined : newMemoryPool(opts.memoryPoolBytes);
    this.images = new ImageBudget(
      opts.imageBytes ??
        (opts.memoryPoolBytes === undefined
          ? Number.POSITIVE_INFINITY
          : Math.floor(opts.memoryPoolBytes / IMAGE_SHARE_OF_POOL)),
      this.pool ? newPoolShare(this.pool) : undefined,
    );
    this.sessionsDir = path.resolve(opts.root, 'sessions');
    this.journalsDir = path.resolve(opts.root, 'journals');
    const every = Math.min(30_000, Math.max(25, Math.floor(opts.idleTimeoutMs / 4)));
    this.timer = setInterval(() => this.sweep(), every);
    this.timer.unref();
    this.heartbeat = setInterval(() => {
      for (const entry of this.entries.values()) {
        entry.host.heartbeat().catch(() => undefined);
      }
    }, LOCK_HEARTBEAT_MS);
    this.heartbeat.unref();
    this.purger = setInterval(() => void this.purgeExpired(), PURGE_EVERY_MS);
    this.purger.unref();
    void this.purgeExpired();
    if (opts.isolation !== 'inline') warmSessionThreads();
  }

  get size(): number {
    return this.entries.size;
  }

  get full(): boolean {
    return this.entries.size >= this.opts.maxSessions;
  }

  /**
   * The refusal of one session more, with when one may have left: the soonest an open session reaches its idle
   * timeout if left alone (a busy one, a whole timeout from now). A request then sweeps it out before it opens.
   */
  tooMany(): TooManySessions {
    const now = this.now();
    let soonest = this.opts.idleTimeoutMs;
    for (const e of this.entries.values()) {
      if (e.busy === 0) soonest = Math.min(soonest, e.lastUsed + this.opts.idleTimeoutMs - now);
    }
    return new TooManySessions(this.opts.maxSessions, Math.max(1, Math.ceil(soonest / 1000)));
  }

  /** Opens a session with a fresh id (or `id`, already generated by the caller); `TooManySessions` when full. */
  create(kind: SessionKind, id: string = newSessionId()): SessionEntry {
    this.sweep();
    if (this.full) throw this.tooMany();
    if (!isSessionId(id) || this.entries.has(id)) throw new Error('invalid or duplicate session id');
    const createdAt = this.now();
    const host = { ...this.hostOptions(id), kind, createdAt };
    if (this.opts.isolation === 'inline') {
      const hosted = hostNew(host, this.opts.log);
      return this.register(
        id,
        kind,
        createdAt,
        hosted.session,
        new InlineHost(hosted, host.journalDir),
        host.memoryShare,
      );
    }
    let entry: SessionEntry | undefined;
    const session = WorkerSession.open(host, {
      log: this.opts.log,
      onLost: (why) => entry && this.lost(entry, why),
    });
    entry = this.register(id, kind, createdAt, session, session, host.memoryShare);
    return entry;
  }

  private hostOptions(id: string): Omit<HostOptions, 'kind' | 'createdAt'> {
    return {
      id,
      dir: path.join(this.sessionsDir, id),
      journalDir: path.join(this.journalsDir, id),
      ...(this.opts.memoryBudgetBytes !== undefined
        ? { memoryBudgetBytes: this.opts.memoryBudgetBytes }
        : {}),
      ...(this.pool ? { memoryShare: newPoolShare(this.pool) } : {}),
      ...(this.opts.diskQuotaBytes !== undefined ? { diskQuotaBytes: this.opts.diskQuotaBytes } : {}),
    };
  }

  private register(
    id: string,
    kind: SessionKind,
    createdAt: number,
    session: SessionHandle,
    host: SessionHost,
    share: PoolShare | undefined,
  ): SessionEntry {
    const entry: SessionEntry = {
      id,
      kind,
      session,
      dir: path.join(this.sessionsDir, id),
      disk: new SessionWorkspace(
        path.join(this.sessionsDir, id),
        path.join(this.journalsDir, id),
        this.opts.diskQuotaBytes,
      ),
      images: new ImageShelf(undefined, undefined, this.images),
      createdAt,
      lastUsed: this.now(),
      busy: 0,
      closers: [],
      host,
    };
    this.entries.set(id, entry);
    if (share) this.shares.set(entry, share);
    return entry;
  }

  /**
   * The session's thread stopped unasked (it crashed): the session leaves memory, and the lock its thread held
   * for this process is given up, so that its next request recovers it from its journal.
   */
  private lost(entry: SessionEntry, why: string): void {
    // The thread that would have given its pixel memory back is gone.
    const share = this.shares.get(entry);
    if (share) releaseShare(share);
    this.opts.log(`atelier: session ${entry.id.slice(0, 8)}…: ${why}; it will be recovered from its journal`);
    if (this.entries.get(entry.id) !== entry) return;
    this.entries.delete(entry.id);
    entry.images.clear();
    releaseHeldByThisProcess(path.join(this.journalsDir, entry.id));
    for (const closer of entry.closers) {
      try {
        closer();
      } catch {
        // The session is gone already.
      }
    }
  }

  /**
   * The session with this id: the one in memory, or the one its journal on disk describes, recovered (its lock
   * taken, its state rebuilt). Undefined when there is no such session; `SessionHeldElsewhere` when another
   * live process serves it; `TooManySessions` when this process is full.
   */
  async recover(id: string): Promise<SessionEntry | undefined> {
    if (!isSessionId(id)) return undefined;
    const live = this.get(id);
    if (live) return live;
    await this.closing.get(id);
    let pending = this.recovering.get(id);
    if (!pending) {
      pending = this.load(id).finally(() => this.recovering.delete(id));
      this.recovering.set(id, pending);
    }
    return pending;
  }

  private async load(id: string): Promise<SessionEntry | undefined> {
    const live = this.get(id);
    if (live) return live;
    const dir = path.join(this.journalsDir, id);
    if (!(await hasJournal(dir))) return undefined;
    this.sweep();
    if (this.full) throw this.tooMany();
    const host = this.hostOptions(id);
    let entry: SessionEntry | undefined;
    if (this.opts.isolation === 'inline') {
      const r = await hostRecovered(host, this.opts.log);
      entry = this.register(
        id,
        r.kind as SessionKind,
        r.createdAt,
        r.hosted.session,
        new InlineHost(r.hosted, host.journalDir),
        host.memoryShare,
      );
      this.opts.log(r.report);
      return entry;
    }
    const r = await WorkerSession.recover(host, {
      log: this.opts.log,
      onLost: (why) => entry && this.lost(entry, why),
    }).catch((err: unknown) => {
      // A recovery that failed half-way may have counted what it had rebuilt.
      if (host.memoryShare) releaseShare(host.memoryShare);
      throw err;
    });
    entry = this.register(id, r.kind as SessionKind, r.createdAt, r.session, r.session, host.memoryShare);
    this.opts.log(r.report);
    return entry;
  }

  /** The open session with this id, or undefined (also when it has just timed out). */
  get(id: string): SessionEntry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (this.expired(entry, this.now())) {
      this.close(entry, 'idle');
      return undefined;
    }
    entry.lastUsed = this.now();
    return entry;
  }

  /** Runs `fn` with the session marked busy (it cannot time out meanwhile); undefined when there is none. */
  async use<T>(id: string, fn: (entry: SessionEntry) => Promise<T> | T): Promise<T | undefined> {
    const entry = this.get(id) ?? (await this.recover(id));
    if (!entry) return undefined;
    entry.busy++;
    try {
      return await fn(entry);
    } finally {
      entry.busy--;
      entry.lastUsed = this.now();
    }
  }

  /**
   * Marks the session busy until the returned release is called (for work that outlives a request handler,
   * such as a streamed answer); undefined when there is no such session.
   */
  hold(id: string): { entry: SessionEntry; release: () => void } | undefined {
    const entry = this.get(id);
    if (!entry) return undefined;
    entry.busy++;
    let held = true;
    return {
      entry,
      release: () => {
        if (!held) return;
        held = false;
        entry.busy--;
        entry.lastUsed = this.now();
      },
    };
  }

  /**
   * Takes `bytes` of the pixel memory pool for memory the sessions' own counts leave out — a render's encoded
   * image, from its encoding until the client has it — so that many clients' renders cannot take the process
   * past its memory. `NoRoom` when the pool lacks the room (noted as wanted, so that sessions left idle are
   * closed to make it); without a pool every reservation is granted.
   */
  reserve(bytes: number): Reservation | NoRoom {
    const pool = this.pool;
    if (!pool) return { resize: () => {}, release: () => {} };
    const held = heldBytes(pool);
    if (bytes > 0 && held + bytes > pool.limitBytes) {
      noteWanted(pool, bytes);
      return { heldBytes: held, limitBytes: pool.limitBytes };
    }
    const share = newPoolShare(pool);
    setHeld(share, bytes);
    let released = false;
    return {
      resize: (now) => {
        if (!released) setHeld(share, now);
      },
      release: () => {
        released = true;
        releaseShare(share);
      },
    };
  }

  /**
   * Closes the session now as its idle timeout would (a final snapshot): its folder and journal stay, so its files
   * can still be downloaded and its next request recovers it, until the retention; false when there was none.
   */
  leave(id: string, because: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.close(entry, 'idle', because);
    return true;
  }

  /** Closes the session now; false when there was none. */
  delete(id: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.close(entry, 'deleted');
    return true;
  }

  /**
   * Closes every session unused for the idle timeout, and makes room in the pixel memory pool when calls were
   * refused for want of it.
   */
  sweep(): void {
    const now = this.now();
    for (const entry of this.entries.values()) {
      if (this.expired(entry, now)) this.close(entry, 'idle');
    }
    this.makeRoom(now);
  }

  /**
   * Closes sessions left alone for `POOL_IDLE_MS`, longest unused first, until what they hold covers what refused
   * calls wanted beyond the room left. Closed as after the idle timeout (a final snapshot), they come back from
   * their journal, documents and history whole, at their next request: only that request waits for them.
   */
  private makeRoom(now: number): void {
    if (!this.pool) return;
    const wanted = takeWanted(this.pool);
    let short = wanted - (this.pool.limitBytes - heldBytes(this.pool));
    if (wanted === 0 || short <= 0) return;
    const idle = [...this.entries.values()]
      .filter((e) => e.busy === 0 && now - e.lastUsed >= POOL_IDLE_MS)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    for (const entry of idle) {
      if (short <= 0) break;
      const held = this.shares.get(entry);
      const bytes = (held ? shareBytes(held) : 0) + entry.images.bytes;
      if (bytes === 0) continue;
      short -= bytes;
      this.close(entry, 'idle', 'closed to make room in the pixel memory others need');
    }
  }

  /** Closes every session and stops the idle timer (their journals stay: every session is recoverable). */
  closeAll(): void {
    clearInterval(this.timer);
    clearInterval(this.heartbeat);
    clearInterval(this.purger);
    for (const entry of this.entries.values()) this.close(entry, 'shutdown');
  }

  private expired(entry: SessionEntry, now: number): boolean {
    return entry.busy === 0 && now - entry.lastUsed >= this.opts.idleTimeoutMs;
  }

  /**
   * Removes the journals of sessions not in memory whose last change is older than the retention, unless a live
   * process serves them; returns their ids.
   */
  purgeExpired(): Promise<string[]> {
    this.purging ??= this.purge().finally(() => {
      this.purging = undefined;
    });
    return this.purging;
  }

  private async purge(): Promise<string[]> {
    const cutoff = Date.now() - (this.opts.retentionMs ?? SESSION_RETENTION_MS);
    const removed: string[] = [];
    const ids = await readdir(this.journalsDir).catch(() => [] as string[]);
    for (const id of ids) {
      // A deleted session's folder is renamed before it is removed: one left by a process that died meanwhile.
      if (id.startsWith('.deleted-')) {
        await rm(path.join(this.journalsDir, id), { recursive: true, force: true }).catch(() => undefined);
        continue;
      }
      if (!isSessionId(id) || this.entries.has(id) || this.recovering.has(id) || this.closing.has(id))
        continue;
      const dir = path.join(this.journalsDir, id);
      const names = await readdir(dir).catch(() => [] as string[]);
      const times = await Promise.all(
        names.map((n) =>
          stat(path.join(dir, n)).then(
            (st) => st.mtimeMs,
            () => 0,
          ),
        ),
      );
      if (Math.max(0, ...times) >= cutoff) continue;
      try {
        await SessionLock.acquire(dir);
      } catch {
        continue; // served by a live process, or gone meanwhile
      }
      if (this.entries.has(id) || this.recovering.has(id)) continue;
      await SessionJournal.destroy(dir);
      await removeSessionFolder(this.sessionsDir, id).catch((err) =>
        this.opts.log(`atelier: removing the folder of session ${id.slice(0, 8)}…: ${String(err)}`),
      );
      removed.push(id);
    }
    if (removed.length) {
      this.opts.log(`atelier: removed ${removed.length} session(s) unused for the retention period`);
    }
    await this.purgeFolders(cutoff);
    return removed;
  }

  /**
   * Removes what is left in `sessions/` of sessions that cannot come back: folders renamed aside by a deletion
   * that did not finish (the process died), and session folders without a journal unchanged since `cutoff`.
   */
  private async purgeFolders(cutoff: number): Promise<void> {
    const names = await readdir(this.sessionsDir).catch(() => [] as string[]);
    let orphans = 0;
    for (const name of names) {
      if (name.startsWith(DELETED_PREFIX)) {
        await rm(path.join(this.sessionsDir, name), { recursive: true, force: true }).catch(() => undefined);
        continue;
      }
      if (!isSessionId(name) || this.entries.has(name) || this.recovering.has(name) || this.closing.has(name))
        continue;
      const journal = await lstat(path.join(this.journalsDir, name)).catch(() => null);
      if (journal) continue;
      if ((await lastChange(path.join(this.sessionsDir, name))) >= cutoff) continue;
      // Looked at again: a session of this id may have started meanwhile (in this process or another).
      if (this.entries.has(name) || (await lstat(path.join(this.journalsDir, name)).catch(() => null)))
        continue;
      await removeSessionFolder(this.sessionsDir, name).then(
        () => orphans++,
        () => undefined,
      );
    }
    if (orphans) this.opts.log(`atelier: removed ${orphans} folder(s) of sessions that no longer exist`);
  }

  /**
   * Resolves when the journals of closed sessions are closed (final snapshots written, locks released) and the
   * folders of deleted ones removed.
   */
  async settled(): Promise<void> {
    await Promise.all([...this.closing.values()]);
    await Promise.all([...this.removing]);
  }

  private close(
    entry: SessionEntry,
    why: 'idle' | 'deleted' | 'shutdown',
    because = 'closed after idling',
  ): void {
    if (this.entries.get(entry.id) !== entry) return;
    this.entries.delete(entry.id);
    entry.images.clear();
    if (why === 'idle') this.opts.log(`atelier: session ${entry.id.slice(0, 8)}… ${because}`);
    // A deleted session's journal is moved aside here and now (one rename), not after its thread has closed it:
    // once the deletion is answered, no crash may bring the session back.
    const destroyed =
      why === 'deleted' ? SessionJournal.destroy(path.join(this.journalsDir, entry.id)) : undefined;
    const done = Promise.all([entry.host.close(why), destroyed])
      .then(() => undefined)
      .catch((err) =>
        this.opts.log(`atelier: closing the journal of ${entry.id.slice(0, 8)}…: ${String(err)}`),
      )
      .finally(() => {
        if (this.closing.get(entry.id) === done) this.closing.delete(entry.id);
      });
    this.closing.set(entry.id, done);
    if (why === 'deleted') {
      // Once no call of the session can write into its folder: the one running may still be saving there.
      const removed: Promise<void> = done
        .then(() => entry.host.ended())
        .then(() => removeSessionFolder(this.sessionsDir, entry.id))
        .catch((err) =>
          this.opts.log(`atelier: removing the folder of session ${entry.id.slice(0, 8)}…: ${String(err)}`),
        )
        .finally(() => this.removing.delete(removed));
      this.removing.add(removed);
    }
    for (const closer of entry.closers) {
      try {
        closer();
      } catch (err) {
        this.opts.log(`atelier: closing session ${entry.id.slice(0, 8)}…: ${String(err)}`);
      }
    }
  }
}
