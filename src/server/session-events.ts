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
 * Listeners are kept by session id, not by the session in memory: a session that idles out of memory and is
 * recovered by its next request is still heard by the tabs open on it.
 */
import type { Context } from 'hono';
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

type Event = Parameters<Send>[0];

/** A kept call: its announcement, its result once it ended, and the size of both. */
interface KeptCall {
  readonly call: Event;
  result: Event | null;
  bytes: number;
}

/** A session's kept calls by id, oldest first, and their bytes. */
interface CallLog {
  readonly calls: Map<string, KeptCall>;
  bytes: number;
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
   * Made at a session's first MCP call, and gone with the session in memory (an MCP client's connection ends
   * with it too).
   */
  private readonly calls = new WeakMap<SessionEntry, CallLog>();

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
   * `tool_result` of the call with that `id`), and keeps the call and its result for the tabs that listen later.
   * Stages are only told: a card that comes later has its result.
   */
  tellCall(entry: SessionEntry, event: Event & { readonly id: string }): void {
    if (event.type === 'tool_call') this.keepCall(entry, event.id, event);
    else if (event.type === 'tool_result') this.keepResult(entry, event.id, event);
    this.publish(entry.id, event, null);
  }

  private keepCall(entry: SessionEntry, id: string, call: Event): void {
    let log = this.calls.get(entry);
    if (!log) {
      log = { calls: new Map(), bytes: 0 };
      this.calls.set(entry, log);
    }
    const bytes = sizeOf(call);
    log.calls.set(id, { call, result: null, bytes });
    log.bytes += bytes;
    trim(log);
  }

  private keepResult(entry: SessionEntry, id: string, result: Event): void {
    const log = this.calls.get(entry);
    const kept = log?.calls.get(id);
    if (!log || !kept) return;
    const bytes = sizeOf(result);
    kept.result = result;
    kept.bytes += bytes;
    log.bytes += bytes;
    trim(log);
  }

  /** The MCP calls kept for session `entry`, oldest first, each call followed by its result; null when none. */
  keptCalls(entry: SessionEntry): Event[] | null {
    const log = this.calls.get(entry);
    if (!log?.calls.size) return null;
    return [...log.calls.values()].flatMap(({ call, result }) => (result ? [call, result] : [call]));
  }

  /** Forgets the calls kept for session `entry` (its conversation was emptied, and the tabs' feeds with it). */
  forgetCalls(entry: SessionEntry): void {
    this.calls.delete(entry);
  }

  /** The session was deleted: its streams end (a tab that listens again is told it is gone). */
  end(id: string): void {
    const set = this.listeners.get(id);
    this.listeners.delete(id);
    for (const listener of set ?? []) listener.end();
  }
}

/** Drops the oldest calls beyond the count and the bytes allowed (never the newest). */
function trim(log: CallLog): void {
  for (const [id, kept] of log.calls) {
    if (log.calls.size <= 1 || (log.calls.size <= MAX_KEPT_CALLS && log.bytes <= MAX_KEPT_CALL_BYTES)) break;
    log.calls.delete(id);
    log.bytes -= kept.bytes;
  }
}
