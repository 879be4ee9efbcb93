/**
 * Chat with the configured model: `POST /chat` answers with the turn's events as a stream, `/chat/cancel`
 * stops it, `GET /chat` is the conversation so far (after a restart, rebuilt from the session's transcript),
 * `DELETE /chat` empties it. Without a model, chat answers 409 saying how to configure one (the studio's
 * palette keeps working). `GET /v1/model` tells a client whether chat is available — never the key.
 */
import { Hono } from 'hono';
import { describeModel, HOW_TO_CONFIGURE } from '../../agent/config.js';
import { MAX_MESSAGE_CHARS } from '../../agent/conversation.js';
import { HttpError } from '../errors.js';
import type { AppParts } from '../parts.js';
import { inSession, jsonBody, noSession, sessionOr404 } from '../request.js';
import { requestTab } from '../session-events.js';
import { eventStream, type Send } from '../sse.js';

export function chatRoutes({ config, store, chat: rooms, events }: AppParts): Hono {
  const app = new Hono();

  app.get('/v1/model', (c) =>
    c.json(rooms.model ? { configured: true, model: describeModel(rooms.model) } : { configured: false }),
  );

  app.post('/v1/sessions/:id/chat', async (c) => {
    const id = c.req.param('id');
    const held = store.hold(id);
    if (!held) throw noSession(id);
    let message: string;
    try {
      if (!rooms.model) {
        throw new HttpError(409, 'no_model', HOW_TO_CONFIGURE, {
          variables: [
            'ATELIER_MODEL_BASE_URL',
            'ATELIER_MODEL',
            'ATELIER_MODEL_API_KEY',
            'ATELIER_MODEL_VISION',
          ],
        });
      }
      const body = await jsonBody(c, config.bodyLimitBytes, '消息');
      const raw = (body as { message?: unknown } | null)?.message;
      if (typeof raw !== 'string' || raw.trim() === '') {
        throw new HttpError(400, 'bad_request', '请求体须是 {"message": "…"}，消息不能为空');
      }
      if (raw.length > MAX_MESSAGE_CHARS) {
        throw new HttpError(400, 'bad_request', `消息超过 ${MAX_MESSAGE_CHARS} 个字符的上限`, {
          limit: MAX_MESSAGE_CHARS,
        });
      }
      // Taken here, synchronously, so that of two requests at once the second is refused with 409.
      if (!rooms.claim(held.entry, requestTab(c))) {
        throw new HttpError(409, 'busy', '本会话还有一轮回复在进行：请等它结束或先取消它');
      }
      message = raw;
    } catch (err) {
      held.release();
      throw err;
    }
    const entry = held.entry;
    const tab = requestTab(c);
    // The other tabs show the turn as running (it can be stopped there too) until it ends.
    events.publish(entry.id, { type: 'chat_running', running: true }, tab);
    // The session's other tabs follow the turn as this one does.
    const turn = (send: Send) =>
      rooms.turn(entry, message, (event) => {
        send(event);
        events.publish(entry.id, event, tab);
      });
    return eventStream(c, turn, {
      // A client that goes away cancels its turn: the call running finishes or rolls back, nothing half-done.
      onAbort: () => rooms.cancel(entry),
      release: () => {
        rooms.release(entry);
        held.release();
        events.publish(entry.id, { type: 'chat_running', running: false }, tab);
      },
      log: config.log,
    });
  });

  app.post('/v1/sessions/:id/chat/cancel', (c) => {
    const entry = sessionOr404(store, c);
    return c.json({ cancelled: rooms.cancel(entry) });
  });

  // Empties the conversation (its transcript and kept images), to make room under the disk quota; the documents
  // and files stay.
  app.delete('/v1/sessions/:id/chat', (c) =>
    inSession(store, c, async (entry) => {
      const cleared = await rooms.clear(entry);
      if (!cleared) {
        throw new HttpError(409, 'busy', '本会话还有一轮回复在进行：请等它结束或先取消它，再清空对话记录');
      }
      // The tabs empty their feeds, the MCP client's cards with the rest (their record too): a tab that listens
      // later gets none back.
      const calls = await events.forgetCalls(entry);
      events.publish(entry.id, { type: 'chat_cleared' }, requestTab(c));
      return c.json({
        removed_files: cleared.removedFiles + (calls ? 1 : 0),
        freed_bytes: cleared.freedBytes + (calls?.bytes ?? 0),
        kept: cleared.kept,
      });
    }),
  );

  app.get('/v1/sessions/:id/chat', (c) =>
    inSession(store, c, async (entry) => {
      const events = await rooms.events(entry);
      return c.json({ running: rooms.running(entry), events });
    }),
  );

  return app;
}
