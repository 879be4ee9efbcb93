/**
 * A click on the canvas selects the layer under it, as Photoshop's Move tool with Auto-Select does: the layers
 * pane shows it selected, Shift adds to the selection, a drag from outside the selected layers or a click with
 * the space held (the hand) pans and selects nothing, a double-click fits the view and leaves the selection as it was, and a click where only a
 * hidden layer has pixels selects what shows there.
 */
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../src/calls/snapshot.js';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-select');

/** The names of the rows the layers pane shows selected. */
const selectedRows = (page: Page) => () =>
  page.locator('.layer-row.selected .layer-title').allTextContents() as Promise<string[]>;

/** Screen point of document pixel (x, y). */
async function onCanvas(page: Page, x: number, y: number, doc = { w: 600, h: 400 }) {
  const box = (await page.locator('.artboard').boundingBox())!;
  return { x: box.x + (x / doc.w) * box.width, y: box.y + (y / doc.h) * box.height };
}

describe('a click on the canvas', () => {
  it('selects the layer under it, Shift adding; a drag pans and selects nothing', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '排料' }),
      toolCall('create_layer', { name: '图层 1' }),
      toolCall('select_rect', { left: 20, top: 20, right: 200, bottom: 380 }),
      toolCall('fill_selection', { color: '#c62828' }),
      toolCall('create_layer', { name: '图层 2' }),
      toolCall('select_rect', { left: 300, top: 40, right: 580, bottom: 200 }),
      toolCall('fill_selection', { color: '#1e40af' }),
      toolCall('create_layer', { name: '隐藏' }),
      toolCall('select_rect', { left: 300, top: 250, right: 580, bottom: 380 }),
      toolCall('fill_selection', { color: '#15803d' }),
      toolCall('set_layer_visible', { name: '隐藏', visible: false }),
      toolCall('deselect'),
      toolCall('select_layers', { names: ['图层 2'] }),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(selectedRows(page)).toEqual(['图层 2']);
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      const fitted = (await page.locator('.artboard').boundingBox())!;

      const red = await onCanvas(page, 100, 200);
      await page.mouse.click(red.x, red.y);
      await eventually(selectedRows(page)).toEqual(['图层 1']);
      // Outlined on the canvas where it lies: the red piece's rectangle, (20, 20)–(200, 380).
      const outline = page.locator('.artboard .layer-outline');
      await eventually(() => outline.count()).toBe(1);
      const drawn = (await outline.boundingBox())!;
      const [from, to] = [await onCanvas(page, 20, 20), await onCanvas(page, 200, 380)];
      expect(Math.abs(drawn.x - from.x)).toBeLessThan(1.5);
      expect(Math.abs(drawn.y - from.y)).toBeLessThan(1.5);
      expect(Math.abs(drawn.x + drawn.width - to.x)).toBeLessThan(1.5);
      expect(Math.abs(drawn.y + drawn.height - to.y)).toBeLessThan(1.5);

      // Shift adds the blue piece to the selection.
      const blue = await onCanvas(page, 400, 100);
      await page.keyboard.down('Shift');
      await page.mouse.click(blue.x, blue.y);
      await page.keyboard.up('Shift');
      await eventually(selectedRows(page)).toEqual(['图层 2', '图层 1']);
      await eventually(() => outline.count()).toBe(2);
      await snapshot(page, 'canvas-select');

      // With the space held (the hand), a click selects nothing.
      await page.keyboard.down('Space');
      await page.mouse.click(red.x, red.y);
      await page.keyboard.up('Space');
      await page.waitForTimeout(300);
      expect(await selectedRows(page)()).toEqual(['图层 2', '图层 1']);

      // A drag from outside the selected layers' boxes pans the view and leaves the selection as it was (one
      // from inside them moves the layers: canvas-move.test.ts).
      const before = (await page.locator('.artboard').boundingBox())!;
      const gap = await onCanvas(page, 250, 300);
      await page.mouse.move(gap.x, gap.y);
      await page.mouse.down();
      await page.mouse.move(gap.x + 60, gap.y + 30, { steps: 6 });
      await page.mouse.up();
      await eventually(async () => (await page.locator('.artboard').boundingBox())!.x).toBeCloseTo(
        before.x + 60,
        0,
      );
      expect(await selectedRows(page)()).toEqual(['图层 2', '图层 1']);

      // Over the hidden layer's pixels, what shows there is the background.
      const hidden = await onCanvas(page, 440, 300);
      await page.mouse.click(hidden.x, hidden.y);
      await eventually(selectedRows(page)).toEqual(['背景']);
      // The background is the canvas: no box drawn round it.
      await eventually(() => outline.count()).toBe(0);
      // A selection by click is not a history step (select_layers is not one), and makes no card.
      expect(await page.locator('.card').count()).toBe(0);

      // A double-click on the red piece fits the view (panned above) and selects nothing: the current layer,
      // which the model acts on, stays the one it was.
      const redNow = await onCanvas(page, 100, 200);
      await page.mouse.dblclick(redNow.x, redNow.y);
      await eventually(async () => (await page.locator('.artboard').boundingBox())!.x).toBeCloseTo(
        fitted.x,
        0,
      );
      await page.waitForTimeout(800);
      expect(await selectedRows(page)()).toEqual(['背景']);
      const state = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as SessionSnapshot;
      expect(state.active!.active_layer).toBe('背景');

      // Ctrl+Z pressed while the click's selection is still on its way is not dropped: it is sent after it, as
      // every call of this tab is (in the order they were made).
      const historyIndex = async () =>
        ((await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as SessionSnapshot).active!
          .history.index;
      const index = await historyIndex();
      let held: Route | undefined;
      await page.route('**/tool-calls*', (route) => {
        if (!held && route.request().postData()?.includes('select_layers')) held = route;
        else void route.continue();
      });
      await page.mouse.click(blue.x, blue.y);
      await eventually(() => held !== undefined).toBe(true);
      await page.keyboard.press('Control+z');
      await page.waitForTimeout(300);
      expect(await historyIndex()).toBe(index);
      await held!.continue();
      await eventually(historyIndex).toBe(index - 1);
      // The undone step's state comes back with the layer selection it had (the hidden layer's).
      await eventually(selectedRows(page)).toEqual(['隐藏']);
    } catch (err) {
      await snapshot(page, 'failed-canvas-select');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
