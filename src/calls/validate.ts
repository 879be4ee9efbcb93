/**
 * Argument validation, compiled once per tool from the published schema plus the tool's `limits`.
 * Runs before anything executes. Lenient only where models are known to slip (numbers and booleans sent
 * as strings, `null` for an omitted optional in strict mode, colours without `#`); never clamps.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { ItemSchema, ParamLimits, ParamSchema, ToolDefinition } from '../registry/index.js';

export interface ArgumentProblem {
  readonly parameter: string;
  readonly message: string;
  readonly allowed?: readonly unknown[];
  readonly range?: { readonly min?: number; readonly max?: number; readonly above?: number };
}

export type Validation =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly problems: ArgumentProblem[] };

const COLOR = /^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/;
const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

type JsonSchema = Record<string, unknown>;

function limitKeywords(limits: ParamLimits | undefined): JsonSchema {
  if (!limits) return {};
  const out: JsonSchema = {};
  if (limits.min !== undefined) out.minimum = limits.min;
  if (limits.max !== undefined) out.maximum = limits.max;
  if (limits.above !== undefined) out.exclusiveMinimum = limits.above;
  if (limits.integer) out.multipleOf = 1;
  if (limits.format === 'color') out.pattern = COLOR.source;
  if (limits.format === 'path') out.minLength = 1;
  return out;
}

function itemsSchema(items: ItemSchema, limits: ParamLimits | undefined): JsonSchema {
  if (items.type !== 'object') return { type: items.type };
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

export function normaliseColor(value: string): string {
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

function describe(tool: ToolDefinition, e: ErrorObject, args: Record<string, unknown>): ArgumentProblem {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const parameter = parameterPath(e.instancePath, String(params.missingProperty));
      return { parameter, message: `缺少必填参数 ${parameter}` };
    }
    case 'additionalProperties': {
      const parameter = parameterPath(e.instancePath, String(params.additionalProperty));
      const allowed = e.instancePath ? [] : Object.keys(tool.parameters.properties);
      return {
        parameter,
        message:
          allowed.length > 0
            ? `未知参数 ${parameter}；可用参数：${allowed.join(', ')}`
            : e.instancePath
              ? `未知字段 ${parameter}`
              : `未知参数 ${parameter}；此工具不接受任何参数`,
        allowed,
      };
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
      return {
        parameter,
        message: `${parameter} 不是有效的十六进制颜色：应为 #RRGGBB、RRGGBB 或 #RGB，收到 "${valueAt(args, e.instancePath)}"`,
      };
    }
    case 'minLength': {
      const parameter = parameterPath(e.instancePath);
      return { parameter, message: `${parameter} 不能为空` };
    }
    default: {
      const parameter = parameterPath(e.instancePath) || '(arguments)';
      return { parameter, message: `${parameter}: ${e.message ?? e.keyword}` };
    }
  }
}

function valueAt(args: Record<string, unknown>, instancePath: string): unknown {
  let v: unknown = args;
  for (const s of instancePath.split('/').filter(Boolean)) {
    v = isPlainObject(v) || Array.isArray(v) ? (v as Record<string, unknown>)[s] : undefined;
  }
  return typeof v === 'string' ? JSON.stringify(v) : v;
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

/** Validates raw (already JSON-parsed) arguments; on success returns them coerced, normalised and defaulted. */
export function validateArguments(tool: ToolDefinition, raw: unknown): Validation {
  if (raw === undefined || raw === null) raw = {};
  if (!isPlainObject(raw)) {
    return { ok: false, problems: [{ parameter: '(arguments)', message: 'arguments 必须是 JSON 对象' }] };
  }
  const properties = tool.parameters.properties;
  const required = new Set(tool.parameters.required);
  // Strict-mode schemas make optionals nullable: a null optional means "not given".
  const present = Object.fromEntries(
    Object.entries(raw).filter(([k, v]) => !(v === null && k in properties && !required.has(k))),
  );
  const args = coerceObject(present, properties);
  const validate = validatorFor(tool);
  if (!validate(args)) {
    const problems = (validate.errors ?? []).map((e) => describe(tool, e, args));
    const unique = [...new Map(problems.map((p) => [p.message, p])).values()];
    return { ok: false, problems: unique };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) out[key] = applyFormats(value, tool.limits?.[key]);
  for (const [key, limits] of Object.entries(tool.limits ?? {})) {
    if (out[key] === undefined && limits.default !== undefined) out[key] = limits.default;
  }
  return { ok: true, args: out };
}

/** Compiles every validator up front so the first call of each tool pays nothing. */
export function precompile(tools: readonly ToolDefinition[]): void {
  for (const t of tools) validatorFor(t);
}
