/** HTTP errors as JSON: `{"error": {"code", "message", …details}}` with the matching status. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export type HttpErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'payload_too_large'
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
  ) {
    super(message);
  }
}

export function errorResponse(c: Context, err: HttpError): Response {
  return c.json({ error: { code: err.code, message: err.message, ...err.details } }, err.status);
}
