/**
 * A session's journal: what makes a session survive its process (kill -9, crash, a move to another process).
 *
 * Layout of `<workspace>/journals/<id>/` (beside the session's files in `<workspace>/sessions/<id>/`, out of
 * reach of every tool path, so no call can read or overwrite its own journal):
 *
 *   meta.json               the session's kind and creation time; its presence is what makes the id recoverable
 *   lock                    which process serves the session (session-lock.ts)
 *   journal-<seq>.jsonl     segments of journaled changes, one JSON line each, the first with sequence `seq`
 *   snapshot-<seq>.json     the whole session state after change `seq` (state-codec.ts), history included
 *   buffers/<name>          the snapshot's pixel buffers, one file each, shared between successive snapshots
 *   files/<sha256>          the bytes of every workspace file a journaled call read
 *
 * Durability: a call that changed the session is journaled — its line written and fdatasync'ed, and the
 * bytes of every file it read stored by content hash — before its result is returned. A call that failed or
 * changed nothing (a query) is not journaled: replaying it would change nothing. The state after the last
 * returned result is therefore always recoverable; a line torn by a crash mid-write belongs to a call whose
 * result was never returned, and is ignored.
 *
 * Bounded recovery: replaying costs about what the calls cost, so a snapshot is written (in the background,
 * from the immutable state the call left) after `SNAPSHOT_EVERY_CALLS` journaled calls or
 * `SNAPSHOT_EVERY_MS` of their running time, whichever comes first. Saved PSDs would not do: they lose the
 * history, the layer selection and the garment memory that later calls depend on; the snapshot is the engine's
 * own state, written with its sharing. Recovery = newest snapshot + replay of the lines after it, so it costs at
 * most one snapshot load and about `SNAPSHOT_EVERY_MS` of calls. Once a snapshot is durable, the segments,
 * buffers and file copies it makes unnecessary are removed.
 *
 * Disk: the journal counts in the session's disk quota with its files (session-workspace.ts). A call whose file
 * copies would take the session past it is undone with the quota's refusal; a snapshot that would is not written
 * (the lines it would have covered stay to replay, so recovery is as exact, only longer), and is tried again
 * when the next one is due or when a file is removed (`compact`). The lines themselves, a few hundred bytes a
 * call, are always written: a session at its quota can still close documents, undo and remove files.
 *
 * A call whose outcome came from outside the process (a vision model's answer to identify_pieces) cannot be
 * replayed to the same state; the journal writes a snapshot after it, before its result is returned.
 *
 * Replay reads, for each call, the bytes that call read when it ran (`files/<sha256>`), not the workspace as
 * it is now: a file overwritten after `open_document` (by a later save or an upload) does not change the
 * recovered document. Replay writes nothing to the workspace: the files the calls saved are already there.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import {
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import { Session, type SessionChange, SessionDeletedError, type SessionState } from '../calls/session.js';
import { EditorError } from '../engine/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tempPathFor, Workspace } from '../engine/workspace.js';
import { EMPTY_GARMENT_MEMORY, type GarmentAnalysis, type GarmentMemory } from '../garment/types.js';
import { SessionLock } from './session-lock.js';
import { type DiskUse, type SessionWorkspace, sessionDiskFull } from './session-workspace.js';
import { BufferNames, decodeState, encodeState } from './state-codec.js';

export const SNAPSHOT_EVERY_CALLS = 32;
export const SNAPSHOT_EVERY_MS = 20_000;

const META = 'meta.json';
const SEGMENT = /^journal-(\d+)\.jsonl$/;
const SNAPSHOT = /^snapshot-(\d+)\.json$/;
const SNAPSHOT_VERSION = 1;

export interface JournalMeta {
  readonly kind: string;
  readonly createdAt: number;
}

type Entry =
  | {
      seq: number;
      t: 'call';
      call: unknown;
      files: { path: string; sha256: string }[];
      ms: number;
      /** The gesture the call was part of (CallOptions.gesture): replayed in it, it joins the same step. */
      gesture?: string;
    }
  | { seq: number; t: 'garment_photo'; path: string | null };

export interface Recovered {
  readonly journal: SessionJournal;
  readonly meta: JournalMeta;
  readonly state: SessionState | null;
  /** The snapshot the state started from (its sequence number), or null when replay started from nothing. */
  readonly snapshot: number | null;
  readonly replayed: number;
  /** Lines that could not be used: a torn last line, or anything after a damaged one. */
  readonly ignored: number;
}

function fsyncDir(dir: string): void {
  // Makes the creation or renaming of files in `dir` durable (Linux; a no-op error elsewhere).
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Directories cannot be opened for sync on some platforms.
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Does `dir` hold a session's journal (so its id is recoverable)? */
export async function hasJournal(dir: string): Promise<boolean> {
  return stat(path.join(dir, META)).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The workspace a replayed call sees: the bytes its original run read, and writes that go nowhere. */
class ReplayWorkspace extends Workspace {
  files = new Map<string, string>();

  constructor(
    root: string,
    private readonly journalDir: string,
  ) {
    super(root, { private: true });
  }

  override async read(relPath: string): Promise<Buffer> {
    this.resolve(relPath);
    const sha = this.files.get(relPath);
    if (!sha) throw new EditorError('not_found', `重放时找不到“${relPath}”当时的内容`);
    return readFile(path.join(this.journalDir, 'files', sha));
  }

  override async writeAtomic(relPath: string): Promise<void> {
    this.resolve(relPath);
  }

  /**
   * A streamed write (a PSD) goes to a file unlinked as soon as it is open, not to the workspace: the file the
   * call saved may have been replaced since. (Not the null device: the PSD writer truncates its file.)
   */
  override async writeAtomicWith<T>(relPath: string, write: (handle: FileHandle) => Promise<T>): Promise<T> {
    this.resolve(relPath);
    const scratch = tempPathFor(path.join(this.journalDir, 'replayed-write'));
    const nowhere = await open(scratch, 'wx+', PRIVATE_FILE_MODE);
    try {
      await unlink(scratch);
      return await write(nowhere);
    } finally {
      await nowhere.close();
    }
  }
}

export class SessionJournal {
  private seq: number;
  private segment: FileHandle | null = null;
  /** Bytes of the open segment that hold whole, synced lines: where a failed append is cut back to. */
  private segmentBytes = 0;
  private segmentFirst: number;
  private sinceSnapshot = { calls: 0, ms: 0 };
  private snapshotted: number | null;
  private snapshotting: Promise<void> | null = null;
  /** Content hashes of the files read by the lines after the last snapshot (still needed for replay). */
  private readonly pendingFiles: { seq: number; sha: string }[] = [];
  private closed = false;
  /** A failed write could not be undone on disk: nothing more is journaled (every later change is refused). */
  private damaged = false;
  /** The garment analysis after the last journaled change (to tell when a call made a new one). */
  private lastAnalysis: GarmentAnalysis | null = null;

  private constructor(
    readonly dir: string,
    private readonly lock: SessionLock,
    private readonly log: (line: string) => void,
    lastSeq: number,
    snapshotted: number | null,
    private readonly names = new BufferNames(randomBytes(4).toString('hex')),
    /** The session's disk, whose quota the journal's copies and snapshots count in. */
    private readonly disk?: SessionWorkspace,
  ) {
    this.seq = lastSeq;
    this.segmentFirst = lastSeq + 1;
    this.snapshotted = snapshotted;
  }

  /** Starts the journal of a new session (its folder must not exist yet). */
  static async create(
    dir: string,
    meta: JournalMeta,
    log: (line: string) => void,
    disk?: SessionWorkspace,
  ): Promise<SessionJournal> {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const lock = await SessionLock.acquire(dir);
    await writeDurably(dir, META, Buffer.from(JSON.stringify(meta)));
    fsyncDir(dir);
    fsyncDir(path.dirname(dir));
    return new SessionJournal(dir, lock, log, 0, null, undefined, disk);
  }

  /**
   * Takes the session over (its lock) and rebuilds its state: the newest snapshot, then the journal lines after
   * it replayed on a scratch session reading the bytes each call read. `SessionHeldElsewhere` when a live
   * process serves it.
   */
  static async recover(
    dir: string,
    sessionRoot: string,
    log: (line: string) => void,
    disk?: SessionWorkspace,
  ): Promise<Recovered> {
    const lock = await SessionLock.acquire(dir);
    try {
      const meta = JSON.parse(await readFile(path.join(dir, META), 'utf8')) as JournalMeta;
      const names = await readdir(dir);
      const snapshots = names
        .map((n) => SNAPSHOT.exec(n))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => Number(m[1]))
        .sort((a, b) => b - a);
      let state: SessionState | null = null;
      let from: number | null = null;
      const journalNames = new BufferNames(randomBytes(4).toString('hex'));
      for (const seq of snapshots) {
        try {
          state = await readSnapshot(dir, seq, journalNames);
          from = seq;
          break;
        } catch (err) {
          log(`atelier: snapshot ${seq} of ${path.basename(dir).slice(0, 8)}… unreadable: ${String(err)}`);
        }
      }
      const { entries, ignored, cuts } = await readEntries(dir, from ?? 0);
      let last = from ?? 0;
      let replayedMs = 0;
      const pendingFiles: { seq: number; sha: string }[] = [];
      if (entries.length) {
        const workspace = new ReplayWorkspace(sessionRoot, dir);
        const scratch = new Session({
          workspace,
          onInternalError: (err) => log(`atelier: replay: ${err instanceof Error ? err.stack : String(err)}`),
        });
        if (state) scratch.restore(state);
        for (const entry of entries) {
          if (entry.t === 'call') {
            workspace.files = new Map(entry.files.map((f) => [f.path, f.sha256]));
            const result = await scratch.call(
              entry.call,
              entry.gesture !== undefined ? { gesture: entry.gesture } : {},
            );
            if (!result.ok) {
              log(
                `atelier: replay of line ${entry.seq} did not succeed again: ${JSON.stringify(result.error)}`,
              );
            }
            for (const f of entry.files) pendingFiles.push({ seq: entry.seq, sha: f.sha256 });
            replayedMs += entry.ms;
          } else {
            await scratch.setGarmentPhoto(entry.path, { replay: true });
          }
          last = entry.seq;
        }
        state = scratch.state;
      }
      await cutDamage(dir, cuts);
      const journal = new SessionJournal(dir, lock, log, last, from, journalNames, disk);
      journal.pendingFiles.push(...pendingFiles);
      journal.lastAnalysis = state?.garment.analysis ?? null;
      journal.sinceSnapshot = { calls: entries.length, ms: replayedMs };
      if (state && entries.length) journal.maybeSnapshot(state, true);
      return { journal, meta, state, snapshot: from, replayed: entries.length, ignored };
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  /**
   * Journals one change (Session's `onChange`): durable when this resolves. `SessionDeletedError` when the
   * session was deleted before the change was recorded: its journal's folder was moved away to be removed (the
   * store does that as soon as it is asked, while the session's thread may still be running the call), so the
   * change has nowhere to go and nobody to come back for it. Any other failure is the journal's own (a disk
   * full or failing, another process having taken the session over).
   */
  async record(change: SessionChange): Promise<void> {
    try {
      await this.write(change);
    } catch (err) {
      if (this.removed()) throw new SessionDeletedError();
      throw err;
    }
    // Moved away while the line was written into the open segment: the line went with the deleted journal.
    if (this.removed()) throw new SessionDeletedError();
  }

  /**
   * Whether the journal's folder is gone (the session deleted), as opposed to unreadable: its `meta.json`, which
   * is there from the journal's creation on, no longer is.
   */
  private removed(): boolean {
    try {
      statSync(path.join(this.dir, META));
      return false;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR';
    }
  }

  private async write(change: SessionChange): Promise<void> {
    if (this.closed) throw new Error('journal closed');
    if (this.damaged) throw new Error('journal damaged by a failed write');
    if (!this.lock.owns()) {
      this.closed = true;
      throw new Error('another process has taken this session over');
    }
    const seq = this.seq + 1;
    let entry: Entry;
    if (change.kind === 'call') {
      const files: { path: string; sha256: string }[] = [];
      const copies = new Map<string, { path: string; bytes: Uint8Array }>();
      for (const read of change.reads) {
        const sha = sha256(read.bytes);
        files.push({ path: read.path, sha256: sha });
        if (!copies.has(sha) && !(await this.hasFile(sha))) copies.set(sha, read);
      }
      const copied = [...copies.values()];
      // Refused before any byte is written: the call is undone, and the journal is as it was.
      await this.disk?.checkJournalWrite(
        copied.reduce((n, c) => n + c.bytes.byteLength, 0),
        (use, quota) => copyRefused(copied, use, quota),
      );
      for (const [sha, read] of copies) await this.keepFile(sha, read.bytes);
      entry = {
        seq,
        t: 'call',
        call: change.call,
        files,
        ms: Math.round(change.ms),
        ...(change.gesture !== undefined ? { gesture: change.gesture } : {}),
      };
    } else {
      entry = { seq, t: 'garment_photo', path: change.path };
    }
    await this.append(`${JSON.stringify(entry)}\n`);
    this.seq = seq;
    if (entry.t === 'call') {
      for (const f of entry.files) this.pendingFiles.push({ seq, sha: f.sha256 });
      this.sinceSnapshot.ms += entry.ms;
    }
    this.sinceSnapshot.calls++;
    const analysis = change.state.garment.analysis;
    if (analysis !== this.lastAnalysis && analysis && analysis.provider !== 'builtin') {
      // The parts came from a vision model: asked again on replay, it may answer otherwise (or not at all).
      // Such a call is not left to replay: a snapshot covers it before its result is returned.
      await this.settled();
      this.maybeSnapshot(change.state, true);
      await this.settled();
    } else {
      this.maybeSnapshot(change.state, false);
    }
    this.lastAnalysis = analysis;
  }

  /** Keeps the lock alive (the store calls this every `LOCK_HEARTBEAT_MS`). */
  heartbeat(): Promise<void> {
    return this.lock.heartbeat();
  }

  /**
   * Stops journaling: waits for a snapshot in progress, writes a final one when `snapshot` is given and lines
   * were journaled since the last (so the next recovery replays nothing), and gives the lock up.
   */
  async close(finalState?: SessionState): Promise<void> {
    if (this.closed) return;
    try {
      if (finalState && this.sinceSnapshot.calls > 0) this.maybeSnapshot(finalState, true);
      await this.snapshotting;
    } finally {
      this.closed = true;
      await this.segment?.close().catch(() => undefined);
      this.segment = null;
      this.lock.release();
    }
  }

  /** Closes without waiting for anything (process shutdown): the journal on disk is already complete. */
  abandon(): void {
    this.closed = true;
    this.segment?.close().catch(() => undefined);
    this.lock.release();
  }

  /** Removes the session's journal for good (the session was deleted). */
  static destroy(dir: string): Promise<void> {
    // Renamed first, in one step, so that no recovery can start on a half-removed folder.
    const doomed = path.join(
      path.dirname(dir),
      `.deleted-${path.basename(dir)}-${randomBytes(4).toString('hex')}`,
    );
    try {
      renameSync(dir, doomed);
    } catch {
      return Promise.resolve();
    }
    return rm(doomed, { recursive: true, force: true });
  }

  private hasFile(sha: string): Promise<boolean> {
    return stat(path.join(this.dir, 'files', sha)).then(
      () => true,
      () => false,
    );
  }

  private async keepFile(sha: string, bytes: Uint8Array): Promise<void> {
    if (await this.hasFile(sha)) return;
    const dir = path.join(this.dir, 'files');
    await mkdirIn(dir);
    await writeDurably(dir, sha, bytes);
  }

  /**
   * Writes a snapshot now when changes were journaled since the last one (waiting for one in progress), so that
   * what it makes unnecessary goes: the copies of files read since, the pixels of documents closed since. After
   * a file was removed to make room, the journal gives back what it held too. Only between calls (`state` is the
   * session's after the last journaled change).
   */
  async compact(state: SessionState): Promise<void> {
    if (this.closed || this.damaged) return;
    await this.settled();
    if (this.seq === 0 || this.snapshotted === this.seq) return;
    this.maybeSnapshot(state, true);
    await this.settled();
  }

  private async append(line: string): Promise<void> {
    if (!this.segment) {
      this.segment = await open(
        path.join(this.dir, `journal-${this.segmentFirst}.jsonl`),
        'a',
        PRIVATE_FILE_MODE,
      );
      this.segmentBytes = (await this.segment.stat()).size;
      fsyncDir(this.dir);
    }
    const segment = this.segment;
    const bytes = Buffer.from(line);
    try {
      // A full disk writes part of the line and says so only by the count; the next write then fails.
      for (let at = 0; at < bytes.length; ) at += (await segment.write(bytes, at)).bytesWritten;
      await segment.datasync();
    } catch (err) {
      // The call is undone, so its line must go: left half-written, the next line would be glued to it (and
      // recovery would stop there, losing every later call); left whole but unsynced, it would be replayed
      // though its result said undone, and the next call's line (the same number) skipped.
      try {
        await segment.truncate(this.segmentBytes);
        await segment.datasync();
      } catch {
        // What is on disk is no longer known: journaling anything more could make it lie.
        this.damaged = true;
        this.log(
          `atelier: journal of ${path.basename(this.dir).slice(0, 8)}… could not be cut back after a failed write; later changes are refused`,
        );
      }
      throw err;
    }
    this.segmentBytes += bytes.length;
  }

  private maybeSnapshot(state: SessionState, force: boolean): void {
    if (this.snapshotting) return;
    const due =
      this.sinceSnapshot.calls >= SNAPSHOT_EVERY_CALLS || this.sinceSnapshot.ms >= SNAPSHOT_EVERY_MS;
    if (!force && !due) return;
    const seq = this.seq;
    // Later lines go to a new segment, so every segment before it is covered by this snapshot once it is written.
    const old = this.segment;
    this.segment = null;
    this.segmentFirst = seq + 1;
    this.sinceSnapshot = { calls: 0, ms: 0 };
    this.snapshotting = (async () => {
      await old?.close();
      await this.writeSnapshot(seq, state);
    })()
      .catch((err) => {
        // A deleted session's snapshot has nowhere to go, and is not wanted.
        if (this.removed()) return;
        this.log(`atelier: snapshot of ${path.basename(this.dir).slice(0, 8)}… failed: ${String(err)}`);
      })
      .finally(() => {
        this.snapshotting = null;
      });
  }

  private async writeSnapshot(seq: number, state: SessionState): Promise<void> {
    const root = {
      editor: state.editor,
      garmentPhoto: state.garmentPhoto,
      // The empty memory is one shared value that tools compare by identity.
      garment: state.garment === EMPTY_GARMENT_MEMORY ? null : state.garment,
    };
    const encoded = encodeState(root, this.names);
    // Nothing is written when the snapshot would take the session past its disk quota.
    const bytes = encoded.fresh.reduce((n, b) => n + b.bytes.byteLength, Buffer.byteLength(encoded.json));
    await this.disk?.checkJournalWrite(bytes, (use, quota) =>
      sessionDiskFull(
        '会话的快照',
        bytes,
        use,
        quota,
        '快照没有写入，会话仍可从之前的快照和其后的调用记录恢复',
      ),
    );
    const buffers = path.join(this.dir, 'buffers');
    await mkdirIn(buffers);
    for (const b of encoded.fresh) await writeDurably(buffers, b.name, b.bytes);
    fsyncDir(buffers);
    const header = JSON.stringify({ version: SNAPSHOT_VERSION, seq });
    await writeDurably(this.dir, `snapshot-${seq}.json`, Buffer.from(`${header}\n${encoded.json}`));
    fsyncDir(this.dir);
    for (const [buffer, ref] of encoded.refs) this.names.persisted(buffer, ref.name);
    this.snapshotted = seq;
    await this.prune(seq, new Set([...encoded.refs.values()].map((r) => r.name)));
  }

  /** Removes what the snapshot `seq` makes unnecessary: older snapshots and segments, unused buffers and files. */
  private async prune(seq: number, keepBuffers: Set<string>): Promise<void> {
    for (const name of await readdir(this.dir)) {
      const snap = SNAPSHOT.exec(name);
      const seg = SEGMENT.exec(name);
      if ((snap && Number(snap[1]) < seq) || (seg && Number(seg[1]) <= seq)) {
        await unlink(path.join(this.dir, name)).catch(() => undefined);
      }
    }
    const buffers = path.join(this.dir, 'buffers');
    for (const name of await readdir(buffers).catch(() => [] as string[])) {
      if (!keepBuffers.has(name)) {
        this.names.forget(name);
        await unlink(path.join(buffers, name)).catch(() => undefined);
      }
    }
    while (this.pendingFiles.length && this.pendingFiles[0]!.seq <= seq) this.pendingFiles.shift();
    const needed = new Set(this.pendingFiles.map((f) => f.sha));
    const files = path.join(this.dir, 'files');
    for (const name of await readdir(files).catch(() => [] as string[])) {
      if (!needed.has(name)) await unlink(path.join(files, name)).catch(() => undefined);
    }
  }

  /** For tests and logs: the last journaled sequence number and the newest durable snapshot. */
  get position(): { seq: number; snapshot: number | null } {
    return { seq: this.seq, snapshot: this.snapshotted };
  }

  /** Resolves when no snapshot is being written. */
  async settled(): Promise<void> {
    await this.snapshotting;
  }
}

/** A call's copies of the files it read refused for the session's disk quota. */
function copyRefused(
  copies: readonly { path: string; bytes: Uint8Array }[],
  use: DiskUse,
  quota: number,
): EditorError {
  const names = copies.map((c) => `“${c.path}”`).join('、');
  const bytes = copies.reduce((n, c) => n + c.bytes.byteLength, 0);
  return sessionDiskFull(
    `另存一份读取的文件${names}（用于在服务重启后恢复会话）`,
    bytes,
    use,
    quota,
    '调用已撤销，会话保持原样',
  );
}

/**
 * Makes the folder `dir` in a journal's folder, which must be there: a journal moved away to be removed (its
 * session deleted) is not brought back by a write still under way.
 */
async function mkdirIn(dir: string): Promise<void> {
  await mkdir(dir, { mode: PRIVATE_DIR_MODE }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
}

/** Writes `name` in `dir` through a temp file (the atomic-write naming, so start-up removes orphans). */
async function writeDurably(dir: string, name: string, bytes: Uint8Array): Promise<void> {
  const tmp = tempPathFor(path.join(dir, name));
  const handle = await open(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  renameSync(tmp, path.join(dir, name));
}

async function readSnapshot(dir: string, seq: number, names: BufferNames): Promise<SessionState> {
  const text = await readFile(path.join(dir, `snapshot-${seq}.json`), 'utf8');
  const newline = text.indexOf('\n');
  const header = JSON.parse(text.slice(0, newline)) as { version: number; seq: number };
  if (header.version !== SNAPSHOT_VERSION || header.seq !== seq) throw new Error('unknown snapshot format');
  const root = decodeState(
    text.slice(newline + 1),
    (ref) => readFileSync(path.join(dir, 'buffers', ref.name)),
    names,
  ) as { editor: SessionState['editor']; garmentPhoto: string | null; garment: GarmentMemory | null };
  return {
    editor: root.editor,
    garmentPhoto: root.garmentPhoto,
    garment: root.garment ?? EMPTY_GARMENT_MEMORY,
  };
}

/** How much of a segment to keep after recovery (`bytes`), or null to remove it (all of it after a break). */
interface Cut {
  readonly name: string;
  readonly bytes: number | null;
}

/**
 * The journal lines after `after`, in order. A segment's last line without its newline (or that does not
 * parse) was torn by a crash: ignored. A damaged line before the end, or a gap in the sequence, ends the
 * replay there: what follows was built on a change that cannot be reproduced. `cuts` say how to trim the
 * segments to what was used, so that new lines never follow a torn one.
 */
async function readEntries(
  dir: string,
  after: number,
): Promise<{ entries: Entry[]; ignored: number; cuts: Cut[] }> {
  const segments = (await readdir(dir))
    .map((n) => SEGMENT.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[0], first: Number(m[1]) }))
    .sort((a, b) => a.first - b.first);
  const entries: Entry[] = [];
  const cuts: Cut[] = [];
  let ignored = 0;
  let next = after + 1;
  let broken = false;
  for (const segment of segments) {
    const text = await readFile(path.join(dir, segment.name), 'utf8');
    if (broken) {
      ignored += text.split('\n').filter((l) => l !== '').length;
      cuts.push({ name: segment.name, bytes: null });
      continue;
    }
    const lines = text.split('\n');
    const tail = lines.pop()!;
    let kept = 0;
    for (const line of lines) {
      if (broken) {
        ignored++;
        continue;
      }
      let entry: Entry | null = null;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        entry = null;
      }
      if (!entry || (entry.seq >= next && entry.seq !== next)) {
        broken = true;
        ignored++;
        continue;
      }
      kept += Buffer.byteLength(line) + 1;
      if (entry.seq < next) continue;
      entries.push(entry);
      next++;
    }
    if (tail !== '') ignored++;
    if (broken || tail !== '') cuts.push({ name: segment.name, bytes: kept });
  }
  return { entries, ignored, cuts };
}

async function cutDamage(dir: string, cuts: readonly Cut[]): Promise<void> {
  for (const cut of cuts) {
    const file = path.join(dir, cut.name);
    if (cut.bytes === null || cut.bytes === 0) await unlink(file).catch(() => undefined);
    else await truncate(file, cut.bytes);
  }
  if (cuts.length) fsyncDir(dir);
}
