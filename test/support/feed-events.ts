/** Chat events as the studio's feed receives them, for the feed's unit tests. */
import type { ChatEvent } from '../../src/web/api/types.js';
import { applyEvent, type FeedItem } from '../../src/web/state/feed.js';

export const fold = (events: readonly ChatEvent[], from: FeedItem[] = []) =>
  events.reduce<FeedItem[]>(applyEvent, from);

export const call = (id: string, name = 'create_layer'): ChatEvent => ({
  type: 'tool_call',
  id,
  name,
  label: name,
  arguments: {},
});

export const result = (id: string, name = 'create_layer'): ChatEvent => ({
  type: 'tool_result',
  id,
  name,
  ok: true,
  result: { ok: true },
});

/** What a reader of the feed sees, top to bottom: a streaming answer marked with an ellipsis. */
export const shown = (items: readonly FeedItem[]) =>
  items.map((item) =>
    item.kind === 'call'
      ? `${item.id}:${item.status}`
      : item.kind === 'notice'
        ? `!${item.code}`
        : item.kind === 'assistant'
          ? `assistant${item.streaming ? '…' : ''}:${item.text}`
          : `${item.kind}:${item.text}`,
  );
