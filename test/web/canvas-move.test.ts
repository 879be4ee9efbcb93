/**
 * Moving layers by dragging them on the canvas, as Photoshop's Move tool: a drag that starts inside a selected
 * layer's box moves every selected layer that can move (whole document pixels, one history step), its box and
 * picture following the pointer until the canvas shows it moved; the view does not pan. Esc puts it back and sends
 * nothing; a locked layer is not dragged (the drag pans); a drag from outside the selected boxes pans. The arrow
 * keys nudge the selected layers by a pixel, ten with Shift, and pan when nothing selected can move. Delete deletes
 * the selected layers, or with a pixel selection clears those pixels of the current layer.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, imageColorAt, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-move');

/** Screen point of document pixel (x, y) of the 600 × 400 document. */
async function onCanvas(page: Page, x: number, y: number) {
  const box = (await page.locator('.artboard').boundingBox())!;
  return { x: box.x + (x / 600) * box.width, y: box.y + (y / 400) * box.height };
}

/** Where a layer is, from the session's state (get_layer_bounds would make it the selected layer). */
async function boundsOf(id: string, name: string): Promise<{ left: number; top: number }> {
  const b = (await activeLayers(studio.url, id)).find((l) => l.name === name)?.bounds;
  return { left: Number(b?.left), top: Number(b?.top) };
}

async function history(id: string): Promise<string[]> {
  const state = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
    active: { history: { labels: string[]; index: number } };
  };
  return state.active.history.labels.slice(0, state.active.history.index + 1);
}

/** A 600 × 400 document `name` with a red piece (20, 20)–(200, 380) and a blue one (300, 40)–(580, 200). */
async function twoPieces(name: string): Promise<string> {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: 600, height: 400, name }),
    toolCall('create_layer', { name: '红' }),
    toolCall('select_rect', { left: 20, top: 20, right: 200, bottom: 380 }),
    toolCall('fill_selection', { color: '#c62828' }),
    toolCall('create_layer', { name: '蓝' }),
    toolCall('select_rect', { left: 300, top: 40, right: 580, bottom: 200 }),
    toolCall('fill_selection', { color: '#1e40af' }),
    toolCall('deselect'),
  ]);
  return id;
}

/** Clicks the red piece of `twoPieces`, which selects it and gives the canvas the keys; waits for its outline. */
async function clickRed(page: Page): Promise<void> {
  const red = await onCanvas(page, 100, 200);
  await page.mouse.click(red.x, red.y);
  const redEdge = await onCanvas(page, 20, 20);
  await eventually(async () => {
    const outline = await page.locator('.artboard .layer-outline').boundingBox();
    return outline !== null && Math.abs(outline.x - redEdge.x) < 1.5;
  }).toBe(true);
}

describe('dragging layers on the canvas', () => {
  it('moves the selected layers by whole pixels, the view staying; Esc cancels; a locked layer pans', async () => {
    const id = await twoPieces('移动');
    await okCalls(studio.url, id, [toolCall('select_layers', { names: ['红'] })]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(1);
      const board = (await page.locator('.artboard').boundingBox())!;
      const zoom = board.width / 600;
      const steps = (await history(id)).length;

      // Pressed on the red piece and dragged 60 × 30 screen px: its box and picture follow, dashed.
      const red = await onCanvas(page, 100, 200);
      await page.mouse.move(red.x, red.y);
      await page.mouse.down();
      await page.mouse.move(red.x + 60, red.y + 30, { steps: 6 });
      const ghost = page.locator('.artboard .move-ghost');
      await eventually(() => ghost.count()).toBe(1);
      const [dx, dy] = [Math.round(60 / zoom), Math.round(30 / zoom)];
      const moved = (await page.locator('.layer-outline.moving').boundingBox())!;
      const at = await onCanvas(page, 20 + dx, 20 + dy);
      expect(Math.abs(moved.x - at.x)).toBeLessThan(1.5);
      expect(Math.abs(moved.y - at.y)).toBeLessThan(1.5);
      await snapshot(page, 'canvas-move-dragging');
      await page.mouse.up();
      await eventually(() => boundsOf(id, '红')).toEqual({ left: 20 + dx, top: 20 + dy });
      await eventually(() => ghost.count()).toBe(0);
      expect((await history(id)).slice(steps)).toEqual(['移动图层']);
      // The view did not pan.
      expect((await page.locator('.artboard').boundingBox())!.x).toBeCloseTo(board.x, 0);
      // The outline now sits on the moved piece.
      const outline = (await page.locator('.layer-outline').boundingBox())!;
      expect(Math.abs(outline.x - at.x)).toBeLessThan(1.5);
      await snapshot(page, 'canvas-move-moved');

      // Esc mid-drag: back where it was, nothing sent.
      const red2 = await onCanvas(page, 100 + dx, 200 + dy);
      await page.mouse.move(red2.x, red2.y);
      await page.mouse.down();
      await page.mouse.move(red2.x - 80, red2.y, { steps: 5 });
      await eventually(() => ghost.count()).toBe(1);
      await page.keyboard.press('Escape');
      await eventually(() => ghost.count()).toBe(0);
      await page.mouse.up();
      await page.waitForTimeout(300);
      expect(await boundsOf(id, '红')).toEqual({ left: 20 + dx, top: 20 + dy });
      expect((await history(id)).length).toBe(steps + 1);

      // Both selected (Shift-click on the blue one): one drag moves both, one history step (move_layers).
      const blue = await onCanvas(page, 400, 100);
      await page.keyboard.down('Shift');
      await page.mouse.click(blue.x, blue.y);
      await page.keyboard.up('Shift');
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(2);
      await page.mouse.move(blue.x, blue.y);
      await page.mouse.down();
      await page.mouse.move(blue.x, blue.y + 40, { steps: 5 });
      await eventually(() => ghost.count()).toBe(2);
      await page.mouse.up();
      const down = Math.round(40 / zoom);
      await eventually(() => boundsOf(id, '蓝')).toEqual({ left: 300, top: 40 + down });
      await eventually(() => boundsOf(id, '红')).toEqual({ left: 20 + dx, top: 20 + dy + down });
      expect((await history(id)).slice(steps)).toEqual(['移动图层', '移动多个图层']);
      // One undo takes both back, as in Photoshop.
      await page.keyboard.press('Control+z');
      await eventually(() => boundsOf(id, '蓝')).toEqual({ left: 300, top: 40 });
      expect(await boundsOf(id, '红')).toEqual({ left: 20 + dx, top: 20 + dy });
      await page.keyboard.press('Control+Shift+z');
      await eventually(() => boundsOf(id, '蓝')).toEqual({ left: 300, top: 40 + down });

      // A locked layer is not dragged: the drag pans the view instead.
      await okCalls(studio.url, id, [
        toolCall('lock_layer', { name: '蓝', locked: true }),
        toolCall('select_layers', { names: ['蓝'] }),
      ]);
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(1);
      const start = (await page.locator('.artboard').boundingBox())!;
      const blue2 = await onCanvas(page, 400, 100 + down);
      await page.mouse.move(blue2.x, blue2.y);
      await page.mouse.down();
      await page.mouse.move(blue2.x + 50, blue2.y, { steps: 5 });
      await page.mouse.up();
      await eventually(async () => (await page.locator('.artboard').boundingBox())!.x).toBeCloseTo(
        start.x + 50,
        0,
      );
      expect(await boundsOf(id, '蓝')).toEqual({ left: 300, top: 40 + down });
    } catch (err) {
      await snapshot(page, 'failed-canvas-move');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('drags a layer as large as the canvas too, which has no outline: its picture follows the pointer', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '满幅' }),
      toolCall('create_layer', { name: '满幅' }),
      toolCall('fill_selection', { color: '#2e7d32' }),
      toolCall('set_layer_opacity', { name: '满幅', opacity: 80 }),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      expect(await page.locator('.artboard .layer-outline').count()).toBe(0);
      const zoom = (await page.locator('.artboard').boundingBox())!.width / 600;
      const from = await onCanvas(page, 300, 200);
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(from.x + 40, from.y + 20, { steps: 5 });
      await eventually(() => page.locator('.artboard .move-ghost').count()).toBe(1);
      await page.mouse.up();
      await eventually(() => boundsOf(id, '满幅')).toEqual({
        left: Math.round(40 / zoom),
        top: Math.round(20 / zoom),
      });
    } catch (err) {
      await snapshot(page, 'failed-canvas-move-full');
      throw err;
    } finally {
      await page.context().close();
    }
  });
  it('nudges the selected layers with the arrow keys, 1 px or 10 px with Shift; pans when none can move', async () => {
    const id = await twoPieces('微移');
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      const steps = (await history(id)).length;
      // A click on the red piece selects it and gives the canvas the keys.
      await clickRed(page);
      const board = (await page.locator('.artboard').boundingBox())!;
      // Presses made while the first nudge is sent are added up, not dropped.
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Shift+ArrowDown');
      await page.keyboard.press('ArrowUp');
      await eventually(() => boundsOf(id, '红')).toEqual({ left: 23, top: 29 });
      const nudges = (await history(id)).slice(steps);
      expect(nudges.length).toBeGreaterThanOrEqual(1);
      expect(nudges.length).toBeLessThanOrEqual(5);
      expect(new Set(nudges)).toEqual(new Set(['移动图层']));
      // The view did not pan.
      expect((await page.locator('.artboard').boundingBox())!.x).toBeCloseTo(board.x, 0);

      // Both selected: one nudge moves both, one step.
      const blue = await onCanvas(page, 400, 100);
      await page.keyboard.down('Shift');
      await page.mouse.click(blue.x, blue.y);
      await page.keyboard.up('Shift');
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(2);
      const before = (await history(id)).length;
      const picture = () => page.locator('.artboard img').getAttribute('src');
      const shown = await picture();
      const outlines = () =>
        page
          .locator('.artboard .layer-outline')
          .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().left));
      const outlinedBefore = await outlines();
      // The canvas's next picture held back: the outlines wait for it, not going ahead of the pieces they outline.
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      await page.route('**/render.png*', async (route) => {
        await held;
        // A render the page gave up on meanwhile (a newer one wanted) is already done with.
        await route.continue().catch(() => undefined);
      });
      await page.keyboard.press('Shift+ArrowLeft');
      await eventually(() => boundsOf(id, '蓝')).toEqual({ left: 290, top: 40 });
      expect(await boundsOf(id, '红')).toEqual({ left: 13, top: 29 });
      expect((await history(id)).slice(before)).toEqual(['移动多个图层']);
      await page.waitForTimeout(300);
      // (A picture asked for before the nudge may still arrive meanwhile: it shows the pieces where they were.)
      expect(await outlines()).toEqual(outlinedBefore);
      release();
      await page.unroute('**/render.png*');
      // Both stay selected, their outlines on the moved pieces once the canvas shows them.
      const blueEdge = await onCanvas(page, 290, 40);
      await eventually(async () => {
        const boxes = await outlines();
        return boxes.length === 2 && boxes.some((x) => Math.abs(x - blueEdge.x) < 1.5);
      }).toBe(true);
      expect(await picture()).not.toBe(shown);
      await snapshot(page, 'canvas-nudged');

      // Only the background selected (a click where no other layer has a pixel): the arrows pan the view.
      const empty = await onCanvas(page, 450, 330);
      await page.mouse.click(empty.x, empty.y);
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(0);
      const still = (await history(id)).length;
      const start = (await page.locator('.artboard').boundingBox())!;
      await page.keyboard.press('ArrowRight');
      await eventually(async () => (await page.locator('.artboard').boundingBox())!.x).toBeCloseTo(
        start.x - 40,
        0,
      );
      expect((await history(id)).length).toBe(still);
    } catch (err) {
      await snapshot(page, 'failed-canvas-nudge');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('deletes the selected layers with Delete when nothing is selected in pixels, and clears the selected pixels when something is, as Photoshop', async () => {
    const id = await twoPieces('删除');
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await clickRed(page);
      const steps = (await history(id)).length;
      await page.keyboard.press('Delete');
      await eventually(async () => (await history(id)).slice(steps)).toEqual(['删除图层']);
      // No layer 红 any more.
      expect(await boundsOf(id, '红')).toEqual({ left: Number.NaN, top: Number.NaN });
      // With a pixel selection, Delete clears the selected pixels of the current layer (Edit › Clear).
      await okCalls(studio.url, id, [
        toolCall('select_layers', { names: ['蓝'] }),
        toolCall('select_rect', { left: 250, top: 0, right: 400, bottom: 400 }),
      ]);
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(1);
      const now = (await history(id)).length;
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('Delete');
      await eventually(async () => (await history(id)).slice(now)).toEqual(['清除选区内容']);
      expect(await boundsOf(id, '蓝')).toEqual({ left: 400, top: 40 });
      // The canvas shows the cleared strip: the white background where blue was.
      const pixel = (x: number, y: number) => imageColorAt(page.locator('.artboard img'), x / 600, y / 400);
      await eventually(() => pixel(350, 120)).toEqual([255, 255, 255]);
      await eventually(() => pixel(450, 120)).toEqual([0x1e, 0x40, 0xaf]);
      await snapshot(page, 'canvas-clear-selection');
    } catch (err) {
      await snapshot(page, 'failed-canvas-delete');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
