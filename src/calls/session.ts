/**
 * A session: one user's open documents, and `call(toolCall)` — the only way anything reaches them.
 * Calls run one at a time in arrival order; each validates first, runs in a transaction and either
 * commits (one history step labelled with the tool's Chinese label) or changes nothing.
 */
import { inkPreview } from '../engine/color-mode.js';
import { Editor, type EditorState, type Transaction } from '../engine/editor.js';
import { EditorError } from '../engine/errors.js';
import { current } from '../engine/history.js';
import { sessionPixelBytes, withMemoryBudget } from '../engine/memory-budget.js';
import type { DocState } from '../engine/model.js';
import { closest } from '../engine/names.js';
import { rgbToHex } from '../engine/raster.js';
import { appendLines, Workspace } from '../engine/workspace.js';
import { EMPTY_GARMENT_MEMORY, type GarmentMemory } from '../garment/types.js';
import { allTools, findTool, TOOL_NAME_MAX_LENGTH, type ToolName } from '../registry/index.js';
import { readGarmentPhotoAhead } from '../tools/garment.js';
import { handlers } from '../tools/index.js';
import type { Handler, Payload, ToolContext } from '../tools/types.js';
import type { DocumentListing, SessionHandle } from './handle.js';
import { internalMessage } from './internal-error.js';
import { layerAt } from './layer-at.js';
import { noteWanted, othersBytes, type PoolShare, releaseShare, setHeld } from './memory-pool.js';
import { parseArguments, parseToolCall } from './parse.js';
import { type Rendered, renderDocument } from './render.js';
import { failure, type ToolResult } from './result.js';
import { type SessionSnapshot, snapshotOf } from './snapshot.js';
import { renderLayerThumbnail, type ThumbnailOf } from './thumbnail.js';
import { parseInks, validateArguments } from './validate.js';

export interface SessionOptions {
  /** The folder every path is relative to (created if missing). */
  readonly workspace: string | Workspace;
  /** When set, every call and its result are appended here as JSONL (replayable with `atelier run`). */
  readonly transcript?: string;
  /** Called for failures that are bugs (`internal`), e.g. to log the stack. */
  readonly onInternalError?: (err: unknown) => void;
  /**
   * Pixel memory the session's documents may hold (layers and masks of every history step, composites); a call
   * that would allocate beyond it is refused (`out_of_bounds`) before allocating. Unlimited when unset.
   */
  readonly memoryBudgetBytes?: number;
  /**
   * The session's part of the pixel memory all the sessions of the process share (memory-pool.ts): a call is
   * also refused what the other sessions leave of it.
   */
  readonly memoryShare?: PoolShare;
  /**
   * Called after each call (and garment photo change) that changed the session, before its result is returned;
   * the result waits for it. When it rejects, the change is undone and the call fails with `io_error`: this is
   * how a journal makes every result the caller sees durable (src/service/journal.ts). A `SessionDeletedError`
   * says the session was deleted under the call (its journal went with it): the call answers `sessionDeleted`.
   */
  readonly onChange?: (change: SessionChange) => Promise<void>;
}

/**
 * What `onChange` throws when the session was deleted while the call ran, before the call could be recorded (the
 * journal's folder is gone): the call is cancelled with its session, which is neither a disk problem nor a fault.
 */
export class SessionDeletedError extends Error {
  constructor() {
    super('the session was deleted');
    this.name = 'SessionDeletedError';
  }
}

/** Everything a session holds that calls change: documents with their history, and the garment state. */
export interface SessionState {
  readonly editor: EditorState;
  readonly garmentPhoto: string | null;
  readonly garment: GarmentMemory;
}

/** A file a call read from the workspace, with the bytes it got. */
export interface FileRead {
  readonly path: string;
  readonly bytes: Buffer;
}

export type SessionChange =
  | {
      readonly kind: 'call';
      readonly call: unknown;
      /** The files the call read, in order (to replay it on the same bytes later). */
      readonly reads: readonly FileRead[];
      /** How long the call ran, in ms (what replaying it would cost). */
      readonly ms: number;
      readonly state: SessionState;
      /** The gesture the call was part of (`CallOptions.gesture`), which replaying it must give it again. */
      readonly gesture?: string;
    }
  | { readonly kind: 'garment_photo'; readonly path: string | null; readonly state: SessionState };

/** A stage of a long call (garment steps, large saves and opens), for a surface to show while it runs. */
export interface Progress {
  /** Chinese, short: what the call is doing now. */
  readonly stage: string;
  /** 0..1 when the call can tell how far along it is. */
  readonly fraction?: number;
}

export interface CallOptions {
  /** Called with each stage the call reports while it runs; never after the call's result. */
  readonly onProgress?: (progress: Progress) => void;
  /**
   * The caller gave up on the call (an MCP client's `notifications/cancelled`) and will not see its result: a
   * call not started yet does not run, and one running stops at its next stage or before it commits, keeping
   * nothing it did; once it has begun writing a file it runs to its end (the file and the document then agree).
   */
  readonly signal?: AbortSignal;
  /**
   * The call is part of one gesture of the designer's, named by this id, made of several calls (a property set on
   * several selected layers): a document the gesture already gave a history step joins this call's change to that
   * step, as Photoshop records one step for it. The calls of a gesture must be queued one after the other.
   */
  readonly gesture?: string;
}

/** The history steps a gesture made: per document, its current state after the gesture's last call. */
interface GestureSteps {
  readonly id: string;
  readonly docs: Map<number, DocState>;
}

export class Session implements SessionHandle {
  readonly workspace: Workspace;
  readonly editor = new Editor();
  /** The uploaded garment photo the garment tools read (workspace-relative), or null when none was given. */
  garmentPhoto: string | null = null;
  /** What the garment tools know (piece analysis, extraction, preview, application); replaced only by a call that succeeded. */
  garment: GarmentMemory = EMPTY_GARMENT_MEMORY;
  private readonly transcript: string | undefined;
  private readonly onInternalError: (err: unknown) => void;
  private readonly memoryBudgetBytes: number | undefined;
  private readonly memoryShare: PoolShare | undefined;
  /** Its share given back (the session closed): a call still running then must not take it again. */
  private released = false;
  /** The session was deleted: calls still running or queued end as cancelled, and change nothing more. */
  private discarded = false;
  private readonly onChange: SessionOptions['onChange'];
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Calls running or queued that may change a document (`documents`), and those that may change anything a
   * snapshot shows (`state`: also the active layer, the layers selected and the garment state): inspectSettled.
   */
  private readonly ahead = { documents: 0, state: 0 };
  /**
   * The last gesture's steps. Not part of the session's state: a recovery replays the journaled calls with their
   * gestures, which builds it again (one recovered from a snapshot taken between two calls of a gesture gives the
   * rest of the gesture steps of their own, the same pixels in more steps).
   */
  private gestureSteps: GestureSteps | null = null;

  constructor(opts: SessionOptions) {
    this.workspace = typeof opts.workspace === 'string' ? new Workspace(opts.workspace) : opts.workspace;
    this.transcript = opts.transcript;
    this.onInternalError = opts.onInternalError ?? ((err) => console.error(err));
    this.memoryBudgetBytes = opts.memoryBudgetBytes;
    this.memoryShare = opts.memoryShare;
    this.onChange = opts.onChange;
  }

  get state(): SessionState {
    return { editor: this.editor.snapshot, garmentPhoto: this.garmentPhoto, garment: this.garment };
  }

  /**
   * Puts the session back to `state` (a recovered snapshot, or the state before a change that could not be
   * journaled). Only between calls: the caller owns the session's queue (see `recover` in src/service).
   */
  restore(state: SessionState): void {
    this.editor.restore(state.editor);
    this.garmentPhoto = state.garmentPhoto;
    this.garment = state.garment;
    this.countMemory();
  }

  /** Gives the session's share of the process's pixel memory back, for good: the session is closing. */
  releaseMemory(): void {
    this.released = true;
    if (this.memoryShare) releaseShare(this.memoryShare);
  }

  /**
   * The session is being deleted: a call running now ends as cancelled (its result and changes are not kept,
   * nor journaled), and calls queued after it do not run.
   */
  discard(): void {
    this.discarded = true;
  }

  /** Tells the pool what the session holds now: documents opened or closed, history, composites kept. */
  private countMemory(): void {
    if (!this.memoryShare || this.released) return;
    setHeld(this.memoryShare, sessionPixelBytes(this.editor.snapshot, this.editor.composites()));
  }

  /**
   * Sets the garment photo the garment tools read (an upload with `role=garment`), after every call already
   * queued, and journals it like a call. Rejects when the change cannot be journaled (nothing changed then).
   * Unless `replay` (the journal setting a photo again), the photo's reading starts at once, as
   * set_garment_photo starts it.
   */
  setGarmentPhoto(path: string | null, { replay = false } = {}): Promise<void> {
    const done = this.expect('state');
    const run = this.queue.then(async () => {
      const before = this.state;
      this.garmentPhoto = path;
      if (this.onChange) {
        try {
          await this.onChange({ kind: 'garment_photo', path, state: this.state });
        } catch (err) {
          this.restore(before);
          throw err;
        }
      }
      if (path && !replay) void readGarmentPhotoAhead(this.workspace, path, this.garment.extraction);
    });
    this.queue = run.catch(() => undefined);
    return run.finally(done);
  }

  /** Runs one tool call after every call already queued. Never rejects: failures are results. */
  call(toolCall: unknown, opts: CallOptions = {}): Promise<ToolResult> {
    const done = this.expect(reachOf(toolCall));
    const run = this.queue
      .then(async () => {
        if (this.discarded) return sessionDeleted();
        if (opts.signal?.aborted) return callCancelled();
        const result = await this.execute(toolCall, opts);
        return this.discarded ? sessionDeleted() : result;
      })
      .finally(() => {
        done();
        this.countMemory();
      });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Counts a change of `reach` as ahead until the returned function is called. */
  private expect(reach: Reach): () => void {
    if (reach === 'documents') this.ahead.documents++;
    if (reach !== 'none') this.ahead.state++;
    return () => {
      if (reach === 'documents') this.ahead.documents--;
      if (reach !== 'none') this.ahead.state--;
    };
  }

  /**
   * Reads the documents as they are after every call already queued, in a transaction that is never committed
   * (e.g. to render a document for a surface). `read` must not change anything.
   */
  inspect<T>(read: (tx: Transaction) => T | Promise<T>): Promise<T> {
    const run = this.queue.then(() => this.readNow(read));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Runs `read` on the documents as they are now, within the session's memory budget. */
  private readNow<T>(read: (tx: Transaction) => T | Promise<T>): Promise<T> {
    return this.withinBudget(async () => read(this.editor.begin())).finally(() => this.countMemory());
  }

  /**
   * As `inspect`, and what it gives, but at once when no call running or queued can change what `read` reads: the
   * documents (their pixels and layers), or the whole `state` a snapshot shows. A call that only reads — a garment
   * check takes seconds on a production marker — then no longer holds back the canvas's picture of what the call
   * before it made, or the layers pane's: the read runs beside it, in its pauses.
   */
  inspectSettled<T>(reads: 'documents' | 'state', read: (tx: Transaction) => T | Promise<T>): Promise<T> {
    return this.ahead[reads] > 0 ? this.inspect(read) : this.readNow(read);
  }

  snapshot(): Promise<SessionSnapshot> {
    return snapshotOf(this);
  }

  /**
   * The colour press inks written as a colour parameter takes them (`cmyk(0,0,0,100)`) show as, `#rrggbb`: in the
   * active document through its profile, without one through the press profile, as painting with them would show
   * (nothing is recorded). Undefined when `value` is not inks.
   */
  inkPreview(value: string): Promise<string | undefined> {
    const inks = parseInks(value);
    if (!inks) return Promise.resolve(undefined);
    return this.inspect(async (tx) =>
      rgbToHex(await inkPreview(tx.hasActiveDocument() ? tx.activeDocument().state : null, inks)),
    );
  }

  documents(): Promise<DocumentListing[]> {
    return this.inspectSettled('documents', (tx) =>
      tx.documents().map((d) => ({
        name: d.name,
        width: d.state.width,
        height: d.state.height,
        path: d.path,
        unsaved_changes: d.dirty,
      })),
    );
  }

  render(name: string, max: number): Promise<Rendered> {
    return renderDocument(this, name, max);
  }

  thumbnail(name: string, layer: number, max: number, of: ThumbnailOf = 'pixels'): Promise<Rendered> {
    return renderLayerThumbnail(this, name, layer, max, of);
  }

  layerAt(name: string, x: number, y: number): Promise<number | null> {
    return layerAt(this, name, x, y);
  }

  /**
   * Runs `fn` with every pixel buffer it allocates charged to the session's memory budget, if it has one, which
   * is never more than the other sessions leave of the process's pool.
   */
  private withinBudget<T>(fn: () => Promise<T>): Promise<T> {
    const own = this.memoryBudgetBytes ?? Number.POSITIVE_INFINITY;
    const share = this.memoryShare;
    const others = share ? othersBytes(share) : 0;
    const left = share ? share.pool.limitBytes - others : Number.POSITIVE_INFINITY;
    const limit = Math.min(own, left);
    if (limit === Number.POSITIVE_INFINITY) return fn();
    const run = withMemoryBudget(
      limit,
      () => sessionPixelBytes(this.editor.snapshot, this.editor.composites()),
      fn,
    );
    if (!share || left >= own) return run;
    return run.catch((err: unknown) => {
      if (!isBudgetRefusal(err, limit)) throw err;
      noteWanted(share.pool, (err.details as { needed_bytes?: number }).needed_bytes ?? 0);
      throw poolFull(err, share.pool.limitBytes, others);
    });
  }

  /** The documents whose current step the gesture made, and which nothing has moved or changed since. */
  private joining(gesture: string | undefined): ReadonlySet<number> | undefined {
    const steps = this.gestureSteps;
    if (gesture === undefined || steps?.id !== gesture) return undefined;
    const docs = this.editor.snapshot.docs;
    return new Set(docs.filter((d) => steps.docs.get(d.id) === current(d.history)).map((d) => d.id));
  }

  /** Remembers the documents whose step the gesture's call made or changed, with their state after it. */
  private noteGesture(gesture: string, before: EditorState): void {
    if (this.gestureSteps?.id !== gesture) this.gestureSteps = { id: gesture, docs: new Map() };
    const { docs } = this.gestureSteps;
    for (const d of this.editor.snapshot.docs) {
      const was = before.docs.find((b) => b.id === d.id)?.history;
      const now = current(d.history);
      // A new step (history.push gives new labels), or the gesture's own step changed in place: joined, or a
      // change that is no step (a selection) made on it. An undo or redo moved the index: the step is another.
      if (was === undefined) continue; // opened by the call: its opening is a step of its own
      const pushed = d.history.labels !== was.labels;
      const inPlace = d.history.index === was.index && docs.get(d.id) === current(was);
      if (pushed || inPlace) docs.set(d.id, now);
      else docs.delete(d.id);
    }
  }

  private async execute(toolCall: unknown, opts: CallOptions): Promise<ToolResult> {
    let open = true;
    const { onProgress: report, signal, gesture } = opts;
    // Whether the call has begun writing a file: that cannot be taken back, so from then on a cancel is too late.
    const effects = { wrote: false };
    const progress = (stage: string, fraction?: number) => {
      if (!open) return;
      if (signal?.aborted && !effects.wrote) throw cancelledError();
      if (!report) return;
      try {
        report(fraction === undefined ? { stage } : { stage, fraction: Math.min(1, Math.max(0, fraction)) });
      } catch (err) {
        this.onInternalError(err);
      }
    };
    const before = this.state;
    const reads: FileRead[] = [];
    const started = performance.now();
    let result = await this.dispatch(toolCall, progress, reads, signal, effects, gesture).finally(() => {
      open = false;
    });
    // A deleted session's journal is gone: there is nothing to record the change in, nor anyone to see it.
    if (this.onChange && result.ok && !this.discarded && changed(before, this.state)) {
      const ms = performance.now() - started;
      try {
        await this.onChange({
          kind: 'call',
          call: toolCall,
          reads,
          ms,
          state: this.state,
          ...(gesture !== undefined ? { gesture } : {}),
        });
      } catch (err) {
        this.restore(before);
        if (err instanceof SessionDeletedError || this.discarded) {
          // Deleted while it ran: its journal went with the session, so there was nothing to record it in.
          result = sessionDeleted();
        } else if (err instanceof EditorError && err.code === 'out_of_bounds') {
          // The journal's copies would take the session past its disk quota: the refusal says what to free.
          result = failure(err.code, err.message, {
            ...(err.hint ? { hint: err.hint } : {}),
            ...(err.details !== undefined ? { details: err.details } : {}),
          });
        } else {
          this.onInternalError(err);
          result = failure('io_error', '无法把这次调用记入会话日志，调用已撤销，会话保持原样', {
            hint: '请稍后重试；若一再失败，请检查服务器的磁盘空间',
          });
        }
      }
    }
    if (this.transcript) {
      const { images, ...logged } = result as ToolResult & { images?: unknown };
      const line = JSON.stringify({ call: toolCall, result: images ? { ...logged, images: '…' } : logged });
      await appendLines(this.transcript, `${line}\n`).catch((err) => this.onInternalError(err));
    }
    return result;
  }

  private async dispatch(
    toolCall: unknown,
    progress: (stage: string, fraction?: number) => void,
    reads: FileRead[],
    signal: AbortSignal | undefined,
    effects: { wrote: boolean },
    gesture: string | undefined,
  ): Promise<ToolResult> {
    const call = parseToolCall(toolCall);
    if (!call) {
      return failure(
        'invalid_arguments',
        '不是有效的工具调用：需要 {"function":{"name","arguments"}} 或 {"name","arguments"}',
      );
    }
    const tool = findTool(call.name);
    if (!tool) {
      // No tool name is longer than TOOL_NAME_MAX_LENGTH: a longer one is not a near miss, and is not quoted.
      const plausible = call.name.length <= TOOL_NAME_MAX_LENGTH;
      const suggestions = plausible
        ? closest(
            call.name,
            allTools.map((t) => t.name),
          )
        : [];
      const shown = plausible ? `“${call.name}”` : `长达 ${call.name.length} 个字符`;
      return failure('unknown_tool', `没有名为${shown}的工具`, {
        hint: suggestions.length
          ? `是否想调用 ${suggestions.join('、')}？`
          : '请从提供的工具列表中选择工具名称',
        details: { closest: suggestions },
      });
    }
    const parsed = parseArguments(call.arguments);
    if (!parsed.ok) return failure(parsed.code, parsed.message, { hint: parsed.hint });
    const checked = validateArguments(tool, parsed.value);
    if (!checked.ok) {
      const hint = checked.problems.find((p) => p.hint)?.hint;
      return failure('invalid_arguments', checked.problems.map((p) => p.message).join('；'), {
        ...(hint ? { hint } : {}),
        details: checked.problems,
      });
    }
    const handler = handlers[tool.name as ToolName] as Handler<never>;

    const tx = this.editor.begin();
    const warnings: string[] = [];
    let staged: { garmentPhoto?: string | null; garment?: GarmentMemory } = {};
    const ctx: ToolContext = {
      tx,
      workspace: this.onChange
        ? recordingReads(cancellableWrites(this.workspace, signal, effects), reads)
        : cancellableWrites(this.workspace, signal, effects),
      session: {
        garmentPhoto: this.garmentPhoto,
        garment: this.garment,
        stage: (change) => {
          staged = { ...staged, ...change };
        },
      },
      warn: (m) => warnings.push(m),
      progress,
    };
    let payload: Payload;
    try {
      payload = await this.withinBudget(async () => handler(checked.args as never, ctx));
      if (signal?.aborted && !effects.wrote) throw cancelledError();
      const before = this.editor.snapshot;
      this.editor.commit(tx, tool.label, tool.effect !== 'read', this.joining(gesture));
      if (gesture !== undefined) this.noteGesture(gesture, before);
      if (staged.garmentPhoto !== undefined) this.garmentPhoto = staged.garmentPhoto;
      if (staged.garment !== undefined) this.garment = staged.garment;
    } catch (err) {
      if (err instanceof EditorError) {
        return failure(err.code, err.message, {
          ...(err.hint ? { hint: err.hint } : {}),
          ...(err.details !== undefined ? { details: err.details } : {}),
        });
      }
      this.onInternalError(err);
      return failure('internal', internalMessage(err));
    }
    return { ok: true, ...payload, ...(warnings.length ? { warnings } : {}) };
  }
}

/** What a call may change: documents (and all a snapshot shows), only what a snapshot shows beside them, nothing. */
type Reach = 'documents' | 'state' | 'none';

/**
 * A tool call's reach, from the registry's word on its tool. A call that names no tool, or that is no call, is
 * refused before anything runs.
 */
function reachOf(toolCall: unknown): Reach {
  const name = parseToolCall(toolCall)?.name;
  const tool = name === undefined ? undefined : findTool(name);
  if (!tool) return 'none';
  if (tool.effect !== 'read') return 'documents';
  return tool.changesContext ? 'state' : 'none';
}

/**
 * What a call answers when its session was deleted while it ran or waited to run: the call is cancelled, nothing
 * it did is kept, and the session cannot be brought back (its journal went with it).
 */
export function sessionDeleted(): ToolResult {
  return failure('invalid_state', '会话已被删除：这次调用已取消，它做的修改没有保留，会话也无法再恢复', {
    hint: '请新建一个会话再继续',
    details: { session_deleted: true },
  });
}

const CANCELLED = '调用已取消：它做的修改都没有保留';

/** The error a cancelled call ends with (see `CallOptions.signal`). */
function cancelledError(): EditorError {
  return new EditorError('invalid_state', CANCELLED, { details: { cancelled: true } });
}

/** What a call cancelled before it ran answers. */
function callCancelled(): ToolResult {
  return failure('invalid_state', CANCELLED, { details: { cancelled: true } });
}

function isBudgetRefusal(err: unknown, limit: number): err is EditorError {
  return (
    err instanceof EditorError &&
    err.code === 'out_of_bounds' &&
    (err.details as { limit_bytes?: unknown } | undefined)?.limit_bytes === limit
  );
}

const mib = (bytes: number): string => `${Math.ceil(bytes / (1024 * 1024)).toLocaleString('en-US')} MB`;

/**
 * A refusal by the process's pool, said as such: the session's own budget (which the engine's message names)
 * was not what stood in the way, the other sessions were.
 */
function poolFull(err: EditorError, poolBytes: number, others: number): EditorError {
  const { used_bytes: used = 0, needed_bytes: needed = 0 } = err.details as {
    used_bytes?: number;
    needed_bytes?: number;
  };
  return new EditorError(
    'out_of_bounds',
    `此操作需要约 ${mib(needed)} 像素内存（本会话已用 ${mib(used)}），但服务器上所有会话共用 ${mib(poolBytes)}，其他会话已占用 ${mib(others)}，现在放不下`,
    {
      hint: '稍后再试（其他会话关闭文档或结束后会腾出内存），或关闭本会话不用的文档；服务的管理员可调大 ATELIER_MEMORY_MB',
      details: {
        ...(err.details as Record<string, unknown>),
        server_limit_bytes: poolBytes,
        others_bytes: others,
      },
    },
  );
}

/** Whether the session differs from `before`: a query commits a new editor value holding the same documents. */
function changed(before: SessionState, after: SessionState): boolean {
  if (before.garment !== after.garment || before.garmentPhoto !== after.garmentPhoto) return true;
  const a = before.editor;
  const b = after.editor;
  if (a === b) return false;
  return (
    a.active !== b.active ||
    a.nextDocId !== b.nextDocId ||
    a.docs.length !== b.docs.length ||
    a.docs.some((doc, i) => doc !== b.docs[i])
  );
}

/**
 * The workspace with writes that a cancelled call does not begin, and that mark the call as past cancelling once
 * begun (the file on disk and the document's saved state must then agree).
 */
function cancellableWrites(
  workspace: Workspace,
  signal: AbortSignal | undefined,
  effects: { wrote: boolean },
): Workspace {
  if (!signal) return workspace;
  const guarded = Object.create(workspace) as Workspace;
  const begin = () => {
    if (signal.aborted && !effects.wrote) throw cancelledError();
    effects.wrote = true;
  };
  guarded.writeAtomic = (relPath, data) => {
    begin();
    return workspace.writeAtomic(relPath, data);
  };
  guarded.writeAtomicWith = (relPath, write, opts) => {
    begin();
    return workspace.writeAtomicWith(relPath, write, opts);
  };
  return guarded;
}

/** The workspace as a call sees it, noting every file the call reads (and the bytes it got). */
function recordingReads(workspace: Workspace, reads: FileRead[]): Workspace {
  const recorder = Object.create(workspace) as Workspace;
  recorder.read = async (relPath: string) => {
    const bytes = await workspace.read(relPath);
    reads.push({ path: relPath, bytes });
    return bytes;
  };
  return recorder;
}
