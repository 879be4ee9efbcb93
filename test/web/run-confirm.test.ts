/**
 * The tool form's run button, in a real browser: saving, converting to CMYK and undoing are everyday steps run
 * from the same blue button as any other (their history takes them back, and Save writes the document's own
 * file), while a run that would lose something for good asks first, in the form: Save As onto a file that is
 * already there (even one another client saved a moment ago), and closing a document with unsaved changes.
 * Cancelling leaves the file and the document as they were.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, finished, snapshot, textOf, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('run-confirm');

async function openTool(page: Page, label: string) {
  await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
  const back = page.getByRole('button', { name: '返回工具列表' });
  if (await back.isVisible()) await back.click();
  await page.getByRole('button', { name: label, exact: true }).click();
}

const feed = (page: Page) => page.getByRole('log', { name: '对话记录' });
const cards = (page: Page, label: string) => feed(page).getByRole('article', { name: label });
const statusBar = (page: Page) => page.locator('.status-bar');
const runButton = (page: Page) => page.getByRole('button', { name: '运行', exact: true });
/** The run button's fill, as the designer sees it. */
/** The page's globals these checks read (the tests' TypeScript has no DOM types). */
type InPage = {
  getComputedStyle(e: unknown): { backgroundColor: string };
  document: { activeElement: unknown };
};
const fill = (l: Locator) =>
  l.evaluate((e) => (globalThis as unknown as InPage).getComputedStyle(e).backgroundColor);
const fillOf = (page: Page) => fill(runButton(page));
const focused = (l: Locator) =>
  l.evaluate((e) => e === (globalThis as unknown as InPage).document.activeElement);

/** A fill with clearly more red than blue in it (the danger fill; the everyday one is blue, a plain one grey). */
const reddish = (css: string) => {
  const [r = 0, , b = 0] = (css.match(/\d+/g) ?? []).map(Number);
  return r > b + 60;
};

const fileIn = (id: string, rel: string) => path.join(studio.workspace, 'sessions', id, rel);
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('the tool form’s run button', () => {
  it('runs Save As, CMYK, Undo and Save in the everyday colour, without a question', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 320, height: 200, name: '海报' })]);
    const page = await studio.open(id);
    await eventually(textOf(statusBar(page))).toContain('RGB');

    await openTool(page, '查看文档信息');
    const everyday = await fillOf(page);
    expect(everyday).toMatch(/^rgb/);

    await openTool(page, '另存为');
    expect(await fillOf(page)).toBe(everyday);
    await page.getByLabel('保存路径', { exact: true }).fill('out/海报.png');
    await runButton(page).click();
    await finished(cards(page, '另存为').last());
    expect(await countOf(page.getByRole('alertdialog'))()).toBe(0);
    expect(digest(fileIn(id, 'out/海报.png'))).toMatch(/^[0-9a-f]{64}$/);

    await openTool(page, '转CMYK');
    expect(await fillOf(page)).toBe(everyday);
    await runButton(page).click();
    await eventually(textOf(statusBar(page))).toContain('CMYK');
    expect(await countOf(page.getByRole('alertdialog'))()).toBe(0);

    // The conversion is a step like any other: undo takes it back.
    await openTool(page, '撤销');
    expect(await fillOf(page)).toBe(everyday);
    await runButton(page).click();
    await eventually(textOf(statusBar(page))).toContain('RGB');

    await openTool(page, '保存文档');
    expect(await fillOf(page)).toBe(everyday);
    await runButton(page).click();
    await finished(cards(page, '保存文档').last());
    expect(await countOf(page.getByRole('alertdialog'))()).toBe(0);
    await eventually(textOf(page.getByRole('banner'))).not.toContain('•');
  });

  it('asks before Save As replaces a file, even one saved a moment ago elsewhere; cancel keeps the file', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 320, height: 200, name: '海报' })]);
    const page = await studio.open(id);
    await eventually(textOf(statusBar(page))).toContain('RGB');
    await openTool(page, '另存为');

    // Another client saves the file after the page listed the files (before its next look at them).
    await okCalls(studio.url, id, [toolCall('save_document_as', { path: 'out/poster.png' })]);
    const before = digest(fileIn(id, 'out/poster.png'));
    await okCalls(studio.url, id, [toolCall('resize_canvas', { width: 160, height: 100 })]);

    // Written another way, the same file.
    await page.getByLabel('保存路径', { exact: true }).fill('./out//poster.png');
    await runButton(page).click();
    const ask = page.getByRole('alertdialog');
    await eventually(textOf(ask)).toContain('“./out//poster.png”已存在');
    const replace = ask.getByRole('button', { name: '替换' });
    const cancel = ask.getByRole('button', { name: '取消' });
    // The safe answer has the keys, and only the answer that overwrites is red.
    expect(await focused(cancel)).toBe(true);
    // It appears where 运行 was clicked, so under the pointer: red there too.
    expect(await replace.evaluate((e) => (e as { matches(s: string): boolean }).matches(':hover'))).toBe(
      true,
    );
    expect(reddish(await fill(replace))).toBe(true);
    expect(reddish(await fill(cancel))).toBe(false);
    await snapshot(page, '86-save-as-replace');

    await page.keyboard.press('Escape');
    await eventually(countOf(ask)).toBe(0);
    expect(await visibleOf(runButton(page))()).toBe(true);
    expect(await countOf(cards(page, '另存为'))()).toBe(0);
    expect(digest(fileIn(id, 'out/poster.png'))).toBe(before);

    await runButton(page).click();
    await ask.getByRole('button', { name: '替换' }).click();
    await finished(cards(page, '另存为').last());
    expect(digest(fileIn(id, 'out/poster.png'))).not.toBe(before);

    // A new name asks nothing.
    await page.getByLabel('保存路径', { exact: true }).fill('out/poster-2.png');
    await runButton(page).click();
    await eventually(countOf(cards(page, '另存为'))).toBe(2);
    expect(await countOf(ask)()).toBe(0);
  });

  it('asks before closing a document with unsaved changes, not when it saves first', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 320, height: 200, name: '草稿' }),
      toolCall('create_document', { width: 320, height: 200, name: '定稿' }),
    ]);
    const page = await studio.open(id);
    const tabs = page.getByRole('tablist', { name: '文档' });
    await eventually(textOf(tabs)).toContain('定稿');

    await openTool(page, '关闭文档');
    await runButton(page).click();
    const ask = page.getByRole('alertdialog');
    await eventually(textOf(ask)).toContain('“定稿”有未保存的修改，关闭后将丢失');
    await ask.getByRole('button', { name: '取消' }).click();
    await eventually(countOf(ask)).toBe(0);
    expect(await textOf(tabs)()).toContain('定稿');

    await runButton(page).click();
    await ask.getByRole('button', { name: '不保存并关闭' }).click();
    await eventually(textOf(tabs)).not.toContain('定稿');

    // Saving first loses nothing: no question.
    await page.getByLabel('关闭前是否保存', { exact: true }).check();
    await runButton(page).click();
    await eventually(textOf(tabs)).not.toContain('草稿');
    expect(await countOf(ask)()).toBe(0);
    expect(digest(fileIn(id, '草稿.psd'))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('closing a tab with unsaved changes offers to save, not to save, or to cancel', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 320, height: 200, name: '草稿' }),
      toolCall('create_document', { width: 320, height: 200, name: '定稿' }),
    ]);
    const page = await studio.open(id);
    const tabs = page.getByRole('tablist', { name: '文档' });
    await eventually(textOf(tabs)).toContain('定稿');
    const ask = page.getByRole('dialog');

    await page.getByRole('button', { name: '关闭 定稿' }).click();
    await eventually(textOf(ask)).toContain('关闭前要保存对“定稿”的修改吗？');
    // Saving, the answer that loses nothing, has the keys; Esc closes nothing.
    expect(await focused(ask.getByRole('button', { name: '保存并关闭' }))).toBe(true);
    await snapshot(page, '87-close-unsaved');
    await page.keyboard.press('Escape');
    await eventually(visibleOf(ask)).toBe(false);
    expect(await textOf(tabs)()).toContain('定稿');
    await page.getByRole('button', { name: '关闭 定稿' }).click();
    await ask.getByRole('button', { name: '取消' }).click();
    await eventually(visibleOf(ask)).toBe(false);
    expect(await textOf(tabs)()).toContain('定稿');

    await page.getByRole('button', { name: '关闭 定稿' }).click();
    await ask.getByRole('button', { name: '不保存' }).click();
    await eventually(textOf(tabs)).not.toContain('定稿');
    expect(existsSync(fileIn(id, '定稿.psd'))).toBe(false);

    await page.getByRole('button', { name: '关闭 草稿' }).click();
    await ask.getByRole('button', { name: '保存并关闭' }).click();
    await eventually(textOf(tabs)).not.toContain('草稿');
    expect(digest(fileIn(id, '草稿.psd'))).toMatch(/^[0-9a-f]{64}$/);
  });
});
