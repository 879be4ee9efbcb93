/**
 * Oversized requests are refused with `invalid_arguments` before anything runs, cheaply, and change nothing
 * (issue 12: a 30,000-character layer name once held the server for 29 s, a 900,000-character tool name 18 s).
 * The time bounds are sanity bounds far above normal (a refusal takes milliseconds), not benchmarks.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ARGUMENTS_MAX_LENGTH } from '../../src/calls/parse.js';
import { validateArguments } from '../../src/calls/validate.js';
import { findTool } from '../../src/registry/index.js';
import { hashEditor, newSession, ok, refused, tempDir } from '../support/session.js';
import { addPixel, edit, solid } from '../tools/layer-fixtures.js';

const v = (name: string, args: unknown) => validateArguments(findTool(name)!, args);
const SANE_MS = 2000;

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await run();
  return { value, ms: performance.now() - start };
}

async function withDocument() {
  const s = newSession();
  await ok(s, 'create_document', { width: 40, height: 30 });
  await ok(s, 'create_layer', { name: '图层 1' });
  return s;
}

describe('length bounds in validation', () => {
  it('names: 255 characters pass, 256 are refused stating the bound and what was sent', () => {
    expect(v('create_layer', { name: 'x'.repeat(255) }).ok).toBe(true);
    const r = v('create_layer', { name: 'x'.repeat(256) });
    expect(r).toMatchObject({ ok: false, problems: [{ parameter: 'name', bound: { maxLength: 255 } }] });
    if (!r.ok) expect(r.problems[0]!.message).toMatch(/255.*256/);
  });

  it('counts characters, not UTF-16 units: 255 emoji are a valid name', () => {
    expect(v('rename_layer', { new_name: '🎨'.repeat(255) }).ok).toBe(true);
    expect(v('rename_layer', { new_name: '🎨'.repeat(256) }).ok).toBe(false);
  });

  it('text content: 10,000 characters pass, 10,001 are refused', () => {
    expect(v('set_text_content', { name: 'T', text: '字'.repeat(10_000) }).ok).toBe(true);
    expect(v('create_text_layer', { text: '字'.repeat(10_001), x: 0, y: 0, font_size: 12 })).toMatchObject({
      ok: false,
      problems: [{ parameter: 'text', bound: { maxLength: 10_000 } }],
    });
  });

  it('paths: 1024 characters at most', () => {
    expect(v('open_document', { path: `${'a'.repeat(1020)}.psd` }).ok).toBe(true);
    expect(v('open_document', { path: `${'a'.repeat(1021)}.psd` })).toMatchObject({
      ok: false,
      problems: [{ parameter: 'path', bound: { maxLength: 1024 } }],
    });
  });

  it('lists: the number of items and each item are bounded, inside JSON text too', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `图层 ${i}`);
    expect(v('group_layers', { layer_names: names(1000), group_name: 'G' }).ok).toBe(true);
    expect(v('group_layers', { layer_names: names(1001), group_name: 'G' })).toMatchObject({
      ok: false,
      problems: [{ parameter: 'layer_names', bound: { maxItems: 1000 } }],
    });
    expect(v('select_layers', { names: JSON.stringify(names(5000)) })).toMatchObject({
      ok: false,
      problems: [{ parameter: 'names', bound: { maxItems: 1000 } }],
    });
    expect(
      v('distribute_layers', { layer_names: ['a', 'b', 'c'.repeat(300)], direction: 'vertical' }),
    ).toMatchObject({ ok: false, problems: [{ parameter: 'layer_names[2]', bound: { maxLength: 255 } }] });
  });

  it('pieces: at most 200, with bounded names and descriptions', () => {
    const piece = { name: '前片', type: 'solid', color: '#112233' };
    expect(v('extract_and_apply_all_pieces', { pieces: Array(200).fill(piece) }).ok).toBe(true);
    expect(v('extract_and_apply_all_pieces', { pieces: Array(201).fill(piece) })).toMatchObject({
      ok: false,
      problems: [{ parameter: 'pieces', bound: { maxItems: 200 } }],
    });
    expect(
      v('extract_and_apply_all_pieces', { pieces: [{ ...piece, description: '花'.repeat(1001) }] }),
    ).toMatchObject({
      ok: false,
      problems: [{ parameter: 'pieces[0].description', bound: { maxLength: 1000 } }],
    });
  });

  it('an oversized colour is refused without quoting all of it', () => {
    const r = v('fill_selection', { color: 'f'.repeat(900_000) });
    expect(r).toMatchObject({ ok: false, problems: [{ parameter: 'color' }] });
    if (!r.ok) expect(r.problems[0]!.message.length).toBeLessThan(300);
  });

  it('thousands of faults are answered with the first few', () => {
    const args = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    const r = v('get_document_info', args);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toHaveLength(21);
    expect(r.problems[20]!.message).toContain('49980');
  });
});

describe('oversized requests through Session.call', () => {
  it('a 30,000-character layer name is refused promptly and changes nothing', async () => {
    const s = await withDocument();
    const { value: error, ms } = await timed(() =>
      refused(s, 'set_layer_opacity', { name: '层'.repeat(30_000), opacity: 50 }, 'invalid_arguments'),
    );
    expect(error.message).toContain('255');
    expect(error.message.length).toBeLessThan(300);
    expect(ms).toBeLessThan(SANE_MS);
  });

  it('a 900,000-character tool name is unknown, gets no suggestions and is not echoed', async () => {
    const s = await withDocument();
    const hash = hashEditor(s.editor.snapshot);
    const { value: r, ms } = await timed(() =>
      s.call({ name: 'create_layer'.repeat(75_000), arguments: {} }),
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'unknown_tool', details: { closest: [] } } });
    if (!r.ok) expect(r.error.message.length).toBeLessThan(100);
    expect(hashEditor(s.editor.snapshot)).toBe(hash);
    expect(ms).toBeLessThan(SANE_MS);
  });

  it('a short unknown tool name still gets suggestions', async () => {
    const r = await newSession().call({ name: 'set_layer_opacty', arguments: {} });
    expect(r).toMatchObject({ ok: false, error: { code: 'unknown_tool' } });
    if (!r.ok) expect((r.error.details as { closest: string[] }).closest[0]).toBe('set_layer_opacity');
  });

  it('arguments text over 1 MiB is refused before JSON parsing', async () => {
    const s = await withDocument();
    // Not even JSON: a parse would answer invalid_json, so invalid_arguments shows no parse was attempted.
    const text = `{"name": "${'x'.repeat(ARGUMENTS_MAX_LENGTH)}`;
    const error = await refused(s, 'create_layer', text, 'invalid_arguments');
    expect(error.message).toContain(String(ARGUMENTS_MAX_LENGTH));
    expect(error.hint).toBeTruthy();
  });

  it('long text and huge lists are refused and change nothing', async () => {
    const s = await withDocument();
    await refused(
      s,
      'create_text_layer',
      { text: '春'.repeat(10_001), x: 0, y: 0, font_size: 12 },
      'invalid_arguments',
    );
    const many = JSON.stringify({ layer_names: Array(100_000).fill('图层 1'), group_name: '组' });
    await refused(s, 'group_layers', many, 'invalid_arguments');
    await refused(s, 'create_layer_group', { name: '组'.repeat(256) }, 'invalid_arguments');
  });

  it('many calls at once are refused one by one, in order, and change nothing', async () => {
    const s = await withDocument();
    const hash = hashEditor(s.editor.snapshot);
    // A whole batch handed over as one call is not a tool call.
    const batch = Array.from({ length: 30_000 }, () => ({ name: 'create_layer', arguments: { name: 'x' } }));
    expect(await s.call(batch)).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    const { value: results, ms } = await timed(() =>
      Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          s.call({ name: 'set_layer_opacity', arguments: { name: `${i}`.repeat(10_000), opacity: 10 } }),
        ),
      ),
    );
    expect(results.every((r) => !r.ok && r.error.code === 'invalid_arguments')).toBe(true);
    expect(hashEditor(s.editor.snapshot)).toBe(hash);
    expect(ms).toBeLessThan(SANE_MS * 5);
  });
});

describe('lookups of names stay cheap whatever the document holds', () => {
  it('a thousand missing names among thousands of layers: not_found promptly, a short message', async () => {
    const s = await withDocument();
    edit(s, (state) => {
      let next = state;
      for (let i = 0; i < 2000; i++)
        next = addPixel(next, `${'裁片'.repeat(40)} ${i}`, solid({ x: 0, y: 0, w: 1, h: 1 }, [9, 9, 9, 255]));
      return next;
    });
    const names = Array.from({ length: 1000 }, (_, i) => `${'裁片'.repeat(31)}${i}`);
    const { value: r, ms } = await timed(() =>
      s.call({ name: 'group_layers', arguments: { layer_names: names, group_name: '组' } }),
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'not_found' } });
    if (!r.ok) {
      expect(r.error.message).toContain('等 1000 个');
      expect(r.error.message.length).toBeLessThan(1000);
    }
    expect(ms).toBeLessThan(SANE_MS);
  });

  it('a 255-character name missing among thousands of layers', async () => {
    const s = await withDocument();
    edit(s, (state) => {
      let next = state;
      for (let i = 0; i < 3000; i++)
        next = addPixel(next, `${'层'.repeat(250)}${i}`, solid({ x: 0, y: 0, w: 1, h: 1 }, [9, 9, 9, 255]));
      return next;
    });
    const { value: error, ms } = await timed(() =>
      refused(s, 'set_layer_opacity', { name: '层'.repeat(255), opacity: 50 }, 'not_found'),
    );
    expect(error.details).toEqual({ closest: [] });
    expect(ms).toBeLessThan(SANE_MS);
  });
});

describe('blank and dot-only paths', () => {
  const bad = [' ', '.', '..', 'a/.', 'out/..', '...', 'out.png ', ' out.png', 'a/ /b.png', 'out/', 'a\\.'];

  it.each(bad)('validation refuses %j naming the parameter', (path) => {
    expect(v('save_document_as', { path })).toMatchObject({ ok: false, problems: [{ parameter: 'path' }] });
  });

  it('save_document_as {"path":" "} writes nothing', async () => {
    const dir = tempDir();
    const s = newSession(dir);
    await ok(s, 'create_document', { width: 8, height: 8 });
    for (const path of bad)
      await refused(s, 'save_document_as', { path, format: 'png' }, 'invalid_arguments');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('ordinary paths still work, "./" and inner ".." included', async () => {
    const dir = tempDir();
    const s = newSession(dir);
    await ok(s, 'create_document', { width: 8, height: 8 });
    await ok(s, 'save_document_as', { path: './out/图 1.png' });
    await ok(s, 'save_document_as', { path: 'out/x/../b.jpg' });
    expect(readdirSync(`${dir}/out`).sort()).toEqual(['b.jpg', '图 1.png']);
  });
});
