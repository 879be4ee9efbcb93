/**
 * Deleting a session's files from the studio's files pane, in real Chromium: asked first in the studio's own
 * dialog (取消 has the keys, Esc cancels; no browser confirm box), gone from the list and the disk once
 * confirmed, and a file an open document uses is kept, the pane saying why in Chinese until the document is
 * closed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot, textOf, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('files-delete');

async function put(id: string, name: string): Promise<void> {
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const res = await fetch(`${studio.url}/v1/sessions/${id}/files?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    body: png,
  });
  expect(res.status).toBe(201);
}

function fileList(page: Page) {
  return page.getByRole('list', { name: '会话文件' });
}

/** Whether the element has the keys (the tests' TypeScript has no DOM types). */
const focused = (l: Locator) =>
  l.evaluate(
    (e) => e === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
  );

/** Asks to delete `file` with the bin, and answers the studio's question with `answer`. */
async function remove(page: Page, file: string, answer = '删除') {
  await page.getByRole('button', { name: `删除 ${file}` }).click();
  const ask = page.getByRole('dialog', { name: `要删除“${file}”吗？` });
  await eventually(visibleOf(ask)).toBe(true);
  await ask.getByRole('button', { name: answer, exact: true }).click();
  await eventually(visibleOf(ask)).toBe(false);
}

describe('the files pane', () => {
  it('deletes a file after asking, and keeps, saying why, one an open document uses', async () => {
    const id = await createSession(studio.url);
    await put(id, '旧稿/草图.png');
    await put(id, '海报.png');
    await okCalls(studio.url, id, [toolCall('open_document', { path: '海报.png' })]);
    const page = await studio.open(id);
    await page.getByRole('tab', { name: '文件' }).click();
    const list = fileList(page);
    await eventually(textOf(list)).toContain('旧稿/草图.png');
    const dir = path.join(studio.workspace, 'sessions', id);

    // No browser box: a native confirm would be answered (and counted) here.
    const boxes: string[] = [];
    page.on('dialog', (d) => {
      boxes.push(d.message());
      void d.dismiss();
    });

    // Asked first, in the studio's own dialog, with 取消 holding the keys: Esc, then 取消, change nothing.
    await page.getByRole('button', { name: '删除 旧稿/草图.png' }).click();
    const ask = page.getByRole('dialog', { name: '要删除“旧稿/草图.png”吗？' });
    await eventually(visibleOf(ask)).toBe(true);
    expect(await textOf(ask)()).toContain('删除后无法恢复。');
    expect(await focused(ask.getByRole('button', { name: '取消' }))).toBe(true);
    await snapshot(page, 'files-delete-ask');
    await page.keyboard.press('Escape');
    await eventually(visibleOf(ask)).toBe(false);
    // Enter on the focused answer is 取消 too: what a designer's reflex keypress does loses nothing.
    await page.getByRole('button', { name: '删除 旧稿/草图.png' }).click();
    await eventually(visibleOf(ask)).toBe(true);
    await page.keyboard.press('Enter');
    await eventually(visibleOf(ask)).toBe(false);
    await remove(page, '旧稿/草图.png', '取消');
    expect(existsSync(path.join(dir, '旧稿/草图.png'))).toBe(true);
    expect(await textOf(list)()).toContain('旧稿/草图.png');

    // Confirmed: gone from the list and from the disk.
    await remove(page, '旧稿/草图.png');
    await eventually(textOf(list)).not.toContain('旧稿/草图.png');
    expect(existsSync(path.join(dir, '旧稿/草图.png'))).toBe(false);

    // The open document's file stays, and the pane says why.
    await remove(page, '海报.png');
    const alert = page.getByRole('complementary', { name: '面板' }).getByRole('alert');
    await eventually(visibleOf(alert)).toBe(true);
    expect(await textOf(alert)()).toBe(
      '“海报.png”正被打开的文档“海报”使用（从它打开或保存到它），没有删除：先关闭该文档，再删除它',
    );
    expect(existsSync(path.join(dir, '海报.png'))).toBe(true);
    expect(await textOf(list)()).toContain('海报.png');
    await snapshot(page, 'files-delete-refused');

    // Once the document is closed, the refusal goes and the file can be deleted.
    await page.getByRole('button', { name: '关闭 海报' }).click();
    await eventually(visibleOf(alert)).toBe(false);
    await remove(page, '海报.png');
    await eventually(textOf(page.getByRole('complementary', { name: '面板' }))).toContain('会话中还没有文件');
    expect(existsSync(path.join(dir, '海报.png'))).toBe(false);
    expect(boxes).toEqual([]);
  });
});
