/**
 * The context budget: the estimate, the choice of turns, and a long conversation against a scripted model whose
 * every request stays under a small budget while the transcript keeps everything.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { fitTurns, IMAGE_TOKENS, requestTokens, textTokens } from '../../src/agent/context-budget.js';
import { systemPrompt } from '../../src/agent/prompt.js';
import { toolsOf } from '../../src/registry/index.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { newSession, tempDir } from '../support/session.js';
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
