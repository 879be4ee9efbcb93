/** OpenAI chat-completions `tools`: the spec's own shape. */
import type { ToolDefinition } from '../types.js';
import { type StrictObjectSchema, strictObject } from './strict.js';

export interface OpenAIChatTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: ToolDefinition['parameters'] | StrictObjectSchema;
    strict?: true;
  };
}

export function toOpenAI(
  tools: readonly ToolDefinition[],
  opts: { strict?: boolean } = {},
): OpenAIChatTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: opts.strict
      ? { name: t.name, description: t.description, parameters: strictObject(t.parameters), strict: true }
      : { name: t.name, description: t.description, parameters: t.parameters },
  }));
}
