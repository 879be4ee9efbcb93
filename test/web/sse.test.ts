import { describe, expect, it } from 'vitest';
import { sseData, sseEvents } from '../../src/web/api/sse.js';

/** A body that arrives in exactly these chunks. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const bytes = chunks.map((c) => new TextEncoder().encode(c));
  return new ReadableStream({
    start(controller) {
      for (const b of bytes) controller.enqueue(b);
      controller.close();
    },
  });
}

async function collect<T>(it: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('server-sent events read from fetch', () => {
  it('splits events on blank lines, whatever the chunk boundaries', async () => {
    const text = 'data: {"type":"user","text":"你好"}\n\ndata: {"type":"done","steps":1}\n\n';
    const whole = await collect(sseData(body(text)));
    expect(whole).toEqual(['{"type":"user","text":"你好"}', '{"type":"done","steps":1}']);
    // Every split point, including inside the multi-byte characters of 你好.
    const bytes = new TextEncoder().encode(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const parts = [bytes.slice(0, cut), bytes.slice(cut)];
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (const p of parts) c.enqueue(p);
          c.close();
        },
      });
      expect(await collect(sseData(stream))).toEqual(whole);
    }
  });

  it('joins multi-line data, skips comments and other fields, accepts CRLF split across chunks', async () => {
    const events = await collect(
      sseData(body(': keep-alive\r', '\nevent: message\r\ndata: a\r\ndata:b\r', '\n\r', '\nid: 7\n\n')),
    );
    expect(events).toEqual(['a\nb']);
  });

  it('delivers a last event that has no closing blank line', async () => {
    expect(await collect(sseData(body('data: {"type":"done"}')))).toEqual(['{"type":"done"}']);
  });

  it('parses JSON events and skips a payload that is not JSON', async () => {
    const events = await collect(sseEvents(body('data: not json\n\ndata: {"type":"done","steps":2}\n\n')));
    expect(events).toEqual([{ type: 'done', steps: 2 }]);
  });
});
