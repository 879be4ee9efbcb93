/**
 * The tool registry: every tool as data, in the spec's order. Depends on nothing; a client that only
 * wants the tool list imports this module and loads nothing else.
 */
import type { ToolArgs } from './args.js';
import { groupA } from './tools/group-a.js';
import { groupB } from './tools/group-b.js';
import { groupC } from './tools/group-c.js';
import { groupD } from './tools/group-d.js';
import { groupE } from './tools/group-e.js';
import type { ToolDefinition } from './types.js';

export type { ToolArgs } from './args.js';
export * from './bounds.js';
export * from './file-formats.js';
export * from './types.js';

/** Every tool the engine executes: the spec's 75 (A–D, in order) followed by the extensions (E). */
export const allTools = [...groupA, ...groupB, ...groupC, ...groupD, ...groupE] as const;

export type AnyTool = (typeof allTools)[number];
export type ToolName = AnyTool['name'];
export type ToolByName<N extends ToolName> = Extract<AnyTool, { name: N }>;
export type ArgsOf<N extends ToolName> = ToolArgs<ToolByName<N>>;

export const variants = ['reduced', 'full', 'extended'] as const;
export type Variant = (typeof variants)[number];

const specTools: readonly ToolDefinition[] = allTools.filter((t) => t.group !== 'E');

/** The tools published to a model in each variant: `reduced` = groups A+B, `full` = the spec, `extended` = + E. */
export function toolsOf(variant: Variant = 'full'): readonly ToolDefinition[] {
  switch (variant) {
    case 'reduced':
      return specTools.filter((t) => t.group === 'A' || t.group === 'B');
    case 'full':
      return specTools;
    case 'extended':
      return allTools;
  }
}

/** Tool name → Chinese display label, for exactly the tools of the variant. */
export function labelsOf(variant: Variant = 'full'): Record<string, string> {
  return Object.fromEntries(toolsOf(variant).map((t) => [t.name, t.label]));
}

const byName: ReadonlyMap<string, ToolDefinition> = new Map(allTools.map((t) => [t.name, t]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}
