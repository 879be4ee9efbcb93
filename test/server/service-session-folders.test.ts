/**
 * What a deleted or expired session leaves on disk, over real HTTP: its folder goes with its journal (once no
 * call of it can write there any more, also when a call was running on a thread another session shares), links
 * in it are removed as links and never followed out of the service's workspace, and the purge after the
 * retention period removes the folders of sessions that cannot come back. Sessions share one thread here
 * (`ATELIER_SESSION_THREADS=1`), so that deleting one does not end the thread its call runs on.
 */
import {
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SessionStore } from '../../src/service/sessions.js';
import { tempDir } from '../support/session.js';
import {
  createSession,
  events,
  okCalls,
  startBigSave,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

vi.hoisted(() => {
  process.env.ATELIER_SESSION_THREADS = '1';
});

const del = (server: TestServer, id: string) =>
  fetch(`${server.url}/v1/sessions/${id}`, { method: 'DELETE' }).then((r) => r.status);

describe('the folder of a deleted session', () => {
  let server: TestServer;
  let outside: string;
  beforeAll(async () => {
    server = await startTestServer();
    // Someone's files beside the service's workspace, which no deletion may reach.
    outside = tempDir('atelier-outside-');
    mkdirSync(path.join(outside, 'keep'));
    writeFileSync(path.join(outside, 'keep', 'precious.txt'), '别删我');
    writeFileSync(path.join(outside, 'alone.txt'), '也别删我');
  });
  afterAll(() => {
    delete process.env.ATELIER_SESSION_THREADS;
    return server.close();
  });
  const sessions = () => path.join(server.config.workspace, 'sessions');
  const journals = () => path.join(server.config.workspace, 'journals');

  it('goes with its journal, links in it removed as links, never followed', async () => {
    const id = await createSession(server.url);
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 32, height: 32, name: '海报' }),
      toolCall('save_document_as', { path: 'out/海报.psd' }),
    ]);
    const dir = path.join(sessions(), id);
    symlinkSync(path.join(outside, 'keep'), path.join(dir, 'out', 'linked-folder'));
    symlinkSync(path.join(outside, 'alone.txt'), path.join(dir, 'linked-file.txt'));
    expect(existsSync(path.join(dir, 'out', '海报.psd'))).toBe(true);

    expect(await del(server, id)).toBe(204);
    await server.store.settled();
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(path.join(journals(), id))).toBe(false);
    expect(readdirSync(sessions()).filter((n) => n.includes(id))).toEqual([]);
    expect(readFileSync(path.join(outside, 'keep', 'precious.txt'), 'utf8')).toBe('别删我');
    expect(readFileSync(path.join(outside, 'alone.txt'), 'utf8')).toBe('也别删我');
    expect((await fetch(`${server.url}/v1/sessions/${id}/files`)).status).toBe(404);
  });

  it('goes once a save still running on a shared thread has ended, leaving nothing of it; the other session works on', async () => {
    const other = await createSession(server.url);
    await okCalls(server.url, other, [toolCall('create_document', { width: 16, height: 16, name: '别的' })]);
    const id = await createSession(server.url);
    const res = await startBigSave(server.url, id);
    let deleted = false;
    let result: Record<string, unknown> | undefined;
    for await (const event of events(res)) {
      // The save has begun: the session goes from under it.
      if (event.type === 'progress' && !deleted) {
        deleted = true;
        expect(await del(server, id)).toBe(204);
      }
      if (event.type === 'tool_result') result = event;
    }
    expect(deleted).toBe(true);
    expect(result).toMatchObject({
      ok: false,
      result: { error: { code: 'invalid_state', message: expect.stringContaining('会话已被删除') } },
    });
    await server.store.settled();
    expect(existsSync(path.join(sessions(), id))).toBe(false);
    expect(readdirSync(sessions()).filter((n) => n.includes(id))).toEqual([]);
    expect(existsSync(path.join(journals(), id))).toBe(false);
    // The session that shares the thread is untouched.
    await okCalls(server.url, other, [toolCall('save_document_as', { path: '别的.psd' })]);
    expect(existsSync(path.join(sessions(), other, '别的.psd'))).toBe(true);
  });
});

describe('the purge after the retention period', () => {
  it("removes expired sessions' folders, orphaned and half-removed ones, and nothing outside", async () => {
    const server = await startTestServer();
    const root = server.config.workspace;
    const id = await createSession(server.url);
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 16, height: 16, name: '旧' }),
      toolCall('save_document_as', { path: '旧.psd' }),
    ]);
    await server.close();
    const sessions = path.join(root, 'sessions');
    // A session deleted before deletions removed folders: no journal, unchanged for long; and a newer one.
    const old = 'a'.repeat(32);
    const recent = 'b'.repeat(32);
    for (const orphan of [old, recent]) {
      mkdirSync(path.join(sessions, orphan, 'out'), { recursive: true });
      writeFileSync(path.join(sessions, orphan, 'out', 'x.psd'), 'x');
    }
    const longAgo = new Date(Date.now() - 30 * 24 * 3600 * 1000);
    for (const p of ['out/x.psd', 'out', '.']) utimesSync(path.join(sessions, old, p), longAgo, longAgo);
    // What a deletion cut short by a crash left, and a link in the place of a session folder.
    mkdirSync(path.join(sessions, `.deleted-${'c'.repeat(32)}-0000`, 'out'), { recursive: true });
    const outside = tempDir('atelier-outside-');
    writeFileSync(path.join(outside, 'precious.txt'), '别删我');
    const linked = 'd'.repeat(32);
    symlinkSync(outside, path.join(sessions, linked));
    lutimesSync(path.join(sessions, linked), longAgo, longAgo);

    const store = new SessionStore({
      root,
      idleTimeoutMs: 60_000,
      maxSessions: 10,
      log: () => {},
      isolation: 'inline',
      retentionMs: 7 * 24 * 3600 * 1000,
    });
    await store.purgeExpired();
    // Within the retention: the session and its folder stay.
    expect(existsSync(path.join(sessions, id, '旧.psd'))).toBe(true);
    expect(existsSync(path.join(sessions, recent))).toBe(true);
    expect(existsSync(path.join(sessions, old))).toBe(false);
    expect(readdirSync(sessions).filter((n) => n.startsWith('.deleted-'))).toEqual([]);
    expect(() => lstatSync(path.join(sessions, linked))).toThrow();
    expect(readFileSync(path.join(outside, 'precious.txt'), 'utf8')).toBe('别删我');
    store.closeAll();

    const expiring = new SessionStore({
      root,
      idleTimeoutMs: 60_000,
      maxSessions: 10,
      log: () => {},
      isolation: 'inline',
      retentionMs: -1000,
    });
    expect(await expiring.purgeExpired()).toEqual([id]);
    expect(existsSync(path.join(sessions, id))).toBe(false);
    expect(existsSync(path.join(root, 'journals', id))).toBe(false);
    expiring.closeAll();
  });
});
