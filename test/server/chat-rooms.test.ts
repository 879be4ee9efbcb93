/**
 * The chat rooms behind `POST /chat`: a turn the server accepted is cancellable from the moment it is accepted,
 * also while the session's conversation is still being rebuilt from its transcript (the first turn after a
 * restart, or on a fresh session) — a client that goes away or presses cancel then must not leave the model
 * working for no one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatRooms, type SentEvent } from '../../src/server/chat-rooms.js';
import { SessionStore } from '../../src/service/sessions.js';
import { modelConfig } from '../agent/support.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { tempDir } from '../support/session.js';

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
