/** Reads a tool call in either accepted form: OpenAI's `{id, type, function:{name, arguments}}` or `{name, arguments}`. */

export interface ParsedCall {
  readonly id: string | undefined;
  readonly name: string;
  /** Still raw: a JSON string, an object, or absent. */
  readonly arguments: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Returns the call, or null when the value is not a tool call at all. */
export function parseToolCall(input: unknown): ParsedCall | null {
  if (!isObject(input)) return null;
  const id = typeof input.id === 'string' ? input.id : undefined;
  const fn = isObject(input.function) ? input.function : input;
  if (typeof fn.name !== 'string') return null;
  return { id, name: fn.name, arguments: fn.arguments };
}

export type ParsedArguments = { ok: true; value: unknown } | { ok: false; message: string };

/** `arguments` as a JSON string (empty = `{}`) or an object. */
export function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}
