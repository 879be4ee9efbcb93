/**
 * Server-sent events: one JSON object per `data:` line, each with a `type` (the chat events of
 * `src/agent/events.ts`). The stream keeps the session busy until it ends, so it cannot time out mid-answer.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

export type Send = (event: { readonly type: string } & Record<string, unknown>) => void;

/** What a client is told when `run` fails: what happened, never the failure's own text (it may name server files). */
export const STREAM_FAILED_MESSAGE =
  '内部错误：服务端出了问题，这次请求没有完成。请重试；问题持续时请查看服务日志。';

/**
 * How often a stream with nothing to say sends a comment line. A model thinking, or one call blurring a large
 * document, can leave a stream silent for minutes; a proxy in front (nginx drops a response silent for 60 s by
 * default) would cut it, and a chat turn whose client went away is cancelled.
 */
export const KEEP_ALIVE_MS = 15_000;

/**
 * Answers with an event stream fed by `run`; `onAbort` runs when the client goes away first. Events sent after
 * the client left are dropped. `release` runs once the stream is over, however it ends. A failure of `run` or of
 * an event's encoding goes to `log` in full (the server's log), and to the client as a plain `internal` error.
 * A comment line goes out every `keepAliveMs` (clients skip it).
 */
export function eventStream(
  c: Context,
  run: (send: Send) => Promise<void>,
  opts: {
    onAbort?: () => void;
    release?: () => void;
    log?: (line: string) => void;
    keepAliveMs?: number;
  } = {},
): Response {
  const log = (err: unknown) =>
    (opts.log ?? console.error)(
      `atelier: ${c.req.method} ${c.req.path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
  c.header('cache-control', 'no-store');
  c.header('x-accel-buffering', 'no');
  return streamSSE(c, async (stream) => {
    let open = true;
    stream.onAbort(() => {
      open = false;
      opts.onAbort?.();
    });
    // Writes are queued in order; a slow client does not reorder or lose events.
    let writing: Promise<unknown> = Promise.resolve();
    const write = (next: () => Promise<unknown>) => {
      writing = writing.then(next).catch(() => {
        open = false;
      });
    };
    const keepAlive = setInterval(() => {
      if (open) write(() => stream.write(': keep-alive\n\n'));
    }, opts.keepAliveMs ?? KEEP_ALIVE_MS);
    keepAlive.unref();
    const send: Send = (event) => {
      if (!open) return;
      let data: string;
      try {
        data = JSON.stringify(event);
      } catch (err) {
        // An event that cannot be encoded is reported in its place; the stream goes on to its end.
        log(err);
        data = JSON.stringify({
          type: 'error',
          code: 'internal',
          message: `内部错误：事件“${String(event.type)}”无法编码，已略过。`,
        });
      }
      write(() => stream.writeSSE({ data }));
    };
    try {
      await run(send);
    } catch (err) {
      // Caught here rather than by streamSSE's error handler: after that handler, Hono writes the error's own
      // message to the client as an `error` event.
      log(err);
      send({ type: 'error', code: 'internal', message: STREAM_FAILED_MESSAGE });
    } finally {
      clearInterval(keepAlive);
      await writing;
      opts.release?.();
    }
  });
}
