/**
 * The HTTP service's settings: defaults, the rule that a non-loopback address needs a token, and the one place
 * flags and environment variables are read (a flag wins over its variable).
 */
import { isIP } from 'node:net';
import { totalmem } from 'node:os';
import { type ModelConfig, ModelConfigError, modelConfigFrom } from '../agent/config.js';
import { type Variant, variants } from '../registry/index.js';
import { DEFAULT_WORKSPACE } from '../service/defaults.js';

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

/** Refuses settings that would expose the editor: a non-loopback address without a token, or nonsense limits. */
export function checkConfig(config: ServerConfig): void {
  if (!isLoopback(config.host) && !config.token) {
    throw new ConfigError(
      `refusing to listen on ${config.host} without a token: set ATELIER_TOKEN (every request must then ` +
        'carry "Authorization: Bearer <token>"), or bind a loopback address such as 127.0.0.1',
    );
  }
  if (config.token !== null && config.token.length < 16) {
    throw new ConfigError(
      'ATELIER_TOKEN is too short: use at least 16 characters (e.g. `openssl rand -hex 32`)',
    );
  }
  const positive: [string, number][] = [
    ['idle timeout', config.idleTimeoutMs],
    ['max sessions', config.maxSessions],
    ['upload limit', config.uploadLimitBytes],
    ['max concurrent uploads', config.maxConcurrentUploads],
    ['upload stall timeout', config.uploadStallMs],
    ['session memory', config.sessionMemoryBytes],
    ['memory', config.memoryBytes],
    ['session disk', config.sessionDiskBytes],
    ['body limit', config.bodyLimitBytes],
    ['max calls per request', config.maxCallsPerRequest],
  ];
  for (const [what, value] of positive) {
    if (!(Number.isFinite(value) && value > 0)) throw new ConfigError(`${what} must be a positive number`);
  }
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) {
    throw new ConfigError(`port must be an integer from 0 to 65535, not ${config.port}`);
  }
}

type Values = Record<string, string | boolean | undefined>;

/** A flag's value, else the environment variable's, else undefined. */
function pick(values: Values, flag: string, env: NodeJS.ProcessEnv, variable: string): string | undefined {
  const v = values[flag];
  if (typeof v === 'string') return v;
  const e = env[variable];
  return e === undefined || e === '' ? undefined : e;
}

function numberOf(raw: string | undefined, what: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new ConfigError(`${what} must be a positive number, not "${raw}"`);
  }
  return n;
}

/**
 * Variables the engine and the service read for themselves (as every command does), where a typo would
 * otherwise pass for a default: `serve` stops on it with its reason.
 */
const WHOLE_NUMBER_VARIABLES: readonly (readonly [string, number])[] = [
  ['ATELIER_SESSION_THREADS', 1],
  ['ATELIER_COMPOSITE_WORKERS', 0],
];

function checkWholeNumbers(env: NodeJS.ProcessEnv): void {
  for (const [variable, min] of WHOLE_NUMBER_VARIABLES) {
    const raw = env[variable];
    if (raw === undefined || raw.trim() === '') continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      throw new ConfigError(`${variable} must be a whole number from ${min} up, not "${raw}"`);
    }
  }
}

/** Reads `atelier serve`'s flags over the environment. The token comes from the environment only. */
export function configFrom(values: Values, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  checkWholeNumbers(env);
  const port = pick(values, 'port', env, 'ATELIER_PORT');
  const portNumber = port === undefined ? DEFAULTS.port : Number(port);
  if (port !== undefined && (port.trim() === '' || !Number.isInteger(portNumber))) {
    throw new ConfigError(`port must be an integer from 0 to 65535, not "${port}"`);
  }
  const variant = pick(values, 'variant', env, 'ATELIER_MCP_VARIANT') ?? DEFAULTS.mcpVariant;
  if (!(variants as readonly string[]).includes(variant)) {
    throw new ConfigError(`unknown variant "${variant}"; allowed: ${variants.join(', ')}`);
  }
  const token = env.ATELIER_TOKEN;
  let model: ModelConfig | null;
  try {
    model = modelConfigFrom(values, env);
  } catch (err) {
    if (err instanceof ModelConfigError) throw new ConfigError(err.message);
    throw err;
  }
  return serverConfig({
    model,
    host: pick(values, 'host', env, 'ATELIER_HOST') ?? DEFAULTS.host,
    port: portNumber,
    workspace: pick(values, 'workspace', env, 'ATELIER_WORKSPACE') ?? DEFAULTS.workspace,
    token: token === undefined || token === '' ? null : token,
    idleTimeoutMs:
      numberOf(
        pick(values, 'idle-timeout', env, 'ATELIER_IDLE_TIMEOUT'),
        'idle timeout (seconds)',
        DEFAULTS.idleTimeoutSeconds,
      ) * 1000,
    maxSessions: Math.floor(
      numberOf(
        pick(values, 'max-sessions', env, 'ATELIER_MAX_SESSIONS'),
        'max sessions',
        DEFAULTS.maxSessions,
      ),
    ),
    uploadLimitBytes: Math.floor(
      numberOf(
        pick(values, 'upload-limit', env, 'ATELIER_UPLOAD_LIMIT_MB'),
        'upload limit (MB)',
        DEFAULTS.uploadLimitMb,
      ) * MB,
    ),
    maxConcurrentUploads: Math.floor(
      numberOf(
        pick(values, 'max-uploads', env, 'ATELIER_MAX_UPLOADS'),
        'max concurrent uploads',
        DEFAULTS.maxConcurrentUploads,
      ),
    ),
    sessionMemoryBytes: Math.floor(
      numberOf(
        pick(values, 'session-memory', env, 'ATELIER_SESSION_MEMORY_MB'),
        'session memory (MB)',
        DEFAULTS.sessionMemoryMb,
      ) * MB,
    ),
    memoryBytes: Math.floor(
      numberOf(pick(values, 'memory', env, 'ATELIER_MEMORY_MB'), 'memory (MB)', DEFAULTS.memoryMb) * MB,
    ),
    sessionDiskBytes: Math.floor(
      numberOf(
        pick(values, 'session-disk', env, 'ATELIER_SESSION_DISK_MB'),
        'session disk (MB)',
        DEFAULTS.sessionDiskMb,
      ) * MB,
    ),
    bodyLimitBytes: Math.floor(
      numberOf(
        pick(values, 'body-limit', env, 'ATELIER_BODY_LIMIT_MB'),
        'body limit (MB)',
        DEFAULTS.bodyLimitMb,
      ) * MB,
    ),
    maxCallsPerRequest: Math.floor(
      numberOf(
        pick(values, 'max-calls', env, 'ATELIER_MAX_CALLS_PER_REQUEST'),
        'max calls per request',
        DEFAULTS.maxCallsPerRequest,
      ),
    ),
    mcpVariant: variant as Variant,
  });
}
