/**
 * Which process serves a session: a lock file in the session's journal folder, so that two processes sharing a
 * workspace never write one journal. The owner touches the file every `LOCK_HEARTBEAT_MS`; another process
 * takes the lock over when the owner is gone — at once when the owner ran on this machine and its pid is dead
 * (a kill -9, a crash), otherwise once the file has not been touched for `LOCK_STALE_MS` (another machine
 * that died or lost the shared disk). The stale age is generous because a heavy call can hold the owner's event
 * loop for tens of seconds; a live owner must not lose its session to a slow heartbeat.
 *
 * The owner re-reads the file before every journal write (`owns`), so even an owner that was wrongly taken
 * over (a pause longer than the stale age) stops writing instead of interleaving with the new owner.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from '../engine/workspace.js';

export const LOCK_FILE = 'lock';
export const LOCK_HEARTBEAT_MS = 15_000;
export const LOCK_STALE_MS = 120_000;

interface LockContent {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  readonly since: string;
}

/** The session is being served by another live process (the balancer should send its requests there). */
export class SessionHeldElsewhere extends Error {
  constructor(
    readonly pid: number,
    readonly host: string,
  ) {
    super(`the session is served by process ${pid} on ${host}`);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parse(text: string): LockContent | null {
  try {
    const v = JSON.parse(text) as LockContent;
    return typeof v.pid === 'number' && typeof v.token === 'string' ? v : null;
  } catch {
    return null;
  }
}

/**
 * Removes the lock of the journal folder `dir` if this process holds it, whichever of its threads took it: what
 * the store does when a session's thread dies holding the lock (the thread's `SessionLock` died with it).
 */
export function releaseHeldByThisProcess(dir: string): void {
  const file = path.join(dir, LOCK_FILE);
  try {
    if (parse(readFileSync(file, 'utf8'))?.pid === process.pid) unlinkSync(file);
  } catch {
    // No lock, or not readable: nothing to give up.
  }
}

export class SessionLock {
  private constructor(
    readonly file: string,
    private readonly token: string,
  ) {}

  /** Takes the lock of the journal folder `dir`; `SessionHeldElsewhere` when a live process holds it. */
  static async acquire(dir: string, now = Date.now): Promise<SessionLock> {
    const file = path.join(dir, LOCK_FILE);
    const token = randomBytes(12).toString('hex');
    const content: LockContent = {
      pid: process.pid,
      host: hostname(),
      token,
      since: new Date().toISOString(),
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(file, 'wx', PRIVATE_FILE_MODE);
        try {
          await handle.writeFile(JSON.stringify(content));
          await handle.sync();
        } finally {
          await handle.close();
        }
        return new SessionLock(file, token);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const [text, info] = await Promise.all([
        readFile(file, 'utf8').catch(() => ''),
        stat(file).catch(() => null),
      ]);
      if (!info) continue;
      const held = parse(text);
      const sameHost = held?.host === hostname();
      const dead = held
        ? (sameHost && !pidAlive(held.pid)) || now() - info.mtimeMs > LOCK_STALE_MS
        : now() - info.mtimeMs > 2_000; // a lock being written right now, or garbage left by a crash
      if (!dead) throw new SessionHeldElsewhere(held?.pid ?? 0, held?.host ?? 'unknown');
      // Moved aside rather than deleted, so that of two processes taking over at once only one succeeds.
      const aside = `${file}.${token}.stale`;
      try {
        await rename(file, aside);
        await unlink(aside);
      } catch {
        // Another process took it over first: look again.
      }
    }
    throw new SessionHeldElsewhere(0, 'unknown');
  }

  /** Whether this lock is still ours (no other process took it over). */
  owns(): boolean {
    try {
      return parse(readFileSync(this.file, 'utf8'))?.token === this.token;
    } catch {
      return false;
    }
  }

  async heartbeat(): Promise<void> {
    const t = new Date();
    await utimes(this.file, t, t).catch(() => undefined);
  }

  /** Gives the lock up (synchronously, so it also works while the process is shutting down). */
  release(): void {
    if (!this.owns()) return;
    try {
      unlinkSync(this.file);
    } catch {
      // Already gone.
    }
  }
}
