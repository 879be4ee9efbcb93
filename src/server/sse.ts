/**
 * Server-sent events: one JSON object per `data:` line, each with a `type` (the chat events of
 * `src/agent/events.ts`). The stream keeps the session busy until it ends, so it cannot time out mid-answer.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

export type Send = (event: { readonly type: string } & Record<string, unknown>) => void;

/**
 * Answers with an event stream fed by `run`; `onAbort` runs when the client goes away first. Events sent after
 * the client left are dropped. `release` runs once the stream is over, however it ends.
 */
export function eventStream(
  c: Context,
  run: (send: Send) => Promise<void>,
  opts: { onAbort?: () => void; release?: () => void } = {},
): Response {
  c.header('cache-control', 'no-store');
  c.header('x-accel-buffering', 'no');
  return streamSSE(
    c,
    async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
        opts.onAbort?.();
      });
      // Writes are queued in order; a slow client does not reorder or lose events.
      let writing: Promise<unknown> = Promise.resolve();
      const send: Send = (event) => {
        if (!open) return;
        let data: string;
        try {
          data = JSON.stringify(event);
        } catch (err) {
          // An event that cannot be encoded is reported in its place; the stream goes on to its end.
          data = JSON.stringify({
            type: 'error',
            code: 'internal',
            message: `内部错误：事件“${event.type}”无法编码（${err instanceof Error ? err.message : String(err)}）`,
          });
        }
        writing = writing
          .then(() => stream.writeSSE({ data }))
          .catch(() => {
            open = false;
          });
      };
      try {
        await run(send);
      } finally {
        await writing;
        opts.release?.();
      }
    },
    async (err, stream) => {
      opts.release?.();
      await stream.writeSSE({
        data: JSON.stringify({ type: 'error', code: 'internal', message: `内部错误：${err.message}` }),
      });
    },
  );
}
