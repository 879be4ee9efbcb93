/**
 * A conversation rebuilt from its transcript: written by one Conversation, read back by another (as after a
 * restart), and transcripts a crash cut short — a last line half-written, a tool call with no answer — made
 * consistent, so the next request to the model carries every earlier turn with every call answered.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Conversation } from '../../src/agent/conversation.js';
import { keepImages, readKeptImage } from '../../src/agent/kept-images.js';
import { rebuildConversation, restoreConversation } from '../../src/agent/restore.js';
import type { TranscriptImage } from '../../src/agent/transcript.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { newSession, tempDir } from '../support/session.js';
import { conversation, expectEveryCallAnswered, last, modelConfig, turn } from './support.js';

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const noErrors = (err: unknown) => {
  throw err;
};

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** One finished turn with two tool calls, written by a first Conversation; returns its transcript. */
async function firstTurn(vision = false): Promise<{ dir: string; transcript: string }> {
  model = await startScriptedModel([
    {
      toolCalls: [
        { id: 'c1', name: 'create_document', arguments: { width: 48, height: 32, name: '海报' } },
        { id: 'c2', name: 'get_canvas_image', arguments: { max_size: 48 } },
      ],
    },
    { text: '建好了。' },
  ]);
  const dir = tempDir();
  const transcript = join(dir, 'chat.jsonl');
  const conv = new Conversation({
    session: newSession(dir),
    config: modelConfig(model.url, { vision }),
    transcript,
    keepImages: true,
    onInternalError: noErrors,
  });
  expect(last(await turn(conv, '新建海报'))).toMatchObject({ type: 'done' });
  return { dir, transcript };
}

/** A second Conversation on the restored transcript; runs one turn and returns the request the model got. */
async function nextTurn(transcript: string, vision = false) {
  const restored = await restoreConversation(transcript, { vision, imagesSent: 4, onError: noErrors });
  expect(restored).not.toBeNull();
  model!.push({ text: '好的。' });
  const conv = new Conversation({
    session: newSession(),
    config: modelConfig(model!.url, { vision }),
    transcript,
    restored: restored!,
    onInternalError: noErrors,
  });
  expect(last(await turn(conv, '再加一个图层'))).toMatchObject({ type: 'done' });
  return { restored: restored!, messages: last(model!.requests).body.messages };
}

describe('a conversation restored from its transcript', () => {
  it('sends the model the earlier turn again: user, assistant tool_calls, tool answers by id, reply', async () => {
    const { transcript } = await firstTurn();
    const { restored, messages } = await nextTurn(transcript);
    expect(messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
    ]);
    expect(messages[1]!.content).toMatch(/^新建海报\n\n【会话状态】/);
    expect((messages[2]!.tool_calls as { id: string }[]).map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(messages.slice(3, 5).map((m) => m.tool_call_id)).toEqual(['c1', 'c2']);
    expect(JSON.parse(messages[3]!.content as string)).toMatchObject({
      ok: true,
      document: { name: '海报' },
    });
    expect(messages[5]!.content).toBe('建好了。');
    expect(messages[6]!.content).toMatch(/^再加一个图层/);
    expectEveryCallAnswered(messages as never);
    expect(restored.repairs).toEqual([]);
    // The studio's view of it: what was said and the two cards with their labels and results.
    expect(restored.events.map((e) => e.type)).toEqual([
      'user',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'assistant',
      'done',
    ]);
    // When the turn started comes back with it, and is not sent to the model.
    expect(restored.events[0]).toEqual({ type: 'user', text: '新建海报', at: expect.any(Number) });
    expect(lines(transcript).find((l) => l.role === 'user')!.at).toBe(
      (restored.events[0] as { at?: number }).at,
    );
    expect(messages.every((m) => !('at' in m))).toBe(true);
    expect(restored.events[1]).toMatchObject({ id: 'c1', label: '新建文档', arguments: { width: 48 } });
    expect(restored.events[4]).toMatchObject({ id: 'c2', ok: true, images: [{ mime: 'image/png' }] });
    // One opening line: the continued conversation writes no second system prompt.
    expect(lines(transcript).filter((l) => l.role === 'system')).toHaveLength(1);
  });

  it('shows a vision model the kept image again, or says in words that it is gone', async () => {
    const { dir, transcript } = await firstTurn(true);
    const { messages } = await nextTurn(transcript, true);
    const shown = messages[5]!;
    expect(shown.role).toBe('user');
    expect(JSON.stringify(shown.content)).toContain('data:image/jpeg;base64,');

    const kept = lines(transcript).find((l) => l.role === 'tool' && l.images) as {
      images: TranscriptImage[];
    };
    // Kept with both captions: the studio shows the English one in its English mode after a restart too.
    const image = await readKeptImage(dir, kept.images[0]!);
    expect(image).toMatchObject({ caption: '“海报”画布 48×32', captionEn: 'Canvas of “海报”, 48×32' });
    writeFileSync(join(dir, kept.images[0]!.file), 'gone');
    const again = await restoreConversation(transcript, { vision: true, imagesSent: 4, onError: noErrors });
    const parts = JSON.stringify(again!.turns[0]);
    expect(parts).not.toContain('data:image');
    expect(parts).toContain('无法恢复');
  });

  it('keeps a picture’s English rendition beside it, and does without it when it is gone', async () => {
    const dir = tempDir('atelier-kept-en-');
    const png = (byte: number) => Buffer.from([0x89, 0x50, 0x4e, 0x47, byte]).toString('base64');
    const [kept] = await keepImages(dir, [
      {
        mime: 'image/png',
        base64: png(1),
        caption: '裁片识别结果',
        captionEn: 'Pieces identified',
        base64En: png(2),
      },
    ]);
    expect(kept!.file_en).toMatch(/^chat-images\/[0-9a-f]{32}\.png$/);
    expect(kept!.file_en).not.toBe(kept!.file);
    expect(await readKeptImage(dir, kept!)).toMatchObject({ base64: png(1), base64En: png(2) });
    // A transcript line naming a file that is not one keepImages gives is not followed.
    const strange = await readKeptImage(dir, { ...kept!, file_en: '../../etc/passwd' });
    expect(strange).toMatchObject({ base64: png(1) });
    expect(strange).not.toHaveProperty('base64En');
    rmSync(join(dir, kept!.file_en!));
    expect(await readKeptImage(dir, kept!)).not.toHaveProperty('base64En');
  });

  it('recovers a transcript whose last line a crash cut mid-line', async () => {
    const { transcript } = await firstTurn();
    appendFileSync(transcript, '{"role":"user","content":"做一张');
    const { restored, messages } = await nextTurn(transcript);
    expect(restored.cut).toBe(true);
    expectEveryCallAnswered(messages as never);
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(2);
    // The file is whole again: every line JSON, the next turn on lines of its own.
    expect(lines(transcript).at(-1)).toMatchObject({ event: 'done' });
    expect(lines(transcript).filter((l) => l.role === 'user')).toHaveLength(2);
  });

  it('answers a tool call a crash left without its answer, and closes the turn', async () => {
    const { transcript } = await firstTurn();
    const calls = [
      { id: 'x1', type: 'function', function: { name: 'create_layer', arguments: '{"name":"甲"}' } },
      { id: 'x2', type: 'function', function: { name: 'create_layer', arguments: '{"name":"乙"}' } },
    ];
    appendFileSync(
      transcript,
      [
        { role: 'user', content: '加两个图层' },
        { role: 'assistant', content: null, tool_calls: calls },
        { role: 'tool', tool_call_id: 'x1', name: 'create_layer', content: '{"ok":true}' },
      ]
        .map((l) => `${JSON.stringify(l)}\n`)
        .join(''),
    );
    const { restored, messages } = await nextTurn(transcript);
    expectEveryCallAnswered(messages as never);
    // A turn written without its start (a transcript from before turns said it) comes back without one.
    const turns = restored.events.filter((e) => e.type === 'user');
    expect(turns).toEqual([
      { type: 'user', text: '新建海报', at: expect.any(Number) },
      { type: 'user', text: '加两个图层' },
    ]);
    const x2 = messages.find((m) => m.tool_call_id === 'x2')!;
    expect(JSON.parse(x2.content as string).error.code).toBe('interrupted');
    expect(
      restored.events.slice(-5).map((e) => [e.type, 'id' in e ? e.id : 'code' in e ? e.code : '']),
    ).toEqual([
      ['tool_call', 'x1'],
      ['tool_result', 'x1'],
      ['tool_call', 'x2'],
      ['tool_result', 'x2'],
      ['error', 'interrupted'],
    ]);
    // Written down too, so the next restore finds the transcript whole and `atelier run` skips x2.
    const written = lines(transcript);
    const answer = written.find((l) => l.tool_call_id === 'x2')!;
    expect(answer).toMatchObject({ role: 'tool', not_run: true });
    expect(written.filter((l) => l.event === 'error' && l.code === 'interrupted')).toHaveLength(1);
    const again = await restoreConversation(transcript, { vision: false, imagesSent: 4, onError: noErrors });
    expect(again!.repairs).toEqual([]);
  });

  it('never sends a tool answer that no call asked for, nor a call that a later line left unanswered', () => {
    const rebuilt = rebuildConversation(
      [
        { role: 'tool', tool_call_id: 'stray', name: 'x', content: '{}' },
        { role: 'user', content: '一' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'undo', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'zzz', name: 'x', content: '{}' },
        { role: 'user', content: '二' },
        { event: 'done', steps: 1 },
      ],
      { vision: false },
    );
    const flat = rebuilt.turns.flat();
    expect(flat.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(flat[2]).toMatchObject({ tool_call_id: 'a' });
    expectEveryCallAnswered(flat as never);
    // The first turn never ended: the studio sees it interrupted; only the end of the file is written down.
    expect(rebuilt.events.map((e) => e.type)).toEqual([
      'user',
      'tool_call',
      'tool_result',
      'error',
      'user',
      'done',
    ]);
    expect(rebuilt.repairs).toEqual([]);
  });
});

describe('a conversation without a transcript', () => {
  it('is restored as nothing', async () => {
    expect(
      await restoreConversation(join(tempDir(), 'chat.jsonl'), {
        vision: false,
        imagesSent: 4,
        onError: noErrors,
      }),
    ).toBeNull();
  });

  it('keeps no images unless asked to', async () => {
    model = await startScriptedModel([
      { toolCalls: [{ id: 'c', name: 'create_document', arguments: { width: 8, height: 8 } }] },
      { toolCalls: [{ id: 'd', name: 'get_canvas_image', arguments: {} }] },
      { text: '好' },
    ]);
    const dir = tempDir();
    const transcript = join(dir, 'chat.jsonl');
    await turn(conversation(newSession(dir), modelConfig(model.url), { transcript }), '看看');
    expect(lines(transcript).some((l) => 'images' in l)).toBe(false);
  });
});
