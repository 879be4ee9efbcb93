/**
 * The conversation as the chat pane shows it, folded from events: what the user and the model said, and one
 * card per tool call that goes from running to ok or error. Palette runs fold in the same way.
 */
import type { ChatEvent, ResultImage, ToolError } from '../api/types.js';

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
}

export type FeedItem =
  | { readonly kind: 'user'; readonly key: string; readonly text: string }
  | { readonly kind: 'assistant'; readonly key: string; readonly text: string; readonly streaming: boolean }
  | CallItem
  | {
      readonly kind: 'notice';
      readonly key: string;
      readonly code: string;
      readonly message: string;
      /** For a failed upload: the file's name (the notice is then worded in the studio's language). */
      readonly file?: string;
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

/** Ends whatever was still streaming or running (a turn that ended by error or cancel). */
function settle(items: readonly FeedItem[]): FeedItem[] {
  return items.map((item) =>
    item.kind === 'assistant' && item.streaming ? { ...item, streaming: false } : item,
  );
}

export function applyEvent(items: readonly FeedItem[], event: ChatEvent): FeedItem[] {
  switch (event.type) {
    case 'user':
      return [...items, { kind: 'user', key: nextKey('user'), text: event.text }];
    case 'assistant_delta': {
      const last = items[items.length - 1];
      if (last?.kind === 'assistant' && last.streaming) {
        return [...items.slice(0, -1), { ...last, text: last.text + event.text }];
      }
      return [...items, { kind: 'assistant', key: nextKey('assistant'), text: event.text, streaming: true }];
    }
    case 'assistant': {
      const last = items[items.length - 1];
      if (last?.kind === 'assistant' && last.streaming) {
        return [...items.slice(0, -1), { ...last, text: event.text, streaming: false }];
      }
      if (!event.text) return items.slice();
      return [...items, { kind: 'assistant', key: nextKey('assistant'), text: event.text, streaming: false }];
    }
    case 'tool_call':
      return [
        ...settle(items),
        {
          kind: 'call',
          key: nextKey('call'),
          id: event.id,
          name: event.name,
          label: event.label,
          args: event.arguments,
          status: 'running',
          images: [],
        },
      ];
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
      return settle(items);
    case 'error':
      return [
        ...settle(items).map((item) =>
          item.kind === 'call' && item.status === 'running'
            ? { ...item, status: 'error' as const, error: { code: event.code, message: event.message } }
            : item,
        ),
        { kind: 'notice', key: nextKey('notice'), code: event.code, message: event.message },
      ];
  }
}

/** A failed upload, shown in the feed as a notice naming the file. */
export function uploadNotice(
  items: readonly FeedItem[],
  code: string,
  message: string,
  file: string,
): FeedItem[] {
  return [...items, { kind: 'notice', key: nextKey('notice'), code, message, file }];
}

/** A local failure (network, HTTP error) shown in the feed like a turn's error. */
export function noticeEvent(code: string, message: string): ChatEvent {
  return { type: 'error', code, message };
}
