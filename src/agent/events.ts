/** What a user turn reports as it runs: the studio's SSE events and `atelier chat`'s lines, one object each. */
import type { ImageOut } from '../tools/types.js';

export type ChatErrorCode =
  | 'busy'
  | 'cancelled'
  | 'invalid_message'
  | 'max_steps'
  | 'model_auth'
  | 'model_not_found'
  | 'model_rate_limited'
  | 'model_unavailable'
  | 'model_timeout'
  | 'model_rejected'
  | 'model_bad_response'
  | 'internal';

export type ChatEvent =
  /** Echo of the user's message at turn start. */
  | { type: 'user'; text: string }
  | { type: 'assistant_delta'; text: string }
  /** `label` is the registry's Chinese label; `arguments` parsed when valid JSON, else the raw string. */
  | { type: 'tool_call'; id: string; name: string; label: string; arguments: unknown }
  | { type: 'progress'; id: string; stage: string; fraction?: number }
  /** `result` carries no base64; `images` do (a surface maps them to URLs or files). */
  | {
      type: 'tool_result';
      id: string;
      name: string;
      ok: boolean;
      result: unknown;
      images?: readonly ImageOut[];
    }
  | { type: 'assistant'; text: string }
  /** `steps` = model requests made this turn. */
  | { type: 'done'; steps: number }
  /** `message` is Chinese; ends the turn (no 'done' after it). */
  | { type: 'error'; code: ChatErrorCode | (string & {}); message: string };
