import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/session.js';

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
    expect(r.code).toBe(0);
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
      result: { ok: false, error: { code: 'invalid_json' } },
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
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.result.ok)).toEqual([false, true]);
    expect(lines[0].result.error.code).toBe('no_document');
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
    expect(replay.code).toBe(0);
    expect(replay.stdout).toBe(first.stdout);
    expect(readFileSync(transcript, 'utf8').trim().split('\n')).toHaveLength(5);
  });
});
