/**
 * The chat rooms behind `POST /chat`: a turn the server accepted is cancellable from the moment it is accepted,
 * also while the session's conversation is still being rebuilt from its transcript (the first turn after a
 * restart, or on a fresh session) — a client that goes away or presses cancel then must not leave the model
 * working for no one. A conversation that cannot be rebuilt says so in the designer's words, never with the
 * server's paths.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSCRIPT_FILE } from '../../src/agent/transcript.js';
import { ChatRooms, RESTORE_FAILED_MESSAGE, type SentEvent } from '../../src/server/chat-rooms.js';
import { SessionStore } from '../../src/service/sessions.js';
import { modelConfig } from '../agent/support.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { tempDir } from '../support/session.js';
import { createSession, startTestServer, type TestServer } from './support.js';

describe('a turn cancelled before its conversation has started', () => {
  let model: ScriptedModel;
  let store: SessionStore;
  beforeAll(async () => {
    model = await startScriptedModel();
    store = new SessionStore({
      root: tempDir('atelier-rooms-'),
      idleTimeoutMs: 600_000,
      maxSessions: 10,
      isolation: 'inline',
      log: () => {},
    });
  });
  afterAll(async () => {
    store.closeAll();
    await store.settled();
    await model.close();
  });

  it('ends cancelled without asking the model or running a call, and the next turn works', async () => {
    const rooms = new ChatRooms(modelConfig(model.url), (err) => {
      throw err;
    });
    const entry = store.create('http');
    model.push(
      { toolCalls: [{ name: 'create_document', arguments: { width: 20, height: 10 } }] },
      { text: '已新建。' },
    );
    expect(rooms.cancel(entry)).toBe(false);
    expect(rooms.claim(entry)).toBe(true);
    const events: SentEvent[] = [];
    const turn = rooms.turn(entry, '新建一个文档', (e) => events.push(e));
    // The room is still being opened (its transcript read): the conversation has not started yet.
    expect(rooms.cancel(entry)).toBe(true);
    await turn;
    expect(events.map((e) => [e.type, e.code])).toEqual([['error', 'cancelled']]);
    expect(model.requests).toHaveLength(0);
    expect(await entry.session.documents()).toEqual([]);
    expect(rooms.running(entry)).toBe(false);
    expect(rooms.cancel(entry)).toBe(false);

    // The cancel was for that turn only.
    expect(rooms.claim(entry)).toBe(true);
    const next: SentEvent[] = [];
    await rooms.turn(entry, '新建一个文档', (e) => next.push(e));
    expect(next.at(-1)).toMatchObject({ type: 'done' });
    expect(model.requests).toHaveLength(2);
    expect(await entry.session.documents()).toHaveLength(1);
  });
});

describe('a conversation whose transcript cannot be read', () => {
  let model: ScriptedModel;
  let server: TestServer;
  const workspace = tempDir('atelier-rooms-unreadable-');
  beforeAll(async () => {
    model = await startScriptedModel();
    server = await startTestServer({ workspace, model: modelConfig(model.url) });
  });
  afterAll(async () => {
    await server.close();
    await model.close();
  });

  const chat = async (id: string, message: string) => {
    const res = await fetch(`${server.url}/v1/sessions/${id}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    const events = body
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .flatMap((line) => {
        try {
          return [JSON.parse(line.slice(5)) as SentEvent];
        } catch {
          return [{ type: 'not_json', line }];
        }
      });
    return { body, events };
  };

  it('ends the turn saying so without any server path, logs the detail, and works once it is readable', async () => {
    const id = await createSession(server.url);
    // A directory where the transcript should be: reading it fails (EISDIR) with its path in the error, even as root.
    const transcript = path.join(workspace, 'sessions', id, TRANSCRIPT_FILE);
    mkdirSync(transcript, { recursive: true });

    const { body, events } = await chat(id, '新建一个文档');
    // Nowhere in the stream: no event carries the workspace, any absolute path or the system's error code.
    expect(body).not.toContain(workspace);
    expect(body).not.toMatch(/(^|[\s"'(（：:])\/[\w.-]+\//m);
    expect(body).not.toMatch(/EISDIR|ENOENT|EACCES/);
    expect(events).toEqual([{ type: 'error', code: 'internal', message: RESTORE_FAILED_MESSAGE }]);
    expect(model.requests).toHaveLength(0);
    // The server's log has what an operator needs.
    expect(server.logs.join('\n')).toContain(transcript);

    rmSync(transcript, { recursive: true });
    model.push({ text: '好的。' });
    expect((await chat(id, '新建一个文档')).events.at(-1)).toMatchObject({ type: 'done' });
  });
});

describe('the events a room keeps for GET /chat', () => {
  let model: ScriptedModel;
  let store: SessionStore;
  beforeAll(async () => {
    model = await startScriptedModel();
    store = new SessionStore({
      root: tempDir('atelier-rooms-bytes-'),
      idleTimeoutMs: 600_000,
      maxSessions: 10,
      isolation: 'inline',
      log: () => {},
    });
  });
  afterAll(async () => {
    store.closeAll();
    await store.settled();
    await model.close();
  });

  it('take at most their byte budget, the oldest dropped first, also when rebuilt from the transcript', async () => {
    const budget = 64 * 1024;
    const rooms = new ChatRooms(
      modelConfig(model.url),
      (err) => {
        throw err;
      },
      budget,
    );
    const entry = store.create('http');
    const size = (events: readonly SentEvent[]) => events.reduce((n, e) => n + JSON.stringify(e).length, 0);
    for (let turn = 1; turn <= 6; turn++) {
      model.push({ text: `第${turn}轮：${'长'.repeat(20_000)}` });
      expect(rooms.claim(entry)).toBe(true);
      await rooms.turn(entry, `第${turn}个问题`, () => {});
    }
    const kept = await rooms.events(entry);
    expect(size(kept)).toBeLessThanOrEqual(budget);
    // The newest turn is whole; the first ones are gone.
    expect(kept.at(-1)).toMatchObject({ type: 'done' });
    expect(kept.filter((e) => e.type === 'user').map((e) => e.text)).toContain('第6个问题');
    expect(kept.some((e) => e.type === 'user' && e.text === '第1个问题')).toBe(false);

    // A fresh room on the same session (a restart) reads the transcript back within the same budget.
    const reopened = new ChatRooms(
      null,
      (err) => {
        throw err;
      },
      budget,
    );
    const rebuilt = await reopened.events(entry);
    expect(size(rebuilt)).toBeLessThanOrEqual(budget);
    expect(rebuilt.some((e) => e.type === 'assistant' && String(e.text).startsWith('第6轮'))).toBe(true);
  });
});
