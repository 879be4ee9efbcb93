/**
 * The feed's state, with a streamed answer's text gathered before it is shown. A model streams a token or two
 * per event, and each shown piece lays the whole bubble out again: a long Chinese paragraph (no spaces, so one
 * line-breaking run over all of it) took the page 35 s to show an 8,000-character answer the server had sent in
 * 6, with the stop button out of reach. Text is shown at most every TEXT_MS; any other change to the feed takes
 * the text gathered so far first, so the order of text and cards is kept.
 */
import { useCallback, useRef, useState } from 'preact/hooks';
import { applyEvent, type FeedItem } from './feed.js';

/** How long streamed text is gathered before it is shown: about as often as a reader's eye takes it in. */
export const TEXT_MS = 60;

type Update = readonly FeedItem[] | ((items: readonly FeedItem[]) => readonly FeedItem[]);

export function useFeed(): [
  feed: readonly FeedItem[],
  setFeed: (update: Update) => void,
  streamText: (text: string) => void,
] {
  const [feed, setShown] = useState<readonly FeedItem[]>([]);
  const gathered = useRef('');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const showText = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = undefined;
    const text = gathered.current;
    if (!text) return;
    gathered.current = '';
    setShown((items) => applyEvent(items, { type: 'assistant_delta', text }));
  }, []);
  const setFeed = useCallback(
    (update: Update) => {
      showText();
      setShown(update);
    },
    [showText],
  );
  const streamText = useCallback(
    (text: string) => {
      gathered.current += text;
      timer.current ??= setTimeout(showText, TEXT_MS);
    },
    [showText],
  );
  return [feed, setFeed, streamText];
}
