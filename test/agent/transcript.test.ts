import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTranscript, TranscriptReplay } from '../../src/agent/transcript.js';
import { tempDir } from '../support/session.js';

const call = (id: string, name: string) => ({ id, type: 'function', function: { name, arguments: '{}' } });
const answer = (id: string, extra: object = {}) => ({
  role: 'tool',
  tool_call_id: id,
  name: 'x',
  content: '{}',
  ...extra,
});

describe('TranscriptReplay', () => {
  it('replays each call when its answer shows it ran, in order', () => {
    const replay = new TranscriptReplay();
    const assistant = {
      role: 'assistant',
      content: null,
      tool_calls: [call('a', 'create_layer'), call('b', 'delete_layer'), call('c', 'undo')],
    };
    expect(replay.callsOf(assistant)).toEqual([]);
    expect(replay.callsOf(answer('a'))).toEqual([call('a', 'create_layer')]);
    expect(replay.callsOf(answer('b', { not_run: true }))).toEqual([]);
    expect(replay.callsOf(answer('c'))).toEqual([call('c', 'undo')]);
  });

  it('replays each of two calls that share an id (as some servers number them), in order', () => {
    const replay = new TranscriptReplay();
    const first = call('call_0', 'create_layer');
    const second = call('call_0', 'undo');
    replay.callsOf({ role: 'assistant', content: null, tool_calls: [first, second] });
    expect(replay.callsOf(answer('call_0'))).toEqual([first]);
    expect(replay.callsOf(answer('call_0'))).toEqual([second]);
    replay.callsOf({ role: 'assistant', content: null, tool_calls: [first, second] });
    expect(replay.callsOf(answer('call_0', { not_run: true }))).toEqual([]);
    expect(replay.callsOf(answer('call_0'))).toEqual([second]);
  });

  it('does not replay a call whose answer never came (cut short by a crash)', () => {
    const replay = new TranscriptReplay();
    replay.callsOf({
      role: 'assistant',
      content: null,
      tool_calls: [call('a', 'create_layer'), call('b', 'x')],
    });
    expect(replay.callsOf(answer('a'))).toEqual([call('a', 'create_layer')]);
    // The next turn begins: b is forgotten, and an answer to it later replays nothing.
    replay.callsOf({ role: 'user', content: '继续' });
    replay.callsOf({ role: 'assistant', content: null, tool_calls: [call('c', 'undo')] });
    expect(replay.callsOf(answer('b'))).toEqual([]);
    expect(replay.callsOf(answer('c'))).toEqual([call('c', 'undo')]);
  });

  it("still reads transcripts that listed the calls not run on the assistant's line", () => {
    const replay = new TranscriptReplay();
    const line = {
      role: 'assistant',
      content: null,
      tool_calls: [call('a', 'create_layer'), call('b', 'delete_layer')],
      not_run: ['b'],
    };
    expect(replay.callsOf(line)).toEqual([]);
    expect(replay.callsOf(answer('a'))).toEqual([call('a', 'create_layer')]);
    expect(replay.callsOf(answer('b'))).toEqual([]);
  });

  it('skips every other line of an agent transcript', () => {
    const replay = new TranscriptReplay();
    expect(replay.callsOf({ role: 'system', content: '…', model: {} })).toEqual([]);
    expect(replay.callsOf({ role: 'user', content: '做海报' })).toEqual([]);
    expect(replay.callsOf({ role: 'assistant', content: '好了' })).toEqual([]);
    expect(replay.callsOf(answer('a'))).toEqual([]);
    expect(replay.callsOf({ event: 'done', steps: 2 })).toEqual([]);
    expect(replay.callsOf({ event: 'error', code: 'cancelled', message: '已取消' })).toEqual([]);
  });

  it('leaves tool calls and session transcript lines to the caller', () => {
    const replay = new TranscriptReplay();
    expect(replay.callsOf({ name: 'create_layer', arguments: {} })).toBeNull();
    expect(replay.callsOf(call('a', 'create_layer'))).toBeNull();
    expect(replay.callsOf({ call: call('a', 'x'), result: { ok: true } })).toBeNull();
    expect(replay.callsOf([1, 2])).toBeNull();
    expect(replay.callsOf('text')).toBeNull();
  });
});

describe('readTranscript', () => {
  it('is null when there is no transcript', async () => {
    expect(await readTranscript(join(tempDir(), 'chat.jsonl'))).toBeNull();
  });

  it('cuts a last line a crash left half-written off the file, so the next line starts on its own', async () => {
    const file = join(tempDir(), 'chat.jsonl');
    writeFileSync(file, '{"role":"user","content":"一"}\n{"role":"assistant","content":"半');
    const read = await readTranscript(file);
    expect(read).toEqual({ lines: [{ role: 'user', content: '一' }], cut: true, unreadable: 0 });
    expect(readFileSync(file, 'utf8')).toBe('{"role":"user","content":"一"}\n');
  });

  it('keeps a whole last line that only lacks its newline, and counts unreadable lines elsewhere', async () => {
    const file = join(tempDir(), 'chat.jsonl');
    writeFileSync(file, 'not json\n{"event":"done","steps":1}');
    const read = await readTranscript(file);
    expect(read).toEqual({ lines: [{ event: 'done', steps: 1 }], cut: false, unreadable: 1 });
    expect(readFileSync(file, 'utf8')).toBe('not json\n{"event":"done","steps":1}\n');
  });
});
