/**
 * Two studios on one session (two tabs, or two designers), in real Chromium: what one does, the other shows
 * without a reload — a tool run, an undo and a redo, a chat turn as the model streams it, an upload and the
 * document it opens, the document closed, the conversation cleared — pushed by the session's event stream
 * (`GET /v1/sessions/:id/events`). The second page is made to read as hidden, so that the panes' own catching
 * up (every 10 s while a tab is in view) cannot be what brings the change: only a pushed event does.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, snapshot, textOf, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('two-tabs', { model: true });

/** Soon: well within the 10 s after which a tab in view would have caught up by itself. */
const soon = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 5_000, interval: 100 });

/**
 * Opens the second studio, once its event stream is listening (after a reload: what it showed first, `shown`
 * waits for, it keeps), then has it read as hidden, so that its own catching up is off. No visibilitychange is
 * sent: a tab goes on listening for a while after it was hidden (tabs-away.test.ts), the tests here take less.
 */
async function openWatcher(id: string, shown?: (page: Page) => Promise<void>): Promise<Page> {
  const page = await studio.open(id);
  await shown?.(page);
  await studio.reloadListening(page);
  await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: object }).document;
    Object.defineProperty(doc, 'visibilityState', { get: () => 'hidden', configurable: true });
  });
  return page;
}

const feedOf = (page: Page) => page.getByRole('log', { name: '对话记录' });
const cards = (page: Page, label: string) => feedOf(page).getByRole('article').filter({ hasText: label });
const historyStep = (page: Page) =>
  page.getByRole('list', { name: '历史步骤' }).locator('[aria-current="step"]');
const docTabs = (page: Page) => page.getByRole('tablist', { name: '文档' });

describe('two studios on one session', () => {
  it('shows a tool run, an undo and a redo made in the other at once, without its quiet steps', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '双窗' }),
      toolCall('create_layer', { name: '色块' }),
    ]);
    const a = await studio.open(id);
    const b = await openWatcher(id);
    for (const page of [a, b]) await page.getByRole('tab', { name: '历史记录' }).click();
    await eventually(textOf(historyStep(b))).toContain('新建图层');

    // An undo clicked in the history of A: B's history moves back, and B's feed has A's card.
    await a
      .getByRole('list', { name: '历史步骤' })
      .getByRole('button', { name: /新建文档/ })
      .click();
    await soon(textOf(historyStep(b))).toContain('新建文档');
    await soon(countOf(cards(b, '撤销'))).toBe(1);
    // And the redo.
    await a
      .getByRole('list', { name: '历史步骤' })
      .getByRole('button', { name: /新建图层/ })
      .click();
    await soon(textOf(historyStep(b))).toContain('新建图层');
    await soon(countOf(cards(b, '重做'))).toBe(1);

    // A change in A's layers pane selects the layer first, a step A does not show as a card: B neither.
    await a.getByRole('tab', { name: '图层' }).click();
    await b.getByRole('tab', { name: '图层' }).click();
    await a.getByRole('button', { name: '色块', exact: true }).click();
    await a.getByRole('combobox', { name: '混合模式', exact: true }).selectOption({ label: '正片叠底' });
    await soon(() => b.getByRole('combobox', { name: '混合模式', exact: true }).inputValue()).toBe(
      'multiply',
    );
    await soon(countOf(cards(b, '混合模式'))).toBe(1);
    expect(await countOf(cards(a, '选择图层'))()).toBe(0);
    expect(await countOf(cards(b, '选择图层'))()).toBe(0);
    expect(await countOf(cards(b, '撤销'))()).toBe(1);
  });

  it('streams a chat turn sent from one into the other, and its cancel', async () => {
    const id = await createSession(studio.url);
    const a = await studio.open(id);
    const b = await openWatcher(id);
    studio.model.push(
      {
        text: '先新建文档。',
        toolCalls: [
          { id: 'c1', name: 'create_document', arguments: { width: 320, height: 240, name: '聊天稿' } },
        ],
      },
      // Two chunks of the answer, then the model falls silent: B sees the words as they come.
      { text: '甲乙丙丁戊己', stallAfterChunks: 2 },
    );
    await a.getByRole('textbox', { name: '消息' }).fill('新建一张聊天稿');
    await a.getByRole('button', { name: '发送' }).click();
    await soon(textOf(feedOf(b))).toContain('新建一张聊天稿');
    await soon(countOf(cards(b, '新建文档'))).toBe(1);
    await soon(textOf(docTabs(b))).toContain('聊天稿');
    await soon(textOf(feedOf(b))).toContain('甲乙');
    expect(await textOf(feedOf(b))()).not.toContain('丙丁');
    await snapshot(b, 'two-tabs-streaming-other');

    await a.getByRole('button', { name: '停止' }).click();
    await eventually(textOf(feedOf(a))).toContain('已取消本轮');
    await soon(textOf(feedOf(b))).toContain('已取消本轮');
    // Each saw the message once.
    expect(await countOf(feedOf(b).getByText('新建一张聊天稿'))()).toBe(1);
    expect(await countOf(feedOf(a).getByText('新建一张聊天稿'))()).toBe(1);
  });

  it('shows an upload, the document it opens, and the document closed', async () => {
    const id = await createSession(studio.url);
    const a = await studio.open(id);
    const b = await openWatcher(id);
    await b.getByRole('tab', { name: '文件' }).click();
    const png = await sharp({ create: { width: 200, height: 120, channels: 3, background: '#2e86c1' } })
      .png()
      .toBuffer();
    await a.getByRole('tab', { name: '文件' }).click();
    const [chooser] = await Promise.all([
      a.waitForEvent('filechooser'),
      a.getByRole('button', { name: '上传文档' }).click(),
    ]);
    await chooser.setFiles({ name: 'swatch.png', mimeType: 'image/png', buffer: png });
    await soon(textOf(b.getByRole('list', { name: '会话文件' }))).toContain('swatch.png');
    await soon(textOf(docTabs(b))).toContain('swatch');
    await soon(countOf(cards(b, '打开文档'))).toBe(1);

    // The garment photo is an upload that no call follows.
    const photo = await sharp({ create: { width: 240, height: 240, channels: 3, background: '#c0392b' } })
      .jpeg()
      .toBuffer();
    const [garment] = await Promise.all([
      a.waitForEvent('filechooser'),
      a.getByRole('button', { name: '上传服装照片' }).click(),
    ]);
    await garment.setFiles({ name: 'shirt.jpg', mimeType: 'image/jpeg', buffer: photo });
    await soon(textOf(b.getByRole('list', { name: '会话文件' }))).toContain('shirt.jpg');

    await a.getByRole('button', { name: '关闭 swatch' }).click();
    await soon(countOf(docTabs(b).getByRole('tab'))).toBe(0);
    await soon(countOf(cards(b, '关闭文档'))).toBe(1);
  });

  it('empties the other studio’s chat when one clears the conversation', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 300, height: 200, name: '清空' })]);
    const a = await studio.open(id);
    studio.model.push({ text: '我看看。' });
    await a.getByRole('textbox', { name: '消息' }).fill('你好');
    await a.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(feedOf(a))).toContain('我看看。');
    // B opened after the turn: it shows the conversation as the server has it.
    const b = await openWatcher(id, (page) => eventually(textOf(feedOf(page))).toContain('我看看。'));
    expect(await textOf(feedOf(b))()).toContain('我看看。');
    await b.getByRole('tab', { name: '文件' }).click();
    const records = (page: Page) => page.getByRole('group', { name: /^会话记录/ });
    await eventually(visibleOf(records(b))).toBe(true);

    await a.getByRole('tab', { name: '文件' }).click();
    await records(a).locator('summary').click();
    await records(a)
      .getByRole('button', { name: /^清空对话记录/ })
      .click();
    await a.getByRole('dialog').getByRole('button', { name: '清空', exact: true }).click();
    await eventually(countOf(feedOf(a).getByRole('article'))).toBe(0);

    await soon(textOf(feedOf(b))).not.toContain('我看看。');
    expect(await countOf(feedOf(b).getByRole('article'))()).toBe(0);
    expect(await textOf(feedOf(b))()).toContain('对话记录已清空：文档、图层、历史记录和文件都在');
    await soon(countOf(records(b))).toBe(0);
    expect(await textOf(docTabs(b))()).toContain('清空');
    const shots = [await snapshot(a, 'two-tabs-cleared-a'), await snapshot(b, 'two-tabs-cleared-b')];
    expect(shots.map((s) => path.basename(s))).toEqual(['two-tabs-cleared-a.png', 'two-tabs-cleared-b.png']);

    // A reload of B keeps it empty (what it keeps in its tab's storage was emptied too).
    await b.reload();
    await eventually(textOf(docTabs(b))).toContain('清空');
    expect(await textOf(feedOf(b))()).not.toContain('我看看。');
  });
});
