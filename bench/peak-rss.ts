/**
 * The peak resident set of this process since a reset, from Linux's VmHWM: writing 5 to /proc/self/clear_refs
 * resets it (getrusage's maxRSS cannot be reset), so one call's peak can be read after a build that peaked higher.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export function resetPeak(): void {
  global.gc?.();
  writeFileSync('/proc/self/clear_refs', '5');
}

/** Bytes; worker threads and shared memory are counted, being in this process. */
export function peakSince(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  if (!m) throw new Error('VmHWM not found in /proc/self/status');
  return Number(m[1]) * 1024;
}
