/**
 * Tool calls as an assistant message carries them: `{"tool_calls": [...]}` in, tool messages out. With
 * `?stream=1` the answer is an event stream (tool_call, progress, tool_result, done) so a surface can show
 * the stages of long calls as they happen.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { parseArguments, parseToolCall } from '../../calls/parse.js';
import type { ToolResult } from '../../calls/result.js';
import type { CallOptions } from '../../calls/session.js';
import { findTool } from '../../registry/index.js';
import type { SessionEntry } from '../../service/sessions.js';
import type { ImageOut } from '../../tools/types.js';
import { HttpError } from '../errors.js';
import { linkImages, withImageUrls } from '../images.js';
import type { AppParts } from '../parts.js';
import { booleanOf, inSession, jsonBody, noSession } from '../request.js';
import { requestTab } from '../session-events.js';
import { eventStream, type Send } from '../sse.js';

/** A gesture id a client names (`one_step` as a string). */
const GESTURE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The call's id as a tool message must carry it back, a string: a number (hand-written calls, a JSON-RPC habit)
 * is taken as its decimal text, as `atelier run` takes it, so the client can still match results to calls.
 */
function toolCallIdOf(call: unknown): string | null {
  const id = typeof call === 'object' && call !== null ? (call as { id?: unknown }).id : undefined;
  if (typeof id === 'string') return id;
  return typeof id === 'number' && Number.isFinite(id) ? String(id) : null;
}

/** Whether a call that succeeded changed the session: a document, a file, or what later calls work on. */
function changes(call: unknown): boolean {
  const tool = findTool(parseToolCall(call)?.name ?? '');
  return tool === undefined || tool.effect !== 'read' || tool.changesContext === true;
}

/** A call as an event announces it: with the registry's Chinese label, for a card that shows it running. */
export function callEvent(id: string, name: string, args: unknown) {
  return { type: 'tool_call', id, name, label: findTool(name)?.label ?? name, arguments: args };
}

/** A result as an event carries it: images as links beside it, not inside. */
export function resultEvent(id: string, name: string, result: ToolResult, entry: SessionEntry) {
  if (!result.ok || !result.images?.length) return { type: 'tool_result', id, name, ok: result.ok, result };
  const { images, ...rest } = result;
  return {
    type: 'tool_result',
    id,
    name,
    ok: true,
    result: rest,
    images: linkImages(images as readonly ImageOut[], entry),
  };
}

async function streamCalls(
  calls: readonly unknown[],
  entry: SessionEntry,
  send: Send,
  gesture: CallOptions,
): Promise<void> {
  const shown = calls.map((call, i) => {
    const parsed = parseToolCall(call);
    return {
      id: toolCallIdOf(call) ?? `call_${i + 1}`,
      name: parsed?.name ?? '',
      arguments: parsed?.arguments,
    };
  });
  // Queued at once, as the calls of a request that is not streamed: no later request's call (another tab, the
  // chat) runs between two of them. A call's stages are sent after the events of the calls before it: one that
  // reports before the previous result is sent waits here.
  let current = 0;
  const waiting = calls.map(() => [] as Parameters<Send>[0][]);
  const results = calls.map((call, i) =>
    entry.session.call(call, {
      ...gesture,
      onProgress: (p) => {
        const event = { type: 'progress', id: shown[i]!.id, ...p };
        if (i === current) send(event);
        else waiting[i]!.push(event);
      },
    }),
  );
  for (const [i, { id, name, arguments: raw }] of shown.entries()) {
    current = i;
    const args = parseArguments(raw);
    send(callEvent(id, name, args.ok ? args.value : raw));
    for (const event of waiting[i]!) send(event);
    send(resultEvent(id, name, await results[i]!, entry));
  }
  send({ type: 'done', steps: 0, calls: calls.length });
}

export function toolCallRoutes({ config, store, events }: AppParts): Hono {
  const app = new Hono();

  app.post('/v1/sessions/:id/tool-calls', async (c) => {
    const stream = booleanOf('stream', c.req.query('stream'));
    const read = async () => {
      const body = await jsonBody(c, config.bodyLimitBytes, '工具调用');
      const calls = (body as { tool_calls?: unknown } | null)?.tool_calls;
      if (typeof body !== 'object' || body === null || !Array.isArray(calls)) {
        throw new HttpError(
          400,
          'bad_request',
          '请求体须是 {"tool_calls": [...]}：工具调用照模型的 assistant 消息原样给出',
        );
      }
      if (calls.length > config.maxCallsPerRequest) {
        throw new HttpError(
          400,
          'bad_request',
          `一个请求最多 ${config.maxCallsPerRequest} 个工具调用，这个有 ${calls.length} 个：请分几个请求发送`,
          { limit: config.maxCallsPerRequest },
        );
      }
      const oneStep = (body as { one_step?: unknown }).one_step;
      if (
        oneStep !== undefined &&
        typeof oneStep !== 'boolean' &&
        !(typeof oneStep === 'string' && GESTURE_ID.test(oneStep))
      ) {
        throw new HttpError(
          400,
          'bad_request',
          '"one_step" 须是 true、false，或几个请求共用的手势标识（1 到 64 个字母、数字、- 或 _）',
        );
      }
      // One gesture: each document the calls change gets one history step, as Photoshop records a property set
      // on several selected layers. A string names a gesture that several requests share, sent one after the
      // other (a call that needs the one before's result: the type tool's text made, then aligned); kept apart
      // from the server's own ids.
      const gesture: CallOptions =
        typeof oneStep === 'string'
          ? { gesture: `client:${oneStep}` }
          : oneStep
            ? { gesture: randomUUID() }
            : {};
      return { calls: calls as unknown[], gesture };
    };
    if (stream) {
      const id = c.req.param('id');
      const held = store.hold(id);
      if (!held) throw noSession(id);
      let calls: unknown[];
      let gesture: CallOptions;
      try {
        ({ calls, gesture } = await read());
      } catch (err) {
        held.release();
        throw err;
      }
      const tab = requestTab(c);
      // The session's other tabs follow the run as this one does.
      const run = (send: Send) =>
        streamCalls(
          calls,
          held.entry,
          (event) => {
            send(event);
            events.publish(held.entry.id, event, tab);
          },
          gesture,
        );
      return eventStream(c, run, {
        release: held.release,
        log: config.log,
      });
    }
    return inSession(store, c, async (entry) => {
      const { calls, gesture } = await read();
      // Queued in listed order at once: they run one after another, before any later request's calls.
      const results = await Promise.all(calls.map((call) => entry.session.call(call, gesture)));
      // The other tabs reload their panes only when something changed: a failed call changed nothing, and a query
      // that keeps nothing of itself neither.
      if (results.some((result, i) => result.ok && changes(calls[i]))) {
        events.publish(entry.id, { type: 'changed' }, requestTab(c));
      }
      const origin = new URL(c.req.url).origin;
      const messages = results.map((result, i) => ({
        role: 'tool' as const,
        tool_call_id: toolCallIdOf(calls[i]),
        content: JSON.stringify(withImageUrls(result, entry, origin)),
      }));
      return c.json({ messages });
    });
  });

  return app;
}
