import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CALLS_PER_MESSAGE } from '../../src/agent/conversation.js';
import type { ChatEvent } from '../../src/agent/events.js';
import { MAX_ANSWER_CHARS } from '../../src/agent/model-client.js';
import { rebuildConversation } from '../../src/agent/restore.js';
import { TranscriptReplay } from '../../src/agent/transcript.js';
import { NO_OFFERED_WAY } from '../../src/calls/offered-tools.js';
import { snapshotOf } from '../../src/calls/snapshot.js';
import { toOpenAI } from '../../src/registry/formats/index.js';
import { allTools, toolsOf } from '../../src/registry/index.js';
import { garmentDocument, NAMES, usePhoto } from '../support/garment-fixtures.js';
import {
  type ScriptedModel,
  type ScriptedRequest,
  type ScriptStep,
  startScriptedModel,
} from '../support/scripted-model.js';
import { newSession, ok, tempDir } from '../support/session.js';
import {
  conversation,
  expectEveryCallAnswered,
  last,
  modelConfig,
  SECRET_KEY,
  sseChunk,
  startEndlessModel,
  turn,
  wholeAnswer,
} from './support.js';

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const toolMessages = (req: ScriptedRequest) => req.body.messages.filter((m) => m.role === 'tool');
const results = (req: ScriptedRequest) => toolMessages(req).map((m) => JSON.parse(m.content as string));
const types = (events: readonly ChatEvent[]) =>
  events.map((e) => e.type).filter((t) => t !== 'assistant_delta');

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('a turn with tool calls ($name answers)', ({ stream }) => {
  it('sends the registry tools, runs the calls in order and answers each call id', async () => {
    model = await startScriptedModel([
      {
        text: '好的，我来新建海报。',
        toolCalls: [
          { id: 'call_doc', name: 'create_document', arguments: { width: 320, height: 200, name: '海报' } },
          {
            id: 'call_text',
            name: 'create_text_layer',
            arguments: { text: '春季新品', x: 20, y: 40, font_size: 32, color: '#c0392b' },
          },
          { id: 'call_bad', name: 'set_layer_opacity', arguments: { name: '没有这个图层', opacity: 50 } },
        ],
      },
      { text: '海报已建好，标题是红色的“春季新品”。' },
    ]);
    const session = newSession();
    const conv = conversation(session, modelConfig(model.url, { stream }));
    const events = await turn(conv, '做一张 320×200 的海报，标题“春季新品”');

    expect(types(events)).toEqual([
      'user',
      'assistant',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'assistant',
      'done',
    ]);
    expect(last(events)).toEqual({ type: 'done', steps: 2 });
    const calls = events.filter((e) => e.type === 'tool_call');
    expect(calls.map((c) => [c.id, c.name, c.label])).toEqual([
      ['call_doc', 'create_document', '新建文档'],
      ['call_text', 'create_text_layer', '创建文字'],
      ['call_bad', 'set_layer_opacity', '设置透明度'],
    ]);
    expect(calls[0]!.arguments).toEqual({ width: 320, height: 200, name: '海报' });
    const outcome = events.filter((e) => e.type === 'tool_result');
    expect(outcome.map((r) => r.ok)).toEqual([true, true, false]);
    expect(JSON.stringify(outcome[2]!.result)).toContain('not_found');
    if (stream) expect(events.filter((e) => e.type === 'assistant_delta').length).toBeGreaterThan(2);
    else expect(events.some((e) => e.type === 'assistant_delta')).toBe(false);

    const [first, second] = model.requests;
    expect(first!.body.stream).toBe(stream);
    expect(first!.body.model).toBe('scripted-model');
    expect(first!.body.tools).toEqual(toOpenAI(toolsOf('extended')));
    expect(first!.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    const [system, user] = first!.body.messages;
    expect(system!.role).toBe('system');
    expect(system!.content).toMatch(/identify_pieces[\s\S]*generate_garment_preview[\s\S]*等待用户确认/);
    expect(system!.content).toContain('hint');
    expect(user!.content).toMatch(/^做一张 320×200 的海报/);
    expect(user!.content).toContain('没有打开的文档');

    // The second request carries the assistant's calls, each answered by id in order, results without images.
    const sent = second!.body.messages;
    expectEveryCallAnswered(sent as never);
    expect(toolMessages(second!).map((m) => m.tool_call_id)).toEqual(['call_doc', 'call_text', 'call_bad']);
    expect(results(second!).map((r) => r.ok)).toEqual([true, true, false]);
    expect(results(second!)[2].error.hint).toBeTruthy();

    const state = await snapshotOf(session);
    expect(state.active?.name).toBe('海报');
    expect(state.active?.layers.map((l) => (l as { name: string }).name)).toEqual(['春季新品', '背景']);
  });
});

describe('the state summary', () => {
  it('tells the model about the open documents, their layers and the garment photo at each turn', async () => {
    model = await startScriptedModel([{ text: '好的' }]);
    const session = newSession();
    await ok(session, 'create_document', { width: 100, height: 80, name: '草稿' });
    await ok(session, 'create_layer', { name: '色块' });
    await turn(conversation(session, modelConfig(model.url)), '看看现在有什么');
    const user = model.requests[0]!.body.messages[1]!.content as string;
    expect(user).toContain('草稿（100×80 px，150 DPI，RGB');
    expect(user).toMatch(/- 色块（pixel/);
    expect(user).toMatch(/- 背景（fill，背景/);
    expect(user).toContain('当前图层：色块');
    expect(user).toContain('服装照片：未上传');
  });
});

describe('parts the user confirms', () => {
  it('go back through confirm_piece_parts and show as confirmed in the next turn’s state', async () => {
    const right = NAMES.none.right;
    model = await startScriptedModel([
      { toolCalls: [{ id: 'i1', name: 'identify_pieces', arguments: {} }] },
      { text: '有几片不确定，请确认。' },
      {
        toolCalls: [
          {
            id: 'c1',
            name: 'confirm_piece_parts',
            arguments: { pieces: [{ name: right, part: 'right_sleeve' }] },
          },
        ],
      },
      { text: '已记下。' },
      { text: '好的。' },
    ]);
    const session = newSession();
    await garmentDocument(session, 'none');
    const conv = conversation(session, modelConfig(model.url));
    await turn(conv, '识别裁片');
    const events = await turn(conv, `${right} 是右袖`);
    const result = events.find((e) => e.type === 'tool_result' && e.name === 'confirm_piece_parts');
    expect(result?.type === 'tool_result' && result.ok).toBe(true);
    const pieces = (result as { result: { pieces: { name: string; part: string; decided_by: string }[] } })
      .result.pieces;
    expect(pieces.find((p) => p.name === right)).toMatchObject({ part: 'right_sleeve', decided_by: 'user' });
    await turn(conv, '继续');
    const state = model.requests[4]!.body.messages.at(-1)!.content as string;
    expect(state).toContain(`${right}=右袖（用户已确认）`);
  });
});

describe('result images', () => {
  const script = () => [
    {
      toolCalls: [
        { id: 'c1', name: 'create_document', arguments: { width: 3000, height: 1500 } },
        { id: 'c2', name: 'get_canvas_image', arguments: { max_size: 2048 } },
      ],
    },
    { text: '画布是白色的。' },
  ];

  it('go to a vision model as a downscaled JPEG in a user message after the tool messages', async () => {
    model = await startScriptedModel(script());
    const events = await turn(
      conversation(newSession(), modelConfig(model.url, { vision: true })),
      '看看画布',
    );
    expect(last(events).type).toBe('done');
    const result = events.find((e) => e.type === 'tool_result' && e.name === 'get_canvas_image');
    expect(result?.type === 'tool_result' && result.images?.[0]?.mime).toBe('image/png');

    const sent = model.requests[1]!.body.messages;
    const toolIndex = sent.findIndex((m) => m.role === 'tool' && m.tool_call_id === 'c2');
    const tool = sent[toolIndex]!;
    expect(tool.content as string).not.toMatch(/base64|iVBOR/);
    expect(JSON.parse(tool.content as string).images).toEqual([
      expect.objectContaining({ mime: 'image/png', width: 2048, height: 1024 }),
    ]);
    const follow = sent[toolIndex + 1]!;
    expect(follow.role).toBe('user');
    const parts = follow.content as { type: string; text?: string; image_url?: { url: string } }[];
    const images = parts.filter((p) => p.type === 'image_url');
    expect(images).toHaveLength(1);
    const url = images[0]!.image_url!.url;
    expect(url.startsWith('data:image/jpeg;base64,')).toBe(true);
    const meta = await sharp(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1024, 512]);
    // The tool's result gives its image's size (2048 × 1024): the title says the picture sent is half that.
    const title = parts.find((p) => p.type === 'text' && /^图 1/.test(p.text ?? ''));
    expect(title?.text).toContain('发送给你时缩小为 1024×512（图上的像素坐标乘以 2 为原图坐标）');
  });

  it('sent at the size the tool gave are titled without a note of their own', async () => {
    model = await startScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'create_document', arguments: { width: 3000, height: 1500 } }] },
      { toolCalls: [{ id: 'c2', name: 'get_canvas_image', arguments: { max_size: 600 } }] },
      { text: '好' },
    ]);
    await turn(conversation(newSession(), modelConfig(model.url, { vision: true })), '看看画布');
    const parts = model.requests[2]!.body.messages.at(-1)!.content as { type: string; text?: string }[];
    const title = parts.find((p) => p.type === 'text' && /^图 1/.test(p.text ?? ''))!.text!;
    expect(title).toContain('缩放为 600×300');
    expect(title).not.toContain('发送给你时');
  });

  it('are described in words to a text-only model, which gets no image message', async () => {
    model = await startScriptedModel(script());
    await turn(conversation(newSession(), modelConfig(model.url, { vision: false })), '看看画布');
    const sent = model.requests[1]!.body.messages;
    expect(sent.some((m) => Array.isArray(m.content))).toBe(false);
    expect(JSON.stringify(sent)).not.toContain('image_url');
    const described = JSON.parse(sent.find((m) => m.tool_call_id === 'c2')!.content as string).images;
    expect(described).toEqual([expect.objectContaining({ width: 2048, height: 1024, mime: 'image/png' })]);
    expect(model.requests[0]!.body.messages[0]!.content).toContain('你看不到图像');
  });
});

describe('bounds', () => {
  it('stops after max steps with every call answered, and the next turn works', async () => {
    const again = { toolCalls: [{ name: 'list_documents', arguments: {} }] };
    model = await startScriptedModel([again, again, again, again]);
    const session = newSession();
    const conv = conversation(session, modelConfig(model.url, { maxSteps: 3 }));
    const events = await turn(conv, '一直查');
    expect(last(events)).toMatchObject({ type: 'error', code: 'max_steps' });
    expect((last(events) as { message: string }).message).toContain('3');
    expect(events.some((e) => e.type === 'done')).toBe(false);
    expect(model.requests).toHaveLength(3);
    expect(model.remaining).toBe(1);

    model.push({ text: '好的，停下了。' });
    const next = await turn(conv, '停');
    expect(last(next)).toEqual({ type: 'done', steps: 2 });
    expectEveryCallAnswered(last(model.requests).body.messages as never);
  });

  it('runs at most MAX_CALLS_PER_MESSAGE calls of one answer and answers the rest without running them', async () => {
    const count = MAX_CALLS_PER_MESSAGE + 5;
    model = await startScriptedModel([
      {
        toolCalls: Array.from({ length: count }, (_, i) => ({
          name: 'create_layer',
          arguments: { name: `层${i}` },
        })),
      },
      { text: '好了' },
    ]);
    const session = newSession();
    await ok(session, 'create_document', { width: 8, height: 8 });
    const file = join(tempDir(), 'chat.jsonl');
    const events = await turn(
      conversation(session, modelConfig(model.url), { transcript: file }),
      '加很多层',
    );
    expect(last(events)).toEqual({ type: 'done', steps: 2 });
    expect(events.filter((e) => e.type === 'tool_call')).toHaveLength(MAX_CALLS_PER_MESSAGE);
    expect((await snapshotOf(session)).active?.layers).toHaveLength(MAX_CALLS_PER_MESSAGE + 1);
    const sent = model.requests[1]!.body.messages;
    expectEveryCallAnswered(sent as never);
    const answers = results(model.requests[1]!);
    expect(answers).toHaveLength(count);
    expect(answers.slice(MAX_CALLS_PER_MESSAGE).map((r) => r.error.code)).toEqual(
      Array(5).fill('too_many_calls'),
    );
    // Rebuilt after a restart, the conversation shows the same cards.
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const rebuilt = rebuildConversation(lines, { vision: false });
    expect(rebuilt.events.filter((e) => e.type === 'tool_call')).toHaveLength(MAX_CALLS_PER_MESSAGE);
  });

  it('answers a second turn while one runs with busy, and refuses an empty message', async () => {
    model = await startScriptedModel([{ text: '慢慢来', delayMs: 300 }]);
    const conv = conversation(newSession(), modelConfig(model.url));
    const first = turn(conv, '第一条');
    expect(conv.running).toBe(true);
    const second = await turn(conv, '第二条');
    expect(second).toEqual([{ type: 'error', code: 'busy', message: expect.any(String) }]);
    expect(last(await first)).toEqual({ type: 'done', steps: 1 });
    expect(conv.running).toBe(false);
    expect(await turn(conv, '   ')).toEqual([
      { type: 'error', code: 'invalid_message', message: expect.any(String) },
    ]);
    expect(model.requests).toHaveLength(1);
  });
});

describe('cancel', () => {
  it('during a model request ends the turn at once and changes nothing', async () => {
    model = await startScriptedModel([
      { toolCalls: [{ name: 'create_document', arguments: { width: 10, height: 10 } }], delayMs: 5000 },
    ]);
    const session = newSession();
    const conv = conversation(session, modelConfig(model.url));
    expect(conv.cancel()).toBe(false);
    const pending = turn(conv, '新建');
    setTimeout(() => conv.cancel(), 100);
    const events = await pending;
    expect(last(events)).toMatchObject({ type: 'error', code: 'cancelled' });
    expect(events.some((e) => e.type === 'tool_call')).toBe(false);
    expect((await snapshotOf(session)).documents).toEqual([]);
    expect(conv.running).toBe(false);
  });

  it('during a streamed answer drops the half-received message', async () => {
    model = await startScriptedModel([{ text: '这句话说不完', stallAfterChunks: 2 }]);
    const conv = conversation(newSession(), modelConfig(model.url));
    const events = await turn(conv, '说点什么', (e) => {
      if (e.type === 'assistant_delta') setTimeout(() => conv.cancel(), 50);
    });
    expect(types(events)).toEqual(['user', 'error']);
    expect(last(events)).toMatchObject({ code: 'cancelled' });
  });

  it('during a call cancels it too (it keeps nothing), runs no later call, and answers both for the next turn', async () => {
    model = await startScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'create_document', arguments: { width: 40, height: 40, name: '甲' } },
          { id: 'b', name: 'create_layer', arguments: { name: '不该出现' } },
        ],
      },
    ]);
    const session = newSession();
    const conv = conversation(session, modelConfig(model.url));
    const events = await turn(conv, '新建', (e) => {
      if (e.type === 'tool_call' && e.id === 'a') conv.cancel();
    });
    expect(types(events)).toEqual(['user', 'tool_call', 'tool_result', 'error']);
    expect(last(events)).toMatchObject({ code: 'cancelled' });
    const result = events.find((e) => e.type === 'tool_result') as {
      result: { ok: boolean; error?: unknown };
    };
    expect(result.result).toMatchObject({ ok: false, error: { details: { cancelled: true } } });
    expect((await snapshotOf(session)).documents).toEqual([]);
    expect(model.requests).toHaveLength(1);

    model.push({ text: '好的' });
    expect(last(await turn(conv, '继续'))).toMatchObject({ type: 'done' });
    const sent = last(model.requests).body.messages;
    expectEveryCallAnswered(sent as never);
    const cancelled = JSON.parse(sent.find((m) => m.tool_call_id === 'a')!.content as string);
    expect(cancelled.error.details.cancelled).toBe(true);
    const skipped = JSON.parse(sent.find((m) => m.tool_call_id === 'b')!.content as string);
    expect(skipped.error.code).toBe('cancelled');
  });
});

describe('the identify ↔ preview loop guard', () => {
  it('refuses a repeated garment step on unchanged input without running it, until the document changes', async () => {
    const session = newSession();
    await garmentDocument(session);
    await usePhoto(session, 'fill');
    let memoryBefore: unknown;
    let memoryAfterRefusals: unknown;
    model = await startScriptedModel([
      {
        toolCalls: [
          { id: 'i1', name: 'identify_pieces', arguments: {} },
          { id: 'p1', name: 'generate_garment_preview', arguments: {} },
        ],
      },
      () => {
        memoryBefore = session.garment;
        return { toolCalls: [{ id: 'i2', name: 'identify_pieces', arguments: {} }] };
      },
      { toolCalls: [{ id: 'p2', name: 'generate_garment_preview', arguments: {} }] },
      () => {
        memoryAfterRefusals = session.garment;
        return {
          toolCalls: [
            { id: 'l', name: 'create_layer', arguments: { name: '备注' } },
            { id: 'i3', name: 'identify_pieces', arguments: {} },
          ],
        };
      },
      { text: '预览已生成，请确认。' },
    ]);
    const conv = conversation(session, modelConfig(model.url));
    const events = await turn(conv, '套图');
    expect(last(events)).toMatchObject({ type: 'done', steps: 5 });
    const outcome = Object.fromEntries(
      events.flatMap((e) => (e.type === 'tool_result' ? [[e.id, e.result as Record<string, unknown>]] : [])),
    );
    expect(outcome.i1!.ok).toBe(true);
    expect(outcome.p1!.ok).toBe(true);
    for (const id of ['i2', 'p2']) {
      expect(outcome[id]).toMatchObject({ ok: false, error: { code: 'invalid_state' } });
      expect((outcome[id]!.error as { hint: string }).hint).toMatch(/确认/);
    }
    expect(memoryAfterRefusals, 'the refused calls did not run').toBe(memoryBefore);
    expect(outcome.i3!.ok, 'a document change in between lets identify run again').toBe(true);
    expect(session.garment).not.toBe(memoryBefore);

    // A new user message starts afresh: the user may ask for the preview again.
    model.push(
      { toolCalls: [{ id: 'p3', name: 'generate_garment_preview', arguments: {} }] },
      { text: '好了' },
    );
    const again = await turn(conv, '重新生成预览');
    expect(again.find((e) => e.type === 'tool_result')).toMatchObject({ ok: true });
  });
});

describe('model failures', () => {
  async function failing(steps: readonly ScriptStep[], over = {}) {
    model = await startScriptedModel([
      {
        toolCalls: [
          { id: 'ok1', name: 'create_document', arguments: { width: 30, height: 30, name: '留下' } },
        ],
      },
      ...steps,
    ]);
    const session = newSession();
    const errors: unknown[] = [];
    const transcript = join(tempDir(), 'chat.jsonl');
    const conv = conversation(session, modelConfig(model.url, over), { transcript, errors });
    const events = await turn(conv, '新建然后继续');
    return { session, conv, events, errors, transcript };
  }

  /** The turn ended with `code`, the document made before the failure is intact, and the next turn works. */
  async function expectCleanEnd(run: Awaited<ReturnType<typeof failing>>, code: string) {
    const end = last(run.events);
    expect(end).toMatchObject({ type: 'error', code });
    expect((end as { message: string }).message).toMatch(/[\u4e00-\u9fff]/);
    expect(run.events.some((e) => e.type === 'done')).toBe(false);
    const state = await snapshotOf(run.session);
    expect(state.documents.map((d) => d.name)).toEqual(['留下']);
    expect(state.active?.history.labels).toEqual(['新建文档']);
    model!.push({ text: '现在好了' });
    const next = await turn(run.conv, '再试一次');
    expect(last(next)).toEqual({ type: 'done', steps: 1 });
    expectEveryCallAnswered(last(model!.requests).body.messages as never);
    const everything = JSON.stringify([run.events, next, String(run.errors)]);
    expect(everything).not.toContain(SECRET_KEY);
    expect(everything).not.toContain(SECRET_KEY.slice(-12));
    expect(readFileSync(run.transcript, 'utf8')).not.toContain(SECRET_KEY.slice(-12));
    return end as { message: string };
  }

  it('401 (with the key echoed back) → model_auth, naming the variable, never the key', async () => {
    const run = await failing([
      (req) => ({ status: 401, error: `Incorrect API key provided: ${String(req.headers.authorization)}` }),
    ]);
    const end = await expectCleanEnd(run, 'model_auth');
    expect(end.message).toContain('ATELIER_MODEL_API_KEY');
  });

  it('404 → model_not_found, naming the model', async () => {
    const end = await expectCleanEnd(
      await failing([{ status: 404, error: 'model not found' }]),
      'model_not_found',
    );
    expect(end.message).toContain('scripted-model');
  });

  it('429 is retried after Retry-After; still 429 after the retries → model_rate_limited', async () => {
    const limited = { status: 429, headers: { 'retry-after-ms': '20' } };
    const run = await failing([limited, limited, limited, limited]);
    await expectCleanEnd(run, 'model_rate_limited');
    expect(model!.requests).toHaveLength(1 + 4 + 1);
  });

  it('a 429 that asks for a longer wait than the cap ends the turn at once, saying how long', async () => {
    // A spent quota asks for an hour: waiting it out would leave the designer with a spinner for an hour.
    const run = await failing([{ status: 429, headers: { 'retry-after': '3600' } }]);
    const end = await expectCleanEnd(run, 'model_rate_limited');
    expect(model!.requests).toHaveLength(1 + 1 + 1);
    expect(end.message).toContain('3600 秒');
    expect(end.message).not.toContain('重试 3 次');
  });

  it('retry-after-ms: 0 beside a long retry-after is read as the SDK reads it: the long wait, not retried', async () => {
    const run = await failing([{ status: 429, headers: { 'retry-after-ms': '0', 'retry-after': '3600' } }]);
    const end = await expectCleanEnd(run, 'model_rate_limited');
    expect(model!.requests).toHaveLength(1 + 1 + 1);
    expect(end.message).toContain('3600 秒');
  });

  it('a 503 that asks for a wait as a date past the cap is not retried either', async () => {
    const later = new Date(Date.now() + 600_000).toUTCString();
    const run = await failing([{ status: 503, headers: { 'retry-after': later } }]);
    const end = await expectCleanEnd(run, 'model_unavailable');
    expect(model!.requests).toHaveLength(1 + 1 + 1);
    expect(end.message).toMatch(/要求 (59\d|600) 秒后再试/);
  });

  it('a 429 followed by an answer succeeds without the user seeing it', async () => {
    const run = await failing([{ status: 429, headers: { 'retry-after-ms': '20' } }, { text: '完成' }]);
    expect(last(run.events)).toEqual({ type: 'done', steps: 2 });
  });

  it('500 after the retries → model_unavailable', async () => {
    const broken = { status: 500, headers: { 'retry-after-ms': '10' } };
    await expectCleanEnd(await failing([broken, broken, broken, broken]), 'model_unavailable');
  });

  it('no answer within the timeout → model_timeout', async () => {
    const slow = { text: '太慢', delayMs: 3000 };
    // Not retried: the designer is told of one timeout and waits for one.
    const run = await failing([slow], { timeoutMs: 150 });
    await expectCleanEnd(run, 'model_timeout');
  });

  it('a stream that falls silent → model_timeout', async () => {
    const run = await failing([{ text: '说到一半就停了', stallAfterChunks: 2 }], { timeoutMs: 300 });
    expect(run.events.some((e) => e.type === 'assistant_delta')).toBe(true);
    await expectCleanEnd(run, 'model_timeout');
  });

  it('a whole answer whose body never ends → model_timeout', async () => {
    const run = await failing([{ text: '半截', stallAfterChunks: 1 }], { timeoutMs: 300, stream: false });
    await expectCleanEnd(run, 'model_timeout');
  });

  it('a stream that is not JSON → model_bad_response', async () => {
    await expectCleanEnd(await failing([{ raw: 'data: {not json\n\n' }]), 'model_bad_response');
  });

  it('a refused request (400) → model_rejected quoting the server, key removed', async () => {
    const run = await failing([
      (req) => ({ status: 400, error: `tools are not supported (key ${String(req.headers.authorization)})` }),
    ]);
    const end = await expectCleanEnd(run, 'model_rejected');
    expect(end.message).toContain('tools are not supported');
  });
});

describe('a vision setting the service refuses', () => {
  it('drops the images from the conversation so the next turn works', async () => {
    const refusesImages = (req: ScriptedRequest) =>
      JSON.stringify(req.body.messages).includes('image_url')
        ? { status: 400, error: 'Image input is not supported by this model' }
        : { text: '好的' };
    model = await startScriptedModel([
      { toolCalls: [{ name: 'create_document', arguments: { width: 50, height: 50 } }] },
      { toolCalls: [{ name: 'get_canvas_image', arguments: {} }] },
      refusesImages,
      refusesImages,
    ]);
    const conv = conversation(newSession(), modelConfig(model.url, { vision: true }));
    const first = await turn(conv, '看看画布');
    expect(last(first)).toMatchObject({ type: 'error', code: 'model_rejected' });
    expect((last(first) as { message: string }).message).toMatch(
      /Image input is not supported[\s\S]*图像已移除/,
    );
    expect(last(await turn(conv, '那就不看了'))).toEqual({ type: 'done', steps: 1 });
  });
});

describe('malformed tool arguments', () => {
  it('are answered with invalid_json so the model corrects itself', async () => {
    let seen: unknown;
    model = await startScriptedModel([
      { toolCalls: [{ id: 'x', name: 'create_document', arguments: '{"width": 64, "height":' }] },
      (req) => {
        seen = JSON.parse(last(req.body.messages).content as string);
        return { toolCalls: [{ id: 'y', name: 'create_document', arguments: { width: 64, height: 48 } }] };
      },
      { text: '好了' },
    ]);
    const session = newSession();
    const events = await turn(conversation(session, modelConfig(model.url)), '新建');
    expect(seen).toMatchObject({ ok: false, error: { code: 'invalid_json' } });
    const call = events.find((e) => e.type === 'tool_call' && e.id === 'x');
    expect(call).toMatchObject({ arguments: '{"width": 64, "height":' });
    expect(last(events)).toEqual({ type: 'done', steps: 3 });
    expect((await snapshotOf(session)).documents).toHaveLength(1);
  });

  it('go back as {} to a service that parses the calls in the history, and the transcript keeps them as sent', async () => {
    /** As vLLM before 0.11 and llama.cpp: a history call whose arguments are not a JSON object is refused. */
    const parsesHistory =
      (answer: ScriptStep): ScriptStep =>
      (req) => {
        const calls = req.body.messages.flatMap(
          (m) => (m.tool_calls ?? []) as { function: { arguments: string } }[],
        );
        for (const c of calls) {
          try {
            const value = JSON.parse(c.function.arguments);
            if (typeof value !== 'object' || value === null || Array.isArray(value))
              throw new Error('not an object');
          } catch {
            return { status: 400, error: 'Failed to parse tool call arguments as JSON' };
          }
        }
        return typeof answer === 'function' ? answer(req) : answer;
      };
    model = await startScriptedModel([
      {
        toolCalls: [
          { id: 'x', name: 'create_document', arguments: '{"width": 64, "height":' },
          { id: 'e', name: 'list_documents', arguments: '' },
        ],
      },
      parsesHistory({
        toolCalls: [{ id: 'y', name: 'create_document', arguments: { width: 64, height: 48 } }],
      }),
      parsesHistory({ text: '好了' }),
      parsesHistory({ text: '你好' }),
    ]);
    const session = newSession();
    const transcript = join(tempDir(), 'chat.jsonl');
    const conv = conversation(session, modelConfig(model.url), { transcript });
    expect(last(await turn(conv, '新建'))).toEqual({ type: 'done', steps: 3 });
    expect(last(await turn(conv, '你好'))).toEqual({ type: 'done', steps: 1 });
    const sent = last(model.requests).body.messages.find((m) => m.role === 'assistant')!;
    expect(
      (sent.tool_calls as { function: { arguments: string } }[]).map((c) => c.function.arguments),
    ).toEqual(['{}', '{}']);
    const written = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.role === 'assistant');
    expect(written.tool_calls.map((c: { function: { arguments: string } }) => c.function.arguments)).toEqual([
      '{"width": 64, "height":',
      '',
    ]);
  });
});

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('tool calls of one message that share an id ($name answers)', ({ stream }) => {
  it('each get an id of their own, so each answer and each replayed call is the right one', async () => {
    model = await startScriptedModel([
      {
        toolCalls: [
          { id: 'call_0', name: 'create_document', arguments: { width: 20, height: 10, name: '甲' } },
          { id: 'call_0', name: 'create_document', arguments: { width: 30, height: 10, name: '乙' } },
        ],
      },
      { text: '好了' },
    ]);
    const session = newSession();
    const file = join(tempDir(), 'chat.jsonl');
    const events = await turn(
      conversation(session, modelConfig(model.url, { stream }), { transcript: file }),
      '两个文档',
    );
    expect(last(events)).toEqual({ type: 'done', steps: 2 });
    const ids = events.filter((e) => e.type === 'tool_call').map((e) => e.id);
    expect(ids[0]).toBe('call_0');
    expect(new Set(ids).size).toBe(2);
    const sent = model.requests[1]!.body.messages;
    expectEveryCallAnswered(sent as never);
    expect(toolMessages(model.requests[1]!).map((m) => m.tool_call_id)).toEqual(ids);

    // `atelier run chat.jsonl` replays both calls, in order.
    const replay = new TranscriptReplay();
    const replayed = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .flatMap((line) => replay.callsOf(JSON.parse(line)) ?? []) as { function: { arguments: string } }[];
    expect(replayed.map((c) => JSON.parse(c.function.arguments).name)).toEqual(['甲', '乙']);
  });
});

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('an answer cut by the output-token limit ($name)', ({ stream }) => {
  /** An answer whose last call was cut right after its name, finishing with `length` as OpenAI does. */
  const cutAnswer = (finish: string) => {
    const calls = [
      {
        index: 0,
        id: 'c1',
        type: 'function',
        function: { name: 'create_layer', arguments: '{"name":"新图层"}' },
      },
      { index: 1, id: 'c2', type: 'function', function: { name: 'delete_layer', arguments: '' } },
    ];
    if (!stream) {
      return {
        contentType: 'application/json',
        raw: JSON.stringify(wholeAnswer({ role: 'assistant', content: null, tool_calls: calls }, finish)),
      };
    }
    return {
      raw: `${sseChunk({ role: 'assistant', content: '' })}${sseChunk({ tool_calls: calls })}${sseChunk({}, finish)}data: [DONE]\n\n`,
    };
  };

  it('runs none of its calls (the last may be cut anywhere, even before its arguments)', async () => {
    model = await startScriptedModel([cutAnswer('length'), cutAnswer('content_filter'), { text: '好的' }]);
    const session = newSession();
    await ok(session, 'create_document', { width: 20, height: 10 });
    await ok(session, 'create_layer', { name: '要保留的' });
    const before = await snapshotOf(session);
    const conv = conversation(session, modelConfig(model.url, { stream }));
    for (const text of ['加一个图层', '再试一次']) {
      const events = await turn(conv, text);
      expect(last(events)).toMatchObject({ type: 'error', code: 'model_bad_response' });
      expect(events.some((e) => e.type === 'tool_call')).toBe(false);
    }
    expect(await snapshotOf(session)).toEqual(before);
    expect(last(await turn(conv, '好了吗'))).toEqual({ type: 'done', steps: 1 });
    expectEveryCallAnswered(last(model.requests).body.messages as never);
  });
});

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('an answer that never ends ($name)', ({ stream }) => {
  it('is cut at MAX_ANSWER_CHARS: the turn ends with model_bad_response naming the limit, no call runs', async () => {
    const endless = await startEndlessModel(stream);
    try {
      const session = newSession();
      await ok(session, 'create_document', { width: 20, height: 10 });
      const before = await snapshotOf(session);
      const conv = conversation(session, modelConfig(endless.url, { stream }));
      const events = await turn(conv, '加一个图层');
      const end = last(events);
      expect(end).toMatchObject({ type: 'error', code: 'model_bad_response' });
      expect((end as { message: string }).message).toContain(`${MAX_ANSWER_CHARS} 个字符的上限`);
      expect((end as { message: string }).message).toContain('ATELIER_MODEL_MAX_OUTPUT_TOKENS=4096');
      expect(events.some((e) => e.type === 'tool_call')).toBe(false);
      expect(await snapshotOf(session)).toEqual(before);
      const shown = events.reduce((n, e) => n + (e.type === 'assistant_delta' ? e.text.length : 0), 0);
      expect(shown).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
      // The connection is dropped, not left to run on.
      await endless.dropped;
    } finally {
      await endless.close();
    }
  });
});

describe('a model without a key', () => {
  it('is sent no Authorization header', async () => {
    model = await startScriptedModel([{ text: '你好' }]);
    await turn(conversation(newSession(), modelConfig(model.url, { apiKey: null })), '你好');
    expect(model.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe('a turn the model never answered', () => {
  /** Answers as DeepSeek's reasoner and chat templates of Gemma or Mistral do: two user messages in a row refused. */
  const alternating =
    (text: string): ScriptStep =>
    (req) => {
      const roles = req.body.messages.map((m) => m.role);
      const at = roles.findIndex((r, i) => i > 0 && r === 'user' && roles[i - 1] === 'user');
      return at < 0
        ? { text }
        : {
            status: 400,
            error: `does not support successive user or assistant messages (messages[${at - 1}] and messages[${at}] in your input)`,
          };
    };

  it('is sent with the next message as one user message, so a service that wants turns to alternate goes on', async () => {
    model = await startScriptedModel([
      { status: 400, error: 'scripted: refused once' },
      {
        toolCalls: [
          { id: 'c1', name: 'create_document', arguments: { width: 64, height: 32 } },
          { id: 'c2', name: 'get_canvas_image', arguments: { max_size: 64 } },
        ],
      },
      // An empty answer (a refusal would also drop the images from the conversation).
      { raw: 'data: [DONE]\n\n' },
      alternating('好的，两件事都记下了。'),
      alternating('继续。'),
    ]);
    const conv = conversation(newSession(), modelConfig(model.url, { vision: true }));
    expect(last(await turn(conv, '标题用红色'))).toMatchObject({ type: 'error', code: 'model_rejected' });
    expect(last(await turn(conv, '看看画布'))).toMatchObject({ type: 'error', code: 'model_bad_response' });
    expect(last(await turn(conv, '再试一次'))).toEqual({ type: 'done', steps: 1 });
    expect(last(await turn(conv, '下一步'))).toEqual({ type: 'done', steps: 1 });

    const sent = model.requests[3]!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
    // Nothing the designer said is lost: the unanswered message comes first, the state summary once (the
    // newer message's: the earlier one's is out of date).
    const first = sent[1]!.content as string;
    expect(first.indexOf('标题用红色')).toBeGreaterThanOrEqual(0);
    expect(first.indexOf('看看画布')).toBeGreaterThan(first.indexOf('标题用红色'));
    expect(first.split('【会话状态】').length).toBe(2);
    const lastUser = sent[5]!.content as { type: string; text?: string }[];
    expect(lastUser.filter((p) => p.type === 'image_url')).toHaveLength(1);
    expect(lastUser.at(-1)).toMatchObject({ type: 'text', text: expect.stringContaining('再试一次') });
    expectEveryCallAnswered(sent);
  });
});

describe('a message sent again after the model service failed to answer it', () => {
  it('is said once, with the state as it is now', async () => {
    const down = { status: 503, headers: { 'retry-after-ms': '5' } };
    model = await startScriptedModel([down, down, down, down, { text: '好的。' }]);
    const conv = conversation(newSession(), modelConfig(model.url));
    expect(last(await turn(conv, '把标题改成红色'))).toMatchObject({ code: 'model_unavailable' });
    expect(last(await turn(conv, '把标题改成红色'))).toEqual({ type: 'done', steps: 1 });
    const sent = last(model.requests).body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
    const words = sent[1]!.content as string;
    expect(words.split('把标题改成红色').length).toBe(2);
    expect(words.split('【会话状态】').length).toBe(2);
  });
});

describe('a model given the reduced tools', () => {
  it('is told of no tool outside them, in the system prompt or the state summary', async () => {
    model = await startScriptedModel([{ text: '好的。' }]);
    await turn(conversation(newSession(), modelConfig(model.url, { tools: 'reduced' })), '你好');
    const body = model.requests[0]!.body;
    const sent = new Set((body.tools as { function: { name: string } }[]).map((t) => t.function.name));
    expect([...sent].sort()).toEqual(
      toolsOf('reduced')
        .map((t) => t.name)
        .sort(),
    );
    const words = body.messages.map((m) => m.content as string).join('\n');
    const named = allTools.map((t) => t.name).filter((name) => new RegExp(`\\b${name}\\b`).test(words));
    expect(named.filter((name) => !sent.has(name))).toEqual([]);
  });
});

describe('what a model given fewer tools is pointed at', () => {
  /** The registry's tools a text names that are not in `offered`. */
  const unofferedIn = (text: string, offered: ReadonlySet<string>) =>
    allTools.map((t) => t.name).filter((n) => !offered.has(n) && new RegExp(`\\b${n}\\b`).test(text));
  const adviceOf = (result: { error?: { hint?: string }; next?: string }) =>
    `${result.error?.hint ?? ''}\n${result.next ?? ''}`;

  it('suggests only offered tools for an unknown name, and runs nothing', async () => {
    model = await startScriptedModel([
      {
        toolCalls: [
          { id: 'c1', name: 'list_layer_names', arguments: {} },
          { id: 'c2', name: 'list_all_layer_names', arguments: {} },
          { id: 'c3', name: 'rename_layers', arguments: { name: '背景', new_name: '底' } },
        ],
      },
      { text: '好' },
    ]);
    const session = newSession();
    await ok(session, 'create_document', { width: 40, height: 30, name: '海报' });
    const before = (await snapshotOf(session)).active!.history.index;
    await turn(conversation(session, modelConfig(model.url, { tools: 'reduced' })), '列出图层');
    const offered = new Set(toolsOf('reduced').map((t) => t.name));
    const answers = results(model.requests[1]!);
    expect(answers.map((r) => r.error.code)).toEqual(['unknown_tool', 'unknown_tool', 'unknown_tool']);
    for (const r of answers) {
      expect(r.error.details.closest.filter((n: string) => !offered.has(n))).toEqual([]);
      expect(unofferedIn(r.error.hint, offered)).toEqual([]);
    }
    // The session would have suggested list_all_layer_names; the offered tool that does its job stands in.
    expect(answers[0].error.details.closest).not.toContain('list_all_layer_names');
    expect(answers[1].error.details.closest[0]).toBe('get_layer_structure');
    expect(answers[2].error.details.closest[0]).toBe('rename_layer');
    expect((await snapshotOf(session)).active!.history.index).toBe(before);
  });

  it('gets hints and next steps that name only offered tools', async () => {
    model = await startScriptedModel([
      {
        toolCalls: [
          { id: 'c1', name: 'identify_pieces', arguments: {} },
          { id: 'c2', name: 'generate_garment_preview', arguments: {} },
        ],
      },
      { text: '好' },
    ]);
    const session = newSession();
    await ok(session, 'create_document', { width: 40, height: 30, name: '海报' });
    await turn(conversation(session, modelConfig(model.url, { tools: 'reduced' })), '改名');
    const offered = new Set(toolsOf('reduced').map((t) => t.name));
    const [pieces, photo] = results(model.requests[1]!);
    expect(pieces.ok).toBe(false);
    expect(photo.error.code).toBe('invalid_state');
    // The advice the offered tools can follow is kept: ask the user for the photo.
    expect(photo.error.hint).toContain('请用户上传服装照片');
    for (const r of [pieces, photo]) expect(unofferedIn(adviceOf(r), offered)).toEqual([]);

    // The spec's tools lack every way to make a selection: the hint says so rather than name one.
    model.push(
      { toolCalls: [{ id: 'c3', name: 'feather_selection', arguments: { radius: 4 } }] },
      { text: '好' },
    );
    await turn(conversation(session, modelConfig(model.url, { tools: 'full' })), '羽化选区');
    const [feather] = results(last(model.requests));
    expect(feather.error.code).toBe('invalid_state');
    expect(unofferedIn(adviceOf(feather), new Set(toolsOf('full').map((t) => t.name)))).toEqual([]);
    expect(feather.error.hint).toBe(NO_OFFERED_WAY);
  });
});

describe('a tool named with stray spaces or in another case', () => {
  it('runs as the tool the model meant, and is recorded and replayed under its own name', async () => {
    model = await startScriptedModel([
      {
        toolCalls: [
          { id: 'c1', name: ' Create_Document ', arguments: { width: 40, height: 30, name: '海报' } },
          { id: 'c2', name: 'CREATE_LAYER\n', arguments: { name: '色块' } },
          { id: 'c4', name: 'functions.create_layer', arguments: { name: '色块二' } },
          { id: 'c3', name: 'make_it_pretty', arguments: {} },
        ],
      },
      { text: '好了' },
    ]);
    const session = newSession();
    const transcript = join(tempDir(), 'chat.jsonl');
    const events = await turn(conversation(session, modelConfig(model.url), { transcript }), '新建');
    const outcomes = events.flatMap((e) => (e.type === 'tool_result' ? [[e.name, e.ok]] : []));
    expect(outcomes).toEqual([
      ['create_document', true],
      ['create_layer', true],
      ['create_layer', true],
      ['make_it_pretty', false],
    ]);
    const sent = model.requests[1]!.body.messages.find((m) => m.role === 'assistant')!;
    expect((sent.tool_calls as { function: { name: string } }[]).map((c) => c.function.name)).toEqual([
      'create_document',
      'create_layer',
      'create_layer',
      'make_it_pretty',
    ]);
    const replay = new TranscriptReplay();
    const replayed = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .flatMap((line) => replay.callsOf(JSON.parse(line)) ?? []);
    // A name no tool has is refused before the session sees it: there is nothing to replay.
    expect(replayed.map((c) => (c as { function: { name: string } }).function.name)).toEqual([
      'create_document',
      'create_layer',
      'create_layer',
    ]);
    expect((await snapshotOf(session)).active?.layers.map((l) => l.name)).toContain('色块');
  });
});

describe('a Mistral model', () => {
  /** Answers as Mistral's API does: a user message right after a tool answer is refused. */
  const mistral =
    (text: string): ScriptStep =>
    (req) => {
      const roles = req.body.messages.map((m) => m.role);
      const at = roles.findIndex((r, i) => r === 'user' && roles[i - 1] === 'tool');
      return at < 0 ? { text } : { status: 400, error: "Unexpected role 'user' after role 'tool'" };
    };
  const calls = {
    toolCalls: [
      { id: 'c1', name: 'create_document', arguments: { width: 64, height: 32 } },
      { id: 'c2', name: 'get_canvas_image', arguments: { max_size: 64 } },
    ],
  };

  it('is shown result images and goes on after a turn that ended at its tool answers', async () => {
    model = await startScriptedModel([calls, mistral('画布是白色的。')]);
    const config = modelConfig(model.url, { model: 'mistral-small-latest', vision: true, maxSteps: 2 });
    const conv = conversation(newSession(), config);
    expect(last(await turn(conv, '看看画布'))).toEqual({ type: 'done', steps: 2 });

    model.push(calls, mistral('继续。'));
    const cut = conversation(newSession(), { ...config, maxSteps: 1, vision: false });
    expect(last(await turn(cut, '新建'))).toMatchObject({ type: 'error', code: 'max_steps' });
    expect(last(await turn(cut, '继续'))).toEqual({ type: 'done', steps: 1 });
    const sent = last(model.requests).body.messages;
    expect(sent.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
    ]);
    expectEveryCallAnswered(sent);
  });

  it('is the only one sent a line it did not write', async () => {
    model = await startScriptedModel([calls, { text: '好' }]);
    await turn(conversation(newSession(), modelConfig(model.url, { vision: true })), '看看画布');
    const roles = model.requests[1]!.body.messages.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
  });
});
