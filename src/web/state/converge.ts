/**
 * A tab's feed brought in line with the session's conversation as the server keeps it, when the tab listens
 * again after a while away (hidden, offline, reloaded): what it missed of the conversation comes in, nothing
 * it shows comes twice. The server's conversation has only the chat's turns; this tab's feed holds more that
 * only it knows: the toolbox's runs (its own and, pushed while it listened, the other tabs'), the calls of
 * scripts, its own notices (a refused message, a failed upload). Those stay where they were.
 */
import type { ChatEvent } from '../api/types.js';
import { applyEvent, type FeedItem } from './feed.js';

/**
 * How long a hidden tab goes on listening to its session's events, after which it catches up this way when it is
 * looked at again. A browser opens about six connections to one server over HTTP/1.1, for all its tabs together:
 * a tab left in the background gives its stream back, so that the tab in view never waits for one; a glance at
 * another tab does not cost a catch-up.
 */
export const HIDDEN_LISTEN_MS = 45_000;

/**
 * The most recent items of each side compared: a long session's feed and conversation differ at their recent
 * end, and the comparison's table grows with the product of both lengths.
 */
const WINDOW = 1500;

/** What makes an item the same on both sides; null for what the server's conversation never has as such. */
function sameness(item: FeedItem): string | null {
  switch (item.kind) {
    case 'user':
      return `u\u0000${item.text}`;
    case 'assistant':
      // Text still streaming is the beginning of an answer the conversation has whole, or will bring.
      return item.streaming ? null : `a\u0000${item.text}`;
    case 'call':
      return `c\u0000${item.id}\u0000${item.name}`;
    case 'notice':
      return item.file === undefined ? `n\u0000${item.code}\u0000${item.message}` : null;
  }
}

const isTalk = (item: FeedItem) => item.kind === 'user' || (item.kind === 'assistant' && !item.streaming);

export interface Converged {
  readonly items: FeedItem[];
  /** The conversation was emptied meanwhile: the feed is empty, as another tab's clear leaves it. */
  readonly cleared: boolean;
}

/**
 * `feed` with the conversation's items it lacks put in at their place (not those older than all it shows) and
 * those it has taken in the state the server knows (a call that was running has its result), keyed as they were
 * (nothing is drawn again); its own items kept in order. A conversation that shares no message with the feed was emptied and started again
 * meanwhile: the feed becomes that conversation, as a clear pushed to it would have left it.
 */
export function converge(feed: readonly FeedItem[], conversation: readonly ChatEvent[]): Converged {
  const theirs = conversation.reduce<FeedItem[]>(applyEvent, []);
  const start = Math.max(0, feed.length - WINDOW);
  const mine = feed.slice(start);
  const server = theirs.slice(Math.max(0, theirs.length - WINDOW));
  const a = mine.map(sameness);
  const b = server.map(sameness);
  const n = a.length;
  const m = b.length;
  // Longest common subsequence of mine[..i] and server[..j], at common[i * (m + 1) + j]. Read back from the
  // ends, so that of two ways to match as many, the one nearer the end is taken: a tab that kept only its newest
  // items across a reload has them at the conversation's end, and a model that numbers its calls call_1 in every
  // turn, or a designer who sends 继续 again, make many ways.
  const common = new Uint16Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => common[i * (m + 1) + j]!;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      common[i * (m + 1) + j] =
        a[i - 1] !== null && a[i - 1] === b[j - 1]
          ? at(i - 1, j - 1) + 1
          : Math.max(at(i - 1, j), at(i, j - 1));
    }
  }
  type Step = { readonly item: FeedItem; readonly from: 'both' | 'mine' | 'theirs' };
  const back: Step[] = [];
  let talkMatched = false;
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && a[i - 1] !== null && a[i - 1] === b[j - 1]) {
      const own = mine[i - 1]!;
      const known = server[j - 1]!;
      // A call running on both sides: this tab's card has the stages the conversation does not keep.
      const running = own.kind === 'call' && own.status === 'running' && known.kind === 'call';
      back.push({
        item: running && known.status === 'running' ? own : { ...known, key: own.key },
        from: 'both',
      });
      if (isTalk(own)) talkMatched = true;
      i--;
      j--;
    } else if (j > 0 && (i === 0 || at(i, j - 1) >= at(i - 1, j))) {
      // What it missed, after what only this tab has at the same place.
      back.push({ item: server[j - 1]!, from: 'theirs' });
      j--;
    } else {
      back.push({ item: mine[i - 1]!, from: 'mine' });
      i--;
    }
  }
  const steps = back.reverse();
  // Before the first item both have, the conversation's are older than anything this tab shows (it keeps only
  // its newest across a reload): not brought back.
  const first = steps.findIndex((step) => step.from === 'both');
  const out: FeedItem[] = feed.slice(0, start);
  for (const [k, { item, from }] of steps.entries()) {
    if (from === 'theirs' && k < first) continue;
    // Text still streaming when it stopped listening: the conversation has it whole, or will bring it.
    if (from === 'mine' && item.kind === 'assistant' && item.streaming) continue;
    out.push(item);
  }
  if (!talkMatched && mine.some(isTalk)) {
    // None of the messages it shows is in the conversation any more: it was emptied meanwhile.
    return { items: theirs, cleared: theirs.length === 0 };
  }
  return { items: out, cleared: false };
}
