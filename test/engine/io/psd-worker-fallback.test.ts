/**
 * PSD work when the worker thread fails (psd-thread.ts, with node:worker_threads' Worker replaced by fakes):
 * a worker that cannot start, fails while starting or never answers must not lose the call, nor leave it
 * pending; the calling thread does the work and errors keep their codes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DocState, Raster } from '../../../src/engine/model.js';
import { DocBuilder, ramp, testComposite } from './psd-fixtures.js';

type Behaviour = 'throws' | 'fails' | 'silent' | 'hangs';

const fake = vi.hoisted(() => ({ behaviour: 'fails' as Behaviour, spawned: 0, posted: 0 }));

vi.mock('node:worker_threads', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:worker_threads')>();
  // vi.mock is hoisted above the imports: what the factory needs, it imports itself.
  const { EventEmitter } = await import('node:events');
  /** A worker that does nothing but what the test asks of it. */
  class FakeWorker extends EventEmitter {
    constructor() {
      super();
      fake.spawned++;
      if (fake.behaviour === 'throws') throw new Error('no threads here');
      setImmediate(() => {
        if (fake.behaviour === 'fails') {
          this.emit('error', new Error('the entry module failed to load'));
          this.emit('exit', 1);
        } else if (fake.behaviour === 'hangs') {
          this.emit('message', { kind: 'ready' });
        }
      });
    }
    postMessage(): void {
      fake.posted++;
    }
    ref(): void {}
    unref(): void {}
    terminate(): Promise<number> {
      setImmediate(() => this.emit('exit', 1));
      return Promise.resolve(1);
    }
  }
  return { ...actual, Worker: FakeWorker };
});

/** psd-thread.ts afresh (its worker state is per module instance), with the worker in `behaviour`. */
async function freshThread(behaviour: Behaviour) {
  fake.behaviour = behaviour;
  fake.spawned = 0;
  fake.posted = 0;
  vi.resetModules();
  const thread = await import('../../../src/engine/io/psd-thread.js');
  const psd = await import('../../../src/engine/io/psd.js');
  const { EditorError } = await import('../../../src/engine/errors.js');
  thread.setPsdThreadMode('always');
  return { ...thread, ...psd, EditorError };
}

function smallDoc(): { state: DocState; composite: Raster } {
  const b = new DocBuilder();
  return {
    state: b.state([b.pixel('a', ramp(0, 0, 8, 8, { r: 1, g: 2, b: 3 }))]),
    composite: testComposite(),
  };
}

let stderr: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  vi.useRealTimers();
  stderr.mockRestore();
});

describe('a worker that cannot start', () => {
  it('fails while loading: the job runs here, and so does every later one', async () => {
    const t = await freshThread('fails');
    const { state, composite } = smallDoc();
    const expected = (await t.encodePsd(state, composite)).buffer;

    expect((await t.encodePsdOffThread(state, composite)).buffer.equals(expected)).toBe(true);
    expect(t.psdThreadStats()).toMatchObject({ worker: 0, recovered: 1 });
    expect((await t.encodePsdOffThread(state, composite)).buffer.equals(expected)).toBe(true);
    expect(fake.spawned).toBe(1);
    expect(await t.psdThreadReady()).toBe(false);
    // Logged once, on stderr.
    const lines = stderr.mock.calls
      .map((c: unknown[]) => String(c[0]))
      .filter((l: string) => l.startsWith('atelier:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('main thread');
  });

  it('cannot even be constructed: the job runs here, errors keep their codes', async () => {
    const t = await freshThread('throws');
    const { state, composite } = smallDoc();
    const expected = (await t.encodePsd(state, composite)).buffer;
    expect((await t.encodePsdOffThread(state, composite)).buffer.equals(expected)).toBe(true);
    const err = await t.decodePsdOffThread(expected, { maxPixelBytes: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(t.EditorError);
    expect(err).toMatchObject({ code: 'out_of_bounds' });
    expect(fake.spawned).toBe(1);
    expect(fake.posted).toBe(0);
    expect(t.psdThreadStats()).toMatchObject({ worker: 0, here: 2 });
  });

  it('never says it is ready: past its deadline the job runs here', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await freshThread('silent');
    const { state, composite } = smallDoc();
    const expected = (await t.encodePsd(state, composite)).buffer;
    const saving = t.encodePsdOffThread(state, composite);
    expect(fake.posted).toBe(1);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect((await saving).buffer.equals(expected)).toBe(true);
    expect(t.psdThreadStats()).toMatchObject({ worker: 0, recovered: 1 });
  });
});

describe('a worker that hangs on a job', () => {
  it('fails the job with io_error past its deadline; the job queued behind it goes to a new worker', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await freshThread('hangs');
    expect(await t.psdThreadReady()).toBe(true);
    const { state, composite } = smallDoc();
    const first = t.encodePsdOffThread(state, composite).catch((e: unknown) => e);
    const second = t.encodePsdOffThread(state, composite).catch((e: unknown) => e);
    expect(fake.posted).toBe(1);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    const err = await first;
    expect(err).toBeInstanceOf(t.EditorError);
    expect(err).toMatchObject({ code: 'io_error' });
    expect((err as Error).message).toContain('超时');
    expect(fake.spawned).toBe(2);
    expect(fake.posted).toBe(2);
    // The new worker hangs too: the second job does not wait forever either.
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    await second;
  });
});
