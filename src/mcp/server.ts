/**
 * Atelier as an MCP server: `tools/list` publishes the registry's `mcp` format verbatim (the low-level `Server`,
 * so no schema library rewrites the JSON schemas), and `tools/call` runs through `Session.call`. A failed call
 * is a result with `isError: true` carrying the error JSON; images become MCP image content beside the rest of
 * the result as JSON text.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ProgressToken,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { notOfferedResult, withOfferedAdvice } from '../calls/offered-tools.js';
import type { ToolResult } from '../calls/result.js';
import type { CallOptions, Progress } from '../calls/session.js';
import { toMcp } from '../registry/formats/mcp.js';
import { findTool, toolsOf, type Variant } from '../registry/index.js';
import { VERSION } from '../service/version.js';
import type { ImageOut } from '../tools/types.js';

/** Runs one tool call (`{name, arguments}`) in the connection's session. */
export type RunCall = (
  call: { name: string; arguments: Record<string, unknown> },
  opts: CallOptions,
) => Promise<ToolResult>;

export interface McpServerOptions {
  /** The tools `tools/list` publishes (default `extended`: a model driving the editor alone needs them). */
  readonly variant?: Variant;
}

const INSTRUCTIONS = [
  'Atelier edits layered raster images (PSD/PNG/JPEG) through tools.',
  'Start with create_document or open_document; file paths are relative to the session workspace.',
  'Every result is JSON: {"ok":true,…} or {"ok":false,"error":{code,message,hint}}; the hint names the tool to call next.',
  'get_canvas_image returns the canvas as an image so you can look at your work.',
].join(' ');

/** A tool result as MCP content: the JSON (without image data) as text, then each image. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (!result.ok) {
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(result) }] };
  }
  const images = (result.images ?? []) as readonly ImageOut[];
  if (images.length === 0) return { content: [{ type: 'text', text: JSON.stringify(result) }] };
  const described = {
    ...result,
    images: images.map((img) => ({ mime: img.mime, ...(img.caption ? { caption: img.caption } : {}) })),
  };
  return {
    content: [
      { type: 'text', text: JSON.stringify(described) },
      ...images.map((img) => ({ type: 'image' as const, data: img.base64, mimeType: img.mime })),
    ],
  };
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

/** One MCP server for one connection; every call goes to `run` (the connection's own session). */
export function createMcpServer(run: RunCall, opts: McpServerOptions = {}): Server {
  const listed = toolsOf(opts.variant ?? 'extended');
  const tools = toMcp(listed) as unknown as Tool[];
  // A smaller variant's client is pointed only at the tools it was listed: an unknown name is answered here with
  // listed tools as suggestions (the session would suggest any), and hints name listed tools only. A registry
  // tool the variant does not list still runs when called by name (a client's own harness may open documents).
  const offered = new Set(listed.map((t) => t.name));
  const server = new Server(
    { name: 'atelier', title: 'Atelier', version: VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta } = request.params;
    const token = _meta?.progressToken;
    const opts = token === undefined ? {} : { onProgress: progressNotifier(token, extra.sendNotification) };
    if (!findTool(name)) return toCallToolResult(notOfferedResult(name, offered) as ToolResult);
    return toCallToolResult(withOfferedAdvice(await run({ name, arguments: args ?? {} }, opts), offered));
  });
  return server;
}
