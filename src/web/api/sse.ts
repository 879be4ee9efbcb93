/**
 * Server-sent events read from a `fetch()` body: the studio POSTs with an Authorization header, which
 * EventSource cannot send. Each event's `data:` lines are joined and parsed as JSON.
 */

/** Splits a text stream into the data payloads of its events (comments and other fields are skipped). */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.search(/\r\n|\r|\n/);
      // A trailing CR may be the first half of a CRLF split across chunks: wait for the next one.
      while (end >= 0 && !(end === buffer.length - 1 && buffer[end] === '\r')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (data.length) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
        end = buffer.search(/\r\n|\r|\n/);
      }
    }
    if (buffer.startsWith('data:')) data.push(buffer.slice(buffer.startsWith('data: ') ? 6 : 5));
    if (data.length) yield data.join('\n');
  } finally {
    reader.releaseLock();
  }
}

/** The events of a stream as parsed JSON objects; a payload that is not JSON is skipped. */
export async function* sseEvents<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  for await (const payload of sseData(body)) {
    try {
      yield JSON.parse(payload) as T;
    } catch {
      // A keep-alive or a foreign line: nothing to show.
    }
  }
}
