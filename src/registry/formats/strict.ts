/**
 * OpenAI strict mode (structured outputs for function calling): every property is listed in `required`,
 * an optional one accepts `null` instead, and every object forbids extra keys. A per-target transform,
 * never the published shape.
 */
import type { ItemSchema, ParametersSchema, ParamSchema } from '../types.js';

export interface StrictObjectSchema {
  type: 'object';
  properties: Record<string, StrictSchema>;
  required: string[];
  additionalProperties: false;
}

export interface StrictSchema {
  type: string | string[];
  description?: string;
  enum?: (string | null)[];
  items?: StrictSchema | StrictObjectSchema;
}

function strictItems(items: ItemSchema): StrictSchema | StrictObjectSchema {
  return items.type === 'object' ? strictObject(items) : { type: items.type };
}

function strictProperty(param: ParamSchema, optional: boolean): StrictSchema {
  const out: StrictSchema = {
    type: optional ? [param.type, 'null'] : param.type,
    description: param.description,
  };
  if (param.enum) out.enum = optional ? [...param.enum, null] : [...param.enum];
  if (param.items) out.items = strictItems(param.items);
  return out;
}

export function strictObject(schema: Omit<ParametersSchema, 'type'> & { type: string }): StrictObjectSchema {
  const properties: Record<string, StrictSchema> = {};
  for (const [key, param] of Object.entries(schema.properties)) {
    properties[key] = strictProperty(param, !schema.required.includes(key));
  }
  return {
    type: 'object',
    properties,
    required: Object.keys(schema.properties),
    additionalProperties: false,
  };
}
