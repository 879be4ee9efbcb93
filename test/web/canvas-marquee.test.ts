/**
 * The pixel selection on the canvas, as in Photoshop: marching ants along its edge (a marquee's rectangle, a
 * feathered selection's half line, gone when deselected, a layer's pixels loaded by Ctrl-clicking its thumbnail), and the Rectangular Marquee tool (M, or its button):
 * a drag selects a rectangle in document pixels (Shift pressed during it: a square; Shift held from its start adds
 * to the selection, Alt subtracts), a click deselects, Esc drops the rectangle being drawn; V goes back to the
 * Move tool, whose drag moves layers again.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { screenPoint, selectionState } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-marquee');

const onCanvas = (page: Page, x: number, y: number) => screenPoint(page, 600, 400, x, y);
const state = (id: string) => selectionState(studio.url, id);

/** A 600 × 400 document with a red piece (20, 20)–(200, 380). */
async function document(name: string): Promise<string> {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: 600, height: 400, name }),
    toolCall('create_layer', { name: '红' }),
    toolCall('select_rect', { left: 20, top: 20, right: 200, bottom: 380 }),
    toolCall('fill_selection', { color: '#c62828' }),
    toolCall('deselect'),
  ]);
  return id;
}

/** A drag from `from` to `to` (document px), with `held` down from its start or `pressed` once it has moved. */
async function drag(
  page: Page,
  from: { x: number; y: number },
  to: { x: number; y: number },
  keys: { held?: string; pressed?: string } = {},
) {
  const a = await onCanvas(page, from.x, from.y);
  const b = await onCanvas(page, to.x, to.y);
  await page.mouse.move(a.x, a.y);
  if (keys.held) await page.keyboard.down(keys.held);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  if (keys.pressed) await page.keyboard.down(keys.pressed);
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
  for (const k of [keys.held, keys.pressed]) if (k) await page.keyboard.up(k);
}

const ants = (page: Page) => page.locator('.artboard .selection-ants .ants');

describe('the selection on the canvas', () => {
  it('shows marching ants along the selection, a feathered one at its half line, none once deselected', async () => {
    const id = await document('选区');
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await expect(ants(page).count()).resolves.toBe(0);
      await okCalls(studio.url, id, [
        toolCall('select_rect', { left: 300, top: 100, right: 500, bottom: 300 }),
      ]);
      await eventually(() => ants(page).getAttribute('d')).toBe('M300 100H500V300H300Z');
      // Where the designer sees it: over the rectangle's place on the canvas, within its line's width and a pixel of rounding.
      const box = (await page.locator('.artboard .selection-ants .ants').boundingBox())!;
      const tl = await onCanvas(page, 300, 100);
      const br = await onCanvas(page, 500, 300);
      expect(Math.abs(box.x - tl.x)).toBeLessThan(2.5);
      expect(Math.abs(box.x + box.width - br.x)).toBeLessThan(2.5);
      expect(Math.abs(box.y + box.height - br.y)).toBeLessThan(2.5);
      // Marching: the dashes move.
      const dashes = await ants(page).evaluate(
        (el) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { animationName: string } }
          ).getComputedStyle(el).animationName,
      );
      expect(dashes).toBe('marching-ants');
      await snapshot(page, 'canvas-selection-ants');

      await okCalls(studio.url, id, [toolCall('feather_selection', { radius: 40 })]);
      // Rounded corners: many vertices, all inside the rectangle.
      await eventually(async () => ((await ants(page).getAttribute('d')) ?? '').split('L').length > 8).toBe(
        true,
      );
      const coords = ((await ants(page).getAttribute('d')) ?? '').match(/\d+(\.\d+)?/g)!.map(Number);
      expect(Math.min(...coords)).toBeGreaterThanOrEqual(100);
      expect(Math.max(...coords)).toBeLessThanOrEqual(500);
      await snapshot(page, 'canvas-selection-feathered');

      await okCalls(studio.url, id, [toolCall('deselect')]);
      await eventually(() => ants(page).count()).toBe(0);

      // Ctrl/⌘-click on a layer's thumbnail loads its pixels as the selection, as in Photoshop.
      await page
        .locator('.layer-row', { hasText: '红' })
        .locator('.layer-thumb')
        .click({ modifiers: ['Control'] });
      await eventually(async () => (await state(id)).selection?.bounds).toEqual({
        x: 20,
        y: 20,
        w: 180,
        h: 360,
      });
      expect((await state(id)).labels.at(-1)).toBe('载入图层选区');
      await eventually(() => ants(page).count()).toBe(1);
    } catch (err) {
      await snapshot(page, 'failed-canvas-ants');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('selects a rectangle with the marquee tool (M); Shift makes it square, a click deselects, Esc drops it, V moves again', async () => {
    const id = await document('选框');
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      const marqueeButton = page.locator('.canvas-toolbox').getByRole('button', { name: '矩形选框工具' });
      const moveButton = page.getByRole('button', { name: '移动工具' });
      await expect(moveButton.getAttribute('aria-pressed')).resolves.toBe('true');
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('m');
      await eventually(() => marqueeButton.getAttribute('aria-pressed')).toBe('true');
      const steps = (await state(id)).labels.length;

      // A drag over the red piece selects, and does not move it.
      await drag(page, { x: 50, y: 60 }, { x: 250, y: 200 });
      await eventually(async () => (await state(id)).labels.slice(steps)).toEqual(['矩形选区']);
      const { selection } = await state(id);
      expect(Math.abs(selection!.bounds.x - 50)).toBeLessThanOrEqual(1);
      expect(Math.abs(selection!.bounds.y - 60)).toBeLessThanOrEqual(1);
      expect(Math.abs(selection!.bounds.w - 200)).toBeLessThanOrEqual(1);
      expect(Math.abs(selection!.bounds.h - 140)).toBeLessThanOrEqual(1);
      const red = (await activeLayers(studio.url, id)).find((l) => l.name === '红')!.bounds!;
      expect([Number(red.left), Number(red.top)]).toEqual([20, 20]);
      await eventually(() => ants(page).count()).toBe(1);
      await snapshot(page, 'canvas-marquee');

      // Shift pressed while dragging: a square on the larger side; beyond the canvas, cut to it.
      await drag(page, { x: 400, y: 300 }, { x: 640, y: 350 }, { pressed: 'Shift' });
      await eventually(async () => (await state(id)).labels.length).toBe(steps + 2);
      expect((await state(id)).selection!.bounds).toEqual({ x: 400, y: 300, w: 200, h: 100 });

      // Shift held from the start adds (not square), both shown while drawing; Alt subtracts.
      const a0 = await onCanvas(page, 50, 60);
      const a1 = await onCanvas(page, 150, 120);
      await page.mouse.move(a0.x, a0.y);
      await page.keyboard.down('Shift');
      await page.mouse.down();
      await page.mouse.move(a1.x, a1.y, { steps: 6 });
      await eventually(() => page.locator('.artboard .selection-ants').count()).toBe(2);
      await snapshot(page, 'canvas-marquee-add');
      await page.mouse.up();
      await page.keyboard.up('Shift');
      await eventually(async () => (await state(id)).labels.length).toBe(steps + 3);
      expect((await state(id)).selection!.bounds).toEqual({ x: 50, y: 60, w: 550, h: 340 });
      await eventually(async () => ((await ants(page).getAttribute('d')) ?? '').split('M').length - 1).toBe(
        2,
      );
      await drag(page, { x: 0, y: 0 }, { x: 600, y: 250 }, { held: 'Alt' });
      await eventually(async () => (await state(id)).labels.length).toBe(steps + 4);
      expect((await state(id)).selection!.bounds).toEqual({ x: 400, y: 300, w: 200, h: 100 });

      // Esc while drawing: nothing is sent, the selection stays, and the pointer moving on does not pan the view.
      const a = await onCanvas(page, 100, 100);
      await page.mouse.move(a.x, a.y);
      await page.mouse.down();
      await page.mouse.move(a.x + 80, a.y + 60, { steps: 4 });
      await eventually(() => page.locator('.selection-ants.drawing').count()).toBe(1);
      const board = await page.locator('.artboard').boundingBox();
      await page.keyboard.press('Escape');
      await page.mouse.move(a.x + 180, a.y + 110, { steps: 4 });
      expect(await page.locator('.artboard').boundingBox()).toEqual(board);
      await page.mouse.up();
      await page.waitForTimeout(300);
      expect((await state(id)).labels.length).toBe(steps + 4);
      await eventually(() => page.locator('.selection-ants.drawing').count()).toBe(0);
      expect((await state(id)).selection!.bounds).toEqual({ x: 400, y: 300, w: 200, h: 100 });

      // A click deselects.
      const c = await onCanvas(page, 300, 50);
      await page.mouse.click(c.x, c.y);
      await eventually(async () => (await state(id)).selection).toBeNull();
      await eventually(() => ants(page).count()).toBe(0);

      // V: the Move tool again, whose drag moves the selected layer.
      await page.keyboard.press('v');
      await eventually(() => moveButton.getAttribute('aria-pressed')).toBe('true');
      await okCalls(studio.url, id, [toolCall('select_layers', { names: ['红'] })]);
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(1);
      await drag(page, { x: 100, y: 200 }, { x: 130, y: 220 });
      await eventually(async () => {
        const b = (await activeLayers(studio.url, id)).find((l) => l.name === '红')!.bounds!;
        return Number(b.left) > 20;
      }).toBe(true);
      // The button chooses too.
      await marqueeButton.click();
      await eventually(() => marqueeButton.getAttribute('aria-pressed')).toBe('true');
    } catch (err) {
      await snapshot(page, 'failed-canvas-marquee');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
