/** The event stream the chat and streamed tool calls answer with (src/server/sse.ts), driven through Hono. */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { eventStream, STREAM_FAILED_MESSAGE } from '../../src/server/sse.js';

async function eventsOf(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

describe('eventStream', () => {
  it('reports an event it cannot encode in its place, and goes on to the end', async () => {
    const app = new Hono();
    app.get('/', (c) =>
      eventStream(c, async (send) => {
        send({ type: 'first' });
        // A BigInt (or a cycle) makes JSON.stringify throw.
        send({ type: 'result', value: 10n });
        send({ type: 'done' });
      }),
    );
    const events = await eventsOf(await app.request('/'));
    expect(events.map((e) => e.type)).toEqual(['first', 'error', 'done']);
    expect(events[1]).toMatchObject({ code: 'internal', message: expect.stringContaining('result') });
  });

  it('tells the client a failure of its feed without the error text, which goes to the log', async () => {
    const logs: string[] = [];
    const app = new Hono();
    app.get('/', (c) =>
      eventStream(
        c,
        async (send) => {
          send({ type: 'first' });
          throw new Error("EACCES: permission denied, open '/srv/atelier/sessions/s1/chat.jsonl'");
        },
        { log: (line) => logs.push(line) },
      ),
    );
    const res = await app.request('/');
    const body = await res.clone().text();
    expect(await eventsOf(res)).toEqual([
      { type: 'first' },
      { type: 'error', code: 'internal', message: STREAM_FAILED_MESSAGE },
    ]);
    // Nowhere in the stream, not in any event of another kind either.
    expect(body).not.toContain('/srv/');
    expect(body).not.toContain('EACCES');
    expect(logs.join('\n')).toContain('/srv/atelier/sessions/s1/chat.jsonl');
  });

  it('sends a comment while it has nothing to say, which a client skips', async () => {
    let heard!: () => void;
    const kept = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const app = new Hono();
    // A turn that stays silent until the client has had a keep-alive (a proxy cuts a silent response).
    app.get('/', (c) =>
      eventStream(
        c,
        async (send) => {
          send({ type: 'first' });
          await kept;
          send({ type: 'done' });
        },
        { keepAliveMs: 10 },
      ),
    );
    const res = await app.request('/');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      if (/^: keep-alive$/m.test(text)) heard();
    }
    const events = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    expect(events).toEqual([{ type: 'first' }, { type: 'done' }]);
  });
});
