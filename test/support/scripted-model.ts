/**
 * A scripted OpenAI-compatible Chat Completions server on loopback, for tests of anything that talks to a chat
 * model (the agent loop, `atelier chat`, the studio). Each request to `POST …/chat/completions` takes the next
 * step of the script: an assistant reply (text and/or tool calls) sent as OpenAI sends it — SSE chunks with tool
 * call arguments split across chunks when the request asks for `stream`, one JSON body otherwise — or an HTTP
 * error, a delay, a stalled stream, a raw body. A step may be a function of the request, to answer depending on
 * what was sent. Every request is recorded.
 *
 *   const model = await startScriptedModel([{ toolCalls: [{ name: 'create_document', arguments: {...} }] }, { text: '好了' }]);
 *   … ATELIER_MODEL_BASE_URL=model.url …
 *   model.requests[1].body.messages; await model.close();
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  readonly id?: string;
  readonly name: string;
  /** An object is sent as its JSON; a string is sent as it is (so a test can send malformed JSON). */
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

export interface ScriptedReply {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Wait this long before answering (before the status line). */
  readonly delayMs?: number;
  /** Wait this long between stream chunks. */
  readonly chunkDelayMs?: number;
  /** Stream the text this many characters a chunk, as a model streams a token or two at a time (else in three). */
  readonly textChunkChars?: number;
  /** Send this many stream chunks (half the body, when not streamed), then fall silent with the connection open. */
  readonly stallAfterChunks?: number;
  /**
   * Send stream chunk `index` (0 is the role, then the text's pieces, the tool calls, the finish) only once what
   * this returns has settled: a test holds a stream at the point it needs, whatever the machine's speed.
   */
  readonly beforeChunk?: (index: number) => Promise<void> | void;
}

export interface ScriptedError {
  readonly status: number;
  /** The error message in OpenAI's `{"error":{"message"}}` body. */
  readonly error?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly delayMs?: number;
}

export interface ScriptedRaw {
  /** Sent as the body, as it is (e.g. a broken SSE stream). */
  readonly raw: string;
  readonly contentType?: string;
  readonly status?: number;
}

export type ScriptedAnswer = ScriptedReply | ScriptedError | ScriptedRaw;

export interface ScriptedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (model, messages, tools, stream …). */
  readonly body: {
    model?: string;
    stream?: boolean;
    messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: unknown[];
    [key: string]: unknown;
  };
}

export type ScriptStep =
  | ScriptedAnswer
  | ((request: ScriptedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>);

export interface ScriptedModel {
  /** The base URL to configure, ending in /v1. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: ScriptedRequest[];
  /** Appends steps to the script. */
  push(...steps: ScriptStep[]): void;
  /** Steps not yet used. */
  readonly remaining: number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Splits a string in about three pieces, as servers split arguments across chunks. */
function pieces(text: string, chars?: number): string[] {
  if (chars) {
    const all = [...text];
    return Array.from({ length: Math.ceil(all.length / chars) }, (_, i) =>
      all.slice(i * chars, (i + 1) * chars).join(''),
    );
  }
  if (text.length < 3) return [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}

function argumentsOf(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function chunksOf(reply: ScriptedReply, model: string, seq: number): unknown[] {
  const base = { id: `chatcmpl-${seq}`, object: 'chat.completion.chunk', created: 1700000000, model };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of reply.text ? pieces(reply.text, reply.textChunkChars) : [])
    out.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    out.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${seq}_${index}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    );
    for (const piece of pieces(argumentsOf(call))) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  out.push(chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop'));
  return out;
}

function completionOf(reply: ScriptedReply, model: string, seq: number): unknown {
  const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${seq}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: argumentsOf(call) },
  }));
  return {
    id: `chatcmpl-${seq}`,
    object: 'chat.completion',
    created: 1700000000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type: 'scripted_error', code: null } }));
}

export async function startScriptedModel(steps: readonly ScriptStep[] = []): Promise<ScriptedModel> {
  const script = [...steps];
  const requests: ScriptedRequest[] = [];
  let seq = 0;

  const server = createServer(async (req, res) => {
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      sendError(res, 404, `scripted model: no route ${req.method} ${path}`);
      return;
    }
    let body: ScriptedRequest['body'];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      sendError(res, 400, 'scripted model: the body is not JSON', { 'x-should-retry': 'false' });
      return;
    }
    const request: ScriptedRequest = { method: req.method, path, headers: req.headers, body };
    requests.push(request);
    seq++;
    const step = script.shift();
    if (step === undefined) {
      sendError(res, 400, 'scripted model: the script has no step left', { 'x-should-retry': 'false' });
      return;
    }
    const answer = typeof step === 'function' ? await step(request) : step;
    if ('delayMs' in answer && answer.delayMs) await sleep(answer.delayMs);
    if (closed) return;
    if ('raw' in answer) {
      res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'text/event-stream' });
      res.end(answer.raw);
      return;
    }
    if ('status' in answer) {
      sendError(res, answer.status, answer.error ?? `scripted HTTP ${answer.status}`, { ...answer.headers });
      return;
    }
    const model = body.model ?? 'scripted';
    if (!body.stream) {
      const json = JSON.stringify(completionOf(answer, model, seq));
      res.writeHead(200, { 'content-type': 'application/json' });
      if (answer.stallAfterChunks !== undefined) res.write(json.slice(0, json.length >> 1));
      else res.end(json);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const all = chunksOf(answer, model, seq);
    for (const [i, chunk] of all.entries()) {
      if (closed) return;
      if (answer.stallAfterChunks !== undefined && i >= answer.stallAfterChunks) return;
      await answer.beforeChunk?.(i);
      if (closed) return;
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (answer.chunkDelayMs) await sleep(answer.chunkDelayMs);
    }
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...more) => {
      script.push(...more);
    },
    get remaining() {
      return script.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Holds a scripted answer's stream (its `beforeChunk` hook): chunks from `first` on wait until `until(n)` lets every
 * chunk before `n` go, so a test acts at a known point of the answer however slow the machine is.
 */
export function streamValve(first: number) {
  let open = first;
  let wake = () => {};
  return {
    beforeChunk: async (index: number) => {
      while (index >= open) await new Promise<void>((resolve) => (wake = resolve));
    },
    until(next: number) {
      open = next;
      wake();
    },
  };
}
