/**
 * Deleting a session while one of its calls computes, over HTTP: the store moves the session's journal away at
 * once, while the session's thread is still busy with the call, which then finds no journal to record its change
 * in. Its answer is the deletion's (`invalid_state`, 会话已被删除), not a write failure that sends an
 * administrator to check the disk, and nothing is logged as an internal error. A journal that fails for another
 * reason still answers `io_error`.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSession,
  deleteDuring,
  okCalls,
  sendCalls,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const journals = () => path.join(server.config.workspace, 'journals');
const sessions = () => path.join(server.config.workspace, 'sessions');
const internalErrors = () =>
  server.logs.filter((line) => /internal error|another process|snapshot of/.test(line));

describe('DELETE /v1/sessions/:id while a call computes', () => {
  it('answers the call as deleted with its session, not as a disk failure, and logs no internal error', async () => {
    const other = await createSession(server.url);
    await okCalls(server.url, other, [toolCall('create_document', { width: 64, height: 64, name: '别的' })]);
    const id = await createSession(server.url);
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 5000, height: 5000, name: '大' }),
      toolCall('create_layer', { name: '甲' }),
      toolCall('fill_selection', { color: '#336699' }),
    ]);
    // Hue/saturation of 25 million pixels: a few hundred ms of computing on the session's thread without a pause,
    // so the thread hears of the deletion only once the call is done and tries to record its change.
    const res = await fetch(`${server.url}/v1/sessions/${id}/tool-calls?stream=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_calls: [toolCall('adjust_hsl', { hue: 30, saturation: 10, lightness: 5 })],
      }),
    });
    expect(res.status).toBe(200);
    // Sent once the call has been handed to the session's thread, which takes it before the deletion's message:
    // the call is running (or about to) when its session goes.
    const seen = await deleteDuring(server.url, id, res, (event) => event.type === 'tool_call');
    const result = seen.find((e) => e.type === 'tool_result');
    expect(result).toMatchObject({
      ok: false,
      result: {
        ok: false,
        error: {
          code: 'invalid_state',
          message: expect.stringContaining('会话已被删除'),
          details: { session_deleted: true },
        },
      },
    });
    expect(JSON.stringify(result)).not.toMatch(/磁盘|会话日志|内部错误/);
    expect(seen.at(-1)).toMatchObject({ type: 'done' });
    expect((await fetch(`${server.url}/v1/sessions/${id}`)).status).toBe(404);

    await server.store.settled();
    expect(internalErrors()).toEqual([]);
    // Its folder and journal are gone, and nothing of the call's recording came back.
    expect(readdirSync(sessions()).filter((name) => name.includes(id))).toEqual([]);
    expect(readdirSync(journals()).filter((name) => name.includes(id))).toEqual([]);
    // The other session goes on as before, its changes journaled.
    await okCalls(server.url, other, [toolCall('create_layer', { name: '乙' })]);
    expect(internalErrors()).toEqual([]);
  }, 60_000);

  it('still answers io_error when the journal of a live session cannot be written', async () => {
    const id = await createSession(server.url);
    const dir = path.join(journals(), id);
    await expect.poll(() => existsSync(path.join(dir, 'meta.json'))).toBe(true);
    // The first segment cannot be opened: a folder stands in its place.
    mkdirSync(path.join(dir, 'journal-1.jsonl'));
    const { results } = await sendCalls(server.url, id, [
      toolCall('create_document', { width: 8, height: 8, name: '小' }),
    ]);
    expect(results[0]).toMatchObject({
      ok: false,
      error: { code: 'io_error', message: expect.stringContaining('无法把这次调用记入会话日志') },
    });
    expect(JSON.stringify(results[0])).not.toContain('会话已被删除');
    expect(server.logs.some((line) => line.includes('internal error') && line.includes('EISDIR'))).toBe(true);
  });
});
