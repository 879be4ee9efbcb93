import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTranscript, TranscriptReplay, TranscriptWriter } from '../../src/agent/transcript.js';
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

/** Every line of the file is one JSON value and the file ends with a newline: no two records are glued. */
function wholeLines(file: string): unknown[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

const TRANSCRIPT_MODULE = fileURLToPath(new URL('../../src/agent/transcript.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

describe('TranscriptWriter', () => {
  it('takes back a line a full disk cut short, so the next line does not continue it', async () => {
    const dir = tempDir('atelier-transcript-');
    const file = join(dir, 'chat.jsonl');
    // The child may write files of at most 1 MiB (RLIMIT_FSIZE, as a full disk): the transcript is 60 bytes short
    // of it, so the next line is written in part (the count says so) and the write after fails with EFBIG.
    const limitKib = 1024;
    const frame = `${JSON.stringify({ role: 'user', content: '' })}\n`.length;
    const first = JSON.stringify({ role: 'user', content: 'a'.repeat(limitKib * 1024 - 60 - frame) });
    writeFileSync(file, `${first}\n`);
    const before = statSync(file).size;
    expect(before).toBe(limitKib * 1024 - 60);
    const script = join(dir, 'append.mts');
    writeFileSync(
      script,
      [
        `import { TranscriptWriter } from ${JSON.stringify(TRANSCRIPT_MODULE)};`,
        'const failures = [];',
        `const writer = new TranscriptWriter(${JSON.stringify(file)}, (err) => failures.push(err.code));`,
        `await writer.write([{ role: 'assistant', content: 'b'.repeat(500) }]);`,
        'console.log(JSON.stringify(failures));',
      ].join('\n'),
    );
    const child = spawnSync(
      'bash',
      ['-c', `ulimit -f ${limitKib} && exec "$0" --import tsx "$1"`, process.execPath, script],
      { cwd: REPO, env: { ...process.env, TSX_DISABLE_CACHE: '1' }, encoding: 'utf8' },
    );
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual(['EFBIG']);
    // Nothing of the failed line is left.
    expect(statSync(file).size).toBe(before);

    // Room again (space freed): the next line starts on a line of its own.
    const writer = new TranscriptWriter(file, (err) => {
      throw err;
    });
    await writer.write([{ event: 'done', steps: 1 }]);
    expect(wholeLines(file)).toEqual([JSON.parse(first), { event: 'done', steps: 1 }]);
  });

  it('creates the transcript readable by its owner only', async () => {
    const file = join(tempDir('atelier-transcript-'), 'chat.jsonl');
    await new TranscriptWriter(file, (err) => {
      throw err;
    }).write([{ event: 'done', steps: 1 }]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('ends a last line a crash left without its newline before appending: cut when half-written, kept when whole', async () => {
    const file = join(tempDir('atelier-transcript-'), 'chat.jsonl');
    writeFileSync(file, '{"role":"user","content":"一"}\n{"role":"assistant","content":"半');
    const writer = new TranscriptWriter(file, (err) => {
      throw err;
    });
    await writer.write([{ event: 'done', steps: 1 }]);
    expect(wholeLines(file)).toEqual([
      { role: 'user', content: '一' },
      { event: 'done', steps: 1 },
    ]);

    writeFileSync(file, '{"role":"user","content":"二"}');
    await writer.write([{ event: 'done', steps: 2 }]);
    expect(wholeLines(file)).toEqual([
      { role: 'user', content: '二' },
      { event: 'done', steps: 2 },
    ]);
  });
});
