/**
 * An upload received straight to disk: the body (raw, or the `file` part of a multipart form) goes to a temp
 * file of the workspace's atomic-write scheme in the session folder as it arrives, so memory holds one chunk
 * per upload, whatever the file's size. The type is read from the first bytes and a file that is not an image
 * is refused before the rest arrives, as is one that outgrows the room the session's disk quota leaves; any
 * failure removes the temp file. The caller renames it into place.
 */
import { type FileHandle, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from 'hono';
import { SNIFF_BYTES } from '../engine/io/file-type.js';
import { tempPathFor } from '../engine/workspace.js';
import { streamBody } from './body.js';
import { HttpError } from './errors.js';
import { boundaryOf, MultipartParser } from './multipart.js';
import { requireImageType, type UploadType } from './uploads.js';

/** A form field other than the file (`name`, `role`) is a short string. */
const MAX_FIELD_BYTES = 4096;

export interface ReceivedUpload {
  /** Absolute path of the temp file holding the bytes. */
  readonly tempPath: string;
  readonly type: UploadType;
  readonly bytes: number;
  /** The form's text fields (multipart only). */
  readonly fields: ReadonlyMap<string, string>;
  /** The file name the form gave the file part (multipart only). */
  readonly filename: string | null;
}

/**
 * What may be written, asked once the file's type is known (with the form's fields so far): a check that throws
 * when the file has grown past what may be stored (the session's disk quota).
 */
export type RoomCheck = (
  type: UploadType,
  filename: string | null,
  fields: ReadonlyMap<string, string>,
) => Promise<(bytes: number) => void>;

export interface ReceiveOptions {
  /** Largest body, in bytes (413 beyond). */
  readonly limit: number;
  /** 408 after this long without a byte. */
  readonly stallMs?: number;
  /** Mode of the temp file (the workspace's: 0600 in the service). */
  readonly fileMode?: number;
  readonly room?: RoomCheck;
}

/** Writes the file's bytes to the temp file, sniffing the type once the first bytes are in. */
class FileSink {
  private handle: FileHandle | null = null;
  private head = Buffer.alloc(0);
  private check: ((bytes: number) => void) | null = null;
  type: UploadType | null = null;
  bytes = 0;

  constructor(
    readonly tempPath: string,
    private readonly fileMode: number | undefined,
    private readonly room: (type: UploadType) => Promise<(bytes: number) => void> | null,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (chunk.byteLength === 0) return;
    if (this.type === null) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, SNIFF_BYTES)]);
      if (this.head.byteLength >= SNIFF_BYTES) this.type = requireImageType(this.head);
    }
    this.bytes += chunk.byteLength;
    if (this.type !== null && this.check === null) this.check = (await this.room(this.type)) ?? (() => {});
    this.check?.(this.bytes);
    this.handle ??= await open(this.tempPath, 'wx', this.fileMode);
    await this.handle.write(chunk);
  }

  /** The type, flushed to disk; 400 for an empty file, 415 for one too short to be an image. */
  async finish(): Promise<UploadType> {
    this.type ??= requireImageType(this.head);
    if (this.check === null) (await this.room(this.type))?.(this.bytes);
    await this.handle?.sync();
    await this.close();
    return this.type;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Reads the request body into a temp file in `dir`; throws `HttpError` (400, 408 after `stallMs` without a
 * byte, 413, 415, or what `room` throws) with nothing left.
 */
export async function receiveUpload(c: Context, dir: string, opts: ReceiveOptions): Promise<ReceivedUpload> {
  const { limit, stallMs } = opts;
  const contentType = c.req.header('content-type') ?? '';
  const fields = new Map<string, string>();
  let filename: string | null = null;
  const sink = new FileSink(tempPathFor(path.join(dir, 'upload')), opts.fileMode, (type) =>
    opts.room ? opts.room(type, filename, fields) : null,
  );
  try {
    if (contentType.toLowerCase().startsWith('multipart/form-data')) {
      const parser = new MultipartParser(boundaryOf(contentType));
      let current: { field: string; chunks: Buffer[]; bytes: number } | 'file' | null = null;
      let sawFile = false;
      const onChunk = async (chunk: Buffer) => {
        for (const event of parser.push(chunk)) {
          if (event.kind === 'part') {
            if (event.part.name === 'file') {
              if (sawFile) throw new HttpError(400, 'bad_request', '表单里有不止一个 "file" 字段');
              sawFile = true;
              filename = event.part.filename;
              current = 'file';
            } else {
              current = { field: event.part.name, chunks: [], bytes: 0 };
            }
          } else if (event.kind === 'data') {
            if (current === 'file') await sink.write(event.chunk);
            else if (current) {
              current.bytes += event.chunk.byteLength;
              if (current.bytes > MAX_FIELD_BYTES) {
                throw new HttpError(
                  400,
                  'bad_request',
                  `表单字段“${current.field}”超过 ${MAX_FIELD_BYTES} 字节的上限`,
                  { limit_bytes: MAX_FIELD_BYTES },
                );
              }
              current.chunks.push(Buffer.from(event.chunk));
            }
          } else {
            if (current && current !== 'file' && !fields.has(current.field)) {
              fields.set(current.field, Buffer.concat(current.chunks).toString('utf8'));
            }
            current = null;
          }
        }
      };
      await streamBody(c, limit, onChunk, stallMs);
      parser.finish();
      if (!sawFile) {
        throw new HttpError(400, 'bad_request', 'multipart 表单须有装着文件的 "file" 字段');
      }
    } else {
      await streamBody(c, limit, (chunk) => sink.write(chunk), stallMs);
    }
    const type = await sink.finish();
    return { tempPath: sink.tempPath, type, bytes: sink.bytes, fields, filename };
  } catch (err) {
    await sink.close();
    await unlink(sink.tempPath).catch(() => undefined);
    throw err;
  }
}
