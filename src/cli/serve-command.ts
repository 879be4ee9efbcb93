/** `atelier serve`: the studio, the HTTP API, chat with a configured model, and MCP over streamable HTTP. */

import { MODEL_OPTIONS, MODEL_USAGE } from '../agent/config.js';
import { ConfigError, configFrom, DEFAULTS } from '../server/config.js';
import { type Command, UsageError } from './usage.js';

/** A stop signal this soon after the first is the same stop, come twice (below). */
const REPEAT_MS = 1000;

/** Why the service cannot listen, by the error's code: each names the flag that changes it. */
const UNLISTENABLE: Readonly<Record<string, string>> = {
  EADDRINUSE: '端口已被占用：换一个端口（--port），或 --port 0 任选一个空闲端口',
  EACCES: '没有权限使用这个端口（1024 以下的端口需要管理员权限）：换一个端口（--port）',
  EADDRNOTAVAIL: '本机没有这个地址：换一个地址（--host），如 127.0.0.1',
  ENOTFOUND: '找不到这个主机名：换一个地址（--host），如 127.0.0.1',
};

export const serveCommand: Command = {
  name: 'serve',
  summary: 'start the studio at / and the HTTP service (tool calls, chat, uploads, renders, MCP at /mcp)',
  usage: [
    'Usage: atelier serve [--host 127.0.0.1] [--port 8080] [--workspace DIR] [options]',
    '',
    'Starts the studio (open the address it prints in a browser), the HTTP API: /v1/tools, /v1/labels,',
    '/v1/sessions (tool calls, chat, files, renders), and MCP over streamable HTTP at /mcp. Each session',
    'works in DIR/sessions/<id>/. Without a chat model the studio is a manual editor.',
    `  --host HOST          address to bind (default ${DEFAULTS.host}; anything but loopback needs ATELIER_TOKEN)`,
    `  --port PORT          port to listen on, 0 for any free port (default ${DEFAULTS.port})`,
    `  --workspace DIR      folder holding the sessions' workspaces (default ${DEFAULTS.workspace})`,
    '  --idle-timeout SEC   a session unused this long leaves memory; its next request recovers it whole from',
    `                       its journal (default ${DEFAULTS.idleTimeoutSeconds})`,
    `  --max-sessions N     open sessions at most (default ${DEFAULTS.maxSessions})`,
    `  --upload-limit MB    largest upload (default ${DEFAULTS.uploadLimitMb})`,
    `  --max-uploads N      uploads received at the same time (default ${DEFAULTS.maxConcurrentUploads}; more answer 503)`,
    `  --session-memory MB  pixel memory per session: layers, history, composites (default ${DEFAULTS.sessionMemoryMb})`,
    `  --memory MB          pixel memory all sessions together (default half the machine's: ${DEFAULTS.memoryMb})`,
    `  --session-disk MB    disk space one session may keep: its files and its journal (default ${DEFAULTS.sessionDiskMb})`,
    `  --body-limit MB      largest tool-call or MCP request body (default ${DEFAULTS.bodyLimitMb})`,
    `  --variant V          tools listed over MCP: reduced | full | extended (default ${DEFAULTS.mcpVariant})`,
    `  --max-calls N        tool calls one request may carry (default ${DEFAULTS.maxCallsPerRequest})`,
    '',
    ...MODEL_USAGE,
    '',
    'Environment: ATELIER_TOKEN (bearer token every request but /v1/health must carry), and ATELIER_HOST,',
    'ATELIER_PORT, ATELIER_WORKSPACE, ATELIER_IDLE_TIMEOUT, ATELIER_MAX_SESSIONS, ATELIER_UPLOAD_LIMIT_MB,',
    'ATELIER_BODY_LIMIT_MB, ATELIER_MCP_VARIANT, ATELIER_MAX_CALLS_PER_REQUEST, ATELIER_MAX_UPLOADS,',
    'ATELIER_SESSION_MEMORY_MB, ATELIER_MEMORY_MB, ATELIER_SESSION_DISK_MB (a flag wins over its variable),',
    'and ATELIER_SESSION_THREADS (worker threads sessions run on, default 32).',
  ].join('\n'),
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    workspace: { type: 'string' },
    'idle-timeout': { type: 'string' },
    'max-sessions': { type: 'string' },
    'upload-limit': { type: 'string' },
    'max-uploads': { type: 'string' },
    'session-memory': { type: 'string' },
    memory: { type: 'string' },
    'session-disk': { type: 'string' },
    'body-limit': { type: 'string' },
    variant: { type: 'string' },
    'max-calls': { type: 'string' },
    ...MODEL_OPTIONS,
  },
  async run(values) {
    const { startServer } = await import('../server/server.js');
    let server: Awaited<ReturnType<typeof startServer>>;
    let address = '';
    try {
      const config = configFrom(values);
      address = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
      server = await startServer(config);
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(err.message);
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === undefined ? undefined : UNLISTENABLE[code];
      if (why) {
        process.stderr.write(`atelier: 无法监听 ${address}：${why}（${code}）\n`);
        return 1;
      }
      throw err;
    }
    // Listening for a stop before saying where it listens: whoever waits for that line may stop it at once.
    const stopped = new Promise<void>((resolve) => {
      const signals = ['SIGINT', 'SIGTERM'] as const;
      const same = () => {};
      const stop = () => {
        process.stderr.write('atelier: shutting down\n');
        // The same stop passed on by `atelier`'s own parent process (few-arenas.ts) or sent to the whole process
        // group comes again at once; a second one later stops the process outright. Added before `stop` goes: a
        // signal with no listener at all is the process' end.
        for (const signal of signals) process.on(signal, same).off(signal, stop);
        setTimeout(() => {
          for (const signal of signals) process.off(signal, same);
        }, REPEAT_MS).unref();
        void server.close().then(resolve);
      };
      for (const signal of signals) process.on(signal, stop);
    });
    const model = server.config.model;
    process.stderr.write(
      `atelier: listening on ${server.url} (workspace ${server.config.workspace}${server.config.token ? ', token required' : ''})\n` +
        `atelier: studio at ${server.url}/${server.config.token ? '?token=<your token>' : ''} — ${
          model
            ? `chat with ${model.model}`
            : 'no chat model configured (manual editing; see README to connect one)'
        }\n`,
    );
    await stopped;
    return 0;
  },
};
