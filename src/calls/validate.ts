/**
 * Argument validation, compiled once per tool from the published schema plus the tool's `limits`.
 * Runs before anything executes. Lenient only where models are known to slip (numbers and booleans sent
 * as strings, `null` for an omitted optional in strict mode, colours without `#`); never clamps.
 * Lengths are checked first, by hand, so an oversized value is refused in time linear in its size before Ajv
 * (patterns, all-errors reporting) or any handler sees it.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Cmyk } from '../engine/color-mode.js';
import { pathProblem } from '../engine/workspace.js';
import type { ItemSchema, ParamLimits, ParamSchema, ToolDefinition } from '../registry/index.js';
import { NON_BLANK_TEXT } from '../registry/stated-bounds.js';
import { inksAsked } from '../tools/held-color.js';

export interface ArgumentProblem {
  readonly parameter: string;
  readonly message: string;
  readonly allowed?: readonly unknown[];
  readonly range?: { readonly min?: number; readonly max?: number; readonly above?: number };
  /** The length bound that was exceeded. */
  readonly bound?: { readonly maxLength?: number; readonly maxItems?: number };
  /** What to send instead, where the message alone does not say it. */
  readonly hint?: string;
}

export type Validation =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly problems: ArgumentProblem[] };

const COLOR = /^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/;
/** The longest colour `COLOR` accepts (`#RRGGBB`); anything longer is refused without running the pattern. */
const COLOR_MAX_LENGTH = 7;
/** One ink in percent, 0–100 (at most two decimals), `%` optional. */
const INK = String.raw`\s*(?:100(?:\.0{1,2})?|\d{1,2}(?:\.\d{1,2})?)%?\s*`;
/** Press inks, `cmyk(C, M, Y, K)` in percent, commas or spaces between them (ParamLimits.inks). */
const INKS = new RegExp(
  `^[cC][mM][yY][kK]\\((?:${INK},){3}${INK}\\)$|^[cC][mM][yY][kK]\\((?:${INK}\\s){3}${INK}\\)$`,
);
const INKS_MAX_LENGTH = 48;
const COLOR_OR_INKS = new RegExp(`${COLOR.source}|${INKS.source}`);
/** How much of a refused value a message quotes. */
const QUOTED_MAX_LENGTH = 64;
/** A character that is not whitespace (JavaScript's `\s` includes U+3000, the full-width space). */
const NON_BLANK = /\S/;
const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

type JsonSchema = Record<string, unknown>;

function limitKeywords(limits: ParamLimits | undefined): JsonSchema {
  if (!limits) return {};
  const out: JsonSchema = {};
  if (limits.min !== undefined) out.minimum = limits.min;
  if (limits.max !== undefined) out.maximum = limits.max;
  if (limits.above !== undefined) out.exclusiveMinimum = limits.above;
  if (limits.integer) out.multipleOf = 1;
  if (limits.format === 'color') out.pattern = (limits.inks ? COLOR_OR_INKS : COLOR).source;
  if (limits.nonBlank) out.pattern = NON_BLANK.source;
  if (limits.format === 'path') out.minLength = 1;
  if (limits.maxLength !== undefined) out.maxLength = limits.maxLength;
  if (limits.maxItems !== undefined) out.maxItems = limits.maxItems;
  return out;
}

function itemsSchema(items: ItemSchema, limits: ParamLimits | undefined): JsonSchema {
  if (items.type !== 'object') return { type: items.type, ...limitKeywords(limits?.each) };
  return objectSchema(items.properties, items.required, limits?.items);
}

function paramSchema(param: ParamSchema, limits: ParamLimits | undefined): JsonSchema {
  const out: JsonSchema = { type: param.type, ...limitKeywords(limits) };
  if (param.enum) out.enum = [...param.enum];
  if (param.items) out.items = itemsSchema(param.items, limits);
  return out;
}

function objectSchema(
  properties: Readonly<Record<string, ParamSchema>>,
  required: readonly string[],
  limits: Readonly<Record<string, ParamLimits>> | undefined,
): JsonSchema {
  const props: Record<string, JsonSchema> = {};
  for (const [key, param] of Object.entries(properties)) props[key] = paramSchema(param, limits?.[key]);
  return { type: 'object', properties: props, required: [...required], additionalProperties: false };
}

/** Models send numbers and booleans as strings, and arrays as JSON text; accept those forms only. */
function coerce(value: unknown, param: ParamSchema | ItemSchema): unknown {
  if (typeof value === 'string') {
    if (param.type === 'number' && NUMERIC.test(value)) return Number(value);
    if (param.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
    if (param.type === 'array' && value.trim().startsWith('[')) {
      try {
        return coerce(JSON.parse(value), param);
      } catch {
        return value;
      }
    }
  }
  if (Array.isArray(value) && param.type === 'array' && 'items' in param && param.items) {
    const items = param.items;
    return value.map((v) => coerce(v, items));
  }
  if (param.type === 'object' && 'properties' in param && isPlainObject(value)) {
    return coerceObject(value, param.properties);
  }
  return value;
}

function coerceObject(
  value: Record<string, unknown>,
  properties: Readonly<Record<string, ParamSchema>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const param = properties[key];
    out[key] = param ? coerce(v, param) : v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Press inks written as a colour parameter takes them (`cmyk(0, 0, 0, 100)`), in percent; undefined otherwise. */
export function parseInks(value: string): Cmyk | undefined {
  if (value.length > INKS_MAX_LENGTH || !INKS.test(value)) return undefined;
  return inksAsked(normaliseColor(value));
}

export function normaliseColor(value: string): string {
  if (INKS.test(value)) {
    const inks = value
      .slice(value.indexOf('(') + 1, -1)
      .split(/[\s,%]+/)
      .filter(Boolean)
      .map(Number);
    return `cmyk(${inks.join(',')})`;
  }
  const hex = value.replace('#', '').toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

function applyFormats(value: unknown, limits: ParamLimits | undefined): unknown {
  if (!limits) return value;
  if (limits.format === 'color' && typeof value === 'string') return normaliseColor(value);
  if (limits.items && Array.isArray(value)) {
    const fields = limits.items;
    return value.map((item) =>
      isPlainObject(item)
        ? Object.fromEntries(Object.entries(item).map(([k, v]) => [k, applyFormats(v, fields[k])]))
        : item,
    );
  }
  return value;
}

/** Unicode code points in `s`, as JSON Schema counts a string's length; stops counting past `max`. */
function lengthOver(s: string, max: number): number | null {
  if (s.length <= max) return null;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n > max ? n : null;
}

/** A caller's value as a message quotes it: never more than a short prefix of what was sent. */
export function quoted(value: string, max = QUOTED_MAX_LENGTH): string {
  const shown = value.length > max ? `${value.slice(0, max)}…（共 ${value.length} 个字符）` : value;
  return JSON.stringify(shown);
}

function tooLong(parameter: string, maxLength: number, length: number): ArgumentProblem {
  return {
    parameter,
    message: `${parameter} 过长：最多 ${maxLength} 个字符，收到 ${length} 个字符`,
    bound: { maxLength },
  };
}

function tooMany(parameter: string, maxItems: number, count: number): ArgumentProblem {
  return {
    parameter,
    message: `${parameter} 项数过多：最多 ${maxItems} 项，收到 ${count} 项`,
    bound: { maxItems },
  };
}

function stringProblem(
  parameter: string,
  value: unknown,
  limits: ParamLimits | undefined,
): ArgumentProblem[] {
  if (typeof value !== 'string' || !limits) return [];
  if (limits.maxLength !== undefined) {
    const over = lengthOver(value, limits.maxLength);
    if (over !== null) return [tooLong(parameter, limits.maxLength, over)];
  }
  if (limits.format === 'color' && value.length > (limits.inks ? INKS_MAX_LENGTH : COLOR_MAX_LENGTH)) {
    return [notAColor(parameter, value, limits.inks)];
  }
  return [];
}

/**
 * Every string over its `maxLength`, array over its `maxItems` and colour longer than a colour can be, found
 * in one pass over the (coerced) arguments. Values of the wrong type are left to Ajv.
 */
function lengthProblems(tool: ToolDefinition, args: Record<string, unknown>): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  for (const [key, value] of Object.entries(args)) {
    const limits = tool.limits?.[key];
    if (!limits) continue;
    problems.push(...stringProblem(key, value, limits));
    if (!Array.isArray(value)) continue;
    if (limits.maxItems !== undefined && value.length > limits.maxItems) {
      problems.push(tooMany(key, limits.maxItems, value.length));
      continue;
    }
    value.forEach((item, i) => {
      if (isPlainObject(item)) {
        for (const [field, v] of Object.entries(item)) {
          problems.push(...stringProblem(`${key}[${i}].${field}`, v, limits.items?.[field]));
        }
      } else {
        problems.push(...stringProblem(`${key}[${i}]`, item, limits.each));
      }
    });
  }
  return problems;
}

/** Paths that pass the schema but cannot name a file in the workspace (blank, dots only, spaces at the ends). */
function pathProblems(tool: ToolDefinition, args: Record<string, unknown>): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (tool.limits?.[key]?.format !== 'path' || typeof value !== 'string') continue;
    const problem = pathProblem(value);
    if (problem) problems.push({ parameter: key, message: `${key}：${problem}` });
  }
  return problems;
}

function blankName(parameter: string, value: unknown): ArgumentProblem {
  const shown = typeof value === 'string' ? quoted(value) : String(value);
  return {
    parameter,
    message: `${parameter} ${NON_BLANK_TEXT}（空格、全角空格、制表符等），收到 ${shown}`,
    hint: '给出一个含文字的名称，如“图层 1”（Photoshop 也不接受空白的图层、图层组或文档名称）',
  };
}

function notAColor(parameter: string, value: unknown, inks = false): ArgumentProblem {
  const shown = typeof value === 'string' ? quoted(value) : String(value);
  return {
    parameter,
    message: inks
      ? `${parameter} 不是有效的颜色：应为十六进制颜色 #RRGGBB、RRGGBB 或 #RGB，或油墨百分比 cmyk(C,M,Y,K)（每项 0–100），收到 ${shown}`
      : `${parameter} 不是有效的十六进制颜色：应为 #RRGGBB、RRGGBB 或 #RGB，收到 ${shown}`,
  };
}

/** Arguments with thousands of faults (unknown keys, oversized items) are answered with the first few. */
const MAX_PROBLEMS = 20;

function capped(problems: ArgumentProblem[]): ArgumentProblem[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  const rest = problems.length - MAX_PROBLEMS;
  return [
    ...problems.slice(0, MAX_PROBLEMS),
    { parameter: '(arguments)', message: `另有 ${rest} 处问题未列出` },
  ];
}

const TYPE_NAMES: Record<string, string> = {
  string: '字符串',
  number: '数字',
  boolean: '布尔值（true/false）',
  array: '数组',
  object: '对象',
};

function rangeText(limits: ParamLimits | undefined): string {
  const parts: string[] = [];
  if (limits?.min !== undefined && limits.max !== undefined) parts.push(`${limits.min} 到 ${limits.max}`);
  else if (limits?.min !== undefined) parts.push(`不小于 ${limits.min}`);
  else if (limits?.max !== undefined) parts.push(`不大于 ${limits.max}`);
  if (limits?.above !== undefined) parts.push(`大于 ${limits.above}`);
  return parts.join('，');
}

/** `/pieces/0/color` → `pieces[0].color` */
function parameterPath(instancePath: string, extra?: string): string {
  const segments = instancePath.split('/').filter(Boolean);
  if (extra) segments.push(extra);
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

function limitsAt(tool: ToolDefinition, path: string): ParamLimits | undefined {
  const [top, , field] = path.split(/[[\].]+/).filter(Boolean);
  const limits = top ? tool.limits?.[top] : undefined;
  return field ? limits?.items?.[field] : limits;
}

function unknownParameter(tool: ToolDefinition, key: string): ArgumentProblem {
  const allowed = Object.keys(tool.parameters.properties);
  const parameter = key.length > QUOTED_MAX_LENGTH ? quoted(key) : key;
  return {
    parameter,
    message:
      allowed.length > 0
        ? `未知参数 ${parameter}；可用参数：${allowed.join(', ')}`
        : `未知参数 ${parameter}；此工具不接受任何参数`,
    allowed,
  };
}

function describe(tool: ToolDefinition, e: ErrorObject, args: Record<string, unknown>): ArgumentProblem {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const parameter = parameterPath(e.instancePath, String(params.missingProperty));
      return { parameter, message: `缺少必填参数 ${parameter}` };
    }
    case 'additionalProperties': {
      const parameter = parameterPath(e.instancePath, String(params.additionalProperty));
      if (e.instancePath) return { parameter, message: `未知字段 ${parameter}`, allowed: [] };
      return unknownParameter(tool, parameter);
    }
    case 'enum': {
      const parameter = parameterPath(e.instancePath);
      const allowed = params.allowedValues as unknown[];
      return { parameter, message: `${parameter} 必须是以下之一：${allowed.join(', ')}`, allowed };
    }
    case 'type': {
      const parameter = parameterPath(e.instancePath) || '(arguments)';
      const expected = String(params.type);
      return { parameter, message: `${parameter} 应为${TYPE_NAMES[expected] ?? expected}` };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum': {
      const parameter = parameterPath(e.instancePath);
      const limits = limitsAt(tool, parameter);
      const value = valueAt(args, e.instancePath);
      const range = { min: limits?.min, max: limits?.max, above: limits?.above };
      return { parameter, message: `${parameter} 超出范围：允许 ${rangeText(limits)}，收到 ${value}`, range };
    }
    case 'multipleOf': {
      const parameter = parameterPath(e.instancePath);
      return { parameter, message: `${parameter} 必须是整数` };
    }
    case 'pattern': {
      const parameter = parameterPath(e.instancePath);
      const value = rawValueAt(args, e.instancePath);
      const limits = limitsAt(tool, parameter);
      return limits?.nonBlank ? blankName(parameter, value) : notAColor(parameter, value, limits?.inks);
    }
    case 'minLength': {
      const parameter = parameterPath(e.instancePath);
      return { parameter, message: `${parameter} 不能为空` };
    }
    // Caught by lengthProblems before Ajv runs; kept so the compiled schema can never word them differently.
    case 'maxLength': {
      const parameter = parameterPath(e.instancePath);
      const value = rawValueAt(args, e.instancePath);
      return tooLong(parameter, Number(params.limit), typeof value === 'string' ? [...value].length : 0);
    }
    case 'maxItems': {
      const parameter = parameterPath(e.instancePath);
      const value = rawValueAt(args, e.instancePath);
      return tooMany(parameter, Number(params.limit), Array.isArray(value) ? value.length : 0);
    }
    default: {
      const parameter = parameterPath(e.instancePath) || '(arguments)';
      return { parameter, message: `${parameter}: ${e.message ?? e.keyword}` };
    }
  }
}

function rawValueAt(args: Record<string, unknown>, instancePath: string): unknown {
  let v: unknown = args;
  for (const s of instancePath.split('/').filter(Boolean)) {
    v = isPlainObject(v) || Array.isArray(v) ? (v as Record<string, unknown>)[s] : undefined;
  }
  return v;
}

function valueAt(args: Record<string, unknown>, instancePath: string): unknown {
  const v = rawValueAt(args, instancePath);
  return typeof v === 'string' ? quoted(v) : v;
}

const ajv = new Ajv({ allErrors: true, strict: true });
const compiled = new WeakMap<ToolDefinition, ValidateFunction>();

function validatorFor(tool: ToolDefinition): ValidateFunction {
  let fn = compiled.get(tool);
  if (!fn) {
    fn = ajv.compile(objectSchema(tool.parameters.properties, tool.parameters.required, tool.limits));
    compiled.set(tool, fn);
  }
  return fn;
}

/**
 * Strict-mode schemas make optionals nullable, the fields of array items too: a null optional means "not given".
 */
function withoutNullOptionals(
  raw: Record<string, unknown>,
  properties: Readonly<Record<string, ParamSchema>>,
  required: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null && Object.hasOwn(properties, key) && !required.includes(key)) continue;
    const items = Object.hasOwn(properties, key) ? properties[key]!.items : undefined;
    out[key] =
      items?.type === 'object' && Array.isArray(value)
        ? value.map((item) =>
            isPlainObject(item) ? withoutNullOptionals(item, items.properties, items.required) : item,
          )
        : value;
  }
  return out;
}

/**
 * Why arguments that are not an object were refused: a JSON object encoded once more as a string (`"{\"x\":1}"`,
 * which models that escape their own output send) is named as such, so the model sends the object itself.
 */
function notAnObject(raw: unknown): string {
  if (typeof raw === 'string') {
    try {
      if (isPlainObject(JSON.parse(raw)))
        return 'arguments 必须是 JSON 对象，收到的却是包着 JSON 对象的字符串（多转义了一层）：请直接传这个对象本身';
    } catch {}
  }
  return 'arguments 必须是 JSON 对象';
}

/** Validates raw (already JSON-parsed) arguments; on success returns them coerced, normalised and defaulted. */
export function validateArguments(tool: ToolDefinition, raw: unknown): Validation {
  if (raw === undefined || raw === null) raw = {};
  if (!isPlainObject(raw)) {
    return { ok: false, problems: [{ parameter: '(arguments)', message: notAnObject(raw) }] };
  }
  const properties = tool.parameters.properties;
  const present = withoutNullOptionals(raw, properties, tool.parameters.required);
  const unknown = Object.keys(present).filter((k) => !Object.hasOwn(properties, k));
  // Ajv would describe every one of thousands of unknown keys; a few make the point.
  if (unknown.length > MAX_PROBLEMS) {
    return { ok: false, problems: capped(unknown.map((k) => unknownParameter(tool, k))) };
  }
  const args = coerceObject(present, properties);
  const oversized = lengthProblems(tool, args);
  if (oversized.length > 0) return { ok: false, problems: capped(oversized) };
  const validate = validatorFor(tool);
  if (!validate(args)) {
    const problems = (validate.errors ?? []).map((e) => describe(tool, e, args));
    const unique = [...new Map(problems.map((p) => [p.message, p])).values()];
    return { ok: false, problems: capped(unique) };
  }
  const badPaths = pathProblems(tool, args);
  if (badPaths.length > 0) return { ok: false, problems: badPaths };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) out[key] = applyFormats(value, tool.limits?.[key]);
  for (const [key, limits] of Object.entries(tool.limits ?? {})) {
    if (out[key] === undefined && limits.default !== undefined) out[key] = limits.default;
  }
  return { ok: true, args: out };
}
