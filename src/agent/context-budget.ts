/**
 * How much of the conversation fits the model's context window. Tokens are estimated high rather than counted,
 * since no one tokenizer matches every OpenAI-compatible model: a character outside ASCII (Chinese) counts as one
 * token, ASCII as 0.4 (JSON, ids and numbers run nearer 3 characters a token than English prose's 4), an image a
 * fixed cost, each message a few tokens of framing. Whole turns go, oldest first: a turn is a user message and
 * everything up to the next one, so an assistant's tool calls never lose their tool answers.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
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
  const reasoning = (message as { reasoning_content?: unknown }).reasoning_content;
  if (typeof reasoning === 'string') text += textTokens(reasoning);
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

function turnTokens(turn: Turn): number {
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
