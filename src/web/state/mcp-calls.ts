/**
 * The calls an MCP client made on the session, as the server keeps its recent ones (`mcp_calls`, sent when a tab
 * starts listening, right after the conversation), brought into a tab's feed: a tab that joins the session, or
 * listens again after a while away, gets a card for each call it has not seen, in order, and those it has in the
 * state the server knows (a call that was running has its result). Their ids are the server's own and unique, so
 * a card is known by its id.
 *
 * Where a missed call goes among the chat turns the tab missed too cannot be known: a turn carries no time (the
 * conversation's events have none, and the server keeps its calls apart from them), and a call's own time is only
 * in its id. A call it missed happened after everything the tab saw, so it goes after all of that, and after the
 * turns the conversation just brought: as a call made while a turn ran or after it would be shown. One made
 * before a turn the tab missed comes below that turn too.
 */
import type { ChatEvent } from '../api/types.js';
import { applyEvent, type CallItem, type FeedItem, turnOpen } from './feed.js';

function indexOfCall(items: readonly FeedItem[], id: string): number {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'call' && item.id === id) return i;
  }
  return -1;
}

/**
 * `feed` with the kept calls it lacks put in as late as their order allows: above the card of the next kept
 * call it shows, else at its end. None older than the first one it shows comes in (it kept only its newest
 * across a reload, as for the conversation); those it shows are updated, keyed as they were.
 */
export function withMcpCalls(feed: readonly FeedItem[], events: readonly ChatEvent[]): FeedItem[] {
  const kept = events.reduce<FeedItem[]>(applyEvent, []).filter((i): i is CallItem => i.kind === 'call');
  const out = feed.slice();
  const shown = new Set(kept.filter((call) => indexOfCall(out, call.id) >= 0).map((call) => call.id));
  // The next kept call the feed shows, after each one: the one a missed call goes above.
  const next: (string | null)[] = [];
  for (let k = kept.length - 1, after: string | null = null; k >= 0; k--) {
    next[k] = after;
    if (shown.has(kept[k]!.id)) after = kept[k]!.id;
  }
  // A card put in below a chat turn still running is beside it, as one that came live would be (feed.ts): the
  // turn goes on above it.
  const open = turnOpen(feed);
  let turnStart = -1;
  for (let i = out.length - 1; open && i >= 0; i--) {
    if (out[i]!.kind === 'user') {
      turnStart = i;
      break;
    }
  }
  const placed = (call: CallItem, at: number): CallItem =>
    open && at > turnStart ? { ...call, aside: true } : call;
  let seenOne = false;
  for (const [k, call] of kept.entries()) {
    if (shown.has(call.id)) {
      seenOne = true;
      const at = indexOfCall(out, call.id);
      const own = out[at] as CallItem;
      // A card still running here has the stages the server does not keep.
      if (own.status !== call.status)
        out[at] = { ...call, key: own.key, ...(own.aside ? { aside: true } : {}) };
      continue;
    }
    // Older than the first card the feed shows: the feed does not go back that far.
    if (shown.size > 0 && !seenOne) continue;
    const before = next[k];
    const at = before === null || before === undefined ? out.length : indexOfCall(out, before);
    out.splice(at, 0, placed(call, at));
  }
  return out;
}
