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

const MISSING =
  '工作室尚未构建：请先运行 npm run build（生成 dist/web）。\n' +
  'The studio is not built: run npm run build (it writes dist/web).\n';

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
    if (!index) return c.text(MISSING, 503, { 'cache-control': 'no-store' });
    return send(c, index, 'no-cache', {
      'content-security-policy': PAGE_POLICY,
      'referrer-policy': 'no-referrer',
    });
  };

  app.on(['GET', 'HEAD'], '/assets/*', async (c) => {
    const file = await fileUnder(absRoot, new URL(c.req.url).pathname);
    if (!file) {
      const built = await fileUnder(absRoot, '/index.html');
      if (!built) return c.text(MISSING, 503, { 'cache-control': 'no-store' });
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
