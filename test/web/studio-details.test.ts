/**
 * The studio in English and on a phone, and while a file uploads: tool labels in the UI's language, an upload
 * that says it is being sent, a tool's form with room for its fields at 390 × 844, and a model badge that leaves
 * the top bar to the document tabs.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { attrOf, eventually, snapshot, textOf, visibleOf } from '../support/browser.js';
import { tempDir } from '../support/session.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('details');

type Box = { x: number; y: number; width: number; height: number };

describe('tool labels in the UI’s language', () => {
  it('shows the English labels in English (palette, groups, form, card) and the Chinese ones in Chinese; search finds both', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: 'poster' })]);
    const page = await studio.open(id, 1440, 900, 'en');
    await page.getByRole('tablist', { name: 'Input' }).getByRole('tab', { name: 'Toolbox' }).click();
    const search = page.getByRole('searchbox', { name: 'Search tools' });
    const chips = page.getByRole('group', { name: 'Tools' }).getByRole('button');
    await eventually(visibleOf(page.getByRole('button', { name: 'Document Info', exact: true }))).toBe(true);
    await eventually(visibleOf(page.getByRole('heading', { name: 'Documents & Layers' }))).toBe(true);
    expect(await chips.allTextContents()).not.toContain('查看文档信息');
    await snapshot(page, '50-english-palette');
    // Searching by the Chinese label, the English label or the API name finds the same tool.
    for (const query of ['高斯', 'gaussian b', 'gaussian_blur']) {
      await search.fill(query);
      await eventually(() => chips.allTextContents()).toEqual(['Gaussian Blur']);
    }
    // The two tools the spec labels alike in Chinese have their own English labels: no names beside them.
    await search.fill('对齐图层');
    await eventually(() => chips.allTextContents()).toEqual(['Align Layers', 'Align Named Layers']);
    await search.fill('merge');
    await eventually(() => chips.allTextContents()).toEqual(['Merge Layers', 'Merge Visible', 'Copy Merged']);
    await search.fill('Document Info');
    await page.getByRole('button', { name: 'Document Info', exact: true }).click();
    const form = page.getByRole('form', { name: 'Document Info' });
    await eventually(visibleOf(form.getByRole('heading', { name: 'Document Info' }))).toBe(true);
    await form.getByRole('button', { name: 'Run' }).click();
    const log = page.getByRole('log', { name: 'Conversation' });
    const card = log.getByRole('article', { name: 'Document Info' }).last();
    await eventually(textOf(card)).toContain('Done');
    await snapshot(page, '51-english-card');
    // Back in Chinese, the same card, form and palette speak Chinese.
    await page.getByRole('button', { name: 'Switch to Chinese' }).click();
    const 记录 = page.getByRole('log', { name: '对话记录' });
    await eventually(visibleOf(记录.getByRole('article', { name: '查看文档信息' }).last())).toBe(true);
    await eventually(
      visibleOf(
        page.getByRole('form', { name: '查看文档信息' }).getByRole('heading', { name: '查看文档信息' }),
      ),
    ).toBe(true);
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await page.getByRole('searchbox', { name: '搜索工具' }).fill('Gaussian Blur');
    const 工具 = page.getByRole('group', { name: '工具列表' }).getByRole('button');
    await eventually(() => 工具.allTextContents()).toEqual(['高斯模糊']);
  });
});

/** Holds every upload (POST …/files) until `release` is called: what the page shows meanwhile can be looked at. */
async function holdUploads(page: Page) {
  const held: Route[] = [];
  await page.route(
    (url) => /\/v1\/sessions\/[^/]+\/files$/.test(url.pathname),
    (route) => (route.request().method() === 'POST' ? void held.push(route) : route.continue()),
  );
  return {
    count: () => held.length,
    release: async () => {
      for (const route of held.splice(0)) await route.continue();
    },
  };
}

async function chooseFile(page: Page, button: string, file: string) {
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await chooser.setFiles(file);
}

describe('uploads', () => {
  it('says 上传中… (and is busy) while a file is sent, until it is opened or refused', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '底稿' })]);
    const page = await studio.open(id);
    const status = page.locator('.status-bar .status-busy');
    await eventually(textOf(status)).toBe('就绪');
    const uploads = await holdUploads(page);
    const dir = tempDir('atelier-web-upload-');
    // A PNG the server accepts: 1 × 1, white.
    const png = path.join(dir, '小图.png');
    writeFileSync(
      png,
      Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==',
        'base64',
      ),
    );
    await page.getByRole('tab', { name: '文件' }).click();
    await chooseFile(page, '上传文档', png);
    await eventually(uploads.count).toBe(1);
    await eventually(textOf(status)).toBe('上传中…');
    const files = page.getByRole('complementary', { name: '面板' });
    await eventually(visibleOf(files.getByRole('status').filter({ hasText: '上传中…' }))).toBe(true);
    expect(await page.getByRole('button', { name: '上传文档' }).isDisabled()).toBe(true);
    await snapshot(page, '52-uploading');
    await uploads.release();
    await eventually(attrOf(page.getByRole('tab', { name: '小图' }), 'aria-selected')).toBe('true');
    await eventually(textOf(status)).toBe('就绪');
    await eventually(() => files.getByRole('status').count()).toBe(0);

    // Refused by the server: the same until the answer, then the notice and ready again.
    const notes = path.join(dir, '说明.psd');
    writeFileSync(notes, '这不是图像文件');
    await chooseFile(page, '上传文档', notes);
    await eventually(uploads.count).toBe(1);
    await eventually(textOf(status)).toBe('上传中…');
    await uploads.release();
    const notice = page.getByRole('log', { name: '对话记录' }).getByRole('alert').last();
    await eventually(textOf(notice)).toContain('“说明.psd”不是 PSD、PNG、JPEG、WebP、AVIF 或 TIFF 文件');
    await eventually(textOf(status)).toBe('就绪');
    await eventually(() => files.getByRole('status').count()).toBe(0);
  });

  it('says Uploading… in English, also with no document open', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id, 1440, 900, 'en');
    const uploads = await holdUploads(page);
    const notes = path.join(tempDir('atelier-web-upload-en-'), 'notes.psd');
    writeFileSync(notes, 'not an image');
    await chooseFile(page, 'Upload a file', notes);
    await eventually(uploads.count).toBe(1);
    const canvas = page.locator('.canvas-pane');
    await eventually(visibleOf(canvas.getByRole('status').filter({ hasText: 'Uploading…' }))).toBe(true);
    await snapshot(page, '53-uploading-english-empty');
    await uploads.release();
    await eventually(() => canvas.getByRole('status').count()).toBe(0);
  });
});

describe('on a phone (390 × 844)', () => {
  it('gives an open tool form the room for its fields, with 运行 in view', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '海报' })]);
    const page = await studio.open(id, 390, 844);
    await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
    await page.getByRole('searchbox', { name: '搜索工具' }).fill('创建文字');
    await page.getByRole('button', { name: '创建文字', exact: true }).click();
    const form = page.getByRole('form', { name: '创建文字' });
    await form.scrollIntoViewIfNeeded();
    const fields = form.locator('.fields');
    // Every field is laid out in the page (which scrolls), none hidden in a box of its own.
    const [scrollHeight, clientHeight] = await fields.evaluate((el) => [el.scrollHeight, el.clientHeight]);
    expect(scrollHeight).toBeLessThanOrEqual(clientHeight + 1);
    // The form has more of the pane than the (empty) conversation above it.
    const formBox = (await form.boundingBox()) as Box;
    const feedBox = (await page.getByRole('log', { name: '对话记录' }).boundingBox()) as Box;
    expect(formBox.height).toBeGreaterThan(2 * feedBox.height);
    // …and its pane holds it: the panes below start after its end, nothing drawn over its fields.
    const side = (await page.getByRole('complementary', { name: '面板' }).boundingBox()) as Box;
    expect(side.y).toBeGreaterThanOrEqual(formBox.y + formBox.height - 1);
    // Scrolled to the form's first field, the screen shows several fields and the run button.
    await form.getByRole('textbox', { name: /文字内容/ }).scrollIntoViewIfNeeded();
    await page
      .getByRole('heading', { name: '创建文字' })
      .evaluate((el) => el.scrollIntoView({ block: 'start' }));
    const shown = await fields.evaluate((el) => {
      const h = (el.ownerDocument.defaultView as unknown as { innerHeight: number }).innerHeight;
      return [...el.children].filter((f) => {
        const b = f.getBoundingClientRect();
        return b.top >= 0 && b.bottom <= h;
      }).length;
    });
    expect(shown).toBeGreaterThanOrEqual(3);
    const run = (await form.getByRole('button', { name: '运行' }).boundingBox()) as Box;
    expect(run.y + run.height).toBeLessThanOrEqual(844);
    await snapshot(page, '54-phone-form');
    // Filled in and run from there, as on a desktop.
    await form.getByRole('textbox', { name: /文字内容/ }).fill('夏日');
    for (const [param, value] of [
      ['x', '20'],
      ['y', '40'],
      ['font_size', '60'],
    ]) {
      await form.locator(`#param-create_text_layer-${param}`).fill(value as string);
    }
    await form.getByRole('button', { name: '运行' }).click();
    await eventually(
      textOf(page.getByRole('log', { name: '对话记录' }).getByRole('article', { name: '创建文字' }).last()),
    ).toContain('完成');
  });

  it('shows the model badge as a dot that leaves the width to the tabs, its words on hover and on tap', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 400, height: 300, name: '春季海报' }),
      toolCall('create_document', { width: 400, height: 300, name: '夏季海报' }),
    ]);
    const page = await studio.open(id, 390, 844);
    const badge = page.getByRole('button', { name: '未配置模型 · 离线编辑' });
    await eventually(visibleOf(badge)).toBe(true);
    expect(await badge.getAttribute('title')).toBe('未配置模型 · 离线编辑');
    const strip = (await page.getByRole('tablist', { name: '文档' }).boundingBox()) as Box;
    expect(strip.width).toBeGreaterThanOrEqual(200);
    expect(((await badge.boundingBox()) as Box).width).toBeLessThanOrEqual(32);
    const words = badge.locator('.model-text');
    expect(await words.isVisible()).toBe(false);
    await snapshot(page, '55-phone-badge');
    await badge.click();
    await eventually(visibleOf(words)).toBe(true);
    const shown = (await words.boundingBox()) as Box;
    expect(shown.x).toBeGreaterThanOrEqual(0);
    expect(shown.x + shown.width).toBeLessThanOrEqual(390);
    expect(await textOf(words)()).toBe('未配置模型 · 离线编辑');
    await snapshot(page, '56-phone-badge-open');
    await badge.click();
    await eventually(visibleOf(words)).toBe(false);
    // In a wide window the words are the badge.
    const wide = await studio.open(id, 1440, 900);
    const wideBadge = wide.getByRole('button', { name: '未配置模型 · 离线编辑' });
    await eventually(visibleOf(wideBadge.locator('.model-text'))).toBe(true);
  });
});
