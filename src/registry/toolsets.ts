/**
 * Toolsets: the tools one kind of job needs (each tool's `toolset`), for a client that cannot take every tool.
 * Several MCP clients pass only their first 40 or so tools to the model, or refuse more: such a client names the
 * toolsets it wants, and `core` comes with any choice, since no job can be done without opening, looking at,
 * saving or undoing a document.
 */
import { toolsOf, type Variant } from './index.js';
import { TOOLSET_KEYS, type ToolDefinition, type Toolset } from './types.js';

export { TOOLSET_KEYS };

/** The toolset every choice includes. */
export const ALWAYS_LISTED: Toolset = 'core';

/** A toolset name the registry does not know; the message (Chinese) names the valid ones. */
export class UnknownToolset extends Error {
  constructor(readonly names: readonly string[]) {
    super(
      names.length === 0
        ? `没有指定工具组：可选 ${TOOLSET_KEYS.join('、')}（用逗号分隔；${ALWAYS_LISTED} 总是提供）`
        : `未知的工具组${names.map((n) => `“${n.length > 40 ? `${n.slice(0, 40)}…` : n}”`).join('、')}：可选 ${TOOLSET_KEYS.join('、')}（用逗号分隔；${ALWAYS_LISTED} 总是提供）`,
    );
  }
}

/**
 * `text, garment` as toolsets, in TOOLSET_KEYS' order; throws UnknownToolset for any other name or for none at all.
 */
export function parseToolsets(text: string): Toolset[] {
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const unknown = names.filter((n) => !(TOOLSET_KEYS as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) throw new UnknownToolset([...new Set(unknown)]);
  return TOOLSET_KEYS.filter((key) => names.includes(key));
}

const rank = new Map(TOOLSET_KEYS.map((key, i) => [key, i]));

/**
 * The variant's tools in listing order (toolset by toolset as TOOLSET_KEYS orders them, the registry's order within
 * one); only those of `chosen` and `core` when `chosen` is given.
 */
export function toolsInToolsets(variant: Variant, chosen?: readonly Toolset[]): ToolDefinition[] {
  const wanted = chosen ? new Set<Toolset>([ALWAYS_LISTED, ...chosen]) : undefined;
  const tools = toolsOf(variant);
  const order = new Map(tools.map((t, i) => [t, i]));
  return tools
    .filter((t) => !wanted || wanted.has(t.toolset))
    .sort((a, b) => rank.get(a.toolset)! - rank.get(b.toolset)! || order.get(a)! - order.get(b)!);
}
