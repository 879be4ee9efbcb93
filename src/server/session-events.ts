/**
 * What one client of a session does, told as it happens to the session's other clients listening on
 * `GET /v1/sessions/:id/events` (another tab, another designer): the events of a chat turn and of a streamed
 * tool run as their own client gets them, `chat_running` when a chat turn starts and ends (so that the other
 * tabs can show it running and stop it), `chat_cleared` when the conversation is emptied, and `changed` when
 * the session's files or documents changed otherwise (an upload, a file deleted, calls not streamed). An MCP
 * client's calls on `/mcp` (whose session this is too) are told as a streamed run's, one call at a time. A
 * client names itself with `?tab=` on its stream and `X-Atelier-Tab` on its requests, and is not told its own.
 * With `?conversation=1` the stream starts with the conversation so far (`GET …/chat`'s answer as one event), so
 * that a tab listening again after a while away catches up with what it missed, none of it twice.
 *
 * Listeners are kept by session id, not by the session in memory: a session that idles out of memory and is
 * recovered by its next request is still heard by the tabs open on it.
 */
import type { Context } from 'hono';
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

interface Listener {
  readonly tab: string | null;
  readonly send: Send;
  readonly end: () => void;
}

export class SessionEvents {
  private readonly listeners = new Map<string, Set<Listener>>();

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

  /** The session was deleted: its streams end (a tab that listens again is told it is gone). */
  end(id: string): void {
    const set = this.listeners.get(id);
    this.listeners.delete(id);
    for (const listener of set ?? []) listener.end();
  }
}
