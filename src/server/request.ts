/** Reading what a request asks for: query values checked against their allowed values, JSON bodies, sessions. */

import type { Context } from 'hono';
import { depthOver, MAX_JSON_DEPTH } from '../calls/json-depth.js';
import { describeJsonFault } from '../calls/json-fault.js';
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
  throw new HttpError(400, 'bad_request', `${what} 的值“${raw}”无效，可用的值：${allowed.join('、')}`, {
    allowed,
  });
}

export function booleanOf(what: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === '' || raw === 'true' || raw === '1') return true;
  throw new HttpError(400, 'bad_request', `${what} 只能是 true 或 false，不能是“${raw}”`, {
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
      `${what}须以 JSON 发送（Content-Type: application/json）`,
    );
  }
  const raw = await readBody(c, limit);
  let value: unknown;
  const text = raw.toString('utf8');
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError(
      400,
      'bad_request',
      raw.byteLength === 0 ? '请求体是空的：须是 JSON' : `请求体不是有效的 JSON：${describeJsonFault(text)}`,
      {
        // The parser's own words, for an integrator's logs; the message says it in Chinese.
        reason: (err as Error).message,
      },
    );
  }
  if (depthOver(value, MAX_JSON_DEPTH)) {
    throw new HttpError(400, 'bad_request', `JSON 的嵌套超过 ${MAX_JSON_DEPTH} 层`, {
      limit: MAX_JSON_DEPTH,
    });
  }
  return value;
}

export function noSession(id: string): HttpError {
  return new HttpError(404, 'not_found', `没有会话“${id}”（可能已超时或已被删除）`);
}

/** 429 for one session more than the server holds, with the limit and when to try again. */
export function tooManySessions(err: TooManySessions): HttpError {
  return new HttpError(
    429,
    'too_many_sessions',
    `服务已打开 ${err.limit} 个会话，达到上限（HTTP 与 MCP 合计）：请 ${err.retryAfterSeconds} 秒后再试，或先关闭不再使用的会话`,
    { limit: err.limit, retry_after_seconds: err.retryAfterSeconds },
    { 'retry-after': String(err.retryAfterSeconds) },
  );
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
      throw new HttpError(409, 'busy', `会话“${id}”由另一个服务进程提供：请把它的请求发到那里`);
    }
    if (err instanceof TooManySessions) throw tooManySessions(err);
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
