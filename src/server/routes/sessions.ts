/**
 * Opening, reading and closing sessions, the snapshot the studio draws its panes from, and the stream that tells
 * a tab what the session's other clients did (session-events.ts).
 */
import { Hono } from 'hono';
import { EditorError } from '../../engine/errors.js';
import { type SessionEntry, TooManySessions } from '../../service/sessions.js';
import { HttpError } from '../errors.js';
import type { AppParts } from '../parts.js';
import { booleanOf, inSession, sessionOr404, tooManySessions } from '../request.js';
import { MAX_LISTENERS_PER_SESSION, tabOf } from '../session-events.js';
import { eventStream } from '../sse.js';

export function sessionRoutes({ config, store, events, chat: rooms }: AppParts): Hono {
  const app = new Hono();

  app.post('/v1/sessions', (c) => {
    let entry: SessionEntry;
    try {
      entry = store.create('http');
    } catch (err) {
      if (err instanceof TooManySessions) throw tooManySessions(err);
      if (err instanceof EditorError) throw new Error(err.message);
      throw err;
    }
    return c.json({ id: entry.id, idle_timeout_seconds: config.idleTimeoutMs / 1000 }, 201);
  });

  app.get('/v1/sessions/:id', (c) =>
    inSession(store, c, async (entry) => {
      const documents = await entry.session.documents();
      return c.json({
        id: entry.id,
        kind: entry.kind,
        documents,
        garment_photo: entry.session.garmentPhoto,
        idle_timeout_seconds: config.idleTimeoutMs / 1000,
      });
    }),
  );

  app.get('/v1/sessions/:id/state', (c) =>
    inSession(store, c, async (entry) => c.json(await entry.session.snapshot())),
  );

  // What a colour field's swatch shows for press inks: the document's soft proof, which only the server can make.
  app.get('/v1/sessions/:id/ink', (c) =>
    inSession(store, c, async (entry) => {
      const asked = c.req.query('color') ?? '';
      const hex = await entry.session.inkPreview(asked);
      if (hex === undefined) {
        throw new HttpError(400, 'bad_request', 'color 应为油墨百分比 cmyk(C,M,Y,K)，每项 0–100', {
          parameter: 'color',
        });
      }
      return c.json({ color: asked, hex });
    }),
  );

  // Open as long as the tab is: it does not hold the session, which may idle out of memory and come back
  // meanwhile (what a tab missed while away, it reads with the snapshot when it listens again, and with
  // `?conversation=1` the conversation as its first event, then the MCP client's calls).
  /** The conversation so far as `GET …/chat` gives it; null when it cannot be read now (the tab keeps its own). */
  const conversationOf = (entry: SessionEntry) =>
    rooms.events(entry).catch((err: unknown) => {
      config.log(`atelier: the conversation of session ${entry.id} could not be read: ${String(err)}`);
      return null;
    });

  app.get('/v1/sessions/:id/events', (c) => {
    const entry = sessionOr404(store, c);
    const withConversation = booleanOf('conversation', c.req.query('conversation'));
    if (events.full(entry.id)) {
      throw new HttpError(
        429,
        'busy',
        `已有 ${MAX_LISTENERS_PER_SESSION} 个标签页在接收这个会话的变化，达到上限：请关闭其中一些再打开`,
        { limit: MAX_LISTENERS_PER_SESSION },
      );
    }
    let stop: (() => void) | null = null;
    let ended = () => {};
    const over = new Promise<void>((resolve) => {
      ended = resolve;
    });
    return eventStream(
      c,
      async (send) => {
        // The MCP client's calls kept on disk are read with the conversation; both are then told and listened
        // to in one step, nothing published between: every event after them comes on the stream, none twice.
        const [conversation] = withConversation
          ? await Promise.all([conversationOf(entry), events.callsRead(entry)])
          : [null];
        // Running as the listening tab shows it: another tab's turn (its own it follows on its own request).
        const tab = tabOf(c.req.query('tab'));
        if (conversation)
          send({ type: 'conversation', running: rooms.runningFor(entry, tab), events: conversation });
        // The MCP client's calls, which the conversation does not hold (sent also when it could not be read).
        const calls = withConversation ? events.keptCalls(entry) : null;
        if (calls) send({ type: 'mcp_calls', events: calls });
        stop = events.listen(entry.id, tab, send, ended);
        if (stop) await over;
      },
      { onAbort: ended, release: () => stop?.(), log: config.log },
    );
  });

  app.delete('/v1/sessions/:id', (c) => {
    const entry = sessionOr404(store, c);
    store.delete(entry.id);
    events.end(entry.id);
    return c.body(null, 204);
  });

  return app;
}
