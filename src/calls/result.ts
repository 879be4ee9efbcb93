/** The one JSON object every call returns (DESIGN.md §3). */
import type { ErrorCode } from '../engine/errors.js';
import type { ImageOut } from '../tools/types.js';

export interface ToolError {
  readonly code: ErrorCode;
  /** Chinese, like the registry. */
  readonly message: string;
  readonly hint?: string;
  readonly details?: unknown;
}

export type ToolResult =
  | ({ readonly ok: true; readonly images?: readonly ImageOut[] } & { readonly [key: string]: unknown })
  | { readonly ok: false; readonly error: ToolError };

export function failure(code: ErrorCode, message: string, extras: { hint?: string; details?: unknown } = {}) {
  const error: ToolError = { code, message, ...extras };
  return { ok: false, error } as const satisfies ToolResult;
}
