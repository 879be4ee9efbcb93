/**
 * The image viewer (a card's image shown full size) closes as a design app's does: a click on the dimmed page
 * around it, Esc, or its close button — and not a click on the image itself, which one makes to look closer.
 */
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('image-viewer');

describe('the image viewer', () => {
  it('closes on a click on the backdrop, on Esc and on its close button, not on a click on the image', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 800, height: 500, name: '看图' }),
      toolCall('create_text_layer', { text: '大图', x: 40, y: 40, font_size: 200, color: '#2040c0' }),
    ]);
    const page = await studio.open(id);
    await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
    await page.getByRole('searchbox', { name: '搜索工具' }).fill('查看画布');
    await page.getByRole('button', { name: '查看画布', exact: true }).click();
    await page.getByRole('button', { name: '运行' }).click();
    const card = page.getByRole('log', { name: '对话记录' }).getByRole('article', { name: '查看画布' });
    const enlarge = card.getByRole('button', { name: '查看大图' });
    await eventually(visibleOf(enlarge)).toBe(true);
    const viewer = page.getByRole('dialog');
    const image = viewer.locator('img');
    const opened = async () => {
      await enlarge.click();
      await eventually(visibleOf(viewer)).toBe(true);
      await eventually(() => image.evaluate((img) => (img as { naturalWidth: number }).naturalWidth)).toBe(
        800,
      );
    };

    // A click on the image keeps it open.
    await opened();
    await snapshot(page, '85-image-viewer');
    const box = (await image.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForTimeout(150);
    expect(await visibleOf(viewer)()).toBe(true);

    // A click on the dimmed page beside it closes it.
    const size = page.viewportSize()!;
    expect(box.x).toBeGreaterThan(20);
    await page.mouse.click(10, size.height / 2);
    await eventually(visibleOf(viewer)).toBe(false);

    // Esc closes it, and so does its close button.
    await opened();
    await page.keyboard.press('Escape');
    await eventually(visibleOf(viewer)).toBe(false);
    await opened();
    await viewer.getByRole('button', { name: '关闭大图' }).click();
    await eventually(visibleOf(viewer)).toBe(false);
  });
});
