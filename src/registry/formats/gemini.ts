/**
 * Gemini `tools: [{ functionDeclarations }]`. Gemini takes an OpenAPI 3.0 subset: no `$schema`, no
 * `additionalProperties`, `enum` on strings only — which the spec's shape already is. Two more rules:
 * an OBJECT schema must have non-empty `properties` (so a tool without parameters omits `parameters`),
 * and empty `required` lists are dropped.
 */
import type { ItemSchema, ParamSchema, ToolDefinition } from '../types.js';

export interface GeminiSchema {
  type: string;
  description?: string;
  enum?: string[];
  items?: GeminiSchema;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: GeminiSchema;
}

function objectSchema(properties: Readonly<Record<string, ParamSchema>>, required: readonly string[]) {
  const out: GeminiSchema = { type: 'object', properties: {} };
  for (const [key, param] of Object.entries(properties)) out.properties![key] = paramSchema(param);
  if (required.length > 0) out.required = [...required];
  return out;
}

function itemSchema(items: ItemSchema): GeminiSchema {
  return items.type === 'object' ? objectSchema(items.properties, items.required) : { type: items.type };
}

function paramSchema(param: ParamSchema): GeminiSchema {
  const out: GeminiSchema = { type: param.type, description: param.description };
  if (param.enum) out.enum = [...param.enum];
  if (param.items) out.items = itemSchema(param.items);
  return out;
}

export function toGemini(
  tools: readonly ToolDefinition[],
): [{ functionDeclarations: GeminiFunctionDeclaration[] }] {
  const functionDeclarations = tools.map((t): GeminiFunctionDeclaration => {
    const { properties, required } = t.parameters;
    return Object.keys(properties).length === 0
      ? { name: t.name, description: t.description }
      : { name: t.name, description: t.description, parameters: objectSchema(properties, required) };
  });
  return [{ functionDeclarations }];
}
