/**
 * The HTTP API (hono), composed from route modules: the registry, sessions, tool calls, files and renders, chat,
 * MCP at `/mcp`, and the studio at `/`. Errors are JSON with a matching status; nothing a client sends can
 * crash it.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { errorResponse, HttpError } from './errors.js';
import type { AppParts } from './parts.js';
import { recoverSession, sessionIdInPath } from './request.js';
import { chatRoutes } from './routes/chat.js';
import { fileRoutes } from './routes/files.js';
import { registryRoutes } from './routes/registry.js';
import { sessionRoutes } from './routes/sessions.js';
import { DEFAULT_STUDIO_ROOT, studioRoutes } from './routes/studio.js';
import { toolCallRoutes } from './routes/tool-calls.js';
import { guardAccess } from './security.js';

export type { AppParts } from './parts.js';

export function createApp(parts: AppParts): Hono {
  const { config, mcp } = parts;
  const app = new Hono();

  app.onError((err, c) => {
    if (err instanceof HttpError) return errorResponse(c, err);
    if (err instanceof HTTPException) {
      const status = err.status;
      return errorResponse(
        c,
        new HttpError(
          status,
          status === 413 ? 'payload_too_large' : 'bad_request',
          err.message || 'bad request',
        ),
      );
    }
    config.log(
      `atelier: ${c.req.method} ${c.req.path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return errorResponse(c, new HttpError(500, 'internal', 'internal server error'));
  });

  app.notFound((c) =>
    errorResponse(c, new HttpError(404, 'not_found', `no route ${c.req.method} ${c.req.path}`)),
  );

  guardAccess(app, config);
  // After the access rules: a session that is on disk but not in memory (a restart, or a move from a process
  // that died) is recovered before any route looks for it; see src/service/sessions.ts.
  app.use('*', async (c, next) => {
    const id = sessionIdInPath(c.req.path);
    if (id && !parts.store.get(id)) await recoverSession(parts.store, id);
    await next();
  });

  app.route('/', registryRoutes());
  app.route('/', sessionRoutes(parts));
  app.route('/', toolCallRoutes(parts));
  app.route('/', fileRoutes(parts));
  app.route('/', chatRoutes(parts));
  app.all('/mcp', (c) => mcp.handle(c.req.raw));
  app.route('/', studioRoutes({ root: DEFAULT_STUDIO_ROOT }));

  return app;
}
