/**
 * The calls an MCP client made on the session, as the server keeps its recent ones (`mcp_calls`, sent when a tab
 * starts listening, right after the conversation), brought into a tab's feed: a tab that joins the session, or
 * listens again after a while away, gets a card for each call it has not seen, in order, and those it has in the
 * state the server knows (a call that was running has its result). Their ids are the server's own and unique, so
 * a card is known by its id.
 *
 * A call it missed happened after everything the tab saw, so it goes after all of that, and before the next kept
 * call it shows. Among the chat turns the tab missed too (the conversation just brought them), the server's
 * clock places it: a turn's message and an MCP client's call say when they started (`at`, the server's time for
 * both), and the call goes above the first turn that started after it, as it would have come had the tab been
 * listening. A call or a turn recorded before they said so is placed as late as the order allows: after every
 * turn the conversation brought, as a call made while a turn ran or after it would be shown.
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
 * Where a missed call goes between `from` (after the kept call before it) and `to` (above the next kept call the
 * feed shows, or its end): above the first turn in between that started after it, else at `to`.
 */
function placeOf(out: readonly FeedItem[], call: CallItem, from: number, to: number): number {
  if (call.at === undefined) return to;
  for (let i = from; i < to; i++) {
    const item = out[i]!;
    if (item.kind === 'user' && item.at !== undefined && item.at > call.at) return i;
  }
  return to;
}

/**
 * `feed` with the kept calls it lacks put in at their time among the turns (`placeOf`), never out of their own
 * order: below the kept call before, above the card of the next kept call it shows, else at its end. None older
 * than the first one it shows comes in (it kept only its newest across a reload, as for the conversation); those
 * it shows are updated, keyed as they were.
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
  let turnStart: FeedItem | null = null;
  for (let i = out.length - 1; open && i >= 0; i--) {
    if (out[i]!.kind === 'user') {
      turnStart = out[i]!;
      break;
    }
  }
  // Found again each time: the cards put in above it move it down.
  const placed = (call: CallItem, where: number): CallItem =>
    open && where > (turnStart ? out.indexOf(turnStart) : -1) ? { ...call, aside: true } : call;
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
    const to = before === null || before === undefined ? out.length : indexOfCall(out, before);
    const from = k > 0 ? indexOfCall(out, kept[k - 1]!.id) + 1 : 0;
    const where = placeOf(out, call, from, to);
    out.splice(where, 0, placed(call, where));
  }
  return out;
}
