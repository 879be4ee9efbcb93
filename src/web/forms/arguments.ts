/**
 * Form values ⇄ tool arguments. The form keeps what the user typed; only what was filled in is sent. A required
 * field left empty is said at the field before anything is sent (`emptyRequired`); everything else (ranges,
 * formats, what a name refers to) the server's validator, the one source of truth, answers.
 */
import type { ItemSchema, ParametersSchema, ParamLimits, ParamSchema } from '../../registry/types.js';

export type FormValue = string | boolean | readonly string[] | readonly Record<string, string>[];
export type FormValues = Readonly<Record<string, FormValue>>;

/** The value a scalar field starts with: its limits' default, else a required enum's first value, else empty. */
function startValue(schema: ParamSchema, required: boolean, limits: ParamLimits | undefined): string {
  if (limits?.default !== undefined) return String(limits.default);
  if (schema.enum?.length && required) return schema.enum[0]!;
  return '';
}

/** Initial values: the limits' defaults, booleans off, a required enum at its first value, everything else empty. */
export function initialValues(
  parameters: ParametersSchema,
  limits: Readonly<Record<string, ParamLimits>>,
): Record<string, FormValue> {
  const values: Record<string, FormValue> = {};
  for (const [name, schema] of Object.entries(parameters.properties)) {
    if (schema.type === 'boolean') values[name] = limits[name]?.default === true;
    else if (schema.type === 'array') values[name] = [];
    else values[name] = startValue(schema, parameters.required.includes(name), limits[name]);
  }
  return values;
}

/**
 * A new row of a table of objects, started as a field is: a required enum column (a piece's 裁片类型) at its first
 * value, since its picker offers no blank; a column's default from its limits; the rest empty.
 */
export function initialRow(
  items: Extract<ItemSchema, { type: 'object' }>,
  limits: Readonly<Record<string, ParamLimits>> = {},
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(items.properties).map(([column, schema]) => [
      column,
      startValue(schema, items.required.includes(column), limits[column]),
    ]),
  );
}

function cell(type: string, raw: string): unknown {
  return type === 'number' && raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
}

/** The arguments object a tool call carries: empty optional fields left out, numbers as numbers. */
export function argumentsOf(parameters: ParametersSchema, values: FormValues): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(parameters.properties)) {
    const value = values[name];
    const required = parameters.required.includes(name);
    if (value === undefined) continue;
    if (typeof value === 'boolean') {
      args[name] = value;
    } else if (typeof value === 'string') {
      if (value.trim() === '') continue;
      args[name] = cell(schema.type, value);
    } else if (schema.items?.type === 'object') {
      const columns = schema.items.properties;
      args[name] = (value as readonly Record<string, string>[]).map((row) => {
        const entry: Record<string, unknown> = {};
        for (const [column, raw] of Object.entries(row)) {
          if (raw.trim() === '') continue;
          entry[column] = cell(columns[column]?.type ?? 'string', raw);
        }
        return entry;
      });
    } else {
      if ((value as readonly string[]).length === 0 && !required) continue;
      args[name] = [...(value as readonly string[])];
    }
  }
  return args;
}

/**
 * The required parameters (the schema's `required`) a run would go without: the fields left blank. A switch, a
 * list or a table always sends a value (an empty list may mean something, and is the server's to judge).
 */
export function emptyRequired(parameters: ParametersSchema, values: FormValues): string[] {
  const args = argumentsOf(parameters, values);
  return parameters.required.filter((name) => !(name in args));
}
