/**
 * The conversation pane kept across a page reload: the feed (messages and tool cards, images by URL) is saved
 * in the tab's sessionStorage beside the session id, so a reload shows the cards it showed — the toolbox's
 * included, which the server's chat history does not hold. A call still running when the page went away has
 * no result to show: it comes back marked as interrupted by the reload (the server finishes it; the panes
 * show its effect).
 */
import type { FeedItem } from './feed.js';

const KEY = (session: string) => `atelier.feed.${session}`;
/** The newest items kept, and the most text saved: sessionStorage holds a few MB per origin. */
const KEEP_ITEMS = 200;
const MAX_CHARS = 2_000_000;

export const RELOADED = 'page_reloaded';

/**
 * The newest items whose JSON fits in `maxChars`: a long session's cards (layer lists, garment tables) may hold
 * more than that, and then the oldest are left out rather than the whole conversation.
 */
function newestThatFit(items: readonly FeedItem[], maxChars: number): readonly FeedItem[] {
  // The array's brackets, then each item with the comma before it.
  let size = 2;
  let start = items.length;
  while (start > 0) {
    const next = size + JSON.stringify(items[start - 1]).length + (start < items.length ? 1 : 0);
    if (next > maxChars) break;
    size = next;
    start--;
  }
  return items.slice(start);
}

export function saveFeed(session: string, feed: readonly FeedItem[]): void {
  try {
    sessionStorage.setItem(KEY(session), JSON.stringify(newestThatFit(feed.slice(-KEEP_ITEMS), MAX_CHARS)));
  } catch {
    // Storage full or unavailable (private mode): the feed is simply not kept (nor an older one shown for it).
    try {
      sessionStorage.removeItem(KEY(session));
    } catch {
      // Unavailable.
    }
  }
}

/** Drops a session's saved feed (the session is gone). */
export function forgetFeed(session: string): void {
  try {
    sessionStorage.removeItem(KEY(session));
  } catch {
    // Unavailable.
  }
}

/** The saved feed, re-keyed (the keys' counter starts again with the page), or null when there is none. */
export function restoredFeed(session: string): FeedItem[] | null {
  let items: FeedItem[];
  try {
    const text = sessionStorage.getItem(KEY(session));
    if (!text) return null;
    items = JSON.parse(text) as FeedItem[];
    if (!Array.isArray(items)) return null;
  } catch {
    return null;
  }
  return items.map((item, i): FeedItem => {
    const key = `restored-${i}`;
    if (item.kind === 'assistant') return { ...item, key, streaming: false };
    // Its turn is over for this page: the event stream says whether it still runs (it brings it open again).
    if (item.kind === 'user') {
      const { open: _open, ...said } = item;
      return { ...said, key };
    }
    if (item.kind === 'call' && item.status === 'running') {
      return { ...item, key, status: 'error', error: { code: RELOADED, message: RELOADED } };
    }
    return { ...item, key };
  });
}
