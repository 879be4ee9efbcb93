/**
 * The transform handles on the one selected layer, as Photoshop's Move tool shows them: eight handles on its box;
 * a corner dragged scales it in proportion about the opposite corner (Shift: freely), a side stretches it one
 * way, one history step (按参考点缩放); just outside a corner a drag turns it about its centre (旋转图层, Shift: by
 * 15°); Esc puts it back and sends nothing; no handles for an empty layer alone, the background, a locked or a
 * hidden layer.
 * Several selected layers get the handles on the box round them all and scale or turn as one (变换多个图层); an
 * empty one among them is left out.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { LayerNode } from '../../src/calls/snapshot-types.js';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-transform');

async function onCanvas(page: Page, x: number, y: number) {
  const box = (await page.locator('.artboard').boundingBox())!;
  return { x: box.x + (x / 600) * box.width, y: box.y + (y / 400) * box.height };
}

async function boundsOf(id: string, name: string) {
  const b = (await activeLayers(studio.url, id)).find((l) => l.name === name)!.bounds!;
  return [b.left, b.top, b.width, b.height].map(Number);
}

async function labels(id: string): Promise<string[]> {
  const s = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
    active: { history: { labels: string[]; index: number } };
  };
  return s.active.history.labels.slice(0, s.active.history.index + 1);
}

/** Drags handle `handle` to document point `to`, holding Shift with `shift`. */
async function dragHandle(page: Page, handle: string, to: { x: number; y: number }, shift = false) {
  // The handles show once the picture of the layer's new state has come (as a designer waits to see them).
  const grip = page.locator(`.transform-handle[data-handle="${handle}"]`);
  await eventually(() => grip.count()).toBe(1);
  const h = (await grip.boundingBox())!;
  const b = await onCanvas(page, to.x, to.y);
  await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
  await page.mouse.down();
  if (shift) await page.keyboard.down('Shift');
  await page.mouse.move(b.x, b.y, { steps: 8 });
  await page.mouse.up();
  if (shift) await page.keyboard.up('Shift');
}

/**
 * Presses just outside the box's top-right corner and, with Shift held, carries the pointer round the box's centre
 * by `angle` (radians, clockwise); the button and Shift stay down for the caller to lift.
 */
async function startTurn(page: Page, angle: number) {
  const zone = (await page.locator('.rotate-zone[data-rotate="top_right"]').boundingBox())!;
  const board = (await page.locator('.transform-box').boundingBox())!;
  const c = { x: board.x + board.width / 2, y: board.y + board.height / 2 };
  const start = { x: zone.x + zone.width / 2, y: zone.y + zone.height / 2 };
  const v = { x: start.x - c.x, y: start.y - c.y };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.keyboard.down('Shift');
  const steps = Math.ceil(angle / (Math.PI / 18));
  for (let k = 1; k <= steps; k++) {
    const a = (k / steps) * angle;
    const [cos, sin] = [Math.cos(a), Math.sin(a)];
    await page.mouse.move(c.x + v.x * cos - v.y * sin, c.y + v.x * sin + v.y * cos);
  }
}

describe('transform handles', () => {
  it('scales the selected layer by its corners in proportion (Shift freely) and its sides one way; Esc cancels', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '缩放' }),
      toolCall('create_layer', { name: '方块' }),
      toolCall('select_rect', { left: 100, top: 100, right: 200, bottom: 150 }),
      toolCall('fill_selection', { color: '#2e7d32' }),
      toolCall('deselect'),
      toolCall('create_layer', { name: '锁' }),
      toolCall('select_layers', { names: ['方块'] }),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await eventually(() => page.locator('.transform-handle').count()).toBe(8);
      const steps = (await labels(id)).length;

      // The bottom-right corner to (300, 180): 200 × 80 asked, 2× wins, in proportion: 200 × 100.
      const h = (await page.locator('.transform-handle[data-handle="bottom_right"]').boundingBox())!;
      await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
      await page.mouse.down();
      const mid = await onCanvas(page, 300, 180);
      await page.mouse.move(mid.x, mid.y, { steps: 8 });
      await eventually(() => page.locator('.transform-box.scaling').count()).toBe(1);
      await snapshot(page, 'canvas-transform-drag');
      await page.mouse.up();
      await eventually(async () => (await labels(id)).slice(steps)).toEqual(['按参考点缩放']);
      const [x, y, w, hh] = await boundsOf(id, '方块');
      expect([x, y]).toEqual([100, 100]);
      expect(Math.abs(w! - 200)).toBeLessThanOrEqual(1);
      expect(Math.abs(hh! - 100)).toBeLessThanOrEqual(1);
      await eventually(async () => {
        const b = (await page.locator('.transform-box').boundingBox())!;
        const end = await onCanvas(page, 300, 200);
        return Math.abs(b.x + b.width - end.x) < 2 && Math.abs(b.y + b.height - end.y) < 2;
      }).toBe(true);
      await snapshot(page, 'canvas-transform');

      // The left side to x = 50: only wider, the right side staying at 300.
      await dragHandle(page, 'left', { x: 50, y: 150 });
      await eventually(async () => (await labels(id)).length).toBe(steps + 2);
      const [x2, y2, w2, h2] = await boundsOf(id, '方块');
      expect(Math.abs(x2! - 50)).toBeLessThanOrEqual(1);
      expect(Math.abs(x2! + w2! - 300)).toBeLessThanOrEqual(1);
      expect([y2, h2]).toEqual([100, 100]);

      // Shift on a corner: free proportions, the top-left corner to (0, 60) with the bottom-right fixed.
      await dragHandle(page, 'top_left', { x: 20, y: 60 }, true);
      await eventually(async () => (await labels(id)).length).toBe(steps + 3);
      const [x3, y3, w3, h3] = await boundsOf(id, '方块');
      expect(Math.abs(x3! - 20)).toBeLessThanOrEqual(1);
      expect(Math.abs(y3! - 60)).toBeLessThanOrEqual(1);
      expect(Math.abs(x3! + w3! - 300)).toBeLessThanOrEqual(1);
      expect(Math.abs(y3! + h3! - 200)).toBeLessThanOrEqual(1);

      // Esc while dragging: back, nothing sent. The handles come back once the canvas shows the scaled layer.
      const bottom = page.locator('.transform-handle[data-handle="bottom"]');
      await bottom.waitFor({ state: 'visible' });
      const t = (await bottom.boundingBox())!;
      await page.mouse.move(t.x + t.width / 2, t.y + t.height / 2);
      await page.mouse.down();
      await page.mouse.move(t.x, t.y + 80, { steps: 4 });
      await eventually(() => page.locator('.transform-box.scaling').count()).toBe(1);
      await page.keyboard.press('Escape');
      await page.mouse.up();
      await page.waitForTimeout(300);
      expect((await labels(id)).length).toBe(steps + 3);
      await expect(page.locator('.transform-box.scaling').count()).resolves.toBe(0);

      // Just outside a corner: a turn about the centre, Shift snapping to 15°: a quarter turn clockwise.
      await startTurn(page, Math.PI / 2);
      await eventually(() => page.locator('.turn-readout').textContent()).toBe('90°');
      await snapshot(page, 'canvas-transform-turn');
      await page.mouse.up();
      await page.keyboard.up('Shift');
      await eventually(async () => (await labels(id)).slice(steps + 3)).toEqual(['旋转图层']);
      const [x4, y4, w4, h4] = await boundsOf(id, '方块');
      // 280 × 140 about its centre (160, 130): now 140 × 280.
      expect(Math.abs(w4! - 140)).toBeLessThanOrEqual(2);
      expect(Math.abs(h4! - 280)).toBeLessThanOrEqual(2);
      expect(Math.abs(x4! + w4! / 2 - 160)).toBeLessThanOrEqual(2);
      expect(Math.abs(y4! + h4! / 2 - 130)).toBeLessThanOrEqual(2);

      // An empty layer among the selected ones is left out (it has no box to scale): the handles stay on the
      // other's box. None with a locked layer among them, or on the background.
      await okCalls(studio.url, id, [toolCall('select_layers', { names: ['方块', '锁'] })]);
      await page.waitForTimeout(300);
      await eventually(() => page.locator('.transform-handle').count()).toBe(8);
      const kept = (await page.locator('.transform-box').boundingBox())!;
      const corner = await onCanvas(page, x4!, y4!);
      expect(Math.abs(kept.x - corner.x)).toBeLessThan(2);
      expect(Math.abs(kept.y - corner.y)).toBeLessThan(2);
      await okCalls(studio.url, id, [
        toolCall('lock_layer', { name: '锁', locked: true }),
        toolCall('select_layers', { names: ['方块', '锁'] }),
      ]);
      await eventually(() => page.locator('.transform-handle').count()).toBe(0);
      await okCalls(studio.url, id, [toolCall('select_layers', { names: ['背景'] })]);
      await page.waitForTimeout(200);
      await expect(page.locator('.transform-handle').count()).resolves.toBe(0);
      // None on a hidden layer ("the target layer is hidden"), and back once it shows.
      await okCalls(studio.url, id, [
        toolCall('set_layer_visible', { name: '方块', visible: false }),
        toolCall('select_layers', { names: ['方块'] }),
      ]);
      // Once the studio shows the layer hidden and selected (before that, the background's lack of handles
      // would pass for this).
      await eventually(() => page.getByRole('button', { name: '显示图层 方块' }).count()).toBe(1);
      await eventually(() => page.locator('.layer-list li.layer-row.selected').textContent()).toContain(
        '方块',
      );
      await page.waitForTimeout(100);
      await expect(page.locator('.transform-handle').count()).resolves.toBe(0);
      await okCalls(studio.url, id, [toolCall('set_layer_visible', { name: '方块', visible: true })]);
      await eventually(() => page.locator('.transform-handle').count()).toBe(8);
    } catch (err) {
      await snapshot(page, 'failed-canvas-transform');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('puts the handles round several selected layers, which scale and turn as one; an empty one is left out', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '一起' }),
      toolCall('create_layer', { name: '红' }),
      toolCall('select_rect', { left: 100, top: 100, right: 200, bottom: 150 }),
      toolCall('fill_selection', { color: '#c62828' }),
      toolCall('create_layer', { name: '蓝' }),
      toolCall('select_rect', { left: 250, top: 150, right: 300, bottom: 200 }),
      toolCall('fill_selection', { color: '#1565c0' }),
      toolCall('deselect'),
      // Selected beside them, an empty layer does not hide the handles (Photoshop leaves it out).
      toolCall('create_layer', { name: '空' }),
      toolCall('select_layers', { names: ['红', '蓝', '空'] }),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await eventually(() => page.locator('.transform-handle').count()).toBe(8);
      // The box is the pair's joint box, (100, 100)–(300, 200).
      const box = (await page.locator('.transform-box').boundingBox())!;
      const tl = await onCanvas(page, 100, 100);
      const br = await onCanvas(page, 300, 200);
      expect(Math.abs(box.x - tl.x)).toBeLessThan(2);
      expect(Math.abs(box.x + box.width - br.x)).toBeLessThan(2);
      expect(Math.abs(box.y + box.height - br.y)).toBeLessThan(2);
      const steps = (await labels(id)).length;

      // The bottom-right corner to (400, 250): ×1.5 in proportion about the top-left corner, both layers.
      await dragHandle(page, 'bottom_right', { x: 400, y: 250 });
      await eventually(async () => (await labels(id)).slice(steps)).toEqual(['变换多个图层']);
      const near = (got: number[], want: number[]) => got.every((v, i) => Math.abs(v - want[i]!) <= 2);
      expect(near(await boundsOf(id, '红'), [100, 100, 150, 75])).toBe(true);
      expect(near(await boundsOf(id, '蓝'), [325, 175, 75, 75])).toBe(true);
      // All three stay selected, the empty one too, the current layer first as before.
      const picked = async () => {
        const st = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
          active: { selected_layer_ids: number[]; active_layer_id: number; layers: LayerNode[] };
        };
        const name = (lid: number) => st.active.layers.find((l) => l.id === lid)?.name;
        return {
          selected: st.active.selected_layer_ids.map(name).sort(),
          current: name(st.active.active_layer_id),
        };
      };
      expect(await picked()).toEqual({ selected: ['空', '红', '蓝'].sort(), current: '红' });
      await eventually(() => page.locator('.transform-handle').count()).toBe(8);
      await snapshot(page, 'canvas-transform-many');

      // A half turn about the joint centre, now (250, 175), swaps their places.
      await startTurn(page, Math.PI);
      await eventually(() => page.locator('.turn-readout').textContent()).toBe('180°');
      await page.mouse.up();
      await page.keyboard.up('Shift');
      await eventually(async () => (await labels(id)).slice(steps)).toEqual(['变换多个图层', '变换多个图层']);
      expect(near(await boundsOf(id, '红'), [250, 175, 150, 75])).toBe(true);
      expect(near(await boundsOf(id, '蓝'), [100, 100, 75, 75])).toBe(true);
    } catch (err) {
      await snapshot(page, 'failed-canvas-transform-many');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
