/** Anthropic Messages API `tools`: `input_schema` with `type: 'object'` at the root. */
import type { ToolDefinition } from '../types.js';

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ToolDefinition['parameters'];
}

export function toAnthropic(tools: readonly ToolDefinition[]): AnthropicTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}
