import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { Conversation } from '../../src/agent/conversation.js';
import { last, modelConfig } from '../agent/support.js';
import { BIN, runCli } from '../support/cli.js';
import { startScriptedModel } from '../support/scripted-model.js';
import { newSession, ok, tempDir } from '../support/session.js';

const jsonl = (calls: unknown[]) =>
  calls.map((c) => (typeof c === 'string' ? c : JSON.stringify(c))).join('\n');

describe('atelier run', () => {
  it('runs a JSONL script in one session and writes one result line per call', async () => {
    const ws = tempDir();
    const script = jsonl([
      {
        id: 'a',
        type: 'function',
        function: { name: 'create_document', arguments: '{"width":64,"height":32,"name":"海报"}' },
      },
      '',
      { name: 'create_layer', arguments: { name: '标题' } },
      'this is not json',
      {
        id: 'b',
        type: 'function',
        function: { name: 'set_layer_opacity', arguments: '{"name":"标题","opacity":"40"}' },
      },
      {
        id: 'c',
        type: 'function',
        function: { name: 'set_layer_opacity', arguments: '{"name":"标题","opacity":400}' },
      },
      {
        id: 'd',
        type: 'function',
        function: { name: 'save_document_as', arguments: '{"path":"out/海报.psd"}' },
      },
      {
        id: 'e',
        type: 'function',
        function: { name: 'save_document_as', arguments: '{"path":"out/海报.png"}' },
      },
      { id: 'f', type: 'function', function: { name: 'get_canvas_image', arguments: '{}' } },
    ]);
    const r = await runCli(['run', '-', '--workspace', ws], { input: script });
    // Two calls failed (the line that is not JSON, the opacity of 400): exit 1, every result written.
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(8);
    expect(lines[0]).toMatchObject({ tool_call_id: 'a', name: 'create_document', result: { ok: true } });
    expect(lines[1]).toMatchObject({ tool_call_id: null, name: 'create_layer', result: { ok: true } });
    expect(lines[2]).toMatchObject({
      tool_call_id: null,
      name: null,
      result: {
        ok: false,
        error: {
          code: 'invalid_json',
          message:
            '第 4 行不是有效的 JSON：在第 2 个字符处，“this”不是 JSON 的值：应为一个值（"字符串"、数字、{对象}、[数组]、true、false 或 null）。出错处：「t⟨此处⟩his is not json」',
        },
      },
    });
    expect(lines[3]).toMatchObject({ tool_call_id: 'b', result: { ok: true, layer: { opacity: 40 } } });
    expect(lines[4]).toMatchObject({
      tool_call_id: 'c',
      result: { ok: false, error: { code: 'invalid_arguments' } },
    });
    expect(lines[5]).toMatchObject({ tool_call_id: 'd', result: { ok: true } });
    expect(existsSync(join(ws, 'out/海报.psd'))).toBe(true);
    expect(existsSync(join(ws, 'out/海报.png'))).toBe(true);
    const image = lines[7].result;
    expect(image.ok).toBe(true);
    expect(image.images).toBeUndefined();
    expect(image.image_files).toHaveLength(1);
    expect(readFileSync(join(ws, image.image_files[0])).subarray(1, 4).toString()).toBe('PNG');
  });

  it('reads a file argument and keeps going after failures', async () => {
    const ws = tempDir();
    const file = join(ws, 'calls.jsonl');
    writeFileSync(
      file,
      jsonl([
        { name: 'delete_layer', arguments: {} },
        { name: 'list_documents', arguments: {} },
      ]),
    );
    const r = await runCli(['run', file, '--workspace', ws]);
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.result.ok)).toEqual([false, true]);
    expect(lines[0].result.error.code).toBe('no_document');
  });

  it('reads a file a Windows editor saved: a byte order mark and CRLF line ends', async () => {
    const ws = tempDir();
    const file = join(ws, 'calls.jsonl');
    const calls = jsonl([
      { name: 'create_document', arguments: { width: 8, height: 8 } },
      { name: 'list_documents', arguments: {} },
    ]);
    writeFileSync(file, `\uFEFF${calls.replaceAll('\n', '\r\n')}\r\n`);
    const r = await runCli(['run', file, '--workspace', ws]);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.name, l.result.ok])).toEqual([
      ['create_document', true],
      ['list_documents', true],
    ]);
  });

  it('stops quietly when the reader of its output goes away', async () => {
    // More results than a pipe holds, so writing goes on after the reader has gone.
    const calls = jsonl(Array.from({ length: 2000 }, () => ({ name: 'list_documents', arguments: {} })));
    const child = spawn(process.execPath, [BIN, 'run', '-', '--workspace', tempDir()]);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(calls);
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });

  it('exits 0 when every call succeeded, 1 when any failed (all results written), 2 on a usage error', async () => {
    const ws = tempDir();
    const good = jsonl([
      { name: 'create_document', arguments: { width: 8, height: 8 } },
      { name: 'list_documents', arguments: {} },
    ]);
    const allOk = await runCli(['run', '--workspace', ws], { input: good });
    expect(allOk.code).toBe(0);
    expect(allOk.stdout.trim().split('\n')).toHaveLength(2);
    expect(allOk.stderr).toBe('');
    // Nothing to run is nothing failed.
    expect((await runCli(['run', '--workspace', ws], { input: '\n' })).code).toBe(0);

    const allFailed = jsonl([
      { name: 'delete_layer', arguments: {} },
      'not json',
      { name: 'no_such_tool', arguments: {} },
    ]);
    const failed = await runCli(['run', '--workspace', tempDir()], { input: allFailed });
    expect(failed.code).toBe(1);
    expect(
      failed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).result.error.code),
    ).toEqual(['no_document', 'invalid_json', 'unknown_tool']);
    const some = await runCli(['run', '--workspace', tempDir()], {
      input: jsonl([
        { name: 'list_documents', arguments: {} },
        { name: 'delete_layer', arguments: {} },
      ]),
    });
    expect(some.code).toBe(1);
    expect(
      some.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).result.ok),
    ).toEqual([true, false]);

    // Usage errors: an unknown option, two input files, an input file that cannot be read. Nothing runs.
    const fresh = join(tempDir(), 'ws');
    for (const args of [
      ['--fast'],
      [join(ws, 'a.jsonl'), join(ws, 'b.jsonl')],
      [join(ws, 'missing.jsonl')],
      [ws],
    ]) {
      const r = await runCli(['run', ...args, '--workspace', fresh], { input: good });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^atelier: /);
    }
    const missing = await runCli(['run', join(ws, 'missing.jsonl'), '--workspace', fresh]);
    expect(missing.stderr).toContain(`无法读取 ${join(ws, 'missing.jsonl')}：文件不存在（ENOENT）`);
    expect(existsSync(fresh)).toBe(false);
    const usage = await runCli(['run', '--help']);
    expect(usage.stdout).toContain('Exit status: 0 when every call succeeded; 1 when any failed');
  });

  it('answers a numeric id as its string (OpenAI ids are strings), and refuses an id of another type', async () => {
    const script = jsonl([
      { id: 7, type: 'function', function: { name: 'create_document', arguments: '{"width":8,"height":8}' } },
      { id: 0, name: 'list_documents', arguments: {} },
      { id: 'call_a', name: 'list_documents', arguments: {} },
      { name: 'list_documents', arguments: {} },
      { id: true, name: 'create_layer', arguments: { name: '不该出现' } },
      { id: 8, name: 'get_layer_structure', arguments: {} },
    ]);
    const r = await runCli(['run', '--workspace', tempDir()], { input: script });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.tool_call_id)).toEqual(['7', '0', 'call_a', null, null, '8']);
    expect(lines[4]).toMatchObject({
      name: 'create_layer',
      result: { ok: false, error: { code: 'invalid_arguments', message: '调用的 id 应为字符串，收到 true' } },
    });
    // The refused call did not run.
    expect(JSON.stringify(lines[5].result.layers)).not.toContain('不该出现');
    expect(r.code).toBe(1);
  });

  it('refuses paths outside the workspace', async () => {
    const ws = tempDir();
    const script = jsonl([
      { name: 'create_document', arguments: { width: 8, height: 8 } },
      { name: 'save_document_as', arguments: { path: '../escape.psd' } },
      { name: 'save_document_as', arguments: { path: '/tmp/escape.psd' } },
    ]);
    const r = await runCli(['run', '--workspace', ws], { input: script });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[1].result.error.code).toBe('invalid_arguments');
    expect(lines[2].result.error.code).toBe('invalid_arguments');
    expect(existsSync(join(ws, '..', 'escape.psd'))).toBe(false);
  });
});

describe('atelier run --transcript', () => {
  it('writes a transcript that replays with atelier run to the same results', async () => {
    const ws = tempDir();
    const transcript = join(ws, 'session.jsonl');
    const script = jsonl([
      { name: 'create_document', arguments: { width: 16, height: 16, name: 'a' } },
      { name: 'create_layer', arguments: { name: 'L' } },
      { name: 'set_layer_opacity', arguments: { name: 'L', opacity: 30 } },
      { name: 'nope', arguments: {} },
      { name: 'get_layer_structure', arguments: {} },
    ]);
    const first = await runCli(['run', '--workspace', ws, '--transcript', transcript], { input: script });
    const replay = await runCli(['run', transcript, '--workspace', tempDir()]);
    // The call of a tool named "nope" failed the first time and fails again.
    expect([first.code, replay.code]).toEqual([1, 1]);
    expect(replay.stdout).toBe(first.stdout);
    expect(readFileSync(transcript, 'utf8').trim().split('\n')).toHaveLength(5);
  });
});

describe('atelier run with an agent transcript', () => {
  it('replays the tool calls that ran, in order, and reproduces the document', async () => {
    const model = await startScriptedModel([
      {
        text: '先建文档和标题。',
        toolCalls: [
          { name: 'create_document', arguments: { width: 160, height: 90, name: '海报' } },
          {
            name: 'create_text_layer',
            arguments: { text: '春季', x: 10, y: 20, font_size: 28, color: '#c0392b' },
          },
          { name: 'set_layer_opacity', arguments: { name: '不存在', opacity: 50 } },
        ],
      },
      { text: '好了。' },
      {
        toolCalls: [
          { id: 'keep', name: 'create_layer', arguments: { name: '色块' } },
          { id: 'skipped', name: 'delete_layer', arguments: {} },
        ],
      },
      {
        toolCalls: [
          { name: 'create_layer', arguments: { name: '色块' } },
          { name: 'select_rect', arguments: { left: 0, top: 60, right: 160, bottom: 90 } },
          { name: 'fill_selection', arguments: { color: '#f4d03f', opacity: 80 } },
          { name: 'set_layer_blend_mode', arguments: { name: '色块', mode: 'multiply' } },
          { name: 'save_document_as', arguments: { path: 'out/海报.png' } },
        ],
      },
      { text: '完成。' },
    ]);
    try {
      const ws = tempDir();
      const transcript = join(ws, 'chat.jsonl');
      const session = newSession(ws);
      const conv = new Conversation({ session, config: modelConfig(model.url), transcript });
      const quiet = () => {};
      await conv.turn('做海报', quiet);
      // Cancelled as the first call starts: it keeps nothing and the second never runs, so replay skips both
      // (the model makes the layer again in the next turn).
      await conv.turn('加色块', (e) => {
        if (e.type === 'tool_call' && e.id === 'keep') conv.cancel();
      });
      await conv.turn('填色并导出', quiet);
      const lines = readFileSync(transcript, 'utf8').trim().split('\n');
      const records = lines.map((l) => JSON.parse(l));
      expect(records.find((l) => l.tool_call_id === 'keep').not_run).toBe(true);
      expect(records.find((l) => l.tool_call_id === 'skipped').not_run).toBe(true);

      const query = JSON.stringify({ name: 'get_layer_structure', arguments: {} });
      writeFileSync(transcript, `${readFileSync(transcript, 'utf8')}${query}\n`);
      const replayWs = tempDir();
      const replay = await runCli(['run', transcript, '--workspace', replayWs]);
      // The model's call on a layer that does not exist failed in the chat, and again in the replay.
      expect(replay.code).toBe(1);
      const results = replay.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(results.map((r) => r.name)).toEqual([
        'create_document',
        'create_text_layer',
        'set_layer_opacity',
        'create_layer',
        'select_rect',
        'fill_selection',
        'set_layer_blend_mode',
        'save_document_as',
        'get_layer_structure',
      ]);
      expect(results.map((r) => r.result.ok)).toEqual([
        true,
        true,
        false,
        true,
        true,
        true,
        true,
        true,
        true,
      ]);
      const original = await ok(session, 'get_layer_structure');
      expect(last(results).result.layers).toEqual(original.layers);
      const pixels = async (dir: string) =>
        createHash('sha256')
          .update(await sharp(join(dir, 'out/海报.png')).raw().toBuffer())
          .digest('hex');
      expect(await pixels(replayWs)).toBe(await pixels(ws));
    } finally {
      await model.close();
    }
  });
});
