/** Opening, reading and closing sessions, and the snapshot the studio draws its panes from. */
import { Hono } from 'hono';
import { EditorError } from '../../engine/errors.js';
import { type SessionEntry, TooManySessions } from '../../service/sessions.js';
import { HttpError } from '../errors.js';
import type { AppParts } from '../parts.js';
import { inSession, sessionOr404 } from '../request.js';

export function sessionRoutes({ config, store }: AppParts): Hono {
  const app = new Hono();

  app.post('/v1/sessions', (c) => {
    let entry: SessionEntry;
    try {
      entry = store.create('http');
    } catch (err) {
      if (err instanceof TooManySessions) throw new HttpError(429, 'too_many_sessions', err.message);
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

  app.delete('/v1/sessions/:id', (c) => {
    const entry = sessionOr404(store, c);
    store.delete(entry.id);
    return c.body(null, 204);
  });

  return app;
}
