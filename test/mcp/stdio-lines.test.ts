/** `atelier mcp`'s stdin filter (src/mcp/stdio.ts), fed the way a pipe delivers bytes. */
import { describe, expect, it } from 'vitest';
import { CheckedLines } from '../../src/mcp/stdio.js';

/** What the filter passes on and what it answers itself, after `chunks` are written and stdin ends. */
async function filter(chunks: readonly Buffer[]): Promise<{ passed: string; answered: string[] }> {
  const answered: string[] = [];
  const lines = new CheckedLines((answer) => answered.push(answer));
  let passed = '';
  lines.setEncoding('utf8').on('data', (d: string) => {
    passed += d;
  });
  const ended = new Promise<void>((resolve) => lines.on('end', resolve));
  for (const chunk of chunks) lines.write(chunk);
  lines.end();
  await ended;
  return { passed, answered };
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
});
