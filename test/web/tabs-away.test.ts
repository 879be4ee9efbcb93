/**
 * Studio tabs in one browser, in real Chromium, as a designer keeps them: many open, most in the background.
 * Over HTTP/1.1 the browser opens 6 connections to the server for all its tabs together, and every tab keeps
 * its session's event stream open: a tab in the background gives its stream back after a while, so the tab in
 * view still runs tools and streams a chat turn; when it is looked at again it listens again and its chat
 * shows what it missed, once, beside its own tool cards; and a turn another tab sent shows as running there,
 * with 停止. Time in the background is passed with the page's clock; a page reads as hidden by a flag.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { HIDDEN_LISTEN_MS } from '../../src/web/state/converge.js';
import { createSession, okCalls, startTestServer, type TestServer, toolCall } from '../server/support.js';
import {
  countOf,
  eventually,
  launchBrowser,
  requireBuiltStudio,
  snapshot,
  textOf,
} from '../support/browser.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let server: TestServer;
let model: ScriptedModel;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  requireBuiltStudio();
  browser = await launchBrowser();
  model = await startScriptedModel();
  server = await startTestServer({
    model: modelConfigFrom({}, { ATELIER_MODEL: 'scripted-model', ATELIER_MODEL_BASE_URL: model.url }),
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await model?.close();
});
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close().catch(() => {});
});

/** A browser window whose tabs open the studio on session `id` (each tab keeps its own sessionStorage). */
async function windowOn(id: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15_000);
  contexts.push(context);
  await context.addInitScript((sid) => {
    const g = globalThis as unknown as {
      sessionStorage: { setItem(k: string, v: string): void };
      localStorage: { setItem(k: string, v: string): void };
      document: object;
      atelierHidden?: boolean;
    };
    g.sessionStorage.setItem('atelier.session', sid);
    g.localStorage.setItem('atelier.lang', 'zh');
    Object.defineProperty(g.document, 'visibilityState', {
      get: () => (g.atelierHidden ? 'hidden' : 'visible'),
      configurable: true,
    });
  }, id);
  return context;
}

const listensTo = (id: string) => (r: { url(): string }) => r.url().includes(`/v1/sessions/${id}/events`);

/** A new tab in `context`, in view, once its event stream is listening. */
async function tab(context: BrowserContext, id: string): Promise<Page> {
  const page = await context.newPage();
  // Before the page's scripts run, so that their timers follow it.
  await page.clock.install();
  const listening = page.waitForResponse(listensTo(id));
  await page.goto(`${server.url}/`);
  await listening;
  return page;
}

const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate((h) => {
    (globalThis as unknown as { atelierHidden: boolean }).atelierHidden = h;
    (globalThis as unknown as { document: { dispatchEvent(e: Event): void } }).document.dispatchEvent(
      new Event('visibilitychange'),
    );
  }, hidden);

/** The tab goes to the background and stays there past the time it goes on listening. */
async function leftInBackground(page: Page) {
  await setHidden(page, true);
  await page.clock.fastForward(HIDDEN_LISTEN_MS + 1_000);
}

/** Soon: well within the 10 s after which a tab in view would have caught up its panes by itself. */
const soon = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 5_000, interval: 100 });

const feedOf = (page: Page) => page.getByRole('log', { name: '对话记录' });
const cards = (page: Page, label: string) => feedOf(page).getByRole('article', { name: label, exact: true });
const box = (page: Page) => page.getByRole('textbox', { name: '消息' });
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

async function undoInHistory(page: Page, to: RegExp) {
  await page.getByRole('tab', { name: '历史记录' }).click();
  await page.getByRole('list', { name: '历史步骤' }).getByRole('button', { name: to }).click();
}

describe('studio tabs in one browser', () => {
  it('keeps the tab in view working with seven more in the background', async () => {
    const id = await createSession(server.url);
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '八窗' }),
      toolCall('create_layer', { name: '色块' }),
    ]);
    const win = await windowOn(id);
    // Opened one after another, each sent to the background by the next: with every one still holding its
    // stream, the seventh could not even load its page.
    const background: Page[] = [];
    for (let i = 0; i < 7; i++) {
      const page = await tab(win, id);
      await eventually(textOf(page.getByRole('tablist', { name: '文档' }))).toContain('八窗');
      await leftInBackground(page);
      background.push(page);
    }
    const front = await tab(win, id);

    // A tool run from the history, and a chat turn streamed as the model writes it, come at once.
    let since = Date.now();
    await undoInHistory(front, /新建文档/);
    await soon(countOf(cards(front, '撤销'))).toBe(1);
    const undone = Date.now() - since;
    model.push({ text: '甲乙丙丁戊己', stallAfterChunks: 2 });
    since = Date.now();
    await box(front).fill('你好');
    await button(front, '发送').click();
    await soon(textOf(feedOf(front))).toContain('甲乙');
    const streamed = Date.now() - since;
    expect(undone).toBeLessThan(5_000);
    expect(streamed).toBeLessThan(5_000);
    await snapshot(front, 'tabs-away-eighth-tab');
    await button(front, '停止').click();
    await eventually(textOf(feedOf(front))).toContain('已取消本轮');

    // One of the background tabs looked at again listens again: its chat shows the turn it missed (the
    // other tab's undo is no part of the conversation: its panes show it, not its chat).
    const back = background[0]!;
    await setHidden(back, false);
    await soon(textOf(feedOf(back))).toContain('已取消本轮');
    expect(await countOf(feedOf(back).getByText('你好', { exact: true }))()).toBe(1);
    await back.getByRole('tab', { name: '历史记录' }).click();
    await soon(
      textOf(back.getByRole('list', { name: '历史步骤' }).locator('[aria-current="step"]')),
    ).toContain('新建文档');
  });

  it('shows a tab looked at again the turns it missed, once each, beside its own tool cards', async () => {
    const id = await createSession(server.url);
    await okCalls(server.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '离开' }),
      toolCall('create_layer', { name: '色块' }),
    ]);
    const a = await tab(await windowOn(id), id);
    const b = await tab(await windowOn(id), id);

    // A first turn, which B follows as it happens.
    model.push(
      {
        text: '先看看文档。',
        toolCalls: [{ id: 'm1', name: 'get_document_info', arguments: {} }],
      },
      { text: '文档是 300×200。' },
    );
    await box(a).fill('第一轮：文档多大？');
    await button(a, '发送').click();
    await soon(textOf(feedOf(b))).toContain('文档是 300×200。');
    // B's own tool run, which the server's conversation does not hold: only B's feed has its card.
    await undoInHistory(b, /新建文档/);
    await soon(countOf(cards(b, '撤销'))).toBe(1);

    await leftInBackground(b);
    model.push(
      {
        text: '再建一个图层。',
        toolCalls: [{ id: 'm2', name: 'create_layer', arguments: { name: '第二层' } }],
      },
      { text: '建好了第二层。' },
    );
    await box(a).fill('第二轮：再建一个图层');
    await button(a, '发送').click();
    await eventually(textOf(feedOf(a))).toContain('建好了第二层。');
    // Not listening: B has not been told.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await textOf(feedOf(b))()).not.toContain('第二轮');

    await setHidden(b, false);
    await soon(textOf(feedOf(b))).toContain('建好了第二层。');
    const text = await textOf(feedOf(b))();
    for (const once of ['第一轮：文档多大？', '文档是 300×200。', '第二轮：再建一个图层', '建好了第二层。']) {
      expect([once, text.split(once).length - 1]).toEqual([once, 1]);
    }
    expect(await countOf(cards(b, '查看文档信息'))()).toBe(1);
    expect(await countOf(cards(b, '新建图层'))()).toBe(1);
    expect(await countOf(cards(b, '撤销'))()).toBe(1);
    // In the order things happened: B's undo before the turn it missed.
    expect(text.indexOf('文档是 300×200。')).toBeLessThan(text.indexOf('撤销'));
    expect(text.indexOf('撤销')).toBeLessThan(text.indexOf('第二轮'));
    await snapshot(b, 'tabs-away-caught-up');

    // A reload shows the same, the kept feed brought in line with the conversation.
    const listening = b.waitForResponse(listensTo(id));
    await b.reload();
    await listening;
    await eventually(textOf(feedOf(b))).toContain('建好了第二层。');
    expect(await countOf(feedOf(b).getByText('第二轮：再建一个图层', { exact: true }))()).toBe(1);
    expect(await countOf(cards(b, '撤销'))()).toBe(1);
  });

  it('shows a turn sent from another tab as running there: 停止 stops it, then 发送 is back', async () => {
    const id = await createSession(server.url);
    await okCalls(server.url, id, [toolCall('create_document', { width: 300, height: 200, name: '同跑' })]);
    const a = await tab(await windowOn(id), id);
    const b = await tab(await windowOn(id), id);
    await box(b).fill('我也想说一句');
    model.push({ text: '慢慢想，慢慢写', stallAfterChunks: 2 });
    await box(a).fill('请慢慢回答');
    await button(a, '发送').click();
    await soon(textOf(feedOf(b))).toContain('慢慢');
    await soon(countOf(button(b, '停止'))).toBe(1);
    expect(await countOf(button(b, '发送'))()).toBe(0);
    // Enter sends nothing while it runs: the message stays in the box, and no busy notice comes.
    await box(b).press('Enter');
    expect(await box(b).inputValue()).toBe('我也想说一句');
    // A tab opened while the turn runs knows it too.
    const c = await tab(await windowOn(id), id);
    await soon(countOf(button(c, '停止'))).toBe(1);
    await snapshot(b, 'tabs-away-other-turn-running');

    await button(b, '停止').click();
    for (const page of [a, b, c]) await soon(textOf(feedOf(page))).toContain('已取消本轮');
    await soon(countOf(button(b, '发送'))).toBe(1);
    await soon(countOf(button(c, '发送'))).toBe(1);
    expect(await countOf(feedOf(b).getByRole('alert').filter({ hasText: '会话正忙' }))()).toBe(0);
    expect(await box(b).inputValue()).toBe('我也想说一句');

    model.push({ text: '收到你的话。' });
    await button(b, '发送').click();
    await soon(textOf(feedOf(a))).toContain('收到你的话。');
    await soon(countOf(button(a, '发送'))).toBe(1);
    await snapshot(a, 'tabs-away-after-turns');
  });
});
