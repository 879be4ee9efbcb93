/**
 * How much of the conversation fits the model's context window. Tokens are estimated high rather than counted,
 * since no one tokenizer matches every OpenAI-compatible model: a character outside ASCII (Chinese) counts as one
 * token, ASCII as 0.4 (JSON, ids and numbers run nearer 3 characters a token than English prose's 4), an image a
 * fixed cost, each message a few tokens of framing. Whole turns go, oldest first: a turn is a user message and
 * everything up to the next one, so an assistant's tool calls never lose their tool answers. Before an older turn
 * goes, its long tool results are cut (they told of a state the summary of each message has since replaced): the
 * designer's words and the model's answers stay longer.
 */
import type {
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { toOpenAI } from '../registry/formats/index.js';
import { toolsOf, type Variant } from '../registry/index.js';
import { systemPrompt } from './prompt.js';

/** One image of at most 1024 px a side: 765 tokens on OpenAI (high detail), about 1,350 with 28-px patches. */
export const IMAGE_TOKENS = 1500;
/** Role, separators and the like around each message. */
const MESSAGE_TOKENS = 8;

export type Turn = readonly ChatCompletionMessageParam[];

export function textTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) ascii++;
    // A character beyond the BMP is two UTF-16 units: count it once.
    else if (code < 0xdc00 || code > 0xdfff) other++;
  }
  return other + Math.ceil(ascii * 0.4);
}

interface MessageCost {
  /** Everything but the images. */
  readonly text: number;
  readonly images: number;
}

const costs = new WeakMap<ChatCompletionMessageParam, MessageCost>();

function costOf(message: ChatCompletionMessageParam): MessageCost {
  const known = costs.get(message);
  if (known) return known;
  let text = MESSAGE_TOKENS;
  let images = 0;
  const content = message.content;
  if (typeof content === 'string') text += textTokens(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === 'image_url') images++;
      else if (part.type === 'text') text += textTokens(part.text);
      else text += textTokens(JSON.stringify(part));
    }
  }
  if (message.role === 'assistant' && message.tool_calls)
    text += textTokens(JSON.stringify(message.tool_calls));
  // Sent back to the reasoning models that want it (conversation.ts).
  const { reasoning_content: reasoning, reasoning_details: details } = message as {
    reasoning_content?: unknown;
    reasoning_details?: unknown;
  };
  if (typeof reasoning === 'string') text += textTokens(reasoning);
  if (Array.isArray(details)) text += textTokens(JSON.stringify(details));
  if (message.role === 'tool') text += textTokens(message.tool_call_id);
  const cost = { text, images };
  costs.set(message, cost);
  return cost;
}

export interface TurnFit {
  /** Index of the oldest turn sent; the turns before it are left out. */
  readonly first: number;
  /** The estimate of what is sent: `fixed` plus the turns from `first` on. */
  readonly tokens: number;
}

/** The estimate of one turn's messages. */
export function turnTokens(turn: Turn): number {
  let tokens = 0;
  for (const message of turn) {
    const cost = costOf(message);
    tokens += cost.text + cost.images * IMAGE_TOKENS;
  }
  return tokens;
}

/** The newest turns that fit `budget` beside `fixed` (system prompt, tools), always at least the latest one. */
export function fitTurns(turns: readonly Turn[], opts: { budget: number; fixed: number }): TurnFit {
  let tokens = opts.fixed;
  let first = turns.length;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turnTokens(turns[i]!);
    if (first < turns.length && tokens + turn > opts.budget) break;
    tokens += turn;
    first = i;
  }
  return { first, tokens };
}

/** What a vision model reads in place of an image of the newest turn that the budget has no room for. */
export const IMAGE_LEFT_OUT_NOTE = '（图像未发送：上下文长度不够）';
/** A tool result is never cut shorter than this many tokens. */
const RESULT_KEPT_TOKENS = 200;

/** What ends a tool result cut for the request; room for it is kept at its longest. */
function cutNote(chars: number): string {
  return `…（结果过长：为适应上下文长度（ATELIER_MODEL_CONTEXT_TOKENS），后面 ${chars} 个字符没有发送。需要时用更具体的参数重新查询）`;
}
const CUT_NOTE_TOKENS = textTokens(cutNote(Number.MAX_SAFE_INTEGER));

/** The longest start of `text` within `tokens`, whole characters only. */
function startWithin(text: string, tokens: number): string {
  let ascii = 0;
  let other = 0;
  let end = 0;
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii++;
    else other++;
    if (other + Math.ceil(ascii * 0.4) > tokens) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * The turn as one request may carry it within `room` tokens, or null when it cannot be made to fit. A turn that
 * fits is returned as it is. Otherwise what can be left out of this request without breaking it is, and only
 * from this request (the turn itself is not changed): first its images, oldest first, each replaced by a note;
 * then its longest tool results, cut to one length (never below RESULT_KEPT_TOKENS) with a note saying so. The
 * user's words, the assistant's calls and the reasoning a service wants back are never cut.
 */
export function shrinkTurn(turn: Turn, room: number): Turn | null {
  if (turnTokens(turn) <= room) return turn;
  const out = [...turn];
  for (const [i, m] of out.entries()) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    const parts = [...m.content];
    for (const [j, part] of parts.entries()) {
      if (turnTokens(out) <= room) return out;
      if (part.type !== 'image_url') continue;
      parts[j] = { type: 'text', text: IMAGE_LEFT_OUT_NOTE };
      out[i] = { ...m, content: parts };
    }
  }
  const over = turnTokens(out) - room;
  if (over <= 0) return out;
  const results = toolResults(out);
  const saved = (cap: number) =>
    results.reduce(
      (n, r) => n + (r.tokens > cap + CUT_NOTE_TOKENS ? r.tokens - cap - CUT_NOTE_TOKENS : 0),
      0,
    );
  if (saved(RESULT_KEPT_TOKENS) < over) return null;
  // The longest cut that saves enough: every result longer than it is cut to it.
  let low = RESULT_KEPT_TOKENS;
  let high = Math.max(...results.map((r) => r.tokens));
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (saved(mid) >= over) low = mid;
    else high = mid - 1;
  }
  cutResults(out, results, low);
  return turnTokens(out) <= room ? out : null;
}

function toolResults(turn: Turn): { i: number; text: string; tokens: number }[] {
  return turn.flatMap((m, i) =>
    m.role === 'tool' && typeof m.content === 'string'
      ? [{ i, text: m.content, tokens: textTokens(m.content) }]
      : [],
  );
}

/** Cuts each of `results` (of `out`) longer than `cap` tokens to it, with the note saying so. */
function cutResults(
  out: ChatCompletionMessageParam[],
  results: readonly { i: number; text: string; tokens: number }[],
  cap: number,
): void {
  for (const r of results) {
    if (r.tokens <= cap + CUT_NOTE_TOKENS) continue;
    const kept = startWithin(r.text, cap);
    out[r.i] = {
      ...(out[r.i] as ChatCompletionToolMessageParam),
      content: kept + cutNote(r.text.length - kept.length),
    };
  }
}

/** An older turn at its shortest: every tool result cut to RESULT_KEPT_TOKENS, every image a note. */
function compactTurn(turn: Turn): Turn {
  const out = turn.map((m): ChatCompletionMessageParam => {
    if (m.role !== 'user' || !Array.isArray(m.content) || !m.content.some((p) => p.type === 'image_url'))
      return m;
    return {
      ...m,
      content: m.content.map((p) =>
        p.type === 'image_url' ? { type: 'text' as const, text: IMAGE_LEFT_OUT_NOTE } : p,
      ),
    };
  });
  cutResults(out, toolResults(out), RESULT_KEPT_TOKENS);
  return out;
}

export type ConversationFit =
  | {
      readonly ok: true;
      /** The turns a request carries, oldest first: the newest that fit, whole or shortened. */
      readonly turns: readonly Turn[];
      /** How many of the oldest turns are left out. */
      readonly omitted: number;
    }
  /** The newest turn cannot be made to fit; `tokens` is its estimate. */
  | { readonly ok: false; readonly tokens: number };

/**
 * The turns one request carries within `budget` beside `fixed`: every turn when all fit. Otherwise the newest,
 * shrunk when it alone is over (shrinkTurn), then older turns newest first, each whole when it fits and else at
 * its shortest (compactTurn) when that fits; the older ones are left out. Only the request is shortened.
 */
export function fitConversation(
  turns: readonly Turn[],
  opts: { budget: number; fixed: number },
): ConversationFit {
  const all = fitTurns(turns, opts);
  if (turns.length === 0 || (all.first === 0 && all.tokens <= opts.budget))
    return { ok: true, turns, omitted: 0 };
  let room = opts.budget - opts.fixed;
  const newest = turns[turns.length - 1]!;
  const shrunk = shrinkTurn(newest, room);
  if (!shrunk) return { ok: false, tokens: turnTokens(newest) };
  room -= turnTokens(shrunk);
  const sent: Turn[] = [shrunk];
  let first = turns.length - 1;
  while (first > 0) {
    const older = turns[first - 1]!;
    const whole = turnTokens(older);
    const fitted = whole <= room ? older : compactTurn(older);
    const tokens = fitted === older ? whole : turnTokens(fitted);
    if (tokens > room) break;
    room -= tokens;
    sent.unshift(fitted);
    first--;
  }
  return { ok: true, turns: sent, omitted: first };
}

/** The estimate of a whole request, as the model would receive it. */
export function requestTokens(messages: Turn, tools: unknown): number {
  return textTokens(JSON.stringify(tools ?? [])) + turnTokens(messages);
}

/** The estimate of what every request carries before any turn: the system prompt and the tools of `variant`. */
export function toolsAndPromptTokens(variant: Variant): number {
  const offered = toolsOf(variant);
  const prompts = [false, true].map((vision) =>
    systemPrompt({ vision, tools: new Set(offered.map((t) => t.name)) }),
  );
  const longest = prompts.reduce((a, b) => (b.length > a.length ? b : a));
  return requestTokens([{ role: 'system', content: longest }], toOpenAI(offered));
}
