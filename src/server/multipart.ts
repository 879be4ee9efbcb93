/**
 * A streaming multipart/form-data parser (RFC 7578): bytes go in chunk by chunk, parts come out as events, and
 * nothing larger than a part's headers is ever held. A part's data is passed on as it arrives, except for the
 * last few bytes of each chunk, which might be the start of the next boundary.
 */
import { HttpError } from './errors.js';

export interface PartInfo {
  /** The form field's name (`Content-Disposition: form-data; name="…"`). */
  readonly name: string;
  /** The file name a browser sends with a file field, or null for a plain field. */
  readonly filename: string | null;
}

export type MultipartEvent =
  | { readonly kind: 'part'; readonly part: PartInfo }
  | { readonly kind: 'data'; readonly chunk: Buffer }
  | { readonly kind: 'end-part' };

/** A part's header block larger than this is refused: headers are a few short lines. */
const MAX_HEADER_BYTES = 16 * 1024;
/** More parts than this is not an upload form. */
const MAX_PARTS = 32;

function malformed(why: string): HttpError {
  return new HttpError(400, 'bad_request', `multipart 请求体格式错误：${why}`);
}

/** The boundary of a `multipart/form-data; boundary=…` content type; 400 when it has none or a bad one. */
export function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw malformed('Content-Type 没有给出 boundary');
  if (boundary.length > 70) throw malformed('boundary 超过 70 个字符');
  return boundary;
}

/** A header's parameters (`name="x"; filename="a.png"`), quoted strings unescaped, `filename*` decoded. */
function parameters(value: string): Map<string, string> {
  const params = new Map<string, string>();
  const re = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const key = m[1]!.toLowerCase();
    let v = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!.trim();
    if (key.endsWith('*')) {
      const ext = /^([^']*)'[^']*'(.*)$/.exec(v);
      if (!ext) continue;
      try {
        v = decodeURIComponent(ext[2]!);
      } catch {
        continue;
      }
      params.set(key.slice(0, -1), v);
    } else if (!params.has(key)) {
      params.set(key, v);
    }
  }
  return params;
}

function partInfo(block: string): PartInfo {
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    if (line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue;
    const value = line.slice(colon + 1);
    if (!/^\s*form-data\s*(;|$)/i.test(value)) throw malformed('有一部分不是 form-data');
    const params = parameters(value);
    const name = params.get('name');
    if (name === undefined) throw malformed('有一部分没有字段名');
    return { name, filename: params.get('filename') ?? null };
  }
  throw malformed('有一部分没有 Content-Disposition 头');
}

type State = 'preamble' | 'boundary' | 'headers' | 'body' | 'done';

export class MultipartParser {
  /** `\r\n--boundary`: what ends every part's data (the body is read as if it began with a CRLF). */
  private readonly delimiter: Buffer;
  private state: State = 'preamble';
  private pending: Buffer = Buffer.from('\r\n');
  private parts = 0;

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** The events of the bytes so far; throws `HttpError` 400 on a malformed body. */
  push(chunk: Buffer): MultipartEvent[] {
    if (this.state === 'done') return [];
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const events: MultipartEvent[] = [];
    for (;;) {
      if (this.state === 'preamble' || this.state === 'body') {
        const at = this.pending.indexOf(this.delimiter);
        const inBody = this.state === 'body';
        if (at < 0) {
          // Keep what could be the start of a delimiter cut by the chunk's end.
          const keep = Math.min(this.pending.length, this.delimiter.length - 1);
          const ready = this.pending.length - keep;
          if (inBody && ready > 0) events.push({ kind: 'data', chunk: this.pending.subarray(0, ready) });
          this.pending = this.pending.subarray(ready);
          return events;
        }
        if (inBody) {
          if (at > 0) events.push({ kind: 'data', chunk: this.pending.subarray(0, at) });
          events.push({ kind: 'end-part' });
        }
        this.pending = this.pending.subarray(at + this.delimiter.length);
        this.state = 'boundary';
      } else if (this.state === 'boundary') {
        // `--` closes the body; otherwise optional whitespace, then the CRLF before the next part's headers.
        let i = 0;
        while (i < this.pending.length && (this.pending[i] === 0x20 || this.pending[i] === 0x09)) i++;
        if (this.pending.length - i < 2) {
          if (i > 256) throw malformed('boundary 行太长');
          return events;
        }
        if (i === 0 && this.pending[0] === 0x2d && this.pending[1] === 0x2d) {
          this.state = 'done';
          this.pending = Buffer.alloc(0);
          return events;
        }
        if (this.pending[i] !== 0x0d || this.pending[i + 1] !== 0x0a) {
          throw malformed('boundary 后面没有换行');
        }
        this.pending = this.pending.subarray(i + 2);
        this.state = 'headers';
      } else if (this.state === 'headers') {
        let end: number;
        let skip: number;
        if (this.pending.length >= 2 && this.pending[0] === 0x0d && this.pending[1] === 0x0a) {
          end = 0;
          skip = 2;
        } else {
          end = this.pending.indexOf('\r\n\r\n', 0, 'latin1');
          skip = 4;
        }
        if (end < 0) {
          if (this.pending.length > MAX_HEADER_BYTES) throw malformed('一部分的头太长');
          return events;
        }
        if (end > MAX_HEADER_BYTES) throw malformed('一部分的头太长');
        if (++this.parts > MAX_PARTS) throw malformed(`超过 ${MAX_PARTS} 个部分`);
        const part = partInfo(this.pending.subarray(0, end).toString('utf8'));
        events.push({ kind: 'part', part });
        this.pending = this.pending.subarray(end + skip);
        this.state = 'body';
      } else {
        return events;
      }
    }
  }

  /** Call at the end of the body: throws when the closing boundary never came. */
  finish(): void {
    if (this.state !== 'done') throw malformed('请求体在结束的 boundary 之前就结束了');
  }
}
