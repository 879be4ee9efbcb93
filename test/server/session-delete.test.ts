/**
 * Deleting a session while one of its calls runs, over HTTP: the call's answer (what the studio's tool card shows)
 * says it was cancelled with the session, not that it will come back from the journal; the session is gone, its
 * folder too.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translator } from '../../src/web/i18n.js';
import { failureWords } from '../../src/web/state/failures.js';
import { createSession, deleteDuring, startBigSave, startTestServer, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('DELETE /v1/sessions/:id while a call runs', () => {
  it('answers the call as cancelled with its session, which is gone', async () => {
    const id = await createSession(server.url);
    const res = await startBigSave(server.url, id);
    // The save has begun: the session goes from under it.
    const seen = await deleteDuring(server.url, id, res, (event) => event.type === 'progress');
    const result = seen.find((e) => e.type === 'tool_result');
    expect(result).toMatchObject({
      ok: false,
      result: {
        ok: false,
        error: { code: 'invalid_state', message: expect.stringContaining('会话已被删除') },
      },
    });
    const said = JSON.stringify(result);
    expect(said).toContain('已取消');
    expect(said).not.toMatch(/会从它的日志恢复|内部错误|保持原样/);
    // The studio's tool card shows the message as it is.
    const { error } = (result as { result: { error: { code: string; message: string } } }).result;
    expect(failureWords(translator('zh'), error.code, error.message)).toEqual({ text: error.message });
    expect(seen.at(-1)).toMatchObject({ type: 'done' });
    expect((await fetch(`${server.url}/v1/sessions/${id}`)).status).toBe(404);
    // Its folder goes too, once its thread has stopped: nothing of the cut-short save is left behind.
    await server.store.settled();
    const sessions = path.join(server.config.workspace, 'sessions');
    expect(readdirSync(sessions).filter((name) => name.includes(id))).toEqual([]);
  });
});
