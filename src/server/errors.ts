/**
 * HTTP errors as JSON: `{"error": {"code", "message", …details}}` with the matching status. The `code` is the
 * stable word a program branches on; the `message` is Chinese, as a tool result's is (DESIGN.md §3): the studio
 * shows it to the designer as it is, and an integrator reads the code.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export type HttpErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  /** Answered by the HTTP layer before the app sees the request (server.ts). */
  | 'headers_too_large'
  | 'request_timeout'
  | 'unsupported_media_type'
  | 'too_many_sessions'
  | 'no_model'
  | 'busy'
  | 'conflict'
  | 'quota_exceeded'
  | 'internal';

export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: HttpErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Headers the answer carries (`Retry-After`, `Allow`). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

export function errorResponse(c: Context, err: HttpError): Response {
  for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
  return c.json({ error: { code: err.code, message: err.message, ...err.details } }, err.status);
}
