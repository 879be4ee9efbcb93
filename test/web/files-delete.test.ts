/**
 * Deleting a session's files from the studio's files pane, in real Chromium: asked first, gone from the list and
 * the disk once confirmed, and a file an open document uses is kept, the pane saying why in Chinese until the
 * document is closed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
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

    // Asked first: dismissed, nothing happens.
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('button', { name: '删除 旧稿/草图.png' }).click();
    await eventually(() => asked.length).toBe(1);
    expect(asked[0]).toBe('删除“旧稿/草图.png”？删除后无法恢复。');
    expect(existsSync(path.join(dir, '旧稿/草图.png'))).toBe(true);
    expect(await textOf(list)()).toContain('旧稿/草图.png');

    // Confirmed: gone from the list and from the disk.
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: '删除 旧稿/草图.png' }).click();
    await eventually(textOf(list)).not.toContain('旧稿/草图.png');
    expect(existsSync(path.join(dir, '旧稿/草图.png'))).toBe(false);

    // The open document's file stays, and the pane says why.
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: '删除 海报.png' }).click();
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
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: '删除 海报.png' }).click();
    await eventually(textOf(page.getByRole('complementary', { name: '面板' }))).toContain('会话中还没有文件');
    expect(existsSync(path.join(dir, '海报.png'))).toBe(false);
  });
});
