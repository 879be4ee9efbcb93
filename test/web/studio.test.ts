/**
 * The studio in a real browser, driven by role and name as a designer would, with no model configured: the
 * palette's generated forms, the canvas, layers, history, uploads, errors, the token and the language.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createSession,
  okCalls,
  startTestServer,
  type TestServer,
  TOKEN,
  toolCall,
} from '../server/support.js';
import {
  attrOf,
  canvasInk,
  countOf,
  downloadedBytes,
  eventually,
  FULL_CHROMIUM,
  finished,
  fontState,
  launchBrowser,
  openPage,
  requireBuiltStudio,
  STUDIO_FONT,
  snapshot,
  textOf,
  visibleOf,
} from '../support/browser.js';
import { newSession, ok, tempDir } from '../support/session.js';

let browser: Browser;

beforeAll(async () => {
  requireBuiltStudio();
  // The full browser a designer runs, where the other studio tests use its headless shell (browser.ts).
  browser = await launchBrowser(FULL_CHROMIUM);
});

afterAll(async () => {
  await browser?.close();
});

/** Opens a tool of the palette (under its group's Chinese name) and fills its form by the fields' labels. */
async function runTool(page: Page, group: string, label: string, fields: Record<string, string> = {}) {
  const composer = page.getByRole('tablist', { name: '输入方式' });
  await composer.getByRole('tab', { name: '工具箱' }).click();
  const back = page.getByRole('button', { name: '返回工具列表' });
  if (await back.isVisible()) await back.click();
  await page.getByRole('region', { name: group }).getByRole('button', { name: label, exact: true }).click();
  for (const [field, value] of Object.entries(fields))
    await page.getByLabel(field, { exact: true }).fill(value);
  await page.getByRole('button', { name: '运行' }).click();
}

/** The newest card of a tool in the conversation. */
function lastCard(page: Page, label: string) {
  return page.getByRole('log', { name: '对话记录' }).getByRole('article', { name: label }).last();
}

async function sidePanel(page: Page, tab: '图层' | '历史记录' | '文件') {
  await page.getByRole('tab', { name: tab }).click();
}

function sidePane(page: Page) {
  return page.getByRole('complementary', { name: '面板' });
}

function layerList(page: Page) {
  return page.getByRole('list', { name: '图层列表' });
}

/** A small PSD made by the engine itself: a red block under a text layer. */
async function posterPsd(): Promise<string> {
  const session = newSession(tempDir('atelier-web-psd-'));
  await ok(session, 'create_document', { width: 600, height: 400, name: '海报' });
  await ok(session, 'create_layer', { name: '色块' });
  await ok(session, 'select_rect', { left: 40, top: 40, right: 300, bottom: 200 });
  await ok(session, 'fill_selection', { color: '#c0392b' });
  await ok(session, 'create_text_layer', { text: '夏日', x: 320, y: 220, font_size: 72 });
  await ok(session, 'save_document_as', { path: 'poster.psd' });
  return path.join(session.workspace.root, 'poster.psd');
}

describe('the studio without a model', () => {
  let server: TestServer;
  let page: Page;
  const requests: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    page = await openPage(browser, `${server.url}/`, (p) => p.on('request', (r) => requests.push(r.url())));
  });

  afterAll(async () => {
    await page?.context().close();
    await server?.close();
  });

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await snapshot(page, `failed-${task.name.slice(0, 40)}`);
  });

  it('opens on an empty state that says what to do, in Chinese, with the bundled font', async () => {
    await eventually(visibleOf(page.getByRole('heading', { name: '新建文档或上传 PSD' }))).toBe(true);
    const font = await fontState(page);
    expect(font.family).toContain(STUDIO_FONT);
    expect(font.loaded).toBeGreaterThan(0);
    // Only the slices holding the characters on the page are downloaded (the whole font is 8 MB a weight).
    const fontBytes = font.files.reduce((s, f) => s + f.bytes, 0);
    console.log(
      `studio fonts on first paint: ${font.files.length} files, ${(fontBytes / 1024).toFixed(0)} KiB`,
    );
    expect(font.files.length).toBeGreaterThan(0);
    expect(font.files.every((f) => f.name.endsWith('.woff2'))).toBe(true);
    expect(fontBytes).toBeLessThan(2 * 1024 * 1024);
    // Offline: everything the page loaded came from this server.
    expect(requests.length).toBeGreaterThan(0);
    expect(
      requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('blob:') && !u.startsWith('data:')),
    ).toEqual([]);
    await snapshot(page, '01-empty');
  });

  it('finds tools by Chinese label or English name in the palette', async () => {
    const search = page.getByRole('searchbox', { name: '搜索工具' });
    await search.fill('文字');
    const chips = page.getByRole('group', { name: '工具列表' }).getByRole('button');
    await eventually(() => chips.allTextContents()).toEqual([
      '文字对齐',
      '文字方向',
      '文字变形',
      '修改文字',
      '修改文字颜色',
      '创建文字',
      '创建段落文字',
      '修改部分文字样式',
    ]);
    await search.fill('blur');
    await eventually(() => chips.allTextContents()).toEqual(['高斯模糊']);
    // Two tools the spec labels alike show their names beside the label.
    await search.fill('对齐图层');
    await eventually(() => chips.allTextContents()).toEqual([
      '对齐图层align_layers',
      '对齐图层align_layers_tool',
    ]);
    await search.fill('');
    await eventually(countOf(chips)).toBeGreaterThan(70);
  });

  it('creates a document from the palette form and shows its canvas', async () => {
    await runTool(page, '文档操作', '新建文档', { 宽度: '1200', 高度: '800', 文档名称: '春季海报' });
    await finished(lastCard(page, '新建文档'));
    await eventually(attrOf(page.getByRole('tab', { name: /春季海报/ }), 'aria-selected')).toBe('true');
    await eventually(visibleOf(page.locator('.status-facts', { hasText: '1200 × 800 像素' }))).toBe(true);
    await eventually(() => canvasInk(page)).toMatchObject({ opaque: 1, dark: 0 });
    const ink = (await canvasInk(page))!;
    // Rendered at screen size, not at the document's 1200 px, and in the document's proportions.
    expect(ink.width).toBeLessThan(1200);
    expect(ink.width / ink.height).toBeCloseTo(1.5, 1);
    // Zoom in from the toolbar: a sharper render is fetched; fit to window goes back.
    const zoomText = () => page.getByText(/^缩放 /).textContent();
    const fitted = await zoomText();
    await page.getByRole('button', { name: '实际像素' }).click();
    await eventually(zoomText).toBe('缩放 100%');
    await eventually(async () => (await canvasInk(page))?.width).toBe(1200);
    await page.getByRole('button', { name: '适合窗口' }).click();
    await eventually(zoomText).toBe(fitted);
    await snapshot(page, '02-document');
  });

  it('adds a text layer: the canvas, the layers and the history follow', async () => {
    await runTool(page, '通用编辑', '创建文字', { 文字内容: '春季新品', 字号: '160' });
    // The form says at the fields which required ones are blank, in Chinese, and sends nothing.
    const x = page.getByLabel('文本框左上角的 x 坐标');
    await eventually(attrOf(x, 'aria-invalid')).toBe('true');
    expect(await textOf(page.locator(`#${await x.getAttribute('aria-describedby')}`))()).toBe(
      '必填：请填写后再运行',
    );
    expect(await countOf(lastCard(page, '创建文字'))()).toBe(0);
    await eventually(countOf(layerList(page).getByRole('button', { name: '春季新品', exact: true }))).toBe(0);

    await x.fill('120');
    await page.getByLabel('文本框左上角的 y 坐标').fill('200');
    await page.getByRole('button', { name: '运行' }).click();
    await finished(lastCard(page, '创建文字'));
    await eventually(visibleOf(layerList(page).getByRole('button', { name: '春季新品', exact: true }))).toBe(
      true,
    );
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.01);
    await sidePanel(page, '历史记录');
    const steps = page.getByRole('list', { name: '历史步骤' }).getByRole('button');
    await eventually(() => steps.allTextContents()).toEqual(['0新建文档', '1创建文字']);
    await eventually(attrOf(steps.last(), 'aria-current')).toBe('step');
    await snapshot(page, '03-text-layer');
  });

  it('undoes from the history pane and redoes to a later step', async () => {
    const steps = page.getByRole('list', { name: '历史步骤' }).getByRole('button');
    await steps.first().click();
    await eventually(attrOf(steps.first(), 'aria-current')).toBe('step');
    await eventually(async () => (await canvasInk(page))?.dark ?? 1).toBe(0);
    await sidePanel(page, '图层');
    await eventually(countOf(layerList(page).getByRole('button', { name: '春季新品', exact: true }))).toBe(0);
    await snapshot(page, '04-undone');

    await sidePanel(page, '历史记录');
    await steps.last().click();
    await eventually(attrOf(steps.last(), 'aria-current')).toBe('step');
    await sidePanel(page, '图层');
    await eventually(visibleOf(layerList(page).getByRole('button', { name: '春季新品', exact: true }))).toBe(
      true,
    );
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.01);

    // The editor's shortcuts, outside text fields: Ctrl+Z undoes, Ctrl+Shift+Z redoes.
    await page.getByRole('img', { name: /^画布/ }).click({ force: true });
    await page.keyboard.press('Control+z');
    await eventually(async () => (await canvasInk(page))?.dark ?? 1).toBe(0);
    await page.keyboard.press('Control+Shift+z');
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.01);
  });

  it('hides, locks and restyles a layer through the layer tools', async () => {
    await layerList(page).getByRole('button', { name: '隐藏图层 春季新品' }).click();
    await eventually(visibleOf(layerList(page).getByRole('button', { name: '显示图层 春季新品' }))).toBe(
      true,
    );
    await eventually(async () => (await canvasInk(page))?.dark ?? 1).toBe(0);
    await layerList(page).getByRole('button', { name: '显示图层 春季新品' }).click();
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.01);

    await layerList(page).getByRole('button', { name: '春季新品', exact: true }).first().click();
    await sidePane(page).getByLabel('混合模式', { exact: true }).selectOption('multiply');
    await eventually(textOf(layerList(page))).toContain('正片叠底');
    await layerList(page).getByRole('button', { name: '锁定图层 春季新品' }).click();
    await eventually(
      attrOf(layerList(page).getByRole('button', { name: '解锁图层 春季新品' }), 'aria-pressed'),
    ).toBe('true');
    await eventually(() => sidePane(page).getByLabel('混合模式', { exact: true }).isDisabled()).toBe(true);
    await sidePanel(page, '历史记录');
    await eventually(textOf(page.getByRole('list', { name: '历史步骤' }))).toContain('显示/隐藏图层');
    await eventually(textOf(page.getByRole('list', { name: '历史步骤' }))).toContain('设置混合模式');
    await eventually(textOf(page.getByRole('list', { name: '历史步骤' }))).toContain('锁定图层');
    await snapshot(page, '05-layer-controls');
  });

  it("reaches each of two layers that share a name (as designers' files often have them)", async () => {
    await sidePanel(page, '图层');
    for (let i = 0; i < 2; i++) {
      await runTool(page, '文档与图层', '新建图层', { 新图层的名称: '色块' });
      await eventually(
        countOf(page.getByRole('log', { name: '对话记录' }).getByRole('article', { name: '新建图层' })),
      ).toBe(i + 1);
    }
    await eventually(visibleOf(layerList(page).getByRole('button', { name: '隐藏图层 色块#2' }))).toBe(true);
    // The lower one's eye hides the lower one: the upper stays shown.
    await layerList(page).getByRole('button', { name: '隐藏图层 色块#2' }).click();
    await eventually(visibleOf(layerList(page).getByRole('button', { name: '显示图层 色块#2' }))).toBe(true);
    expect(await visibleOf(layerList(page).getByRole('button', { name: '隐藏图层 色块#1' }))()).toBe(true);
    // The selection is as it was, as in Photoshop: the newest layer (the upper), not the one whose eye was clicked.
    await page.waitForTimeout(200);
    await eventually(
      attrOf(layerList(page).getByRole('button', { name: '色块#1', exact: true }), 'aria-pressed'),
    ).toBe('true');
    expect(
      await attrOf(layerList(page).getByRole('button', { name: '色块#2', exact: true }), 'aria-pressed')(),
    ).toBe('false');
  });

  it('shows a failed call with its Chinese message and hint, and changes nothing', async () => {
    await runTool(page, '通用编辑', '设置透明度', { 图层名称: '不存在的图层', 不透明度百分比: '50' });
    const card = lastCard(page, '设置透明度');
    await eventually(textOf(card)).toContain('失败');
    await eventually(textOf(card.getByRole('alert'))).toContain('不存在的图层');
    await eventually(textOf(card.getByRole('alert'))).toContain('not_found');
    // The hint, written for a model, names the tool to use; the designer reads it under its label.
    await eventually(textOf(card.getByRole('alert'))).toContain('「列出所有图层」');
    expect(await textOf(card.getByRole('alert'))()).not.toContain('list_all_layer_names');
    await snapshot(page, '06-error');
  });

  it('says in Chinese which file was refused when an upload is not an image', async () => {
    const notes = path.join(tempDir('atelier-web-notes-'), '说明.psd');
    writeFileSync(notes, '这不是图像文件');
    await sidePanel(page, '文件');
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: '上传文档' }).click(),
    ]);
    await chooser.setFiles(notes);
    const notice = page.getByRole('log', { name: '对话记录' }).getByRole('alert').last();
    await eventually(textOf(notice)).toContain('“说明.psd”不是 PSD、PNG、JPEG、WebP、AVIF 或 TIFF 文件');
    expect(await textOf(notice)()).not.toMatch(/only PSD/);
    await snapshot(page, '06b-upload-refused');

    // As the garment photo: the formats a photo may be, not a document's.
    const fake = path.join(tempDir('atelier-web-fake-'), 'fake.jpg');
    writeFileSync(fake, '这也不是图像');
    const [garmentChooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: '上传服装照片' }).click(),
    ]);
    await garmentChooser.setFiles(fake);
    await eventually(textOf(notice)).toContain('“fake.jpg”不是 PNG、JPEG、WebP、AVIF 或 TIFF 图像');
    expect(await textOf(notice)()).toContain('不能作为服装照片');

    // An iPhone's photo copied off the phone as it was taken: said as such, with how to export it.
    const heic = path.join(tempDir('atelier-web-heic-'), 'IMG_0042.HEIC');
    writeFileSync(
      heic,
      Buffer.concat([
        Buffer.from([0, 0, 0, 24]),
        Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'),
        Buffer.alloc(64),
      ]),
    );
    const [photoChooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: '上传文档' }).click(),
    ]);
    await photoChooser.setFiles(heic);
    await eventually(textOf(notice)).toContain('“IMG_0042.HEIC”是 HEIC 照片');
    expect(await textOf(notice)()).toContain('兼容性最佳');
    await snapshot(page, '06c-upload-heic');
  });

  it('uploads a PSD, opens it and shows its layers; saves and lists the file for download', async () => {
    const psd = await posterPsd();
    await sidePanel(page, '文件');
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: '上传文档' }).click(),
    ]);
    await chooser.setFiles(psd);
    await finished(lastCard(page, '打开文档'));
    await eventually(attrOf(page.getByRole('tab', { name: 'poster' }), 'aria-selected')).toBe('true');
    await sidePanel(page, '图层');
    await eventually(visibleOf(layerList(page).getByRole('button', { name: '夏日', exact: true }))).toBe(
      true,
    );
    await eventually(visibleOf(layerList(page).getByRole('button', { name: '色块', exact: true }))).toBe(
      true,
    );
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.05);
    await snapshot(page, '07-psd');

    await runTool(page, '文档操作', '另存为', { 保存路径: 'out/海报.png' });
    await finished(lastCard(page, '另存为'));
    await sidePanel(page, '文件');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: '下载 out/海报.png' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('海报.png');
    const bytes = await downloadedBytes(download);
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    await snapshot(page, '08-files');
  });

  it('opens an image dropped on the canvas', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#203040' } })
      .png()
      .toBuffer();
    await page.evaluate(
      `(() => {
        const bytes = Uint8Array.from(atob('${png.toString('base64')}'), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], '色卡.png', { type: 'image/png' }));
        const target = document.querySelector('.canvas-viewport');
        target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      })()`,
    );
    await eventually(attrOf(page.getByRole('tab', { name: '色卡' }), 'aria-selected')).toBe('true');
    await eventually(async () => await canvasInk(page)).toMatchObject({ width: 64, height: 48, dark: 1 });
    // Opened and not changed: it closes without asking.
    await page.getByRole('button', { name: '关闭 色卡' }).click();
    await eventually(countOf(page.getByRole('tab', { name: '色卡' }))).toBe(0);
  });

  it('switches documents with the tabs and closes one', async () => {
    await page.getByRole('tab', { name: /春季海报/ }).click();
    await eventually(attrOf(page.getByRole('tab', { name: /春季海报/ }), 'aria-selected')).toBe('true');
    await sidePanel(page, '图层');
    await eventually(visibleOf(layerList(page).getByRole('button', { name: '春季新品', exact: true }))).toBe(
      true,
    );
    await page.getByRole('button', { name: '关闭 春季海报' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '不保存' }).click();
    await eventually(countOf(page.getByRole('tab', { name: /春季海报/ }))).toBe(0);
    await eventually(attrOf(page.getByRole('tab', { name: 'poster' }), 'aria-selected')).toBe('true');
    // Closing a tab beside the one in use leaves the one in use in use.
    for (const name of ['旁边', '再旁边']) {
      await runTool(page, '文档操作', '新建文档', { 宽度: '100', 高度: '100', 文档名称: name });
      await eventually(attrOf(page.getByRole('tab', { name: new RegExp(`^${name}`) }), 'aria-selected')).toBe(
        'true',
      );
    }
    await page.getByRole('tab', { name: 'poster' }).click();
    await eventually(attrOf(page.getByRole('tab', { name: 'poster' }), 'aria-selected')).toBe('true');
    await page.getByRole('button', { name: '关闭 旁边' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '不保存' }).click();
    await eventually(countOf(page.getByRole('tab', { name: /^旁边/ }))).toBe(0);
    await eventually(attrOf(page.getByRole('tab', { name: 'poster' }), 'aria-selected')).toBe('true');
    expect(
      await countOf(page.getByRole('tablist', { name: '文档' }).getByRole('tab', { selected: true }))(),
    ).toBe(1);
  });

  it('switches to English and back', async () => {
    await page.getByRole('button', { name: '切换为英文界面' }).click();
    await eventually(attrOf(page.locator('html'), 'lang')).toBe('en');
    await eventually(visibleOf(page.getByRole('tab', { name: 'Layers' }))).toBe(true);
    // Tool labels are the registry's English ones (Photoshop's words), on the cards as in the palette.
    await eventually(
      visibleOf(
        page.getByRole('log', { name: 'Conversation' }).getByRole('article', { name: 'Save As' }).last(),
      ),
    ).toBe(true);
    await snapshot(page, '09-english');
    await page.getByRole('button', { name: 'Switch to Chinese' }).click();
    await eventually(visibleOf(page.getByRole('tab', { name: '图层' }))).toBe(true);
  });
});

describe('the studio with a token', () => {
  let server: TestServer;
  let page: Page;
  const urls: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ token: TOKEN });
  });

  afterAll(async () => {
    await page?.context().close();
    await server?.close();
  });

  it('takes the token from the address once and sends it as a header, never in a URL', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    const authorized: boolean[] = [];
    page.on('request', (r) => {
      urls.push(r.url());
      if (new URL(r.url()).pathname.startsWith('/v1/'))
        authorized.push(r.headers().authorization === `Bearer ${TOKEN}`);
    });
    await page.goto(`${server.url}/?token=${TOKEN}`);
    await eventually(visibleOf(page.getByRole('heading', { name: '新建文档或上传 PSD' }))).toBe(true);
    expect(page.url()).toBe(`${server.url}/`);

    await runTool(page, '文档操作', '新建文档', { 宽度: '400', 高度: '300' });
    await finished(lastCard(page, '新建文档'));
    await eventually(() => canvasInk(page)).toMatchObject({ opaque: 1 });
    expect(urls.filter((u) => u.includes(TOKEN))).toEqual([urls[0]]);
    expect(authorized.length).toBeGreaterThan(3);
    expect(authorized.every(Boolean)).toBe(true);
  });

  it('refuses the API without the token while the page itself loads', async () => {
    const page2 = await openPage(browser, `${server.url}/`);
    await eventually(textOf(page2.getByRole('alert'))).toContain('?token=');
    await page2.context().close();
  });
});

/** A page of the studio on session `id` (as a tab that opened it before would be), at `width` × `height`. */
async function openOnSession(url: string, id: string, width = 1440, height = 900): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript((sid) => {
    const store = (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } })
      .sessionStorage;
    store.setItem('atelier.session', sid);
  }, id);
  const page = await context.newPage();
  await page.goto(`${url}/`);
  return page;
}

describe('the studio across windows, reloads and tabs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('keeps every pane on screen with many documents open, and stacks the panes in a narrow window', async () => {
    const id = await createSession(server.url);
    const names = [
      '春季海报',
      '夏季促销主视觉横幅海报设计稿第二版最终版',
      '秋',
      'Winter campaign key visual final',
    ];
    await okCalls(server.url, id, [
      ...[...names, '童装', '男装T恤印花', '女装连衣裙', '配饰', '鞋履', '包袋'].map((name) =>
        toolCall('create_document', { width: 800, height: 600, name }),
      ),
      toolCall('create_text_layer', { text: '夏日', x: 100, y: 100, font_size: 120 }),
    ]);
    for (const [width, height] of [
      [1440, 900],
      [1024, 768],
      [390, 844],
    ] as const) {
      const page = await openOnSession(server.url, id, width, height);
      try {
        await eventually(visibleOf(page.getByRole('tab', { name: /包袋/ }))).toBe(true);
        // The tab strip scrolls; the page does not grow wider than the window.
        const [scroll, client] = await page.evaluate(() => {
          const root = (
            globalThis as unknown as {
              document: { documentElement: { scrollWidth: number; clientWidth: number } };
            }
          ).document.documentElement;
          return [root.scrollWidth, root.clientWidth];
        });
        expect(scroll, `${width}`).toBe(client);
        const side = await page.getByRole('complementary', { name: '面板' }).boundingBox();
        expect(side!.x + side!.width, `${width}`).toBeLessThanOrEqual(width);
        // The side panel's tabs take a click (the canvas lay over them in a narrow window).
        await page.getByRole('tab', { name: '历史记录' }).click({ timeout: 5_000 });
        await eventually(visibleOf(page.getByRole('list', { name: '历史步骤' }))).toBe(true);
        await snapshot(page, `21-window-${width}`);
      } finally {
        await page.context().close();
      }
    }
  });

  it("shows the cards it showed, the toolbox's included, after the page is reloaded", async () => {
    const page = await openPage(browser, `${server.url}/`);
    try {
      await runTool(page, '文档操作', '新建文档', { 宽度: '300', 高度: '200', 文档名称: '重载' });
      await finished(lastCard(page, '新建文档'));
      await runTool(page, '文档与图层', '新建图层', { 新图层的名称: '留下' });
      await finished(lastCard(page, '新建图层'));
      const before = await countOf(page.getByRole('log', { name: '对话记录' }).getByRole('article'))();
      expect(before).toBeGreaterThan(0);
      // Saved a moment after the feed settles.
      await page.waitForTimeout(600);
      await page.reload();
      await finished(lastCard(page, '新建文档'));
      expect(await countOf(page.getByRole('log', { name: '对话记录' }).getByRole('article'))()).toBe(before);
      expect(await textOf(page.getByRole('log', { name: '对话记录' }))()).not.toContain('还没有操作');
      await snapshot(page, '22-after-reload');
    } finally {
      await page.context().close();
    }
  });

  it('the other tab catches up, and undoing to a step there counts from the real history', async () => {
    const id = await createSession(server.url);
    await okCalls(server.url, id, [toolCall('create_document', { width: 200, height: 100, name: '两处' })]);
    const open = async () => {
      const page = await openOnSession(server.url, id);
      await sidePanel(page, '历史记录');
      return page;
    };
    const [a, b] = [await open(), await open()];
    try {
      const steps = (p: Page) => p.getByRole('list', { name: '历史步骤' }).getByRole('button');
      await eventually(countOf(steps(b))).toBe(1);
      // Two more steps made in the first tab (as another designer or an API client would).
      await okCalls(server.url, id, [
        toolCall('create_layer', { name: '一' }),
        toolCall('create_layer', { name: '二' }),
      ]);
      await a.reload();
      await sidePanel(a, '历史记录');
      await eventually(countOf(steps(a))).toBe(3);
      // The second tab, looked at again, shows them.
      await b.bringToFront();
      await b.evaluate(() =>
        (globalThis as unknown as { dispatchEvent(e: unknown): void }).dispatchEvent(
          new (globalThis as unknown as { Event: new (t: string) => unknown }).Event('focus'),
        ),
      );
      await eventually(countOf(steps(b))).toBe(3);
      // Undo to the first step from there: the document is back at its first step.
      await steps(b).first().click();
      await eventually(async () => {
        const r = await fetch(`${server.url}/v1/sessions/${id}/state`);
        return ((await r.json()) as { active: { history: { index: number } } }).active.history.index;
      }).toBe(0);
    } finally {
      await a.context().close();
      await b.context().close();
    }
  });
});
