/**
 * 文字变形 from the studio's toolbox: a designer bends a slogan into an arc from the tool's form (generated from the
 * registry), and the canvas shows it bent; a bend out of range is marked at the field and sends nothing.
 */
import { describe, expect, it } from 'vitest';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, finished, snapshot, textOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-text-warp');

describe('文字变形 in the studio', () => {
  it('bends a slogan from the toolbox form, and the canvas shows it bent', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 800, height: 500 }),
      toolCall('create_text_layer', { text: 'SUMMER SALE', x: 400, y: 200, font_size: 72, color: '#c0392b' }),
      toolCall('set_text_alignment', { name: 'SUMMER SALE', alignment: 'center' }),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      const straight = await page.locator('.artboard img').getAttribute('src');
      await page.getByRole('tab', { name: '工具箱' }).click();
      await page.getByRole('searchbox', { name: '搜索工具' }).fill('文字变形');
      await page.getByRole('group', { name: '工具列表' }).getByRole('button', { name: '文字变形' }).click();
      await page.getByLabel('文字图层名称', { exact: true }).fill('SUMMER SALE');
      const bend = page.getByLabel(/^弯曲度/);
      const cards = page.getByRole('log', { name: '对话记录' }).getByRole('article', { name: '文字变形' });
      // Past Photoshop's ±100: refused in Chinese, with the range, and the text stays straight.
      await bend.fill('150');
      await page.getByRole('button', { name: '运行' }).click();
      await eventually(textOf(cards.last())).toContain('超出范围：允许 -100 到 100');
      expect(
        (await activeLayers(studio.url, id)).find((l) => l.name === 'SUMMER SALE')?.text?.warp,
      ).toBeUndefined();
      await bend.fill('60');
      await page.getByRole('button', { name: '运行' }).click();
      await eventually(() => cards.count()).toBe(2);
      const card = cards.last();
      await finished(card);
      const layer = (await activeLayers(studio.url, id)).find((l) => l.name === 'SUMMER SALE');
      expect(layer?.text).toMatchObject({ warp: { style: 'arc', bend: 60 } });
      await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(straight);
      await eventually(async () =>
        page.locator('.artboard img').evaluate((i) => (i as { complete: boolean }).complete),
      ).toBe(true);
      await snapshot(page, 'canvas-text-warp');
    } finally {
      await page.context().close();
    }
  });
});
