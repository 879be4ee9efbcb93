/**
 * The web studio's static files (built by `npm run build` into dist/web): `index.html` at `/` and for any other
 * page path (the studio is one page), hashed `/assets/*` cached for a year. They hold no data, so they need no
 * token; the page sends the token with every API request it makes.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type Context, Hono } from 'hono';

export interface StudioOptions {
  /** The built studio, normally dist/web. */
  readonly root: string;
}

/** dist/web beside this module's package, from src/server/routes (tests) as from dist/server/routes. */
export const DEFAULT_STUDIO_ROOT = fileURLToPath(new URL('../../../dist/web', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.otf': 'font/otf',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// The page loads only its own scripts, styles and fonts, and talks only to this server.
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page served while dist/web is missing (a clone not yet built). The service itself works, so it says only
 * what to run; each request looks for the studio again, so a build then a reload is enough.
 */
const MISSING = `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Atelier 工作室尚未构建</title>
<style>
body { margin: 0; font: 16px/1.7 system-ui, "PingFang SC", "Microsoft YaHei", "Noto Sans SC", sans-serif; color: #1f2328; background: #f6f7f9; }
main { max-width: 36rem; margin: 12vh auto; padding: 2rem 2.25rem; background: #fff; border: 1px solid #d8dde3; border-radius: 10px; }
h1 { margin: 0 0 1rem; font-size: 1.4rem; }
p { margin: 0.75rem 0; }
pre { margin: 0.75rem 0; padding: 0.75rem 1rem; background: #1f2328; color: #f6f7f9; border-radius: 6px; font-size: 0.95rem; }
small { color: #59636e; }
</style>
</head>
<body>
<main>
<h1>工作室尚未构建</h1>
<p>Atelier 服务已在运行，HTTP 接口和 MCP 都能使用，但网页工作室的文件（dist/web）还没有生成。</p>
<p>请在 Atelier 的目录中运行：</p>
<pre><code>npm run build</code></pre>
<p>完成后刷新本页即可，无需重启服务。</p>
<p><small>只需构建网页部分时，也可以运行 <code>npm run build:web</code>。</small></p>
</main>
</body>
</html>
`;

function notBuilt(c: Context) {
  return c.body(MISSING, 503, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': PAGE_POLICY,
    'x-content-type-options': 'nosniff',
  });
}

function isApiPath(p: string): boolean {
  return p === '/v1' || p.startsWith('/v1/') || p === '/mcp' || p.startsWith('/mcp/');
}

/** The file under `root` a URL path names, or null when it is not a plain file inside it. */
async function fileUnder(root: string, urlPath: string): Promise<{ abs: string; size: number } | null> {
  let segments: string[];
  try {
    segments = urlPath.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
  if (segments.some((s) => s === '..' || s === '.' || /[/\\\0]/.test(s))) return null;
  const abs = path.resolve(root, ...segments);
  try {
    // Symbolic links included: the real file must still be inside the real root.
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(abs)]);
    if (!realFile.startsWith(realRoot + path.sep)) return null;
    const info = await stat(realFile);
    return info.isFile() ? { abs: realFile, size: info.size } : null;
  } catch {
    return null;
  }
}

function send(
  c: Context,
  file: { abs: string; size: number },
  cache: string,
  extra: Record<string, string> = {},
) {
  const type = CONTENT_TYPES[path.extname(file.abs).toLowerCase()] ?? 'application/octet-stream';
  const headers = {
    'content-type': type,
    'content-length': String(file.size),
    'cache-control': cache,
    'x-content-type-options': 'nosniff',
    ...extra,
  };
  if (c.req.method === 'HEAD') return c.body(null, 200, headers);
  return c.body(Readable.toWeb(createReadStream(file.abs)) as ReadableStream<Uint8Array>, 200, headers);
}

export function studioRoutes({ root }: StudioOptions): Hono {
  const app = new Hono();
  const absRoot = path.resolve(root);

  const page = async (c: Context) => {
    const index = await fileUnder(absRoot, '/index.html');
    if (!index) return notBuilt(c);
    return send(c, index, 'no-cache', {
      'content-security-policy': PAGE_POLICY,
      'referrer-policy': 'no-referrer',
    });
  };

  app.on(['GET', 'HEAD'], '/assets/*', async (c) => {
    const file = await fileUnder(absRoot, new URL(c.req.url).pathname);
    if (!file) {
      const built = await fileUnder(absRoot, '/index.html');
      if (!built) return notBuilt(c);
      return c.json({ error: { code: 'not_found', message: `工作室没有这个资源文件：${c.req.path}` } }, 404);
    }
    // Asset names carry their content hash: a changed file is a new name.
    return send(c, file, 'public, max-age=31536000, immutable');
  });

  app.on(['GET', 'HEAD'], '/', page);
  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    const p = c.req.path;
    // API paths keep their own 404s; a path that names a file (has an extension) is not a page.
    if (isApiPath(p) || /\.[a-z0-9]+$/i.test(p)) return next();
    return page(c);
  });

  return app;
}
