/**
 * Services whose tool calls come with something they want back: DeepSeek (and Qwen, Moonshot, Zhipu) in thinking
 * mode stream `reasoning_content` and refuse (400) a later request whose tool-calling assistant messages lost it;
 * Gemini's OpenAI-compatible endpoint puts a thought signature in each call's `extra_content` and refuses a call
 * sent back without it; OpenRouter's thinking models want their `reasoning_details` blocks back, whole and in
 * order. All must survive the loop, the transcript and a restore.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Conversation } from '../../src/agent/conversation.js';
import { restoreConversation } from '../../src/agent/restore.js';
import { type ScriptedModel, type ScriptedRaw, startScriptedModel } from '../support/scripted-model.js';
import { newSession, tempDir } from '../support/session.js';
import { expectEveryCallAnswered, last, modelConfig, sseChunk, turn, wholeAnswer } from './support.js';

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const noErrors = (err: unknown) => {
  throw err;
};

const SIGNATURE = { google: { thought_signature: 'CtQBAdHtim9+签名==' } };

/** An answer as a thinking service sends it: reasoning first, then text and/or one tool call. */
function thinkingAnswer(
  stream: boolean,
  reply: { reasoning: string; text?: string; call?: { id: string; name: string; arguments: string } },
): ScriptedRaw {
  const call = reply.call
    ? {
        id: reply.call.id,
        type: 'function',
        function: { name: reply.call.name, arguments: reply.call.arguments },
        extra_content: SIGNATURE,
      }
    : null;
  const finish = call ? 'tool_calls' : 'stop';
  if (!stream) {
    const message = {
      role: 'assistant',
      content: reply.text ?? null,
      reasoning_content: reply.reasoning,
      ...(call ? { tool_calls: [call] } : {}),
    };
    return { raw: JSON.stringify(wholeAnswer(message, finish)), contentType: 'application/json' };
  }
  const half = Math.ceil(reply.reasoning.length / 2);
  let raw =
    sseChunk({ role: 'assistant', content: null, reasoning_content: reply.reasoning.slice(0, half) }) +
    sseChunk({ content: null, reasoning_content: reply.reasoning.slice(half) });
  if (reply.text) raw += sseChunk({ content: reply.text });
  if (call) {
    const args = call.function.arguments;
    // The signature rides on the call's first fragment, as Gemini sends it; the arguments follow in pieces.
    raw += sseChunk({
      tool_calls: [{ index: 0, ...call, function: { name: call.function.name, arguments: '' } }],
    });
    raw += sseChunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 5) } }] });
    raw += sseChunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(5) } }] });
  }
  return { raw: `${raw}${sseChunk({}, finish)}data: [DONE]\n\n` };
}

type Sent = { role: string; content: unknown; tool_calls?: unknown[]; reasoning_content?: unknown };

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('a thinking model ($name answers)', ({ stream }) => {
  it('gets its reasoning and its calls’ thought signatures back, in the loop and after a restore', async () => {
    model = await startScriptedModel([
      thinkingAnswer(stream, {
        reasoning: '用户要一张画布，先建文档。',
        call: { id: 'call_a', name: 'create_document', arguments: '{"width":64,"height":48,"name":"海报"}' },
      }),
      thinkingAnswer(stream, { reasoning: '文档建好了，告诉用户。', text: '建好了。' }),
      thinkingAnswer(stream, { reasoning: '只是打招呼。', text: '你好！' }),
    ]);
    const dir = tempDir();
    const transcript = join(dir, 'chat.jsonl');
    const config = modelConfig(model.url, { stream });
    const conv = new Conversation({
      session: newSession(dir),
      config,
      transcript,
      onInternalError: noErrors,
    });
    expect(last(await turn(conv, '新建 64×48 的海报'))).toEqual({ type: 'done', steps: 2 });
    expect(last(await turn(conv, '你好'))).toEqual({ type: 'done', steps: 1 });

    const assistants = (messages: readonly Sent[]) => messages.filter((m) => m.role === 'assistant');
    const second = model.requests[1]!.body.messages as Sent[];
    expect(assistants(second)).toEqual([
      {
        role: 'assistant',
        content: null,
        reasoning_content: '用户要一张画布，先建文档。',
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'create_document', arguments: '{"width":64,"height":48,"name":"海报"}' },
            extra_content: SIGNATURE,
          },
        ],
      },
    ]);
    expectEveryCallAnswered(second);

    // The next turn carries the tool turn's reasoning (DeepSeek wants it in every later request).
    const third = model.requests[2]!.body.messages as Sent[];
    expect(assistants(third).map((m) => m.reasoning_content)).toEqual([
      '用户要一张画布，先建文档。',
      '文档建好了，告诉用户。',
    ]);

    // A restart: the restored conversation sends the same history, reasoning and signatures included; the
    // text-only turn carries no reasoning (older reasoners refused it), and an assistant without any has no field.
    const restored = await restoreConversation(transcript, {
      vision: false,
      imagesSent: 4,
      onError: noErrors,
    });
    model.push({ text: '好的。' });
    const again = new Conversation({
      session: newSession(),
      config,
      transcript,
      restored: restored!,
      onInternalError: noErrors,
    });
    expect(last(await turn(again, '再加一个图层'))).toMatchObject({ type: 'done' });
    const fourth = last(model.requests).body.messages as Sent[];
    expect(assistants(fourth)).toEqual([
      assistants(second)[0],
      { role: 'assistant', content: '建好了。', reasoning_content: '文档建好了，告诉用户。' },
      { role: 'assistant', content: '你好！' },
    ]);
    expectEveryCallAnswered(fourth);
  });
});

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('a thinking model that spends the whole output limit thinking ($name answer)', ({ stream }) => {
  it('ends the turn saying which setting to raise, not just “empty answer, retry”', async () => {
    const reasoning = '先想一想……'.repeat(50);
    const raw = stream
      ? {
          raw: `${sseChunk({ role: 'assistant', content: null, reasoning_content: reasoning })}${sseChunk({}, 'length')}data: [DONE]\n\n`,
        }
      : {
          raw: JSON.stringify(
            wholeAnswer({ role: 'assistant', content: null, reasoning_content: reasoning }, 'length'),
          ),
          contentType: 'application/json',
        };
    model = await startScriptedModel([raw]);
    const config = modelConfig(model.url, { stream, maxOutputTokens: 2048 });
    const conv = new Conversation({ session: newSession(), config, onInternalError: noErrors });
    const end = last(await turn(conv, '做一张海报'));
    expect(end).toMatchObject({ type: 'error', code: 'model_bad_response' });
    expect((end as { message: string }).message).toContain('调高 ATELIER_MODEL_MAX_OUTPUT_TOKENS');
    expect((end as { message: string }).message).toContain('=2048');
  });
});

/** OpenRouter's reasoning blocks of one answer: a signed text block and an encrypted one, as a whole answer has them. */
const DETAILS: readonly Record<string, unknown>[] = [
  {
    type: 'reasoning.text',
    text: '先建文档，再告诉用户。',
    signature: 'EqQBCkYIBxgCKkD签名==',
    format: 'anthropic-claude-v1',
    index: 0,
  },
  { type: 'reasoning.encrypted', data: 'gAAAAABo加密', id: 'rs_1', format: 'anthropic-claude-v1', index: 1 },
];

/** An answer as OpenRouter sends it: `reasoning` text and its `reasoning_details` blocks, then one tool call. */
function openRouterAnswer(
  stream: boolean,
  call: { id: string; name: string; arguments: string },
): ScriptedRaw {
  const toolCall = {
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  };
  if (!stream) {
    const message = {
      role: 'assistant',
      content: null,
      reasoning: DETAILS[0]!.text,
      reasoning_details: DETAILS,
      tool_calls: [toolCall],
    };
    return { raw: JSON.stringify(wholeAnswer(message, 'tool_calls')), contentType: 'application/json' };
  }
  // A block streams in fragments sharing its index: the text in pieces, the signature with the last one.
  const [text, encrypted] = DETAILS as [Record<string, unknown>, Record<string, unknown>];
  const piece = (fields: Record<string, unknown>) => ({
    type: text.type,
    format: text.format,
    index: 0,
    ...fields,
  });
  const raw =
    sseChunk({
      role: 'assistant',
      content: '',
      reasoning: '先建文档，',
      reasoning_details: [piece({ text: '先建文档，' })],
    }) +
    sseChunk({ reasoning: '再告诉用户。', reasoning_details: [piece({ text: '再告诉用户。' })] }) +
    sseChunk({ reasoning_details: [piece({ text: '', signature: text.signature })] }) +
    sseChunk({ reasoning_details: [encrypted] }) +
    sseChunk({ tool_calls: [{ index: 0, ...toolCall }] }) +
    sseChunk({}, 'tool_calls');
  return { raw: `${raw}data: [DONE]\n\n` };
}

describe.each([
  { stream: true, name: 'streamed' },
  { stream: false, name: 'whole' },
])('an OpenRouter thinking model ($name answers)', ({ stream }) => {
  it('gets its reasoning blocks back whole and in order, in the loop and after a restore', async () => {
    model = await startScriptedModel([
      openRouterAnswer(stream, {
        id: 'call_a',
        name: 'create_document',
        arguments: '{"width":64,"height":48,"name":"海报"}',
      }),
      { text: '建好了。' },
    ]);
    const dir = tempDir();
    const transcript = join(dir, 'chat.jsonl');
    const config = modelConfig(model.url, { stream, model: 'anthropic/claude-sonnet-4.5' });
    const conv = new Conversation({
      session: newSession(dir),
      config,
      transcript,
      onInternalError: noErrors,
    });
    expect(last(await turn(conv, '新建 64×48 的海报'))).toEqual({ type: 'done', steps: 2 });

    type WithDetails = Sent & { reasoning_details?: unknown };
    const assistants = (messages: readonly WithDetails[]) => messages.filter((m) => m.role === 'assistant');
    const second = model.requests[1]!.body.messages as WithDetails[];
    expect(assistants(second)).toHaveLength(1);
    expect(assistants(second)[0]!.reasoning_details).toEqual(DETAILS);
    expectEveryCallAnswered(second);

    const restored = await restoreConversation(transcript, {
      vision: false,
      imagesSent: 4,
      onError: noErrors,
    });
    model.push({ text: '好的。' });
    const again = new Conversation({
      session: newSession(),
      config,
      transcript,
      restored: restored!,
      onInternalError: noErrors,
    });
    expect(last(await turn(again, '再加一个图层'))).toMatchObject({ type: 'done' });
    const third = last(model.requests).body.messages as WithDetails[];
    expect(assistants(third).map((m) => m.reasoning_details)).toEqual([DETAILS, undefined]);
    expectEveryCallAnswered(third);
  });
});
