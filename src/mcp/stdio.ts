/**
 * stdin for the SDK's stdio transport, with malformed requests answered first: each complete line that is not
 * JSON gets a parse error, each malformed request with an id its JSON-RPC error (see malformed.ts); every
 * other line passes through unchanged.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { malformedRequest, PARSE_ERROR, rpcError } from './malformed.js';

export class CheckedLines extends Transform {
  private pending = '';

  constructor(private readonly answer: (line: string) => void) {
    super({ decodeStrings: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pending += chunk.toString('utf8');
    let end = this.pending.indexOf('\n');
    while (end !== -1) {
      this.check(this.pending.slice(0, end));
      this.pending = this.pending.slice(end + 1);
      end = this.pending.indexOf('\n');
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.pending.trim() !== '') this.check(this.pending);
    this.pending = '';
    done();
  }

  private check(line: string): void {
    const text = line.replace(/\r$/, '');
    if (text.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.answer(`${JSON.stringify(rpcError(null, PARSE_ERROR, 'Parse error: the line is not JSON'))}\n`);
      return;
    }
    const error = malformedRequest(message);
    if (error) this.answer(`${JSON.stringify(error)}\n`);
    else this.push(`${text}\n`);
  }
}
