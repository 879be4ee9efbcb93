/**
 * The definitions themselves, for a client that draws forms and palettes from them (the studio): each tool's
 * group, Chinese label, description, published parameters, and the limits validation enforces (ranges,
 * defaults, formats), with the Chinese names of the groups.
 */
import type { ToolDefinition, ToolGroup } from '../types.js';

/** The groups as the spec orders them, and E for the extensions. */
export const GROUP_LABELS: Readonly<Record<ToolGroup, string>> = {
  A: '文档与图层',
  B: '服装套图',
  C: '通用编辑',
  D: '文档操作',
  E: '选择与查看',
};

export function toRegistry(tools: readonly ToolDefinition[]) {
  const present = new Set(tools.map((t) => t.group));
  return {
    groups: (Object.keys(GROUP_LABELS) as ToolGroup[])
      .filter((g) => present.has(g))
      .map((id) => ({ id, label: GROUP_LABELS[id] })),
    tools: tools.map((t) => ({
      name: t.name,
      group: t.group,
      label: t.label,
      description: t.description,
      parameters: t.parameters,
      limits: t.limits ?? {},
      effect: t.effect,
    })),
  };
}
