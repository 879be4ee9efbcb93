/**
 * A session thread's garment photo crosses the main thread on its way to the photo worker (job-thread.ts
 * `jobThreadPort`) by transfer: the main thread, which only passes the job on, holds no copy of the photo's
 * bytes while the worker analyses it (a 40 MB photo used to be copied in and out of it and held there), and the
 * session thread keeps its own bytes, to analyse the photo itself if the worker fails (thread-photo.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handOver, jobThreadPort } from '../../src/engine/job-thread.js';
import { spawnSiblingWorker } from '../../src/engine/worker-boot.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { type PhotoJob, photoThread } from '../../src/garment/builtin/photo-thread.js';
import type { Extraction } from '../../src/garment/types.js';
import { garmentPhoto } from '../support/garment-fixtures.js';

let photo: Buffer;

beforeAll(async () => {
  photo = await garmentPhoto('mixed', 2);
  expect(await photoThread.ready()).toBe(true);
});

afterAll(async () => {
  await photoThread.stop();
});

/** The job the photo worker runs now, as the main thread keeps it (a private field: what it holds is the point). */
function runningJob(): { job: PhotoJob; from?: unknown } | null {
  return (photoThread as unknown as { running: { job: PhotoJob; from?: unknown } | null }).running;
}

describe('a photo relayed through the main thread', () => {
  it('is held there by no copy while the worker analyses it, and analysed as the calling thread does', async () => {
    const jobs = jobThreadPort();
    const before = photoThread.stats();
    const probe = spawnSiblingWorker(import.meta.url, 'thread-photo-probe', {
      workerData: { jobs, photo },
      transferList: [jobs],
    });
    let answered = false;
    const got = new Promise<{ ext: Extraction; stats: Record<string, number> }>((resolve, reject) => {
      probe.once('message', (m) => {
        answered = true;
        resolve(m);
      });
      probe.once('error', reject);
    });
    while (!photoThread.working && !answered) await new Promise((r) => setTimeout(r, 2));
    const running = runningJob();
    expect(running?.from, 'the probe thread answered before its job was seen on the worker').toBeDefined();
    // Handed to the worker: the main thread's view of the bytes is empty.
    expect(running!.job.bytes.byteLength).toBe(0);
    const { ext, stats } = await got;
    await probe.terminate();
    expect(stats).toMatchObject({ worker: 1, here: 0, recovered: 0 });
    expect(photoThread.stats()).toMatchObject({ relayed: before.relayed + 1, worker: before.worker + 1 });
    expect(ext).toEqual(await analysePhoto(photo, 'photo.png', 'probe'));
    // A new thread compiles its modules under tsx first: slow on a loaded machine.
  }, 180_000);
});

describe('handOver', () => {
  it("copies a job's binary fields into buffers of their own to transfer, leaving the caller's as they were", () => {
    const pooled = Buffer.from('a small buffer, a slice of the pool');
    const floats = new Float32Array([1.5, -2, 3]);
    const job = { bytes: pooled, floats, path: 'p.png', n: 3 };
    const { job: sent, transfer } = handOver(job);
    expect(transfer).toHaveLength(2);
    expect(sent.path).toBe('p.png');
    expect(sent.n).toBe(3);
    expect(sent.bytes).not.toBe(pooled);
    expect(sent.bytes.buffer).toBe(transfer[0]);
    expect(sent.bytes.byteLength).toBe(sent.bytes.buffer.byteLength);
    expect(Buffer.from(sent.bytes).equals(pooled)).toBe(true);
    expect(sent.floats).toBeInstanceOf(Float32Array);
    expect([...sent.floats]).toEqual([1.5, -2, 3]);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(sent, transfer);
    port1.close();
    port2.close();
    // Sent: the copies went with the message; the caller's bytes stay.
    expect(sent.bytes.byteLength).toBe(0);
    expect(pooled.toString()).toBe('a small buffer, a slice of the pool');
    expect([...floats]).toEqual([1.5, -2, 3]);
    expect(handOver('not an object')).toEqual({ job: 'not an object', transfer: [] });
    // Shared memory is shared, not copied.
    const shared = new Uint8Array(new SharedArrayBuffer(4));
    expect(handOver({ shared }).job.shared).toBe(shared);
  });
});
