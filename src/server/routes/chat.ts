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
import { inSession, jsonBody, sessionOr404 } from '../request.js';
import { eventStream } from '../sse.js';

export function chatRoutes({ config, store, chat: rooms }: AppParts): Hono {
  const app = new Hono();

  app.get('/v1/model', (c) =>
    c.json(rooms.model ? { configured: true, model: describeModel(rooms.model) } : { configured: false }),
  );

  app.post('/v1/sessions/:id/chat', async (c) => {
    const id = c.req.param('id');
    const held = store.hold(id);
    if (!held)
      throw new HttpError(404, 'not_found', `no session "${id}" (it may have timed out or been deleted)`);
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
      const body = await jsonBody(c, config.bodyLimitBytes, 'the message');
      const raw = (body as { message?: unknown } | null)?.message;
      if (typeof raw !== 'string' || raw.trim() === '') {
        throw new HttpError(400, 'bad_request', 'the body must be {"message": "…"} with a non-empty message');
      }
      if (raw.length > MAX_MESSAGE_CHARS) {
        throw new HttpError(
          400,
          'bad_request',
          `the message is longer than ${MAX_MESSAGE_CHARS} characters`,
          {
            limit: MAX_MESSAGE_CHARS,
          },
        );
      }
      // Taken here, synchronously, so that of two requests at once the second is refused with 409.
      if (!rooms.claim(held.entry)) {
        throw new HttpError(
          409,
          'busy',
          'a reply is still running in this session: wait for it or cancel it',
        );
      }
      message = raw;
    } catch (err) {
      held.release();
      throw err;
    }
    const entry = held.entry;
    return eventStream(c, (send) => rooms.turn(entry, message, send), {
      // A client that goes away cancels its turn: the call running finishes or rolls back, nothing half-done.
      onAbort: () => rooms.cancel(entry),
      release: () => {
        rooms.release(entry);
        held.release();
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
        throw new HttpError(
          409,
          'busy',
          'a reply is still running in this session: wait for it or cancel it, then clear the conversation',
        );
      }
      return c.json({
        removed_files: cleared.removedFiles,
        freed_bytes: cleared.freedBytes,
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
