/**
 * One model request through the official `openai` SDK: streamed or whole, turned into one assistant message
 * (text and tool calls). The SDK retries 429 and 5xx with backoff (honouring a Retry-After up to MAX_RETRY_WAIT_MS:
 * a longer one ends the request at once); an attempt that gets no
 * answer within the timeout ends the request here, without a retry, and so does an answer that falls silent for as
 * long. Each request asks for an output
 * limit (ATELIER_MODEL_MAX_OUTPUT_TOKENS), and an answer that goes on past MAX_ANSWER_CHARS anyway (a server that
 * ignores the limit, a model that never stops) is cut here too. Every failure becomes a ModelError with a code and
 * a Chinese message built here, never the SDK's text (which may echo request details).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { type OutputLimitField, outputLimitField } from '../engine/io/openai-output-limit.js';
import { MAX_RETRY_WAIT_MS, MODEL_RETRIES, type ModelConfig } from './config.js';
import { describeModelFailure, ModelError, retriedStatus, retryWaitMs } from './model-errors.js';

export interface ToolCallOut {
  readonly id: string;
  readonly name: string;
  /** As the model sent it: a JSON string, possibly malformed. */
  readonly arguments: string;
  /**
   * The call's fields beyond the protocol's (Gemini's `extra_content` with its thought signature), sent back with
   * the call as they came: Gemini refuses a conversation whose calls lost them.
   */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface AssistantMessage {
  readonly text: string;
  readonly toolCalls: readonly ToolCallOut[];
  /**
   * The model's `reasoning_content` (DeepSeek, Qwen, Moonshot, Zhipu in thinking mode), '' when none came. DeepSeek
   * refuses (400) a conversation whose tool-calling assistant messages do not carry it back.
   */
  readonly reasoning: string;
  /**
   * OpenRouter's `reasoning_details`: the model's reasoning as structured blocks (text with its signature,
   * summaries, encrypted blobs), whole and in order; empty when none came. OpenRouter wants them back unchanged on
   * the assistant message of a tool-calling turn: Anthropic's and Gemini's thinking models refuse or lose their
   * reasoning otherwise.
   */
  readonly reasoningDetails: readonly ReasoningDetail[];
  /**
   * The server stopped the answer at the output limit (`finish_reason: length`) after some text and no tool call:
   * the text ends mid-way, which the designer should be told.
   */
  readonly cutAtLimit: boolean;
  /**
   * A streamed text answer ended with neither a finish_reason nor the closing `data: [DONE]`: the connection
   * dropped, and the text may end anywhere.
   */
  readonly cutShort?: boolean;
}

/** One of OpenRouter's reasoning blocks, kept as it came: only `type` and `index` are read. */
export type ReasoningDetail = Readonly<Record<string, unknown>>;

/** A tool call's fields the protocol defines; any other is a service's own, kept in `extra`. */
const CALL_FIELDS = new Set(['index', 'id', 'type', 'function']);

/** The service's own fields of a tool call (or of a fragment of one), or null when it has none. */
function extraFields(call: unknown): Record<string, unknown> | null {
  if (typeof call !== 'object' || call === null) return null;
  let extra: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(call)) {
    if (CALL_FIELDS.has(key) || value === undefined || value === null) continue;
    extra ??= {};
    extra[key] = value;
  }
  return extra;
}

function reasoningDetailsOf(message: unknown): ReasoningDetail[] {
  const details = (message as { reasoning_details?: unknown } | null | undefined)?.reasoning_details;
  return Array.isArray(details)
    ? details.filter((d): d is ReasoningDetail => typeof d === 'object' && d !== null && !Array.isArray(d))
    : [];
}

/** Text fields a streamed reasoning block comes in pieces of. */
const DETAIL_TEXT = ['text', 'summary', 'data'] as const;

/**
 * A stream's reasoning blocks, each whole: OpenRouter streams a block in fragments that share its `index` (and
 * `type`), its text in pieces and its signature with the last one. Sent back as fragments they are refused, so
 * they are joined here. A block without an index is a whole one.
 */
export class ReasoningDetailAccumulator {
  private readonly details: Record<string, unknown>[] = [];

  add(fragments: readonly ReasoningDetail[]): void {
    for (const fragment of fragments) {
      const last = this.details[this.details.length - 1];
      if (
        last === undefined ||
        typeof fragment.index !== 'number' ||
        last.index !== fragment.index ||
        last.type !== fragment.type
      ) {
        this.details.push({ ...fragment });
        continue;
      }
      for (const [key, value] of Object.entries(fragment)) {
        if (value === undefined || value === null) continue;
        const known = last[key];
        last[key] =
          (DETAIL_TEXT as readonly string[]).includes(key) &&
          typeof known === 'string' &&
          typeof value === 'string'
            ? known + value
            : value;
      }
    }
  }

  result(): ReasoningDetail[] {
    return this.details;
  }
}

/**
 * The answer's text: a string, or — from Mistral's reasoning models (Magistral) — a list of chunks whose `text`
 * ones are the answer and whose `thinking` ones are not.
 */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'string'
        ? part
        : (part as { type?: unknown })?.type === 'text' &&
            typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
    )
    .join('');
}

/**
 * A refusal (OpenAI's `refusal` field, which comes instead of `content` when the model declines): it is the
 * model's answer to the designer, not an empty one.
 */
function refusalOf(message: unknown): string {
  const refusal = (message as { refusal?: unknown } | null | undefined)?.refusal;
  return typeof refusal === 'string' ? refusal : '';
}

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/**
 * The answer without the reasoning some servers leave in it as `<think>…</think>` at its start (DeepSeek-R1, Qwen3
 * and QwQ through Ollama, LM Studio, or vLLM and llama.cpp run without a reasoning parser): the designer sees
 * the answer, as with the services that send reasoning in a field of its own, and the history does not carry it.
 * Fed the answer piece by piece, it holds back what may yet open or is inside the block.
 */
export class ThinkStripper {
  /** `after`: the block ended; the blank lines before the answer are dropped too. */
  private state: 'start' | 'inside' | 'after' | 'answer' = 'start';
  private held = '';

  /** The part of `piece` that is answer, '' while it may still be reasoning. */
  add(piece: string): string {
    if (this.state === 'answer') return piece;
    this.held += piece;
    if (this.state === 'start') {
      const start = this.held.trimStart();
      if (start.length < THINK_OPEN.length && THINK_OPEN.startsWith(start)) return '';
      if (!start.startsWith(THINK_OPEN)) {
        this.state = 'answer';
        return this.release();
      }
      this.state = 'inside';
      this.held = start.slice(THINK_OPEN.length);
    }
    if (this.state === 'inside') {
      const close = this.held.indexOf(THINK_CLOSE);
      if (close < 0) {
        // Only a start of the closing tag can matter: a long reasoning is not kept nor searched again.
        this.held = this.held.slice(-(THINK_CLOSE.length - 1));
        return '';
      }
      this.state = 'after';
      this.held = this.held.slice(close + THINK_CLOSE.length);
    }
    this.held = this.held.trimStart();
    if (this.held === '') return '';
    this.state = 'answer';
    return this.release();
  }

  /** What is left at the answer's end: held text that never became a block; nothing of an unclosed one. */
  end(): string {
    return this.state === 'start' ? this.release() : '';
  }

  private release(): string {
    const out = this.held;
    this.held = '';
    return out;
  }
}

function withoutThinking(text: string): string {
  const stripper = new ThinkStripper();
  return stripper.add(text) + stripper.end();
}

function reasoningOf(message: unknown): string {
  const reasoning = (message as { reasoning_content?: unknown } | null | undefined)?.reasoning_content;
  return typeof reasoning === 'string' ? reasoning : '';
}

/**
 * The most characters one answer may bring: its text, its tool calls' ids, names and arguments, and the reasoning
 * some servers stream beside the text; each chunk counts at least one, so an endless run of empty chunks ends too.
 * An answer within the output limit stays far below it (8192 tokens are some 30,000 characters); it stops a server
 * that ignores the limit and never ends its answer before the turn holds it forever or it fills memory. Such an
 * answer is refused whole: none of its calls is run.
 */
export const MAX_ANSWER_CHARS = 400_000;
/** The most bytes a whole (not streamed) answer's body may have: that many characters at their longest in JSON. */
const MAX_ANSWER_BYTES = MAX_ANSWER_CHARS * 6;

/** The output limit as the service takes it (see outputLimitField); nothing when the limit is turned off (0). */
export function outputLimit(config: ModelConfig): OutputLimitField | Record<string, never> {
  return config.maxOutputTokens === null ? {} : outputLimitField(config.baseURL, config.maxOutputTokens);
}

function answerTooLong(config: ModelConfig): ModelError {
  return new ModelError(
    'model_bad_response',
    `模型的回答超过了 ${MAX_ANSWER_CHARS} 个字符的上限仍没有结束，已被中止：其中的工具调用一个也没有执行。请重试，或把要做的事分成几步${
      config.maxOutputTokens === null
        ? '；也可以设置 ATELIER_MODEL_MAX_OUTPUT_TOKENS，让模型服务限制回答的长度'
        : `；模型服务似乎没有遵守输出长度上限（ATELIER_MODEL_MAX_OUTPUT_TOKENS=${config.maxOutputTokens}）`
    }。`,
  );
}

/** The characters a stream chunk's delta brings (text, reasoning, tool-call pieces), at least one per chunk. */
function chunkChars(delta: ChatCompletionChunk.Choice.Delta | undefined): number {
  let n = 0;
  if (delta) {
    const extra = delta as { reasoning_content?: unknown; reasoning?: unknown; reasoning_details?: unknown };
    for (const text of [extra.reasoning_content, extra.reasoning, delta.refusal]) {
      if (typeof text === 'string') n += text.length;
    }
    if (delta.content !== undefined && delta.content !== null) n += asText(delta.content).length;
    if (extra.reasoning_details !== undefined && extra.reasoning_details !== null)
      n += asText(extra.reasoning_details).length;
    for (const c of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      n += asText(c?.id).length + asText(c?.function?.name).length + asText(c?.function?.arguments).length;
      const extra = extraFields(c);
      if (extra) n += asText(extra).length;
    }
  }
  return Math.max(1, n);
}

/** What a request's network attempts report to it, so it can time each one (see createModelClient). */
interface AttemptWatch {
  /** An attempt is sent: its answer is awaited from now. */
  readonly sent: () => void;
  /** Its response (headers) came: the wait is over, whether the SDK then retries it or the body follows. */
  readonly answered: () => void;
  /** Its stream's closing `data: [DONE]` came: the server ended the answer, the network did not. */
  readonly ended: () => void;
}

const attemptWatch = new AsyncLocalStorage<AttemptWatch>();

/**
 * The SDK retries a request that timed out as it retries a refused connection, so a server that never answers
 * would hold a turn for four timeouts and the backoff between them while the designer is told of one. Each
 * attempt is timed here instead (requestAssistant aborts it, which the SDK does not retry); the SDK's own timer,
 * set later, is only a backstop for a client made elsewhere.
 */
function watchedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const watch = attemptWatch.getStore();
  watch?.sent();
  const response = fetch(input, init).then(notWaitingLong);
  response.then(
    () => watch?.answered(),
    () => {},
  );
  return watch ? response.then((r) => watchingForDone(r, watch.ended)) : response;
}

/**
 * A refusal that asks for a longer wait than MAX_RETRY_WAIT_MS, marked so the SDK does not retry it
 * (`x-should-retry: false`, which it obeys): the turn ends at once and its message says how long was asked for.
 */
function notWaitingLong(response: Response): Response {
  if (!retriedStatus(response.status)) return response;
  const wait = retryWaitMs(response.headers);
  if (wait === null || wait <= MAX_RETRY_WAIT_MS) return response;
  const headers = new Headers(response.headers);
  headers.set('x-should-retry', 'false');
  return sameAddress(
    new Response(response.body, { status: response.status, statusText: response.statusText, headers }),
    response,
  );
}

/** `copy` with `response`'s address: the SDK names it in its errors. */
function sameAddress(copy: Response, response: Response): Response {
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

/** A stream's closing line; SSE allows `data:` with or without the space. */
const DONE_LINE = /(?:^|\n)data: ?\[DONE\]/;

/**
 * The SDK ends a stream quietly whether the server closed it with `data: [DONE]` or the connection dropped, and
 * hides the marker: an event stream's body is passed through here to see it go by.
 */
function watchingForDone(response: Response, ended: () => void): Response {
  const body = response.body;
  if (!body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
  const decoder = new TextDecoder();
  let tail = '\n';
  let seen = false;
  const watched = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        out.enqueue(chunk);
        if (seen) return;
        const text = tail + decoder.decode(chunk, { stream: true });
        if (DONE_LINE.test(text)) {
          seen = true;
          ended();
        } else tail = text.slice(-16);
      },
    }),
  );
  return sameAddress(
    new Response(watched, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }),
    response,
  );
}

export function createModelClient(config: ModelConfig): OpenAI {
  return new OpenAI({
    baseURL: config.baseURL,
    // The SDK insists on a key; a local server without one gets no Authorization header at all.
    apiKey: config.apiKey ?? 'unused',
    ...(config.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    organization: null,
    project: null,
    webhookSecret: null,
    timeout: config.timeoutMs * 2 + 1000,
    maxRetries: MODEL_RETRIES,
    fetch: watchedFetch,
    // The SDK's debug log prints request headers: never let OPENAI_LOG turn it on here.
    logLevel: 'off',
  });
}

export interface ModelRequest {
  readonly client: OpenAI;
  readonly config: ModelConfig;
  readonly messages: readonly ChatCompletionMessageParam[];
  readonly tools: ChatCompletionCreateParams['tools'];
  /** Aborts the request (the user cancelled). */
  readonly signal: AbortSignal;
  readonly onDelta: (text: string) => void;
}

type CallParts = { id: string; name: string; arguments: string; extra?: Record<string, unknown> };

/** Tool-call fragments of a stream, joined by index (or by id, for servers that send no index). */
export class ToolCallAccumulator {
  private readonly calls: CallParts[] = [];
  private readonly byIndex = new Map<number, number>();

  add(delta: NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number], position: number): void {
    const index = typeof delta.index === 'number' ? delta.index : position;
    let slot = this.byIndex.get(index);
    const existing = slot === undefined ? undefined : this.calls[slot];
    // A server that numbers every call 0 still gives each a new id: a new id starts a new call.
    if (existing === undefined || (delta.id && existing.id && asText(delta.id) !== existing.id)) {
      slot = this.calls.push({ id: '', name: '', arguments: '' }) - 1;
      this.byIndex.set(index, slot);
    }
    const call = this.calls[slot!]!;
    if (delta.id) call.id = asText(delta.id);
    if (delta.function?.name) {
      const name = asText(delta.function.name);
      // Most servers send the name once, a few in pieces; some (MiniMax on NVIDIA NIM, Fireworks) repeat it whole
      // in every fragment, which joined would name no tool.
      call.name = name.startsWith(call.name) ? name : call.name + name;
    }
    if (delta.function?.arguments) call.arguments += asText(delta.function.arguments);
    const extra = extraFields(delta);
    if (extra) call.extra = { ...call.extra, ...extra };
  }

  result(): CallParts[] {
    return this.calls;
  }
}

/**
 * Gives every call an id of its own, so each tool message answers one call: a call without an id gets one, and so
 * does a call whose id an earlier call of the same message has (some servers number every call `call_0`). The
 * history then carries the ids given here, which the model's server accepts as any others.
 */
function withIds(calls: readonly CallParts[]): ToolCallOut[] {
  const taken = new Set<string>();
  const stamp = Date.now().toString(36);
  return calls.map((c, i) => {
    let id = c.id;
    for (let n = 0; id === '' || taken.has(id); n++) id = `call_${stamp}_${i}${n ? `_${n}` : ''}`;
    taken.add(id);
    return { ...c, id };
  });
}

/**
 * A field the protocol says is a string, as a string whatever a server sends: arguments as an object are its
 * JSON text (some servers send them so), an id as a number its digits. Anything else that is not a string
 * becomes its JSON text too, for the call to be refused on its own (invalid_json) rather than the turn.
 */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** A whole answer's body, read up to MAX_ANSWER_BYTES: a longer one is cut there and refused. */
async function wholeAnswer(response: Response, config: ModelConfig): Promise<ChatCompletion> {
  if (!response.body) return (await response.json()) as ChatCompletion;
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      reader.cancel().catch(() => {});
      throw answerTooLong(config);
    }
    parts.push(value);
  }
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as ChatCompletion;
}

function fromWholeAnswer(answer: ChatCompletion, config: ModelConfig): AssistantMessage {
  const message = answer?.choices?.[0]?.message;
  if (!message) throw new ModelError('model_bad_response', '模型的回答里没有消息（choices 为空）。');
  const toolCalls = (message.tool_calls ?? []).flatMap((c): CallParts[] => {
    if (c.type !== 'function' && !(c as { function?: unknown }).function) return [];
    const extra = extraFields(c);
    return [
      {
        id: asText(c.id),
        name: asText((c as { function: { name?: unknown } }).function.name),
        arguments: asText((c as { function: { arguments?: unknown } }).function.arguments),
        ...(extra ? { extra } : {}),
      },
    ];
  });
  const text = withoutThinking(textOf(message.content)) || refusalOf(message);
  const reasoning = reasoningOf(message);
  const reasoningDetails = reasoningDetailsOf(message);
  const chars = toolCalls.reduce(
    (n, c) => n + c.id.length + c.name.length + c.arguments.length,
    text.length + reasoning.length + (reasoningDetails.length ? asText(reasoningDetails).length : 0),
  );
  if (chars > MAX_ANSWER_CHARS) throw answerTooLong(config);
  if (toolCalls.length > 0) refuseCutCalls(answer.choices[0]?.finish_reason, config);
  else if (text === '') refuseEmpty(answer.choices[0]?.finish_reason, config);
  return {
    text,
    toolCalls: withIds(toolCalls),
    reasoning,
    reasoningDetails,
    cutAtLimit: toolCalls.length === 0 && answer.choices[0]?.finish_reason === 'length',
  };
}

/**
 * An answer the server stopped before the model finished (its output-token limit: `length`; a filter:
 * `content_filter`) may end inside its last tool call, anywhere — in its arguments, or right after its name, when
 * the call would run with no arguments at all. None of its calls is run, as for a stream cut short.
 */
function refuseCutCalls(finishReason: unknown, config: ModelConfig): void {
  if (finishReason !== 'length' && finishReason !== 'content_filter') return;
  throw new ModelError(
    'model_bad_response',
    finishReason === 'length'
      ? `模型的回答达到了输出长度上限${config.maxOutputTokens === null ? '' : `（ATELIER_MODEL_MAX_OUTPUT_TOKENS=${config.maxOutputTokens}）`}，在中途被截断：其中的工具调用可能不完整，一个也没有执行。请重试，或把要做的事分成几步。`
      : '模型服务的内容过滤截断了回答：其中的工具调用可能不完整，一个也没有执行。请换个说法重试。',
  );
}

/**
 * An answer stopped before it said or called anything: by the output limit (a reasoning model that spent the whole
 * limit thinking, its reasoning counts in it: retrying as it is would stop the same way, a higher limit helps), or
 * by the service's content filter (which is not the model answering nothing).
 */
function refuseEmpty(finishReason: unknown, config: ModelConfig): void {
  if (finishReason === 'content_filter') {
    throw new ModelError(
      'model_bad_response',
      '模型服务的内容过滤拦截了这次回答：模型没有给出文字或工具调用。请换个说法重试。',
    );
  }
  if (finishReason !== 'length') return;
  throw new ModelError(
    'model_bad_response',
    config.maxOutputTokens === null
      ? '模型的回答达到了模型服务的输出长度上限，却还没有给出文字或工具调用（思考模型的推理过程也计入这个上限）。请把要做的事分成几步再试。'
      : `模型的回答达到了输出长度上限（ATELIER_MODEL_MAX_OUTPUT_TOKENS=${config.maxOutputTokens}），却还没有给出文字或工具调用（思考模型的推理过程也计入这个上限）。请调高 ATELIER_MODEL_MAX_OUTPUT_TOKENS 后重试。`,
  );
}

/** Requests the next assistant message. Rejects only with ModelError. */
export async function requestAssistant(req: ModelRequest): Promise<AssistantMessage> {
  const controller = new AbortController();
  let reason: 'cancel' | 'timeout' | null = null;
  const onCancel = () => {
    reason ??= 'cancel';
    controller.abort();
  };
  if (req.signal.aborted) onCancel();
  else req.signal.addEventListener('abort', onCancel, { once: true });
  let idle: NodeJS.Timeout | undefined;
  const watchSilence = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      reason ??= 'timeout';
      controller.abort();
    }, req.config.timeoutMs);
  };
  let serverEnded = false;
  const watch: AttemptWatch = {
    sent: watchSilence,
    answered: () => clearTimeout(idle),
    ended: () => {
      serverEnded = true;
    },
  };
  // The SDK sleeps between retries without watching the signal: a cancel must not wait for that sleep.
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
  aborted.catch(() => {});
  const body = {
    model: req.config.model,
    messages: req.messages as ChatCompletionMessageParam[],
    ...(req.tools?.length ? { tools: req.tools } : {}),
    ...outputLimit(req.config),
  };
  try {
    if (!req.config.stream) {
      // The SDK's timeout ends when the headers arrive; a body that never finishes is cut by the same watch.
      watchSilence();
      const pending = attemptWatch.run(watch, () =>
        req.client.chat.completions
          .create({ ...body, stream: false }, { signal: controller.signal })
          .asResponse(),
      );
      pending.catch(() => {});
      const response = await Promise.race([pending, aborted]);
      watchSilence();
      const reading = wholeAnswer(response, req.config);
      reading.catch(() => {});
      const answer = await Promise.race([reading, aborted]);
      return fromWholeAnswer(answer, req.config);
    }
    watchSilence();
    const pending = attemptWatch.run(watch, () =>
      req.client.chat.completions.create({ ...body, stream: true }, { signal: controller.signal }),
    );
    pending.catch(() => {});
    const stream = await Promise.race([pending, aborted]);
    let text = '';
    let reasoning = '';
    const details = new ReasoningDetailAccumulator();
    const calls = new ToolCallAccumulator();
    const thinking = new ThinkStripper();
    let finished: unknown = null;
    let received = 0;
    watchSilence();
    for await (const chunk of stream) {
      watchSilence();
      const reason = chunk?.choices?.[0]?.finish_reason;
      if (reason) finished = reason;
      const delta = chunk?.choices?.[0]?.delta;
      // Counted before it is kept: what an answer holds never grows past the limit by more than one chunk.
      received += chunkChars(delta);
      if (received > MAX_ANSWER_CHARS) {
        controller.abort();
        throw answerTooLong(req.config);
      }
      if (!delta) continue;
      const piece = thinking.add(textOf(delta.content)) || refusalOf(delta);
      if (piece !== '') {
        text += piece;
        req.onDelta(piece);
      }
      reasoning += reasoningOf(delta);
      details.add(reasoningDetailsOf(delta));
      delta.tool_calls?.forEach((c, i) => {
        calls.add(c, i);
      });
    }
    // The SDK ends a stream quietly when it is aborted: a cut answer must not pass for a whole one.
    if (controller.signal.aborted) throw describeModelFailure(null, reason, req.config);
    const rest = thinking.end();
    if (rest !== '') {
      text += rest;
      req.onDelta(rest);
    }
    // Nor one the server or the network ended early: without a finish_reason or the closing [DONE], its last
    // call may be cut anywhere, and none of its calls is run; its text is shown, said to be cut.
    const cutShort = !finished && !serverEnded;
    if (cutShort && calls.result().length > 0) {
      throw new ModelError(
        'model_bad_response',
        '模型的回答在中途断开（流在给出 finish_reason 之前就结束了）：其中的工具调用一个也没有执行。请重试。',
      );
    }
    if (calls.result().length > 0) refuseCutCalls(finished, req.config);
    else if (text === '') refuseEmpty(finished, req.config);
    return {
      text,
      toolCalls: withIds(calls.result()),
      reasoning,
      reasoningDetails: details.result(),
      cutAtLimit: calls.result().length === 0 && finished === 'length',
      cutShort: cutShort && text !== '',
    };
  } catch (err) {
    if (err instanceof ModelError) throw err;
    throw describeModelFailure(err, reason, req.config);
  } finally {
    clearTimeout(idle);
    req.signal.removeEventListener('abort', onCancel);
  }
}
