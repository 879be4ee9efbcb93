/**
 * Garment cards with two cut-piece documents open, in real Chromium at 1280×800 and without a model: the buttons
 * of a card act on the document the card is about (an answer on the first garment's doubt card, given while the
 * second is in front, switches back and confirms the first one's piece — both name their layers 图层 1 …), a
 * preview made stale by a later identification says so and offers to redo it, and a failed 开始套图 keeps the
 * pieces table (no verification of a print that was never applied).
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PixelLayer } from '../../src/engine/model.js';
import { layersNamed } from '../../src/engine/tree.js';
import { okCalls, startTestServer, type TestServer, toolCall } from '../server/support.js';
import {
  CHROMIUM,
  countOf,
  eventually,
  finished,
  openPage,
  requireBuiltStudio,
  snapshot,
  textOf,
  visibleOf,
} from '../support/browser.js';
import { garmentDocument, NAMES, PIECES, pieceRaster } from '../support/garment-fixtures.js';
import { newSession, ok, tempDir } from '../support/session.js';

const EXAMPLES = path.resolve('examples/garment');
let twinsPsd: string;
let teePsd: string;

let browser: Browser;
let server: TestServer;

beforeAll(async () => {
  requireBuiltStudio();
  // With the scrollbars a designer's Chromium shows on Linux and Windows (playwright hides them): the chat's
  // takes 15 px of its 400, which is what wrapped a card's label.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
    ignoreDefaultArgs: ['--hide-scrollbars'],
  });
  server = await startTestServer();
  // Front and back cut from one outline, layers 图层 1 … 图层 5: identify_pieces is unsure which is which.
  const twins = newSession(tempDir('atelier-web-docs-twins-'));
  await garmentDocument(twins, 'none');
  const tx = twins.editor.begin();
  const doc = tx.activeDocument();
  const back = layersNamed(doc.state, NAMES.none.back)[0] as PixelLayer;
  const raster = { ...pieceRaster('front'), x: PIECES.back.x, y: PIECES.back.y };
  tx.update(doc.id, { ...doc.state, layers: new Map(doc.state.layers).set(back.id, { ...back, raster }) });
  twins.editor.commit(tx, 'twins', true);
  await ok(twins, 'save_document_as', { path: 'twins.psd' });
  twinsPsd = path.join(twins.workspace.root, 'twins.psd');
  // The example T-shirt, its layers named 图层 1 … 图层 4 too (a file name of its own, so its tab is told apart).
  teePsd = path.join(tempDir('atelier-web-docs-tee-'), 'tee.psd');
  copyFileSync(path.join(EXAMPLES, 'pieces.psd'), teePsd);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const feed = (page: Page) => page.getByRole('log').first();
const cards = (page: Page, label: string) => feed(page).getByRole('article', { name: label });
const activeTab = (page: Page) => page.locator('.doc-tab.active');

async function upload(page: Page, button: '上传文档' | '上传服装照片', file: string) {
  await page.getByRole('tab', { name: '文件' }).click();
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await chooser.setFiles(file);
}

async function openDocument(page: Page, file: string, name: string) {
  const before = await cards(page, '打开文档').count();
  await upload(page, '上传文档', file);
  await eventually(countOf(cards(page, '打开文档'))).toBe(before + 1);
  await finished(cards(page, '打开文档').last());
  await eventually(textOf(activeTab(page))).toContain(name);
}

/** Runs a garment tool with no arguments from the toolbox, and waits for its card to finish. */
async function runTool(page: Page, label: string): Promise<Locator> {
  const before = await cards(page, label).count();
  const back = page.getByRole('button', { name: '返回工具列表' });
  if (await back.isVisible()) await back.click();
  await page
    .getByRole('region', { name: '服装套图' })
    .getByRole('button', { name: label, exact: true })
    .click();
  await page.getByRole('button', { name: '运行' }).click();
  await eventually(countOf(cards(page, label))).toBe(before + 1);
  // Pinned by position: `.last()` would be whichever card of that label came last when next looked at.
  const card = cards(page, label).nth(before);
  await finished(card);
  return card;
}

/** The first answer button of a doubt card, with the piece it answers for ("图层 2 是右袖" → 图层 2). */
async function firstAnswer(card: Locator) {
  const button = card.locator('.doubt-answers button').first();
  const label = (await button.getAttribute('aria-label'))!;
  return { button, piece: /^(\S+ \d+) 是/.exec(label)![1]! };
}

// Garment analyses run in these tests: the wait for them is bounded here, not by the default minute.
describe('garment cards with two documents open', { timeout: 600_000 }, () => {
  let page: Page;
  let id: string;
  let twinsCard: Locator;
  let twinsPreview: Locator;

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await snapshot(page, `failed-documents-${task.name.slice(0, 30)}`);
  });

  it('opens two cut-piece documents whose layers share names, and identifies both', async () => {
    page = await openPage(browser, `${server.url}/`);
    await page.setViewportSize({ width: 1280, height: 800 });
    // The studio opens its session once the page runs: read after, not before (null on a slow machine).
    const session = () => page.evaluate('sessionStorage.getItem("atelier.session")');
    await eventually(session).toMatch(/^[0-9a-f]{32}$/);
    id = (await session()) as string;
    await upload(page, '上传服装照片', path.join(EXAMPLES, 'photo-allover.jpg'));
    await eventually(textOf(page.getByRole('complementary', { name: '面板' }))).toContain(
      '服装照片：photo-allover.jpg',
    );
    await openDocument(page, twinsPsd, 'twins');
    twinsCard = await runTool(page, '识别裁片部位');
    await eventually(visibleOf(twinsCard.getByRole('note'))).toBe(true);
    twinsPreview = await runTool(page, '生成花样预览');
    await eventually(visibleOf(twinsPreview.getByRole('button', { name: '确认套图' }))).toBe(true);
    // The T-shirt comes to the front and is identified: the session's identification is now the T-shirt's.
    await openDocument(page, teePsd, 'tee');
    await runTool(page, '识别裁片部位');
  });

  it('a preview made stale by identifying another document says so, with no 确认套图', async () => {
    await eventually(textOf(twinsPreview)).toContain('这份预览已过时');
    expect(await twinsPreview.getByRole('button', { name: '确认套图' }).count()).toBe(0);
    await eventually(visibleOf(twinsPreview.getByRole('button', { name: '重新识别并预览' }))).toBe(true);
    await snapshot(page, 'garment-documents-stale-preview');
  });

  it("an answer on a doubt card confirms that card's document's piece, not the one in front", async () => {
    const { button, piece } = await firstAnswer(twinsCard);
    const confirms = await cards(page, '确认裁片部位').count();
    await button.click();
    await eventually(countOf(cards(page, '确认裁片部位'))).toBe(confirms + 1);
    const confirmed = cards(page, '确认裁片部位').nth(confirms);
    await eventually(textOf(confirmed.locator('.status-text'))).toBe('完成');
    // The twins came to the front, and 图层 5 (theirs only) says the twins were identified again, not the T-shirt.
    await eventually(textOf(activeTab(page))).toContain('twins');
    expect(await textOf(confirmed)()).toContain('图层 5');
    expect(await textOf(confirmed)()).toContain(piece);
    await snapshot(page, 'garment-documents-answer-own-document');
  });

  it('a failed 开始套图 keeps the pieces table and verifies nothing; the card header stays on one line', async () => {
    await page.getByRole('tab', { name: /^twins/ }).click();
    await eventually(textOf(activeTab(page))).toContain('twins');
    await runTool(page, '识别裁片部位');
    const preview = await runTool(page, '生成花样预览');
    await preview.getByRole('button', { name: '确认套图' }).click();
    const table = preview.getByRole('table', { name: '裁片' });
    await eventually(visibleOf(table)).toBe(true);
    // A piece renamed after the identification: applying is refused.
    await okCalls(server.url, id, [
      toolCall('select_layers', { names: ['图层 4'] }),
      toolCall('rename_layer', { new_name: '领子' }),
    ]);
    const applies = await cards(page, '提取并套图').count();
    await preview.getByRole('button', { name: '开始套图' }).click();
    await eventually(countOf(cards(page, '提取并套图'))).toBe(applies + 1);
    const applied = cards(page, '提取并套图').nth(applies);
    await eventually(textOf(applied.locator('.status-text'))).toBe('失败');
    // The table stays, to try again; nothing was applied, so nothing is verified (a second failure card).
    await eventually(visibleOf(preview.getByRole('button', { name: '开始套图' }))).toBe(true);
    expect(await table.isVisible()).toBe(true);
    expect(await cards(page, '验证套图效果').count()).toBe(0);
    await snapshot(page, 'garment-documents-apply-failed');
    // The card's label and status each stay on one line in the 400 px chat pane; the API name gives way.
    const lines = await applied.locator('header').evaluate((header) => {
      // The tests' TypeScript has no DOM types.
      type Box = { top: number };
      const doc = globalThis as unknown as {
        document: { createRange(): { selectNodeContents(n: unknown): void; getClientRects(): Box[] } };
      };
      const h = header as unknown as { querySelector(s: string): unknown };
      return ['h4', '.status-text'].map((selector) => {
        const range = doc.document.createRange();
        range.selectNodeContents(h.querySelector(selector));
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
    });
    expect(lines).toEqual([1, 1]);
  });
});
