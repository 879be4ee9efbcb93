/** Reads a tool call in either accepted form: OpenAI's `{id, type, function:{name, arguments}}` or `{name, arguments}`. */
import { depthOver, MAX_JSON_DEPTH } from './json-depth.js';
import { describeJsonFault } from './json-fault.js';

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

/**
 * The longest `arguments` text read, in characters (1 MiB): far above any real call (a text layer's 10,000
 * characters included), and refused before JSON parsing so an oversized call costs nothing to answer.
 */
export const ARGUMENTS_MAX_LENGTH = 1024 * 1024;

export type ParsedArguments =
  | { ok: true; value: unknown }
  | { ok: false; code: 'invalid_json' | 'invalid_arguments'; message: string; hint: string };

const TOO_DEEP: ParsedArguments = {
  ok: false,
  code: 'invalid_arguments',
  message: `参数嵌套过深：超过 ${MAX_JSON_DEPTH} 层`,
  hint: '每个工具的参数都只有几层（对象、数组）；请按工具说明给出参数',
};

/**
 * `arguments` as a JSON string or an object. As across the OpenAI ecosystem, a call without parameters may come
 * as an empty string or as the JSON text `null` (some models send it so): both are `{}`, as they are when the
 * model sends the call back in the history.
 */
export function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return depthOver(raw) ? TOO_DEEP : { ok: true, value: raw };
  if (raw.length > ARGUMENTS_MAX_LENGTH) {
    return {
      ok: false,
      code: 'invalid_arguments',
      message: `参数过长：arguments 最多 ${ARGUMENTS_MAX_LENGTH} 个字符，收到 ${raw.length} 个字符`,
      hint: '每个参数都有长度上限（见工具说明）；请缩短文字或名称，或把大量图层分几次调用',
    };
  }
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (value === null) return { ok: true, value: {} };
    return depthOver(value) ? TOO_DEEP : { ok: true, value };
  } catch {
    return {
      ok: false,
      code: 'invalid_json',
      message: `参数不是有效的 JSON：${describeJsonFault(raw)}`,
      hint: 'arguments 应为 JSON 对象字符串，如 {"name":"图层 1"}',
    };
  }
}
