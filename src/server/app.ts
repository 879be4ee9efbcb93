/**
 * The HTTP API (hono): the registry, sessions, tool calls (OpenAI-shaped in, tool messages out), uploads,
 * renders, and MCP at `/mcp`. Errors are JSON with a matching status; nothing a client sends can crash it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ToolResult } from '../calls/result.js';
import { EditorError } from '../engine/errors.js';
import type { McpHttpEndpoint } from '../mcp/http.js';
import { exportTools, type Format, formats, strictFormats } from '../registry/formats/index.js';
import { labelsOf, toolsOf, type Variant, variants } from '../registry/index.js';
import type { ImageOut } from '../tools/types.js';
import { header, readBody } from './body.js';
import { isLoopback, type ServerConfig } from './config.js';
import { errorResponse, HttpError } from './errors.js';
import { renderDocument } from './render.js';
import { isSessionId, type SessionEntry, type SessionStore, TooManySessions } from './sessions.js';
import { requireImageType, roleOf, uploadPath } from './uploads.js';
import { VERSION } from './version.js';

export interface AppParts {
  readonly config: ServerConfig;
  readonly store: SessionStore;
  readonly mcp: McpHttpEndpoint;
}

function oneOf<T extends string>(
  what: string,
  raw: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (raw === undefined || raw === '') return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new HttpError(400, 'bad_request', `unknown ${what} "${raw}"; allowed: ${allowed.join(', ')}`, {
    allowed,
  });
}

function booleanOf(what: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === '' || raw === 'true' || raw === '1') return true;
  throw new HttpError(400, 'bad_request', `${what} must be true or false, not "${raw}"`, {
    allowed: ['true', 'false'],
  });
}

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

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function toolCallIdOf(call: unknown): string | null {
  return typeof call === 'object' && call !== null && typeof (call as { id?: unknown }).id === 'string'
    ? (call as { id: string }).id
    : null;
}

/** Puts the session's URLs for a result's images in place of their base64 data. */
function withImageUrls(result: ToolResult, entry: SessionEntry, c: Context): ToolResult {
  if (!result.ok || !result.images?.length) return result;
  const base = new URL(c.req.url).origin;
  const images = (result.images as readonly ImageOut[]).map((img) => ({
    url: `${base}/v1/sessions/${entry.id}/images/${entry.images.add(img)}`,
    mime: img.mime,
    ...(img.caption ? { caption: img.caption } : {}),
  }));
  return { ...result, images } as unknown as ToolResult;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.psd': 'image/vnd.adobe.photoshop',
  '.psb': 'image/vnd.adobe.photoshop',
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
};

async function listFiles(dir: string): Promise<{ path: string; bytes: number }[]> {
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch {
    return [];
  }
  const files: { path: string; bytes: number }[] = [];
  for (const name of names.sort()) {
    // Temp files of atomic writes in progress.
    if (/(^|[/\\])\.[^/\\]*\.tmp$/.test(name)) continue;
    try {
      const s = await lstat(path.join(dir, name));
      if (s.isFile()) files.push({ path: name.split(path.sep).join('/'), bytes: s.size });
    } catch {
      // Removed meanwhile.
    }
  }
  return files;
}

export function createApp({ config, store, mcp }: AppParts): Hono {
  const app = new Hono();
  const checkToken = config.token ? bearerCheck(config.token) : null;

  const sessionOr404 = (c: Context): SessionEntry => {
    const id = c.req.param('id') ?? '';
    const entry = isSessionId(id) ? store.get(id) : undefined;
    if (!entry) {
      throw new HttpError(404, 'not_found', `no session "${id}" (it may have timed out or been deleted)`);
    }
    return entry;
  };

  /** Marks the session busy while `fn` runs, so it cannot time out under a running request. */
  const inSession = async <T>(c: Context, fn: (entry: SessionEntry) => Promise<T>): Promise<T> => {
    const id = c.req.param('id') ?? '';
    const out = isSessionId(id) ? await store.use(id, fn) : undefined;
    if (out === undefined) {
      throw new HttpError(404, 'not_found', `no session "${id}" (it may have timed out or been deleted)`);
    }
    return out;
  };

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

  // Without a token the server is loopback-only: refuse other Host names and foreign Origins (DNS rebinding,
  // cross-site requests from a browser on the same machine).
  if (!checkToken) {
    app.use('*', async (c, next) => {
      if (!isLoopbackHost(header(c, 'host') ?? '')) {
        throw new HttpError(
          403,
          'forbidden',
          'this server accepts only loopback host names (set ATELIER_TOKEN to serve others)',
        );
      }
      const origin = header(c, 'origin');
      if (origin !== undefined && origin !== 'null' && !isLoopbackOrigin(origin)) {
        throw new HttpError(403, 'forbidden', `requests from origin ${origin} are not allowed`);
      }
      await next();
    });
  }

  if (checkToken) {
    app.use('*', async (c, next) => {
      if (c.req.path === '/v1/health') return next();
      if (!checkToken(header(c, 'authorization'))) {
        c.header('WWW-Authenticate', 'Bearer realm="atelier"');
        throw new HttpError(
          401,
          'unauthorized',
          'a valid "Authorization: Bearer <token>" header is required',
        );
      }
      await next();
    });
  }

  app.get('/v1/health', (c) => c.json({ status: 'ok', version: VERSION }));

  app.get('/v1/tools', (c) => {
    const variant: Variant = oneOf('variant', c.req.query('variant'), variants, 'full');
    const format: Format = oneOf('format', c.req.query('format'), formats, 'openai');
    const strict = booleanOf('strict', c.req.query('strict'));
    if (strict && !strictFormats.includes(format)) {
      throw new HttpError(400, 'bad_request', `strict applies only to format ${strictFormats.join(' or ')}`, {
        allowed: strictFormats,
      });
    }
    return c.json(exportTools(toolsOf(variant), format, { strict }) as object);
  });

  app.get('/v1/labels', (c) => c.json(labelsOf(oneOf('variant', c.req.query('variant'), variants, 'full'))));

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
    inSession(c, async (entry) => {
      const documents = await entry.session.inspect((tx) =>
        tx.documents().map((d) => ({
          name: d.name,
          width: d.state.width,
          height: d.state.height,
          path: d.path,
          unsaved_changes: d.dirty,
        })),
      );
      return c.json({
        id: entry.id,
        kind: entry.kind,
        documents,
        garment_photo: entry.session.garmentPhoto,
        idle_timeout_seconds: config.idleTimeoutMs / 1000,
      });
    }),
  );

  app.delete('/v1/sessions/:id', (c) => {
    const entry = sessionOr404(c);
    store.delete(entry.id);
    return c.body(null, 204);
  });

  app.post('/v1/sessions/:id/tool-calls', (c) =>
    inSession(c, async (entry) => {
      if (!isJson(header(c, 'content-type'))) {
        throw new HttpError(
          415,
          'unsupported_media_type',
          'send the tool calls as JSON (Content-Type: application/json)',
        );
      }
      const raw = await readBody(c, config.bodyLimitBytes);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        throw new HttpError(400, 'bad_request', `the body is not valid JSON: ${(err as Error).message}`);
      }
      const calls = (body as { tool_calls?: unknown } | null)?.tool_calls;
      if (typeof body !== 'object' || body === null || !Array.isArray(calls)) {
        throw new HttpError(
          400,
          'bad_request',
          'the body must be {"tool_calls": [...]}, the tool calls exactly as an assistant message carries them',
        );
      }
      // Queued in listed order at once: they run one after another, before any later request's calls.
      const results = await Promise.all(calls.map((call) => entry.session.call(call)));
      const messages = results.map((result, i) => ({
        role: 'tool' as const,
        tool_call_id: toolCallIdOf(calls[i]),
        content: JSON.stringify(withImageUrls(result, entry, c)),
      }));
      return c.json({ messages });
    }),
  );

  app.get('/v1/sessions/:id/images/:file', (c) => {
    const entry = sessionOr404(c);
    const file = c.req.param('file');
    const image = /^\d+\.(png|jpg)$/.test(file) ? entry.images.get(file) : undefined;
    if (!image)
      throw new HttpError(
        404,
        'not_found',
        `no image "${file}" in this session (only recent images are kept)`,
      );
    return c.body(new Uint8Array(image.data), 200, {
      'content-type': image.mime,
      'cache-control': 'private, max-age=3600',
    });
  });

  app.post('/v1/sessions/:id/files', (c) =>
    inSession(c, async (entry) => {
      const contentType = (header(c, 'content-type') ?? '').toLowerCase();
      const raw = await readBody(c, config.uploadLimitBytes);
      let data: Uint8Array;
      let name = c.req.query('name');
      let role = roleOf(c.req.query('role'));
      if (contentType.startsWith('multipart/form-data')) {
        let form: FormData;
        try {
          form = await new Request('http://localhost/', {
            method: 'POST',
            headers: { 'content-type': contentType },
            body: raw,
          }).formData();
        } catch (err) {
          throw new HttpError(400, 'bad_request', `malformed multipart body: ${(err as Error).message}`);
        }
        const file = form.get('file');
        if (!(file instanceof Blob)) {
          throw new HttpError(400, 'bad_request', 'the multipart form needs a "file" field holding the file');
        }
        data = new Uint8Array(await file.arrayBuffer());
        const formName = form.get('name');
        if (typeof formName === 'string' && formName !== '') name = formName;
        else if (name === undefined && file instanceof File && file.name)
          name = path.posix.basename(file.name);
        const formRole = form.get('role');
        if (typeof formRole === 'string' && formRole !== '') role = roleOf(formRole);
      } else {
        data = raw;
      }
      const type = requireImageType(data);
      if (role === 'garment' && type === 'psd') {
        throw new HttpError(415, 'unsupported_media_type', 'the garment photo must be a PNG or JPEG image', {
          accepted: ['image/png', 'image/jpeg'],
        });
      }
      const workspace = entry.session.workspace;
      const target = await uploadPath(workspace, name, type);
      try {
        await workspace.writeAtomic(target, data);
      } catch (err) {
        if (err instanceof EditorError && err.code === 'invalid_arguments') {
          throw new HttpError(400, 'bad_request', `cannot write "${target}": ${err.message}`);
        }
        throw err;
      }
      if (role === 'garment') entry.session.garmentPhoto = target;
      return c.json({ path: target, type, bytes: data.byteLength, role }, 201);
    }),
  );

  app.get('/v1/sessions/:id/files', (c) =>
    inSession(c, async (entry) => c.json({ files: await listFiles(entry.dir) })),
  );

  app.get('/v1/sessions/:id/files/*', (c) =>
    inSession(c, async (entry) => {
      const prefix = `/v1/sessions/${entry.id}/files/`;
      const rawPath = new URL(c.req.url).pathname;
      if (!rawPath.startsWith(prefix)) throw new HttpError(404, 'not_found', 'no such file');
      let rel: string;
      try {
        rel = rawPath.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
      } catch {
        throw new HttpError(400, 'bad_request', 'the file path is not valid percent-encoding');
      }
      let abs: string;
      try {
        abs = entry.session.workspace.resolve(rel);
      } catch {
        throw new HttpError(404, 'not_found', `no file "${rel}" in this session`);
      }
      const info = await stat(abs).catch(() => null);
      if (!info?.isFile()) throw new HttpError(404, 'not_found', `no file "${rel}" in this session`);
      const stream = Readable.toWeb(createReadStream(abs)) as ReadableStream<Uint8Array>;
      return c.body(stream, 200, {
        'content-type': CONTENT_TYPES[path.extname(abs).toLowerCase()] ?? 'application/octet-stream',
        'content-length': String(info.size),
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(path.basename(abs))}`,
      });
    }),
  );

  app.get('/v1/sessions/:id/documents/:name/render.png', (c) =>
    inSession(c, async (entry) => {
      const rawMax = c.req.query('max');
      const max = rawMax === undefined ? 1024 : Number(rawMax);
      if (!Number.isInteger(max) || max < 1 || max > 30000) {
        throw new HttpError(400, 'bad_request', `max must be an integer from 1 to 30000, not "${rawMax}"`);
      }
      const name = c.req.param('name');
      let rendered: Awaited<ReturnType<typeof renderDocument>>;
      try {
        rendered = await renderDocument(entry.session, name, max);
      } catch (err) {
        if (err instanceof EditorError && err.code === 'not_found') {
          throw new HttpError(404, 'not_found', `no open document "${name}" in this session`, {
            open_documents: (err.details as { open?: unknown } | undefined)?.open ?? [],
          });
        }
        throw err;
      }
      return c.body(new Uint8Array(rendered.png), 200, {
        'content-type': 'image/png',
        'cache-control': 'no-store',
        'x-document-size': `${rendered.documentWidth}x${rendered.documentHeight}`,
      });
    }),
  );

  app.all('/mcp', (c) => mcp.handle(c.req.raw));

  return app;
}
