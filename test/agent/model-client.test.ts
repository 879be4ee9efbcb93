import { afterEach, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/agent/config.js';
import {
  createModelClient,
  outputLimit,
  requestAssistant,
  ToolCallAccumulator,
} from '../../src/agent/model-client.js';
import { redact } from '../../src/agent/model-errors.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { modelConfig, sseChunk, wholeAnswer } from './support.js';

let model: ScriptedModel | undefined;

/** One request of the loop's client under `config`: a short user message, no tools. */
function askOnce(config: ModelConfig, content = '做', onDelta: (d: string) => void = () => {}) {
  return requestAssistant({
    client: createModelClient(config),
    config,
    messages: [{ role: 'user', content }],
    tools: [],
    signal: new AbortController().signal,
    onDelta,
  });
}
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe('ToolCallAccumulator', () => {
  it('joins fragments by index, the name in pieces and the arguments in pieces', () => {
    const acc = new ToolCallAccumulator();
    acc.add({ index: 0, id: 'a', type: 'function', function: { name: 'create_', arguments: '' } }, 0);
    acc.add({ index: 1, id: 'b', type: 'function', function: { name: 'undo', arguments: '{}' } }, 1);
    acc.add({ index: 0, function: { name: 'layer', arguments: '{"name":' } }, 0);
    acc.add({ index: 0, function: { arguments: '"标题"}' } }, 0);
    expect(acc.result()).toEqual([
      { id: 'a', name: 'create_layer', arguments: '{"name":"标题"}' },
      { id: 'b', name: 'undo', arguments: '{}' },
    ]);
  });

  it('keeps the name and id a server repeats in every fragment (MiniMax on NVIDIA NIM, Fireworks)', () => {
    const acc = new ToolCallAccumulator();
    const repeated = { index: 0, id: 'call_r', type: 'function' as const };
    acc.add({ ...repeated, function: { name: 'create_layer', arguments: '' } }, 0);
    acc.add({ ...repeated, function: { name: 'create_layer', arguments: '{"name":' } }, 0);
    acc.add({ ...repeated, function: { name: 'create_layer', arguments: '"标题"}' } }, 0);
    expect(acc.result()).toEqual([{ id: 'call_r', name: 'create_layer', arguments: '{"name":"标题"}' }]);
  });

  it('starts a new call when a server numbers every call 0 but gives each a new id', () => {
    const acc = new ToolCallAccumulator();
    acc.add({ index: 0, id: 'a', function: { name: 'undo', arguments: '{}' } }, 0);
    acc.add({ index: 0, id: 'b', function: { name: 'redo', arguments: '{}' } }, 0);
    expect(acc.result().map((c) => c.id)).toEqual(['a', 'b']);
  });
});

describe('requestAssistant with servers that bend the protocol', () => {
  const request = (url: string, stream: boolean) => askOnce(modelConfig(url, { stream }));

  it('takes arguments sent as an object and an id sent as a number as their JSON text', async () => {
    const completion = wholeAnswer(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 7, type: 'function', function: { name: 'create_layer', arguments: { name: '对象' } } },
        ],
      },
      'tool_calls',
    );
    model = await startScriptedModel([{ raw: JSON.stringify(completion), contentType: 'application/json' }]);
    const reply = await request(model.url, false);
    expect(reply.toolCalls).toEqual([{ id: '7', name: 'create_layer', arguments: '{"name":"对象"}' }]);
  });

  it('refuses a streamed answer cut before its finish_reason, running none of its calls', async () => {
    model = await startScriptedModel([
      {
        // One whole call, then a second cut in its arguments, and the body ends: no finish chunk, no [DONE].
        raw:
          sseChunk({
            tool_calls: [
              {
                index: 0,
                id: 'a',
                function: { name: 'create_document', arguments: '{"width":10,"height":10}' },
              },
            ],
          }) +
          sseChunk({
            tool_calls: [{ index: 1, id: 'b', function: { name: 'create_layer', arguments: '{"name":"L' } }],
          }),
      },
    ]);
    await expect(request(model.url, true)).rejects.toMatchObject({ code: 'model_bad_response' });
  });

  it.each([
    { stream: true, name: 'streamed' },
    { stream: false, name: 'whole' },
  ])(
    'reads an answer sent as a list of chunks, leaving its thinking out (Magistral, $name)',
    async ({ stream }) => {
      const thinking = { type: 'thinking', thinking: [{ type: 'text', text: '用户只是打招呼。' }] };
      const raw = stream
        ? {
            raw: `${sseChunk({ role: 'assistant', content: [thinking] })}${sseChunk({ content: [{ type: 'text', text: '你好，' }] })}${sseChunk({ content: '有什么要做的？' }, 'stop')}data: [DONE]\n\n`,
          }
        : {
            raw: JSON.stringify(
              wholeAnswer(
                { role: 'assistant', content: [thinking, { type: 'text', text: '你好，有什么要做的？' }] },
                'stop',
              ),
            ),
            contentType: 'application/json',
          };
      model = await startScriptedModel([raw]);
      const deltas: string[] = [];
      const reply = await askOnce(modelConfig(model.url, { stream }), '你好', (d) => deltas.push(d));
      expect(reply.text).toBe('你好，有什么要做的？');
      expect(deltas.join('')).toBe(stream ? '你好，有什么要做的？' : '');
    },
  );
});

describe('requestAssistant', () => {
  it('reads a stream whose tool calls come whole and without an index (as Ollama sends them)', async () => {
    model = await startScriptedModel([
      {
        raw:
          sseChunk({ role: 'assistant', content: '好' }) +
          sseChunk({
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'undo', arguments: '{"steps":2}' } },
              { function: { name: 'redo', arguments: '{}' } },
            ],
          }) +
          sseChunk({}, 'tool_calls') +
          'data: [DONE]\n\n',
      },
    ]);
    const config = modelConfig(model.url);
    const deltas: string[] = [];
    const reply = await askOnce(config, '撤销', (d) => deltas.push(d));
    expect(reply.text).toBe('好');
    expect(deltas).toEqual(['好']);
    expect(reply.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['undo', '{"steps":2}'],
      ['redo', '{}'],
    ]);
    expect(reply.toolCalls[0]!.id).toBe('c1');
    expect(reply.toolCalls[1]!.id).toMatch(/^call_/);
    expect(model.requests[0]!.body.tools, 'no empty tools list is sent').toBeUndefined();
  });
});

describe('the output limit', () => {
  it('is asked for as max_tokens from a compatible service, and not at all when turned off', async () => {
    model = await startScriptedModel([{ text: '好' }, { text: '好' }]);
    for (const maxOutputTokens of [4096, null]) {
      await askOnce(modelConfig(model.url, { maxOutputTokens }));
    }
    expect(model.requests[0]!.body.max_tokens).toBe(4096);
    expect(model.requests[0]!.body).not.toHaveProperty('max_completion_tokens');
    expect(model.requests[1]!.body).not.toHaveProperty('max_tokens');
    expect(model.requests[1]!.body).not.toHaveProperty('max_completion_tokens');
  });

  it('refused by the service, says which setting to change', async () => {
    model = await startScriptedModel([
      { status: 400, error: 'Invalid max_tokens value, the valid range of max_tokens is [1, 4096]' },
    ]);
    await expect(askOnce(modelConfig(model.url))).rejects.toMatchObject({
      code: 'model_rejected',
      message: expect.stringContaining('ATELIER_MODEL_MAX_OUTPUT_TOKENS'),
    });
  });

  it('is max_completion_tokens for OpenAI itself, which refuses max_tokens for its newer models', () => {
    expect(outputLimit(modelConfig('https://api.openai.com/v1', { maxOutputTokens: 2000 }))).toEqual({
      max_completion_tokens: 2000,
    });
    expect(
      outputLimit(modelConfig('https://my.openai.azure.com/openai/v1', { maxOutputTokens: 10 })),
    ).toEqual({ max_completion_tokens: 10 });
    expect(outputLimit(modelConfig('https://api.deepseek.com/v1', { maxOutputTokens: 8192 }))).toEqual({
      max_tokens: 8192,
    });
  });
});

describe('redact', () => {
  it('removes the key and key-shaped tokens, and shortens', () => {
    const key = 'sk-proj-abcdefghijklmnop';
    expect(redact(`Incorrect API key provided: ${key}.`, key)).toBe('Incorrect API key provided: ***.');
    expect(redact('Incorrect API key provided: sk-proj-****mnop.', key)).toBe(
      'Incorrect API key provided: ***.',
    );
    expect(redact('Bearer abc123456', null)).toBe('***');
    expect(redact('token 0123456789abcdef0123456789abcdef.ABCDEFGH is invalid', null)).toBe(
      'token *** is invalid',
    );
    expect(redact('The model `qwen-max` does not exist', null)).toBe('The model `qwen-max` does not exist');
    expect(redact('模型服务繁忙'.repeat(100), null)).toHaveLength(201);
  });
});
