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
import { fontRoutes } from './routes/fonts.js';
import { registryRoutes } from './routes/registry.js';
import { sessionRoutes } from './routes/sessions.js';
import { DEFAULT_STUDIO_ROOT, studioRoutes } from './routes/studio.js';
import { toolCallRoutes } from './routes/tool-calls.js';
import { guardAccess } from './security.js';

export type { AppParts } from './parts.js';

/**
 * The methods the API's routes take at `pathname` (none outside `/v1/`): a known path asked with another method
 * is answered 405 with them, not 404, so the client learns the path is right.
 */
function methodsOf(app: Hono, pathname: string): string[] {
  if (!pathname.startsWith('/v1/')) return [];
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL' || !route.path.startsWith('/v1/')) continue;
    const pattern = route.path
      .split('/')
      .map((part) =>
        part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    if (new RegExp(`^${pattern}$`).test(pathname)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

export function createApp(parts: AppParts): Hono {
  const { config, mcp } = parts;
  const app = new Hono();

  app.onError((err, c) => {
    if (err instanceof HttpError) return errorResponse(c, err);
    if (err instanceof HTTPException) {
      const status = err.status;
      return errorResponse(
        c,
        status === 413
          ? new HttpError(413, 'payload_too_large', '请求体超过上限')
          : new HttpError(status, 'bad_request', '请求无效', err.message ? { reason: err.message } : {}),
      );
    }
    config.log(
      `atelier: ${c.req.method} ${c.req.path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return errorResponse(c, new HttpError(500, 'internal', '服务内部错误（详情记在服务日志里）'));
  });

  app.notFound((c) => {
    const allowed = methodsOf(app, c.req.path);
    if (allowed.length > 0) {
      return errorResponse(
        c,
        new HttpError(
          405,
          'method_not_allowed',
          `${c.req.path} 不接受 ${c.req.method} 请求，可用：${allowed.join('、')}`,
          { allowed },
          { allow: allowed.join(', ') },
        ),
      );
    }
    return errorResponse(c, new HttpError(404, 'not_found', `没有这个接口：${c.req.method} ${c.req.path}`));
  });

  guardAccess(app, config);
  // After the access rules: a session that is on disk but not in memory (a restart, or a move from a process
  // that died) is recovered before any route looks for it; see src/service/sessions.ts.
  app.use('*', async (c, next) => {
    const id = sessionIdInPath(c.req.path);
    if (id && !parts.store.get(id)) await recoverSession(parts.store, id);
    await next();
  });

  app.route('/', registryRoutes());
  app.route('/', fontRoutes());
  app.route('/', sessionRoutes(parts));
  app.route('/', toolCallRoutes(parts));
  app.route('/', fileRoutes(parts));
  app.route('/', chatRoutes(parts));
  app.all('/mcp', (c) => mcp.handle(c.req.raw));
  app.route('/', studioRoutes({ root: DEFAULT_STUDIO_ROOT }));

  return app;
}
