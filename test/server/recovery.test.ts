/**
 * Crash-safe sessions end to end: the real binary (dist/, built by the test command) killed with SIGKILL in the
 * middle of a session, and the session answered again — by a second process on the same workspace, then by a
 * fresh start — with every document, its history and the garment state as after the last call.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../src/calls/snapshot.js';
import { crash, serveCli } from '../support/cli.js';
import { DOC, garmentPhoto, NAMES, piecePng } from '../support/garment-fixtures.js';
import { tempDir, withoutThumbnailKeys } from '../support/session.js';
import { createSession, layerNodes, okCalls, sendCalls, toolCall } from './support.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const serve = (workspace: string) => serveCli(workspace, children);

async function upload(url: string, id: string, name: string, data: Buffer, role = ''): Promise<void> {
  const res = await fetch(`${url}/v1/sessions/${id}/files?name=${encodeURIComponent(name)}${role}`, {
    method: 'POST',
    body: new Uint8Array(data),
  });
  expect(res.status).toBe(201);
}

/**
 * Everything a user can see of the session: its state (history, layers, garment), every document's pixels and
 * the active document's layer thumbnails (by layer id; their keys are the process's own, so left out of the state).
 */
async function fingerprint(url: string, id: string): Promise<Record<string, unknown>> {
  const info = await (await fetch(`${url}/v1/sessions/${id}`)).json();
  const renders: Record<string, string> = {};
  for (const doc of (info as { documents: { name: string }[] }).documents) {
    const res = await fetch(
      `${url}/v1/sessions/${id}/documents/${encodeURIComponent(doc.name)}/render.png?max=2000`,
    );
    expect(res.status).toBe(200);
    renders[doc.name] = createHash('sha256')
      .update(new Uint8Array(await res.arrayBuffer()))
      .digest('hex');
  }
  const state = (await (await fetch(`${url}/v1/sessions/${id}/state`)).json()) as SessionSnapshot;
  const thumbnails: Record<number, string> = {};
  const active = state.active;
  for (const layer of layerNodes(active?.layers ?? []).filter((n) => n.thumbnail)) {
    const res = await fetch(
      `${url}/v1/sessions/${id}/documents/${encodeURIComponent(active!.name)}/layers/${layer.id}/thumbnail.png`,
    );
    expect(res.status).toBe(200);
    thumbnails[layer.id] = createHash('sha256')
      .update(new Uint8Array(await res.arrayBuffer()))
      .digest('hex');
  }
  const { idle_timeout_seconds: _, ...described } = info as Record<string, unknown>;
  return { described, state: withoutThumbnailKeys(state), renders, thumbnails };
}

/** A session with two documents (text, a mask, a selection fill), and a pattern document with its garment state. */
async function buildSession(url: string): Promise<string> {
  const id = await createSession(url);
  for (const key of ['back', 'right', 'front', 'collar', 'left'] as const) {
    await upload(url, id, `piece-${key}.png`, await piecePng(key));
  }
  await upload(url, id, 'shirt.png', await garmentPhoto('fill'), '&role=garment');
  await okCalls(url, id, [
    toolCall('create_document', { width: 200, height: 120, name: '海报' }),
    toolCall('create_text_layer', { text: '春季新品', x: 10, y: 10, font_size: 28, color: '#c0392b' }),
    toolCall('create_layer', { name: '色块' }),
    toolCall('select_rect', { left: 0, top: 60, right: 200, bottom: 120 }),
    toolCall('fill_selection', { color: '#f4d03f', opacity: 80 }),
    toolCall('select_rect', { left: 0, top: 80, right: 120, bottom: 120 }),
    toolCall('add_layer_mask', { name: '色块' }),
    toolCall('set_layer_blend_mode', { name: '色块', mode: 'multiply' }),
    toolCall('create_document', { width: DOC.width, height: DOC.height, resolution: DOC.dpi, name: '裁片' }),
    ...(['back', 'right', 'front', 'collar', 'left'] as const).map((key) =>
      toolCall('place_image', { path: `piece-${key}.png`, name: NAMES.zh[key] }),
    ),
    toolCall('identify_pieces'),
    toolCall('generate_garment_preview'),
  ]);
  return id;
}

describe('crash-safe sessions (the real server, kill -9)', () => {
  it('a second process on the same workspace takes the session over when the first is killed', async () => {
    const workspace = tempDir('atelier-recovery-');
    const a = await serve(workspace);
    const b = await serve(workspace);
    const id = await buildSession(a.url);
    const before = await fingerprint(a.url, id);
    expect(before.state).toMatchObject({
      garment: { photo: 'shirt.png', previewed: true },
      active: { name: '裁片' },
    });
    expect((before.state as { garment: { pieces: unknown[] } }).garment.pieces).toHaveLength(5);

    // While the first process lives, the second does not serve its session (one journal, one writer).
    const refused = await fetch(`${b.url}/v1/sessions/${id}`);
    expect(refused.status).toBe(409);

    await crash(a.child);
    expect(await fingerprint(b.url, id)).toEqual(before);

    // Work goes on where it stopped: the garment state is there (apply needs the preview), undo walks history.
    await okCalls(b.url, id, [
      toolCall('extract_and_apply_all_pieces', { pieces: [{ name: '前片', type: 'fill_pattern' }] }),
    ]);
    const applied = (await (await fetch(`${b.url}/v1/sessions/${id}/state`)).json()) as {
      active: { history: { labels: string[]; index: number } };
      garment: { applied: boolean };
    };
    expect(applied.garment.applied).toBe(true);
    const { results } = await sendCalls(b.url, id, [toolCall('undo', { steps: 1 })]);
    expect(results[0]).toMatchObject({ ok: true });
    const undone = (await (await fetch(`${b.url}/v1/sessions/${id}/state`)).json()) as typeof applied;
    expect(undone.active.history.index).toBe(applied.active.history.index - 1);
    expect((await fingerprint(b.url, id)).renders).toEqual(before.renders);
  });

  it('a restarted server brings every session back as after its last completed call', async () => {
    const workspace = tempDir('atelier-recovery-');
    const first = await serve(workspace);
    const id = await buildSession(first.url);
    const other = await createSession(first.url);
    await okCalls(first.url, other, [
      toolCall('create_document', { width: 40, height: 40, name: '另一个' }),
      toolCall('create_layer', { name: '甲' }),
      toolCall('undo', { steps: 1 }),
    ]);
    const before = await fingerprint(first.url, id);
    const otherBefore = await fingerprint(first.url, other);
    await crash(first.child);

    const second = await serve(workspace);
    expect(await fingerprint(second.url, id)).toEqual(before);
    expect(await fingerprint(second.url, other)).toEqual(otherBefore);
    // The step undone before the crash can still be redone.
    await okCalls(second.url, other, [toolCall('redo', { steps: 1 })]);
    const state = (await (await fetch(`${second.url}/v1/sessions/${other}/state`)).json()) as {
      active: { layers: { name: string }[] };
    };
    expect(state.active.layers.map((l) => l.name)).toContain('甲');

    // A deleted session stays deleted, across restarts too.
    expect((await fetch(`${second.url}/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    await crash(second.child);
    const third = await serve(workspace);
    expect((await fetch(`${third.url}/v1/sessions/${id}`)).status).toBe(404);
    expect((await fetch(`${third.url}/v1/sessions/${other}`)).status).toBe(200);
  });
});
