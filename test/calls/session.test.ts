import { describe, expect, it } from 'vitest';
import { Session } from '../../src/calls/session.js';
import { MAX_STEPS } from '../../src/engine/history.js';
import { findTool, HISTORY_MAX_STEPS } from '../../src/registry/index.js';
import { call, hashEditor, newSession, ok, tempDir } from '../support/session.js';

describe('Session.call input forms', () => {
  it('accepts the OpenAI form with JSON-string arguments and the bare form with object arguments', async () => {
    const s = newSession();
    const a = await s.call({
      id: 'c1',
      type: 'function',
      function: { name: 'create_document', arguments: '{"width":20,"height":10}' },
    });
    expect(a).toMatchObject({ ok: true });
    const b = await s.call({ name: 'create_layer', arguments: { name: '图层 1' } });
    expect(b).toMatchObject({ ok: true, layer: { name: '图层 1' } });
    const c = await s.call({ name: 'get_document_info', arguments: '' });
    expect(c).toMatchObject({ ok: true, document: { width: 20, height: 10, resolution: 150 } });
  });

  it('rejects what is not a tool call', async () => {
    const s = newSession();
    expect(await s.call(42)).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    expect(await s.call({ function: {} })).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
  });
});

describe('error codes', () => {
  it('unknown_tool suggests the closest names', async () => {
    const r = await call(newSession(), 'create_layr', { name: 'x' });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'unknown_tool', details: { closest: expect.arrayContaining(['create_layer']) } },
    });
    if (!r.ok) expect(r.error.hint).toContain('create_layer');
  });

  it('invalid_json for unparsable argument text', async () => {
    const r = await call(newSession(), 'create_layer', '{"name": ');
    expect(r).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_json',
        message:
          '参数不是有效的 JSON：在末尾，JSON 没有写完：还缺少结尾的“}”（参数可能被截断）。出错处：「{"name": ⟨此处⟩」',
      },
    });
  });

  it('invalid_arguments with per-parameter details', async () => {
    const r = await call(newSession(), 'create_document', { width: -5, height: 'tall', colour: 'red' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('invalid_arguments');
    const params = (r.error.details as { parameter: string }[]).map((d) => d.parameter).sort();
    expect(params).toEqual(['colour', 'height', 'width']);
  });

  it('no_document when nothing is open, with a hint', async () => {
    const r = await call(newSession(), 'create_layer', { name: 'a' });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'no_document', hint: expect.stringContaining('create_document') },
    });
  });

  it('not_found names the closest layers', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10 });
    await ok(s, 'create_layer', { name: '前片' });
    const r = await call(s, 'set_layer_opacity', { name: '前篇', opacity: 50 });
    expect(r).toMatchObject({ ok: false, error: { code: 'not_found', details: { closest: ['前片'] } } });
  });

  it('invalid_state when deleting the only layer; the document is unchanged', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10 });
    const before = s.editor.snapshot;
    const hash = hashEditor(before);
    const r = await call(s, 'delete_layer');
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_state' } });
    expect(s.editor.snapshot).toBe(before);
    expect(hashEditor(s.editor.snapshot)).toBe(hash);
  });
});

describe('transactions and history', () => {
  it('adds one step per mutating call, labelled with the Chinese label; queries add none', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10 });
    await ok(s, 'create_layer', { name: 'a' });
    await ok(s, 'rename_layer', { new_name: 'b' });
    await ok(s, 'get_layer_structure');
    await ok(s, 'get_document_info');
    const doc = s.editor.snapshot.docs[0]!;
    expect(doc.history.labels).toEqual(['新建文档', '新建图层', '重命名图层']);
    expect(doc.history.index).toBe(2);
  });

  it('a failing call changes nothing and adds no step', async () => {
    const s = newSession();
    await ok(s, 'create_document', { width: 10, height: 10 });
    await ok(s, 'create_layer', { name: 'a' });
    const before = s.editor.snapshot;
    for (const [name, args] of [
      ['create_layer_group', { name: 5 }],
      ['move_layer_to_group', { group_name: '不存在' }],
      ['switch_document', { doc_name: 'nope' }],
      ['create_layer', {}],
    ] as const) {
      const r = await call(s, name, args);
      expect(r.ok, name).toBe(false);
      expect(s.editor.snapshot, name).toBe(before);
    }
  });

  it('keeps the last 50 history states of a document, as undo and redo say', async () => {
    expect(MAX_STEPS).toBe(50);
    expect(HISTORY_MAX_STEPS).toBe(MAX_STEPS);
    for (const tool of ['undo', 'redo']) {
      expect(findTool(tool)!.description, tool).toContain(`最多保留 ${MAX_STEPS} 个历史记录状态`);
    }
    const s = newSession();
    await ok(s, 'create_document', { width: 4, height: 4 });
    for (let i = 0; i < MAX_STEPS + 5; i++) await ok(s, 'create_layer', { name: `L${i}` });
    const history = s.editor.snapshot.docs[0]!.history;
    expect(history.labels).toHaveLength(MAX_STEPS);
    expect(history.labels[0]).toBe('新建图层');
    expect(await ok(s, 'undo', { steps: 100 })).toMatchObject({ undone: MAX_STEPS - 1, can_undo: 0 });
  });

  it('runs calls one at a time in arrival order', async () => {
    const s = newSession();
    const results = await Promise.all([
      call(s, 'create_document', { width: 10, height: 10 }),
      ...Array.from({ length: 20 }, (_, i) => call(s, 'create_layer', { name: `L${i}` })),
      call(s, 'get_layer_structure'),
    ]);
    expect(results.every((r) => r.ok)).toBe(true);
    const layers = (results.at(-1) as unknown as { layers: { name: string }[] }).layers.map((l) => l.name);
    expect(layers).toEqual([...Array.from({ length: 20 }, (_, i) => `L${19 - i}`), '背景']);
  });

  it('writes a JSONL transcript that records each call and result', async () => {
    const { readFileSync } = await import('node:fs');
    const dir = tempDir();
    const s = new Session({ workspace: dir, transcript: `${dir}/t.jsonl` });
    await call(s, 'create_document', { width: 4, height: 4 });
    await call(s, 'nope');
    const lines = readFileSync(`${dir}/t.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0].call.function.name).toBe('create_document');
    expect(lines[1].result.error.code).toBe('unknown_tool');
  });

  it('starts its transcript line on a line of its own after a crash left the last one half-written', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const dir = tempDir();
    writeFileSync(`${dir}/t.jsonl`, '{"call":{"name":"undo"},"result":{"ok":tr');
    const s = new Session({ workspace: dir, transcript: `${dir}/t.jsonl` });
    await call(s, 'create_document', { width: 4, height: 4 });
    const text = readFileSync(`${dir}/t.jsonl`, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0].call.function.name).toBe('create_document');
  });
});
