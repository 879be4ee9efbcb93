/**
 * The chat model's settings: the one place its flags and environment variables are read (a flag wins over its
 * variable). The API key is read from the environment only, so it never shows in a process list, and nothing
 * here ever prints it.
 */
import type { ParseArgsConfig } from 'node:util';
import { type Variant, variants } from '../registry/index.js';
import { type FlagValues, type Given, pickSetting } from '../service/setting.js';
import { toolsAndPromptTokens } from './context-budget.js';

export interface ModelConfig {
  /** ATELIER_MODEL_BASE_URL: any OpenAI-compatible Chat Completions endpoint. */
  readonly baseURL: string;
  /** ATELIER_MODEL: without it no model is configured. */
  readonly model: string;
  /** ATELIER_MODEL_API_KEY: local servers need none. */
  readonly apiKey: string | null;
  /** ATELIER_MODEL_VISION: the model accepts images, so result images are sent to it. */
  readonly vision: boolean;
  /** ATELIER_MODEL_TOOLS: the registry variant the model is given. */
  readonly tools: Variant;
  /** ATELIER_MODEL_MAX_STEPS: model requests per user turn at most. */
  readonly maxSteps: number;
  /** ATELIER_MODEL_TIMEOUT (seconds): per model request, and the longest silence inside a streamed answer. */
  readonly timeoutMs: number;
  /** ATELIER_MODEL_STREAM: some local servers stream tool calls badly, so streaming can be turned off. */
  readonly stream: boolean;
  /**
   * ATELIER_MODEL_CONTEXT_TOKENS: the most tokens (estimated conservatively) one request may carry — tools, system
   * prompt and history; the oldest whole turns are left out of the request to stay under it.
   */
  readonly contextTokens: number;
  /**
   * ATELIER_MODEL_MAX_OUTPUT_TOKENS: the output limit each request asks for (`max_completion_tokens` from OpenAI
   * itself, `max_tokens` from any other service); null (set to 0) sends none, for a service that refuses the field.
   */
  readonly maxOutputTokens: number | null;
}

export class ModelConfigError extends Error {}

export const MODEL_DEFAULTS = {
  baseURL: 'https://api.openai.com/v1',
  tools: 'extended',
  maxSteps: 20,
  timeoutSeconds: 120,
  stream: true,
  /** Fits models with a 64k window or more; the estimate runs high, which leaves room for the answer. */
  contextTokens: 64_000,
  /**
   * Room for a long answer or a message with many tool calls, and within the output limit of the services the README
   * names (DeepSeek's is 8192); a reasoning model that counts its thinking in it may want more.
   */
  maxOutputTokens: 8192,
} as const satisfies Record<string, unknown>;

/** Retries the SDK makes after a 429, a 5xx or a connection failure before a turn gives up. */
export const MODEL_RETRIES = 3;

/**
 * The longest Retry-After waited out before a retry. The SDK waits whatever the service asks, and a spent quota
 * asks for an hour, while the designer sees only a spinner; a longer wait ends the turn at once and says how long
 * the service asked for. The SDK's own backoff goes up to 8 s.
 */
export const MAX_RETRY_WAIT_MS = 15_000;

/** Bounds of the numeric settings, so a typo cannot ask for a million model requests. */
const MAX_STEPS_LIMIT = 200;
const TIMEOUT_LIMIT_SECONDS = 3600;
/** The system prompt and the tools alone take a few thousand tokens, so a smaller budget is a typo. */
export const CONTEXT_TOKENS_MIN = 2000;
/** Room a budget must leave beside the tools and the system prompt: a user message with its state summary, a reply. */
const TURN_ROOM_TOKENS = 2000;
const CONTEXT_TOKENS_LIMIT = 10_000_000;
const MAX_OUTPUT_TOKENS_LIMIT = 1_000_000;

export const MODEL_OPTIONS = {
  model: { type: 'string' },
  'model-base-url': { type: 'string' },
  'model-vision': { type: 'boolean' },
  'model-tools': { type: 'string' },
  'model-max-steps': { type: 'string' },
  'model-timeout': { type: 'string' },
  'model-no-stream': { type: 'boolean' },
  'model-context-tokens': { type: 'string' },
  'model-max-output-tokens': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const MODEL_USAGE: readonly string[] = [
  'Chat model (any OpenAI-compatible Chat Completions API; a flag wins over its variable):',
  '  --model NAME            ATELIER_MODEL            model name; without it no model is configured',
  `  --model-base-url URL    ATELIER_MODEL_BASE_URL   default ${MODEL_DEFAULTS.baseURL}`,
  '                          ATELIER_MODEL_API_KEY    API key (environment only; local servers need none)',
  '  --model-vision          ATELIER_MODEL_VISION=1   the model accepts images (result images are sent to it)',
  `  --model-tools VARIANT   ATELIER_MODEL_TOOLS      ${variants.join('|')} (default ${MODEL_DEFAULTS.tools})`,
  `  --model-max-steps N     ATELIER_MODEL_MAX_STEPS  model requests per user turn at most (default ${MODEL_DEFAULTS.maxSteps})`,
  `  --model-timeout S       ATELIER_MODEL_TIMEOUT    seconds per model request (default ${MODEL_DEFAULTS.timeoutSeconds})`,
  '  --model-no-stream       ATELIER_MODEL_STREAM=0   ask for whole answers instead of streamed ones',
  '  --model-context-tokens N',
  `                          ATELIER_MODEL_CONTEXT_TOKENS  tokens a request may carry, estimated high; the oldest`,
  `                          turns are left out of it, never out of the transcript (default ${MODEL_DEFAULTS.contextTokens})`,
  '  --model-max-output-tokens N',
  '                          ATELIER_MODEL_MAX_OUTPUT_TOKENS  output limit each request asks for; 0 sends none',
  `                          (default ${MODEL_DEFAULTS.maxOutputTokens})`,
];

export const HOW_TO_CONFIGURE = [
  '没有配置对话模型。Atelier 可以使用任何兼容 OpenAI Chat Completions 的模型服务（OpenAI、DeepSeek、通义千问兼容模式、',
  'Moonshot、智谱、vLLM、llama.cpp server、Ollama 等）。设置这些环境变量后重新启动：',
  '  ATELIER_MODEL            模型名称（必填）',
  `  ATELIER_MODEL_BASE_URL   服务地址（默认 ${MODEL_DEFAULTS.baseURL}）`,
  '  ATELIER_MODEL_API_KEY    API 密钥（本地服务可不填；只从环境变量读取）',
  '  ATELIER_MODEL_VISION=1   模型能看图时设置，工具返回的图像会发给模型',
  '',
  'No chat model is configured. Atelier talks to any OpenAI-compatible Chat Completions API. Set these',
  'variables (or the matching --model… flags) and start again:',
  '  ATELIER_MODEL (required), ATELIER_MODEL_BASE_URL, ATELIER_MODEL_API_KEY, ATELIER_MODEL_VISION=1',
  '',
  '例如 / For example — a cloud service:',
  '  export ATELIER_MODEL_BASE_URL=https://api.deepseek.com/v1',
  '  export ATELIER_MODEL=deepseek-chat',
  '  export ATELIER_MODEL_API_KEY=sk-…',
  '',
  'a local server (Ollama):',
  '  export ATELIER_MODEL_BASE_URL=http://127.0.0.1:11434/v1',
  '  export ATELIER_MODEL=qwen2.5:14b',
].join('\n');

function booleanOf(raw: string | undefined, variable: string, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  const v = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ModelConfigError(
    `环境变量 ${variable} 的值“${raw}”无效：应为 1 或 0（也可写 true/false、yes/no、on/off）`,
  );
}

function numberOf(
  given: Given | undefined,
  what: string,
  max: number,
  integer: boolean,
  orZero = '',
): number | undefined {
  if (given === undefined) return undefined;
  const { raw } = given;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || n > max || (integer && !Number.isInteger(n))) {
    throw new ModelConfigError(
      `${given.from} 的值“${raw}”无效：${what}应为${orZero}不超过 ${max} 的正${integer ? '整数' : '数'}`,
    );
  }
  return n;
}

function baseUrlOf(given: Given | undefined): string {
  if (given === undefined) return MODEL_DEFAULTS.baseURL;
  let url: URL;
  try {
    url = new URL(given.raw);
  } catch {
    throw new ModelConfigError(
      `${given.from} 的值“${given.raw}”不是网址：模型服务地址应为完整的网址，如 ${MODEL_DEFAULTS.baseURL}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelConfigError(
      `${given.from} 的值“${given.raw}”无效：模型服务地址应以 http:// 或 https:// 开头，而不是 ${url.protocol}`,
    );
  }
  return given.raw.replace(/\/+$/, '');
}

/** Flags over environment; null when no model is configured (ATELIER_MODEL unset). Throws ModelConfigError on bad values. */
export function modelConfigFrom(
  values: FlagValues,
  env: NodeJS.ProcessEnv = process.env,
): ModelConfig | null {
  const model = pickSetting(values, 'model', env, 'ATELIER_MODEL')?.raw.trim();
  if (!model) return null;
  const toolsGiven = pickSetting(values, 'model-tools', env, 'ATELIER_MODEL_TOOLS');
  const tools = toolsGiven?.raw ?? MODEL_DEFAULTS.tools;
  if (toolsGiven && !(variants as readonly string[]).includes(tools)) {
    throw new ModelConfigError(
      `${toolsGiven.from} 的值“${tools}”无效：给模型的工具集可选 ${variants.join('、')}（默认 ${MODEL_DEFAULTS.tools}）`,
    );
  }
  const maxSteps = numberOf(
    pickSetting(values, 'model-max-steps', env, 'ATELIER_MODEL_MAX_STEPS'),
    '每轮最多的模型请求数',
    MAX_STEPS_LIMIT,
    true,
  );
  const timeout = numberOf(
    pickSetting(values, 'model-timeout', env, 'ATELIER_MODEL_TIMEOUT'),
    '每次模型请求的超时（秒）',
    TIMEOUT_LIMIT_SECONDS,
    false,
  );
  const contextGiven = pickSetting(values, 'model-context-tokens', env, 'ATELIER_MODEL_CONTEXT_TOKENS');
  const contextTokens = numberOf(contextGiven, '一次请求可携带的 token 数', CONTEXT_TOKENS_LIMIT, true);
  if (contextGiven && contextTokens !== undefined && contextTokens < CONTEXT_TOKENS_MIN) {
    throw new ModelConfigError(
      `${contextGiven.from} 的值“${contextGiven.raw}”太小：一次请求可携带的 token 数至少为 ${CONTEXT_TOKENS_MIN}`,
    );
  }
  if (contextGiven && contextTokens !== undefined) {
    // A budget the tools fill leaves every request over it, whatever the history: say so now, not by overflowing.
    const fixed = toolsAndPromptTokens(tools as Variant);
    if (contextTokens < fixed + TURN_ROOM_TOKENS) {
      const smaller = variants
        .filter((v) => v !== tools)
        .map((v) => ({ v, need: toolsAndPromptTokens(v) + TURN_ROOM_TOKENS }))
        .filter(({ need }) => need <= contextTokens);
      throw new ModelConfigError(
        `${contextGiven.from} 的值 ${contextTokens} 给对话留不下空间：${tools} 工具集和系统提示词本身就约占 ${fixed} 个 token（估计偏高）；请设为至少 ${fixed + TURN_ROOM_TOKENS}${
          smaller.length
            ? `，或给模型更少的工具（--model-tools 或环境变量 ATELIER_MODEL_TOOLS 设为 ${smaller.map(({ v }) => v).join(' 或 ')}）`
            : ''
        }`,
      );
    }
  }
  const maxOutputRaw = pickSetting(values, 'model-max-output-tokens', env, 'ATELIER_MODEL_MAX_OUTPUT_TOKENS');
  // 0 asks for no limit at all: the field is left out of the request.
  const maxOutputTokens =
    maxOutputRaw?.raw.trim() === '0'
      ? null
      : (numberOf(
          maxOutputRaw,
          '每次请求的输出 token 上限',
          MAX_OUTPUT_TOKENS_LIMIT,
          true,
          '0（不设上限）或',
        ) ?? MODEL_DEFAULTS.maxOutputTokens);
  const apiKey = env.ATELIER_MODEL_API_KEY?.trim();
  return {
    baseURL: baseUrlOf(pickSetting(values, 'model-base-url', env, 'ATELIER_MODEL_BASE_URL')),
    model,
    apiKey: apiKey ? apiKey : null,
    vision:
      values['model-vision'] === true ||
      booleanOf(env.ATELIER_MODEL_VISION?.trim() || undefined, 'ATELIER_MODEL_VISION', false),
    tools: tools as Variant,
    maxSteps: maxSteps ?? MODEL_DEFAULTS.maxSteps,
    timeoutMs: Math.round((timeout ?? MODEL_DEFAULTS.timeoutSeconds) * 1000),
    stream:
      values['model-no-stream'] === true
        ? false
        : booleanOf(
            env.ATELIER_MODEL_STREAM?.trim() || undefined,
            'ATELIER_MODEL_STREAM',
            MODEL_DEFAULTS.stream,
          ),
    contextTokens: contextTokens ?? MODEL_DEFAULTS.contextTokens,
    maxOutputTokens,
  };
}

/** The base URL without credentials, query or fragment (some services take a key in the query string). */
function safeBaseUrl(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/** A description safe to show (base URL host, model, vision, tools) — never the key. */
export function describeModel(config: ModelConfig): {
  base_url: string;
  model: string;
  vision: boolean;
  tools: Variant;
  max_steps: number;
  context_tokens: number;
  /** null: no output limit is asked for. */
  max_output_tokens: number | null;
} {
  return {
    base_url: safeBaseUrl(config.baseURL),
    model: config.model,
    vision: config.vision,
    tools: config.tools,
    max_steps: config.maxSteps,
    context_tokens: config.contextTokens,
    max_output_tokens: config.maxOutputTokens,
  };
}
