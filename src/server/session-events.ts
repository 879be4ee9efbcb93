/**
 * What one client of a session does, told as it happens to the session's other clients listening on
 * `GET /v1/sessions/:id/events` (another tab, another designer): the events of a chat turn and of a streamed
 * tool run as their own client gets them, `chat_running` when a chat turn starts and ends (so that the other
 * tabs can show it running and stop it), `chat_cleared` when the conversation is emptied, and `changed` when
 * the session's files or documents changed otherwise (an upload, a file deleted, calls not streamed). An MCP
 * client's calls on `/mcp` (whose session this is too) are told as a streamed run's, one call at a time. A
 * client names itself with `?tab=` on its stream and `X-Atelier-Tab` on its requests, and is not told its own.
 * With `?conversation=1` the stream starts with the conversation so far (`GET …/chat`'s answer as one event),
 * then, when an MCP client has made calls on the session, those calls (`mcp_calls`: each call's `tool_call` and,
 * once it ended, its `tool_result`), so that a tab listening again after a while away, or joining the session
 * an MCP client works on, catches up with what it missed, none of it twice.
 *
 * Those calls are the session's record as its chat is: kept on disk beside `chat.jsonl`, in `mcp-calls.jsonl`
 * (one event a line, appended whole, a result without its image links, which die with the session in memory),
 * they come back with the session after a restart or after it idled out of memory, and go with its chat when
 * that is cleared, and with its folder when it is deleted.
 *
 * Listeners are kept by session id, not by the session in memory: a session that idles out of memory and is
 * recovered by its next request is still heard by the tabs open on it.
 */
import { lstat, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from 'hono';
import { appendLines, PRIVATE_FILE_MODE, tempPathFor } from '../engine/workspace.js';
import type { SessionEntry } from '../service/sessions.js';
import { header } from './body.js';
import type { Send } from './sse.js';

/** Streams one session may have listening at once: a tab each, which a client cannot open without end. */
export const MAX_LISTENERS_PER_SESSION = 32;

const TAB = /^[A-Za-z0-9_-]{1,64}$/;

/** A tab's name as a request gives it, or null (none, or not one a client makes). */
export function tabOf(raw: string | undefined): string | null {
  return raw !== undefined && TAB.test(raw) ? raw : null;
}

/** The tab a request comes from (its `X-Atelier-Tab` header). */
export const requestTab = (c: Context): string | null => tabOf(header(c, 'x-atelier-tab'));

/**
 * The MCP calls kept per session for the tabs that start listening later: the newest, at most this many. A
 * designer joining a session an MCP client has worked on sees its recent work, not all of a day's.
 */
export const MAX_KEPT_CALLS = 300;

/**
 * Bytes (of their events' JSON) the calls kept for one session may take: they live on the thread every
 * session's requests share, and one result (a layer tree of thousands of layers) can be large.
 */
export const MAX_KEPT_CALL_BYTES = 2 * 1024 * 1024;

/** The kept calls' record in the session's folder, beside its chat record. */
export const MCP_CALLS_FILE = 'mcp-calls.jsonl';

/**
 * The most of the record read back: what the caps keep is far less, unless one result alone is larger. Beyond
 * it (a file put there under that name by hand) only its end is read, its newest calls.
 */
const MAX_RECORD_READ = 32 * 1024 * 1024;

/**
 * The record is appended to as calls come, and so holds calls the caps have dropped: once it is this many times
 * what is kept, it is written again with what is kept alone.
 */
const REWRITE_FACTOR = 2;

type Event = Parameters<Send>[0];
/** A call's event: its announcement or its result. */
type CallEvent = Event & { readonly id: string };

/** A kept call: its announcement, its result once it ended, and the size of both. */
interface KeptCall {
  readonly call: CallEvent;
  result: Event | null;
  bytes: number;
}

/** A session's kept calls by id, oldest first, and their bytes. */
interface CallLog {
  readonly calls: Map<string, KeptCall>;
  bytes: number;
  /** Whether the record on disk has been read into `calls`; until then, calls told wait in `early`. */
  read: boolean;
  readonly early: CallEvent[];
  /** Resolves once it has been read (never rejects: a record that cannot be read is an empty one). */
  loaded: Promise<void>;
  /** Events told so far, and how many of them the record holds since it was last written whole. */
  told: number;
  written: number;
  /** Lines and bytes of the record on disk, to know when to write it again smaller. */
  fileLines: number;
  fileBytes: number;
  /** A write the session's disk quota refused was logged: the next are not, to keep the log readable. */
  refusalLogged: boolean;
}

/**
 * The result a call whose result the record lacks comes back with: its process stopped during it (a session
 * running a call does not idle out of memory). Without one the card would show it running for ever.
 */
function interruptedResult(call: CallEvent): CallEvent {
  const error = {
    code: 'interrupted',
    message: '服务在这个调用进行时停止了，结果没有记录下来：它可能没有执行，也可能已经生效。',
    hint: '看最新的会话状态判断它是否已生效，需要时再调用一次。',
  };
  return { type: 'tool_result', id: call.id, name: call.name, ok: false, result: { ok: false, error } };
}

/** A record line as kept: a call or its result, with its id; null for anything else (a damaged line). */
function keptEventOf(line: string): CallEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const event = value as Record<string, unknown>;
  if (event.type !== 'tool_call' && event.type !== 'tool_result') return null;
  if (typeof event.id !== 'string') return null;
  return event as CallEvent;
}

/** The event as the record keeps it: a result's image links, which die with the session in memory, left out. */
function recorded(event: Event): Event {
  if (event.type !== 'tool_result' || !('images' in event)) return event;
  const { images: _links, ...rest } = event;
  return rest as Event;
}

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/** The record's lines (at most its last `MAX_RECORD_READ` bytes' whole lines), and its size; empty when none. */
async function readRecord(file: string): Promise<{ lines: string[]; bytes: number }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return { lines: [], bytes: 0 };
    throw err;
  }
  try {
    const size = (await handle.stat()).size;
    const from = Math.max(0, size - MAX_RECORD_READ);
    const buffer = Buffer.alloc(size - from);
    let got = 0;
    while (got < buffer.length) {
      const { bytesRead } = await handle.read(buffer, got, buffer.length - got, from + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    let lines = buffer.subarray(0, got).toString('utf8').split('\n');
    // Read from the middle of a line: its end alone is no event.
    if (from > 0) lines = lines.slice(1);
    return { lines: lines.filter((l) => l.trim() !== ''), bytes: size };
  } finally {
    await handle.close();
  }
}

/**
 * Replaces the record with `text` whole: written beside it, flushed, then renamed over it, so that a process
 * that dies meanwhile leaves the old record or the new one. Never makes the session's folder (a session deleted
 * meanwhile has none, and gets none back).
 */
async function replaceRecord(file: string, text: string): Promise<void> {
  const tmp = tempPathFor(file);
  let created = false;
  try {
    const handle = await open(tmp, 'wx', PRIVATE_FILE_MODE);
    created = true;
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
    created = false;
  } finally {
    if (created) await unlink(tmp).catch(() => undefined);
  }
}

const sizeOf = (event: Event) => JSON.stringify(event).length;

interface Listener {
  readonly tab: string | null;
  readonly send: Send;
  readonly end: () => void;
}

export class SessionEvents {
  private readonly listeners = new Map<string, Set<Listener>>();
  /**
   * Read from the session's record at its first MCP call or catching-up listener, and gone with the session in
   * memory (an MCP client's connection ends with it too): the record brings them back with it.
   */
  private readonly calls = new WeakMap<SessionEntry, CallLog>();
  /**
   * The reads and writes of each session's record, one after another, by session id: a session that left
   * memory and came back reads its record after what it wrote before has been written.
   */
  private readonly disk = new Map<string, Promise<void>>();

  constructor(private readonly log: (line: string) => void = () => {}) {}

  full(id: string): boolean {
    return (this.listeners.get(id)?.size ?? 0) >= MAX_LISTENERS_PER_SESSION;
  }

  /**
   * Listens to session `id` for `tab` until the returned stop is called or the session is deleted (`end` runs
   * then). Null when the session has as many listeners as it may.
   */
  listen(id: string, tab: string | null, send: Send, end: () => void): (() => void) | null {
    if (this.full(id)) return null;
    const set = this.listeners.get(id) ?? new Set<Listener>();
    this.listeners.set(id, set);
    const listener: Listener = { tab, send, end };
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(id) === set) this.listeners.delete(id);
    };
  }

  /** Whether anyone listens to session `id` (what is told only to listeners need not be made otherwise). */
  listening(id: string): boolean {
    return this.listeners.has(id);
  }

  /** Tells every listener of session `id` but the tab it came from. */
  publish(id: string, event: Parameters<Send>[0], from: string | null): void {
    for (const listener of this.listeners.get(id) ?? []) {
      if (from === null || listener.tab !== from) listener.send(event);
    }
  }

  /**
   * Tells session `entry`'s listeners an event of a call an MCP client made (`tool_call`, `progress`,
   * `tool_result` of the call with that `id`), and keeps the call and its result for the tabs that listen later,
   * in memory and in the session's record. Stages are only told: a card that comes later has its result.
   */
  tellCall(entry: SessionEntry, event: CallEvent): void {
    if (event.type === 'tool_call' || event.type === 'tool_result') {
      const log = this.logOf(entry);
      if (log.read) keepEvent(log, event);
      else log.early.push(event);
      this.record(entry, log, recorded(event));
    }
    this.publish(entry.id, event, null);
  }

  /**
   * Resolves once the calls of session `entry` kept on disk are in memory: from then on `keptCalls` answers at
   * once, and with every call told since. Never rejects (a record that cannot be read is logged, and empty).
   */
  callsRead(entry: SessionEntry): Promise<void> {
    return this.logOf(entry).loaded;
  }

  /**
   * The MCP calls kept for session `entry`, oldest first, each call followed by its result; null when none (or
   * when its record has not been read yet: `callsRead` first).
   */
  keptCalls(entry: SessionEntry): Event[] | null {
    const log = this.calls.get(entry);
    if (!log?.read || !log.calls.size) return null;
    return [...log.calls.values()].flatMap(({ call, result }) => (result ? [call, result] : [call]));
  }

  /**
   * Forgets the calls kept for session `entry` (its conversation was emptied, and the tabs' feeds with it), its
   * record with them; resolves once the record is gone, with its size (null when there was none). The calls
   * after it are kept anew.
   */
  forgetCalls(entry: SessionEntry): Promise<{ bytes: number } | null> {
    const log = emptyLog(true);
    this.calls.set(entry, log);
    let removed: { bytes: number } | null = null;
    const file = path.join(entry.dir, MCP_CALLS_FILE);
    return this.onDisk(entry.id, async () => {
      try {
        const { size } = await lstat(file);
        await unlink(file);
        removed = { bytes: size };
      } catch (err) {
        if (errnoOf(err) !== 'ENOENT') throw err;
      }
    }).then(() => removed);
  }

  /** Resolves once every read and write of the records begun so far has ended (the server stops after it). */
  async flushed(): Promise<void> {
    while (this.disk.size) await Promise.all(this.disk.values());
  }

  private logOf(entry: SessionEntry): CallLog {
    const known = this.calls.get(entry);
    if (known) return known;
    const log = emptyLog(false);
    this.calls.set(entry, log);
    log.loaded = this.onDisk(entry.id, async () => {
      try {
        const { lines, bytes } = await readRecord(path.join(entry.dir, MCP_CALLS_FILE));
        for (const line of lines) {
          const event = keptEventOf(line);
          if (event) keepEvent(log, event);
        }
        log.fileLines = lines.length;
        log.fileBytes = bytes;
        for (const kept of log.calls.values()) {
          if (!kept.result) keepEvent(log, interruptedResult(kept.call));
        }
      } finally {
        log.read = true;
        for (const event of log.early.splice(0)) keepEvent(log, event);
      }
    });
    return log;
  }

  /** Appends `event` to the session's record, within its disk quota; written again smaller once it grew. */
  private record(entry: SessionEntry, log: CallLog, event: Event): void {
    const file = path.join(entry.dir, MCP_CALLS_FILE);
    const line = `${JSON.stringify(event)}\n`;
    const seq = ++log.told;
    void this.onDisk(entry.id, async () => {
      // Forgotten meanwhile (a cleared chat): the calls after it are another log's. Or in the record already,
      // written whole from memory after it was told.
      if (this.calls.get(entry) !== log || seq <= log.written) return;
      const bytes = Buffer.byteLength(line);
      try {
        await entry.disk.checkWrite(bytes, '记下 MCP 客户端的调用', '调用已执行，只是重新打开会话后不再显示');
      } catch (err) {
        if (!log.refusalLogged) {
          log.refusalLogged = true;
          this.log(`atelier: session ${entry.id.slice(0, 8)}…: MCP calls not recorded: ${String(err)}`);
        }
        return;
      }
      await appendLines(file, line, PRIVATE_FILE_MODE);
      log.fileLines++;
      log.fileBytes += bytes;
      if (
        log.fileLines > REWRITE_FACTOR * 2 * MAX_KEPT_CALLS ||
        log.fileBytes > REWRITE_FACTOR * Math.max(MAX_KEPT_CALL_BYTES, log.bytes)
      ) {
        // Every call told so far is in memory: once written, the appends still waiting have nothing to add.
        const upTo = log.told;
        const events = (this.keptCalls(entry) ?? []).map(recorded);
        const text = events.map((e) => `${JSON.stringify(e)}\n`).join('');
        await replaceRecord(file, text);
        log.written = upTo;
        log.fileLines = events.length;
        log.fileBytes = Buffer.byteLength(text);
      }
    });
  }

  /**
   * Runs `work` on session `id`'s record after what was begun on it before. A failure is logged, not thrown:
   * the calls stay kept in memory, and a session deleted meanwhile has no folder to write in.
   */
  private onDisk(id: string, work: () => Promise<void>): Promise<void> {
    const before = this.disk.get(id) ?? Promise.resolve();
    const done = before.then(work).catch((err: unknown) => {
      if (errnoOf(err) === 'ENOENT') return;
      this.log(`atelier: session ${id.slice(0, 8)}…: the record of its MCP calls: ${String(err)}`);
    });
    this.disk.set(id, done);
    void done.then(() => {
      if (this.disk.get(id) === done) this.disk.delete(id);
    });
    return done;
  }

  /** The session was deleted: its streams end (a tab that listens again is told it is gone). */
  end(id: string): void {
    const set = this.listeners.get(id);
    this.listeners.delete(id);
    for (const listener of set ?? []) listener.end();
  }
}

function emptyLog(read: boolean): CallLog {
  return {
    calls: new Map(),
    bytes: 0,
    read,
    early: [],
    loaded: Promise.resolve(),
    told: 0,
    written: 0,
    fileLines: 0,
    fileBytes: 0,
    refusalLogged: false,
  };
}

/** Keeps a call (`tool_call`) or its result (`tool_result`, dropped when its call is not kept). */
function keepEvent(log: CallLog, event: CallEvent): void {
  const bytes = sizeOf(event);
  const kept = log.calls.get(event.id);
  if (event.type === 'tool_call') {
    if (kept) {
      log.calls.delete(event.id);
      log.bytes -= kept.bytes;
    }
    log.calls.set(event.id, { call: event, result: null, bytes });
    log.bytes += bytes;
  } else {
    if (!kept) return;
    if (kept.result) {
      const before = sizeOf(kept.result);
      kept.bytes -= before;
      log.bytes -= before;
    }
    kept.result = event;
    kept.bytes += bytes;
    log.bytes += bytes;
  }
  trim(log);
}

/** Drops the oldest calls beyond the count and the bytes allowed (never the newest). */
function trim(log: CallLog): void {
  for (const [id, kept] of log.calls) {
    if (log.calls.size <= 1 || (log.calls.size <= MAX_KEPT_CALLS && log.bytes <= MAX_KEPT_CALL_BYTES)) break;
    log.calls.delete(id);
    log.bytes -= kept.bytes;
  }
}
