/** The events of a tool card, the same whether a call runs now or is read back from a transcript. */
import { depthOver } from '../calls/json-depth.js';
import { findTool } from '../registry/index.js';
import type { ChatEventOf } from './event-shapes.js';

function parsedOrRaw(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    // Nested past what any tool takes: kept as the model's text, which every later step can encode.
    return depthOver(value) ? raw : value;
  } catch {
    return raw;
  }
}

/** The card's opening: the registry's Chinese label, the arguments parsed when they are JSON. */
export function toolCallEvent(
  id: string,
  name: string,
  rawArguments: string,
): Extract<ChatEventOf<never>, { type: 'tool_call' }> {
  return {
    type: 'tool_call',
    id,
    name,
    label: findTool(name)?.label ?? name,
    arguments: parsedOrRaw(rawArguments),
  };
}
