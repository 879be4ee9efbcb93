/** A session's files: uploads in, saved files and result images out, and renders of its open documents. */
import { createReadStream } from 'node:fs';
import { lstat, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type Context, Hono } from 'hono';
import sharp from 'sharp';
import { TRANSCRIPT_FILE } from '../../agent/transcript.js';
import { fitWithin, type Rendered } from '../../calls/render.js';
import { THUMBNAIL_MAX } from '../../calls/thumbnail.js';
import { EditorError } from '../../engine/errors.js';
import { isAtomicTemp } from '../../engine/workspace.js';
import { photoTooSmall } from '../../garment/photo-size.js';
import { formatNames, IMAGE_FORMATS, KNOWN_FORMATS } from '../../registry/file-formats.js';
import { HttpError } from '../errors.js';
import type { AppParts } from '../parts.js';
import { inSession, sessionOr404 } from '../request.js';
import { MCP_CALLS_FILE, requestTab } from '../session-events.js';
import { type ReceivedUpload, receiveUpload } from '../upload-receiver.js';
import { placeUpload, quotaFull, roleOf, uploadPath } from '../uploads.js';

/** What a garment photo may be: any image uploads take (not a PSD). */
const GARMENT_TYPES = IMAGE_FORMATS.map((f) => f.mime);
const GARMENT_NAMES = formatNames(IMAGE_FORMATS);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(KNOWN_FORMATS.flatMap((f) => f.extensions.map((ext) => [ext, f.mime]))),
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
};

/**
 * Bytes a render of a `width` × `height` document within `max` holds beyond the session's own pixels, at most:
 * its encoded image, as large as its raw pixels when they hardly compress, and the copy made of it to hand it
 * from the session's thread to this one.
 */
export function renderBytes(width: number, height: number, max: number): number {
  const { w, h } = fitWithin(width, height, max);
  return 2 * w * h * 4;
}

/**
 * The 404 for an editor's `not_found` (or a thumbnail's `unsupported`): about the document `name` itself when
 * its details list the open documents (then named), else about something in it (a layer, its mask).
 */
function notFound(name: string, err: EditorError): HttpError {
  const open = (err.details as { open?: unknown } | undefined)?.open;
  return open === undefined
    ? new HttpError(404, 'not_found', err.message, err.details as Record<string, unknown> | undefined)
    : new HttpError(404, 'not_found', `会话里没有打开的文档“${name}”`, { open_documents: open });
}

/** The bytes as a stream of slices, calling `done` once it has all been read or the client went away. */
function streamed(bytes: Uint8Array<ArrayBuffer>, done: () => void): ReadableStream<Uint8Array<ArrayBuffer>> {
  const SLICE = 1024 * 1024;
  let at = 0;
  return new ReadableStream(
    {
      pull(controller) {
        if (at >= bytes.byteLength) {
          controller.close();
          done();
          return;
        }
        controller.enqueue(bytes.subarray(at, at + SLICE));
        at += SLICE;
      },
      cancel: done,
    },
    { highWaterMark: 0 },
  );
}

async function listFiles(dir: string): Promise<{ path: string; bytes: number }[]> {
  const files: { path: string; bytes: number }[] = [];
  // Walked by hand: `readdir(…, { recursive: true })` follows a symlinked folder, and would list (names and
  // sizes of) files outside the workspace. Symlinks are neither listed nor entered.
  const walk = async (rel: string): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return; // removed meanwhile, or the workspace does not exist yet
    }
    for (const e of entries) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(name);
      // Temp files of atomic writes in progress (or orphaned by a killed save, until start-up removes them).
      else if (e.isFile() && !isAtomicTemp(e.name)) {
        try {
          files.push({ path: name, bytes: (await lstat(path.join(dir, name))).size });
        } catch {
          // Removed meanwhile.
        }
      }
    }
  };
  await walk('');
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The workspace-relative path a file URL names (`/v1/sessions/<id>/files/<path>`), its segments decoded. */
function filePathOf(c: Context, id: string): string {
  const prefix = `/v1/sessions/${id}/files/`;
  const rawPath = new URL(c.req.url).pathname;
  if (!rawPath.startsWith(prefix)) throw new HttpError(404, 'not_found', '没有这个文件');
  try {
    return rawPath.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    throw new HttpError(400, 'bad_request', '文件路径的百分号编码无效');
  }
}

/** Whether `rel` names the session's record `file`; false when it is no path in the workspace at all. */
function names(workspace: { resolve(relPath: string): string }, rel: string, file: string): boolean {
  try {
    return workspace.resolve(rel) === workspace.resolve(file);
  } catch {
    return false;
  }
}

/** A refusal of `removeFile` as the HTTP answer that fits it (its message is the designer's, in Chinese). */
function removalRefused(err: unknown): unknown {
  if (!(err instanceof EditorError)) return err;
  const details = {
    ...(err.hint ? { hint: err.hint } : {}),
    ...((err.details as Record<string, unknown> | undefined) ?? {}),
  };
  if (err.code === 'not_found') return new HttpError(404, 'not_found', err.message, details);
  if (err.code === 'conflict') return new HttpError(409, 'conflict', err.message, details);
  if (err.code === 'invalid_arguments') return new HttpError(400, 'bad_request', err.message, details);
  return new HttpError(500, 'internal', err.message, details);
}

/** The name an upload is stored under: the form's `name` field, else the query's, else the file part's own. */
function nameOf(
  fields: ReadonlyMap<string, string>,
  queryName: string | undefined,
  filename: string | null,
): string | undefined {
  const formName = fields.get('name');
  if (formName) return formName;
  if (queryName === undefined && filename) return path.posix.basename(filename);
  return queryName;
}

export function fileRoutes({ config, store, events }: AppParts): Hono {
  const app = new Hono();

  app.get('/v1/sessions/:id/images/:file', (c) => {
    const entry = sessionOr404(store, c);
    const file = c.req.param('file');
    const image = /^\d+\.(png|jpg)$/.test(file) ? entry.images.get(file) : undefined;
    if (!image) throw new HttpError(404, 'not_found', `会话里没有图像“${file}”（只保留最近的结果图像）`);
    return c.body(new Uint8Array(image.data), 200, {
      'content-type': image.mime,
      'cache-control': 'private, max-age=3600',
    });
  });

  // Uploads in progress on this server: each holds a connection, a file handle and a chunk in memory. One session
  // may hold half of them at most, so that its uploads (a script's many at once, a slow link's trickle) never
  // leave the other sessions none.
  let uploading = 0;
  const uploadingIn = new Map<string, number>();
  const perSession = Math.max(1, Math.floor(config.maxConcurrentUploads / 2));

  app.post('/v1/sessions/:id/files', (c) =>
    inSession(store, c, async (entry) => {
      const queryName = c.req.query('name');
      let name = queryName;
      let role = roleOf(c.req.query('role'));
      const workspace = entry.session.workspace;
      if (uploading >= config.maxConcurrentUploads) {
        c.header('retry-after', '5');
        throw new HttpError(
          503,
          'busy',
          `服务正在接收 ${config.maxConcurrentUploads} 个上传，已达同时上传的上限：请几秒后再试`,
          { limit: config.maxConcurrentUploads },
        );
      }
      const own = uploadingIn.get(entry.id) ?? 0;
      if (own >= perSession) {
        c.header('retry-after', '5');
        throw new HttpError(
          503,
          'busy',
          `本会话正在发送 ${own} 个上传，已达一个会话同时上传的上限：请等其中一个完成后再试`,
          { limit: perSession },
        );
      }
      uploading++;
      uploadingIn.set(entry.id, own + 1);
      let upload: ReceivedUpload;
      try {
        upload = await receiveUpload(c, entry.dir, {
          limit: config.uploadLimitBytes,
          stallMs: config.uploadStallMs,
          ...(workspace.fileMode !== undefined ? { fileMode: workspace.fileMode } : {}),
          // The session's disk quota, as the bytes arrive: the room its files leave, the file the upload would
          // replace given back. Checked again once it is whole, when the name is sure.
          room: async (type, filename, fields) => {
            const quota = workspace.quotaBytes;
            if (quota === undefined) return () => {};
            const target = uploadPath(workspace, nameOf(fields, queryName, filename), type);
            const room = await workspace.room(target === null ? [] : [workspace.resolve(target)]);
            return (bytes) => {
              if (bytes > room) throw quotaFull(quota, quota - room, room, true);
            };
          },
        });
      } finally {
        uploading--;
        const left = (uploadingIn.get(entry.id) ?? 1) - 1;
        if (left > 0) uploadingIn.set(entry.id, left);
        else uploadingIn.delete(entry.id);
      }
      try {
        name = nameOf(upload.fields, queryName, upload.filename);
        const formRole = upload.fields.get('role');
        if (formRole) role = roleOf(formRole);
        if (role === 'garment' && upload.type === 'psd') {
          throw new HttpError(415, 'unsupported_media_type', `服装照片须是 ${GARMENT_NAMES} 图像`, {
            accepted: GARMENT_TYPES,
          });
        }
        if (role === 'garment') {
          // Refused before it is placed, as set_garment_photo refuses it: nothing changes.
          // Only the first bytes were checked: a file that starts like an image but is not one is the client's.
          const meta = await sharp(upload.tempPath)
            .metadata()
            .catch(() => null);
          if (!meta) {
            throw new HttpError(
              415,
              'unsupported_media_type',
              `服装照片无法读取：文件开头像 ${GARMENT_NAMES} 图像，但不是完整的图像`,
              { accepted: GARMENT_TYPES },
            );
          }
          const { width = 0, height = 0 } = meta;
          const small = photoTooSmall(name ?? 'photo', width, height);
          if (small) throw new HttpError(400, 'bad_request', small.message, { hint: small.hint });
        }
        const wanted = uploadPath(workspace, name, upload.type);
        const replacing = wanted === null ? [] : [workspace.resolve(wanted)];
        try {
          await workspace.checkQuota(wanted ?? 'upload', upload.bytes, [upload.tempPath, ...replacing]);
        } catch (err) {
          if (!(err instanceof EditorError) || err.code !== 'out_of_bounds') throw err;
          const { quota_bytes: quota, used_bytes: used } = err.details as Record<string, number>;
          throw quotaFull(quota!, used!, upload.bytes, false);
        }
        const target = await placeUpload(workspace, upload.tempPath, wanted, upload.type);
        // Journaled like a call, so a recovered session has its photo too.
        if (role === 'garment') await entry.session.setGarmentPhoto(target);
        events.publish(entry.id, { type: 'changed' }, requestTab(c));
        return c.json({ path: target, type: upload.type, bytes: upload.bytes, role }, 201);
      } finally {
        await unlink(upload.tempPath).catch(() => undefined);
      }
    }),
  );

  app.get('/v1/sessions/:id/files', (c) =>
    inSession(store, c, async (entry) => c.json({ files: await listFiles(entry.dir) })),
  );

  app.get('/v1/sessions/:id/files/*', (c) =>
    inSession(store, c, async (entry) => {
      const rel = filePathOf(c, entry.id);
      let abs: string;
      try {
        abs = entry.session.workspace.resolve(rel);
      } catch {
        throw new HttpError(404, 'not_found', `会话里没有文件“${rel}”`);
      }
      const info = await stat(abs).catch(() => null);
      if (!info?.isFile()) throw new HttpError(404, 'not_found', `会话里没有文件“${rel}”`);
      const stream = Readable.toWeb(createReadStream(abs)) as ReadableStream<Uint8Array>;
      return c.body(stream, 200, {
        'content-type': CONTENT_TYPES[path.extname(abs).toLowerCase()] ?? 'application/octet-stream',
        'content-length': String(info.size),
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(path.basename(abs))}`,
      });
    }),
  );

  // Removes a file, to make room under the disk quota; not one an open document or the garment photo uses.
  app.delete('/v1/sessions/:id/files/*', (c) =>
    inSession(store, c, async (entry) => {
      const rel = filePathOf(c, entry.id);
      // The conversation lives on in memory and appends to its transcript: deleted alone, the file would restart
      // mid-conversation, and a restart would rebuild the conversation without its earlier turns. Clearing the
      // conversation (DELETE …/chat) removes it with the conversation. Its kept images may go (a restored card
      // just shows none).
      if (names(entry.session.workspace, rel, TRANSCRIPT_FILE)) {
        throw new HttpError(
          409,
          'conflict',
          `“${TRANSCRIPT_FILE}”是本会话的对话记录，之后的对话还要接着写入它，重新打开会话时也要从它恢复对话，没有单独删除：要腾出它和对话图像占的空间，请在“文件”面板“会话记录”下清空对话记录（文档和文件都保留）；想留底的话，先下载它`,
          {
            hint: `清空对话记录：DELETE /v1/sessions/${entry.id}/chat；下载的对话记录可以用 atelier run ${TRANSCRIPT_FILE} 重放其中的调用`,
          },
        );
      }
      // The MCP client's calls are appended to as they come, and go with the conversation when it is cleared.
      if (names(entry.session.workspace, rel, MCP_CALLS_FILE)) {
        throw new HttpError(
          409,
          'conflict',
          `“${MCP_CALLS_FILE}”是本会话里 MCP 客户端调用的记录，之后的调用还要接着写入它，重新打开会话时对话区从它恢复这些调用，没有单独删除：请在“文件”面板“会话记录”下清空对话记录，它随对话记录一起删除（文档和文件都保留）`,
          { hint: `清空对话记录：DELETE /v1/sessions/${entry.id}/chat` },
        );
      }
      await entry.host.removeFile(rel).catch((err: unknown) => {
        throw removalRefused(err);
      });
      events.publish(entry.id, { type: 'changed' }, requestTab(c));
      return c.body(null, 204);
    }),
  );

  app.get('/v1/sessions/:id/documents/:name/render.png', (c) =>
    inSession(store, c, async (entry) => {
      const rawMax = c.req.query('max');
      const max = rawMax === undefined ? 1024 : Number(rawMax);
      if (!Number.isInteger(max) || max < 1 || max > 30000) {
        throw new HttpError(400, 'bad_request', `max 须是 1 到 30000 的整数，不能是“${rawMax}”`, {
          min: 1,
          max: 30000,
        });
      }
      const name = c.req.param('name');
      // The encoded image is held outside the session's pixels until the client has it: at 100 % zoom on a
      // large document, hundreds of MB a render. It counts in the server's pixel memory, so that many
      // designers' renders at once are refused, not the process killed for want of memory.
      const doc = (await entry.session.documents()).find((d) => d.name === name);
      const needed = doc ? renderBytes(doc.width, doc.height, max) : 0;
      const taken = store.reserve(needed);
      if (!('release' in taken)) {
        c.header('retry-after', '30');
        throw new HttpError(
          503,
          'busy',
          '渲染需要的内存超过服务像素内存现在剩下的（其他渲染和会话占着）：请稍后再试，或要一张小一些的渲染（调低 max）',
          { needed_bytes: needed, held_bytes: taken.heldBytes, limit_bytes: taken.limitBytes },
        );
      }
      let rendered: Rendered;
      try {
        rendered = await entry.session.render(name, max);
      } catch (err) {
        taken.release();
        if (err instanceof EditorError && err.code === 'not_found') throw notFound(name, err);
        if (err instanceof EditorError && err.code === 'out_of_bounds') {
          const details = err.details as Record<string, unknown> | undefined;
          // The process's pool (src/calls/memory-pool.ts) says so when the other sessions hold the room, which
          // frees up as they close documents or are closed for idling (the store's sweep, every 30 s at most).
          const crowded = details?.others_bytes !== undefined;
          if (crowded) c.header('retry-after', '30');
          throw new HttpError(
            503,
            'busy',
            crowded
              ? '渲染需要的像素内存超过其他会话留下的：请稍后再试，或关闭本会话不再需要的文档'
              : '渲染需要的像素内存超过本会话的预算剩下的：请关闭不再需要的文档',
            { reason: err.message, ...details },
          );
        }
        throw err;
      }
      taken.resize(rendered.png.byteLength);
      // The session's thread handed its buffer over: sent as it is, not copied once more.
      const png = rendered.png as Uint8Array as Uint8Array<ArrayBuffer>;
      return c.body(streamed(png, taken.release), 200, {
        'content-type': 'image/png',
        'content-length': String(png.byteLength),
        'cache-control': 'no-store',
        'x-document-size': `${rendered.documentWidth}x${rendered.documentHeight}`,
      });
    }),
  );

  // What a click on the studio's canvas selects (Photoshop's Move tool with Auto-Select): read only, no tool call.
  app.get('/v1/sessions/:id/documents/:name/layer-at', (c) =>
    inSession(store, c, async (entry) => {
      const point = ['x', 'y'].map((axis) => {
        const raw = c.req.query(axis);
        const v = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
        if (!Number.isFinite(v)) {
          throw new HttpError(400, 'bad_request', `${axis} 须是文档像素坐标（数字），不能是“${raw ?? ''}”`);
        }
        return v;
      });
      const name = c.req.param('name');
      let id: number | null;
      try {
        id = await entry.session.layerAt(name, point[0]!, point[1]!);
      } catch (err) {
        if (err instanceof EditorError && err.code === 'not_found') throw notFound(name, err);
        throw err;
      }
      return c.json({ layer_id: id });
    }),
  );

  app.get('/v1/sessions/:id/documents/:name/layers/:layer/thumbnail.png', (c) =>
    inSession(store, c, async (entry) => {
      const rawMax = c.req.query('max');
      const max = rawMax === undefined ? 64 : Number(rawMax);
      if (!Number.isInteger(max) || max < 1 || max > THUMBNAIL_MAX) {
        throw new HttpError(400, 'bad_request', `max 须是 1 到 ${THUMBNAIL_MAX} 的整数，不能是“${rawMax}”`, {
          min: 1,
          max: THUMBNAIL_MAX,
        });
      }
      const rawLayer = c.req.param('layer');
      if (!/^\d{1,9}$/.test(rawLayer)) {
        throw new HttpError(400, 'bad_request', `图层须以编号指定（图层结构里的 id），不能是“${rawLayer}”`);
      }
      const of = c.req.query('of') ?? 'pixels';
      if (of !== 'pixels' && of !== 'mask') {
        throw new HttpError(
          400,
          'bad_request',
          `of 须是 pixels（图层的像素）或 mask（图层蒙版），不能是“${of}”`,
          {
            allowed: ['pixels', 'mask'],
          },
        );
      }
      const name = c.req.param('name');
      // Not reserved in the server's pixel memory as a render is: a thumbnail is at most THUMBNAIL_MAX² pixels,
      // cut from the layer's pixels the session holds already.
      let thumbnail: Rendered;
      try {
        thumbnail = await entry.session.thumbnail(name, Number(rawLayer), max, of);
      } catch (err) {
        if (err instanceof EditorError && (err.code === 'not_found' || err.code === 'unsupported')) {
          throw notFound(name, err);
        }
        throw err;
      }
      const png = thumbnail.png as Uint8Array as Uint8Array<ArrayBuffer>;
      return c.body(png, 200, {
        'content-type': 'image/png',
        'content-length': String(png.byteLength),
        // Undo brings a layer's earlier pixels back under their earlier key: nothing may keep a picture by URL.
        'cache-control': 'no-store',
      });
    }),
  );

  return app;
}
