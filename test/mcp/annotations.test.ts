/**
 * The tool annotations an MCP client sees (tools/list through the SDK's Client), held to what the MCP spec means
 * by them and to what the tools really do: a tool listed read-only changes nothing in the session or the
 * workspace when called, and the garment tools that remember things in the session are not listed read-only.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/calls/session.js';
import { toMcp } from '../../src/registry/formats/mcp.js';
import { toolsInToolsets } from '../../src/registry/toolsets.js';
import { garmentDocument, garmentPhoto } from '../support/garment-fixtures.js';
import { newSession, tempDir } from '../support/session.js';
import { callTool, closeClients, inMemoryClient } from './support.js';

afterEach(closeClients);

/** The tools listed read-only, each with arguments that make it succeed once the garment work has been done. */
const READ_ONLY: Readonly<Record<string, Record<string, unknown>>> = {
  get_document_info: {},
  get_layer_structure: {},
  get_active_layer_info: {},
  list_all_layer_names: {},
  get_pixel_color: { x: 300, y: 200 },
  list_documents: {},
  get_canvas_image: { max_size: 200 },
  verify_pattern_result: {},
};

/** Everything a call could change: the documents (object identity: a change makes new ones), the session's
 *  garment photo and memory, and the workspace's files. */
function environment(session: Session) {
  const { editor, garmentPhoto, garment } = session.state;
  const root = session.workspace.root;
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return files(p);
      const s = statSync(p);
      return [`${p.slice(root.length)} ${s.size} ${s.mtimeMs}`];
    });
  return { docs: editor.docs, active: editor.active, garmentPhoto, garment, files: files(root).sort() };
}

/** `after` differs from `before` in the session only (no document, no file). */
function changedSessionOnly(before: ReturnType<typeof environment>, after: ReturnType<typeof environment>) {
  expect(after.docs).toHaveLength(before.docs.length);
  for (const [i, d] of after.docs.entries()) expect(d).toBe(before.docs[i]);
  expect(after.files).toEqual(before.files);
  expect(after.garmentPhoto !== before.garmentPhoto || after.garment !== before.garment).toBe(true);
}

describe('MCP tool annotations', () => {
  it('lists the hints the MCP spec means, derived from the registry', async () => {
    const { tools } = await (await inMemoryClient(newSession(), 'annotations-test')).listTools();
    const derived = toMcp(toolsInToolsets('extended'));
    expect(tools.map((t) => [t.name, t.annotations])).toEqual(derived.map((t) => [t.name, t.annotations]));
    const hints = (name: string) => {
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tools.find(
        (t) => t.name === name,
      )!.annotations!;
      return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
    };
    // Saving overwrites the file at the path: destructive; saving twice is saving once.
    for (const name of ['save_document', 'save_document_as']) {
      expect(hints(name), name).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
    // No document changes, but the session remembers the photo, the analysis, the confirmations, the preview.
    expect(hints('set_garment_photo')).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    for (const name of ['identify_pieces', 'confirm_piece_parts', 'generate_garment_preview']) {
      expect(hints(name), name).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      });
    }
    // Makes the layer it names the active one, which the next delete_layer or merge_layers acts on.
    expect(hints('get_layer_bounds')).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    // Clips the colours outside the press gamut, for the whole document: converting back does not restore them.
    expect(hints('convert_to_cmyk')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('convert_to_rgb')).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(hints('verify_pattern_result')).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(
      tools
        .filter((t) => t.annotations?.readOnlyHint)
        .map((t) => t.name)
        .sort(),
    ).toEqual(Object.keys(READ_ONLY).sort());
  });

  it('a read-only tool changes nothing when called; the garment tools that are not change the session', async () => {
    const session = newSession(tempDir('atelier-annotations-'));
    const client = await inMemoryClient(session, 'annotations-test');
    await garmentDocument(session, 'zh');
    await session.workspace.writeAtomic('shirt.png', await garmentPhoto('fill'));

    const steps: [string, Record<string, unknown>][] = [
      ['set_garment_photo', { path: 'shirt.png' }],
      ['identify_pieces', {}],
      ['confirm_piece_parts', { pieces: [{ name: '前片', part: 'front' }] }],
      ['generate_garment_preview', {}],
    ];
    for (const [name, args] of steps) {
      const before = environment(session);
      expect(await callTool(client, name, args), name).toMatchObject({ isError: false });
      changedSessionOnly(before, environment(session));
    }
    const applied = await callTool(client, 'extract_and_apply_all_pieces', {
      pieces: ['前片', '后片', '左袖', '右袖', '领'].map((name) => ({ name, type: 'fill_pattern' })),
    });
    expect(applied.isError).toBe(false);
    expect((await callTool(client, 'save_document_as', { path: 'applied.psd' })).isError).toBe(false);

    for (const [name, args] of Object.entries(READ_ONLY)) {
      const before = environment(session);
      const r = await callTool(client, name, args);
      expect(r.isError, `${name}: ${JSON.stringify(r.json)}`).toBe(false);
      const after = environment(session);
      expect(after.docs, name).toHaveLength(before.docs.length);
      for (const [i, d] of after.docs.entries()) expect(d, name).toBe(before.docs[i]);
      expect([after.active, after.garmentPhoto, after.files], name).toEqual([
        before.active,
        before.garmentPhoto,
        before.files,
      ]);
      expect(after.garment, name).toBe(before.garment);
    }
  }, 120_000);

  it('get_layer_bounds, not listed read-only, makes the layer it names the one delete_layer deletes', async () => {
    const client = await inMemoryClient(newSession(), 'annotations-test');
    await callTool(client, 'create_document', { width: 40, height: 30 });
    await callTool(client, 'create_layer', { name: '标题' });
    await callTool(client, 'create_layer', { name: '色块' });
    const bounds = await callTool(client, 'get_layer_bounds', { name: '标题' });
    expect(bounds).toMatchObject({ isError: false, json: { ok: true, name: '标题' } });
    expect((await callTool(client, 'delete_layer')).isError).toBe(false);
    const { json } = await callTool(client, 'list_all_layer_names');
    expect((json.layers as { name: string }[]).map((l) => l.name)).toEqual(['色块', '背景']);
  });

  it('save_document_as, listed destructive, replaces a file already at the path', async () => {
    const ws = tempDir('atelier-annotations-');
    const session = newSession(ws);
    const client = await inMemoryClient(session, 'annotations-test');
    await session.workspace.writeAtomic('keep.png', await garmentPhoto('fill'));
    const before = readFileSync(join(ws, 'keep.png'));
    expect((await callTool(client, 'create_document', { width: 20, height: 10 })).isError).toBe(false);
    expect((await callTool(client, 'save_document_as', { path: 'keep.png' })).isError).toBe(false);
    expect(readFileSync(join(ws, 'keep.png')).equals(before)).toBe(false);
  });
});
