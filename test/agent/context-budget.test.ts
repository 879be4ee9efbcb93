/**
 * The context budget: the estimate, the choice of turns, and a long conversation against a scripted model whose
 * every request stays under a small budget while the transcript keeps everything.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fitTurns,
  IMAGE_TOKENS,
  requestTokens,
  textTokens,
  toolsAndPromptTokens,
} from '../../src/agent/context-budget.js';
import { systemPrompt } from '../../src/agent/prompt.js';
import { snapshotOf } from '../../src/calls/snapshot.js';
import { toolsOf } from '../../src/registry/index.js';
import {
  type ScriptedModel,
  type ScriptedRequest,
  type ScriptStep,
  startScriptedModel,
} from '../support/scripted-model.js';
import { newSession, ok, tempDir } from '../support/session.js';
import { conversation, expectEveryCallAnswered, last, modelConfig, turn } from './support.js';

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe('textTokens', () => {
  it('counts a Chinese character as a token and ASCII at 2.5 characters a token, rounded up', () => {
    expect(textTokens('春季新品')).toBe(4);
    expect(textTokens('abcde')).toBe(2);
    expect(textTokens('abcdef')).toBe(3);
    expect(textTokens('海报 poster')).toBe(2 + Math.ceil(7 * 0.4));
    expect(textTokens('𠀀')).toBe(1);
    expect(textTokens('')).toBe(0);
  });
});

const user = (text: string): ChatCompletionMessageParam => ({ role: 'user', content: text });
const image: ChatCompletionMessageParam = {
  role: 'user',
  content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } }],
};

describe('fitTurns', () => {
  const turns = [[user('一'.repeat(100))], [user('二'.repeat(100))], [user('三'.repeat(100))]];
  const fixed = 50;

  it('keeps the newest turns that fit beside the fixed part, dropping the oldest whole', () => {
    expect(fitTurns(turns, { fixed, budget: 10_000 })).toEqual({ first: 0, tokens: 50 + 3 * 108 });
    expect(fitTurns(turns, { fixed, budget: 50 + 2 * 108 })).toEqual({ first: 1, tokens: 50 + 2 * 108 });
    expect(fitTurns(turns, { fixed, budget: 50 + 2 * 108 - 1 }).first).toBe(2);
  });

  it('always keeps the latest turn, even over the budget', () => {
    expect(fitTurns(turns, { fixed, budget: 10 })).toEqual({ first: 2, tokens: 50 + 108 });
    expect(fitTurns([], { fixed, budget: 10 })).toEqual({ first: 0, tokens: 50 });
  });

  it('counts each image at a fixed cost', () => {
    const withImages = [
      [user('a'), image, image],
      [user('b'), image],
    ];
    // Five messages of 8 tokens' framing, two letters, three images.
    expect(fitTurns(withImages, { fixed, budget: 1e9 }).tokens).toBe(50 + 5 * 8 + 2 + 3 * IMAGE_TOKENS);
    expect(fitTurns(withImages, { fixed, budget: 50 + 2 * 8 + 1 + IMAGE_TOKENS }).first).toBe(1);
    expect(requestTokens(withImages.flat(), [])).toBe(1 + 5 * 8 + 2 + 3 * IMAGE_TOKENS);
  });
});

describe('a long conversation under a small budget', () => {
  it('sends the system prompt and the latest turns within it, whole turns only; the transcript keeps all', async () => {
    const budget = 6000;
    const turns = 8;
    const reduced = new Set(toolsOf('reduced').map((t) => t.name));
    model = await startScriptedModel();
    for (let i = 0; i < turns; i++) {
      model.push(
        {
          toolCalls: [
            { id: `t${i}a`, name: 'create_layer', arguments: { name: `图层${i}` } },
            { id: `t${i}b`, name: 'list_all_layer_names', arguments: {} },
          ],
        },
        { text: `第 ${i} 轮完成。${'说明'.repeat(150)}` },
      );
    }
    const dir = tempDir();
    const transcript = join(dir, 'chat.jsonl');
    const session = newSession(dir);
    const conv = conversation(session, modelConfig(model.url, { tools: 'reduced', contextTokens: budget }), {
      transcript,
    });
    await turn(conv, '新建一个文档');
    model.push({ toolCalls: [{ id: 'doc', name: 'create_document', arguments: { width: 64, height: 64 } }] });
    model.push({ text: '好' });
    for (let i = 0; i < turns; i++) {
      expect(last(await turn(conv, `第 ${i} 条消息：${'请把图层整理好。'.repeat(60)}`))).toMatchObject({
        type: 'done',
      });
    }

    let trimmed = 0;
    for (const request of model.requests) {
      const messages = request.body.messages;
      expect(requestTokens(messages as never, request.body.tools)).toBeLessThanOrEqual(budget);
      expect(messages[0]!.role).toBe('system');
      expect(messages[0]!.content as string).toContain(systemPrompt({ vision: false, tools: reduced }));
      // Whole turns: the history starts at a user message, and no tool message is an orphan.
      expect(messages[1]!.role).toBe('user');
      expectEveryCallAnswered(messages as never);
      for (const [i, m] of messages.entries()) {
        if (m.role !== 'tool') continue;
        const owner = messages.slice(0, i).findLast((p) => p.role === 'assistant');
        expect((owner?.tool_calls as { id: string }[] | undefined)?.map((c) => c.id)).toContain(
          m.tool_call_id,
        );
      }
      if ((messages[0]!.content as string).includes('轮对话已省略')) trimmed++;
    }
    expect(trimmed).toBeGreaterThan(0);

    // The last request: the latest turn whole, and the users' messages a suffix of all of them, in order.
    const sent = last(model.requests).body.messages;
    const said = sent.filter((m) => m.role === 'user').map((m) => (m.content as string).split('：')[0]);
    expect(said.at(-1)).toBe(`第 ${turns - 1} 条消息`);
    expect(said.length).toBeLessThan(turns);
    const all = [...Array(turns).keys()].map((i) => `第 ${i} 条消息`);
    expect(said).toEqual(all.slice(all.length - said.length));
    const omitted = Number((sent[0]!.content as string).match(/较早的 (\d+) 轮/)![1]);
    expect(omitted).toBe(turns + 1 - said.length);

    // The transcript holds every turn.
    const written = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(written.filter((l) => l.role === 'user')).toHaveLength(turns + 1);
    expect(written.filter((l) => l.role === 'tool')).toHaveLength(2 * turns + 1);
  });
});

describe('images in the context', () => {
  it('sends a vision model only the newest four; the older ones become a note', async () => {
    model = await startScriptedModel([
      { toolCalls: [{ id: 'doc', name: 'create_document', arguments: { width: 40, height: 40 } }] },
    ]);
    for (let i = 0; i < 6; i++) {
      model.push({ toolCalls: [{ id: `look${i}`, name: 'get_canvas_image', arguments: { max_size: 40 } }] });
    }
    model.push({ text: '看过了' });
    const conv = conversation(newSession(), modelConfig(model.url, { vision: true }));
    expect(last(await turn(conv, '看六次画布'))).toMatchObject({ type: 'done' });
    const sent = JSON.stringify(last(model.requests).body.messages);
    expect(sent.match(/data:image\/jpeg;base64,/g)).toHaveLength(4);
    expect(sent.match(/较早的图像已省略/g)).toHaveLength(2);
  });
});

/**
 * A service whose context window is `window` tokens (by the estimate): it refuses a longer request as OpenAI does,
 * and answers the others with `answer`.
 */
function windowOf(window: number, answer: ScriptStep): ScriptStep {
  return (req: ScriptedRequest) => {
    const tokens = requestTokens(req.body.messages as never, req.body.tools);
    if (tokens <= window) return typeof answer === 'function' ? answer(req) : answer;
    return {
      status: 400,
      error: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    };
  };
}

describe('a newest turn over the budget by itself', () => {
  it('sends its overlong tool results cut, each saying so, and the transcript keeps them whole', async () => {
    const budget = toolsAndPromptTokens('reduced') + 6000;
    const reads = [...Array(8).keys()].map((i) => ({
      id: `s${i}`,
      name: 'get_layer_structure',
      arguments: {},
    }));
    model = await startScriptedModel([{ toolCalls: reads }]);
    model.push(windowOf(budget, { text: '图层都看过了。' }));
    const dir = tempDir();
    const transcript = join(dir, 'chat.jsonl');
    const session = newSession(dir);
    await ok(session, 'create_document', { width: 64, height: 64, name: '海报' });
    for (let i = 0; i < 20; i++) await ok(session, 'create_layer', { name: `图层${i}` });
    const conv = conversation(session, modelConfig(model.url, { tools: 'reduced', contextTokens: budget }), {
      transcript,
    });
    expect(last(await turn(conv, '把每个图层的结构都看一遍'))).toEqual({ type: 'done', steps: 2 });

    const sent = model.requests[1]!.body.messages;
    expect(requestTokens(sent as never, model.requests[1]!.body.tools)).toBeLessThanOrEqual(budget);
    expectEveryCallAnswered(sent as never);
    const answers = sent.filter((m) => m.role === 'tool').map((m) => m.content as string);
    expect(answers).toHaveLength(8);
    for (const answer of answers) {
      expect(answer.startsWith('{"ok":true,"document":"海报","layers":[')).toBe(true);
      expect(answer).toMatch(
        /…（结果过长：为适应上下文长度（ATELIER_MODEL_CONTEXT_TOKENS），后面 \d+ 个字符没有发送/,
      );
    }
    // Only the request was cut: the transcript has every result whole.
    const written = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const line of written.filter((l) => l.role === 'tool')) {
      expect(JSON.parse(line.content).layers).toHaveLength(21);
    }
  });

  it('sends a vision model its newest images of the turn that fit, the older ones as a note', async () => {
    const budget = toolsAndPromptTokens('extended') + 5000;
    const looks = [...Array(4).keys()].map((i) => ({
      id: `look${i}`,
      name: 'get_canvas_image',
      arguments: { max_size: 40 },
    }));
    model = await startScriptedModel([{ toolCalls: looks }]);
    model.push(windowOf(budget, { text: '看过了' }));
    const session = newSession();
    await ok(session, 'create_document', { width: 40, height: 40, name: '海报' });
    const conv = conversation(session, modelConfig(model.url, { vision: true, contextTokens: budget }));
    expect(last(await turn(conv, '看四次画布'))).toEqual({ type: 'done', steps: 2 });
    const request = model.requests[1]!;
    expect(requestTokens(request.body.messages as never, request.body.tools)).toBeLessThanOrEqual(budget);
    const sent = JSON.stringify(request.body.messages);
    const shown = sent.match(/data:image\/jpeg;base64,/g)?.length ?? 0;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(4);
    expect(sent.match(/图像未发送：上下文长度不够/g)).toHaveLength(4 - shown);
  });

  it('is not sent when nothing in it can be shrunk enough, saying which setting to raise', async () => {
    const budget = toolsAndPromptTokens('reduced') + 3000;
    model = await startScriptedModel([windowOf(budget, { text: '不该走到这里' }), { text: '好的。' }]);
    const session = newSession();
    await ok(session, 'create_document', { width: 64, height: 64, name: '海报' });
    const before = await snapshotOf(session);
    const conv = conversation(session, modelConfig(model.url, { tools: 'reduced', contextTokens: budget }));
    const end = last(await turn(conv, `请按这份说明修改：${'把标题改成红色。'.repeat(600)}`));
    expect(end).toMatchObject({ type: 'error', code: 'context_full' });
    expect((end as { message: string }).message).toContain(`ATELIER_MODEL_CONTEXT_TOKENS=${budget}`);
    expect(model.requests).toHaveLength(0);
    expect(await snapshotOf(session)).toEqual(before);

    // The next message goes on without the one that could not be sent.
    expect(last(await turn(conv, '改成红色'))).toEqual({ type: 'done', steps: 1 });
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.body.messages)).not.toContain('请按这份说明修改');
  });
});

describe('a service that refuses a request as longer than its context window', () => {
  it('ends the turn naming the setting to lower, and keeps the images it has been shown', async () => {
    model = await startScriptedModel([
      { toolCalls: [{ id: 'look', name: 'get_canvas_image', arguments: { max_size: 40 } }] },
      { text: '看到了' },
      windowOf(100, { text: '不该走到这里' }),
      { text: '好的。' },
    ]);
    const session = newSession();
    await ok(session, 'create_document', { width: 40, height: 40, name: '海报' });
    const conv = conversation(session, modelConfig(model.url, { vision: true }));
    expect(last(await turn(conv, '看看画布'))).toMatchObject({ type: 'done' });
    const end = last(await turn(conv, '再看看'));
    expect(end).toMatchObject({ type: 'error', code: 'context_full' });
    expect((end as { message: string }).message).toContain(
      '请调低 ATELIER_MODEL_CONTEXT_TOKENS（现为 64000）',
    );
    expect((end as { message: string }).message).not.toContain('图像已移除');
    await turn(conv, '继续');
    expect(JSON.stringify(last(model.requests).body.messages)).toContain('data:image/jpeg;base64,');
  });
});
