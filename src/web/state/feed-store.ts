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

export function saveFeed(session: string, feed: readonly FeedItem[]): void {
  try {
    const text = JSON.stringify(feed.slice(-KEEP_ITEMS));
    if (text.length <= MAX_CHARS) sessionStorage.setItem(KEY(session), text);
    else sessionStorage.removeItem(KEY(session));
  } catch {
    // Storage full or unavailable (private mode): the feed is simply not kept.
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
    if (item.kind === 'call' && item.status === 'running') {
      return { ...item, key, status: 'error', error: { code: RELOADED, message: RELOADED } };
    }
    return { ...item, key };
  });
}
