/**
 * The chat record counts in the session's disk quota, over real HTTP with a scripted model: a turn whose message
 * would take the session past it does not start and writes nothing; result images it has no room for are not
 * kept (no file, no temp file left) and the turn stops, in Chinese, once the calls that ran are answered.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { translator } from '../../src/web/i18n.js';
import { failureWords } from '../../src/web/state/failures.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import {
  bytesUnder,
  chat,
  createSession,
  okCalls,
  openNoiseDocument,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

const MB = 1024 * 1024;
const QUOTA = 4 * MB;

describe('the chat record within the disk quota', () => {
  let model: ScriptedModel;
  let server: TestServer;
  const sessionDir = (id: string) => path.join(server.config.workspace, 'sessions', id);
  const used = (id: string) =>
    bytesUnder(sessionDir(id)) + bytesUnder(path.join(server.config.workspace, 'journals', id));
  /** Fills the session's folder on disk until `room` bytes are left under the quota. */
  const leave = (id: string, room: number) => {
    writeFileSync(path.join(sessionDir(id), 'filler.bin'), Buffer.alloc(QUOTA - used(id) - room));
  };

  beforeAll(async () => {
    model = await startScriptedModel([]);
    const config = modelConfigFrom(
      {},
      {
        ATELIER_MODEL: 'scripted-vision',
        ATELIER_MODEL_BASE_URL: model.url,
        ATELIER_MODEL_API_KEY: 'sk-quota-test',
        ATELIER_MODEL_VISION: '1',
      },
    );
    server = await startTestServer({ model: config, sessionDiskBytes: QUOTA });
  });
  afterAll(async () => {
    await server.close();
    await model.close();
  });

  it('does not start a turn whose message has no room, and writes nothing', async () => {
    const id = await createSession(server.url);
    await okCalls(server.url, id, [toolCall('create_document', { width: 64, height: 64, name: '海报' })]);
    leave(id, 100);
    const before = used(id);
    const asked = model.requests.length;
    const events = await chat(server.url, id, '把背景改成红色，再加一行标题');
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: 'error', code: 'quota_exceeded' });
    expect(end.message).toMatch(/^本会话的文件空间不足：把这条消息记入对话记录需要/);
    expect(end.message).toContain('本轮没有开始');
    expect(failureWords(translator('zh'), 'quota_exceeded', end.message as string)).toEqual({
      text: end.message,
    });
    expect(model.requests.length).toBe(asked);
    expect(existsSync(path.join(sessionDir(id), 'chat.jsonl'))).toBe(false);
    expect(used(id)).toBe(before);
  });

  it('keeps no result image it has no room for, runs no more calls, and stops the turn saying so', async () => {
    const id = await createSession(server.url);
    // Noise hardly compresses: its canvas image needs far more than the room left.
    await openNoiseDocument(server.url, id, 600);
    leave(id, 64 * 1024);
    const asked = model.requests.length;
    model.push(
      {
        toolCalls: [
          { id: 'look', name: 'get_canvas_image', arguments: { max_size: 600 } },
          { id: 'more', name: 'create_layer', arguments: { name: '标题' } },
        ],
      },
      { text: '不应被请求到这里。' },
    );
    const events = await chat(server.url, id, '看看画布');
    // The image is shown live (its link), but not kept beside the record.
    const shown = events.find((e) => e.type === 'tool_result' && e.id === 'look')!;
    expect(shown).toMatchObject({ ok: true, images: [{ mime: 'image/png' }] });
    const images = path.join(sessionDir(id), 'chat-images');
    expect(existsSync(images) ? readdirSync(images) : []).toEqual([]);
    // The step's next call did not run, and the model was not asked again.
    expect(events.some((e) => e.type === 'tool_call' && e.id === 'more')).toBe(false);
    expect(model.requests.length).toBe(asked + 1);
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: 'error', code: 'quota_exceeded' });
    expect(end.message).toMatch(/^本会话的文件空间不足：保存结果图像到对话记录需要/);
    expect(end.message).toContain('本轮已停止');
    expect(used(id)).toBeLessThanOrEqual(QUOTA);
    // The record says what ran and what did not, so a restored conversation and a replay agree with it.
    const lines = readFileSync(path.join(sessionDir(id), 'chat.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.role === 'tool')).toMatchObject([
      { tool_call_id: 'look', name: 'get_canvas_image' },
      { tool_call_id: 'more', not_run: true },
    ]);
    expect(lines.find((l) => l.tool_call_id === 'look')).not.toHaveProperty('images');
    expect(lines.at(-1)).toMatchObject({ event: 'error', code: 'quota_exceeded' });
  });
});
