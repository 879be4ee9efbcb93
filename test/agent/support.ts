/** Shared pieces of the agent-loop tests: a config pointing at a scripted model, and a turn that collects events. */
import type { ModelConfig } from '../../src/agent/config.js';
import { Conversation } from '../../src/agent/conversation.js';
import type { ChatEvent } from '../../src/agent/events.js';
import type { Session } from '../../src/calls/session.js';

/** A key that must never show in any output. */
export const SECRET_KEY = 'sk-test-0123456789abcdefSECRET';

export function modelConfig(url: string, over: Partial<ModelConfig> = {}): ModelConfig {
  return {
    baseURL: url,
    model: 'scripted-model',
    apiKey: SECRET_KEY,
    vision: false,
    tools: 'extended',
    maxSteps: 20,
    timeoutMs: 10_000,
    stream: true,
    contextTokens: 64_000,
    ...over,
  };
}

export function conversation(
  session: Session,
  config: ModelConfig,
  opts: { transcript?: string; errors?: unknown[] } = {},
): Conversation {
  return new Conversation({
    session,
    config,
    ...(opts.transcript ? { transcript: opts.transcript } : {}),
    onInternalError: (err) => {
      if (opts.errors) opts.errors.push(err);
      else throw err;
    },
  });
}

/** Runs one turn and returns every event it emitted; `onEvent` sees each as it comes (e.g. to cancel). */
export async function turn(
  conv: Conversation,
  text: string,
  onEvent?: (event: ChatEvent) => void,
): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  await conv.turn(text, (e) => {
    events.push(e);
    onEvent?.(e);
  });
  return events;
}

export function last<T>(list: readonly T[]): T {
  return list[list.length - 1]!;
}

/** Checks the rule every request must keep: each assistant tool call is answered, in order, right after it. */
export function expectEveryCallAnswered(
  messages: readonly { role: string; tool_calls?: unknown[]; tool_call_id?: string }[],
): void {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    const ids = (m.tool_calls as { id: string }[]).map((c) => c.id);
    const answers = messages
      .slice(i + 1, i + 1 + ids.length)
      .map((a) => (a.role === 'tool' ? a.tool_call_id : null));
    if (JSON.stringify(answers) !== JSON.stringify(ids)) {
      throw new Error(`tool calls ${ids.join(',')} answered as ${answers.join(',')}`);
    }
  }
}
