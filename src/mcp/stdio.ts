/**
 * stdin for the SDK's stdio transport, with malformed requests answered first: each complete line that is not
 * JSON gets a parse error, each malformed or oversized request with an id its JSON-RPC error (see malformed.ts),
 * each oversized message nobody waits on an answer to (a notification, a response) a line on stderr; every other
 * line passes through unchanged.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { droppedMessage, malformedRequest, oversizedRequest, PARSE_ERROR, rpcError } from './malformed.js';

export class CheckedLines extends Transform {
  private pending = '';
  // A pipe cuts its chunks anywhere, also inside a multi-byte UTF-8 character: the decoder keeps such a tail
  // for the next chunk instead of turning both halves into U+FFFD.
  private readonly decoder = new StringDecoder('utf8');

  /**
   * `answer` writes a JSON-RPC line back to the client; `log` tells the operator (stderr) about a message dropped
   * with no one to answer: an oversized notification or response.
   */
  constructor(
    private readonly answer: (line: string) => void,
    private readonly log: (message: string) => void,
  ) {
    super({ decodeStrings: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pending += this.decoder.write(chunk);
    let end = this.pending.indexOf('\n');
    while (end !== -1) {
      this.check(this.pending.slice(0, end));
      this.pending = this.pending.slice(end + 1);
      end = this.pending.indexOf('\n');
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    this.pending += this.decoder.end();
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
    const out = `${text}\n`;
    const bytes = Buffer.byteLength(out);
    if (bytes > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      // The SDK's transport closes the connection on a message beyond its buffer, ending the session with every
      // unsaved document and answering nothing: such a message never reaches it.
      const error = oversizedRequest(message, bytes, STDIO_DEFAULT_MAX_BUFFER_SIZE);
      if (error) this.answer(`${JSON.stringify(error)}\n`);
      else this.log(droppedMessage(message, bytes, STDIO_DEFAULT_MAX_BUFFER_SIZE));
      return;
    }
    const error = malformedRequest(message);
    if (error) this.answer(`${JSON.stringify(error)}\n`);
    else this.push(out);
  }
}
