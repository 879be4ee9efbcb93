/**
 * Photoshop's other selection tools on the canvas: the Elliptical Marquee (Shift+M, or the options bar), the Lasso
 * and Polygonal Lasso (L, Shift+L) and the Magic Wand (W), with the options bar's selection mode. Each selection is
 * checked where it matters, in the document: a colour filled into it lands inside the shape drawn and not in the
 * corners of its box.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { screenPoint, selectionState } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-select-tools');

const W = 600;
const H = 400;

const onCanvas = (page: Page, x: number, y: number) => screenPoint(page, W, H, x, y);
const state = (id: string) => selectionState(studio.url, id);

/** A white 600 × 400 document; layer 色 holds two red squares apart and a blue one. */
async function document(name: string): Promise<string> {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: W, height: H, name }),
    toolCall('create_layer', { name: '色' }),
    toolCall('select_rect', { left: 40, top: 40, right: 140, bottom: 140 }),
    toolCall('fill_selection', { color: '#d32f2f' }),
    toolCall('select_rect', { left: 440, top: 40, right: 540, bottom: 140 }),
    toolCall('fill_selection', { color: '#d32f2f' }),
    toolCall('select_rect', { left: 240, top: 260, right: 340, bottom: 360 }),
    toolCall('fill_selection', { color: '#1565c0' }),
    toolCall('deselect'),
  ]);
  return id;
}

/**
 * Which of `points` the selection covers: a new layer filled green through it is read at each point, then the
 * layer and the steps are undone, so the test leaves the document as the studio made it.
 */
async function covered(id: string, points: [number, number][]): Promise<boolean[]> {
  const results = await okCalls(studio.url, id, [
    toolCall('create_layer', { name: '检查' }),
    toolCall('fill_selection', { color: '#00ff00' }),
    ...points.map(([x, y]) => toolCall('get_pixel_color', { x, y })),
    toolCall('undo', { steps: 2 }),
  ]);
  return results.slice(2, 2 + points.length).map((r) => r.hex === '#00ff00');
}

const ants = (page: Page) => page.locator('.artboard .selection-ants .ants');
const drawing = (page: Page) => page.locator('.artboard .selection-ants.drawing .ants');

describe('the selection tools on the canvas', () => {
  it('draws an ellipse with the Elliptical Marquee (Shift+M), in the options bar mode', async () => {
    const id = await document('椭圆');
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('Shift+M');
      const ellipseTool = page.locator('.canvas-toolbox').getByRole('button', { name: '椭圆选框工具' });
      await eventually(() => ellipseTool.getAttribute('aria-pressed')).toBe('true');
      const bar = page.getByRole('group', { name: '选区选项' });
      await expect(
        bar.getByRole('button', { name: '椭圆选框工具' }).getAttribute('aria-pressed'),
      ).resolves.toBe('true');
      const steps = (await state(id)).labels.length;

      const a = await onCanvas(page, 200, 100);
      const b = await onCanvas(page, 400, 300);
      await page.mouse.move(a.x, a.y);
      await page.mouse.down();
      await page.mouse.move(b.x, b.y, { steps: 8 });
      // While drawing, the ants follow the ellipse (arcs), not its box.
      await eventually(async () => (await drawing(page).getAttribute('d')) ?? '').toContain('A');
      await page.mouse.up();
      await eventually(async () => (await state(id)).labels.slice(steps)).toEqual(['椭圆选区']);
      const sel = (await state(id)).selection!;
      for (const [got, want] of [
        [sel.bounds.x, 200],
        [sel.bounds.y, 100],
        [sel.bounds.w, 200],
        [sel.bounds.h, 200],
      ]) {
        expect(Math.abs(got! - want!)).toBeLessThanOrEqual(2);
      }
      // The centre and the ends of the axes inside, the corners of its box outside.
      expect(
        await covered(id, [
          [300, 200],
          [205, 200],
          [300, 105],
          [210, 110],
          [390, 290],
        ]),
      ).toEqual([true, true, true, false, false]);
      await eventually(() => ants(page).count()).toBe(1);
      await snapshot(page, 'canvas-ellipse');

      // The options bar's subtract: a second ellipse takes a bite out of the first, with no key held.
      await bar.getByRole('button', { name: '从选区减去（Alt）' }).click();
      const c = await onCanvas(page, 300, 150);
      const d = await onCanvas(page, 500, 250);
      await page.mouse.move(c.x, c.y);
      await page.mouse.down();
      await page.mouse.move(d.x, d.y, { steps: 8 });
      await page.mouse.up();
      // One more step (the check's own steps were undone).
      await eventually(async () => (await state(id)).labels.length).toBe(steps + 2);
      expect((await state(id)).labels.at(-1)).toBe('椭圆选区');
      expect(
        await covered(id, [
          [250, 200],
          [390, 200],
        ]),
      ).toEqual([true, false]);
    } catch (err) {
      await snapshot(page, 'failed-canvas-ellipse');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('selects along a freehand lasso (L) and a polygonal lasso (Shift+L: clicks, Backspace, Esc, a click on the first corner)', async () => {
    const id = await document('套索');
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('l');
      const lassoTool = page.locator('.canvas-toolbox').getByRole('button', { name: '套索工具' });
      await eventually(() => lassoTool.getAttribute('aria-pressed')).toBe('true');
      const steps = (await state(id)).labels.length;

      // Freehand: a triangle dragged point by point, closed on release.
      const corners: [number, number][] = [
        [100, 350],
        [300, 50],
        [500, 350],
      ];
      const first = await onCanvas(page, ...corners[0]!);
      await page.mouse.move(first.x, first.y);
      await page.mouse.down();
      for (const [x, y] of [...corners.slice(1), corners[0]!]) {
        const p = await onCanvas(page, x, y);
        await page.mouse.move(p.x, p.y, { steps: 12 });
      }
      await page.mouse.up();
      await eventually(async () => (await state(id)).labels.slice(steps)).toEqual(['多边形套索']);
      const tri = (await state(id)).selection!.bounds;
      expect(Math.abs(tri.x - 100)).toBeLessThanOrEqual(3);
      expect(Math.abs(tri.y - 50)).toBeLessThanOrEqual(3);
      expect(Math.abs(tri.x + tri.w - 500)).toBeLessThanOrEqual(3);
      expect(
        await covered(id, [
          [300, 250],
          [300, 80],
          [130, 80],
          [470, 80],
        ]),
      ).toEqual([true, true, false, false]);
      await snapshot(page, 'canvas-lasso');

      // Shift+L: the polygonal lasso. Corners by clicks, the next edge following the pointer. The first click
      // comes at once, as a designer's would: the tool's change must not drop a corner set just after it.
      const click = async (x: number, y: number) => {
        const p = await onCanvas(page, x, y);
        await page.mouse.click(p.x, p.y);
      };
      // With no frame painted (a loaded machine or a background tab paints seldom), nothing may wait for one.
      await page.evaluate('window.requestAnimationFrame = () => 0');
      await page.keyboard.press('Shift+L');
      await click(50, 200);
      const polyTool = page.locator('.canvas-toolbox').getByRole('button', { name: '多边形套索工具' });
      expect(await polyTool.getAttribute('aria-pressed')).toBe('true');
      await click(150, 200);
      await click(150, 300);
      const hover = await onCanvas(page, 120, 380);
      await page.mouse.move(hover.x, hover.y, { steps: 3 });
      await eventually(
        async () => ((await drawing(page).getAttribute('d')) ?? '').split('L').length - 1,
      ).toBe(3);
      await snapshot(page, 'canvas-polygon-lasso');
      // Backspace takes the last corner back; Esc drops the lot and sends nothing.
      await page.keyboard.press('Backspace');
      await eventually(
        async () => ((await drawing(page).getAttribute('d')) ?? '').split('L').length - 1,
      ).toBe(2);
      await page.keyboard.press('Escape');
      await eventually(() => drawing(page).count()).toBe(0);
      expect((await state(id)).labels.length).toBe(steps + 1);
      expect((await page.locator('.layer-row').count()) > 0).toBe(true);

      // A square of four corners with Shift held at its first click (add), closed by a click on its first corner.
      const s0 = await onCanvas(page, 50, 200);
      await page.keyboard.down('Shift');
      await page.mouse.click(s0.x, s0.y);
      await page.keyboard.up('Shift');
      await click(150, 200);
      await click(150, 300);
      await click(50, 300);
      await click(51, 201);
      await eventually(async () => (await state(id)).labels.length).toBe(steps + 2);
      expect((await state(id)).labels.at(-1)).toBe('多边形套索');
      // Added to the triangle: both are selected, a point beside both (left of the triangle, right of the square) not.
      expect(
        await covered(id, [
          [100, 250],
          [300, 250],
          [170, 210],
        ]),
      ).toEqual([true, true, false]);
    } catch (err) {
      await snapshot(page, 'failed-canvas-lasso');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('selects a colour with the Magic Wand (W): contiguous or not, Shift adds', async () => {
    const id = await document('魔棒');
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await okCalls(studio.url, id, [toolCall('select_layers', { names: ['色'] })]);
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('w');
      const wandTool = page.locator('.canvas-toolbox').getByRole('button', { name: '魔棒工具' });
      await eventually(() => wandTool.getAttribute('aria-pressed')).toBe('true');
      const bar = page.getByRole('group', { name: '选区选项' });
      await expect(bar.getByLabel('容差').inputValue()).resolves.toBe('32');
      const steps = (await state(id)).labels.length;

      const click = async (x: number, y: number, held?: 'Shift' | 'Alt') => {
        const p = await onCanvas(page, x, y);
        if (held) await page.keyboard.down(held);
        await page.mouse.click(p.x, p.y);
        if (held) await page.keyboard.up(held);
      };
      // Contiguous: the red square clicked, not the other one.
      await click(90, 90);
      await eventually(async () => (await state(id)).labels.slice(steps)).toEqual(['魔棒']);
      expect((await state(id)).selection!.bounds).toEqual({ x: 40, y: 40, w: 100, h: 100 });
      await eventually(() => ants(page).count()).toBe(1);
      await snapshot(page, 'canvas-magic-wand');

      // Keys typed in the tolerance field are the field's: Backspace there clears neither pixels nor layers.
      const tolerance = bar.getByLabel('容差');
      await tolerance.click();
      await page.keyboard.press('End');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('40');
      await page.keyboard.press('Tab');
      await expect(tolerance.inputValue()).resolves.toBe('40');
      await page.waitForTimeout(300);
      expect((await state(id)).labels.length).toBe(steps + 1);
      // Enter there keeps the value and gives the keys back to the document (Ctrl+Z then undoes the wand's step).
      await tolerance.click();
      await page.keyboard.press('End');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('1');
      await page.keyboard.press('Enter');
      await expect(tolerance.inputValue()).resolves.toBe('41');
      expect(await page.evaluate('document.activeElement?.classList.contains("canvas-viewport")')).toBe(true);

      // Not contiguous: both red squares.
      await bar.getByLabel('连续').uncheck();
      await click(90, 90);
      await eventually(async () => (await state(id)).labels.length).toBe(steps + 2);
      expect((await state(id)).selection!.bounds).toEqual({ x: 40, y: 40, w: 500, h: 100 });
      expect(
        await covered(id, [
          [90, 90],
          [490, 90],
          [290, 90],
        ]),
      ).toEqual([true, true, false]);

      // Shift-click on the blue one adds it.
      await click(290, 310, 'Shift');
      await eventually(async () => (await state(id)).labels.length).toBe(steps + 3);
      expect((await state(id)).selection!.bounds).toEqual({ x: 40, y: 40, w: 500, h: 320 });

      // A foreground colour chosen at the toolbox's foot, then Alt+Delete fills the selection with it (Photoshop's
      // Fill with Foreground Color) on the current layer: the three squares, nothing between them.
      await page.locator('.canvas-toolbox .foreground-swatch').fill('#00aa00');
      await eventually(async () => {
        const st = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
          active: { foreground: string };
        };
        return st.active.foreground;
      }).toBe('#00aa00');
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('Alt+Delete');
      await eventually(async () => (await state(id)).labels.slice(steps + 3)).toEqual(['填充选区']);
      const colours = await okCalls(studio.url, id, [
        toolCall('get_pixel_color', { x: 90, y: 90 }),
        toolCall('get_pixel_color', { x: 490, y: 90 }),
        toolCall('get_pixel_color', { x: 290, y: 310 }),
        toolCall('get_pixel_color', { x: 290, y: 90 }),
      ]);
      expect(colours.map((r) => r.hex)).toEqual(['#00aa00', '#00aa00', '#00aa00', '#ffffff']);
      await snapshot(page, 'canvas-fill-foreground');
    } catch (err) {
      await snapshot(page, 'failed-canvas-magic-wand');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
