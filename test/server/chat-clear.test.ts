/**
 * Clearing a session's conversation (`DELETE /v1/sessions/<id>/chat`) over real HTTP with a scripted model: a
 * session at its disk quota, whose chat is refused saying how to make room, gets back the room its transcript
 * and kept images take, its documents and files untouched; the next turn starts a new conversation, and a
 * restart restores the documents with that new conversation only. Refused while a reply runs; an image an open
 * document uses stays.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { translator } from '../../src/web/i18n.js';
import { failureWords } from '../../src/web/state/failures.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { tempDir } from '../support/session.js';
import {
  bytesUnder,
  type ChatEvent,
  chat,
  createSession,
  okCalls,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

const MB = 1024 * 1024;
const QUOTA = 4 * MB;

const clear = (base: string, id: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/v1/sessions/${id}/chat`, { method: 'DELETE', headers });

async function history(base: string, id: string): Promise<ChatEvent[]> {
  return ((await (await fetch(`${base}/v1/sessions/${id}/chat`)).json()) as { events: ChatEvent[] }).events;
}

async function documents(base: string, id: string): Promise<string[]> {
  const state = (await (await fetch(`${base}/v1/sessions/${id}/state`)).json()) as {
    documents: { name: string }[];
  };
  return state.documents.map((d) => d.name);
}

describe('clearing the conversation', () => {
  let model: ScriptedModel;
  let server: TestServer;
  const workspace = tempDir('atelier-chat-clear-');
  const serve = async () => {
    const config = modelConfigFrom(
      {},
      {
        ATELIER_MODEL: 'scripted-vision',
        ATELIER_MODEL_BASE_URL: model.url,
        ATELIER_MODEL_VISION: '1',
      },
    );
    server = await startTestServer({ workspace, model: config, sessionDiskBytes: QUOTA });
    return server;
  };
  const sessionDir = (id: string) => path.join(workspace, 'sessions', id);
  const used = (id: string) => bytesUnder(sessionDir(id)) + bytesUnder(path.join(workspace, 'journals', id));

  /** A session with a saved poster and a turn that looked at the canvas (its capture kept beside chat.jsonl). */
  const chatted = async (): Promise<string> => {
    const id = await createSession(server.url);
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '海报' }),
      toolCall('create_text_layer', { text: '春季新品', x: 10, y: 80, font_size: 40 }),
      toolCall('save_document', {}),
    ]);
    model.push(
      {
        text: '我看一眼。',
        toolCalls: [{ id: 'look', name: 'get_canvas_image', arguments: { max_size: 300 } }],
      },
      { text: '海报上有标题。' },
    );
    expect((await chat(server.url, id, '看看海报')).at(-1)).toMatchObject({ type: 'done' });
    expect(readdirSync(path.join(sessionDir(id), 'chat-images'))).toHaveLength(1);
    return id;
  };

  beforeAll(async () => {
    model = await startScriptedModel();
    await serve();
  });
  afterAll(async () => {
    await server?.close();
    await model.close();
  });

  it('gives a session at its quota its room back, keeps its documents and files, and survives a restart', async () => {
    const id = await chatted();
    const dir = sessionDir(id);
    const record = statSync(path.join(dir, 'chat.jsonl')).size + bytesUnder(path.join(dir, 'chat-images'));
    // The session fills up: the next message has no room, and the refusal says how to make some.
    writeFileSync(path.join(dir, 'filler.bin'), Buffer.alloc(QUOTA - used(id) - 100));
    const refused = (await chat(server.url, id, '把标题改成红色')).at(-1)!;
    expect(refused).toMatchObject({ type: 'error', code: 'quota_exceeded' });
    expect(refused.message).toContain('清空对话记录（文档和文件都保留）');
    // The studio shows it as it is: the designer's words, not replaced by a generic line.
    expect(failureWords(translator('zh'), 'quota_exceeded', refused.message as string)).toEqual({
      text: refused.message,
    });
    // The transcript alone still cannot be deleted; the refusal names the way to clear it.
    const alone = await fetch(`${server.url}/v1/sessions/${id}/files/chat.jsonl`, { method: 'DELETE' });
    expect(alone.status).toBe(409);
    expect(((await alone.json()) as { error: { message: string } }).error.message).toContain('清空对话记录');

    const stateBefore = await (await fetch(`${server.url}/v1/sessions/${id}/state`)).text();
    const res = await clear(server.url, id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ removed_files: 2, freed_bytes: record, kept: [] });
    expect(existsSync(path.join(dir, 'chat.jsonl'))).toBe(false);
    expect(readdirSync(path.join(dir, 'chat-images'))).toEqual([]);
    // Documents, their history and the designer's files are as they were.
    expect(await (await fetch(`${server.url}/v1/sessions/${id}/state`)).text()).toBe(stateBefore);
    expect(existsSync(path.join(dir, '海报.psd'))).toBe(true);
    expect(existsSync(path.join(dir, 'filler.bin'))).toBe(true);
    expect(await history(server.url, id)).toEqual([]);

    // The next turn fits, and starts a new conversation: the model is sent none of the earlier turns.
    const asked = model.requests.length;
    model.push({ text: '好的，新的对话。' });
    expect((await chat(server.url, id, '重新开始')).at(-1)).toMatchObject({ type: 'done' });
    const sent = model.requests[asked]!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
    expect(JSON.stringify(sent)).not.toContain('看看海报');

    // After a restart the session comes back from its journal with its document, and the new conversation.
    await server.close();
    await serve();
    expect(await documents(server.url, id)).toEqual(['海报']);
    const after = await history(server.url, id);
    expect(after.filter((e) => e.type === 'user').map((e) => e.text)).toEqual(['重新开始']);
  });

  it('is refused while a reply runs, changing nothing, and works once it has ended', async () => {
    const id = await chatted();
    const transcript = path.join(sessionDir(id), 'chat.jsonl');
    const before = readFileSync(transcript, 'utf8');
    const asked = model.requests.length;
    model.push({ text: '想一想……', delayMs: 1500 });
    const turn = chat(server.url, id, '慢慢来');
    while (model.requests.length === asked) await new Promise((r) => setTimeout(r, 20));
    const res = await clear(server.url, id);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('busy');
    expect((await turn).at(-1)).toMatchObject({ type: 'done' });
    expect(readFileSync(transcript, 'utf8').startsWith(before)).toBe(true);
    expect((await clear(server.url, id)).status).toBe(200);
    expect(existsSync(transcript)).toBe(false);
  });

  it('keeps a kept image an open document uses, and says so', async () => {
    const id = await chatted();
    const [image] = readdirSync(path.join(sessionDir(id), 'chat-images'));
    const kept = `chat-images/${image}`;
    await okCalls(server.url, id, [toolCall('open_document', { path: kept })]);
    const res = await clear(server.url, id);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ removed_files: 1, kept: [kept] });
    expect(existsSync(path.join(sessionDir(id), kept))).toBe(true);
    expect(existsSync(path.join(sessionDir(id), 'chat.jsonl'))).toBe(false);
    expect(await documents(server.url, id)).toContain(image!.replace(/\.png$/, ''));
  });

  it('is refused to another origin, and clears an empty conversation as nothing', async () => {
    const id = await createSession(server.url);
    expect((await clear(server.url, id, { origin: 'https://evil.example' })).status).toBe(403);
    const res = await clear(server.url, id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ removed_files: 0, freed_bytes: 0, kept: [] });
    expect((await clear(server.url, 'no-such-session')).status).toBe(404);
  });
});
