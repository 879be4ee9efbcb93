/**
 * A session with its journal, as the thread that runs it holds them: the session's calls are journaled by the
 * journal that this thread owns (its lock, its segment file, its snapshots), so a session and its journal
 * always live on the same thread. Used by the session worker (session-worker.ts) and by a store that runs its
 * sessions inline (tests).
 */
import { constants } from 'node:fs';
import { lstat, open, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { PoolShare } from '../calls/memory-pool.js';
import { Session } from '../calls/session.js';
import { EditorError } from '../engine/errors.js';
import { isAtomicTemp, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../engine/workspace.js';
import { SessionJournal } from './journal.js';
import { SessionWorkspace } from './session-workspace.js';

export interface HostOptions {
  readonly id: string;
  readonly kind: string;
  readonly createdAt: number;
  /** The session's workspace folder. */
  readonly dir: string;
  /** The session's journal folder. */
  readonly journalDir: string;
  readonly memoryBudgetBytes?: number;
  /** The session's part of the process's pixel memory (shared memory: the same counters on every thread). */
  readonly memoryShare?: PoolShare;
  /**
   * Bytes the session may keep on disk: the files of its folder (uploads, saves, exports) and its journal
   * together; unlimited when unset.
   */
  readonly diskQuotaBytes?: number;
}

/**
 * The session's folder as the service opens it, on any thread: private to the user the server runs as (other
 * users of a shared machine cannot read designers' files), within the session's disk quota, which its journal
 * counts in.
 */
export function sessionWorkspace(
  opts: Pick<HostOptions, 'dir' | 'journalDir' | 'diskQuotaBytes'>,
): SessionWorkspace {
  return new SessionWorkspace(opts.dir, opts.journalDir, opts.diskQuotaBytes);
}

export interface HostedSession {
  readonly session: Session;
  /** The session's journal, once its folder and lock are in place (a call waits for it before it returns). */
  readonly journal: Promise<SessionJournal>;
}

export interface RecoveredSession {
  readonly hosted: HostedSession;
  readonly kind: string;
  readonly createdAt: number;
  /** The line the store logs: where the state came from and what it cost. */
  readonly report: string;
}

export type CloseReason = 'idle' | 'deleted' | 'shutdown';

function sessionOf(
  opts: HostOptions,
  workspace: SessionWorkspace,
  journal: Promise<SessionJournal>,
  log: (line: string) => void,
): Session {
  return new Session({
    workspace,
    memoryBudgetBytes: opts.memoryBudgetBytes,
    ...(opts.memoryShare ? { memoryShare: opts.memoryShare } : {}),
    onInternalError: (err) =>
      log(
        `atelier: session ${opts.id.slice(0, 8)}…: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      ),
    onChange: async (change) => (await journal).record(change),
  });
}

/** A new session, its journal started (a journal that cannot start fails the first change, and is logged). */
export function hostNew(opts: HostOptions, log: (line: string) => void): HostedSession {
  const workspace = sessionWorkspace(opts);
  const journal = SessionJournal.create(
    opts.journalDir,
    { kind: opts.kind, createdAt: opts.createdAt },
    log,
    workspace,
  );
  journal.catch((err) => log(`atelier: session ${opts.id.slice(0, 8)}…: no journal: ${String(err)}`));
  return { session: sessionOf(opts, workspace, journal, log), journal };
}

/**
 * Sets `abs` to `mode` when it gives other users more (a folder or file the service made before it made them
 * private). A link is never followed: the path is opened without following one, and changed through the
 * descriptor; anything else (a link, a socket, gone) is left alone.
 */
async function makePrivate(abs: string, folder: boolean): Promise<void> {
  const flags =
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (folder ? constants.O_DIRECTORY : 0);
  const handle = await open(abs, flags).catch(() => null);
  if (!handle) return;
  try {
    const info = await handle.stat();
    const mode = folder ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    if ((folder ? info.isDirectory() : info.isFile()) && (info.mode & 0o077) !== 0) await handle.chmod(mode);
  } catch {
    // Left as it was: the session works the same, and the next opening tries again.
  } finally {
    await handle.close();
  }
}

/**
 * Makes private what a session created before the service's folders and files were (0755, 0644) still leaves
 * readable to other users of the machine: everything in its folder (its files, its chat record `chat.jsonl`
 * and the images kept beside it in `chat-images/`) and in its journal's. Links are not followed; only what
 * gives others any access is changed.
 */
export async function tightenSession(dir: string, journalDir: string): Promise<void> {
  const visit = async (folder: string): Promise<void> => {
    await makePrivate(folder, true);
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const abs = path.join(folder, entry.name);
      if (entry.isDirectory()) await visit(abs);
      else if (entry.isFile() && ((await lstat(abs).catch(() => null))?.mode ?? 0) & 0o077) {
        await makePrivate(abs, false);
      }
    }
  };
  await Promise.all([visit(dir), visit(journalDir)]);
}

/** The session its journal describes, rebuilt (its lock taken); `SessionHeldElsewhere` when another process serves it. */
export async function hostRecovered(
  opts: Omit<HostOptions, 'kind' | 'createdAt'>,
  log: (line: string) => void,
): Promise<RecoveredSession> {
  const started = Date.now();
  await tightenSession(opts.dir, opts.journalDir);
  const workspace = sessionWorkspace(opts);
  const recovered = await SessionJournal.recover(opts.journalDir, opts.dir, log, workspace);
  const kind = recovered.meta.kind === 'mcp' ? 'mcp' : 'http';
  const full = { ...opts, kind, createdAt: recovered.meta.createdAt };
  const hosted = {
    session: sessionOf(full, workspace, Promise.resolve(recovered.journal), log),
    journal: Promise.resolve(recovered.journal),
  };
  if (recovered.state) hosted.session.restore(recovered.state);
  const report = `atelier: session ${opts.id.slice(0, 8)}… recovered in ${Date.now() - started} ms (snapshot ${recovered.snapshot ?? 'none'}, ${recovered.replayed} call(s) replayed${recovered.ignored ? `, ${recovered.ignored} damaged line(s) ignored` : ''})`;
  return { hosted, kind, createdAt: recovered.meta.createdAt, report };
}

/**
 * Closes the session's journal: a final snapshot when it idled out (so its next recovery replays nothing), its
 * lock given up; a deleted session's journal is removed for good.
 */
export async function closeHosted(
  hosted: HostedSession,
  why: CloseReason,
  journalDir: string,
): Promise<void> {
  // A call still running on a deleted session is cancelled: its result must not say it will come back.
  if (why === 'deleted') hosted.session.discard();
  const state = hosted.session.state;
  hosted.session.releaseMemory();
  await hosted.journal.then(
    async (journal) => {
      if (why === 'idle') await journal.close(state);
      else journal.abandon();
    },
    () => undefined,
  );
  if (why === 'deleted') await SessionJournal.destroy(path.resolve(journalDir));
}

/**
 * Resolves once no call of the (closed) session runs any more: the one running when it was deleted has ended
 * (it changes nothing: its session was discarded) and those queued behind it were answered without running.
 * From then on nothing writes into the session's folder.
 */
export function callsEnded(hosted: HostedSession): Promise<void> {
  return hosted.session
    .inspect(() => undefined)
    .then(
      () => undefined,
      () => undefined,
    );
}

/**
 * Removes the file `relPath` of the session's folder, between two calls (none runs meanwhile, so none can open
 * it half-way), unless an open document was opened from or saved to it, or it is the garment photo the garment
 * tools read: `conflict` naming them. `invalid_arguments` for a path outside the folder or a folder, `not_found`
 * for no such file. Then the journal is compacted (`compact`: the copies of files read before and the pixels of
 * documents closed go), so the room comes back at once.
 */
export async function removeFile(hosted: HostedSession, relPath: string): Promise<void> {
  const { session } = hosted;
  const workspace = session.workspace;
  await session.inspect(async (tx) => {
    const abs = workspace.resolve(relPath);
    const shown = workspace.relative(abs);
    const info = await lstat(abs).catch(() => null);
    // Temp files of writes in progress are no one's files, nor are links (listings leave both out).
    if (!info || isAtomicTemp(abs) || !(info.isFile() || info.isDirectory())) {
      throw new EditorError('not_found', `会话里没有文件“${relPath}”`, {
        hint: '文件列表（GET /v1/sessions/<id>/files）列出会话里的文件',
      });
    }
    if (info.isDirectory()) {
      throw new EditorError('invalid_arguments', `“${shown}”是一个文件夹，只能删除文件`);
    }
    const same = (p: string | null) => {
      if (p === null) return false;
      try {
        return workspace.resolve(p) === abs;
      } catch {
        return false;
      }
    };
    const documents = tx
      .documents()
      .filter((d) => same(d.path))
      .map((d) => d.name);
    if (documents.length) {
      throw new EditorError(
        'conflict',
        `“${shown}”正被打开的文档${documents.map((n) => `“${n}”`).join('、')}使用（从它打开或保存到它），没有删除：先关闭${documents.length > 1 ? '这些' : '该'}文档，再删除它`,
        {
          hint: '关闭文档（close_document），或把它另存为其他文件名，再删除这个文件',
          details: { documents },
        },
      );
    }
    if (same(session.garmentPhoto)) {
      throw new EditorError(
        'conflict',
        `“${shown}”是本会话的服装照片，服装工具还要读取它，没有删除：先上传另一张服装照片，再删除它`,
        { hint: '上传另一张服装照片（role=garment）后再删除这个文件', details: { garment_photo: shown } },
      );
    }
    try {
      await unlink(abs);
    } catch (err) {
      // Node's own message names the server's folders.
      const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
      throw new EditorError('io_error', `删除“${shown}”失败（${code}），文件保持原样`);
    }
    await hosted.journal.then(
      (journal) => journal.compact(session.state),
      () => undefined,
    );
  });
}
