/** Every export format, each a pure function of the tool definitions. */
import type { ToolDefinition } from '../types.js';
import { toAnthropic } from './anthropic.js';
import { toGemini } from './gemini.js';
import { toMcp } from './mcp.js';
import { toOpenAI } from './openai.js';
import { toResponses } from './responses.js';

export { toAnthropic, toGemini, toMcp, toOpenAI, toResponses };

export const formats = ['openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const;
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
  }
}
