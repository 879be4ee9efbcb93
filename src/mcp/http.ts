/**
 * MCP over streamable HTTP at `/mcp`: one transport, one MCP server and one Session per MCP session id. The id
 * is a server session id (the same store as `/v1/sessions`), so it times out like any session, and its
 * documents can be rendered through the HTTP API with the same id.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Toolset, Variant } from '../registry/index.js';
import { parseToolsets, TOOLSET_KEYS, UnknownToolset } from '../registry/toolsets.js';
import { newSessionId, type SessionStore, TooManySessions } from '../service/sessions.js';
import { malformedRequest } from './malformed.js';
import { type CallWatch, createMcpServer } from './server.js';

/** The body as text, failing beyond `max` bytes however it is sent (declared length or chunked). */
async function readLimited(req: Request, max: number): Promise<string> {
  if (!req.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) throw new Error('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Response {
  const error = data ? { code, message, data } : { code, message };
  return new Response(JSON.stringify({ jsonrpc: '2.0', error, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * 429 for one session more than the store holds: the limit and when to retry (data and `Retry-After`), as
 * `POST /v1/sessions` answers it. In English, as every JSON-RPC error of this endpoint: the SDK's transport
 * answers most of them itself, in English.
 */
function tooManySessions(err: TooManySessions): Response {
  return jsonRpcError(
    429,
    -32000,
    `Too many open sessions: at most ${err.limit} (HTTP and MCP together); retry in ${err.retryAfterSeconds} s, or close a session no longer used`,
    { limit: err.limit, retry_after_seconds: err.retryAfterSeconds },
    { 'retry-after': String(err.retryAfterSeconds) },
  );
}

/**
 * The toolsets an `initialize` request chose: `?toolsets=garment,text` on the URL or an `X-MCP-Toolsets` header (as
 * GitHub's MCP server takes them), for clients that can set only one of the two. Undefined: every tool. A
 * refusal in Chinese naming the valid toolsets, the one error of this endpoint a person configuring a client
 * has to read (the SDK's own are English).
 */
function chosenToolsets(req: Request): readonly Toolset[] | undefined | Response {
  const query = new URL(req.url).searchParams.get('toolsets');
  const header = req.headers.get('x-mcp-toolsets');
  if (query === null && header === null) return undefined;
  try {
    const fromQuery = query === null ? undefined : parseToolsets(query);
    const fromHeader = header === null ? undefined : parseToolsets(header);
    if (fromQuery && fromHeader && fromQuery.join() !== fromHeader.join()) {
      return jsonRpcError(
        400,
        -32602,
        `URL 参数 toolsets（${fromQuery.join(',')}）与请求头 X-MCP-Toolsets（${fromHeader.join(',')}）不一致：只用其中一个`,
      );
    }
    return fromQuery ?? fromHeader;
  } catch (err) {
    if (!(err instanceof UnknownToolset)) throw err;
    return jsonRpcError(400, -32602, err.message, { unknown: err.names, valid: TOOLSET_KEYS });
  }
}

export interface McpHttpOptions {
  readonly variant: Variant;
  /** Largest POST body in bytes. */
  readonly maxBodyBytes: number;
  readonly log: (line: string) => void;
  /**
   * A call comes on session `id` (see `McpServerOptions.onCall`): its other clients, a studio tab, can be told it
   * and its result as they are told another client's.
   */
  readonly onCall?: (
    id: string,
    call: { name: string; arguments: Record<string, unknown> },
  ) => CallWatch | undefined;
  /** The client ended session `id`, which is deleted: whoever listens to it is told it is gone. */
  readonly onClosed?: (id: string) => void;
}

export class McpHttpEndpoint {
  private readonly transports = new Map<string, WebStandardStreamableHTTPServerTransport>();

  constructor(
    private readonly store: SessionStore,
    private readonly opts: McpHttpOptions,
  ) {}

  get openTransports(): number {
    return this.transports.size;
  }

  async handle(incoming: Request): Promise<Response> {
    const req = incoming.method === 'POST' ? await this.checked(incoming) : incoming;
    if (req instanceof Response) return req;
    const sessionId = req.headers.get('mcp-session-id');
    if (sessionId) {
      const transport = this.transports.get(sessionId);
      if (!transport) return jsonRpcError(404, -32001, 'Session not found');
      const response = await this.store.use(sessionId, () => transport.handleRequest(req));
      return response ?? jsonRpcError(404, -32001, 'Session not found');
    }
    if (req.method !== 'POST') {
      return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    if (this.store.full) return tooManySessions(this.store.tooMany());
    return this.initialize(req);
  }

  /**
   * Answers a malformed request that has an id (malformed.ts) itself; otherwise gives the transport the same
   * request with its body read (within the size limit).
   */
  private async checked(req: Request): Promise<Request | Response> {
    const declared = Number(req.headers.get('content-length') ?? Number.NaN);
    // The limit is named, as the tool-calls route names it: the client cannot guess the server's setting.
    const tooLarge = () =>
      jsonRpcError(
        413,
        -32600,
        `Request body too large: at most ${this.opts.maxBodyBytes} bytes per request`,
      );
    if (declared > this.opts.maxBodyBytes) return tooLarge();
    let body: string;
    try {
      body = await readLimited(req, this.opts.maxBodyBytes);
    } catch {
      return tooLarge();
    }
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      message = undefined;
    }
    const error = message === undefined ? null : malformedRequest(message);
    if (error) {
      return new Response(JSON.stringify(error), {
        status: 400,
        headers: { 'content-type': 'application/json' },
      });
    }
    return new Request(req.url, { method: 'POST', headers: req.headers, body });
  }

  /** A request without a session id: only an `initialize` opens a session (the transport checks that). */
  private async initialize(req: Request): Promise<Response> {
    const toolsets = chosenToolsets(req);
    if (toolsets instanceof Response) return toolsets;
    const id = newSessionId();
    // The transport answers whatever its callback throws as a parse error: a refusal is kept and answered here.
    let refused: TooManySessions | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      maxRequestBodySize: this.opts.maxBodyBytes,
      onsessioninitialized: () => {
        let entry: ReturnType<SessionStore['create']>;
        try {
          entry = this.store.create('mcp', id);
        } catch (err) {
          if (err instanceof TooManySessions) refused = err;
          throw err;
        }
        server.onerror = (err) => this.opts.log(`atelier: mcp session ${id.slice(0, 8)}…: ${err.message}`);
        this.transports.set(id, transport);
        entry.closers.push(() => {
          this.transports.delete(id);
          void server.close().catch(() => undefined);
        });
      },
      // The client ended the session (HTTP DELETE; the Python SDK's client sends it whenever it exits): its
      // protocol session ends, its work does not — what it saved stays downloadable under /v1/sessions/<id>/
      // until the retention, as a session left idle (DELETE /v1/sessions/<id> removes it).
      onsessionclosed: () => {
        this.store.leave(id, 'closed by its MCP client');
        this.opts.onClosed?.(id);
      },
    });
    const server = createMcpServer(
      async (call, opts) => {
        const result = await this.store.use(id, (entry) => entry.session.call(call, opts));
        if (!result) throw new Error('the session has been closed');
        return result;
      },
      {
        variant: this.opts.variant,
        ...(toolsets ? { toolsets } : {}),
        onCall: (call) => this.opts.onCall?.(id, call),
      },
    );
    // Until the session opens, errors are the client's and are answered, not logged.
    server.onerror = () => undefined;
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(req);
      if (!this.transports.has(id)) await server.close();
      // Another request filled the store between the check in `handle` and this one's session.
      return refused ? tooManySessions(refused) : response;
    } catch (err) {
      this.store.delete(id);
      await server.close().catch(() => undefined);
      throw err;
    }
  }

  /** Closes every MCP transport (their sessions are closed by the store). */
  async closeAll(): Promise<void> {
    const open = [...this.transports.values()];
    this.transports.clear();
    await Promise.all(open.map((t) => t.close().catch(() => undefined)));
  }
}
