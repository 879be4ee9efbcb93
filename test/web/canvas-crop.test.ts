/**
 * The Crop tool (C) on the canvas, as Photoshop's: a drag draws the part to keep, the rest shaded, its size shown;
 * Esc drops it and sends nothing; Enter or the commit button crops the document to it (裁切画布, one history step).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-crop');

async function onCanvas(page: Page, w: number, h: number, x: number, y: number) {
  const box = (await page.locator('.artboard').boundingBox())!;
  return { x: box.x + (x / w) * box.width, y: box.y + (y / h) * box.height };
}

async function state(id: string) {
  const s = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
    active: { width: number; height: number; history: { labels: string[]; index: number } };
  };
  return {
    size: [s.active.width, s.active.height],
    labels: s.active.history.labels.slice(0, s.active.history.index + 1),
  };
}

async function drag(page: Page, size: [number, number], from: [number, number], to: [number, number]) {
  const a = await onCanvas(page, ...size, ...from);
  const b = await onCanvas(page, ...size, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 8 });
  await page.mouse.up();
}

describe('the crop tool', () => {
  it('crops to the rectangle drawn on Enter or the commit button; Esc drops it', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '裁剪' }),
      toolCall('create_layer', { name: '块' }),
      toolCall('select_rect', { left: 150, top: 100, right: 350, bottom: 250 }),
      toolCall('fill_selection', { color: '#6a1b9a' }),
      toolCall('deselect'),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('c');
      await eventually(() =>
        page.getByRole('button', { name: '裁剪工具' }).getAttribute('aria-pressed'),
      ).toBe('true');
      const steps = (await state(id)).labels.length;

      await drag(page, [600, 400], [100, 50], [400, 300]);
      await eventually(() => page.locator('.crop-actions .crop-size').textContent()).toBe('300 × 250');
      expect(await page.locator('.crop-shade').count()).toBe(1);
      await snapshot(page, 'canvas-crop');
      await page.keyboard.press('Escape');
      await eventually(() => page.locator('.crop-shade').count()).toBe(0);
      await page.waitForTimeout(300);
      expect((await state(id)).labels.length).toBe(steps);

      // Drawn again a little off, then put right as in Photoshop: the bottom-right handle resizes the box (free
      // proportions), a drag inside moves it; the pointer beyond the canvas keeps it inside.
      await drag(page, [600, 400], [150, 100], [400, 300]);
      await eventually(() => page.locator('.crop-actions .crop-size').textContent()).toBe('250 × 200');
      const handle = page.locator('.crop-box [data-handle="bottom_right"]');
      const hb = (await handle.boundingBox())!;
      const to = await onCanvas(page, 600, 400, 450, 350);
      await page.mouse.move(hb.x + hb.width / 2, hb.y + hb.height / 2);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: 6 });
      await page.mouse.up();
      await eventually(() => page.locator('.crop-actions .crop-size').textContent()).toBe('300 × 250');
      await drag(page, [600, 400], [300, 200], [250, 150]);
      await eventually(() => page.locator('.crop-actions .crop-size').textContent()).toBe('300 × 250');
      const cropBox = (await page.locator('.crop-box').boundingBox())!;
      const topLeft = await onCanvas(page, 600, 400, 100, 50);
      expect(Math.abs(cropBox.x - topLeft.x)).toBeLessThan(2);
      expect(Math.abs(cropBox.y - topLeft.y)).toBeLessThan(2);
      await snapshot(page, 'canvas-crop-adjusted');
      await page.keyboard.press('Enter');
      await eventually(async () => (await state(id)).labels.slice(steps)).toEqual(['裁切画布']);
      expect((await state(id)).size).toEqual([300, 250]);
      // What was kept is the part of the canvas the box was moved over: the purple block's corner at (50, 50).
      const picked = await okCalls(studio.url, id, [
        toolCall('get_pixel_color', { x: 51, y: 51 }),
        toolCall('get_pixel_color', { x: 48, y: 48 }),
      ]);
      expect(picked.map((r) => r.hex)).toEqual(['#6a1b9a', '#ffffff']);
      await eventually(() => page.locator('.crop-shade').count()).toBe(0);

      // The commit button, on the cropped document.
      await eventually(async () => {
        const box = await page.locator('.artboard').boundingBox();
        return box !== null && Math.abs(box.width / box.height - 300 / 250) < 0.02;
      }).toBe(true);
      await drag(page, [300, 250], [50, 50], [250, 200]);
      await page.locator('.crop-actions').getByRole('button', { name: '裁切画布' }).click();
      await eventually(async () => (await state(id)).size).toEqual([200, 150]);
      expect((await state(id)).labels.slice(steps)).toEqual(['裁切画布', '裁切画布']);
    } catch (err) {
      await snapshot(page, 'failed-canvas-crop');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
