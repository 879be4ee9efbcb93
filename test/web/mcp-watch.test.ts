import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTool } from '../../src/registry/index.js';
import { HIDDEN_LISTEN_MS } from '../../src/web/state/converge.js';
import { callTool } from '../mcp/support.js';
import { startTestServer, TOKEN } from '../server/support.js';
import {
  canvasInk,
  countOf,
  eventually,
  finished,
  hideable,
  launchBrowser,
  openPage,
  setHidden,
  snapshot,
  textOf,
  visibleOf,
} from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('mcp-watch');

/** Soon: well within the 10 s after which a tab in view would have caught up by itself. */
const soon = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 5_000, interval: 100 });

describe('the studio on a session an MCP client drives', () => {
  it('shows the layers and pixels of each MCP call at once', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${studio.url}/mcp`));
    const client = new Client({ name: 'atelier-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const id = transport.sessionId!;
      await callTool(client, 'create_document', { width: 300, height: 200, name: '模型稿' });

      const page = await studio.open(id);
      const layers = page.getByRole('list', { name: '图层列表' });
      await page.getByRole('tab', { name: '图层' }).click();
      await eventually(countOf(layers.getByRole('button', { name: '背景', exact: true }))).toBe(1);
      // The call made before comes with the session's events as the tab starts listening (waiting for their
      // response instead could start after it came).
      await eventually(countOf(cardsOf(page))).toBe(1);
      await page.evaluate(() => {
        const doc = (globalThis as unknown as { document: object }).document;
        Object.defineProperty(doc, 'visibilityState', { get: () => 'hidden', configurable: true });
      });

      const layer = await callTool(client, 'create_layer', { name: '色块' });
      expect(layer.isError).toBe(false);
      await soon(countOf(layers.getByRole('button', { name: '色块', exact: true }))).toBe(1);

      // A change of pixels: the canvas is fetched again (the history grew), and shows the fill. The new layer
      // grew the history too, so the blank page may still be loading when its row shows: wait for it.
      await soon(async () => (await canvasInk(page))?.dark).toBe(0);
      const fill = await callTool(client, 'fill_selection', { color: '#c0392b' });
      expect(fill.isError).toBe(false);
      await soon(async () => (await canvasInk(page))?.dark).toBeGreaterThan(0.99);

      await snapshot(page, 'mcp-watch-layers');
    } finally {
      await client.close();
    }
  });
});

/** The registry's Chinese label of a tool, as its card is named. */
const labelOf = (name: string) => findTool(name)!.label;

async function mcpClient(url: string, headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: 'atelier-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, id: transport.sessionId! };
}

const feedOf = (page: Page) => page.getByRole('log', { name: '对话记录' });
const cardsOf = (page: Page) => feedOf(page).getByRole('article');
const storedSession = (page: Page) =>
  page.evaluate(() =>
    (
      globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }
    ).sessionStorage.getItem('atelier.session'),
  );

/** The cards' names (the tool's label), in the feed's order. */
const labels = (page: Page) => () =>
  cardsOf(page).evaluateAll((cards) => cards.map((c) => c.getAttribute('aria-label')));
const statuses = (page: Page) =>
  cardsOf(page).evaluateAll((cards) => cards.map((c) => c.querySelector('.status-text')?.textContent));

/**
 * A fresh browser tab (nothing kept from before) at `url`, once it listens to session `id`'s events: its clock
 * the test moves, and it reads as hidden when told (`setHidden`), so that it can be left in the background past
 * the time it goes on listening.
 */
async function openAway(browser: Browser, url: string, id: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  context.setDefaultTimeout(15_000);
  await hideable(context);
  const page = await context.newPage();
  await page.clock.install();
  const listening = page.waitForResponse((r) => r.url().includes(`/v1/sessions/${id}/events`));
  await page.goto(url);
  await listening;
  return page;
}

describe('the studio opened at /?session=<id>', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('joins the MCP session with a card for each call, those made before too, and misses none while away', async () => {
    const { client, id } = await mcpClient(studio.url);
    try {
      // Before anyone watches: a document, a layer, and a call that fails.
      await callTool(client, 'create_document', { width: 300, height: 200, name: '模型稿' });
      await callTool(client, 'create_layer', { name: '底纹' });
      expect((await callTool(client, 'set_layer_opacity', { name: '没有', opacity: 10 })).isError).toBe(true);
      const page = await openAway(browser, `${studio.url}/?session=${id}`, id);
      // The parameter leaves the address; the tab keeps the session as its own.
      expect(page.url()).toBe(`${studio.url}/`);
      expect(await storedSession(page)).toBe(id);
      // The calls made before it joined are there as cards, in order, the failed one with its Chinese error.
      await eventually(countOf(cardsOf(page))).toBe(3);
      expect(await labels(page)()).toEqual([
        labelOf('create_document'),
        labelOf('create_layer'),
        labelOf('set_layer_opacity'),
      ]);
      expect(await statuses(page)).toEqual(['完成', '完成', '失败']);
      expect(await page.locator('.card-source').count()).toBe(3);
      expect(await page.locator('article.card.error .card-error p').first().textContent()).toMatch(
        /[\u4e00-\u9fff].*没有|没有.*[\u4e00-\u9fff]/,
      );
      expect(await page.locator('.feed-empty').count()).toBe(0);
      await snapshot(page, 'mcp-watch-joined');
      await page.getByRole('tab', { name: '图层' }).click();
      const layers = page.getByRole('list', { name: '图层列表' });
      await eventually(countOf(layers.getByRole('button', { name: '底纹', exact: true }))).toBe(1);
      await setHidden(page, true);

      expect((await callTool(client, 'create_layer', { name: '色块' })).isError).toBe(false);
      const layerCard = cardsOf(page).nth(3);
      await soon(textOf(layerCard)).toContain('完成');
      expect(await layerCard.getAttribute('aria-label')).toBe(labelOf('create_layer'));
      expect(await layerCard.locator('.card-source').textContent()).toBe('MCP');
      expect(await layerCard.locator('.card-source').getAttribute('title')).toBe('由 MCP 客户端调用');
      await soon(countOf(layers.getByRole('button', { name: '色块', exact: true }))).toBe(1);
      expect((await callTool(client, 'fill_selection', { color: '#1f6feb' })).isError).toBe(false);
      await soon(async () => (await canvasInk(page))?.opaque).toBe(1);

      // Refused and failed calls: a layer that is not there, wrong arguments, a tool that does not exist.
      expect((await callTool(client, 'set_layer_opacity', { name: '不存在', opacity: 10 })).isError).toBe(
        true,
      );
      expect((await callTool(client, 'create_layer', { name: 3 })).isError).toBe(true);
      expect((await callTool(client, 'no_such_tool')).isError).toBe(true);
      await soon(countOf(cardsOf(page))).toBe(8);
      const failed = page.locator('article.card.error');
      await soon(countOf(failed)).toBe(4);
      const seen = [
        labelOf('create_document'),
        labelOf('create_layer'),
        labelOf('set_layer_opacity'),
        labelOf('create_layer'),
        labelOf('fill_selection'),
        labelOf('set_layer_opacity'),
        labelOf('create_layer'),
        'no_such_tool',
      ];
      expect(await labels(page)()).toEqual(seen);
      for (const card of await failed.all()) {
        expect(await card.locator('.status-text').textContent()).toBe('失败');
        // The server's Chinese words, shown as they are (not the studio's generic ones).
        expect(await card.locator('.card-error p').first().textContent()).toMatch(/[\u4e00-\u9fff]/);
      }
      expect(await failed.nth(1).locator('.card-error').textContent()).toContain('不存在');
      expect(await page.locator('.card-source').count()).toBe(8);
      await snapshot(page, 'mcp-watch-feed');
      await feedOf(page).evaluate((el) => {
        el.scrollTop = 0;
      });
      await snapshot(page, 'mcp-watch-feed-top');

      // Left in the background past the time it goes on listening: its stream closes, the client goes on.
      await page.clock.fastForward(HIDDEN_LISTEN_MS + 1_000);
      expect((await callTool(client, 'create_layer', { name: '离开时' })).isError).toBe(false);
      expect((await callTool(client, 'get_layer_bounds', { name: '没有这层' })).isError).toBe(true);
      await page.waitForTimeout(500);
      expect(await countOf(cardsOf(page))()).toBe(8);
      // Looked at again: what it missed comes in after what it has, none of it twice.
      const back = page.waitForResponse((r) => r.url().includes(`/v1/sessions/${id}/events`));
      await setHidden(page, false);
      await back;
      const all = [...seen, labelOf('create_layer'), labelOf('get_layer_bounds')];
      await soon(labels(page)).toEqual(all);
      await snapshot(page, 'mcp-watch-back');
      expect(await statuses(page)).toEqual([
        '完成',
        '完成',
        '失败',
        '完成',
        '完成',
        '失败',
        '失败',
        '失败',
        '完成',
        '失败',
      ]);

      // A reload stays on the session and keeps its cards, none twice; so does a page that lost them.
      await page.reload();
      await eventually(labels(page)).toEqual(all);
      expect(page.url()).toBe(`${studio.url}/`);
      expect(await storedSession(page)).toBe(id);
      await page.evaluate((sid) => {
        (
          globalThis as unknown as { sessionStorage: { removeItem(k: string): void } }
        ).sessionStorage.removeItem(`atelier.feed.${sid}`);
      }, id);
      await page.reload();
      await eventually(labels(page)).toEqual(all);
      expect(await statuses(page)).toEqual([
        '完成',
        '完成',
        '失败',
        '完成',
        '完成',
        '失败',
        '失败',
        '失败',
        '完成',
        '失败',
      ]);
      await page.context().close();
    } finally {
      await client.close();
    }
  });

  it('says an unknown session is not there and opens a new one that works', async () => {
    const unknown = '0123456789abcdef0123456789abcdef';
    const page = await openPage(browser, `${studio.url}/?session=${unknown}`);
    // Information, not a failure: told as the studio tells (muted, not in red), with no error code.
    const notice = feedOf(page).getByRole('status');
    await eventually(textOf(notice)).toContain(`地址中的会话“${unknown}”不存在`);
    expect(await notice.textContent()).toContain('已为你新建了一个会话');
    expect(await feedOf(page).getByRole('alert').count()).toBe(0);
    expect(await notice.locator('code').count()).toBe(0);
    // In the colour of the studio's other words of information (the empty feed's, the files' hints).
    const [color, hint] = await notice.evaluate((el) => {
      type Node = { className: string; remove(): void };
      const g = globalThis as unknown as {
        document: { createElement(tag: string): Node };
        getComputedStyle(node: unknown): { color: string };
      };
      const muted = g.document.createElement('p');
      muted.className = 'feed-empty';
      (el as unknown as { parentElement: { append(node: Node): void } }).parentElement.append(muted);
      const colors = [g.getComputedStyle(el).color, g.getComputedStyle(muted).color];
      muted.remove();
      return colors;
    });
    expect(color).toBe(hint);
    expect(page.url()).toBe(`${studio.url}/`);
    const fresh = await storedSession(page);
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe(unknown);
    expect((await fetch(`${studio.url}/v1/sessions/${fresh}`)).status).toBe(200);
    // Nothing claims it joined anything.
    expect(await page.locator('.feed-empty').count()).toBe(0);

    // The new session works: a document made in it shows.
    const composer = page.getByRole('tablist', { name: '输入方式' });
    await composer.getByRole('tab', { name: '工具箱' }).click();
    await page
      .getByRole('region', { name: '文档操作' })
      .getByRole('button', { name: labelOf('create_document'), exact: true })
      .click();
    await page.getByLabel('宽度', { exact: true }).fill('200');
    await page.getByLabel('高度', { exact: true }).fill('120');
    await page.getByRole('button', { name: '运行' }).click();
    await finished(cardsOf(page).last());
    await eventually(async () => (await canvasInk(page))?.opaque).toBe(1);
    await snapshot(page, 'mcp-watch-unknown');
    await page.context().close();
  });
});

describe('the studio opened at /?session=<id>&token=<token>', () => {
  it('joins the session with the token, which never goes into a URL', async () => {
    const server = await startTestServer({ token: TOKEN });
    const browser = await launchBrowser();
    const auth = { authorization: `Bearer ${TOKEN}` };
    const { client, id } = await mcpClient(server.url, auth);
    try {
      await callTool(client, 'create_document', { width: 120, height: 80, name: '令牌' });
      const urls: string[] = [];
      let listening: Promise<unknown> = Promise.resolve();
      const page = await openPage(browser, `${server.url}/?session=${id}&token=${TOKEN}`, (p) => {
        p.on('request', (r) => urls.push(r.url()));
        listening = p.waitForResponse((r) => r.url().includes(`/v1/sessions/${id}/events`));
      });
      await listening;
      expect(page.url()).toBe(`${server.url}/`);
      await eventually(visibleOf(page.getByRole('tab', { name: /令牌/ }))).toBe(true);
      expect((await callTool(client, 'create_layer', { name: '甲' })).isError).toBe(false);
      await soon(textOf(cardsOf(page).filter({ hasText: labelOf('create_layer') }))).toContain('完成');
      expect(urls.filter((u) => u.includes(TOKEN))).toEqual([urls[0]]);
      await page.context().close();
    } finally {
      await client.close();
      await browser.close();
      await server.close();
    }
  });
});
