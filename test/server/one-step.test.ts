/**
 * `one_step`: the calls of one request as one gesture — a property set on several selected layers is one history
 * step per document, undone at once, as in Photoshop — over the plain and the streamed route, and the same steps
 * after the server is killed and its journal replayed.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../src/calls/snapshot.js';
import { crash, serveCli } from '../support/cli.js';
import { tempDir } from '../support/session.js';
import {
  createSession,
  errorOf,
  events,
  layerNodes,
  okCalls,
  startTestServer,
  type TestServer,
  toolCall,
} from './support.js';

async function stateOf(url: string, id: string): Promise<SessionSnapshot> {
  return (await (await fetch(`${url}/v1/sessions/${id}/state`)).json()) as SessionSnapshot;
}

async function send(url: string, id: string, body: unknown, stream = false): Promise<Response> {
  return fetch(`${url}/v1/sessions/${id}/tool-calls${stream ? '?stream=1' : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const LAYERS = ['甲', '乙', '丙'];

/** A document with three layers, the history as it stands, and the calls setting them all to `opacity`. */
async function threeLayers(url: string): Promise<{ id: string; steps: number }> {
  const id = await createSession(url);
  await okCalls(url, id, [
    toolCall('create_document', { width: 40, height: 30, name: '三层' }),
    ...LAYERS.map((name) => toolCall('create_layer', { name })),
  ]);
  return { id, steps: (await stateOf(url, id)).active!.history.labels.length };
}

const opacityCalls = (opacity: number) => [
  ...LAYERS.map((name, i) => toolCall('set_layer_opacity', { name, opacity }, `op_${i}`)),
  // The studio puts the layer selection back after the change, in the same request: no step of its own.
  toolCall('select_layers', { names: LAYERS }, 'keep'),
];

const opacities = async (url: string, id: string) =>
  layerNodes((await stateOf(url, id)).active!.layers)
    .filter((l) => LAYERS.includes(l.name))
    .map((l) => l.opacity);

describe('one_step: a gesture of several calls is one history step', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('three layers set in one request: one step, labelled as the tool, undone at once', async () => {
    const { id, steps } = await threeLayers(server.url);
    await okCalls(server.url, id, [toolCall('save_document_as', { path: '三层.psd' })]);
    expect((await stateOf(server.url, id)).active!.unsaved_changes).toBe(false);
    const res = await send(server.url, id, { one_step: true, tool_calls: opacityCalls(40) });
    expect(res.status).toBe(200);
    const state = await stateOf(server.url, id);
    expect(state.active!.history.labels).toHaveLength(steps + 1);
    expect(state.active!.history.labels.at(-1)).toBe('设置透明度');
    expect(await opacities(server.url, id)).toEqual([40, 40, 40]);
    expect(state.active!.unsaved_changes).toBe(true);

    // Undone, the document is as saved again.
    await okCalls(server.url, id, [toolCall('undo', { steps: 1 })]);
    expect(await opacities(server.url, id)).toEqual([100, 100, 100]);
    expect((await stateOf(server.url, id)).active!.unsaved_changes).toBe(false);
    await okCalls(server.url, id, [toolCall('redo', { steps: 1 })]);
    expect(await opacities(server.url, id)).toEqual([40, 40, 40]);

    // Without it, each call is a step, as before; a later gesture starts a step of its own.
    await okCalls(server.url, id, opacityCalls(70));
    expect((await stateOf(server.url, id)).active!.history.labels).toHaveLength(steps + 4);
    expect((await send(server.url, id, { one_step: true, tool_calls: opacityCalls(20) })).status).toBe(200);
    const after = await stateOf(server.url, id);
    expect(after.active!.history.labels).toHaveLength(steps + 5);
    await okCalls(server.url, id, [toolCall('undo', { steps: 1 })]);
    expect(await opacities(server.url, id)).toEqual([70, 70, 70]);
  });

  it('streamed, the same; an undo inside the gesture ends its step', async () => {
    const { id, steps } = await threeLayers(server.url);
    const res = await send(server.url, id, { one_step: true, tool_calls: opacityCalls(50) }, true);
    expect(res.status).toBe(200);
    const results = [];
    for await (const e of events(res)) if (e.type === 'tool_result') results.push(e.ok);
    expect(results).toEqual([true, true, true, true]);
    expect((await stateOf(server.url, id)).active!.history.labels).toHaveLength(steps + 1);

    // After an undo the current step is not the gesture's: the next change is a step of its own.
    const undone = await send(server.url, id, {
      one_step: true,
      tool_calls: [
        toolCall('set_layer_opacity', { name: '甲', opacity: 10 }, 'a'),
        toolCall('undo', { steps: 1 }, 'u'),
        toolCall('set_layer_opacity', { name: '乙', opacity: 30 }, 'b'),
      ],
    });
    expect(undone.status).toBe(200);
    const state = await stateOf(server.url, id);
    expect(state.active!.history.labels).toHaveLength(steps + 2);
    expect(await opacities(server.url, id)).toEqual([50, 30, 50]);
    await okCalls(server.url, id, [toolCall('undo', { steps: 1 })]);
    expect(await opacities(server.url, id)).toEqual([50, 50, 50]);
  });

  it('refuses a one_step that is neither a boolean nor a gesture id, running nothing', async () => {
    const { id, steps } = await threeLayers(server.url);
    for (const oneStep of ['not an id!', 'x'.repeat(65), '', 3, { id: 'g' }]) {
      const res = await send(server.url, id, { one_step: oneStep, tool_calls: opacityCalls(40) });
      expect(res.status, JSON.stringify(oneStep)).toBe(400);
      expect((await errorOf(res)).message).toContain('one_step');
    }
    expect((await stateOf(server.url, id)).active!.history.labels).toHaveLength(steps);
    expect(await opacities(server.url, id)).toEqual([100, 100, 100]);
  });

  it('a gesture id shared by requests sent one after the other: one step; another id, or none, a step of its own', async () => {
    const { id, steps } = await threeLayers(server.url);
    // The studio's centred point text: made, then aligned by the name the first answer gave.
    const made = await send(server.url, id, {
      one_step: 'text-1',
      tool_calls: [toolCall('create_text_layer', { text: '标题', x: 20, y: 20, font_size: 12 }, 'make')],
    });
    expect(made.status).toBe(200);
    const aligned = await send(server.url, id, {
      one_step: 'text-1',
      tool_calls: [toolCall('set_text_alignment', { name: '标题', alignment: 'center' }, 'align')],
    });
    expect(aligned.status).toBe(200);
    const labels = async () => (await stateOf(server.url, id)).active!.history.labels.slice(steps);
    expect(await labels()).toEqual(['创建文字']);
    // One undo takes the text away, aligned or not.
    await okCalls(server.url, id, [toolCall('undo', { steps: 1 })]);
    expect(layerNodes((await stateOf(server.url, id)).active!.layers).map((l) => l.name)).not.toContain(
      '标题',
    );
    await okCalls(server.url, id, [toolCall('redo', { steps: 1 })]);

    // Another id starts a step of its own; so does the same id after a call outside it.
    await send(server.url, id, { one_step: 'op-2', tool_calls: opacityCalls(60) });
    await okCalls(server.url, id, [toolCall('set_layer_opacity', { name: '甲', opacity: 30 })]);
    await send(server.url, id, { one_step: 'op-2', tool_calls: opacityCalls(20) });
    expect(await labels()).toEqual(['创建文字', '设置透明度', '设置透明度', '设置透明度']);
  });
});

describe('one_step across a crash (the real server, kill -9)', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('the journal replays the gesture into the same single step', async () => {
    const workspace = tempDir('atelier-one-step-');
    const first = await serveCli(workspace, children);
    const { id, steps } = await threeLayers(first.url);
    expect((await send(first.url, id, { one_step: true, tool_calls: opacityCalls(40) })).status).toBe(200);
    const before = await stateOf(first.url, id);
    expect(before.active!.history.labels).toHaveLength(steps + 1);
    await crash(first.child);

    const second = await serveCli(workspace, children);
    const after = await stateOf(second.url, id);
    expect(after.active!.history).toEqual(before.active!.history);
    expect(await opacities(second.url, id)).toEqual([40, 40, 40]);
    await okCalls(second.url, id, [toolCall('undo', { steps: 1 })]);
    expect(await opacities(second.url, id)).toEqual([100, 100, 100]);
  });
});
