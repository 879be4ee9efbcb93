/** `atelier mcp`'s stdin filter (src/mcp/stdio.ts), fed the way a pipe delivers bytes. */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { describe, expect, it } from 'vitest';
import { CheckedLines } from '../../src/mcp/stdio.js';

/** What the filter passes on and what it answers itself, after `chunks` are written and stdin ends. */
async function filter(
  chunks: readonly Buffer[],
): Promise<{ passed: string; answered: string[]; logged: string[] }> {
  const answered: string[] = [];
  const logged: string[] = [];
  const lines = new CheckedLines(
    (answer) => answered.push(answer),
    (line) => logged.push(line),
  );
  let passed = '';
  lines.setEncoding('utf8').on('data', (d: string) => {
    passed += d;
  });
  const ended = new Promise<void>((resolve) => lines.on('end', resolve));
  for (const chunk of chunks) lines.write(chunk);
  lines.end();
  await ended;
  return { passed, answered, logged };
}

describe('CheckedLines', () => {
  it('keeps a multi-byte character that a chunk boundary cuts in two', async () => {
    const message = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'create_text_layer', arguments: { text: '春季新品' } },
    };
    const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
    // One byte into 季 (three bytes in UTF-8).
    const cut = bytes.indexOf(Buffer.from('季')) + 1;
    const { passed, answered } = await filter([bytes.subarray(0, cut), bytes.subarray(cut)]);
    expect(answered).toEqual([]);
    expect(JSON.parse(passed)).toEqual(message);
  });

  it('keeps a character cut at the end of a last line without a newline', async () => {
    const message = { jsonrpc: '2.0', method: 'notifications/initialized', params: { note: '中' } };
    const bytes = Buffer.from(JSON.stringify(message));
    const cut = bytes.indexOf(Buffer.from('中')) + 2;
    const { passed } = await filter([bytes.subarray(0, cut), bytes.subarray(cut)]);
    expect(JSON.parse(passed)).toEqual(message);
  });

  it('answers an oversized request, and logs (never passes on) an oversized message nobody waits on', async () => {
    const big = 'x'.repeat(STDIO_DEFAULT_MAX_BUFFER_SIZE);
    const messages = [
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'create_layer', arguments: { name: big } },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 1, progress: 1, message: big },
      },
      { jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: big }] } },
      [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { reason: big } }],
    ];
    const { passed, answered, logged } = await filter(
      messages.map((m) => Buffer.from(`${JSON.stringify(m)}\n`)),
    );
    expect(passed).toBe('');
    expect(answered.map((a) => JSON.parse(a))).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: expect.stringContaining('at most 10.0 MiB') },
      },
    ]);
    expect(logged).toEqual([
      'atelier: mcp: dropped the notification "notifications/progress": it is 10.0 MiB, at most 10.0 MiB per message',
      'atelier: mcp: dropped the response to request 8: it is 10.0 MiB, at most 10.0 MiB per message',
      'atelier: mcp: dropped a batch of 1 message: it is 10.0 MiB, at most 10.0 MiB per message',
    ]);
  });
});
