/** Small helpers for the benchmarks: medians of repeated runs, readable figures, scratch workspaces. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** A fresh workspace under the system's temp folder, removed when the process exits (a bench run leaves none). */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `atelier-bench-${prefix}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function median(runs: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Median time per call of `fn`, in microseconds, over `batches` batches of `perBatch` calls. */
export async function microsPerCall(fn: () => unknown | Promise<unknown>, perBatch = 1000, batches = 15) {
  for (let i = 0; i < perBatch; i++) await fn();
  const ms = await median(batches, async () => {
    for (let i = 0; i < perBatch; i++) await fn();
  });
  return (ms * 1000) / perBatch;
}

export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
/** A change in MiB with its sign (+1.0 MiB, −61.1 MiB). */
export const deltaMib = (bytes: number) => `${bytes < 0 ? '−' : '+'}${mib(Math.abs(bytes))}`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

/** POSTs `body` as JSON to a running server and returns its JSON answer; a non-2xx status throws. */
export async function postJson(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}
