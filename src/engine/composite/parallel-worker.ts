/**
 * The compositor's worker thread (started by parallel.ts): takes a job, claims strips from the shared
 * counter and renders them into the shared output buffer, exactly as the main thread renders its own.
 *
 * Nothing here writes to stdout. After each job the worker runs a full garbage collection: V8 does not count
 * SharedArrayBuffer memory towards its collection heuristics, so without it the worker's copies of the
 * posted states could keep dropped layers and composites (hundreds of MB each) alive indefinitely. Its heap
 * is small, so a collection takes a few milliseconds, after the main thread has been released.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { garbageCollector } from '../worker-boot.js';
import { renderStrips } from './compositor.js';
import { primeEffects } from './effects.js';
import {
  claimedIndex,
  DONE,
  FAILED,
  type JobMessage,
  NEXT,
  OFFERED,
  RUNNING,
  stateIndex,
  type WorkerInit,
} from './parallel.js';
import { buildPlan } from './plan.js';

// `atelier mcp` speaks JSON-RPC on the process's stdout, which a worker's stdout feeds: anything printed
// here, by accident or by a dependency, goes to stderr instead.
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const collect = garbageCollector();
const init = workerData as WorkerInit;
const port = parentPort!;

port.on('message', (job: JobMessage) => {
  const s = stateIndex(job.worker);
  if (Atomics.compareExchange(job.ctl, s, OFFERED, RUNNING) === OFFERED) {
    Atomics.notify(job.ctl, s);
    Atomics.store(job.ctl, s, run(job));
    Atomics.notify(job.ctl, s);
  }
  // Withdrawn before it started, or done: either way, let go of the state now.
  collect();
});

function run(job: JobMessage): number {
  try {
    for (const [id, paints] of job.effects) {
      const layer = job.state.layers.get(id);
      if (layer) primeEffects(job.state, layer, paints);
    }
    const plan = buildPlan(job.state, job.rect);
    const claimed = claimedIndex(job.worker);
    renderStrips(plan, job.out, job.stride, job.ox, job.oy, () => {
      const i = Atomics.add(job.ctl, NEXT, 1);
      if (i < job.strips) Atomics.add(job.ctl, claimed, 1);
      return i;
    });
    return DONE;
  } catch (err) {
    process.stderr.write(
      `atelier: compositor worker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return FAILED;
  }
}

Atomics.store(init.ready, 0, 1);
port.postMessage('ready');
