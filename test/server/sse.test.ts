/** The event stream the chat and streamed tool calls answer with (src/server/sse.ts), driven through Hono. */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { eventStream } from '../../src/server/sse.js';

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
});
