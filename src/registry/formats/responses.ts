/** OpenAI Responses API `tools`: flat function tools with an explicit `strict` flag. */
import type { ToolDefinition } from '../types.js';
import { type StrictObjectSchema, strictObject } from './strict.js';

export interface ResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: ToolDefinition['parameters'] | StrictObjectSchema;
  strict: boolean;
}

export function toResponses(
  tools: readonly ToolDefinition[],
  opts: { strict?: boolean } = {},
): ResponsesTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: opts.strict ? strictObject(t.parameters) : t.parameters,
    strict: Boolean(opts.strict),
  }));
}
