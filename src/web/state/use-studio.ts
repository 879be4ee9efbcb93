/**
 * The studio's state and every action it takes, all through the HTTP API of one session: the registry,
 * whether a model is configured, the session snapshot (documents, layers, history, garment), its files, and
 * the feed of chat events and tool cards.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type Api, ApiError, type ClearedChat, clearChat as clearChatOf } from '../api/client.js';
import type {
  ChatEvent,
  ModelInfo,
  Registry,
  RegistryTool,
  SessionEvent,
  SessionFile,
  SessionState,
} from '../api/types.js';
import { converge, HIDDEN_LISTEN_MS } from './converge.js';
import { SESSION_GONE, SESSION_GONE_FOUND, SESSION_NOT_FOUND } from './failures.js';
import { applyEvent, type FeedItem, noticeEvent, OWN_CALL, uploadNotice, withNotice } from './feed.js';
import { forgetFeed, restoredFeed, saveFeed } from './feed-store.js';
import { withMcpCalls } from './mcp-calls.js';
import { useFeed } from './use-feed.js';

const SESSION_KEY = 'atelier.session';
/**
 * The session this tab joined by its address (`/?session=<id>`): of what was done before, it has cards only of an
 * MCP client's recent calls.
 */
const JOINED_KEY = 'atelier.joined';

export interface ToolRun {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** No card unless it fails: a step the user did not ask for as such (selecting before a layer change). */
  readonly quiet?: boolean;
  /** Given the call's result once it succeeds (what a pane reads back, as the eyedropper's colour). */
  readonly onResult?: (result: Record<string, unknown>) => void;
}

export interface RunOptions {
  /**
   * One gesture: true for this run's calls; a gesture id (gestureId()) for the calls of several runs made one
   * after the other, where a call needs the result of one before it.
   */
  readonly oneStep?: boolean | string;
}

/** A new id for a gesture of several runs (RunOptions.oneStep); not crypto.randomUUID, which plain http lacks. */
export function gestureId(): string {
  gestures++;
  return `g${Date.now().toString(36)}${gestures.toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}
let gestures = 0;

export interface Studio {
  readonly api: Api;
  readonly sessionId: string | null;
  /** Why the studio could not start: 'unauthorized' (no or a wrong token), or the error's message. */
  readonly bootError: string | null;
  readonly registry: Registry | null;
  readonly tools: ReadonlyMap<string, RegistryTool>;
  readonly model: ModelInfo;
  readonly state: SessionState | null;
  readonly files: readonly SessionFile[];
  readonly feed: readonly FeedItem[];
  /** Runs, chat turns (this tab's or another's) or uploads in flight. */
  readonly busy: boolean;
  /** Files being sent to the server (until each is stored or refused). */
  readonly uploading: boolean;
  /** A chat turn is running, sent from this tab or another (it can be stopped from either). */
  readonly chatting: boolean;
  /** Bumped after every run that may have changed pixels, so the canvas reloads. */
  readonly revision: number;
  /**
   * Runs the calls in order (one failing does not stop the rest); true when every one of them succeeded. With
   * `oneStep`, they are one gesture: each document they change gets one history step (a property set on several
   * selected layers, which Photoshop undoes at once).
   */
  run(
    calls: readonly ToolRun[] | ((now: SessionState | null) => readonly ToolRun[]),
    opts?: RunOptions,
  ): Promise<boolean>;
  /**
   * Sends a message; false when it got no answer — the server never took it (unreachable, refused), or the model
   * service failed before answering it (down, rate-limited, silent) — so it goes back in the box to send again.
   */
  chat(text: string): Promise<boolean>;
  cancelChat(): Promise<void>;
  /**
   * Empties the session's conversation on the server (its transcript and kept images; documents and files stay)
   * and the feed with it. Rejects (an `ApiError`) when the server refuses, the feed unchanged.
   */
  clearChat(): Promise<ClearedChat | null>;
  /** The conversation was just cleared in this tab, and nothing has been added to the feed since. */
  readonly chatCleared: boolean;
  upload(file: File, role: 'document' | 'garment'): Promise<string | null>;
  /** Reloads the session's snapshot (and returns it). */
  refresh(): Promise<SessionState | null>;
  /** Reloads the snapshot and gives the session's files as the server has them now (another tab may have saved). */
  currentFiles(): Promise<readonly SessionFile[]>;
  /**
   * The session this tab worked on no longer exists on the server (purged after its retention, or deleted):
   * nothing more can run in it, and the feed says so with a way to a new one.
   */
  readonly sessionGone: boolean;
  /** Starts a new, empty session in this tab in place of the one that is gone. */
  newSession(): Promise<void>;
  /**
   * The tab joined the session by its address (`/?session=<id>`, e.g. to watch an MCP client), so what was
   * done in it before has no cards here (but an MCP client's recent calls): the empty feed says so, not that
   * cards were lost.
   */
  readonly joined: boolean;
}

/**
 * What a failed action was, for its notice: this tab's own chat turn under way, or a run of these calls (their
 * cards still running fail with it).
 */
interface Failing {
  turn?: boolean;
  calls?: readonly string[];
}

let callSerial = 0;
/**
 * A quiet call says so in its id: the session's other tabs, which see this tab's runs, leave it out as this one
 * does.
 */
const QUIET_CALL = `${OWN_CALL}q_`;
const callId = (quiet = false) =>
  `${quiet ? QUIET_CALL : OWN_CALL}${Date.now().toString(36)}_${++callSerial}`;

/** What a session id can look like: anything else in the address is not asked of the server. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Whether session `id` is on the server; false when it is not (or cannot be an id). */
async function sessionExists(api: Api, id: string): Promise<boolean> {
  if (!SESSION_ID.test(id)) return false;
  try {
    await api.json(`/v1/sessions/${id}`);
    return true;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 400)) return false;
    throw err;
  }
}

interface Opened {
  readonly id: string;
  readonly joined: boolean;
  /** The session the address asked for, which is not there (a new one was opened). */
  readonly missing: string | null;
}

/**
 * The session the address names (`/?session=<id>`), else the one this tab worked on, else a new one. The one
 * opened is kept for the tab as its own, and the address loses the parameter (a reload finds the session kept,
 * and a link copied later does not pull another tab into it); it keeps it while the server cannot be asked, so
 * that trying again still opens it.
 */
async function openSession(api: Api): Promise<Opened> {
  const address = new URL(window.location.href);
  const asked = address.searchParams.get('session');
  const known = sessionStorage.getItem(SESSION_KEY);
  const wanted = asked || known;
  let opened: Opened;
  if (wanted && (await sessionExists(api, wanted))) {
    if (wanted !== known) {
      sessionStorage.setItem(SESSION_KEY, wanted);
      sessionStorage.setItem(JOINED_KEY, wanted);
    }
    opened = { id: wanted, joined: sessionStorage.getItem(JOINED_KEY) === wanted, missing: null };
  } else {
    const { id } = await api.post<{ id: string }>('/v1/sessions', {});
    sessionStorage.setItem(SESSION_KEY, id);
    opened = { id, joined: false, missing: asked || null };
  }
  if (asked !== null) {
    address.searchParams.delete('session');
    window.history.replaceState(window.history.state, '', address.pathname + address.search + address.hash);
  }
  return opened;
}

export function useStudio(api: Api): Studio {
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [bootError, setBootError] = useState<string | null>(null);
  const [registry, setRegistry] = useState<Registry | null>(null);
  const [model, setModel] = useState<ModelInfo>({ configured: false });
  const [state, setState] = useState<SessionState | null>(null);
  // The snapshot as last fetched, read by a run made before it came (see `run`): a render may not have happened yet.
  const stateNow = useRef<SessionState | null>(null);
  const [files, setFiles] = useState<readonly SessionFile[]>([]);
  const [feed, setFeed, streamText] = useFeed();
  const [inFlight, setInFlight] = useState(0);
  const [uploads, setUploads] = useState(0);
  const [chatting, setChatting] = useState(false);
  /** A turn sent from elsewhere (another tab, a script) runs, as the session's event stream tells. */
  const [otherTurn, setOtherTurn] = useState(false);
  const [revision, setRevision] = useState(0);
  const [sessionGone, setSessionGone] = useState(false);
  const [chatCleared, setChatCleared] = useState(false);
  const [joined, setJoined] = useState(false);
  const session = useRef<string | null>(null);
  const filesNow = useRef<readonly SessionFile[]>([]);
  const gone = useRef(false);
  const chatAbort = useRef<AbortController | null>(null);
  /** Listens to the session's events again (at once, when it listens): the conversation comes with it. */
  const listenAgain = useRef<(() => void) | null>(null);
  /** The conversation came while this tab's own turn ran: it is taken again once that turn is over. */
  const catchUpAfterTurn = useRef(false);

  const quiet = useRef(new Map<string, ChatEvent | null>());
  const effects = useRef(new Map<string, RegistryTool['effect']>());
  const refreshing = useRef<Promise<void> | null>(null);
  const refreshAgain = useRef(false);

  /** What of the snapshot says the canvas may show other pixels: the documents, the active one and its step. */
  const seen = useRef('');
  /**
   * Whether `err` means the session is gone, not just something in it: the session itself is asked for. Then
   * the feed says so (once at its end: again after a later attempt, so that attempt is not met with silence).
   */
  const wentAway = useCallback(
    async (err: unknown, attempted = true): Promise<boolean> => {
      const id = session.current;
      if (!id || !(err instanceof ApiError && err.status === 404)) return false;
      if (!gone.current) {
        try {
          await api.json(`/v1/sessions/${id}`);
          return false;
        } catch (check) {
          if (!(check instanceof ApiError && check.status === 404) || session.current !== id) return false;
        }
        gone.current = true;
      }
      // Its documents, layers, history and files went with it: the panes stop showing them as if still there.
      seen.current = '';
      setState(null);
      stateNow.current = null;
      setFiles([]);
      filesNow.current = [];
      setSessionGone(true);
      setFeed((items) => {
        const last = items[items.length - 1];
        return last?.kind === 'notice' && last.code === SESSION_GONE
          ? items
          : applyEvent(items, noticeEvent(SESSION_GONE, attempted ? SESSION_GONE : SESSION_GONE_FOUND));
      });
      return true;
    },
    [api],
  );

  const refresh = useCallback(async (): Promise<SessionState | null> => {
    const id = session.current;
    if (!id) return null;
    let next: SessionState;
    let list: { files: SessionFile[] };
    try {
      [next, list] = await Promise.all([
        api.json<SessionState>(`/v1/sessions/${id}/state`),
        api.json<{ files: SessionFile[] }>(`/v1/sessions/${id}/files`),
      ]);
    } catch (err) {
      // Found out by the panes' catching up (every few seconds, or when the tab is looked at again), or by the
      // snapshot after an action (which reports the action's own failure).
      await wentAway(err, false);
      throw err;
    }
    // A snapshot asked for before the session went away says nothing about the panes any more.
    if (session.current !== id || gone.current) return null;
    const sign = JSON.stringify([
      next.documents.map((d) => [d.name, d.width, d.height, d.mode]),
      next.active?.name,
      next.active?.history,
      // A step changed in place (a gesture's later request joins the step before it) moves layers without moving
      // the history's index or length.
      next.active?.layers,
    ]);
    // Changed by someone else (another tab on this session, an API client): the canvas is fetched again.
    if (seen.current && sign !== seen.current) setRevision((r) => r + 1);
    seen.current = sign;
    setState(next);
    stateNow.current = next;
    setFiles(list.files);
    filesNow.current = list.files;
    return next;
  }, [api, wentAway]);

  const currentFiles = useCallback(async () => {
    await refresh();
    return filesNow.current;
  }, [refresh]);

  // Another tab or client may work on the same session: the panes catch up when this tab is looked at again,
  // and every few seconds while it is in view, so an undo to a step is counted from the real history.
  useEffect(() => {
    const again = () => {
      if (document.visibilityState === 'visible') void refresh().catch(() => undefined);
    };
    document.addEventListener('visibilitychange', again);
    window.addEventListener('focus', again);
    const timer = setInterval(again, 10_000);
    return () => {
      document.removeEventListener('visibilitychange', again);
      window.removeEventListener('focus', again);
      clearInterval(timer);
    };
  }, [refresh]);

  /** Reloads the snapshot after a call changed something, once at a time: calls may finish faster than that. */
  const refreshSoon = useCallback(
    (pixelsMayHaveChanged: boolean) => {
      if (pixelsMayHaveChanged) setRevision((r) => r + 1);
      if (refreshing.current) {
        refreshAgain.current = true;
        return;
      }
      refreshing.current = (async () => {
        do {
          refreshAgain.current = false;
          await refresh().catch(() => undefined);
        } while (refreshAgain.current);
        refreshing.current = null;
      })();
    },
    [refresh],
  );

  const emit = useCallback(
    (event: ChatEvent) => {
      if (event.type === 'tool_call' && event.id.startsWith(QUIET_CALL)) quiet.current.set(event.id, null);
      if ((event.type === 'tool_call' || event.type === 'tool_result') && quiet.current.has(event.id)) {
        if (event.type === 'tool_call') {
          quiet.current.set(event.id, event);
          return;
        }
        const call = quiet.current.get(event.id);
        quiet.current.delete(event.id);
        if (event.ok || !call) return;
        setFeed((items) => applyEvent(applyEvent(items, call), event));
        return;
      }
      if (event.type === 'assistant_delta') {
        streamText(event.text);
        return;
      }
      setFeed((items) => applyEvent(items, event));
      // The panes follow each call as it completes (a query may still move garment state); the canvas is
      // fetched again only after a call that may have changed pixels.
      if (event.type === 'tool_result' && event.ok) refreshSoon(effects.current.get(event.name) !== 'read');
    },
    [refreshSoon, setFeed, streamText],
  );

  useEffect(() => {
    (async () => {
      try {
        const [reg, info, opened] = await Promise.all([
          api.json<Registry>('/v1/tools?variant=extended&format=registry'),
          api.json<ModelInfo>('/v1/model').catch(() => ({ configured: false }) as const),
          openSession(api),
        ]);
        const { id, missing } = opened;
        session.current = id;
        effects.current = new Map(reg.tools.map((t) => [t.name, t.effect]));
        // What this tab showed before a reload (restored before the session is set, which starts saving it),
        // brought in line with the conversation by the event stream, which starts with it.
        const kept = restoredFeed(id);
        if (kept) setFeed(kept);
        if (missing !== null) {
          setFeed((items) => applyEvent(items, noticeEvent(SESSION_NOT_FOUND, missing.slice(0, 64))));
        }
        setJoined(opened.joined);
        setRegistry(reg);
        setModel(info);
        setSessionId(id);
        await refresh();
      } catch (err) {
        setBootError(
          err instanceof ApiError && err.status === 401
            ? 'unauthorized'
            : err instanceof Error
              ? err.message
              : String(err),
        );
      }
    })();
  }, [api, refresh]);

  const tools = useMemo(() => new Map((registry?.tools ?? []).map((t) => [t.name, t])), [registry]);

  /**
   * Runs `work`, counting it as busy unless it is `quiet`, then reloads the snapshot, and the canvas unless
   * `pixels` is false (only tools that read ran). Its failure is told in the feed: as the end of this tab's own
   * chat turn once `work` says the turn was under way, else as a notice beside whatever turn runs (another tab's,
   * which a refused message must not end), with the calls `work` names failed.
   */
  const track = useCallback(
    async (work: (failing: Failing) => Promise<void>, quiet = false, pixels = true) => {
      const counts = quiet ? 0 : 1;
      setInFlight((n) => n + counts);
      const failing: Failing = {};
      try {
        await work(failing);
      } catch (err) {
        if (await wentAway(err)) return;
        if (!(err instanceof DOMException && err.name === 'AbortError')) {
          const code = err instanceof ApiError ? err.code : 'network';
          const message = err instanceof Error ? err.message : String(err);
          if (failing.turn) emit(noticeEvent(code, message));
          else setFeed((items) => withNotice(items, { code, message }, failing.calls));
        }
      } finally {
        setInFlight((n) => n - counts);
        if (pixels) setRevision((r) => r + 1);
        await refresh().catch(() => undefined);
      }
    },
    [emit, refresh, wentAway],
  );

  // This tab's runs, one after another: each request is sent once the one before has answered, so that calls
  // reach the server in the order they were made (two requests in flight may arrive the other way round), and
  // Ctrl+Z pressed just after a nudge undoes the nudge, not the step before it.
  const runs = useRef<Promise<unknown>>(Promise.resolve());
  const runNow = useCallback(
    async (calls: readonly ToolRun[], opts: RunOptions) => {
      // Calls made from the snapshot may come to nothing (a Ctrl-click that changes no selection).
      if (calls.length === 0) return true;
      let succeeded = false;
      await track(
        async (failing) => {
          const id = session.current;
          if (!id) return;
          const body = {
            ...(opts.oneStep ? { one_step: opts.oneStep } : {}),
            tool_calls: calls.map((c) => {
              const id = callId(c.quiet);
              return {
                id,
                type: 'function',
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              };
            }),
          };
          const sent = body.tool_calls.map((c) => c.id);
          failing.calls = sent;
          let failed = false;
          await api.stream(`/v1/sessions/${id}/tool-calls?stream=1`, body, (event) => {
            if (event.type === 'tool_result' && !event.ok) failed = true;
            if (event.type === 'tool_result' && event.ok) {
              const reader = calls[sent.indexOf(String(event.id))]?.onResult;
              if (reader && event.result && typeof event.result === 'object')
                reader(event.result as Record<string, unknown>);
            }
            if (event.type === 'error') {
              // The run's stream broke (the server could not go on with it): no chat turn ended.
              failed = true;
              setFeed((items) => withNotice(items, event, sent));
              return;
            }
            emit(event);
          });
          succeeded = !failed;
        },
        // A run of quiet calls only (a layer selected by a click) is not busy: Ctrl+Z pressed just after a click
        // on the canvas, which selects the layer under it, is not dropped for it; the server runs the calls of a
        // session in the order they came.
        calls.every((c) => c.quiet),
        // A verify or a layer query changes no pixels: a production-size canvas is not rendered again for it.
        calls.some((c) => effects.current.get(c.name) !== 'read'),
      );
      return succeeded;
    },
    [api, emit, track],
  );
  const run = useCallback(
    (
      calls: readonly ToolRun[] | ((now: SessionState | null) => readonly ToolRun[]),
      opts: RunOptions = {},
    ) => {
      // Calls given as a function are made from the snapshot as it is once the runs before have answered (and the
      // snapshot was fetched after them), not as it was when the designer's click was rendered.
      const mine = runs.current.then(() =>
        runNow(typeof calls === 'function' ? calls(stateNow.current) : calls, opts),
      );
      runs.current = mine.catch(() => undefined);
      return mine;
    },
    [runNow],
  );

  const chat = useCallback(
    async (text: string) => {
      // Taken once the turn's stream brings its first event (the message itself); answered once the model says
      // or does something; unanswered when the model service failed before that.
      let taken = false;
      let answered = false;
      let modelFailed = false;
      await track(async (failing) => {
        const id = session.current;
        if (!id) return;
        const abort = new AbortController();
        chatAbort.current = abort;
        setChatting(true);
        try {
          const onEvent = (event: ChatEvent) => {
            taken = true;
            if (event.type === 'assistant_delta' || event.type === 'assistant' || event.type === 'tool_call')
              answered = true;
            if (event.type === 'error') modelFailed = event.code.startsWith('model_');
            // A failure from now on ends this turn; one before (refused: another tab's turn runs) ends none.
            failing.turn = true;
            emit(event);
          };
          await api.stream(`/v1/sessions/${id}/chat`, { message: text }, onEvent, abort.signal);
        } finally {
          chatAbort.current = null;
          setChatting(false);
          if (catchUpAfterTurn.current) {
            catchUpAfterTurn.current = false;
            listenAgain.current?.();
          }
        }
      });
      return taken && (answered || !modelFailed);
    },
    [api, emit, track],
  );

  const cancelChat = useCallback(async () => {
    const id = session.current;
    if (!id) return;
    // The server stops the turn, this tab's or another's, and ends its stream with a 'cancelled' error event
    // (pushed here too when it is another's).
    await api.post(`/v1/sessions/${id}/chat/cancel`, {}).catch(() => chatAbort.current?.abort());
  }, [api]);

  // Saved at once when nothing is running or streaming (a turn or a call has just ended), else a moment
  // after it settles: a streamed answer changes it many times a second. Leaving the page saves it too.
  useEffect(() => {
    if (!sessionId) return;
    const save = () => saveFeed(sessionId, feed);
    const busy = feed.some(
      (item) =>
        (item.kind === 'assistant' && item.streaming) || (item.kind === 'call' && item.status === 'running'),
    );
    if (!busy) save();
    const timer = busy ? setTimeout(save, 400) : undefined;
    window.addEventListener('pagehide', save);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('pagehide', save);
    };
  }, [sessionId, feed]);

  const upload = useCallback(
    async (file: File, role: 'document' | 'garment') => {
      const id = session.current;
      if (!id) return null;
      const form = new FormData();
      form.append('file', file, file.name);
      if (role === 'garment') form.append('role', 'garment');
      setUploads((n) => n + 1);
      try {
        const done = await api.json<{ path: string }>(`/v1/sessions/${id}/files`, {
          method: 'POST',
          body: form,
        });
        await refresh();
        return done.path;
      } catch (err) {
        if (await wentAway(err)) return null;
        const code = err instanceof ApiError ? err.code : 'network';
        setFeed((items) => uploadNotice(items, code, (err as Error).message, file.name, role === 'garment'));
        return null;
      } finally {
        setUploads((n) => n - 1);
      }
    },
    [api, refresh, wentAway],
  );

  const clearChat = useCallback(async () => {
    const id = session.current;
    if (!id) return null;
    try {
      const cleared = await clearChatOf(api, id);
      setFeed([]);
      setChatCleared(true);
      return cleared;
    } catch (err) {
      if (await wentAway(err)) return null;
      throw err;
    } finally {
      await refresh().catch(() => undefined);
    }
  }, [api, refresh, wentAway]);

  useEffect(() => {
    if (feed.length > 0) setChatCleared(false);
  }, [feed]);

  // What the session's other tabs and clients do arrives as they do it: their chat turns and runs as cards (the
  // panes follow each result, as for this tab's own), a turn running, the conversation they cleared, their
  // uploads and deletions. The stream is listened to while the tab is in view and for HIDDEN_LISTEN_MS after it
  // went to the background (one loaded there listens from when it is first looked at). Each time it starts, it
  // brings the conversation and an MCP client's recent calls, which the feed is brought in line with: what a tab
  // missed while not listening comes in then (the snapshot brings the panes).
  useEffect(() => {
    if (!sessionId) return;
    let listening: AbortController | null = null;
    let hidden: ReturnType<typeof setTimeout> | undefined;
    let first = true;
    const pushed = (event: SessionEvent) => {
      if (event.type === 'conversation') {
        // This tab's own turn streams into the feed by its own request, which may lag behind: the conversation
        // is taken again when that is over.
        if (chatAbort.current) {
          catchUpAfterTurn.current = true;
          return;
        }
        setOtherTurn(event.running);
        setFeed((items) => {
          const caught = converge(items, event.events);
          if (caught.cleared) setChatCleared(true);
          return caught.items;
        });
      } else if (event.type === 'mcp_calls') {
        // Known by their ids, so taken at once, this tab's own turn running or not.
        setFeed((items) => withMcpCalls(items, event.events));
      } else if (event.type === 'chat_running') setOtherTurn(event.running);
      else if (event.type === 'chat_cleared') {
        setFeed([]);
        setChatCleared(true);
        refreshSoon(false);
      } else if (event.type === 'changed') refreshSoon(false);
      else emit(event);
    };
    const listen = async (stop: AbortSignal) => {
      let wait = 1000;
      while (!stop.aborted) {
        try {
          await api.listen<SessionEvent>(
            sessionId,
            () => {
              wait = 1000;
              if (!first) refreshSoon(true);
              first = false;
            },
            pushed,
            stop,
          );
        } catch (err) {
          if (stop.aborted || (await wentAway(err, false))) return;
          if (err instanceof ApiError && err.status === 401) return;
        }
        // Not told any more whether a turn runs: the next stream says so.
        setOtherTurn(false);
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, 30_000);
      }
    };
    const open = () => {
      if (listening) return;
      listening = new AbortController();
      void listen(listening.signal);
    };
    const close = () => {
      listening?.abort();
      listening = null;
      setOtherTurn(false);
    };
    const follow = () => {
      if (document.visibilityState === 'hidden') {
        hidden ??= setTimeout(() => {
          hidden = undefined;
          close();
        }, HIDDEN_LISTEN_MS);
      } else {
        clearTimeout(hidden);
        hidden = undefined;
        open();
      }
    };
    listenAgain.current = () => {
      if (!listening) return;
      close();
      open();
    };
    if (document.visibilityState !== 'hidden') open();
    document.addEventListener('visibilitychange', follow);
    return () => {
      document.removeEventListener('visibilitychange', follow);
      clearTimeout(hidden);
      listenAgain.current = null;
      close();
    };
  }, [api, sessionId, emit, refreshSoon, wentAway]);

  const newSession = useCallback(
    () =>
      track(async () => {
        const { id } = await api.post<{ id: string }>('/v1/sessions', {});
        const old = session.current;
        sessionStorage.setItem(SESSION_KEY, id);
        if (old) forgetFeed(old);
        session.current = id;
        gone.current = false;
        seen.current = '';
        quiet.current.clear();
        setSessionGone(false);
        setJoined(false);
        setFeed([]);
        setState(null);
        stateNow.current = null;
        setFiles([]);
        filesNow.current = [];
        setSessionId(id);
      }),
    [api, track],
  );

  return {
    api,
    sessionId,
    bootError,
    registry,
    tools,
    model,
    state,
    files,
    feed,
    busy: inFlight > 0 || uploads > 0 || otherTurn,
    uploading: uploads > 0,
    chatting: chatting || otherTurn,
    revision,
    run,
    chat,
    cancelChat,
    clearChat,
    chatCleared,
    upload,
    refresh,
    currentFiles,
    sessionGone,
    newSession,
    joined,
  };
}
