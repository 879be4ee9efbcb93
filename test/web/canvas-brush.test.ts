/**
 * The Brush tool (B) on the canvas, as Photoshop's: a drag paints the foreground colour along the pointer's path,
 * shown as it is drawn and made when the pointer lifts (画笔, one history step); a click paints a dot; [ and ] step
 * the size; the options bar's size, hardness and opacity are what is sent.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { callsSent, historyLabels, screenPoint } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-brush');
const W = 600;
const H = 400;
const onCanvas = (page: Page, x: number, y: number) => screenPoint(page, W, H, x, y);

const labels = (id: string) => historyLabels(studio.url, id);

async function hexAt(id: string, x: number, y: number): Promise<string> {
  const [r] = await okCalls(studio.url, id, [toolCall('get_pixel_color', { x, y })]);
  return String((r as { hex: string }).hex);
}

/**
 * A W × H document named `name` with a layer 笔迹 and a dark foreground colour, open at 1280 × 800 with the Brush
 * tool chosen (B), and the paint_stroke calls the page sends.
 */
async function withBrushTool(name: string) {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: W, height: H, name }),
    toolCall('create_layer', { name: '笔迹' }),
    toolCall('set_foreground_color', { color: '#264653' }),
  ]);
  const page = await studio.open(id, 1280, 800);
  const sent = callsSent(page, 'paint_stroke');
  await eventually(() => page.locator('.artboard img').count()).toBe(1);
  const viewport = page.locator('.canvas-viewport[tabindex]');
  await viewport.focus();
  await page.keyboard.press('b');
  await eventually(() => page.getByRole('button', { name: '画笔工具' }).getAttribute('aria-pressed')).toBe(
    'true',
  );
  return { id, page, sent, viewport, bar: page.getByRole('group', { name: '画笔选项' }) };
}

describe('the Brush tool', () => {
  it('paints the drag’s path in the foreground colour, a click a dot; [ and ] step the size', async () => {
    const { id, page, sent, viewport, bar } = await withBrushTool('画笔');
    const size = bar.locator('input.brush-size');
    await size.fill('30');
    await size.press('Enter');
    await expect(size.inputValue()).resolves.toBe('30');
    // [ and ] step it as Photoshop does (by 10 between 10 and 100).
    await viewport.focus();
    await page.keyboard.press(']');
    await eventually(() => size.inputValue()).toBe('40');
    await page.keyboard.press('[');
    await eventually(() => size.inputValue()).toBe('30');
    const steps = (await labels(id)).length;

    // A wave across the canvas.
    const path = [
      [80, 200],
      [180, 120],
      [300, 200],
      [420, 280],
      [520, 200],
    ] as const;
    const first = await onCanvas(page, path[0][0], path[0][1]);
    await page.mouse.move(first.x, first.y);
    await page.mouse.down();
    for (const p of path.slice(1)) {
      const at = await onCanvas(page, p[0], p[1]);
      await page.mouse.move(at.x, at.y, { steps: 8 });
    }
    await eventually(() => page.locator('.brush-path polyline').count()).toBe(1);
    // Drawn over the canvas where the stroke will land: the preview's frame is the artboard's.
    const frame = (await page.locator('.brush-path').boundingBox())!;
    const board = (await page.locator('.artboard').boundingBox())!;
    expect([frame.x, frame.y, frame.width, frame.height].map((v) => Math.round(v))).toEqual(
      [board.x, board.y, board.width, board.height].map((v) => Math.round(v)),
    );
    await snapshot(page, 'canvas-brush-drawing');
    await page.mouse.up();
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['画笔']);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ size: 30, color: '#264653' });
    expect((sent[0]!.points as unknown[]).length).toBeGreaterThan(10);
    expect(await page.locator('.brush-path').count()).toBe(0);
    // On the path, the colour; well off it, the white below.
    await expect(hexAt(id, 300, 200)).resolves.toBe('#264653');
    await expect(hexAt(id, 180, 121)).resolves.toBe('#264653');
    await expect(hexAt(id, 300, 300)).resolves.toBe('#ffffff');

    // A click, at half opacity and soft: a dot, the colour half over white at its centre.
    await bar.locator('input.brush-opacity').fill('50');
    await bar.locator('input.brush-opacity').press('Enter');
    await bar.locator('input.brush-hardness').fill('0');
    await bar.locator('input.brush-hardness').press('Enter');
    const dot = await onCanvas(page, 300, 60);
    await page.mouse.click(dot.x, dot.y);
    await eventually(() => sent.length).toBe(2);
    expect(sent[1]).toMatchObject({ opacity: 50, hardness: 0 });
    expect(sent[1]!.points as unknown[]).toHaveLength(1);
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['画笔', '画笔']);
    const centre = await hexAt(id, 300, 60);
    const red = Number.parseInt(centre.slice(1, 3), 16);
    expect(Math.abs(red - (0x26 + 255) / 2)).toBeLessThanOrEqual(6);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(null);
    await snapshot(page, 'canvas-brush-made');

    // At a low flow (流量) the stroke is sent with it: paint builds up where the stroke goes back over itself.
    const flow = bar.getByLabel('流量');
    await expect(flow.inputValue()).resolves.toBe('100');
    await flow.fill('30');
    await flow.press('Enter');
    const from = await onCanvas(page, 100, 340);
    const to = await onCanvas(page, 500, 340);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 8 });
    await page.mouse.move(from.x, from.y, { steps: 8 });
    await page.mouse.up();
    await eventually(() => sent.length).toBe(3);
    expect(sent[2]).toMatchObject({ flow: 30, opacity: 50 });
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['画笔', '画笔', '画笔']);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(null);
    await snapshot(page, 'canvas-brush-flow');
  });

  it('with a pen, the pressure sets the size along the stroke; a mouse, or the option off, paints at full size', async () => {
    const { id, page, sent, bar } = await withBrushTool('压感');
    await bar.locator('input.brush-size').fill('40');
    await bar.locator('input.brush-size').press('Enter');
    await expect(bar.getByRole('checkbox', { name: '压力控制大小' }).isChecked()).resolves.toBe(true);

    // A pen (Chromium's own pen input, through the DevTools protocol), pressed hard and lifted gradually.
    const cdp = await page.context().newCDPSession(page);
    const pen = async (
      type: 'mousePressed' | 'mouseMoved' | 'mouseReleased',
      x: number,
      y: number,
      force: number,
    ) =>
      cdp.send('Input.dispatchMouseEvent', {
        type,
        x,
        y,
        force,
        button: 'left',
        buttons: type === 'mouseReleased' ? 0 : 1,
        clickCount: 1,
        pointerType: 'pen',
      });
    const stroke = async (y: number) => {
      const from = await onCanvas(page, 100, y);
      await pen('mousePressed', from.x, from.y, 1);
      for (let i = 1; i <= 20; i++) {
        const at = await onCanvas(page, 100 + i * 20, y);
        await pen('mouseMoved', at.x, at.y, 1 - i * 0.04);
      }
      const end = await onCanvas(page, 500, y);
      await pen('mouseReleased', end.x, end.y, 0);
    };
    await stroke(150);
    await eventually(() => sent.length).toBe(1);
    const points = sent[0]!.points as { x: number; pressure?: number }[];
    expect(points[0]!.pressure).toBe(1);
    expect(points.at(-1)!.pressure).toBeCloseTo(0.2, 2);
    for (let i = 1; i < points.length; i++)
      expect(points[i]!.pressure!).toBeLessThanOrEqual(points[i - 1]!.pressure!);
    await eventually(async () => (await labels(id)).at(-1)).toBe('画笔');
    // Near the start, 40 px across: painted 15 px off the path; near the end, about 8 px across: not.
    await expect(hexAt(id, 110, 165)).resolves.toBe('#264653');
    await expect(hexAt(id, 490, 165)).resolves.toBe('#ffffff');
    await expect(hexAt(id, 490, 150)).resolves.toBe('#264653');
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(null);
    await snapshot(page, 'canvas-brush-pressure');

    // The option off: the pen paints at the full size, as a mouse does.
    await bar.getByRole('checkbox', { name: '压力控制大小' }).uncheck();
    await stroke(300);
    await eventually(() => sent.length).toBe(2);
    expect((sent[1]!.points as { pressure?: number }[]).every((p) => p.pressure === undefined)).toBe(true);
    await eventually(async () => hexAt(id, 490, 315)).toBe('#264653');
    // Pressure for opacity instead: full size, fading as the pen lifts.
    await bar.getByRole('checkbox', { name: '压力控制不透明度' }).check();
    const shown = await page.locator('.artboard img').getAttribute('src');
    await stroke(220);
    await eventually(() => sent.length).toBe(3);
    expect(sent[2]).toMatchObject({ pressure_sets: 'opacity' });
    expect((sent[2]!.points as { pressure?: number }[])[0]!.pressure).toBe(1);
    await eventually(async () => (await labels(id)).length).toBeGreaterThan(2);
    // Near the start, pressed hard: nearly the full colour.
    await eventually(async () => Number.parseInt((await hexAt(id, 110, 220)).slice(1, 3), 16)).toBeLessThan(
      0x26 + 10,
    );
    // Near the end, at about a fifth of the pressure: the colour a fifth over white, and as wide as at the start.
    const faint = Number.parseInt((await hexAt(id, 490, 220)).slice(1, 3), 16);
    expect(faint).toBeGreaterThan(0x26 + 100);
    expect(faint).toBeLessThan(255);
    expect(await hexAt(id, 490, 235)).not.toBe('#ffffff');
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(shown);
    await snapshot(page, 'canvas-brush-pressure-opacity');
  });
});
