/**
 * Request bodies read straight from Node's IncomingMessage, with a byte limit (413) checked against the declared
 * length first and against the bytes as they arrive (chunked bodies). Reading the socket directly avoids the
 * web-stream conversion of a full `Request`, which costs most of a small request's time.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { HttpError } from './errors.js';

/**
 * A request header, read from Node's own header object when the request came through @hono/node-server (building
 * the fetch `Headers` of a request costs more than a small tool call).
 */
export function header(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'payload_too_large', `请求体超过上限 ${sizeOf(limit)}（${limit} 字节）`, {
    limit_bytes: limit,
  });
}

export async function readBody(c: Context, limit: number): Promise<Buffer> {
  const declared = Number(header(c, 'content-length') ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) {
    // Not behind @hono/node-server (e.g. `app.request()` in tests).
    const buf = Buffer.from(await c.req.arrayBuffer());
    if (buf.byteLength > limit) throw tooLarge(limit);
    return buf;
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: Error | null, value?: Buffer) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      if (err) reject(err);
      else resolve(value!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        // Stop reading; the server drains or drops the rest after answering.
        incoming.pause();
        done(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onError = (err: Error) =>
      done(new HttpError(400, 'bad_request', '请求体无法读取', { reason: err.message }));
    const onClose = () => {
      if (!incoming.readableEnded) done(closedMidBody());
    };
    if (incoming.readableEnded) {
      done(alreadyRead());
      return;
    }
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/**
 * Hands the body to `onChunk` chunk by chunk, reading the next only when the previous one is handled (so a slow
 * disk slows the client instead of filling memory), and stops with 413 as soon as more than `limit` bytes
 * arrived, or with 408 when the client sent nothing for `stallMs` (time spent handling a chunk is not the
 * client's and does not count). When `onChunk` throws, reading stops and its error is rethrown. The rest of an
 * unread body is left to the server, which drains or drops it after answering; the connection is not destroyed
 * here, so the client still gets the answer.
 */
export async function streamBody(
  c: Context,
  limit: number,
  onChunk: (chunk: Buffer) => Promise<void> | void,
  stallMs?: number,
): Promise<number> {
  const declared = Number(header(c, 'content-length') ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  let size = 0;
  const take = async (chunk: Buffer) => {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    await onChunk(chunk);
  };
  if (!incoming) {
    // Not behind @hono/node-server (e.g. `app.request()` in tests).
    const body = c.req.raw.body;
    if (!body) return 0;
    const reader = body.getReader();
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) await take(Buffer.from(r.value));
    } catch (err) {
      await reader.cancel().catch(() => undefined);
      throw err;
    }
    return size;
  }
  if (incoming.readableEnded) throw alreadyRead();
  await new Promise<void>((resolve, reject) => {
    let handling = false;
    let ended = false;
    let settled = false;
    let stall: NodeJS.Timeout | undefined;
    const waitForClient = () => {
      if (stallMs === undefined) return;
      clearTimeout(stall);
      stall = setTimeout(() => settle(stalled(stallMs)), stallMs);
    };
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(stall);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      if (err) {
        incoming.pause();
        reject(err);
      } else resolve();
    };
    const onData = (chunk: Buffer) => {
      incoming.pause();
      clearTimeout(stall);
      handling = true;
      take(chunk).then(
        () => {
          handling = false;
          if (settled) return;
          if (ended) settle(null);
          else if (incoming.destroyed) settle(closedMidBody());
          else {
            waitForClient();
            incoming.resume();
          }
        },
        (err: Error) => settle(err),
      );
    };
    const onEnd = () => {
      ended = true;
      if (!handling) settle(null);
    };
    const onError = (err: Error) =>
      settle(new HttpError(400, 'bad_request', '请求体无法读取', { reason: err.message }));
    const onClose = () => {
      if (!incoming.readableEnded && !handling) settle(closedMidBody());
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
    waitForClient();
  });
  return size;
}

function stalled(ms: number): HttpError {
  return new HttpError(
    408,
    'request_timeout',
    `上传已有 ${Math.round(ms / 1000)} 秒没有收到数据，已停止，什么也没有保存：请重新上传`,
    { stall_seconds: Math.round(ms / 1000) },
  );
}

function closedMidBody(): HttpError {
  return new HttpError(400, 'bad_request', '请求体还没发完，客户端就断开了连接');
}

function alreadyRead(): HttpError {
  return new HttpError(400, 'bad_request', '请求体已被读取过');
}

/** A byte limit as people read it: `1 MB`, `200 MB`, `2 KB`, `512 字节`. */
export function sizeOf(bytes: number): string {
  const MB = 1024 * 1024;
  if (bytes >= MB && bytes % MB === 0) return `${bytes / MB} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} 字节`;
}
