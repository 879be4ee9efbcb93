/**
 * The definitions themselves, for a client that draws forms and palettes from them (the studio): each tool's
 * group, Chinese and English labels, description, published parameters, and the limits validation enforces
 * (ranges, defaults, formats), with the names of the groups and of the garment parts in both languages.
 */
import { GARMENT_PART_LABELS_EN, GARMENT_PARTS, GARMENT_TURNS } from '../garment-parts.js';
import type { ToolDefinition, ToolGroup } from '../types.js';

/** The groups as the spec orders them, and E for the extensions. */
export const GROUP_LABELS: Readonly<Record<ToolGroup, string>> = {
  A: '文档与图层',
  B: '服装套图',
  C: '通用编辑',
  D: '文档操作',
  E: '选择与查看',
};

/** The groups' English names, for the studio's English mode. */
export const GROUP_LABELS_EN: Readonly<Record<ToolGroup, string>> = {
  A: 'Documents & Layers',
  B: 'Garment Patterns',
  C: 'Editing',
  D: 'Document Operations',
  E: 'Selection & View',
};

export function toRegistry(tools: readonly ToolDefinition[]) {
  const present = new Set(tools.map((t) => t.group));
  return {
    groups: (Object.keys(GROUP_LABELS) as ToolGroup[])
      .filter((g) => present.has(g))
      .map((id) => ({ id, label: GROUP_LABELS[id], labelEn: GROUP_LABELS_EN[id] })),
    tools: tools.map((t) => ({
      name: t.name,
      group: t.group,
      label: t.label,
      labelEn: t.labelEn,
      description: t.description,
      parameters: t.parameters,
      limits: t.limits ?? {},
      effect: t.effect,
    })),
    /** The garment parts a piece can be: key, Chinese name, English name. */
    parts: GARMENT_PARTS.map(([id, label]) => ({ id, label, labelEn: GARMENT_PART_LABELS_EN[id] })),
    /** How a cut piece may lie on a marker (degrees clockwise from upright), as confirm_piece_parts takes it. */
    turns: GARMENT_TURNS,
  };
}
