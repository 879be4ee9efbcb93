/**
 * A session with its journal, as the thread that runs it holds them: the session's calls are journaled by the
 * journal that this thread owns (its lock, its segment file, its snapshots), so a session and its journal
 * always live on the same thread. Used by the session worker (session-worker.ts) and by a store that runs its
 * sessions inline (tests).
 */
import path from 'node:path';
import type { PoolShare } from '../calls/memory-pool.js';
import { Session } from '../calls/session.js';
import { Workspace } from '../engine/workspace.js';
import { SessionJournal } from './journal.js';

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
  /** Bytes the files of the session's folder may take (uploads, saves, exports); unlimited when unset. */
  readonly diskQuotaBytes?: number;
}

/**
 * The session's folder as the service opens it, on any thread: private to the user the server runs as (other
 * users of a shared machine cannot read designers' files), within the session's disk quota.
 */
export function sessionWorkspace(opts: Pick<HostOptions, 'dir' | 'diskQuotaBytes'>): Workspace {
  return new Workspace(opts.dir, {
    private: true,
    ...(opts.diskQuotaBytes !== undefined ? { quotaBytes: opts.diskQuotaBytes } : {}),
  });
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
  journal: Promise<SessionJournal>,
  log: (line: string) => void,
): Session {
  return new Session({
    workspace: sessionWorkspace(opts),
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
  const journal = SessionJournal.create(opts.journalDir, { kind: opts.kind, createdAt: opts.createdAt }, log);
  journal.catch((err) => log(`atelier: session ${opts.id.slice(0, 8)}…: no journal: ${String(err)}`));
  return { session: sessionOf(opts, journal, log), journal };
}

/** The session its journal describes, rebuilt (its lock taken); `SessionHeldElsewhere` when another process serves it. */
export async function hostRecovered(
  opts: Omit<HostOptions, 'kind' | 'createdAt'>,
  log: (line: string) => void,
): Promise<RecoveredSession> {
  const started = Date.now();
  const recovered = await SessionJournal.recover(opts.journalDir, opts.dir, log);
  const kind = recovered.meta.kind === 'mcp' ? 'mcp' : 'http';
  const full = { ...opts, kind, createdAt: recovered.meta.createdAt };
  const hosted = {
    session: sessionOf(full, Promise.resolve(recovered.journal), log),
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
