/**
 * The conversation as the chat pane shows it, folded from events: what the user and the model said, and one
 * card per tool call that goes from running to ok or error. Palette runs fold in the same way.
 *
 * A chat turn is kept in one piece: a card that comes from elsewhere while it runs (an MCP client's call, a
 * toolbox run of this tab or another) goes below the turn, and the turn goes on above it — its streamed answer
 * stays one bubble, its own cards and text keep their order. Put there rather than above the turn, the card is
 * seen when it comes (the feed follows its end), in the order things started; once the turn is over it simply
 * follows it, as the saved feed shows after a reload. A notice of this tab's own (a message refused, a run or an
 * upload that failed) goes there too: it tells of something beside the turn, which it does not end.
 */
import type { McpCallPrefix, StartedAt } from '../../agent/event-shapes.js';
import type { ChatEvent, ResultImage, ToolError } from '../api/types.js';

/** How the id of a call this page sent begins (a tool form, a pane, the history), and of another tab's. */
export const OWN_CALL = 'web_';
const MCP_CALL: McpCallPrefix = 'mcp_';

/** Whether a card is of a call this page sent (a tool form, a pane, the history), not one the model made. */
export const isOwnCall = (id: string): boolean => id.startsWith(OWN_CALL);

/** Whether a card is of a call an MCP client made on the session (`/mcp`). */
export const isMcpCall = (id: string): boolean => id.startsWith(MCP_CALL);

export type CallStatus = 'running' | 'ok' | 'error';

export interface CallItem {
  readonly kind: 'call';
  readonly key: string;
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly args: unknown;
  readonly status: CallStatus;
  readonly stage?: string;
  readonly fraction?: number;
  readonly result?: Readonly<Record<string, unknown>>;
  readonly images: readonly ResultImage[];
  readonly error?: ToolError;
  /** Came from elsewhere while a chat turn ran: it stays below that turn, which goes on above it. */
  readonly aside?: true;
  /** When it began (an MCP client's call): where a tab that missed it places it among the turns (mcp-calls.ts). */
  readonly at?: StartedAt;
}

export type FeedItem =
  | {
      readonly kind: 'user';
      readonly key: string;
      readonly text: string;
      /** Its turn has not ended yet (no `done` or `error`): what comes from elsewhere goes below the turn. */
      readonly open?: boolean;
      /** When its turn started, as the server says (not for turns recorded before it did). */
      readonly at?: StartedAt;
    }
  | { readonly kind: 'assistant'; readonly key: string; readonly text: string; readonly streaming: boolean }
  | CallItem
  | {
      readonly kind: 'notice';
      readonly key: string;
      readonly code: string;
      readonly message: string;
      /** For a failed upload: the file's name (the notice is then worded in the studio's language). */
      readonly file?: string;
      /** The failed upload was of a garment photo (which takes images only, not documents). */
      readonly photo?: true;
      /** This tab's own, come while a chat turn ran: it stays below that turn, which goes on above it. */
      readonly aside?: true;
    };

let serial = 0;
const nextKey = (prefix: string) => `${prefix}-${++serial}`;

function errorOf(result: unknown): ToolError {
  const error = (result as { error?: Partial<ToolError> } | null)?.error;
  return {
    code: error?.code ?? 'internal',
    message: error?.message ?? JSON.stringify(result),
    ...(error?.hint ? { hint: error.hint } : {}),
  };
}

function updateCall(items: readonly FeedItem[], id: string, change: (c: CallItem) => CallItem): FeedItem[] {
  // The latest card with this id: ids repeat across turns with some models.
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'call' && item.id === id) {
      const next = items.slice();
      next[i] = change(item);
      return next;
    }
  }
  return items.slice();
}

/** Ends the text still streaming, and with `ended` the turn (it ended by `done`, an error or a new message). */
function settle(items: readonly FeedItem[], ended = false): FeedItem[] {
  return items.map((item) => {
    if (item.kind === 'assistant' && item.streaming) return { ...item, streaming: false };
    if (ended && item.kind === 'user' && item.open !== undefined) {
      const { open: _open, ...closed } = item;
      return closed;
    }
    return item;
  });
}

/**
 * Whether a chat turn runs: its message is not answered to the end yet, or text streams (a tab that began
 * listening in the middle of a turn has not seen its message).
 */
export function turnOpen(items: readonly FeedItem[]): boolean {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'assistant' && item.streaming) return true;
    if (item.kind === 'user') return item.open === true;
  }
  return false;
}

/** Where the running turn's next entry goes: after its last one, above the cards and notices that came meanwhile. */
function turnEnd(items: readonly FeedItem[], open: boolean): number {
  let end = items.length;
  while (open && end > 0 && (items[end - 1] as { readonly aside?: true }).aside) end--;
  return end;
}

const inserted = (items: readonly FeedItem[], at: number, item: FeedItem): FeedItem[] => [
  ...items.slice(0, at),
  item,
  ...items.slice(at),
];

const replaced = (items: readonly FeedItem[], at: number, item: FeedItem): FeedItem[] => {
  const next = items.slice();
  next[at] = item;
  return next;
};

/** A call the model of a chat turn did not make: the studio's own (this tab's or another's), an MCP client's. */
const fromElsewhere = (id: string) => isOwnCall(id) || isMcpCall(id);

export function applyEvent(items: readonly FeedItem[], event: ChatEvent): FeedItem[] {
  switch (event.type) {
    case 'user':
      return [
        ...settle(items, true),
        {
          kind: 'user',
          key: nextKey('user'),
          text: event.text,
          open: true,
          ...(event.at !== undefined ? { at: event.at } : {}),
        },
      ];
    case 'assistant_delta': {
      const end = turnEnd(items, turnOpen(items));
      const last = items[end - 1];
      if (last?.kind === 'assistant' && last.streaming) {
        return replaced(items, end - 1, { ...last, text: last.text + event.text });
      }
      return inserted(items, end, {
        kind: 'assistant',
        key: nextKey('assistant'),
        text: event.text,
        streaming: true,
      });
    }
    case 'assistant': {
      const end = turnEnd(items, turnOpen(items));
      const last = items[end - 1];
      if (last?.kind === 'assistant' && last.streaming) {
        return replaced(items, end - 1, { ...last, text: event.text, streaming: false });
      }
      if (!event.text) return items.slice();
      return inserted(items, end, {
        kind: 'assistant',
        key: nextKey('assistant'),
        text: event.text,
        streaming: false,
      });
    }
    case 'tool_call': {
      const open = turnOpen(items);
      const end = turnEnd(items, open);
      const last = items[end - 1];
      const card: CallItem = {
        kind: 'call',
        key: nextKey('call'),
        id: event.id,
        name: event.name,
        label: event.label,
        args: event.arguments,
        status: 'running',
        images: [],
        ...(event.at !== undefined ? { at: event.at } : {}),
      };
      // The model's calls come after its text is whole (`assistant`): one that comes while the text still
      // streams is not the turn's, whatever its id (a script's streamed run names its calls as it likes).
      const aside = open && (fromElsewhere(event.id) || (last?.kind === 'assistant' && last.streaming));
      if (aside) return [...items, { ...card, aside: true }];
      return inserted(settle(items), end, card);
    }
    case 'progress':
      return updateCall(items, event.id, (c) => ({
        ...c,
        stage: event.stage,
        ...(event.fraction !== undefined ? { fraction: event.fraction } : {}),
      }));
    case 'tool_result':
      return updateCall(items, event.id, (c) => ({
        ...c,
        status: event.ok ? 'ok' : 'error',
        result: (event.result ?? {}) as Record<string, unknown>,
        images: event.images ?? [],
        ...(event.ok ? {} : { error: errorOf(event.result) }),
      }));
    case 'done':
      // A streamed toolbox run's end (it counts its calls): its cards have their results, and a turn running
      // meanwhile goes on.
      if (event.calls !== undefined) return items.slice();
      return settle(items, true);
    case 'error': {
      const open = turnOpen(items);
      const end = turnEnd(items, open);
      // A turn's end: the calls of elsewhere that run meanwhile go on, and their results will come.
      const ended = settle(items, true).map((item) =>
        item.kind === 'call' && item.status === 'running' && !(open && (item.aside || fromElsewhere(item.id)))
          ? { ...item, status: 'error' as const, error: { code: event.code, message: event.message } }
          : item,
      );
      return inserted(ended, end, {
        kind: 'notice',
        key: nextKey('notice'),
        code: event.code,
        message: event.message,
      });
    }
  }
}

/**
 * A failure of this tab's own that is not a chat turn's end (a message the server refused, a run or an upload
 * that failed): an `error` event would end the turn running meanwhile, another tab's or an MCP client's, and its
 * answer would go on in a new bubble below the notice. The notice goes below that turn, as a card from
 * elsewhere does, and the turn goes on above it. The cards of `failed` (the calls of a run whose stream broke)
 * still running failed with it; no other card is touched.
 */
export function withNotice(
  items: readonly FeedItem[],
  notice: { readonly code: string; readonly message: string; readonly file?: string; readonly photo?: true },
  failed: readonly string[] = [],
): FeedItem[] {
  const error = { code: notice.code, message: notice.message };
  const out = items.map((item) =>
    item.kind === 'call' && item.status === 'running' && failed.includes(item.id)
      ? { ...item, status: 'error' as const, error }
      : item,
  );
  out.push({
    kind: 'notice',
    key: nextKey('notice'),
    ...error,
    ...(notice.file !== undefined ? { file: notice.file } : {}),
    ...(notice.photo ? { photo: true as const } : {}),
    ...(turnOpen(items) ? { aside: true as const } : {}),
  });
  return out;
}

/** A failed upload, shown in the feed as a notice naming the file. */
export function uploadNotice(
  items: readonly FeedItem[],
  code: string,
  message: string,
  file: string,
  photo = false,
): FeedItem[] {
  return withNotice(items, { code, message, file, ...(photo ? { photo: true as const } : {}) });
}

/** A local failure (network, HTTP error) shown in the feed like a turn's error. */
export function noticeEvent(code: string, message: string): ChatEvent {
  return { type: 'error', code, message };
}
