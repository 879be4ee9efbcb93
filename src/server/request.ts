/** Reading what a request asks for: query values checked against their allowed values, JSON bodies, sessions. */

import type { Context } from 'hono';
import { depthOver, MAX_JSON_DEPTH } from '../calls/json-depth.js';
import { SessionHeldElsewhere } from '../service/session-lock.js';
import type { SessionEntry, SessionStore } from '../service/sessions.js';
import { isSessionId, TooManySessions } from '../service/sessions.js';
import { header, readBody } from './body.js';
import { HttpError } from './errors.js';

export function oneOf<T extends string>(
  what: string,
  raw: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (raw === undefined || raw === '') return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new HttpError(400, 'bad_request', `unknown ${what} "${raw}"; allowed: ${allowed.join(', ')}`, {
    allowed,
  });
}

export function booleanOf(what: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === '' || raw === 'true' || raw === '1') return true;
  throw new HttpError(400, 'bad_request', `${what} must be true or false, not "${raw}"`, {
    allowed: ['true', 'false'],
  });
}

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The body as JSON, within `limit` bytes; 415 when it is not declared JSON, 400 when it does not parse. */
export async function jsonBody(c: Context, limit: number, what: string): Promise<unknown> {
  if (!isJson(header(c, 'content-type'))) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      `send ${what} as JSON (Content-Type: application/json)`,
    );
  }
  const raw = await readBody(c, limit);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new HttpError(400, 'bad_request', `the body is not valid JSON: ${(err as Error).message}`);
  }
  if (depthOver(value, MAX_JSON_DEPTH)) {
    throw new HttpError(400, 'bad_request', `the JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return value;
}

function noSession(id: string): HttpError {
  return new HttpError(404, 'not_found', `no session "${id}" (it may have timed out or been deleted)`);
}

/** The session id a path names (`/v1/sessions/<id>` or below it), or undefined. */
export function sessionIdInPath(pathname: string): string | undefined {
  const id = /^\/v1\/sessions\/([^/]+)/.exec(pathname)?.[1];
  return id !== undefined && isSessionId(id) ? id : undefined;
}

/**
 * Brings the session back from its journal when it is not in memory (this process restarted, or the one that
 * served it died), so the routes find it; nothing when there is no such session.
 */
export async function recoverSession(store: SessionStore, id: string): Promise<SessionEntry | undefined> {
  try {
    return await store.recover(id);
  } catch (err) {
    if (err instanceof SessionHeldElsewhere) {
      throw new HttpError(
        409,
        'busy',
        `session "${id}" is served by another process; send its requests there`,
      );
    }
    if (err instanceof TooManySessions) throw new HttpError(429, 'too_many_sessions', err.message);
    throw err;
  }
}

export function sessionOr404(store: SessionStore, c: Context): SessionEntry {
  const id = c.req.param('id') ?? '';
  const entry = isSessionId(id) ? store.get(id) : undefined;
  if (!entry) throw noSession(id);
  return entry;
}

/** Runs `fn` with the session marked busy, so it cannot time out under a running request. */
export async function inSession<T>(
  store: SessionStore,
  c: Context,
  fn: (entry: SessionEntry) => Promise<T>,
): Promise<T> {
  const id = c.req.param('id') ?? '';
  const out = isSessionId(id) ? await store.use(id, fn) : undefined;
  if (out === undefined) throw noSession(id);
  return out;
}
