/**
 * Sessions on threads of their own (src/service/worker-session.ts), driven through the store as the server
 * does: calls with their progress, the garment photo, snapshots, listings and renders cross the thread as data;
 * errors come back as the classes the surfaces tell apart; a session closed on its thread can be recovered by
 * another store on the same workspace, exactly as it was.
 */
import { availableParallelism } from 'node:os';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { Progress } from '../../src/calls/session.js';
import { compositeBudget } from '../../src/engine/composite/budget.js';
import { parallelReady, poolWorkers, setPoolIdleMs } from '../../src/engine/composite/parallel.js';
import { EditorError } from '../../src/engine/errors.js';
import { SessionHeldElsewhere } from '../../src/service/session-lock.js';
import { SessionStore, type SessionStoreOptions } from '../../src/service/sessions.js';
import { WorkerSession } from '../../src/service/worker-session.js';
import { tempDir, withoutThumbnailKeys } from '../support/session.js';

const stores: SessionStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) {
    s.closeAll();
    await s.settled();
  }
});

function storeOn(root: string, logs: string[] = [], over: Partial<SessionStoreOptions> = {}): SessionStore {
  const store = new SessionStore({
    root,
    idleTimeoutMs: 60_000,
    maxSessions: 10,
    log: (l) => logs.push(l),
    ...over,
  });
  stores.push(store);
  return store;
}

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });
const MB = 1024 * 1024;

describe('a session on its own thread', () => {
  it('runs calls in order, streams their progress, and answers snapshots, listings and renders', async () => {
    const store = storeOn(tempDir('atelier-threads-'));
    const entry = store.create('http');
    expect(entry.session).toBeInstanceOf(WorkerSession);
    const s = entry.session;
    // Queued at once: they run one after another in this order on the session's thread.
    const results = await Promise.all([
      s.call(call('create_document', { width: 40, height: 30, name: '图' })),
      s.call(call('create_layer', { name: '红' })),
      s.call(call('fill_selection', { color: '#ff0000' })),
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);

    const stages: Progress[] = [];
    const saved = await s.call(call('save_document_as', { path: 'out/图.psd' }), {
      onProgress: (p) => stages.push(p),
    });
    expect(saved.ok).toBe(true);
    expect(stages.map((p) => p.stage)).toContain('编码 PSD');

    const snapshot = await s.snapshot();
    expect(snapshot.active?.layers.map((l) => (l as { name: string }).name)).toEqual(['红', '背景']);
    expect(snapshot.active?.history.labels.at(-1)).toBe('填充选区');
    expect(await s.documents()).toEqual([
      { name: '图', width: 40, height: 30, path: 'out/图.psd', unsaved_changes: false },
    ]);

    const rendered = await s.render('图', 20);
    const { data, info } = await sharp(rendered.png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, rendered.documentWidth]).toEqual([20, 15, 40]);
    expect([...data.subarray(0, 3)]).toEqual([255, 0, 0]);

    // Press inks as the active document shows them (RGB: through the press profile, so K-only black is not black).
    const ink = await s.inkPreview('cmyk(0,0,0,100)');
    expect(ink).toMatch(/^#[0-9a-f]{6}$/);
    expect(ink).not.toBe('#000000');
    expect(await s.inkPreview('#000000')).toBeUndefined();

    const missing = await s.render('无', 20).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(EditorError);
    expect((missing as EditorError).code).toBe('not_found');
  });

  it('answers a call it cannot copy to its thread as invalid arguments, and goes on', async () => {
    const store = storeOn(tempDir('atelier-threads-'));
    const s = store.create('http').session;
    expect((await s.call(call('create_document', { width: 10, height: 10, name: '深' }))).ok).toBe(true);
    // Nested far deeper than any tool's arguments: copying it to the thread overflows the stack.
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const r = await s.call(call('create_layer', { name: '层', extra: deep }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('invalid_arguments');
    expect(r.error.message).toContain('嵌套过深');
    // The thread did not stop and the session is as it was: the next call runs.
    expect((await s.call(call('create_layer', { name: '层' }))).ok).toBe(true);
    expect((await s.snapshot()).active?.history.labels).toEqual(['新建文档', '新建图层']);
  });

  it.each(['thread', 'inline'] as const)(
    'says a call cancelled by deleting its session was cancelled, not that it will be recovered (%s)',
    async (isolation) => {
      const store = storeOn(tempDir('atelier-threads-'), [], { isolation });
      const entry = store.create('http');
      // On a thread, large enough that the deletion reaches it mid-save. Inline, the deletion comes at the save's
      // first pause whatever its size, and a document under a megapixel keeps this thread's compositor workers
      // (which count process-wide, for the next test) out of it.
      const side = isolation === 'thread' ? 3000 : 1000;
      for (const c of [
        call('create_document', { width: side, height: side, name: '大' }),
        call('create_layer', { name: '甲' }),
        call('fill_selection', { color: '#ff0000' }),
      ])
        expect((await entry.session.call(c)).ok).toBe(true);
      // A long save, and a call queued behind it; the session is deleted once the save has begun.
      let begun!: () => void;
      const saving = new Promise<void>((resolve) => {
        begun = resolve;
      });
      const save = entry.session.call(call('save_document_as', { path: 'out/大.psd' }), {
        onProgress: () => begun(),
      });
      const queued = entry.session.call(call('create_layer', { name: '乙' }));
      await saving;
      expect(store.delete(entry.id)).toBe(true);

      for (const result of [await save, await queued]) {
        expect(result).toMatchObject({
          ok: false,
          error: { code: 'invalid_state', message: expect.stringContaining('会话已被删除') },
        });
        const said = JSON.stringify(result);
        expect(said).toContain('已取消');
        expect(said).not.toMatch(/会从它的日志恢复|内部错误|保持原样/);
      }
      await store.settled();
      expect(await store.recover(entry.id)).toBeUndefined();
    },
  );

  it('is recovered by another store once its thread gave it up, garment photo included', async () => {
    const root = tempDir('atelier-threads-');
    const first = storeOn(root);
    const entry = first.create('http');
    await entry.session.call(call('create_document', { width: 16, height: 16 }));
    await entry.session.call(call('create_layer', { name: '甲' }));
    await entry.session.workspace.writeAtomic(
      'shirt.png',
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
        .png()
        .toBuffer(),
    );
    await entry.session.setGarmentPhoto('shirt.png');
    expect(entry.session.garmentPhoto).toBe('shirt.png');
    const before = await entry.session.snapshot();

    // Served by a live owner: another store is refused, with the class the server answers 409 for.
    const second = storeOn(root);
    await expect(second.recover(entry.id)).rejects.toBeInstanceOf(SessionHeldElsewhere);

    first.closeAll();
    await first.settled();
    const back = await second.recover(entry.id);
    expect(back?.session.garmentPhoto).toBe('shirt.png');
    expect(withoutThumbnailKeys(await back!.session.snapshot())).toEqual(withoutThumbnailKeys(before));
    const undone = await back!.session.call(call('undo'));
    expect(undone.ok).toBe(true);
    expect((await back!.session.snapshot()).active?.layers).toHaveLength(1);
  });

  it('comes back from its journal when its thread dies, as after its last completed call', async () => {
    const logs: string[] = [];
    const store = storeOn(tempDir('atelier-threads-'), logs);
    const entry = store.create('http');
    await entry.session.call(call('create_document', { width: 24, height: 24, name: '存活' }));
    await entry.session.call(call('create_layer', { name: '乙' }));
    const before = await entry.session.snapshot();
    let closed = false;
    entry.closers.push(() => {
      closed = true;
    });

    // What a crash of the thread looks like from the main thread (a native fault, an out-of-memory abort).
    const thread = (entry.session as unknown as { thread: { worker: { terminate(): Promise<number> } } })
      .thread;
    await thread.worker.terminate();
    await expect.poll(() => store.get(entry.id)).toBeUndefined();
    expect(closed).toBe(true);
    expect(logs.join('\n')).toMatch(/session thread exited .*recovered from its journal/);

    const back = await store.recover(entry.id);
    expect(back).not.toBe(entry);
    expect(withoutThumbnailKeys(await back!.session.snapshot())).toEqual(withoutThumbnailKeys(before));
    expect((await back!.session.call(call('get_layer_bounds', { name: '乙' }))).ok).toBe(true);
  });

  it('ends the thread of a deleted session from inside it, a save in flight or not, and the next session runs', async () => {
    // Terminating a thread from outside as its JavaScript starts a file operation aborts Node 20 altogether
    // (AsyncDestCall's req_wrap assertion): a thread no longer wanted ends itself, with code 0 (terminate's is 1).
    const store = storeOn(tempDir('atelier-threads-'));
    for (const inFlight of [false, true]) {
      const entry = store.create('http');
      await entry.session.call(call('create_document', { width: 1200, height: 900, name: '走' }));
      await entry.session.call(call('create_layer', { name: '甲' }));
      await entry.session.call(call('fill_selection', { color: '#336699' }));
      const worker = (
        entry.session as unknown as { thread: { worker: import('node:worker_threads').Worker } }
      ).thread.worker;
      const code = new Promise<number>((resolve) => worker.once('exit', resolve));
      const saving = inFlight ? entry.session.call(call('save_document_as', { path: 'out/走.psd' })) : null;
      expect(store.delete(entry.id)).toBe(true);
      expect(await code).toBe(0);
      if (saving) expect((await saving).ok).toBe(false);
      await store.settled();
    }
    const next = store.create('http');
    expect((await next.session.call(call('create_document', { width: 8, height: 8, name: '下' }))).ok).toBe(
      true,
    );
  });

  it('gives back the pixel memory of a session whose thread dies, for the others to use', async () => {
    const store = storeOn(tempDir('atelier-threads-'), [], { memoryPoolBytes: 100 * MB });
    const [a, b] = [store.create('http'), store.create('http')];
    for (const c of [
      call('create_document', { width: 4000, height: 2000, name: '甲' }),
      call('create_layer', { name: '一' }),
      call('fill_selection', { color: '#ff0000' }),
      call('create_layer', { name: '二' }),
      call('fill_selection', { color: '#0000ff' }),
    ])
      expect((await a.session.call(c)).ok).toBe(true);
    // 61 MB held by the other session: a document needing 64 MB of room does not fit in the pool.
    const open = call('create_document', { width: 4000, height: 2000, name: '乙' });
    const refused = await b.session.call(open);
    expect(refused.ok).toBe(false);
    expect(refused).toMatchObject({ error: { code: 'out_of_bounds' } });

    const thread = (a.session as unknown as { thread: { worker: { terminate(): Promise<number> } } }).thread;
    await thread.worker.terminate();
    await expect.poll(() => store.get(a.id)).toBeUndefined();
    expect((await b.session.call(open)).ok).toBe(true);
  });

  it('closes sessions left alone to make the pixel memory a refused call wanted; they come back whole', async () => {
    let clock = 1_000_000;
    const logs: string[] = [];
    const store = storeOn(tempDir('atelier-threads-'), logs, {
      memoryPoolBytes: 128 * MB,
      now: () => clock,
      idleTimeoutMs: 3600_000,
    });
    const [a, b] = [store.create('http'), store.create('http')];
    const run = (entry: typeof a, name: string, args: Record<string, unknown> = {}) =>
      store.use(entry.id, (e) => e.session.call(call(name, args)));
    const layer = (name: string) =>
      [
        ['create_layer', { name }],
        ['fill_selection', { color: '#336699' }],
      ] as const;
    for (const [name, args] of [
      ['create_document', { width: 4000, height: 2000, name: '甲' }],
      ...layer('一'),
      ...layer('二'),
    ] as const)
      expect((await run(a, name, args))?.ok).toBe(true);
    const before = await a.session.snapshot();
    clock += 50_000;
    for (const [name, args] of [
      ['create_document', { width: 4000, height: 2000, name: '乙' }],
      ...layer('一'),
      ...layer('二'),
    ] as const)
      expect((await run(b, name, args))?.ok).toBe(true);
    // A third layer does not fit beside the other session's two.
    expect(await run(b, 'create_layer', { name: '三' })).toMatchObject({ ok: true });
    const fill = () => run(b, 'fill_selection', { color: '#993366' });
    expect(await fill()).toMatchObject({ ok: false, error: { code: 'out_of_bounds' } });

    // Only a session left alone for a while is closed for it: B was just used, A 50 s ago.
    store.sweep();
    expect(store.size).toBe(2);
    expect(await fill()).toMatchObject({ ok: false });
    clock += 20_000;
    store.sweep();
    await store.settled();
    expect(store.size).toBe(1);
    expect(logs.join('\n')).toMatch(/closed to make room/);
    expect((await fill())?.ok).toBe(true);

    // A's next request brings it back as it was.
    const back = await store.recover(a.id);
    expect(withoutThumbnailKeys(await back!.session.snapshot())).toEqual(withoutThumbnailKeys(before));
  });

  it("counts every session thread's compositor workers against one budget, and takes back a dead thread's", async () => {
    const { total } = compositeBudget();
    // This thread's own pool counts in the same total, and the shared project keeps a worker's modules from file to
    // file: a pool an earlier file left running here held the one spare place of a 2-core machine, and the total
    // stayed at 1 after the session threads were gone, until its idle minute ran out. It is retired first.
    setPoolIdleMs(10);
    try {
      await parallelReady();
      await expect.poll(() => poolWorkers() + Atomics.load(total, 0), { timeout: 15_000 }).toBe(0);
    } finally {
      setPoolIdleMs(60_000);
    }
    const spare = Math.min(8, availableParallelism() - 1);
    const store = storeOn(tempDir('atelier-threads-'));
    const entries = [store.create('http'), store.create('http')];
    for (const [k, entry] of entries.entries()) {
      // Large enough to be shared with compositor workers: 1.5 Mpx, three layers.
      for (const c of [
        call('create_document', { width: 1500, height: 1000, name: `大${k}` }),
        call('create_layer', { name: '甲' }),
        call('fill_selection', { color: '#ff0000' }),
        call('create_layer', { name: '乙' }),
        call('fill_selection', { color: '#0000ff' }),
        call('save_document_as', { path: `out/大${k}.png` }),
      ])
        expect((await entry.session.call(c)).ok).toBe(true);
    }
    // Both threads composited large documents: their pools share one machine's spare cores, not one each.
    if (spare > 0) expect(Atomics.load(total, 0)).toBeGreaterThan(0);
    expect(Atomics.load(total, 0)).toBeLessThanOrEqual(Math.max(0, spare));

    // Threads that die take their compositor workers with them, without a word: the budget is given back.
    for (const entry of entries) {
      const thread = (entry.session as unknown as { thread: { worker: { terminate(): Promise<number> } } })
        .thread;
      await thread.worker.terminate();
    }
    // A thread's exit is reported when the machine gets to it: on a loaded 2-core machine that took over the
    // poll's default second once in a full run.
    await expect.poll(() => Atomics.load(total, 0), { timeout: 15_000 }).toBe(0);
  });
});
