/**
 * What a session thread costs in memory: one real server (`startServer`, port 0, a temporary workspace); its
 * resident set settled with no session open (the baseline, same run), then after each of 8 sessions has opened
 * and made one small call (create_document 400 × 300, so its thread has loaded the engine and the tools), then
 * after 8 more. The README's per-thread figure comes from here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../src/server/server.js';
import { mib, postJson } from './util.js';

const BATCH = 8;

/** RSS once it has stopped moving: threads finish starting and their first garbage is collected. */
async function settledRss(): Promise<number> {
  let last = process.memoryUsage().rss;
  for (let i = 0; i < 20; i++) {
    await sleep(500);
    const now = process.memoryUsage().rss;
    if (Math.abs(now - last) < 2 ** 20) return now;
    last = now;
  }
  return last;
}

export async function benchThreads(): Promise<string[]> {
  const ws = mkdtempSync(join(tmpdir(), 'atelier-bench-threads-'));
  const server = await startServer({ port: 0, host: '127.0.0.1', workspace: ws, log: () => {} });
  const post = (path: string, body: unknown) => postJson(server.url, path, body);
  const openWithDocument = async () => {
    const t0 = performance.now();
    const id = (await post('/v1/sessions', {})).id as string;
    await post(`/v1/sessions/${id}/tool-calls`, {
      tool_calls: [{ name: 'create_document', arguments: { width: 400, height: 300 } }],
    });
    return performance.now() - t0;
  };
  try {
    const idle = await settledRss();
    const firstCalls: number[] = [];
    for (let i = 0; i < BATCH; i++) firstCalls.push(await openWithDocument());
    const one = await settledRss();
    for (let i = 0; i < BATCH; i++) firstCalls.push(await openWithDocument());
    const two = await settledRss();
    firstCalls.sort((a, b) => a - b);
    const perFirst = (one - idle) / BATCH;
    const perSecond = (two - one) / BATCH;
    // A session that held large documents, then closed: what stays resident after it (its thread ends).
    const big = (await post('/v1/sessions', {})).id as string;
    await post(`/v1/sessions/${big}/tool-calls`, {
      tool_calls: [
        { name: 'create_document', arguments: { width: 8000, height: 8000 } },
        { name: 'create_layer', arguments: { name: '一' } },
        { name: 'fill_selection', arguments: { color: '#336699' } },
        { name: 'duplicate_layer', arguments: {} },
        { name: 'gaussian_blur', arguments: { radius: 2 } },
      ],
    });
    const holding = await settledRss();
    await fetch(`${server.url}/v1/sessions/${big}`, { method: 'DELETE' });
    const after = await settledRss();
    return [
      `server with no session (baseline): RSS ${mib(idle)}`,
      `+${BATCH} sessions, one 400 × 300 document each: RSS ${mib(one)}, ${mib(perFirst)} per session thread (${(perFirst / idle).toFixed(2)}× the baseline)`,
      `+${BATCH} more: RSS ${mib(two)}, ${mib(perSecond)} per session thread`,
      `open + first call: median ${firstCalls[firstCalls.length >> 1]!.toFixed(0)} ms, slowest ${firstCalls.at(-1)!.toFixed(0)} ms`,
      `a session holding an 8000 × 8000 document with two painted layers: RSS ${mib(holding)} (+${mib(holding - two)}); after it is deleted: ${mib(after)} (${mib(after - two)} above before it, ${((after - two) / (holding - two)).toFixed(2)}× what it held)`,
    ];
  } finally {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  }
}
