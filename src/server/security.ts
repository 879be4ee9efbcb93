/**
 * Who may talk to the server. Without a token it is loopback-only: other Host names and foreign Origins are
 * refused (DNS rebinding, cross-site requests from a browser on the same machine). With a token every API
 * request but the health check carries `Authorization: Bearer <token>`; the studio's static files hold no data
 * and are served to anyone who passes the host rules, so a browser can load the page that then sends the token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { header } from './body.js';
import { isLoopback, type ServerConfig } from './config.js';
import { HttpError } from './errors.js';

/** Bearer-token check in constant time (both sides hashed to the same length first). */
function bearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (header) => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    return timingSafeEqual(expected, given) && match !== null;
  };
}

/** Whether a Host (or Origin host) header names a loopback address; cached, as clients repeat the same few. */
const loopbackHosts = new Map<string, boolean>();

function isLoopbackHost(hostHeader: string): boolean {
  let known = loopbackHosts.get(hostHeader);
  if (known === undefined) {
    let hostname: string | null;
    try {
      hostname = new URL(`http://${hostHeader}`).hostname;
    } catch {
      hostname = null;
    }
    known = hostname !== null && isLoopback(hostname);
    if (loopbackHosts.size > 256) loopbackHosts.clear();
    loopbackHosts.set(hostHeader, known);
  }
  return known;
}

function isLoopbackOrigin(origin: string): boolean {
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  return isLoopbackHost(host);
}

/** Methods that change nothing on this server. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** API paths need the token; the health check and the studio's static files do not. */
function needsToken(path: string): boolean {
  return (path.startsWith('/v1/') && path !== '/v1/health') || path === '/mcp' || path.startsWith('/mcp/');
}

export function guardAccess(app: Hono, config: ServerConfig): void {
  if (!config.token) {
    app.use('*', async (c, next) => {
      if (!isLoopbackHost(header(c, 'host') ?? '')) {
        throw new HttpError(
          403,
          'forbidden',
          '本服务只接受本机（回环）主机名的请求；要对其他地址提供服务，请设置 ATELIER_TOKEN',
        );
      }
      const origin = header(c, 'origin');
      if (origin === 'null') {
        // An opaque origin: a sandboxed frame, a `file://` page, a redirect across sites. Any page can be one, so
        // it may not change anything; reading stays allowed (no CORS header lets such a page see the answer).
        // The Fetch standard also sends `null` for a page's own POSTs under `Referrer-Policy: no-referrer`, which
        // the studio's page has: the browser's `Sec-Fetch-Site` (no page can set it) tells those apart.
        if (!SAFE_METHODS.has(c.req.method) && header(c, 'sec-fetch-site') !== 'same-origin') {
          throw new HttpError(
            403,
            'forbidden',
            '来自不透明来源（Origin: null，如沙箱框架或 file:// 页面）的请求只能读取，不能修改任何内容',
          );
        }
      } else if (origin !== undefined && !isLoopbackOrigin(origin)) {
        throw new HttpError(403, 'forbidden', `不接受来自 ${origin} 的请求`);
      }
      await next();
    });
    return;
  }
  const checkToken = bearerCheck(config.token);
  app.use('*', async (c, next) => {
    if (!needsToken(c.req.path)) return next();
    if (!checkToken(header(c, 'authorization'))) {
      c.header('WWW-Authenticate', 'Bearer realm="atelier"');
      throw new HttpError(
        401,
        'unauthorized',
        '需要有效的访问令牌：请求须带 “Authorization: Bearer <令牌>” 头',
      );
    }
    await next();
  });
}
