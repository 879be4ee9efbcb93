/**
 * The cap on session threads (`ATELIER_SESSION_THREADS`), read when worker-session.ts loads: this file sets it
 * before loading the store, in a process of its own (vitest runs each file in a fork).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/session.js';

process.env.ATELIER_SESSION_THREADS = '2';
const { SessionStore } = await import('../../src/service/sessions.js');
// Read once, on loading: nothing else run in this process gets it.
delete process.env.ATELIER_SESSION_THREADS;

const stores: InstanceType<typeof SessionStore>[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) {
    s.closeAll();
    await s.settled();
  }
});

const threadOf = (entry: { session: unknown }) => (entry.session as { thread: unknown }).thread;

describe('session threads under their cap', () => {
  it('runs as many sessions on threads of their own as the cap allows, then shares', async () => {
    const store = new SessionStore({
      root: tempDir('atelier-threads-'),
      idleTimeoutMs: 60_000,
      maxSessions: 10,
      log: () => {},
    });
    stores.push(store);
    const [a, b, c] = [store.create('http'), store.create('http'), store.create('http')];
    for (const entry of [a, b, c]) {
      const r = await entry.session.call({ name: 'create_document', arguments: { width: 8, height: 8 } });
      expect(r.ok).toBe(true);
    }
    // The warm spare is the second session's thread, not a third one kept idle beside two sessions sharing.
    expect(threadOf(b)).not.toBe(threadOf(a));
    expect([threadOf(a), threadOf(b)]).toContain(threadOf(c));
  });
});
