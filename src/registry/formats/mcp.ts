/** MCP `tools/list` entries: the Chinese label is the title; annotations come from the tool's effect and flags. */
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

/**
 * The hints as the MCP spec means them: read-only = changes nothing in the session or the workspace; destructive
 * = may discard work (else only additive updates); idempotent = a repeat with the same arguments changes nothing
 * more; open world = may consult an outside service.
 */
export function toMcp(tools: readonly ToolDefinition[]): McpTool[] {
  return tools.map((t) => {
    const readOnly = t.effect === 'read' && !t.changesContext;
    return {
      name: t.name,
      title: t.label,
      description: t.description,
      inputSchema: t.parameters,
      annotations: {
        title: t.label,
        readOnlyHint: readOnly,
        destructiveHint: t.effect === 'destructive',
        idempotentHint: readOnly || Boolean(t.idempotent),
        openWorldHint: Boolean(t.openWorld),
      },
    };
  });
}
