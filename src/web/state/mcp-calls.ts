/**
 * The calls an MCP client made on the session, as the server keeps its recent ones (`mcp_calls`, sent when a tab
 * starts listening), brought into a tab's feed: a tab that joins the session, or listens again after a while
 * away, gets a card for each call it has not seen, in order, and those it has in the state the server knows (a
 * call that was running has its result). Their ids are the server's own and unique, so a card is known by its id.
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
 * `feed` with the kept calls it lacks put in after the card of the call before them (after everything, when it
 * shows none of them), none older than the first one it shows (it kept only its newest across a reload, as for
 * the conversation), and those it shows updated, keyed as they were.
 */
export function withMcpCalls(feed: readonly FeedItem[], events: readonly ChatEvent[]): FeedItem[] {
  const kept = events.reduce<FeedItem[]>(applyEvent, []).filter((i): i is CallItem => i.kind === 'call');
  const out = feed.slice();
  const anchored = kept.some((call) => indexOfCall(out, call.id) >= 0);
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
  /** Where the card after the last one placed goes; -1 before any (at the end when none is shown). */
  let after = -1;
  for (const call of kept) {
    const at = indexOfCall(out, call.id);
    if (at >= 0) {
      const own = out[at] as CallItem;
      // A card still running here has the stages the server does not keep.
      if (own.status !== call.status)
        out[at] = { ...call, key: own.key, ...(own.aside ? { aside: true } : {}) };
      after = at;
    } else if (after >= 0) {
      after++;
      out.splice(after, 0, placed(call, after));
    } else if (!anchored) {
      out.push(placed(call, out.length));
    }
  }
  return out;
}
