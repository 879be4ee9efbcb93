/**
 * The HTTP service's settings: defaults, the rule that a non-loopback address needs a token, and the one place
 * flags and environment variables are read (a flag wins over its variable).
 */
import { isIP } from 'node:net';
import { totalmem } from 'node:os';
import { type ModelConfig, ModelConfigError, modelConfigFrom } from '../agent/config.js';
import { type Variant, variants } from '../registry/index.js';
import { DEFAULT_WORKSPACE } from '../service/defaults.js';
import { type FlagValues, pickSetting } from '../service/setting.js';

export interface ServerConfig {
  /** Address to bind; loopback unless a token is set. */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Every session works in `<workspace>/sessions/<id>/`. */
  readonly workspace: string;
  /** When set, every request but `GET /v1/health` must carry `Authorization: Bearer <token>`. */
  readonly token: string | null;
  /** A session unused this long leaves memory; its next request recovers it from its journal. */
  readonly idleTimeoutMs: number;
  /** Open sessions (HTTP and MCP together) at most; creating one more answers 429. */
  readonly maxSessions: number;
  /** Largest upload body, in bytes. */
  readonly uploadLimitBytes: number;
  /** Uploads received at the same time at most, one session half of them; one more answers 503. */
  readonly maxConcurrentUploads: number;
  /** An upload whose client sends nothing for this long is answered 408, and its place freed for others. */
  readonly uploadStallMs: number;
  /** Pixel memory one session's documents may hold (layers, history, composites); a call beyond is refused. */
  readonly sessionMemoryBytes: number;
  /** Pixel memory all sessions together may hold; a call beyond what the others leave is refused. */
  readonly memoryBytes: number;
  /** Bytes one session may keep on disk, its files and its journal together; a write beyond is refused, nothing stored. */
  readonly sessionDiskBytes: number;
  /** Largest tool-call (and MCP message) body, in bytes. */
  readonly bodyLimitBytes: number;
  /** Tool calls one request may carry at most. */
  readonly maxCallsPerRequest: number;
  /** The tools `/mcp` lists. */
  readonly mcpVariant: Variant;
  /** The chat model, or null: then the studio is a manual editor and chat answers 409. */
  readonly model: ModelConfig | null;
  /** Where the server's own messages go (stderr by default). */
  readonly log: (line: string) => void;
}

const MB = 1024 * 1024;

/**
 * Half the memory of the machine, or of the container when it is limited to less: the rest is for what the
 * pools do not count (the threads' heaps, encoders' buffers, the system). The result images kept for the
 * sessions are counted in it (at most an eighth of it).
 */
function defaultMemoryMb(): number {
  const limit = process.constrainedMemory?.() ?? 0;
  const memory = limit > 0 ? Math.min(limit, totalmem()) : totalmem();
  return Math.max(1, Math.floor(memory / 2 / MB));
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  workspace: DEFAULT_WORKSPACE,
  idleTimeoutSeconds: 1800,
  maxSessions: 100,
  uploadLimitMb: 200,
  maxConcurrentUploads: 4,
  uploadStallSeconds: 30,
  // A 9000 × 18000 garment marker with its pieces holds ~1.3 GB and saving it as PSD takes ~1.2 GB more.
  sessionMemoryMb: 4096,
  memoryMb: defaultMemoryMb(),
  // A few saves of such a marker as PSD (1–2 GB each) with its uploads and exports.
  sessionDiskMb: 10240,
  bodyLimitMb: 1,
  maxCallsPerRequest: 100,
  mcpVariant: 'extended',
} as const satisfies Record<string, unknown>;

export function serverConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    host: DEFAULTS.host,
    port: DEFAULTS.port,
    workspace: DEFAULTS.workspace,
    token: null,
    idleTimeoutMs: DEFAULTS.idleTimeoutSeconds * 1000,
    maxSessions: DEFAULTS.maxSessions,
    uploadLimitBytes: DEFAULTS.uploadLimitMb * MB,
    maxConcurrentUploads: DEFAULTS.maxConcurrentUploads,
    uploadStallMs: DEFAULTS.uploadStallSeconds * 1000,
    sessionMemoryBytes: DEFAULTS.sessionMemoryMb * MB,
    memoryBytes: DEFAULTS.memoryMb * MB,
    sessionDiskBytes: DEFAULTS.sessionDiskMb * MB,
    bodyLimitBytes: DEFAULTS.bodyLimitMb * MB,
    maxCallsPerRequest: DEFAULTS.maxCallsPerRequest,
    mcpVariant: DEFAULTS.mcpVariant,
    model: null,
    log: (line) => process.stderr.write(`${line}\n`),
    ...overrides,
  };
}

/** 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and `localhost`. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(h);
  return false;
}

export class ConfigError extends Error {}

/** A numeric setting as the designer sets it: its flag, its variable, and what it is, in the words of errors. */
interface NumberSetting {
  readonly flag: string;
  readonly variable: string;
  readonly what: string;
}

/** Every numeric setting by its field, so an error names the flag and the variable that set it. */
const SETTINGS = {
  idleTimeoutMs: { flag: 'idle-timeout', variable: 'ATELIER_IDLE_TIMEOUT', what: '会话空闲超时（秒）' },
  maxSessions: { flag: 'max-sessions', variable: 'ATELIER_MAX_SESSIONS', what: '同时打开的会话数上限' },
  uploadLimitBytes: {
    flag: 'upload-limit',
    variable: 'ATELIER_UPLOAD_LIMIT_MB',
    what: '单个上传的大小上限（MB）',
  },
  maxConcurrentUploads: {
    flag: 'max-uploads',
    variable: 'ATELIER_MAX_UPLOADS',
    what: '同时接收的上传数上限',
  },
  uploadStallMs: { flag: '', variable: '', what: '上传停顿超时' },
  sessionMemoryBytes: {
    flag: 'session-memory',
    variable: 'ATELIER_SESSION_MEMORY_MB',
    what: '每个会话的像素内存（MB）',
  },
  memoryBytes: { flag: 'memory', variable: 'ATELIER_MEMORY_MB', what: '所有会话合计的像素内存（MB）' },
  sessionDiskBytes: {
    flag: 'session-disk',
    variable: 'ATELIER_SESSION_DISK_MB',
    what: '每个会话的磁盘空间（MB）',
  },
  bodyLimitBytes: {
    flag: 'body-limit',
    variable: 'ATELIER_BODY_LIMIT_MB',
    what: '工具调用或 MCP 请求体的大小上限（MB）',
  },
  maxCallsPerRequest: {
    flag: 'max-calls',
    variable: 'ATELIER_MAX_CALLS_PER_REQUEST',
    what: '一个请求最多携带的工具调用数',
  },
} as const satisfies Partial<Record<keyof ServerConfig, NumberSetting>>;

const PORT: NumberSetting = { flag: 'port', variable: 'ATELIER_PORT', what: '端口' };
const PORT_RULE = '应为 0 到 65535 的整数（0 表示任选一个空闲端口）';

/** Where a setting can be given, for an error that cannot tell which was used. */
function setBy(setting: NumberSetting): string {
  return setting.flag ? `（由 --${setting.flag} 或环境变量 ${setting.variable} 设置）` : '';
}

/** Refuses settings that would expose the editor: a non-loopback address without a token, or nonsense limits. */
export function checkConfig(config: ServerConfig): void {
  if (!isLoopback(config.host) && !config.token) {
    throw new ConfigError(
      `拒绝在 ${config.host} 上不设令牌地监听：请设置环境变量 ATELIER_TOKEN（此后每个请求都须带 ` +
        '"Authorization: Bearer <token>"），或改用回环地址，如 --host 127.0.0.1',
    );
  }
  if (config.token !== null && config.token.length < 16) {
    throw new ConfigError(
      '环境变量 ATELIER_TOKEN 太短：至少需要 16 个字符（可用 `openssl rand -hex 32` 生成）',
    );
  }
  for (const [key, setting] of Object.entries(SETTINGS)) {
    const value = config[key as keyof typeof SETTINGS];
    if (!(Number.isFinite(value) && value > 0)) {
      throw new ConfigError(`${setting.what}应为大于 0 的数${setBy(setting)}`);
    }
  }
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) {
    throw new ConfigError(`端口${PORT_RULE}，现为 ${config.port}${setBy(PORT)}`);
  }
}

function numberOf(
  values: FlagValues,
  env: NodeJS.ProcessEnv,
  setting: NumberSetting,
  fallback: number,
): number {
  const given = pickSetting(values, setting.flag, env, setting.variable);
  if (given === undefined) return fallback;
  const n = Number(given.raw);
  if (given.raw.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new ConfigError(
      `${given.from} 的值“${given.raw}”无效：${setting.what}应为大于 0 的数（默认 ${fallback}）`,
    );
  }
  return n;
}

/**
 * Variables the engine and the service read for themselves (as every command does), where a typo would
 * otherwise pass for a default: `serve` stops on it with its reason.
 */
const WHOLE_NUMBER_VARIABLES: readonly (readonly [string, number, string])[] = [
  ['ATELIER_SESSION_THREADS', 1, '会话使用的工作线程数'],
  ['ATELIER_COMPOSITE_WORKERS', 0, '合成图像的工作线程数'],
];

function checkWholeNumbers(env: NodeJS.ProcessEnv): void {
  for (const [variable, min, what] of WHOLE_NUMBER_VARIABLES) {
    const raw = env[variable];
    if (raw === undefined || raw.trim() === '') continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      throw new ConfigError(`环境变量 ${variable} 的值“${raw}”无效：${what}应为不小于 ${min} 的整数`);
    }
  }
}

/** Reads `atelier serve`'s flags over the environment. The token comes from the environment only. */
export function configFrom(values: FlagValues, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  checkWholeNumbers(env);
  const port = pickSetting(values, PORT.flag, env, PORT.variable);
  const portNumber = port === undefined ? DEFAULTS.port : Number(port.raw);
  if (port !== undefined && (port.raw.trim() === '' || !Number.isInteger(portNumber))) {
    throw new ConfigError(`${port.from} 的值“${port.raw}”无效：端口${PORT_RULE}`);
  }
  const variant = pickSetting(values, 'variant', env, 'ATELIER_MCP_VARIANT');
  if (variant !== undefined && !(variants as readonly string[]).includes(variant.raw)) {
    throw new ConfigError(
      `${variant.from} 的值“${variant.raw}”无效：MCP 列出的工具集可选 ${variants.join('、')}（默认 ${DEFAULTS.mcpVariant}）`,
    );
  }
  const token = env.ATELIER_TOKEN;
  let model: ModelConfig | null;
  try {
    model = modelConfigFrom(values, env);
  } catch (err) {
    if (err instanceof ModelConfigError) throw new ConfigError(err.message);
    throw err;
  }
  const count = (setting: NumberSetting, fallback: number) =>
    Math.floor(numberOf(values, env, setting, fallback));
  const megabytes = (setting: NumberSetting, fallback: number) =>
    Math.floor(numberOf(values, env, setting, fallback) * MB);
  return serverConfig({
    model,
    host: pickSetting(values, 'host', env, 'ATELIER_HOST')?.raw ?? DEFAULTS.host,
    port: portNumber,
    workspace: pickSetting(values, 'workspace', env, 'ATELIER_WORKSPACE')?.raw ?? DEFAULTS.workspace,
    token: token === undefined || token === '' ? null : token,
    idleTimeoutMs: numberOf(values, env, SETTINGS.idleTimeoutMs, DEFAULTS.idleTimeoutSeconds) * 1000,
    maxSessions: count(SETTINGS.maxSessions, DEFAULTS.maxSessions),
    uploadLimitBytes: megabytes(SETTINGS.uploadLimitBytes, DEFAULTS.uploadLimitMb),
    maxConcurrentUploads: count(SETTINGS.maxConcurrentUploads, DEFAULTS.maxConcurrentUploads),
    sessionMemoryBytes: megabytes(SETTINGS.sessionMemoryBytes, DEFAULTS.sessionMemoryMb),
    memoryBytes: megabytes(SETTINGS.memoryBytes, DEFAULTS.memoryMb),
    sessionDiskBytes: megabytes(SETTINGS.sessionDiskBytes, DEFAULTS.sessionDiskMb),
    bodyLimitBytes: megabytes(SETTINGS.bodyLimitBytes, DEFAULTS.bodyLimitMb),
    maxCallsPerRequest: count(SETTINGS.maxCallsPerRequest, DEFAULTS.maxCallsPerRequest),
    mcpVariant: (variant?.raw ?? DEFAULTS.mcpVariant) as Variant,
  });
}
