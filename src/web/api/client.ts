/**
 * The studio's only way to the server: JSON requests, uploads, streamed runs and images, all carrying the
 * bearer token the page was opened with (kept in memory, never put in a URL).
 */
import { sseEvents } from './sse.js';
import type { ChatEvent } from './types.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function failureOf(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = body.error.message;
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiError(res.status, code, message);
}

/** A name for this page among the session's tabs, so that the server does not tell it what it did itself. */
function newTabName(): string {
  // getRandomValues, not randomUUID: a studio served by plain HTTP beyond loopback is no secure context.
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export class Api {
  /** Sent with every request (`X-Atelier-Tab`), and named when listening to the session's events. */
  readonly tab = newTabName();

  constructor(private readonly token: string | null) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const own = { ...extra, 'x-atelier-tab': this.tab };
    return this.token ? { ...own, authorization: `Bearer ${this.token}` } : own;
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(path, {
      ...init,
      headers: this.headers((init.headers as Record<string, string> | undefined) ?? {}),
    });
    if (!res.ok) throw await failureOf(res);
    return res;
  }

  async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await this.request(path, init);
    return (res.status === 204 ? null : await res.json()) as T;
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.json<T>(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /** POSTs and hands each server-sent event to `onEvent` until the stream ends. */
  async stream(path: string, body: unknown, onEvent: (e: ChatEvent) => void, signal?: AbortSignal) {
    const res = await this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
    if (!res.body) throw new ApiError(res.status, 'no_body', 'empty response');
    for await (const event of sseEvents<ChatEvent>(res.body)) onEvent(event);
  }

  /**
   * Listens to what the session's other tabs and clients do (`GET …/events`), the conversation so far first,
   * handing each event to `onEvent` until the stream ends; `onOpen` once it is listening.
   */
  async listen<T>(sessionId: string, onOpen: () => void, onEvent: (e: T) => void, signal: AbortSignal) {
    const res = await this.request(`/v1/sessions/${sessionId}/events?tab=${this.tab}&conversation=1`, {
      headers: { accept: 'text/event-stream' },
      signal,
    });
    if (!res.body) throw new ApiError(res.status, 'no_body', 'empty response');
    onOpen();
    for await (const event of sseEvents<T>(res.body)) onEvent(event);
  }

  /** Fetches an image or file with the token and gives it as a blob (the caller owns any object URL). */
  async blob(url: string, signal?: AbortSignal): Promise<{ blob: Blob; headers: Headers }> {
    const res = await this.request(url, signal ? { signal } : {});
    return { blob: await res.blob(), headers: res.headers };
  }
}

/** Reads `?token=` once and removes it from the address bar, so it is not bookmarked, shared or logged. */
export function takeTokenFromAddress(): string | null {
  const url = new URL(window.location.href);
  const token = url.searchParams.get('token');
  if (token === null) return null;
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
  return token;
}

/**
 * Removes a file of the session's folder (`DELETE` on the URL it is downloaded from). The server refuses, with
 * a message for the designer, a file an open document or the garment photo uses.
 */
export async function deleteSessionFile(api: Api, sessionId: string, path: string): Promise<void> {
  const url = `/v1/sessions/${sessionId}/files/${path.split('/').map(encodeURIComponent).join('/')}`;
  await api.request(url, { method: 'DELETE' });
}

/** What clearing the conversation removed, and the kept images left because a document or the photo uses them. */
export interface ClearedChat {
  readonly removed_files: number;
  readonly freed_bytes: number;
  readonly kept: readonly string[];
}

/**
 * Empties the session's conversation (its transcript and kept images), keeping its documents and files; the
 * server refuses (`busy`) while a reply runs.
 */
export function clearChat(api: Api, sessionId: string): Promise<ClearedChat> {
  return api.json<ClearedChat>(`/v1/sessions/${sessionId}/chat`, { method: 'DELETE' });
}
