/**
 * Toolsets: the tools one kind of job needs (each tool's `toolset`), for a client that cannot take every tool.
 * Several MCP clients pass only their first 40 or so tools to the model, or refuse more: such a client names the
 * toolsets it wants, and `core` comes with any choice, since no job can be done without opening, looking at,
 * saving or undoing a document.
 */
import { toolsOf, type Variant } from './index.js';
import type { ToolDefinition, Toolset } from './types.js';

export interface ToolsetInfo {
  readonly key: Toolset;
  readonly label: string;
  readonly labelEn: string;
}

/**
 * In the order tools are listed: a client that keeps only the first tools keeps the ones every job needs, then
 * the garment flow (the product's own job), then the layer tools most edits start from.
 */
export const TOOLSETS: readonly ToolsetInfo[] = [
  { key: 'core', label: '基础（总是提供）', labelEn: 'Essentials (always included)' },
  { key: 'garment', label: '服装套图', labelEn: 'Garment Patterns' },
  { key: 'layers', label: '图层', labelEn: 'Layers' },
  { key: 'text', label: '文字', labelEn: 'Text' },
  { key: 'arrange', label: '编组、对齐与合并', labelEn: 'Group, Align & Merge' },
  { key: 'effects', label: '图层样式与蒙版', labelEn: 'Effects & Masks' },
  { key: 'adjust', label: '调整', labelEn: 'Adjustments' },
  { key: 'selection', label: '选区与颜色', labelEn: 'Selection & Color' },
  { key: 'document', label: '文档与画布', labelEn: 'Document & Canvas' },
];

export const TOOLSET_KEYS: readonly Toolset[] = TOOLSETS.map((s) => s.key);

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
 * `text, garment` as toolsets, in TOOLSETS' order; throws UnknownToolset for any other name or for none at all.
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
 * The variant's tools in listing order (toolset by toolset as TOOLSETS orders them, the registry's order within
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
