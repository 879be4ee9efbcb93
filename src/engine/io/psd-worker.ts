/**
 * The PSD worker thread, started by psd-thread.ts: runs each job it is posted (psd-job.ts, with psd.ts's own
 * encodePsd and decodePsd) and posts back the result, transferring the bytes written.
 *
 * `atelier mcp` speaks JSON-RPC on the process's stdout, which a worker's stdout feeds: stdout is pointed at
 * stderr before the PSD code (and its dependencies) load, so nothing printed here can corrupt the protocol.
 * After each job the worker collects its garbage, letting go of the document's shared pixels at once.
 */
import { parentPort } from 'node:worker_threads';
import { garbageCollector } from '../worker-boot.js';
import type { PsdJob, PsdReply } from './psd-job.js';

process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const { failureOf, performPsdJob, transferablesOf } = await import('./psd-job.js');
const collect = garbageCollector();
const port = parentPort!;

port.on('message', (job: PsdJob) => {
  void run(job).then(() => setImmediate(collect));
});

async function run(job: PsdJob): Promise<void> {
  let reply: PsdReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const result = await performPsdJob(job);
    reply = { kind: 'done', result };
    transfer = transferablesOf(result);
  } catch (err) {
    reply = { kind: 'failed', error: failureOf(err) };
  }
  try {
    port.postMessage(reply, transfer);
  } catch (err) {
    // A value the structured clone cannot copy (nothing was sent): the main thread runs the job itself.
    port.postMessage({ kind: 'lost', reason: err instanceof Error ? err.message : String(err) } as PsdReply);
  }
}

port.postMessage({ kind: 'ready' } satisfies PsdReply);
