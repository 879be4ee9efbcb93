/**
 * The open documents of one session, as an immutable value, and the transaction a tool call runs in.
 * A call edits a Transaction; only a successful call commits it, so a failing call changes nothing.
 */
import { CompositeCache } from './composite/cache.js';
import { fail } from './errors.js';
import { current, type History, move, push, replaceCurrent, startHistory } from './history.js';
import type { DocState, Loss, Raster, RGB } from './model.js';
import { closest } from './names.js';

export interface DocEntry {
  /** Stable for the life of the document, never reused within a session. */
  readonly id: number;
  readonly name: string;
  /** Workspace-relative path it was opened from or last saved to. */
  readonly path: string | null;
  readonly history: History;
  /** The history state last saved, to tell whether there are unsaved changes. */
  readonly saved: DocState | null;
  /** What the file it was opened from held that the document could not keep (said again by every save). */
  readonly losses?: OpenLosses;
}

/**
 * What a document opened from a file lacks of it, as the open call reported: not part of any history state,
 * since no undo brings it back.
 */
export interface OpenLosses {
  /** The workspace path it was opened from. */
  readonly from: string;
  readonly items: readonly Loss[];
}

export interface EditorState {
  readonly docs: readonly DocEntry[];
  readonly active: number | null;
  readonly nextDocId: number;
}

export const EMPTY_EDITOR: EditorState = { docs: [], active: null, nextDocId: 1 };

const NO_DOCS: ReadonlySet<number> = new Set();

export interface OpenDocument {
  readonly id: number;
  readonly name: string;
  readonly path: string | null;
  readonly state: DocState;
  readonly dirty: boolean;
  readonly losses?: OpenLosses;
}

interface Pending {
  entry: DocEntry;
  /** The state this call produced, or the entry's current state. */
  state: DocState;
  /** History moved directly (undo/redo): no step is pushed. */
  historyMoved: boolean;
  /** The change replaces the current state instead of adding a step. */
  stepless: boolean;
}

export class Transaction {
  private readonly base: EditorState;
  private docs: DocEntry[];
  private active: number | null;
  private nextDocId: number;
  private readonly pending = new Map<number, Pending>();
  private stepless = false;

  constructor(
    base: EditorState,
    private readonly composites: (docId: number) => CompositeCache,
  ) {
    this.base = base;
    this.docs = [...base.docs];
    this.active = base.active;
    this.nextDocId = base.nextDocId;
  }

  private pendingFor(entry: DocEntry): Pending {
    let p = this.pending.get(entry.id);
    if (!p) {
      p = { entry, state: current(entry.history), historyMoved: false, stepless: false };
      this.pending.set(entry.id, p);
    }
    return p;
  }

  private view(entry: DocEntry): OpenDocument {
    const state = this.pending.get(entry.id)?.state ?? current(entry.history);
    return {
      id: entry.id,
      name: entry.name,
      path: entry.path,
      state,
      dirty: state !== entry.saved,
      ...(entry.losses ? { losses: entry.losses } : {}),
    };
  }

  private entry(id: number): DocEntry {
    const e = this.docs.find((d) => d.id === id);
    if (!e) fail('not_found', '文档已关闭');
    return e;
  }

  documents(): OpenDocument[] {
    return this.docs.map((d) => this.view(d));
  }

  /** The active document; `no_document` when none is open. */
  activeDocument(): OpenDocument {
    if (this.active === null) {
      fail('no_document', '当前没有打开的文档', {
        hint: '先调用 create_document 新建文档，或 open_document 打开文件',
      });
    }
    return this.view(this.entry(this.active));
  }

  hasActiveDocument(): boolean {
    return this.active !== null;
  }

  document(name: string): OpenDocument {
    const e = this.docs.find((d) => d.name === name);
    if (!e) {
      const names = this.docs.map((d) => d.name);
      fail('not_found', `没有名为“${name}”的打开文档`, {
        hint: names.length ? '用 list_documents 查看已打开的文档' : '先调用 create_document 或 open_document',
        details: { closest: closest(name, names), open: names },
      });
    }
    return this.view(e);
  }

  /**
   * Sets a document's state for this call; committed as one history step labelled with the tool's label,
   * or, with `step: false`, in place of the current state (e.g. only the active layer changed).
   */
  update(docId: number, state: DocState, opts: { step?: boolean } = {}): void {
    const p = this.pendingFor(this.entry(docId));
    p.state = state;
    p.stepless = opts.step === false;
  }

  /** Moves a document's history (undo/redo); returns how many steps it actually moved. */
  moveHistory(docId: number, delta: number): number {
    const e = this.entry(docId);
    const p = this.pending.get(docId);
    if (p && p.state !== current(e.history)) fail('internal', '撤销前不能有未提交的修改');
    const foreground = current(e.history).foreground;
    let { history, moved } = move(e.history, delta);
    let saved = e.saved;
    const landed = current(history);
    if (!sameRgb(landed.foreground, foreground)) {
      // Photoshop keeps colours out of history: undo and redo leave the foreground as it is.
      const kept = { ...landed, foreground };
      history = replaceCurrent(history, kept);
      if (saved === landed) saved = kept;
    }
    this.replaceEntry({ ...e, history, saved });
    this.pending.set(docId, {
      entry: this.entry(docId),
      state: current(history),
      historyMoved: true,
      stepless: false,
    });
    return moved;
  }

  /** This call's changes replace the current state instead of adding a step (layer selection is not history). */
  skipHistoryStep(): void {
    this.stepless = true;
  }

  historyOf(docId: number): History {
    return this.entry(docId).history;
  }

  addDocument(
    name: string,
    state: DocState,
    label: string,
    path: string | null = null,
    lossItems: readonly Loss[] = [],
  ): OpenDocument {
    if (this.docs.some((d) => d.name === name)) fail('conflict', `已有名为“${name}”的打开文档`);
    const entry: DocEntry = {
      id: this.nextDocId++,
      name,
      path,
      history: startHistory(state, label),
      saved: path === null ? null : state,
      ...(path !== null && lossItems.length > 0 ? { losses: { from: path, items: [...lossItems] } } : {}),
    };
    this.docs.push(entry);
    this.active = entry.id;
    return this.view(entry);
  }

  closeDocument(docId: number): void {
    this.entry(docId);
    this.docs = this.docs.filter((d) => d.id !== docId);
    this.pending.delete(docId);
    if (this.active === docId) this.active = this.docs.at(-1)?.id ?? null;
  }

  setActive(docId: number): void {
    this.entry(docId);
    this.active = docId;
  }

  /** Records that the document's current state is what is on disk at `path`. */
  markSaved(docId: number, path: string): void {
    const e = this.entry(docId);
    this.replaceEntry({ ...e, path, saved: this.view(e).state });
  }

  /** The document's composite, immutable: it may be kept or put into a layer. */
  composite(docId: number): Raster {
    return this.composites(docId).render(this.view(this.entry(docId)).state);
  }

  /**
   * The document's composite for reading within this call only (saving, sampling, measuring): it is updated
   * in place by later renders, which spares a canvas-sized copy on large documents.
   */
  peekComposite(docId: number): Raster {
    return this.composites(docId).peek(this.view(this.entry(docId)).state);
  }

  private replaceEntry(next: DocEntry): void {
    this.docs = this.docs.map((d) => (d.id === next.id ? next : d));
    const p = this.pending.get(next.id);
    if (p) p.entry = next;
  }

  /**
   * The editor state after this call. A document whose state changed gets one step labelled `label`,
   * unless `asStep` is false (queries and selection changes replace the current state instead). A document in
   * `join` has its change joined to its current step instead (one gesture made of several calls, e.g. a property
   * set on several selected layers, which Photoshop records as one step): the step keeps its label, and the
   * change still counts as unsaved.
   */
  commit(label: string, asStep: boolean, join: ReadonlySet<number> = NO_DOCS): EditorState {
    if (this.stepless) asStep = false;
    const docs = this.docs.map((d) => {
      const p = this.pending.get(d.id);
      if (!p || p.historyMoved || p.state === current(d.history)) return d;
      const step = asStep && !p.stepless;
      if (step && join.has(d.id)) return { ...d, history: replaceCurrent(d.history, p.state) };
      const saved = d.saved === current(d.history) && !step ? p.state : d.saved;
      return {
        ...d,
        history: step ? push(d.history, p.state, label) : replaceCurrent(d.history, p.state),
        saved,
      };
    });
    return { docs, active: this.active, nextDocId: this.nextDocId };
  }

  get baseState(): EditorState {
    return this.base;
  }
}

/** The session's documents; one transaction at a time. */
export class Editor {
  private state: EditorState = EMPTY_EDITOR;
  private readonly caches = new Map<number, CompositeCache>();

  private cacheFor = (docId: number): CompositeCache => {
    let c = this.caches.get(docId);
    if (!c) {
      c = new CompositeCache();
      this.caches.set(docId, c);
    }
    return c;
  };

  get snapshot(): EditorState {
    return this.state;
  }

  /** The composites the documents' caches keep (pixel memory beside the documents' own). */
  composites(): Raster[] {
    return [...this.caches.values()].flatMap((c) => (c.held ? [c.held] : []));
  }

  begin(): Transaction {
    return new Transaction(this.state, this.cacheFor);
  }

  commit(tx: Transaction, label: string, asStep: boolean, join?: ReadonlySet<number>): void {
    if (tx.baseState !== this.state) fail('internal', '并发事务');
    this.state = tx.commit(label, asStep, join);
    this.dropClosedCaches();
  }

  /**
   * Puts the editor back to `state` (a recovered snapshot, or the state before a change that could not be
   * journaled). States are immutable values, so replacing it whole is safe; the composite caches re-render what
   * differs from their last state.
   */
  restore(state: EditorState): void {
    this.state = state;
    this.dropClosedCaches();
  }

  private dropClosedCaches(): void {
    for (const id of this.caches.keys()) {
      if (!this.state.docs.some((d) => d.id === id)) this.caches.delete(id);
    }
  }
}

function sameRgb(a: RGB, b: RGB): boolean {
  return a.r === b.r && a.g === b.g && a.b === b.b;
}
