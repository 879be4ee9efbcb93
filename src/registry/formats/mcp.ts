/** MCP `tools/list` entries: the Chinese label is the title; annotations come from the tool's effect. */
import type { ToolDefinition } from '../types.js';

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: ToolDefinition['parameters'];
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

export function toMcp(tools: readonly ToolDefinition[]): McpTool[] {
  return tools.map((t) => ({
    name: t.name,
    title: t.label,
    description: t.description,
    inputSchema: t.parameters,
    annotations: {
      title: t.label,
      readOnlyHint: t.effect === 'read',
      destructiveHint: t.effect === 'destructive',
      idempotentHint: t.effect === 'read' || Boolean(t.idempotent),
      openWorldHint: Boolean(t.openWorld),
    },
  }));
}
