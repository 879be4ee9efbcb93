/**
 * The compositor workers' process-wide budget (parallel.ts): one counter in shared memory that every thread of
 * the process shares, and one per thread of what it holds. No other imports, so that the service's main thread,
 * which hands the counters to its session threads, loads nothing of the engine for it.
 */
import { workerData } from 'node:worker_threads';

/**
 * `total` (word 0) counts the compositor workers of every thread that shares it, `mine` those of this thread.
 */
export interface CompositeBudget {
  readonly total: Int32Array;
  readonly mine: Int32Array;
}

const newCounter = () => new Int32Array(new SharedArrayBuffer(4));

const budget: CompositeBudget = (workerData as { compositeBudget?: CompositeBudget } | null)
  ?.compositeBudget ?? {
  total: newCounter(),
  mine: newCounter(),
};

/** This thread's budget. */
export function compositeBudget(): CompositeBudget {
  return budget;
}

/** A budget for a new thread sharing this thread's total, with its own count (to give back if it is lost). */
export function sharedCompositeBudget(): CompositeBudget {
  return { total: budget.total, mine: newCounter() };
}

/** Gives back what a thread that has stopped (its workers with it) still held. */
export function reclaimCompositeBudget(lost: CompositeBudget): void {
  const held = Atomics.exchange(lost.mine, 0, 0);
  if (held > 0) Atomics.sub(lost.total, 0, held);
}

/*
 * A thread may be stopped between the two counts' updates. They are ordered so that `mine` is then one too many,
 * never one too few: the reclaim gives back one place more than was held (one worker more may run for a while),
 * rather than one less (a place lost for good, which at the limit would leave every pool unstarted).
 */

/** Takes one worker's place if fewer than `limit` are held process-wide. */
export function takeFromBudget(limit: number): boolean {
  Atomics.add(budget.mine, 0, 1);
  if (Atomics.add(budget.total, 0, 1) >= limit) {
    Atomics.sub(budget.total, 0, 1);
    Atomics.sub(budget.mine, 0, 1);
    return false;
  }
  return true;
}

/** Gives one worker's place back. */
export function returnToBudget(): void {
  Atomics.sub(budget.total, 0, 1);
  Atomics.sub(budget.mine, 0, 1);
}
