/**
 * Model failures as a code and a Chinese message written here. The server's own explanation is quoted only for
 * a refused request (it says what was wrong, e.g. "this model does not support tools"), shortened and with the
 * key and anything shaped like a key removed: some services echo a masked key back in a 401.
 */
import OpenAI from 'openai';
import { MAX_RETRY_WAIT_MS, MODEL_RETRIES, type ModelConfig } from './config.js';
import type { ChatErrorCode } from './events.js';

export class ModelError extends Error {
  constructor(
    readonly code: ChatErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** `sk-…` keys (OpenAI, DeepSeek, DashScope, Moonshot), bearer tokens, and any long opaque token (Zhipu's `id.secret`). */
const KEY_SHAPED =
  /(?:\b(?:sk|pk|rk)-[A-Za-z0-9*._-]{4,}|\bbearer\s+[A-Za-z0-9*._-]{4,}|[A-Za-z0-9._-]{32,})(?<!\.)/gi;

/**
 * How services word a request longer than the model's context window: OpenAI and vLLM ("maximum context length",
 * `context_length_exceeded`), Anthropic through compatible gateways ("prompt is too long"), llama.cpp ("exceeds the
 * available context size"), Ollama and others ("context window", "too many tokens").
 */
const CONTEXT_REFUSAL =
  /context[ _](length|window|size)|maximum context|prompt is too long|input is too long|too many (input )?tokens/i;

/** The text without the key, without key-shaped tokens, on one line and at most `max` characters. */
export function redact(text: string, apiKey: string | null, max = 200): string {
  let out = apiKey ? text.split(apiKey).join('***') : text;
  out = out.replace(KEY_SHAPED, '***').replace(/\s+/g, ' ').trim();
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL;
  }
}

function serverSays(err: InstanceType<typeof OpenAI.APIError>, config: ModelConfig): string {
  const body = err.error as { message?: unknown } | undefined;
  const raw = typeof body?.message === 'string' ? body.message : '';
  const said = redact(raw, config.apiKey);
  return said ? `服务说明：${said}` : '';
}

/**
 * How long a refusal asks to be retried after, in ms, read as the SDK reads it (`retry-after-ms`, then
 * `retry-after` in seconds or as a date); null when it does not say.
 */
export function retryWaitMs(headers: Headers | undefined): number | null {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  // The SDK reads `retry-after-ms: 0` as unset and waits what `retry-after` says, so must we.
  if (!Number.isNaN(ms) && ms !== 0) return ms;
  const after = headers?.get('retry-after');
  if (!after) return null;
  const seconds = Number.parseFloat(after);
  const wait = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  return Number.isNaN(wait) ? null : wait;
}

/** Whether the SDK would retry a response of this status (as its `shouldRetry`, less the timeouts and conflicts). */
export const retriedStatus = (status: number): boolean => status === 429 || status >= 500;

/** The retries' part of a refusal's message: made, or not made because the service asked for too long a wait. */
function retriesSaid(err: InstanceType<typeof OpenAI.APIError>): string {
  const wait = retryWaitMs(err.headers);
  if (wait === null || wait <= MAX_RETRY_WAIT_MS) return `重试 ${MODEL_RETRIES} 次后仍未成功`;
  return `服务要求 ${Math.ceil(wait / 1000)} 秒后再试，超过 ${MAX_RETRY_WAIT_MS / 1000} 秒，没有等待重试`;
}

/** A network error's code (ECONNREFUSED, ENOTFOUND …), which says what went wrong without echoing the request. */
function causeCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return '';
}

/** Maps whatever the SDK threw to a ModelError. `reason` says whether we aborted it (cancel or silence). */
export function describeModelFailure(
  err: unknown,
  reason: 'cancel' | 'timeout' | null,
  config: ModelConfig,
): ModelError {
  const seconds = Math.round(config.timeoutMs / 100) / 10;
  if (reason === 'cancel' || (reason === null && err instanceof OpenAI.APIUserAbortError)) {
    return new ModelError('cancelled', '已取消：模型请求已中止。');
  }
  if (reason === 'timeout' || err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError(
      'model_timeout',
      `模型在 ${seconds} 秒内没有回应，本轮已停止。请稍后重试，或加大 ATELIER_MODEL_TIMEOUT。`,
    );
  }
  const host = hostOf(config.baseURL);
  if (err instanceof OpenAI.APIConnectionError) {
    const code = causeCode(err);
    return new ModelError(
      'model_unavailable',
      `无法连接模型服务 ${host}${code ? `（${code}）` : ''}，重试 ${MODEL_RETRIES} 次后仍失败。请检查 ATELIER_MODEL_BASE_URL 和网络，或确认本地模型服务已启动。`,
    );
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const status = err.status;
    const said = serverSays(err, config);
    if (status === 401 || status === 403) {
      return new ModelError(
        'model_auth',
        `模型服务 ${host} 拒绝了请求（HTTP ${status}）：API 密钥无效或没有权限。请检查 ATELIER_MODEL_API_KEY。`,
      );
    }
    if (status === 404) {
      return new ModelError(
        'model_not_found',
        `模型服务 ${host} 找不到模型“${config.model}”或接口（HTTP 404）。请检查 ATELIER_MODEL 和 ATELIER_MODEL_BASE_URL（通常以 /v1 结尾）。`,
      );
    }
    if (status === 429) {
      return new ModelError(
        'model_rate_limited',
        `模型服务 ${host} 限流（HTTP 429），${retriesSaid(err)}。请稍后再发一次消息，或检查账户额度。`,
      );
    }
    if (status >= 500) {
      return new ModelError(
        'model_unavailable',
        `模型服务 ${host} 出错（HTTP ${status}），${retriesSaid(err)}。请稍后重试。`,
      );
    }
    // The output limit asked for may be above what this model can give, or a field the service does not take.
    if (/max_(completion_)?tokens/i.test(said)) {
      return new ModelError(
        'model_rejected',
        `模型服务 ${host} 拒绝了请求（HTTP ${status}）。${said}。请把 ATELIER_MODEL_MAX_OUTPUT_TOKENS 设为这个模型允许的值，或设为 0 不再发送输出长度上限。`,
      );
    }
    // Over the model's context window: the budget is set above it (its estimate runs high, but not without end).
    if (CONTEXT_REFUSAL.test(said)) {
      return new ModelError(
        'context_full',
        `模型服务 ${host} 拒绝了请求（HTTP ${status}）：请求超出了模型的上下文窗口。${said}。请调低 ATELIER_MODEL_CONTEXT_TOKENS（现为 ${config.contextTokens}），使它加上输出上限${config.maxOutputTokens === null ? '' : `（ATELIER_MODEL_MAX_OUTPUT_TOKENS=${config.maxOutputTokens}）`}不超过模型的上下文窗口。`,
      );
    }
    return new ModelError(
      'model_rejected',
      `模型服务 ${host} 拒绝了请求（HTTP ${status}）。${said ? `${said}。` : ''}请检查模型是否支持工具调用${config.vision ? '和图像输入（或去掉 ATELIER_MODEL_VISION）' : ''}。`,
    );
  }
  if (err instanceof OpenAI.APIError) {
    // An error object inside a stream: the server gave up mid-answer.
    return new ModelError('model_bad_response', `模型服务在回答中途报错。${serverSays(err, config)}`);
  }
  // What went wrong in the words of how the answer came: a stream or one JSON body; a connection cut (a
  // socket reset mid-answer) is not the answer's format.
  const cut = /terminated|socket|ECONNRESET|aborted|premature/i.test(err instanceof Error ? err.message : '');
  const what = cut
    ? '连接在回答中途断开'
    : err instanceof SyntaxError
      ? config.stream
        ? '流中的数据不是有效的 JSON'
        : '回答不是有效的 JSON'
      : '回答的格式不对';
  return new ModelError(
    'model_bad_response',
    `无法读取模型的回答：${what}。请重试${config.stream && !cut ? '，或设置 ATELIER_MODEL_STREAM=0' : ''}。`,
  );
}
