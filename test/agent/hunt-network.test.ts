/** A model service that does not answer, or makes the loop wait on purpose: what the designer waits for and reads. */
import { afterEach, describe, expect, it } from 'vitest';
import { snapshotOf } from '../../src/calls/snapshot.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { newSession, ok } from '../support/session.js';
import { conversation, expectEveryCallAnswered, last, modelConfig, turn } from './support.js';

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('a model service that never answers ($name answers)', ({ stream }) => {
  it('is given up after one timeout, not retried three times more, and says how long it waited', async () => {
    const silent = { text: '太慢了', delayMs: 6000 };
    // A retry would get the script's end (a 400 that is not retried), which the turn would report instead.
    model = await startScriptedModel([silent]);
    const session = newSession();
    await ok(session, 'create_document', { width: 30, height: 30, name: '留下' });
    // Long enough for the request to reach the scripted model whole on a loaded machine (at 250 ms it once had
    // not, and the model recorded no request at all).
    const conv = conversation(session, modelConfig(model.url, { stream, timeoutMs: 2000 }));
    const events = await turn(conv, '把背景调暗');

    expect(last(events)).toEqual({
      type: 'error',
      code: 'model_timeout',
      message: '模型在 2 秒内没有回应，本轮已停止。请稍后重试，或加大 ATELIER_MODEL_TIMEOUT。',
    });
    // One attempt: the message tells of one timeout, and the designer waited for one.
    expect(model.requests).toHaveLength(1);
    const state = await snapshotOf(session);
    expect(state.active?.history.labels).toEqual(['新建文档']);

    // The designer's message is kept: the next request carries it with the new one.
    model.push({ text: '好的' });
    expect(last(await turn(conv, '再试一次'))).toEqual({ type: 'done', steps: 1 });
    const sent = JSON.stringify(last(model.requests).body.messages);
    expect(sent).toContain('把背景调暗');
    expect(sent).toContain('再试一次');
  });

  it('still waits out a Retry-After longer than the timeout: the wait is not silence', async () => {
    model = await startScriptedModel([
      { status: 429, headers: { 'retry-after-ms': '600' } },
      { toolCalls: [{ name: 'create_document', arguments: { width: 20, height: 20, name: '新' } }] },
      { text: '建好了' },
    ]);
    const session = newSession();
    const conv = conversation(session, modelConfig(model.url, { stream, timeoutMs: 300 }));
    const events = await turn(conv, '新建一个文档');
    expect(last(events)).toEqual({ type: 'done', steps: 2 });
    expect(model.requests).toHaveLength(3);
    expectEveryCallAnswered(last(model.requests).body.messages as never);
    expect((await snapshotOf(session)).documents.map((d) => d.name)).toEqual(['新']);
  });
});
