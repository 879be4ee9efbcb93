/** Every export format, each a pure function of the tool definitions. */
import type { ToolDefinition } from '../types.js';
import { toAnthropic } from './anthropic.js';
import { toGemini } from './gemini.js';
import { toMcp } from './mcp.js';
import { toOpenAI } from './openai.js';
import { GROUP_LABELS, GROUP_LABELS_EN, toRegistry } from './registry.js';
import { toResponses } from './responses.js';

export { GROUP_LABELS, GROUP_LABELS_EN, toAnthropic, toGemini, toMcp, toOpenAI, toRegistry, toResponses };

/** `registry` is not a model API's format: it is the definitions with their limits, for the studio's forms. */
export const formats = ['openai', 'responses', 'anthropic', 'gemini', 'mcp', 'registry'] as const;
export type Format = (typeof formats)[number];

/** Formats that have an OpenAI strict-mode form. */
export const strictFormats: readonly Format[] = ['openai', 'responses'];

export function exportTools(
  tools: readonly ToolDefinition[],
  format: Format,
  opts: { strict?: boolean } = {},
): unknown {
  switch (format) {
    case 'openai':
      return toOpenAI(tools, opts);
    case 'responses':
      return toResponses(tools, opts);
    case 'anthropic':
      return toAnthropic(tools);
    case 'gemini':
      return toGemini(tools);
    case 'mcp':
      return toMcp(tools);
    case 'registry':
      return toRegistry(tools);
  }
}
