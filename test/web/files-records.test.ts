/**
 * The files pane after a chat, in real Chromium at 1280×800: the designer's own files come first, each name
 * showing what tells it apart (its end and extension, the middle given up, the whole name on hover), and the
 * session's own records — the transcript chat.jsonl and the images kept beside it — wait under a collapsed
 * "会话记录" heading, to download (the transcript is a bug report, replayable with `atelier run`), never to open.
 * The live transcript cannot be deleted alone: the next turn writes to it, and a restart rebuilds the conversation
 * from it. 清空对话记录 removes it with its images after a question, the documents and files kept, the chat empty.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, downloadedBytes, eventually, snapshot, textOf, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('files-records', { model: true });

const LONG = 'photo-allover-print-summer-collection-2026-final-v3.png';

async function put(id: string, name: string): Promise<void> {
  const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const res = await fetch(`${studio.url}/v1/sessions/${id}/files?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    body: png,
  });
  expect(res.status).toBe(201);
}

/** A session with a designer's PSD and photos, and one chat turn that kept a canvas capture beside chat.jsonl. */
/** A finished turn: its answer on screen and in the session's record (written when the turn ends, after the last text streamed). */
async function chattedSession(page: Page, id: string): Promise<void> {
  studio.model.push(
    {
      text: '我看一眼画布。',
      toolCalls: [{ id: 'v1', name: 'get_canvas_image', arguments: { max_size: 200 } }],
    },
    { text: '画布上是海报。' },
  );
  await page.getByRole('textbox', { name: '消息' }).fill('看看画布');
  await page.getByRole('button', { name: '发送' }).click();
  await eventually(textOf(page.getByRole('log').first())).toContain('画布上是海报。');
  // Until the turn's last line, written after its answer shows: a test reading the record before it would see
  // that line come.
  const record = path.join(studio.workspace, 'sessions', id, 'chat.jsonl');
  const lastLine = () =>
    existsSync(record) ? readFileSync(record, 'utf8').trimEnd().split('\n').at(-1)! : '';
  await eventually(lastLine).toContain('"event":"done"');
  expect(readFileSync(record, 'utf8')).toContain('画布上是海报。');
}

async function sessionWithFiles(): Promise<string> {
  const id = await createSession(studio.url);
  await put(id, LONG);
  await put(id, 'model.png');
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: 300, height: 200, name: '海报' }),
    toolCall('save_document', {}),
  ]);
  return id;
}

const filesList = (page: Page) => page.getByRole('list', { name: '会话文件' });
const records = (page: Page) => page.getByRole('group', { name: /^会话记录/ });

/**
 * The characters of the row's name that are on screen, in order: each inside every box that clips it, and not
 * under an ellipsis (drawn at the end of a box whose text overflows).
 */
function shownName(name: Locator): Promise<string> {
  return name.evaluate((root) => {
    // The tests' TypeScript has no DOM types: what is used of them.
    interface Rect {
      left: number;
      right: number;
      width: number;
    }
    interface Box {
      getBoundingClientRect(): Rect;
      parentElement: Box;
      scrollWidth: number;
      clientWidth: number;
    }
    interface Text {
      textContent: string;
      parentElement: Box;
    }
    const doc = (
      globalThis as unknown as {
        document: {
          createTreeWalker(root: unknown, show: number): { nextNode(): Text | null };
          createRange(): {
            setStart(node: Text, at: number): void;
            setEnd(node: Text, at: number): void;
            getBoundingClientRect(): Rect;
          };
        };
      }
    ).document;
    const view = globalThis as unknown as { getComputedStyle(e: Box): Record<string, string> };
    const walker = doc.createTreeWalker(root, 4 /* text */);
    let shown = '';
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent;
      for (let i = 0; i < text.length; i++) {
        const range = doc.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        let visible = r.width > 0;
        for (let box = node.parentElement; visible; box = box.parentElement) {
          const style = view.getComputedStyle(box);
          if (style.overflowX === 'hidden') {
            const b = box.getBoundingClientRect();
            const cut = style.textOverflow === 'ellipsis' && box.scrollWidth > box.clientWidth ? 10 : 0;
            visible = r.left >= b.left - 0.5 && r.right <= b.right - cut + 0.5;
          }
          if (box === root) break;
        }
        if (visible) shown += text[i];
      }
    }
    return shown;
  });
}

describe('the files pane after a chat', () => {
  it('lists the designer’s files first and the session’s records collapsed below, to download only', async () => {
    const id = await sessionWithFiles();
    // An MCP client's call, as the server records it beside the transcript.
    const call = { type: 'tool_call', id: 'mcp_1', name: 'list_layers', arguments: {} };
    const result = { type: 'tool_result', id: 'mcp_1', name: 'list_layers', ok: true, result: { ok: true } };
    writeFileSync(
      path.join(studio.workspace, 'sessions', id, 'mcp-calls.jsonl'),
      `${JSON.stringify(call)}\n${JSON.stringify(result)}\n`,
    );
    const page = await studio.open(id, 1280, 800);
    await chattedSession(page, id);
    await page.getByRole('tab', { name: '文件' }).click();
    const list = filesList(page);
    await eventually(textOf(list)).toContain('海报.psd');
    const dir = path.join(studio.workspace, 'sessions', id);
    expect(existsSync(path.join(dir, 'chat.jsonl'))).toBe(true);
    await snapshot(page, 'files-records-collapsed');

    // The designer's files, and only theirs, in the first list.
    expect(
      await list.locator('.file-name').evaluateAll((els) => els.map((e) => e.getAttribute('title'))),
    ).toEqual(['model.png', LONG, '海报.psd']);

    // The records wait below, collapsed: a heading that says how many, nothing of them shown.
    const group = records(page);
    await eventually(visibleOf(group)).toBe(true);
    const heading = group.locator('summary');
    expect(await textOf(heading)()).toMatch(/^会话记录（3）/);
    const recordList = page.getByRole('list', { name: '会话记录' });
    expect(await recordList.isVisible()).toBe(false);

    // Opened: the transcript, the MCP calls and the kept image, each to download; nothing to open, and the
    // live records have no bin.
    await heading.click();
    await eventually(visibleOf(recordList)).toBe(true);
    await snapshot(page, 'files-records-open');
    const rows = recordList.getByRole('listitem');
    expect(await countOf(rows)()).toBe(3);
    expect(await textOf(rows.nth(0))()).toContain('chat.jsonl');
    expect(await textOf(rows.nth(1))()).toContain('mcp-calls.jsonl');
    expect(await textOf(rows.nth(2))()).toMatch(/chat-images\/[0-9a-f]{32}\.png/);
    expect(await countOf(recordList.getByRole('button', { name: /^打开 / }))()).toBe(0);
    expect(await countOf(recordList.getByRole('button', { name: /^下载 / }))()).toBe(3);
    expect(await countOf(rows.nth(0).getByRole('button', { name: /^删除 / }))()).toBe(0);
    expect(await countOf(rows.nth(1).getByRole('button', { name: /^删除 / }))()).toBe(0);
    expect(await countOf(rows.nth(2).getByRole('button', { name: /^删除 / }))()).toBe(1);
    expect(await textOf(group)()).toContain('atelier run chat.jsonl');

    // Downloading the transcript hands over the whole conversation.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      recordList.getByRole('button', { name: '下载 chat.jsonl' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('chat.jsonl');
    const saved = (await downloadedBytes(download)).toString('utf8');
    expect(saved).toBe(readFileSync(path.join(dir, 'chat.jsonl'), 'utf8'));
    expect(saved).toContain('get_canvas_image');
  });

  it('refuses to delete the live transcript, in Chinese, and the chat goes on with it whole', async () => {
    const id = await sessionWithFiles();
    const page = await studio.open(id, 1280, 800);
    await chattedSession(page, id);
    const dir = path.join(studio.workspace, 'sessions', id);
    const before = readFileSync(path.join(dir, 'chat.jsonl'), 'utf8');

    for (const name of ['chat.jsonl', '.%2Fchat.jsonl', 'sub%2F..%2Fchat.jsonl']) {
      const res = await fetch(`${studio.url}/v1/sessions/${id}/files/${name}`, { method: 'DELETE' });
      expect(res.status).toBe(409);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('conflict');
      expect(body.error.message).toContain('“chat.jsonl”是本会话的对话记录');
    }
    expect(readFileSync(path.join(dir, 'chat.jsonl'), 'utf8')).toBe(before);

    // The next turn continues the same record: the earlier turn is still in it.
    studio.model.push({ text: '好的。' });
    await page.getByRole('textbox', { name: '消息' }).fill('继续');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(page.getByRole('log').first())).toContain('好的。');
    await eventually(() => readFileSync(path.join(dir, 'chat.jsonl'), 'utf8')).toContain('好的。');
    expect(readFileSync(path.join(dir, 'chat.jsonl'), 'utf8').startsWith(before)).toBe(true);

    // A kept image may go (to make room): its card just shows no picture after a reload.
    await page.getByRole('tab', { name: '文件' }).click();
    await records(page).locator('summary').click();
    const kept = page
      .getByRole('list', { name: '会话记录' })
      .getByRole('button', { name: /^删除 chat-images\// });
    await eventually(countOf(kept)).toBe(1);
    await kept.click();
    await page.getByRole('dialog').getByRole('button', { name: '删除', exact: true }).click();
    await eventually(textOf(records(page).locator('summary'))).toMatch(/^会话记录（1）/);
  });

  it('clears the conversation after asking, keeping the documents and files, and the chat starts empty', async () => {
    const id = await sessionWithFiles();
    const page = await studio.open(id, 1280, 800);
    await chattedSession(page, id);
    const dir = path.join(studio.workspace, 'sessions', id);
    const feed = page.getByRole('log', { name: '对话记录' });
    await page.getByRole('tab', { name: '文件' }).click();
    await records(page).locator('summary').click();
    const button = records(page).getByRole('button', { name: /^清空对话记录（[\d.]+ (KB|MB|B)）$/ });
    await eventually(visibleOf(button)).toBe(true);

    // Asked first, saying what goes and what stays; 取消 changes nothing.
    await button.click();
    const dialog = page.getByRole('dialog');
    await eventually(textOf(dialog)).toContain('要清空本会话的对话记录吗？');
    expect(await textOf(dialog)()).toContain('1 张图像');
    expect(await textOf(dialog)()).toContain('文档、上传和保存的文件都保留');
    await snapshot(page, 'files-records-clear-ask');
    await dialog.getByRole('button', { name: '取消' }).click();
    expect(existsSync(path.join(dir, 'chat.jsonl'))).toBe(true);
    expect(await textOf(feed)()).toContain('画布上是海报。');

    await button.click();
    await dialog.getByRole('button', { name: '清空', exact: true }).click();
    await eventually(countOf(records(page))).toBe(0);
    expect(existsSync(path.join(dir, 'chat.jsonl'))).toBe(false);
    expect(await countOf(feed.getByRole('article'))()).toBe(0);
    expect(await textOf(feed)()).not.toContain('画布上是海报。');
    expect(await textOf(feed)()).toContain('对话记录已清空：文档、图层、历史记录和文件都在');
    // The designer's files and the open document are all still there.
    expect(
      await filesList(page)
        .locator('.file-name')
        .evaluateAll((els) => els.map((e) => e.getAttribute('title'))),
    ).toEqual(['model.png', LONG, '海报.psd']);
    expect(await textOf(page.getByRole('tablist', { name: '文档' }))()).toContain('海报');
    await snapshot(page, 'files-records-cleared');

    // A reload shows the empty conversation, and the next message starts a new one.
    await page.reload();
    await eventually(textOf(page.getByRole('tablist', { name: '文档' }))).toContain('海报');
    expect(await textOf(feed)()).not.toContain('画布上是海报。');
    studio.model.push({ text: '新的对话开始了。' });
    await page.getByRole('textbox', { name: '消息' }).fill('你好');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(feed)).toContain('新的对话开始了。');
    expect(await textOf(feed)()).not.toContain('看看画布');
  });

  it('shows a long name’s end and extension, cutting its middle, with the whole name on hover', async () => {
    const id = await sessionWithFiles();
    const page = await studio.open(id, 1280, 800);
    await page.getByRole('tab', { name: '文件' }).click();
    const row = filesList(page).locator('.file-name', { hasText: 'photo-allover' });
    await eventually(countOf(row)).toBe(1);
    await snapshot(page, 'files-records-long-name');
    expect(await row.getAttribute('title')).toBe(LONG);
    const shown = await shownName(row);
    // Cut (the pane is narrower than the name), but from the middle: its start and its end are both there.
    expect(shown.length).toBeLessThan(LONG.length);
    expect(shown.startsWith('phot')).toBe(true);
    expect(shown.endsWith('final-v3.png')).toBe(true);
    // The whole name is still the row's text (found, copied, read out).
    expect(await textOf(row)()).toBe(LONG);
  });

  it('cuts a long Chinese name in its middle too, keeping its end and extension', async () => {
    const id = await createSession(studio.url);
    const chinese = '春季女装连衣裙前片满印花样最终定稿第三版.png';
    await put(id, chinese);
    const page = await studio.open(id, 1280, 800);
    await page.getByRole('tab', { name: '文件' }).click();
    const row = filesList(page).locator('.file-name', { hasText: '春季' });
    await eventually(countOf(row)).toBe(1);
    const shown = await shownName(row);
    expect(shown.length).toBeLessThan(chinese.length);
    expect(shown.startsWith('春季')).toBe(true);
    // Four characters of its end, as wide as eight Latin letters, beside the extension.
    expect(shown.endsWith('定稿第三版.png') || shown.endsWith('稿第三版.png')).toBe(true);
    await snapshot(page, 'files-records-long-chinese-name');
  });
});
