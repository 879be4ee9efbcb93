/**
 * Retakes the README's three studio pictures in docs/images/, at 1440 × 900 in Debian's Chromium (driven by
 * playwright-core, as the browser tests are): the poster of the README's tour made from the 工具箱, the garment
 * preview with 确认套图 and 重新生成, and identify_pieces unsure of two look-alike body panels. Each scene runs the
 * real service on loopback; the garment scenes chat with a scripted OpenAI-compatible model (the agent tests'),
 * on the example pieces and photo in examples/garment/. Nothing leaves the machine; no key is needed.
 *
 *   npm run build && npx tsx scripts/readme-shots.ts      (needs /usr/bin/chromium, or ATELIER_FULL_CHROMIUM)
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { modelConfigFrom } from '../src/agent/config.js';
import { startTestServer, type TestServer } from '../test/server/support.js';
import {
  FULL_CHROMIUM,
  launchBrowser,
  openPage,
  requireBuiltStudio,
  stopBrowser,
} from '../test/support/browser.js';
import { type ScriptedModel, startScriptedModel } from '../test/support/scripted-model.js';
import { newSession, ok, tempDir } from '../test/support/session.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMAGES = path.join(ROOT, 'docs/images');
const EXAMPLE = path.join(ROOT, 'examples/garment');
const TIMEOUT = 120_000;

/** Folders to remove at the end: the servers' workspaces and the fixtures' sessions. */
const scratch: string[] = [];

function feed(page: Page): Locator {
  return page.getByRole('log', { name: '对话记录' });
}

function cards(page: Page, label: string): Locator {
  return feed(page).getByRole('article', { name: label });
}

/** The `index`th card of a tool, once it has finished (a failed card stops the script: no error in a picture). */
async function doneCard(page: Page, label: string, index: number): Promise<Locator> {
  const card = cards(page, label).nth(index);
  await card.and(page.locator('.card:not(.running)')).waitFor({ timeout: TIMEOUT });
  if (!(await card.evaluate((e) => e.classList.contains('ok')))) {
    throw new Error(`${label} failed: ${await card.textContent()}`);
  }
  return card;
}

/** Opens a palette tool by its label and fills its form by the parameters' API names. */
async function runTool(page: Page, label: string, fields: Record<string, string> = {}): Promise<void> {
  await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
  const back = page.getByRole('button', { name: '返回工具列表' });
  if (await back.isVisible()) await back.click();
  await page.locator('.palette-groups').getByRole('button', { name: label, exact: true }).click();
  for (const [name, value] of Object.entries(fields)) {
    const field = page
      .locator('.field')
      .filter({ has: page.locator('code.param-name').getByText(name, { exact: true }) });
    const control = field.locator('input, textarea, select').first();
    if ((await control.evaluate((e) => e.tagName)) === 'SELECT') await control.selectOption(value);
    else await control.fill(value);
  }
  const before = await cards(page, label).count();
  await page.getByRole('button', { name: '运行', exact: true }).click();
  await doneCard(page, label, before);
}

async function upload(page: Page, button: '上传文档' | '上传服装照片', file: string): Promise<void> {
  await page.getByRole('tab', { name: '文件' }).click();
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await chooser.setFiles(file);
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: '消息' }).fill(text);
  await page.getByRole('button', { name: '发送' }).click();
}

/** What the page functions below read of the DOM (this project's Node TypeScript has no DOM types). */
interface PageDom {
  readonly document: {
    readonly images: ArrayLike<{ readonly complete: boolean; readonly naturalWidth: number }>;
    querySelector(selector: string): { getAttribute(name: string): string | null } | null;
    getAnimations(): { readonly playState: string }[];
  };
}

/** Waits until every image on the page has loaded, the canvas shows a document, fonts are in and nothing runs. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const { document } = globalThis as unknown as PageDom;
      return (
        document.querySelector('.artboard:not(.loading) img') !== null &&
        Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0) &&
        document.querySelector('[aria-busy="true"]') === null &&
        // Hover colours fade, a scroll may glide.
        document.getAnimations().every((a) => a.playState !== 'running')
      );
    },
    undefined,
    { timeout: TIMEOUT },
  );
  await page.evaluate('document.fonts.ready');
  // Two frames, so what was just laid out is painted.
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
}

async function shoot(page: Page, name: string): Promise<void> {
  // No hover or focus left on the last button clicked.
  await page.mouse.move(1300, 600);
  await page.evaluate('document.activeElement?.blur()');
  await settled(page);
  const file = path.join(IMAGES, name);
  await page.screenshot({ path: file });
  console.log(`wrote ${path.relative(ROOT, file)}`);
}

async function server(model?: ScriptedModel): Promise<TestServer> {
  const s = await startTestServer(
    model
      ? { model: modelConfigFrom({}, { ATELIER_MODEL: 'scripted-model', ATELIER_MODEL_BASE_URL: model.url }) }
      : {},
  );
  scratch.push(s.config.workspace);
  return s;
}

/** The README's tour (without a model): the poster, with 添加投影's form still open in the 工具箱. */
async function manual(browser: Browser): Promise<void> {
  const s = await server();
  const page = await openPage(browser, `${s.url}/`);
  try {
    await runTool(page, '新建文档', { width: '1200', height: '800', name: '春季海报' });
    await runTool(page, '创建文字', {
      text: '春季新品\n全场八折',
      x: '80',
      y: '120',
      font_size: '150',
      color: '#c0392b',
    });
    await runTool(page, '创建段落文字', {
      text: '春装上新，棉麻面料轻盈透气。全场满三百减五十，活动截至三月十五日，详情请咨询门店。',
      x: '80',
      y: '480',
      width: '1040',
      height: '100',
      font_size: '34',
      color: '#34495e',
    });
    await runTool(page, '新建图层', { name: '色块' });
    await runTool(page, '矩形选区', { left: '0', top: '600', right: '1200', bottom: '800' });
    await runTool(page, '渐变填充', {
      start_x: '0',
      start_y: '600',
      end_x: '1200',
      end_y: '800',
      start_color: '#f4d03f',
      end_color: '#e67e22',
    });
    await runTool(page, '取消选择');
    const before = await page.locator('.artboard img').getAttribute('src');
    await runTool(page, '添加投影', { name: '春季新品', distance: '10', size: '16', opacity: '75' });
    // The canvas keeps showing the previous render until the new one has loaded.
    await page.waitForFunction(
      (old) =>
        (globalThis as unknown as PageDom).document.querySelector('.artboard img')?.getAttribute('src') !==
        old,
      before,
      { timeout: TIMEOUT },
    );
    await page.getByRole('tab', { name: '图层' }).click();
    // The form from its first field, as it opened (filling the last field scrolled it).
    await page
      .locator('.field')
      .first()
      .evaluate((e) => {
        for (let p = e.parentElement; p; p = p.parentElement)
          if (p.scrollHeight > p.clientHeight) p.scrollTop = 0;
      });
    await shoot(page, 'studio-manual.png');
  } finally {
    await page.context().close();
    await s.close();
  }
}

/**
 * The example's pieces with its back panel replaced by a copy of the front, under the back's meaningless name:
 * nothing in their shapes tells the two apart.
 */
async function twinsPsd(): Promise<string> {
  const dir = tempDir('atelier-shots-twins-');
  scratch.push(dir);
  copyFileSync(path.join(EXAMPLE, 'pieces.psd'), path.join(dir, 'pieces.psd'));
  const session = newSession(dir);
  await ok(session, 'open_document', { path: 'pieces.psd' });
  await ok(session, 'select_layers', { names: ['图层 1'] });
  const back = (await ok(session, 'get_layer_structure')) as unknown as {
    layers: { name: string; bounds: { left: number; top: number } }[];
  };
  const at = (name: string) => back.layers.find((l) => l.name === name)!.bounds;
  const dx = at('图层 1').left - at('图层 3').left;
  const dy = at('图层 1').top - at('图层 3').top;
  await ok(session, 'delete_layer');
  await ok(session, 'select_layers', { names: ['图层 3'] });
  await ok(session, 'duplicate_layer');
  await ok(session, 'move_layer', { name: '图层 3 拷贝', dx, dy });
  await ok(session, 'rename_layer', { new_name: '图层 1' });
  await ok(session, 'save_document_as', { path: 'twins.psd' });
  return path.join(dir, 'twins.psd');
}

/** The garment flow with a model: the preview awaiting 确认套图, then the twins' identification in doubt. */
async function garment(browser: Browser): Promise<void> {
  const twins = await twinsPsd();
  const model = await startScriptedModel();
  const s = await server(model);
  const page = await openPage(browser, `${s.url}/`);
  try {
    await page.getByRole('banner').getByText('scripted-model').waitFor();
    await upload(page, '上传文档', path.join(EXAMPLE, 'pieces.psd'));
    await doneCard(page, '打开文档', 0);
    await upload(page, '上传服装照片', path.join(EXAMPLE, 'photo-allover.jpg'));
    await page.getByText('服装照片：photo-allover.jpg').waitFor();

    model.push(
      {
        toolCalls: [
          { name: 'identify_pieces', arguments: {} },
          { name: 'generate_garment_preview', arguments: {} },
        ],
      },
      { text: '预览已生成，请确认。' },
    );
    await send(page, '用这张照片给裁片套图');
    const preview = await doneCard(page, '生成花样预览', 0);
    await preview.getByRole('button', { name: '确认套图' }).waitFor();
    await feed(page).getByText('预览已生成，请确认。').waitFor();
    await settled(page);
    // The feed should have followed to the answer, but sometimes stops short once the cards' images load.
    await feed(page).evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    await shoot(page, 'studio-garment.png');

    await upload(page, '上传文档', twins);
    await doneCard(page, '打开文档', 1);
    model.push(
      { toolCalls: [{ name: 'identify_pieces', arguments: {} }] },
      { text: '有两片前后片分不清，请确认。' },
    );
    await send(page, '识别一下裁片');
    const identified = await doneCard(page, '识别裁片部位', 1);
    await identified.getByRole('note').waitFor();
    await feed(page).getByText('有两片前后片分不清，请确认。').waitFor();
    await settled(page);
    // The overview and the questions under it, rather than the end of the conversation.
    await identified
      .getByRole('img')
      .first()
      .evaluate((e) => e.scrollIntoView({ block: 'start' }));
    await shoot(page, 'studio-garment-doubt.png');
    if (model.remaining !== 0) throw new Error('the scripted model was not asked as often as planned');
  } finally {
    await page.context().close();
    await s.close();
    await model.close();
  }
}

requireBuiltStudio();
mkdirSync(IMAGES, { recursive: true });
const browser = await launchBrowser(FULL_CHROMIUM);
try {
  await manual(browser);
  await garment(browser);
} finally {
  await browser.close();
  await stopBrowser();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
}
