/**
 * Where the streaming PSD writer (psd-stream.ts) puts its bytes: appended through one bounded buffer, with small
 * patches at earlier positions (lengths only known once the data after them is written). A file sink writes the
 * buffer out whenever it fills, so a save holds one buffer whatever the file's size; a memory sink keeps the
 * filled buffers and joins them once at the end, for callers that want the file as one Buffer.
 */
import { write } from 'node:fs';
import { promisify } from 'node:util';

/** Bytes buffered before they are written out: large enough that writes are few, small beside any layer. */
const CHUNK = 4 << 20;

export abstract class PsdSink {
  private buf = Buffer.allocUnsafe(CHUNK);
  private used = 0;
  /** File position of `buf[0]`. */
  private base = 0;

  /** Bytes appended so far: the position the next byte goes to. */
  get position(): number {
    return this.base + this.used;
  }

  /** A view of at least `n` writable bytes at the end; `commit` then says how many were written. */
  async space(n: number): Promise<Buffer> {
    if (this.used + n > this.buf.length) {
      await this.flush();
      if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n);
    }
    return this.buf.subarray(this.used);
  }

  commit(n: number): void {
    this.used += n;
  }

  /** Starts the file again from its first byte (a file sink writes over what it wrote; its caller truncates). */
  reset(): void {
    this.used = 0;
    this.base = 0;
    this.clear();
  }

  /** Drops what was kept of an earlier attempt. */
  protected clear(): void {}

  async append(bytes: Uint8Array): Promise<void> {
    if (bytes.length > CHUNK) {
      await this.flush();
      await this.emit(bytes, this.base);
      this.base += bytes.length;
      return;
    }
    (await this.space(bytes.length)).set(bytes);
    this.commit(bytes.length);
  }

  /** Overwrites bytes already appended at `at`. */
  async patch(at: number, bytes: Uint8Array): Promise<void> {
    if (at + bytes.length > this.position) throw new RangeError('PSD sink: patch beyond the written bytes');
    if (at >= this.base) {
      this.buf.set(bytes, at - this.base);
      return;
    }
    const inBuffer = Math.max(0, at + bytes.length - this.base);
    const before = bytes.length - inBuffer;
    if (inBuffer > 0) this.buf.set(bytes.subarray(before), 0);
    await this.rewrite(at, bytes.subarray(0, before));
  }

  protected async flush(): Promise<void> {
    if (this.used === 0) return;
    await this.emit(this.buf.subarray(0, this.used), this.base);
    this.base += this.used;
    this.used = 0;
  }

  /** Takes `bytes` to go at `at` (the end so far); may keep them only until it returns. */
  protected abstract emit(bytes: Uint8Array, at: number): Promise<void>;
  /** Overwrites bytes emitted earlier. */
  protected abstract rewrite(at: number, bytes: Uint8Array): Promise<void>;
}

/** Writes at a position of a file: a file handle's, or a descriptor's (which a worker thread can use too). */
export type PositionalWrite = (bytes: Uint8Array, at: number) => Promise<void>;

/** Writes to a file through positional writes, so patches land where they belong. */
export class FileSink extends PsdSink {
  constructor(private readonly write: PositionalWrite) {
    super();
  }

  protected async emit(bytes: Uint8Array, at: number): Promise<void> {
    await this.write(bytes, at);
  }

  protected async rewrite(at: number, bytes: Uint8Array): Promise<void> {
    await this.write(bytes, at);
  }

  /** Writes out what is still buffered. */
  async finish(): Promise<void> {
    await this.flush();
  }
}

const writeFd = promisify(write);

/** Every byte of `bytes` written at `at` of the open file `fd`. */
export function fdWriter(fd: number): PositionalWrite {
  return async (bytes, at) => {
    let done = 0;
    while (done < bytes.length) {
      done += (await writeFd(fd, bytes, done, bytes.length - done, at + done)).bytesWritten;
    }
  };
}

/** Collects the file in memory. */
export class MemorySink extends PsdSink {
  private readonly chunks: Uint8Array[] = [];
  private readonly patches: { at: number; bytes: Uint8Array }[] = [];

  protected async emit(bytes: Uint8Array, _at: number): Promise<void> {
    this.chunks.push(Uint8Array.prototype.slice.call(bytes));
  }

  protected async rewrite(at: number, bytes: Uint8Array): Promise<void> {
    this.patches.push({ at, bytes: bytes.slice() });
  }

  protected override clear(): void {
    this.chunks.length = 0;
    this.patches.length = 0;
  }

  /** The whole file; the chunks are let go as they are copied. */
  async finish(): Promise<Buffer> {
    await this.flush();
    const out = Buffer.allocUnsafe(this.position);
    let at = 0;
    for (let i = 0; i < this.chunks.length; i++) {
      out.set(this.chunks[i]!, at);
      at += this.chunks[i]!.length;
      this.chunks[i] = new Uint8Array(0);
    }
    for (const p of this.patches) out.set(p.bytes, p.at);
    return out;
  }
}
