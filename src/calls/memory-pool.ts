/**
 * Pixel memory shared by all the sessions of a process (the server's `ATELIER_MEMORY_MB`). Each session's own
 * budget bounds one designer; this bounds them together, so that many sessions each well inside their budget
 * cannot take the process past the machine's memory (where the system kills it, and every session with it).
 *
 * Counters in shared memory, so that sessions on different threads see one total: word 0 of `total` is the
 * KiB every session holds, and each session's `held` what it added to it, for whoever closes the session (or
 * finds its thread dead) to give back. The result images the server keeps for all sessions have a share of their
 * own (src/service/sessions.ts `ImageBudget`): what they hold is counted as the sessions' is. A session updates
 * its share after each call; a call is refused what the others' shares leave, as they were when it began. Two
 * calls of different sessions starting at once may then both take the last room: the pool is passed by at most
 * what they allocate. A call refused for want of room says how much it wanted (`wanted`), so that the store can
 * make room by closing sessions left idle.
 */

const KIB = 1024;

export interface MemoryPool {
  /** Bytes all sessions together may hold. */
  readonly limitBytes: number;
  readonly total: Int32Array;
  /** KiB refused calls wanted since the store last looked (word 0). */
  readonly wanted: Int32Array;
}

/** One session's part of a pool. */
export interface PoolShare {
  readonly pool: MemoryPool;
  readonly held: Int32Array;
}

const counter = () => new Int32Array(new SharedArrayBuffer(4));

export function newMemoryPool(limitBytes: number): MemoryPool {
  return { limitBytes, total: counter(), wanted: counter() };
}

/** Bytes all the sessions of the pool hold now. */
export function heldBytes(pool: MemoryPool): number {
  return Atomics.load(pool.total, 0) * KIB;
}

/** Bytes one session holds now. */
export function shareBytes(share: PoolShare): number {
  return Atomics.load(share.held, 0) * KIB;
}

/** Notes that a call was refused `bytes` it needed for want of room. */
export function noteWanted(pool: MemoryPool, bytes: number): void {
  Atomics.add(pool.wanted, 0, Math.ceil(bytes / KIB));
}

/** What refused calls wanted since the last time this was asked, in bytes. */
export function takeWanted(pool: MemoryPool): number {
  return Atomics.exchange(pool.wanted, 0, 0) * KIB;
}

export function newPoolShare(pool: MemoryPool): PoolShare {
  return { pool, held: counter() };
}

/** Bytes the other sessions of the pool hold now. */
export function othersBytes(share: PoolShare): number {
  return Math.max(0, Atomics.load(share.pool.total, 0) - Atomics.load(share.held, 0)) * KIB;
}

/**
 * Records that the session holds `bytes` now. Ordered so that a thread stopped between the two updates leaves
 * `held` the larger: giving it back then frees a little more than was counted, never less (which would take
 * room from the pool for good).
 */
export function setHeld(share: PoolShare, bytes: number): void {
  const delta = Math.ceil(bytes / KIB) - Atomics.load(share.held, 0);
  if (delta > 0) {
    Atomics.add(share.held, 0, delta);
    Atomics.add(share.pool.total, 0, delta);
  } else if (delta < 0) {
    Atomics.add(share.pool.total, 0, delta);
    Atomics.add(share.held, 0, delta);
  }
}

/** Gives back what the session held (it closed, or its thread stopped); the second time gives nothing. */
export function releaseShare(share: PoolShare): void {
  const held = Atomics.exchange(share.held, 0, 0);
  if (held > 0) Atomics.sub(share.pool.total, 0, held);
}
