/**
 * Failures every layer below the protocol raises. The protocol turns them into
 * `{ok:false, error:{code, message, hint?, details?}}`; the codes are the stable words of DESIGN.md §3.
 */
export type ErrorCode =
  | 'unknown_tool'
  | 'invalid_json'
  | 'invalid_arguments'
  | 'no_document'
  | 'not_found'
  | 'conflict'
  | 'locked'
  | 'invalid_state'
  | 'out_of_bounds'
  | 'unsupported'
  | 'io_error'
  | 'internal';

export interface ErrorExtras {
  /** The tool to call next, or what to change, in Chinese. */
  readonly hint?: string;
  readonly details?: unknown;
}

export class EditorError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: unknown;

  /** `message` is Chinese, like the registry. */
  constructor(code: ErrorCode, message: string, extras: ErrorExtras = {}) {
    super(message);
    this.name = 'EditorError';
    this.code = code;
    this.hint = extras.hint;
    this.details = extras.details;
  }
}

export function fail(code: ErrorCode, message: string, extras?: ErrorExtras): never {
  throw new EditorError(code, message, extras);
}
