/**
 * The studio after a server restart, in a real browser: a designer chats with a scripted model (tool cards, a
 * canvas capture, the answer), the server is stopped and started again on the same workspace and port, and
 * reloading the page shows the earlier conversation — the words, the cards with their results and image — and
 * the next message continues it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { startTestServer, type TestServer } from '../server/support.js';
import {
  countOf,
  eventually,
  finished,
  launchBrowser,
  openPage,
  requireBuiltStudio,
  snapshot,
  textOf,
} from '../support/browser.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { tempDir } from '../support/session.js';

let browser: Browser;
let model: ScriptedModel;
let server: TestServer | undefined;
let page: Page;
const workspace = tempDir('atelier-web-chat-restart-');

async function serve(port = 0): Promise<TestServer> {
  const config = modelConfigFrom({}, { ATELIER_MODEL: 'scripted-model', ATELIER_MODEL_BASE_URL: model.url });
  server = await startTestServer({ workspace, port, model: config });
  return server;
}

const feed = (p: Page) => p.getByRole('log').first();
const card = (p: Page, label: string) => feed(p).getByRole('article', { name: label }).last();

/** Whether each card image in the feed has loaded real pixels (a 404 leaves an image with no width). */
const imagesLoaded = (p: Page) => () =>
  p.evaluate(
    `[...document.querySelectorAll('.feed article figure > button > img')].map((img) => img.complete && img.naturalWidth > 0)`,
  );

beforeAll(async () => {
  requireBuiltStudio();
  browser = await launchBrowser();
  model = await startScriptedModel();
});

afterAll(async () => {
  await page?.context().close();
  await browser?.close();
  await server?.close();
  await model?.close();
});

afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await snapshot(page, `failed-${task.name.slice(0, 40)}`);
});

describe('the studio after a server restart', () => {
  it('shows the earlier conversation again on reload, and continues it', async () => {
    const first = await serve();
    const port = Number(new URL(first.url).port);
    page = await openPage(browser, `${first.url}/`);
    model.push(
      {
        text: '好的，我先新建文档，再看一眼画布。',
        toolCalls: [
          { id: 'd1', name: 'create_document', arguments: { width: 600, height: 400, name: '重启前的海报' } },
          {
            id: 'd2',
            name: 'create_text_layer',
            arguments: { text: '春季新品', x: 40, y: 120, font_size: 96 },
          },
          { id: 'd3', name: 'get_canvas_image', arguments: { max_size: 300 } },
        ],
      },
      { text: '海报已建好，标题是“春季新品”。' },
    );
    await eventually(textOf(page.getByRole('banner'))).toContain('scripted-model');
    await page.getByRole('textbox', { name: '消息' }).fill('做一张海报，标题写春季新品');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(feed(page))).toContain('海报已建好');
    await finished(card(page, '查看画布'));

    // The page leaves first: both servers run in this one process, so a request still in flight while the first
    // closes could leave it holding the session's lock under a live pid (a real restart's old pid is dead).
    await page.goto('about:blank');
    await first.close();
    server = undefined;
    await serve(port);
    // The same tab comes back to the studio (its session id is in the tab's storage), then reloads it.
    await page.goto(`${server!.url}/`);
    await eventually(textOf(feed(page))).toContain('做一张海报，标题写春季新品');
    await page.reload();

    await eventually(textOf(feed(page))).toContain('做一张海报，标题写春季新品');
    await eventually(textOf(feed(page))).toContain('好的，我先新建文档');
    await finished(card(page, '新建文档'));
    await finished(card(page, '创建文字'));
    await finished(card(page, '查看画布'));
    await eventually(textOf(feed(page))).toContain('海报已建好，标题是“春季新品”。');
    // The capture is shown again, served by the new process from the image kept beside the transcript.
    await eventually(countOf(card(page, '查看画布').locator('figure'))).toBe(1);
    await eventually(imagesLoaded(page)).toEqual([true]);
    await eventually(textOf(page.getByRole('tab', { name: '重启前的海报' }))).toContain('重启前的海报');
    await snapshot(page, '20-chat-after-restart');

    // The next message continues the same conversation: the model gets the earlier turn.
    model.push({ text: '标题已经在画布上了。' });
    await page.getByRole('textbox', { name: '消息' }).fill('标题在哪里？');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(feed(page))).toContain('标题已经在画布上了。');
    const messages = model.requests.at(-1)!.body.messages;
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['d1', 'd2', 'd3']);
    expect(String(messages[1]!.content)).toMatch(/^做一张海报，标题写春季新品/);
  });
});
