/** Shared pieces of the agent-loop tests: a config pointing at a scripted model, and a turn that collects events. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
    maxOutputTokens: 4096,
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

/** One streamed Chat Completions chunk, as the SSE line a server sends. */
export function sseChunk(delta: unknown, finish: string | null = null): string {
  const body = {
    id: 'x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** A whole (not streamed) Chat Completions answer of one choice. */
export function wholeAnswer(message: Record<string, unknown>, finish: string): Record<string, unknown> {
  return {
    id: 'x',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, finish_reason: finish, message }],
  };
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

/**
 * An OpenAI-compatible server on loopback whose answer never ends: streamed, a whole tool call and then text
 * chunks without end; whole, a JSON body that opens the same call's message and then never closes its text. It
 * writes until the client drops the connection, which `dropped` waits for.
 */
export async function startEndlessModel(stream: boolean): Promise<{
  readonly url: string;
  readonly dropped: Promise<void>;
  close(): Promise<void>;
}> {
  let drop: () => void = () => {};
  const dropped = new Promise<void>((resolve) => {
    drop = resolve;
  });
  const call = {
    index: 0,
    id: 'call_endless',
    type: 'function',
    function: { name: 'create_layer', arguments: '{"name":"不该出现"}' },
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      let open = true;
      res.on('close', () => {
        open = false;
        drop();
      });
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      const piece = stream ? sseChunk({ content: '啊'.repeat(2000) }) : 'a'.repeat(8192);
      res.write(
        stream
          ? sseChunk({ role: 'assistant', content: '' }) + sseChunk({ tool_calls: [call] })
          : `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[${JSON.stringify(call)}],"content":"`,
      );
      const pump = () => {
        while (open) {
          if (!res.write(piece)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
