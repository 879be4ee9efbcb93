/**
 * A long conversation over a document large enough that one look at it fills most of the context: what the next
 * requests carry of the earlier turns.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestTokens, toolsAndPromptTokens } from '../../src/agent/context-budget.js';
import { type ScriptedModel, type ScriptedRequest, startScriptedModel } from '../support/scripted-model.js';
import { newSession, ok, tempDir } from '../support/session.js';
import { conversation, expectEveryCallAnswered, last, modelConfig, turn } from './support.js';

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe('earlier turns whose tool results alone would fill the budget', () => {
  it('are sent with those results cut, saying so, rather than left out with the designer’s words', async () => {
    const budget = toolsAndPromptTokens('extended') + 8000;
    const dir = tempDir();
    const transcript = join(dir, 'chat.jsonl');
    const session = newSession(dir);
    await ok(session, 'create_document', { width: 64, height: 64, name: '大文档' });
    for (let i = 0; i < 300; i++) await ok(session, 'create_layer', { name: `裁片图层第${i}号` });
    // A service that refuses what is over its window, as a real one does.
    const within = (text: string) => (req: ScriptedRequest) =>
      requestTokens(req.body.messages as never, req.body.tools) <= budget
        ? { text }
        : { status: 400, error: 'maximum context length exceeded' };
    model = await startScriptedModel([
      { toolCalls: [{ id: 'look', name: 'get_layer_structure', arguments: {} }] },
      within('一共 301 个图层。'),
      within('第 12 号在上面。'),
      within('好的，按第一轮说的来。'),
    ]);
    const conv = conversation(session, modelConfig(model.url, { contextTokens: budget }), { transcript });
    expect(last(await turn(conv, '看看这个文档的图层结构，记住红色的是前片'))).toMatchObject({
      type: 'done',
    });
    expect(last(await turn(conv, '第 12 号在哪'))).toMatchObject({ type: 'done' });
    expect(last(await turn(conv, '按我第一句说的处理'))).toMatchObject({ type: 'done' });

    for (const request of model.requests.slice(2)) {
      const sent = request.body.messages;
      expect(requestTokens(sent as never, request.body.tools)).toBeLessThanOrEqual(budget);
      expectEveryCallAnswered(sent as never);
      // The first turn is there: the designer's words, the call and its answer, cut with a note.
      expect(String(sent[1]!.content)).toMatch(/^看看这个文档的图层结构，记住红色的是前片/);
      const answer = sent.find((m) => m.role === 'tool')!.content as string;
      expect(answer.startsWith('{"ok":true,"document":"大文档","layers":[')).toBe(true);
      expect(answer).toMatch(
        /…（结果过长：为适应上下文长度（ATELIER_MODEL_CONTEXT_TOKENS），后面 \d+ 个字符没有发送/,
      );
      expect(sent.find((m) => m.role === 'assistant' && m.content === '一共 301 个图层。')).toBeTruthy();
      expect(String(sent[0]!.content)).not.toContain('轮对话已省略');
    }
    // Only the requests were cut: the transcript keeps the result whole.
    const written = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(JSON.parse(written.find((l) => l.role === 'tool').content).layers).toHaveLength(301);
  });
});
