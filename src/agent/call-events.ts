/** The events of a tool card, the same whether a call runs now or is read back from a transcript. */
import { parseArguments } from '../calls/parse.js';
import { findTool } from '../registry/index.js';
import type { ChatEventOf } from './event-shapes.js';

/**
 * As the session reads them (`""` and `null` are `{}`), so a card shows what ran; text it refuses (not JSON,
 * nested past what any tool takes, too long) is kept as the model's text, which every later step can encode.
 */
function parsedOrRaw(raw: string): unknown {
  const parsed = parseArguments(raw);
  return parsed.ok ? parsed.value : raw;
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
