/**
 * Atelier as an MCP server: `tools/list` publishes the registry's `mcp` format verbatim (the low-level `Server`,
 * so no schema library rewrites the JSON schemas), and `tools/call` runs through `Session.call`. A failed call
 * is a result with `isError: true` carrying the error JSON; images become MCP image content beside the rest of
 * the result as JSON text.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ProgressToken,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { notOfferedResult, withOfferedAdvice } from '../calls/offered-tools.js';
import { failure, type ToolResult } from '../calls/result.js';
import type { CallOptions, Progress } from '../calls/session.js';
import { toMcp } from '../registry/formats/mcp.js';
import { findTool, type Toolset, type Variant } from '../registry/index.js';
import { ALWAYS_LISTED, TOOLSET_KEYS, toolsInToolsets } from '../registry/toolsets.js';
import { VERSION } from '../service/version.js';
import type { ImageOut } from '../tools/types.js';

/** Runs one tool call (`{name, arguments}`) in the connection's session. */
export type RunCall = (
  call: { name: string; arguments: Record<string, unknown> },
  opts: CallOptions,
) => Promise<ToolResult>;

/** One `tools/call` followed by someone else than its client (a studio tab on the session): its stages, its end. */
export interface CallWatch {
  progress(progress: Progress): void;
  /** The result the client is answered, a refusal (unknown tool, wrong arguments) or a failure included. */
  finished(result: ToolResult): void;
}

export interface McpServerOptions {
  /** The tools `tools/list` publishes (default `extended`: a model driving the editor alone needs them). */
  readonly variant?: Variant;
  /**
   * Only these toolsets' tools (and `core`'s) are listed, and a call to any other is refused: for a client that
   * cannot take every tool. Undefined lists the whole variant.
   */
  readonly toolsets?: readonly Toolset[];
  /**
   * Told of each `tools/call` as it comes (the name and arguments as the client sent them); what it returns is
   * told the call's stages and result. Undefined when nobody follows this one.
   */
  readonly onCall?: (call: { name: string; arguments: Record<string, unknown> }) => CallWatch | undefined;
}

/** The server's instructions, naming only tools this connection lists (a smaller variant or toolsets lack some). */
function instructionsFor(offered: ReadonlySet<string>): string {
  const starts = ['create_document', 'open_document'].filter((n) => offered.has(n));
  return [
    'Atelier edits layered raster images (PSD/PNG/JPEG) through tools.',
    starts.length
      ? `Start with ${starts.join(' or ')}; file paths are relative to the session workspace.`
      : 'File paths are relative to the session workspace.',
    'Every result is JSON: {"ok":true,…} or {"ok":false,"error":{code,message,hint}}; the hint names the tool to call next.',
    ...(offered.has('get_canvas_image')
      ? ['get_canvas_image returns the canvas as an image so you can look at your work.']
      : []),
  ].join(' ');
}

/**
 * The most bytes one `tools/call` answer may take. The SDK's stdio client (the one most desktop clients and agent
 * SDKs run) closes the connection on a line beyond `STDIO_DEFAULT_MAX_BUFFER_SIZE`, which ends the server process
 * and every unsaved document with it; the margin leaves room for the JSON-RPC envelope around the result.
 */
export const MAX_RESULT_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE - 64 * 1024;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * A tool result as MCP content: the JSON (without image data) as text, then each image. Images that would take
 * the answer beyond `maxBytes` are left out, largest first, each with a warning in the JSON saying how to see it.
 */
export function toCallToolResult(result: ToolResult, maxBytes = MAX_RESULT_BYTES): CallToolResult {
  if (!result.ok) {
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(result) }] };
  }
  const images = (result.images ?? []) as readonly ImageOut[];
  if (images.length === 0)
    return capped({ content: [{ type: 'text', text: JSON.stringify(result) }] }, maxBytes);
  // An image block costs its base64 and a few dozen bytes of keys; the text costs its escaped JSON.
  const cost = (img: ImageOut) => img.base64.length + img.mime.length + 64;
  const textOf = (omitted: ReadonlySet<ImageOut>) => {
    const warnings = [
      ...((result.warnings as unknown[] | undefined) ?? []),
      ...images
        .filter((img) => omitted.has(img))
        .map(
          (img) =>
            `图片${img.caption ? `（${img.caption}）` : ''}约 ${mb(img.base64.length)}，超过 MCP 一条消息 ${mb(STDIO_DEFAULT_MAX_BUFFER_SIZE)} 的上限，没有随结果返回：请用较小的 max_size（如 1024）调用 get_canvas_image 查看`,
        ),
    ];
    const described = {
      ...result,
      images: images.map((img) => ({
        mime: img.mime,
        ...(img.caption ? { caption: img.caption } : {}),
        ...(omitted.has(img) ? { omitted: true } : {}),
      })),
      ...(warnings.length ? { warnings } : {}),
    };
    return JSON.stringify(described);
  };
  const omitted = new Set<ImageOut>();
  const total = () =>
    Buffer.byteLength(JSON.stringify(textOf(omitted))) +
    images.reduce((sum, img) => sum + (omitted.has(img) ? 0 : cost(img)), 0);
  for (const img of [...images].sort((a, b) => cost(b) - cost(a))) {
    if (total() <= maxBytes) break;
    omitted.add(img);
  }
  return capped(
    {
      content: [
        { type: 'text', text: textOf(omitted) },
        ...images
          .filter((img) => !omitted.has(img))
          .map((img) => ({ type: 'image' as const, data: img.base64, mimeType: img.mime })),
      ],
    },
    maxBytes,
  );
}

/** A result whose text alone is beyond `maxBytes` becomes an error saying so (the call itself has run). */
function capped(answer: CallToolResult, maxBytes: number): CallToolResult {
  const bytes = Buffer.byteLength(JSON.stringify(answer));
  if (bytes <= maxBytes) return answer;
  const error = failure(
    'out_of_bounds',
    `调用已执行，但结果约 ${mb(bytes)}，超过 MCP 一条消息 ${mb(STDIO_DEFAULT_MAX_BUFFER_SIZE)} 的上限，无法返回`,
    { hint: '请用查询工具分别查看需要的部分' },
  );
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }] };
}

/**
 * A call's stages as MCP progress notifications, for a client that sent a progress token: the SDK client resets
 * its request timeout on each (`resetTimeoutOnProgress`), so a long save or garment call is not given up on.
 * `progress` must rise with every notification, so it counts the stages; the stage and how far along it is
 * are in `message`.
 */
function progressNotifier(
  token: ProgressToken,
  send: (notification: ServerNotification) => Promise<void>,
): (progress: Progress) => void {
  let stages = 0;
  return ({ stage, fraction }) => {
    stages++;
    const message = fraction === undefined ? stage : `${stage} (${Math.round(fraction * 100)}%)`;
    send({
      method: 'notifications/progress',
      params: { progressToken: token, progress: stages, message },
    }).catch(() => undefined);
  };
}

/**
 * The answer to a call this connection does not run: a name the registry lacks, or (the client having chosen
 * toolsets) a tool outside them, named with its toolset so the integrator sees what to add.
 */
function notInToolsets(
  name: string,
  offered: ReadonlySet<string>,
  toolsets: readonly Toolset[] | undefined,
): ToolResult | undefined {
  const tool = findTool(name);
  if (tool && (!toolsets || offered.has(name))) return undefined;
  const result = notOfferedResult(name, offered);
  if (!tool) return result as ToolResult;
  const chosen = TOOLSET_KEYS.filter((key) => key === ALWAYS_LISTED || toolsets?.includes(key));
  return {
    ...result,
    error: {
      ...result.error,
      message: `工具“${name}”属于工具组 ${tool.toolset}，本连接只提供工具组 ${chosen.join('、')}，没有执行。`,
      details: { ...result.error.details, toolset: tool.toolset, toolsets: chosen },
    },
  } as ToolResult;
}

/** One MCP server for one connection; every call goes to `run` (the connection's own session). */
export function createMcpServer(run: RunCall, opts: McpServerOptions = {}): Server {
  const listed = toolsInToolsets(opts.variant ?? 'extended', opts.toolsets);
  const { onCall, toolsets } = opts;
  const tools = toMcp(listed) as unknown as Tool[];
  // A smaller variant's client is pointed only at the tools it was listed: an unknown name is answered here with
  // listed tools as suggestions (the session would suggest any), and hints name listed tools only. A registry
  // tool the variant does not list still runs when called by name (a client's own harness may open documents);
  // one outside the toolsets a client chose does not: the integrator chose them to keep the model within them.
  const offered = new Set(listed.map((t) => t.name));
  const server = new Server(
    { name: 'atelier', title: 'Atelier', version: VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: instructionsFor(offered) },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    // One page, no `nextCursor`: a cursor is one this server never issued, which the spec answers with Invalid
    // params rather than the list again (a client paging through would take it as more tools).
    const cursor = request.params?.cursor;
    if (cursor !== undefined) {
      const shown =
        cursor.length > 40
          ? `${JSON.stringify(cursor.slice(0, 40)).slice(0, -1)}…" (${cursor.length} characters)`
          : JSON.stringify(cursor);
      // Not an McpError: its message starts "MCP error -32602: ", which the SDK sends as it is and its client
      // then prefixes again. The SDK answers any thrown error with its `code` and `message`.
      throw Object.assign(
        new Error(
          `unknown cursor ${shown}: this server lists every tool in one page and issues no cursor; call tools/list without a cursor`,
        ),
        { code: ErrorCode.InvalidParams },
      );
    }
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta } = request.params;
    const token = _meta?.progressToken;
    const watch = onCall?.({ name, arguments: args ?? {} });
    const notify = token === undefined ? undefined : progressNotifier(token, extra.sendNotification);
    const onProgress =
      watch || notify
        ? (p: Progress) => {
            notify?.(p);
            watch?.progress(p);
          }
        : undefined;
    // A client that cancels (`notifications/cancelled`) gets no answer (the SDK sends none): the call must then
    // change nothing, or the client's model would go on from a document it was never told about.
    const opts: CallOptions = { signal: extra.signal, ...(onProgress ? { onProgress } : {}) };
    const answer = (result: ToolResult) => {
      watch?.finished(result);
      return toCallToolResult(result);
    };
    const refused = notInToolsets(name, offered, toolsets);
    if (refused) return answer(refused);
    let result: ToolResult;
    try {
      result = await run({ name, arguments: args ?? {} }, opts);
    } catch (err) {
      // The session went away under the call: its watcher is not left with a call that never ends.
      watch?.finished(
        failure('internal', `调用没有完成：${err instanceof Error ? err.message : String(err)}`),
      );
      throw err;
    }
    return answer(withOfferedAdvice(result, offered));
  });
  return server;
}
