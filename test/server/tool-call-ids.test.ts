/**
 * The ids of `POST /v1/sessions/:id/tool-calls`, sent as a client writes them: OpenAI's are strings, but a call
 * written by hand (or by a JSON-RPC habit) may carry a number. The tool message must still name its call, as
 * `atelier run` does (its decimal text), or the client cannot tell which result answers which call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, startTestServer, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const calls = [
  {
    id: 7,
    type: 'function',
    function: { name: 'create_document', arguments: '{"width": 32, "height": 24}' },
  },
  { id: 'call_b', name: 'get_document_info', arguments: {} },
  { name: 'get_document_info', arguments: {} },
  { id: { not: 'an id' }, name: 'get_document_info', arguments: {} },
];

function post(id: string, query = ''): Promise<Response> {
  return fetch(`${server.url}/v1/sessions/${id}/tool-calls${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tool_calls: calls }),
  });
}

describe('tool call ids over HTTP', () => {
  it('answers a numeric id with its decimal text, a string id as it came, none with null', async () => {
    const id = await createSession(server.url);
    const res = await post(id);
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as {
      messages: { tool_call_id: string | null; content: string }[];
    };
    expect(messages.map((m) => m.tool_call_id)).toEqual(['7', 'call_b', null, null]);
    expect(messages.map((m) => (JSON.parse(m.content) as { ok: boolean }).ok)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('streams a numeric id as its decimal text, not as a made-up one', async () => {
    const id = await createSession(server.url);
    const res = await post(id, '?stream=1');
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; id?: string });
    expect(events.filter((e) => e.type === 'tool_result').map((e) => e.id)).toEqual([
      '7',
      'call_b',
      'call_3',
      'call_4',
    ]);
  });
});
