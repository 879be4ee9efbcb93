/** Starts the HTTP service on the real network stack: the same server `atelier serve` runs and the tests drive. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import { type McpCallPrefix, startedNow } from '../agent/event-shapes.js';
import type { ToolResult } from '../calls/result.js';
import { Workspace } from '../engine/workspace.js';
import { McpHttpEndpoint, type McpHttpOptions } from '../mcp/http.js';
import { SessionStore } from '../service/sessions.js';
import { createApp } from './app.js';
import { ChatRooms } from './chat-rooms.js';
import { checkConfig, type ServerConfig, serverConfig } from './config.js';
import { callEvent, resultEvent } from './routes/tool-calls.js';
import { SessionEvents } from './session-events.js';

export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  /** The Node HTTP server (its timeouts). */
  readonly http: Server;
  readonly host: string;
  readonly port: number;
  readonly config: ServerConfig;
  readonly store: SessionStore;
  readonly app: Hono;
  /** Stops listening, closes every session and open connection. */
  close(): Promise<void>;
}

/**
 * The slowest an upload may arrive and still be taken: 32 KiB/s, a poor mobile uplink. Node cuts any request
 * whose body has not fully arrived 5 minutes after it began (`requestTimeout`), which a 200 MB PSD sent over
 * an ordinary office uplink (5 Mbit/s) does not make; the deadline is stretched to the largest upload at this
 * rate. An upload that stops sending is cut sooner, after `uploadStallMs`.
 */
export const SLOWEST_UPLOAD_BYTES_PER_S = 32 * 1024;

/** How long a request may take to arrive whole: Node's 5 minutes, or the largest upload at the slowest rate. */
export function requestDeadlineMs(config: ServerConfig): number {
  return Math.max(300_000, Math.ceil(config.uploadLimitBytes / SLOWEST_UPLOAD_BYTES_PER_S) * 1000);
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Node's refusals of a request it could not read, by error code (the headers too large, the request too slow),
 * as JSON envelopes like the app's own: status line, code and message.
 */
const CLIENT_ERRORS: Readonly<Record<string, readonly [string, string, string]>> = {
  HPE_HEADER_OVERFLOW: [
    '431 Request Header Fields Too Large',
    'headers_too_large',
    '请求头太大，服务没有读取这个请求（Node 的上限约 16 KB）：请精简请求头，如过长的 Cookie',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [
    '408 Request Timeout',
    'request_timeout',
    '请求在时限内没有完整到达，已停止：请重新发送',
  ],
};
const MALFORMED: readonly [string, string, string] = [
  '400 Bad Request',
  'bad_request',
  '请求不是有效的 HTTP 请求，服务无法读取',
];

function clientErrorAnswer(code: string | undefined): string {
  const [status, errorCode, message] = CLIENT_ERRORS[code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ error: { code: errorCode, message } });
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

const MCP_CALL: McpCallPrefix = 'mcp_';
let mcpCalls = 0;

/**
 * An MCP client's calls told to the session's tabs as the events of a streamed run (a card each, running, then
 * done or failed), under ids that say where they come from, and kept for the tabs that listen later (a designer
 * joining the session, a tab back after a while hidden). A result's images are put on the session's shelf for
 * their links only while someone listens: a result kept for later goes without them, so calls nobody watches
 * hold no image memory.
 */
function mcpCallEvents(events: SessionEvents, store: SessionStore): NonNullable<McpHttpOptions['onCall']> {
  return (session, { name, arguments: args }) => {
    const entry = store.get(session);
    if (!entry) return undefined;
    const at = startedNow();
    const id = `${MCP_CALL}${at.toString(36)}_${++mcpCalls}`;
    // Its start, for a tab that missed it and the chat turns around it to place it among them.
    events.tellCall(entry, { ...callEvent(id, name, args), at });
    return {
      progress: (p) => events.tellCall(entry, { type: 'progress', id, ...p }),
      finished: (result) => {
        // Gone meanwhile, or nobody to load them now: the result without its images.
        const live = events.listening(session) ? store.get(session) : undefined;
        const { images: _images, ...rest } = result as ToolResult & { images?: unknown };
        const event = live
          ? resultEvent(id, name, result, live)
          : { type: 'tool_result', id, name, ok: result.ok, result: rest };
        events.tellCall(entry, event);
      },
    };
  };
}

export async function startServer(
  options: Partial<ServerConfig> | ServerConfig = {},
): Promise<RunningServer> {
  const config = serverConfig(options);
  checkConfig(config);
  // A save killed mid-write leaves its temp file behind; none of this process's saves has started yet.
  const orphans = await new Workspace(path.resolve(config.workspace), { private: true })
    .removeOrphanTemps()
    .catch(() => []);
  if (orphans.length) {
    config.log(`atelier: removed ${orphans.length} temporary file(s) left by interrupted saves`);
  }
  const store = new SessionStore({
    root: path.resolve(config.workspace),
    idleTimeoutMs: config.idleTimeoutMs,
    maxSessions: config.maxSessions,
    memoryBudgetBytes: config.sessionMemoryBytes,
    memoryPoolBytes: config.memoryBytes,
    diskQuotaBytes: config.sessionDiskBytes,
    log: config.log,
  });
  const events = new SessionEvents(config.log);
  const mcp = new McpHttpEndpoint(store, {
    variant: config.mcpVariant,
    maxBodyBytes: config.bodyLimitBytes,
    log: config.log,
    // A studio tab open on a session an MCP client drives follows it as it follows another tab's calls.
    onCall: mcpCallEvents(events, store),
    onClosed: (id) => events.end(id),
  });
  const chat = new ChatRooms(config.model, (err) =>
    config.log(
      `atelier: chat: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    ),
  );
  const app = createApp({ config, store, mcp, chat, events });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: config.host }) as Server;
  // An idle kept-alive connection outlives the clients' and proxies' own (undici 4 s, nginx and load balancers
  // 60 s): with Node's 5 s, a client could send on a connection the server was closing that moment and get
  // ECONNRESET. The header timeout must exceed it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = requestDeadlineMs(config);
  // Client-side stream errors (aborted uploads, resets) must never reach the process. What Node refuses before
  // the app sees the request is answered with the status that names it, as a proxy or client expects.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable) socket.end(clientErrorAnswer(err.code));
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err) => {
    store.closeAll();
    throw err;
  });
  server.on('error', (err) => config.log(`atelier: server error: ${err.message}`));
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: urlOf(config.host, port),
    http: server,
    host: config.host,
    port,
    config,
    store,
    app,
    close() {
      closing ??= (async () => {
        store.closeAll();
        await mcp.closeAll();
        // The MCP calls told last are in their sessions' records before another server reads them.
        await events.flushed();
        // Journals closed and locks given up on the sessions' threads, so another process (or server) can take over.
        await store.settled();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
