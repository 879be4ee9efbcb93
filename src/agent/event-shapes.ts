/**
 * The shapes of a turn's events, with no import of their own and the image type left open: the agent loop
 * emits them with image data (events.ts), the server sends them with image links, and the studio's browser code
 * reads the same types.
 */

export type ChatErrorCode =
  | 'busy'
  | 'cancelled'
  | 'invalid_message'
  | 'max_steps'
  /** The model kept sending a call that failed each time (same tool, same arguments): the turn stopped. */
  | 'repeated_failure'
  /**
   * The request is over the context: the newest turn alone is over ATELIER_MODEL_CONTEXT_TOKENS, shrunk as far
   * as it can be (it was not sent), or the service refused it as longer than the model's context window.
   */
  | 'context_full'
  | 'model_auth'
  | 'model_not_found'
  | 'model_rate_limited'
  | 'model_unavailable'
  | 'model_timeout'
  | 'model_rejected'
  | 'model_bad_response'
  /** The session's disk quota has no room for the conversation's record (the service): the turn stopped. */
  | 'quota_exceeded'
  /** The server restarted while the turn ran (a conversation rebuilt from its transcript says so). */
  | 'interrupted'
  | 'internal';

/**
 * How the id of a call an MCP client made on `/mcp` begins, as the session's other clients are told of it (the
 * studio marks its card): a type, so that the server that names the calls and the studio that reads them agree.
 */
export type McpCallPrefix = 'mcp_';

/**
 * When a turn or a call began, in epoch milliseconds, as the server's clock had it: a tab that missed both a chat
 * turn and an MCP client's call places the call among the turns by it (chat turns and those calls are kept apart).
 * Absent from what was recorded before it was.
 */
export type StartedAt = number;

let lastStart = 0;
/**
 * Now as a `StartedAt`, later than every one given before in this process: a turn and an MCP client's call begun
 * in the same millisecond are then still in the order the server took them, which a tab that missed both
 * places them by.
 */
export function startedNow(): StartedAt {
  lastStart = Math.max(Date.now(), lastStart + 1);
  return lastStart;
}

export type ChatEventOf<Image> =
  /** Echo of the user's message at turn start (`at`: when it started, kept in the transcript). */
  | { type: 'user'; text: string; at?: StartedAt }
  | { type: 'assistant_delta'; text: string }
  /**
   * `label` is the registry's Chinese label; `arguments` parsed when valid JSON, else the raw string. `at`: when an
   * MCP client's call began (a model's call has its turn's).
   */
  | { type: 'tool_call'; id: string; name: string; label: string; arguments: unknown; at?: StartedAt }
  | { type: 'progress'; id: string; stage: string; fraction?: number }
  /** `result` carries no image data; `images` are beside it. */
  | {
      type: 'tool_result';
      id: string;
      name: string;
      ok: boolean;
      result: unknown;
      images?: readonly Image[];
    }
  | { type: 'assistant'; text: string }
  /** `steps` = model requests made this turn; a streamed run of tool calls adds how many `calls` it ran. */
  | { type: 'done'; steps: number; calls?: number }
  /** `message` is Chinese; ends the turn (no 'done' after it). */
  | { type: 'error'; code: ChatErrorCode | (string & {}); message: string };
