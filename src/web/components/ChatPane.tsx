/** The conversation (messages and tool cards) with the composer: a message to the model, or the toolbox. */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { HEIC, namedAs } from '../../registry/file-formats.js';
import { useStudioView } from '../context.js';
import { failureWords, SESSION_GONE, SESSION_NOT_FOUND } from '../state/failures.js';
import { type FeedItem, isOwnCall } from '../state/feed.js';
import { openFiles, pastedFile } from '../state/open-files.js';
import { FailureDetail } from './FailureDetail.js';
import {
  APPLY_TOOL,
  CONFIRM_TOOL,
  IDENTIFY_TOOL,
  openDoubts,
  PiecesTableOpen,
  PREVIEW_TOOL,
} from './GarmentActions.js';
import { Palette } from './Palette.js';
import { RichText } from './RichText.js';
import { ToolCard } from './ToolCard.js';

/**
 * Upload failures the studio words itself, naming the file: the server's words for them speak to an integrator
 * (a DELETE on a file's address) or do not name the file.
 */
const UPLOAD_MESSAGES = {
  unsupported_media_type: 'upload.unsupported_media_type',
  payload_too_large: 'upload.payload_too_large',
  quota_exceeded: 'upload.quota_exceeded',
  busy: 'upload.busy',
  network: 'upload.network',
} as const;

/** How near the end (px) the designer scrolling down counts as back at the end, so it follows what comes next. */
const NEAR_END = 48;

/**
 * What brings the feed back to its newest entry when it arrives: what the designer started here (a message, a
 * tool run) and a failure notice, which must not go unseen.
 */
const bringsToEnd = (item: FeedItem) =>
  item.kind === 'user' || item.kind === 'notice' || (item.kind === 'call' && isOwnCall(item.id));

/**
 * The newest card while it asks the designer something: which part a piece is (an identification with pieces in
 * doubt, or an answer's card with some left), or the rows of its pieces table (a preview's, opened by 确认套图
 * without a model; `tables` holds the cards whose table is open). Its key and what it asks, or null. An answer or
 * the table's step being recorded, or one that failed (another click retries it), leaves the question where it was.
 */
function asked(
  feed: readonly FeedItem[],
  tables: ReadonlySet<string>,
): { readonly key: string; readonly what: 'doubts' | 'table' } | null {
  for (let i = feed.length - 1; i >= 0; i--) {
    const item = feed[i]!;
    if (item.kind !== 'call') continue;
    if ((item.name === CONFIRM_TOOL || item.name === APPLY_TOOL) && item.status !== 'ok') continue;
    const identified = item.name === IDENTIFY_TOOL || item.name === CONFIRM_TOOL;
    if (identified && item.status === 'ok' && item.result && openDoubts(item.result).length > 0) {
      return { key: item.key, what: 'doubts' };
    }
    return item.name === PREVIEW_TOOL && tables.has(item.key) ? { key: item.key, what: 'table' } : null;
  }
  return null;
}

function Feed() {
  const { studio, t } = useStudioView();
  const uploadFailure = (code: string, message: string, name: string, photo: boolean) => {
    // An iPhone's photo, copied off the phone as it was taken: said as such, with what to do.
    if (code === 'unsupported_media_type' && namedAs(name, [HEIC])) return t('upload.heic', { name });
    // A garment photo takes images only: a document's formats are not offered to it.
    if (code === 'unsupported_media_type' && photo) return t('upload.unsupported_photo', { name });
    const key = UPLOAD_MESSAGES[code as keyof typeof UPLOAD_MESSAGES];
    return key ? t(key, { name }) : t('upload.failed', { name, message });
  };
  const log = useRef<HTMLDivElement>(null);
  const last = studio.feed[studio.feed.length - 1];
  // The feed follows the newest entry, also while a card's image, its progress or the model's text makes it
  // grow, unless the designer has scrolled up to read an earlier one, even a little: it is left there until
  // they come back down to the end or start something themselves.
  const following = useRef(true);
  // Where the feed was last seen scrolled to, by its own scroll or the designer's. Scrolled away is told by
  // the position going up from there, not by how far the end is: content that grows between the feed's own
  // scroll and that scroll's event (the next frame) leaves the end farther below without anyone scrolling.
  const lastTop = useRef(0);
  /** The entries shown so far: a new one need not be the last (a turn's notice goes above cards of elsewhere). */
  const shown = useRef(new Set<string>());
  // The feed's own scroll only: scrollIntoView scrolled the page too, away from the canvas on a phone.
  const keepUp = () => {
    const el = log.current;
    if (!el || !following.current) return;
    el.scrollTop = el.scrollHeight;
    lastTop.current = el.scrollTop;
  };
  useLayoutEffect(() => {
    const before = shown.current;
    shown.current = new Set(studio.feed.map((item) => item.key));
    if (studio.feed.some((item) => !before.has(item.key) && bringsToEnd(item))) following.current = true;
    keepUp();
  }, [studio.feed.length, last]);
  // Anything that makes an entry taller (an image come after its card, a card's result, streamed text) or the
  // feed shorter (the composer growing, a narrower window) brings the end back into view while it follows.
  useEffect(() => {
    const el = log.current;
    if (!el) return;
    const resized = new ResizeObserver(keepUp);
    // The border box: a card's padding and border grow with it too.
    const watch = (node: Element) => resized.observe(node, { box: 'border-box' });
    watch(el);
    for (const child of el.children) watch(child);
    const entries = new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) if (node instanceof Element) watch(node);
        for (const node of record.removedNodes) if (node instanceof Element) resized.unobserve(node);
      }
    });
    entries.observe(el, { childList: true });
    return () => {
      entries.disconnect();
      resized.disconnect();
    };
  }, []);
  return (
    <div
      class="feed"
      role="log"
      aria-label={t('chat.log')}
      ref={log}
      onScroll={(e) => {
        const el = e.currentTarget;
        const below = el.scrollHeight - el.scrollTop - el.clientHeight;
        // Up from where it was, and not by the browser keeping it at the end of content that got shorter.
        if (el.scrollTop < lastTop.current - 1 && below > 1) following.current = false;
        else if (below <= 1 || (el.scrollTop > lastTop.current && below < NEAR_END)) following.current = true;
        lastTop.current = el.scrollTop;
      }}
    >
      {studio.feed.length === 0 && (
        <p class="feed-empty">
          {/* A session with history whose cards are gone (another tab, a cleared browser) is not empty. */}
          {studio.chatCleared
            ? t('chat.cleared')
            : studio.joined && studio.sessionId
              ? t('chat.joined', { id: `${studio.sessionId.slice(0, 8)}…` })
              : studio.state?.documents.length
                ? t('chat.restored')
                : studio.model.configured
                  ? t('chat.empty')
                  : t('chat.emptyNoModel')}
        </p>
      )}
      {studio.feed.map((item) => {
        switch (item.kind) {
          case 'user':
            return (
              <div key={item.key} class="bubble user">
                {item.text}
              </div>
            );
          case 'assistant':
            return (
              <div key={item.key} class={`bubble assistant${item.streaming ? ' streaming' : ''}`}>
                <RichText text={item.text} />
              </div>
            );
          case 'call':
            return <ToolCard key={item.key} call={item} />;
          case 'notice': {
            const words =
              item.file !== undefined
                ? { text: uploadFailure(item.code, item.message, item.file, item.photo === true) }
                : failureWords(t, item.code, item.message);
            // Information, not a failure: the session the address asked for is not there, a new one was opened.
            const info = item.code === SESSION_NOT_FOUND;
            return (
              <div key={item.key} class={info ? 'notice info' : 'notice'} role={info ? 'status' : 'alert'}>
                <span class="notice-text">{words.text}</span>
                {!info && <code>{item.code}</code>}
                {words.detail !== undefined && <FailureDetail detail={words.detail} />}
                {item.code === SESSION_GONE && studio.sessionGone && (
                  <button type="button" class="primary" onClick={() => void studio.newSession()}>
                    {t('notice.newSession')}
                  </button>
                )}
              </div>
            );
          }
          default:
            return null;
        }
      })}
    </div>
  );
}

function MessageBox() {
  const { studio, t } = useStudioView();
  const [text, setText] = useState('');
  const send = (e: Event) => {
    e.preventDefault();
    const message = text.trim();
    if (!message || studio.busy) return;
    setText('');
    // A message that got no answer (the server never took it, or the model service failed before answering)
    // goes back in the box to send again, unless something else has been typed there meanwhile. Sent again, the
    // server keeps it once (conversation.ts, joinUserMessages).
    void studio.chat(message).then((answered) => {
      if (!answered) setText((now) => now || message);
    });
  };
  return (
    <form class="message-box" onSubmit={send}>
      <textarea
        aria-label={t('chat.message')}
        placeholder={t('chat.placeholder')}
        rows={3}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onPaste={(e) => {
          // An image pasted here (a screenshot, an image copied from a page) goes on the canvas as Photoshop
          // pastes it: a new layer of the open document, or a document of its own when none is open.
          const images = Array.from(e.clipboardData?.files ?? []).filter((f) => f.type.startsWith('image/'));
          if (images.length === 0) return;
          e.preventDefault();
          void openFiles(
            studio,
            images.map((f) => pastedFile(f)),
            studio.state?.active ? 'layer' : 'document',
          );
        }}
        onKeyDown={(e) => {
          // The Enter that picks a word in a Chinese input method is not a send. Safari ends the composition
          // before that keydown, so only its keyCode (229, "the input method has it") says so.
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) send(e);
        }}
      />
      {studio.chatting ? (
        <button type="button" onClick={() => void studio.cancelChat()}>
          {t('chat.stop')}
        </button>
      ) : (
        // While a call runs the message cannot go yet (it would be dropped): the button says so by being off,
        // and the text stays in the box to send once the call is done.
        <button
          type="submit"
          class="primary"
          disabled={!text.trim() || studio.busy}
          title={studio.busy ? t('chat.waitBusy') : undefined}
        >
          {t('chat.send')}
        </button>
      )}
    </form>
  );
}

export function ChatPane() {
  const { studio, t, paletteTool } = useStudioView();
  const withModel = studio.model.configured;
  const [mode, setMode] = useState<'chat' | 'tools'>(withModel ? 'chat' : 'tools');
  useEffect(() => setMode(withModel ? 'chat' : 'tools'), [withModel]);
  useEffect(() => {
    if (paletteTool) setMode('tools');
  }, [paletteTool]);
  // While the newest card asks about pieces in doubt, or its pieces table is open, the toolbox folds to a line and
  // the conversation gets the pane: the questions and their answer buttons, or the table's rows and 开始套图, read
  // at once, not in the strip the toolbox leaves (in a 768 px window 460 px beside a form, 300 beside the tool
  // list; on a phone a fifth of the screen). Unfolded on request (or by going on to another tool), until the next
  // question or table comes.
  const [tables, setTables] = useState<ReadonlySet<string>>(new Set());
  const reportTable = useCallback(
    (key: string, open: boolean) =>
      setTables((was) => {
        if (was.has(key) === open) return was;
        const now = new Set(was);
        if (open) now.add(key);
        else now.delete(key);
        return now;
      }),
    [],
  );
  const question = asked(studio.feed, tables);
  const asking = question?.key ?? null;
  const [unfoldedFor, setUnfoldedFor] = useState<string | null>(null);
  const folded = mode === 'tools' && asking !== null && unfoldedFor !== asking;
  // Another tool picked (or the form's ‹, kept on the folded line, back to the list): the designer goes on.
  const picked = useRef(paletteTool);
  useEffect(() => {
    if (picked.current === paletteTool) return;
    picked.current = paletteTool;
    setUnfoldedFor(asking);
  }, [paletteTool, asking]);
  const unfold = useRef<HTMLButtonElement>(null);
  const composer = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    // The keys were in the form just hidden (its 运行): they stay in the composer, on what unfolds it.
    const at = document.activeElement;
    if (folded && (at === document.body || (at && composer.current?.contains(at)))) {
      unfold.current?.focus({ preventScroll: true });
    }
    // On a phone the page scrolls through the stacked panes, and the form just folded was taller than the window:
    // the pane's end is brought into it, the questions above the folded line, not that line below the page's fold.
    if (folded) composer.current?.closest('.chat-pane')?.scrollIntoView({ block: 'end' });
  }, [folded]);
  return (
    // A tool's form open in the toolbox: on a narrow screen it takes the pane (see styles.css).
    <section
      class={`chat-pane${mode === 'tools' && paletteTool && !folded ? ' form-open' : ''}`}
      aria-label={t('chat.title')}
    >
      <PiecesTableOpen.Provider value={reportTable}>
        <Feed />
      </PiecesTableOpen.Provider>
      <div class={`composer ${mode}${folded ? ' folded' : ''}`} ref={composer}>
        <div class="segmented" role="tablist" aria-label={t('composer.mode')}>
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'chat'}
            disabled={!withModel}
            title={withModel ? undefined : t('chat.noModel')}
            onClick={() => setMode('chat')}
          >
            {t('composer.chat')}
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'tools'}
            onClick={() => {
              setMode('tools');
              setUnfoldedFor(asking);
            }}
          >
            {t('composer.tools')}
          </button>
        </div>
        {folded && (
          <>
            <button
              type="button"
              class="text-button composer-unfold"
              ref={unfold}
              aria-expanded={false}
              onClick={() => setUnfoldedFor(asking)}
            >
              {t('composer.unfold')}
            </button>
            <span class="composer-note">
              {t(question?.what === 'table' ? 'composer.foldedForTable' : 'composer.foldedForDoubts')}
            </span>
          </>
        )}
        {/* Folded, the form stays mounted, its head alone shown: what was typed is there when it unfolds. */}
        {mode === 'chat' ? <MessageBox /> : <Palette />}
      </div>
    </section>
  );
}
