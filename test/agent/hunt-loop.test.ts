/**
 * What a real model does that the loop must handle as a product would: the same failing call sent again and again,
 * a refusal, an answer cut at the output limit, an answer the service's content filter stopped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { REPEATED_FAILURE_LIMIT } from '../../src/agent/loop-guard.js';
import { ThinkStripper } from '../../src/agent/model-client.js';
import { snapshotOf } from '../../src/calls/snapshot.js';
import { type ScriptedModel, type ScriptStep, startScriptedModel } from '../support/scripted-model.js';
import { newSession, ok } from '../support/session.js';
import {
  conversation,
  expectEveryCallAnswered,
  last,
  modelConfig,
  sseChunk,
  turn,
  wholeAnswer,
} from './support.js';

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function documentWithLayer() {
  const session = newSession();
  await ok(session, 'create_document', { width: 40, height: 40, name: '海报' });
  await ok(session, 'create_layer', { name: '标题' });
  return session;
}

describe('a model that sends the same failing call again and again', () => {
  it('is stopped after the third failure, the designer told which call and why; nothing changes', async () => {
    const same: ScriptStep = {
      toolCalls: [{ name: 'set_layer_opacity', arguments: { name: '不存在的图层', opacity: 50 } }],
    };
    // Spaced differently each time: the same call all the same.
    const spaced: ScriptStep = {
      toolCalls: [{ name: 'set_layer_opacity', arguments: '{ "opacity": 50,  "name": "不存在的图层" }' }],
    };
    model = await startScriptedModel([same, spaced, same, same, same, same, same, same]);
    const session = await documentWithLayer();
    const before = await snapshotOf(session);
    const conv = conversation(session, modelConfig(model.url));
    const events = await turn(conv, '把透明度调到一半');

    const end = last(events);
    expect(end).toMatchObject({ type: 'error', code: 'repeated_failure' });
    const message = (end as { message: string }).message;
    expect(message).toContain('set_layer_opacity（设置透明度）');
    expect(message).toContain(`${REPEATED_FAILURE_LIMIT} 次`);
    expect(message).toContain('没有名为“不存在的图层”的图层');
    // Three requests, not the twenty of ATELIER_MODEL_MAX_STEPS.
    expect(model.requests).toHaveLength(REPEATED_FAILURE_LIMIT);
    expect(events.filter((e) => e.type === 'tool_result').map((e) => e.ok)).toEqual([false, false, false]);
    expect(await snapshotOf(session)).toEqual(before);

    // The next turn starts afresh and carries every call answered.
    model = await startScriptedModel([same, { text: '没有这个图层，请告诉我要调哪一层。' }]);
    const next = conversation(session, modelConfig(model.url));
    expect(last(await turn(next, '再试一次'))).toEqual({ type: 'done', steps: 2 });
  });

  it('in one message is run three times; the copies after those are answered without running', async () => {
    const call = { name: 'set_layer_opacity', arguments: { name: '副标题', opacity: 30 } };
    model = await startScriptedModel([{ toolCalls: [call, call, call, call, call] }, { text: '不该再请求' }]);
    const session = await documentWithLayer();
    const conv = conversation(session, modelConfig(model.url));
    const before = await snapshotOf(session);
    const events = await turn(conv, '副标题淡一些');
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results).toHaveLength(5);
    expect(results.every((r) => !r.ok)).toBe(true);
    const notRun = results.slice(3).map((r) => JSON.stringify(r.result));
    for (const r of notRun) expect(r).toContain('没有再执行');
    expect(last(events)).toMatchObject({ type: 'error', code: 'repeated_failure' });
    expect(model.requests).toHaveLength(1);
    expect(await snapshotOf(session)).toEqual(before);
  });

  it('of a tool that does not exist is stopped alike', async () => {
    const ghost: ScriptStep = { toolCalls: [{ name: 'make_it_pretty', arguments: {} }] };
    model = await startScriptedModel([ghost, ghost, ghost, ghost, ghost]);
    const conv = conversation(newSession(), modelConfig(model.url));
    const end = last(await turn(conv, '弄好看点'));
    expect(end).toMatchObject({ type: 'error', code: 'repeated_failure' });
    expect((end as { message: string }).message).toContain('一个不存在的工具');
    expect(model.requests).toHaveLength(REPEATED_FAILURE_LIMIT);
  });

  it('is not stopped while it tries different arguments', async () => {
    const tries = ['标题 1', '标题 2', '标题 3', '标题 4'].map(
      (name): ScriptStep => ({
        toolCalls: [{ name: 'set_layer_opacity', arguments: { name, opacity: 50 } }],
      }),
    );
    model = await startScriptedModel([
      ...tries,
      { toolCalls: [{ name: 'set_layer_opacity', arguments: { name: '标题', opacity: 50 } }] },
      { text: '调好了' },
    ]);
    const session = await documentWithLayer();
    const conv = conversation(session, modelConfig(model.url));
    expect(last(await turn(conv, '标题透明度一半'))).toEqual({ type: 'done', steps: 6 });
    expectEveryCallAnswered(last(model.requests).body.messages as never);
  });
});

const streamed = (...chunks: string[]) => ({ raw: `${chunks.join('')}data: [DONE]\n\n` });
const whole = (message: Record<string, unknown>, finish: string) => ({
  raw: JSON.stringify(wholeAnswer({ role: 'assistant', ...message }, finish)),
  contentType: 'application/json',
});

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('what the model answers besides words and calls ($name answers)', ({ stream }) => {
  const refusal = 'I’m sorry, I can’t help with that.';

  it('a refusal is shown as the model’s answer and kept in the conversation, not called empty', async () => {
    model = await startScriptedModel([
      stream
        ? streamed(
            sseChunk({ role: 'assistant', content: null, refusal: '' }),
            sseChunk({ refusal: refusal.slice(0, 12) }),
            sseChunk({ refusal: refusal.slice(12) }),
            sseChunk({}, 'stop'),
          )
        : whole({ content: null, refusal }, 'stop'),
      { text: '好的' },
    ]);
    const conv = conversation(newSession(), modelConfig(model.url, { stream }));
    const events = await turn(conv, '做点什么');
    expect(events.filter((e) => e.type === 'assistant')).toEqual([{ type: 'assistant', text: refusal }]);
    expect(last(events)).toEqual({ type: 'done', steps: 1 });
    if (stream) {
      const shown = events.flatMap((e) => (e.type === 'assistant_delta' ? [e.text] : [])).join('');
      expect(shown).toBe(refusal);
    }
    await turn(conv, '换一个');
    const sent = last(model.requests).body.messages;
    expect(sent.find((m) => m.role === 'assistant')).toMatchObject({ content: refusal });
  });

  it('text cut at the output limit is shown with a note saying so, streamed as the rest was', async () => {
    const cut = '我先说明一下这个图层的混合模式会';
    model = await startScriptedModel([
      stream
        ? streamed(sseChunk({ role: 'assistant', content: cut }), sseChunk({}, 'length'))
        : whole({ content: cut }, 'length'),
    ]);
    const conv = conversation(newSession(), modelConfig(model.url, { stream, maxOutputTokens: 512 }));
    const events = await turn(conv, '解释一下');
    const said = events.find((e) => e.type === 'assistant') as { text: string };
    expect(said.text.startsWith(cut)).toBe(true);
    expect(said.text).toContain('ATELIER_MODEL_MAX_OUTPUT_TOKENS=512');
    expect(said.text).toContain('截断');
    // The CLI prints a streamed answer from its deltas only: the note must be among them.
    if (stream) {
      const shown = events.flatMap((e) => (e.type === 'assistant_delta' ? [e.text] : [])).join('');
      expect(shown).toBe(said.text);
    }
    expect(last(events)).toEqual({ type: 'done', steps: 1 });
  });

  it('reasoning left in the text as <think>…</think> is neither shown nor sent back', async () => {
    model = await startScriptedModel([
      { text: '<think>用户想把标题调亮，我先看看图层</think>\n\n好的，我来调亮标题。' },
      { text: '好' },
    ]);
    const conv = conversation(newSession(), modelConfig(model.url, { stream }));
    const events = await turn(conv, '标题亮一点');
    expect(events.filter((e) => e.type === 'assistant')).toEqual([
      { type: 'assistant', text: '好的，我来调亮标题。' },
    ]);
    expect(JSON.stringify(events)).not.toContain('think');
    await turn(conv, '谢谢');
    const sent = last(model.requests).body.messages;
    expect(sent.find((m) => m.role === 'assistant')).toMatchObject({ content: '好的，我来调亮标题。' });
  });

  it('an answer the content filter stopped before any word says so', async () => {
    model = await startScriptedModel([
      stream
        ? streamed(sseChunk({ role: 'assistant', content: '' }), sseChunk({}, 'content_filter'))
        : whole({ content: null }, 'content_filter'),
    ]);
    const conv = conversation(newSession(), modelConfig(model.url, { stream }));
    const end = last(await turn(conv, '解释一下'));
    expect(end).toMatchObject({ type: 'error', code: 'model_bad_response' });
    expect((end as { message: string }).message).toContain('内容过滤');
  });
});

describe('a close that would discard unsaved changes', () => {
  const close = (args: Record<string, unknown> = {}): ScriptStep => ({
    toolCalls: [{ name: 'close_document', arguments: args }],
  });

  it('is not run until the designer has answered; the same close in the next turn runs', async () => {
    model = await startScriptedModel([
      close(),
      { text: '“海报”有未保存的修改，要先保存吗？' },
      close(),
      { text: '已关闭，没有保存。' },
    ]);
    const session = await documentWithLayer();
    const before = await snapshotOf(session);
    const conv = conversation(session, modelConfig(model.url));
    // "关掉" meant hiding the layer; the model took it for closing the document.
    const first = await turn(conv, '把标题关掉');
    const refused = first.find((e) => e.type === 'tool_result')!;
    expect(refused).toMatchObject({ ok: false, name: 'close_document' });
    expect(JSON.stringify(refused.result)).toContain('会丢弃它未保存的修改');
    expect(last(first)).toEqual({ type: 'done', steps: 2 });
    expect(await snapshotOf(session)).toEqual(before);
    const answer = JSON.parse(model.requests[1]!.body.messages.at(-1)!.content as string);
    expect(answer.error.hint).toContain('先问用户');

    const second = await turn(conv, '不用保存，直接关闭');
    expect(second.find((e) => e.type === 'tool_result')).toMatchObject({ ok: true, name: 'close_document' });
    expect((await snapshotOf(session)).documents).toEqual([]);
  });

  it('runs at once when it saves first', async () => {
    model = await startScriptedModel([close({ save: true }), { text: '已保存并关闭。' }]);
    const session = await documentWithLayer();
    const conv = conversation(session, modelConfig(model.url));
    const events = await turn(conv, '保存后关闭');
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ ok: true, name: 'close_document' });
    expect((await snapshotOf(session)).documents).toEqual([]);
  });
});

describe('ThinkStripper', () => {
  const strip = (pieces: readonly string[]) => {
    const stripper = new ThinkStripper();
    return pieces.map((p) => stripper.add(p)).join('') + stripper.end();
  };

  it('drops a leading block however the stream splits it, and keeps every other text whole', () => {
    const answer = '  <think>先想想 a<b</think>\n答案 <think> 不是开头的不算';
    expect(strip([...answer])).toBe('答案 <think> 不是开头的不算');
    expect(strip([answer])).toBe('答案 <think> 不是开头的不算');
    expect(strip(['<thi', 'nk>半截'])).toBe('');
    expect(strip(['<thi'])).toBe('<thi');
    expect(strip(['<b>粗体</b>'])).toBe('<b>粗体</b>');
    expect(strip(['', '好的'])).toBe('好的');
  });
});

describe('a stream that ends without finish_reason', () => {
  const text = '我先把标题图层的不透明度调到一半，再';

  it('is said to be cut when neither a finish_reason nor the closing [DONE] came (the connection dropped)', async () => {
    model = await startScriptedModel([{ raw: sseChunk({ role: 'assistant', content: text }) }]);
    const conv = conversation(newSession(), modelConfig(model.url, { stream: true }));
    const events = await turn(conv, '标题透明度一半');
    const said = events.find((e) => e.type === 'assistant') as { text: string };
    expect(said.text.startsWith(text)).toBe(true);
    expect(said.text).toContain('中途断开');
    // The CLI prints a streamed answer from its deltas only: the note is among them.
    const shown = events.flatMap((e) => (e.type === 'assistant_delta' ? [e.text] : [])).join('');
    expect(shown).toBe(said.text);
  });

  it('is taken whole when the server closed it with [DONE] (some servers leave the reason out)', async () => {
    model = await startScriptedModel([
      // The marker split across two writes is still seen.
      { raw: `${sseChunk({ role: 'assistant', content: '好了' })}data: [DO` },
    ]);
    model.push({ raw: `${sseChunk({ role: 'assistant', content: '好了' })}data:[DONE]\n\n` });
    const conv = conversation(newSession(), modelConfig(model.url, { stream: true }));
    // The first answer lacks the end of its marker: cut.
    expect((await turn(conv, '你好')).find((e) => e.type === 'assistant')).toMatchObject({
      text: expect.stringContaining('中途断开'),
    });
    expect((await turn(conv, '再说一次')).find((e) => e.type === 'assistant')).toEqual({
      type: 'assistant',
      text: '好了',
    });
  });

  it('runs the calls of an answer closed with [DONE] without a finish_reason', async () => {
    model = await startScriptedModel([
      streamed(
        sseChunk({
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: 'c1',
              type: 'function',
              function: { name: 'create_document', arguments: '{"width":40,"height":30}' },
            },
          ],
        }),
      ),
      { text: '建好了' },
    ]);
    const session = newSession();
    const conv = conversation(session, modelConfig(model.url, { stream: true }));
    const events = await turn(conv, '新建文档');
    expect(events.filter((e) => e.type === 'tool_result')).toMatchObject([{ ok: true }]);
    expect(last(events)).toEqual({ type: 'done', steps: 2 });
  });
});
