/** The shapes the studio reads from the HTTP API (see the contract in README and src/calls/snapshot.ts). */
import type { ChatEventOf } from '../../agent/event-shapes.js';
import type { toRegistry } from '../../registry/formats/registry.js';

/** What GET /v1/tools answers: the registry as its formatter publishes it. */
export type Registry = ReturnType<typeof toRegistry>;
export type RegistryTool = Registry['tools'][number];

export type ModelInfo =
  | { readonly configured: false }
  | {
      readonly configured: true;
      readonly model: { base_url: string; model: string; vision: boolean; tools: string; max_steps: number };
    };

export type {
  ActiveDocumentSnapshot as ActiveDocument,
  DocumentSnapshot as DocumentInfo,
  FauxName,
  LayerNode,
  SessionSnapshot as SessionState,
} from '../../calls/snapshot-types.js';

export interface SessionFile {
  readonly path: string;
  readonly bytes: number;
}

export interface ResultImage {
  readonly url: string;
  readonly mime: string;
  readonly caption?: string;
  /** The caption in English, where the tool gives one. */
  readonly caption_en?: string;
  /** The picture with the words drawn into it in English, where it has words. */
  readonly url_en?: string;
}

export interface ToolError {
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
}

/** One event of a chat turn or a streamed tool-call run (`data: {json}` lines), images as links. */
export type ChatEvent = ChatEventOf<ResultImage>;

/**
 * What the session's event stream tells a tab of the session's other tabs and clients: the conversation so far
 * (first, as the tab starts listening) and whether a turn runs, and the recent calls of an MCP client (their
 * `tool_call` and `tool_result` events), then the events of their chat turns and streamed runs, a turn starting
 * or ending, the conversation emptied, or its files or documents changed otherwise.
 */
export type SessionEvent =
  | ChatEvent
  | { readonly type: 'conversation'; readonly running: boolean; readonly events: readonly ChatEvent[] }
  | { readonly type: 'mcp_calls'; readonly events: readonly ChatEvent[] }
  | { readonly type: 'chat_running'; readonly running: boolean }
  | { readonly type: 'chat_cleared' }
  | { readonly type: 'changed' };
