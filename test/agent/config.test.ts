import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  describeModel,
  HOW_TO_CONFIGURE,
  MODEL_OPTIONS,
  MODEL_USAGE,
  ModelConfigError,
  modelConfigFrom,
} from '../../src/agent/config.js';
import { toolsAndPromptTokens } from '../../src/agent/context-budget.js';

const flags = (...args: string[]) =>
  parseArgs({ args, options: MODEL_OPTIONS, strict: true }).values as Record<string, string | boolean>;

describe('modelConfigFrom', () => {
  it('is null without a model', () => {
    expect(modelConfigFrom({}, {})).toBeNull();
    expect(modelConfigFrom({}, { ATELIER_MODEL: '  ', ATELIER_MODEL_API_KEY: 'sk-x' })).toBeNull();
  });

  it('reads the environment with its defaults', () => {
    expect(modelConfigFrom({}, { ATELIER_MODEL: 'gpt-4.1' })).toEqual({
      baseURL: 'https://api.openai.com/v1',
      model: 'gpt-4.1',
      apiKey: null,
      vision: false,
      tools: 'extended',
      maxSteps: 20,
      timeoutMs: 120_000,
      stream: true,
      contextTokens: 64_000,
      maxOutputTokens: 8192,
    });
    expect(
      modelConfigFrom(
        {},
        {
          ATELIER_MODEL: 'qwen-vl-max',
          ATELIER_MODEL_BASE_URL: 'https://dashscope.aliyuncs.com/compatible-mode/v1/',
          ATELIER_MODEL_API_KEY: 'sk-abc',
          ATELIER_MODEL_VISION: '1',
          ATELIER_MODEL_TOOLS: 'full',
          ATELIER_MODEL_MAX_STEPS: '8',
          ATELIER_MODEL_TIMEOUT: '2.5',
          ATELIER_MODEL_STREAM: 'false',
          ATELIER_MODEL_CONTEXT_TOKENS: '32000',
          ATELIER_MODEL_MAX_OUTPUT_TOKENS: '0',
        },
      ),
    ).toEqual({
      baseURL: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
      model: 'qwen-vl-max',
      apiKey: 'sk-abc',
      vision: true,
      tools: 'full',
      maxSteps: 8,
      timeoutMs: 2500,
      stream: false,
      contextTokens: 32_000,
      maxOutputTokens: null,
    });
  });

  it('lets a flag win over its variable; the key comes from the environment only', () => {
    const env = { ATELIER_MODEL: 'a', ATELIER_MODEL_TOOLS: 'full', ATELIER_MODEL_API_KEY: 'sk-env' };
    const config = modelConfigFrom(
      flags(
        '--model',
        'b',
        '--model-tools',
        'reduced',
        '--model-vision',
        '--model-no-stream',
        '--model-max-steps',
        '3',
        '--model-base-url',
        'http://127.0.0.1:11434/v1',
        '--model-context-tokens',
        '8000',
        '--model-max-output-tokens',
        '2048',
      ),
      env,
    );
    expect(config).toMatchObject({
      model: 'b',
      tools: 'reduced',
      vision: true,
      stream: false,
      maxSteps: 3,
      contextTokens: 8000,
      maxOutputTokens: 2048,
      apiKey: 'sk-env',
      baseURL: 'http://127.0.0.1:11434/v1',
    });
    expect(Object.keys(MODEL_OPTIONS).some((k) => /key/i.test(k))).toBe(false);
  });

  it.each([
    [{ ATELIER_MODEL_TOOLS: 'all' }, /ATELIER_MODEL_TOOLS 的值“all”无效：.*可选 reduced、full、extended/],
    [{ ATELIER_MODEL_MAX_STEPS: '0' }, /ATELIER_MODEL_MAX_STEPS 的值“0”无效：每轮最多的模型请求数/],
    [{ ATELIER_MODEL_MAX_STEPS: '2.5' }, /正整数/],
    [{ ATELIER_MODEL_MAX_STEPS: '100000' }, /不超过 200 的正整数/],
    [{ ATELIER_MODEL_TIMEOUT: 'soon' }, /ATELIER_MODEL_TIMEOUT 的值“soon”无效：每次模型请求的超时（秒）/],
    [{ ATELIER_MODEL_CONTEXT_TOKENS: '128k' }, /ATELIER_MODEL_CONTEXT_TOKENS 的值“128k”无效/],
    [{ ATELIER_MODEL_CONTEXT_TOKENS: '500' }, /至少为 2000/],
    [
      { ATELIER_MODEL_MAX_OUTPUT_TOKENS: '-1' },
      /ATELIER_MODEL_MAX_OUTPUT_TOKENS 的值“-1”无效：.*0（不设上限）/,
    ],
    [{ ATELIER_MODEL_MAX_OUTPUT_TOKENS: '8k' }, /ATELIER_MODEL_MAX_OUTPUT_TOKENS 的值“8k”无效/],
    [{ ATELIER_MODEL_VISION: 'maybe' }, /环境变量 ATELIER_MODEL_VISION 的值“maybe”无效：应为 1 或 0/],
    [{ ATELIER_MODEL_BASE_URL: 'api.openai.com' }, /ATELIER_MODEL_BASE_URL 的值“api.openai.com”不是网址/],
    [{ ATELIER_MODEL_BASE_URL: 'ftp://x/v1' }, /应以 http:\/\/ 或 https:\/\/ 开头，而不是 ftp:/],
  ])('refuses %o', (env, message) => {
    expect(() => modelConfigFrom({}, { ATELIER_MODEL: 'm', ...env })).toThrow(ModelConfigError);
    expect(() => modelConfigFrom({}, { ATELIER_MODEL: 'm', ...env })).toThrow(message);
  });
});

describe('a context budget the tools alone fill', () => {
  it('is refused naming what the tools take and what would do, and fewer tools fit it', () => {
    const fixed = toolsAndPromptTokens('extended');
    const budget = String(fixed - 1000);
    const refuse = () => modelConfigFrom({}, { ATELIER_MODEL: 'm', ATELIER_MODEL_CONTEXT_TOKENS: budget });
    expect(refuse).toThrow(ModelConfigError);
    expect(refuse).toThrow(`extended 工具集和系统提示词本身就约占 ${fixed} 个 token`);
    expect(refuse).toThrow(
      /请设为至少 \d+，或给模型更少的工具（--model-tools 或环境变量 ATELIER_MODEL_TOOLS 设为 reduced/,
    );
    // Every request of a conversation under it stays within it: the fixed part as the loop counts it.
    const reduced = modelConfigFrom(
      {},
      { ATELIER_MODEL: 'm', ATELIER_MODEL_CONTEXT_TOKENS: budget, ATELIER_MODEL_TOOLS: 'reduced' },
    );
    expect(reduced?.contextTokens).toBe(Number(budget));
    expect(toolsAndPromptTokens('reduced')).toBeLessThan(Number(budget));
  });
});

describe('describeModel', () => {
  it('shows the service and model, never the key or credentials in the URL', () => {
    const config = modelConfigFrom(
      {},
      {
        ATELIER_MODEL: 'deepseek-chat',
        ATELIER_MODEL_BASE_URL: 'https://user:pw@api.deepseek.com/v1?api-key=sk-hidden',
        ATELIER_MODEL_API_KEY: 'sk-secret-value',
      },
    )!;
    const shown = describeModel(config);
    expect(shown).toEqual({
      base_url: 'https://api.deepseek.com/v1',
      model: 'deepseek-chat',
      vision: false,
      tools: 'extended',
      max_steps: 20,
      context_tokens: 64_000,
      max_output_tokens: 8192,
    });
    expect(JSON.stringify(shown)).not.toMatch(/secret|hidden|pw/);
  });
});

describe('help texts', () => {
  it('name every variable and flag, with a cloud and a local example', () => {
    for (const v of [
      'ATELIER_MODEL',
      'ATELIER_MODEL_BASE_URL',
      'ATELIER_MODEL_API_KEY',
      'ATELIER_MODEL_VISION',
    ]) {
      expect(HOW_TO_CONFIGURE).toContain(v);
    }
    expect(HOW_TO_CONFIGURE).toMatch(/没有配置对话模型/);
    expect(HOW_TO_CONFIGURE).toMatch(/https:\/\/api\.\S+/);
    expect(HOW_TO_CONFIGURE).toMatch(/http:\/\/127\.0\.0\.1/);
    for (const flag of Object.keys(MODEL_OPTIONS)) expect(MODEL_USAGE.join('\n')).toContain(`--${flag}`);
  });
});
