/**
 * The Gradient tool (G) on the canvas, as Photoshop's: a drag lays a gradient on the current layer from the
 * foreground colour to the options bar's end colour (or to transparent), in its shape (渐变填充, one history
 * step); Shift keeps the line at a multiple of 45°; the line shows while it is dragged.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { callsSent, historyLabels, screenPoint } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-gradient');
const W = 600;
const H = 400;
const onCanvas = (page: Page, x: number, y: number) => screenPoint(page, W, H, x, y);

const labels = (id: string) => historyLabels(studio.url, id);

/** The canvas's colour at document pixel (x, y), as the server reads it. */
async function colourAt(id: string, x: number, y: number): Promise<[number, number, number]> {
  const [r] = await okCalls(studio.url, id, [toolCall('get_pixel_color', { x, y })]);
  const hex = String((r as { hex: string }).hex);
  return [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

const near = (a: readonly number[], b: readonly number[], tolerance: number) =>
  a.every((v, i) => Math.abs(v - b[i]!) <= tolerance);

/**
 * A W × H document named `name` with a red foreground colour, open at 1280 × 800 with the Gradient tool chosen (G),
 * and the fill_gradient calls the page sends.
 */
async function withGradientTool(name: string) {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: W, height: H, name }),
    toolCall('set_foreground_color', { color: '#e63946' }),
  ]);
  const page = await studio.open(id, 1280, 800);
  const sent = callsSent(page, 'fill_gradient');
  await eventually(() => page.locator('.artboard img').count()).toBe(1);
  await page.locator('.canvas-viewport[tabindex]').focus();
  await page.keyboard.press('g');
  await eventually(() => page.getByRole('button', { name: '渐变工具' }).getAttribute('aria-pressed')).toBe(
    'true',
  );
  return { id, page, sent, bar: page.getByRole('group', { name: '渐变选项' }) };
}

describe('the Gradient tool', () => {
  it('lays a gradient from the foreground colour to the end colour along the drag, and radial to transparent', async () => {
    const { id, page, sent, bar } = await withGradientTool('渐变');
    await bar.locator('input.gradient-end').fill('#1d3557');
    const steps = (await labels(id)).length;

    // A horizontal drag with Shift, the hand drifting down: kept level.
    const from = await onCanvas(page, 100, 200);
    const to = await onCanvas(page, 500, 230);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.keyboard.down('Shift');
    await page.mouse.move(to.x, to.y, { steps: 8 });
    await eventually(() => page.locator('.gradient-line line').count()).toBe(1);
    await snapshot(page, 'canvas-gradient-dragging');
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['渐变填充']);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ start_color: '#e63946', end_color: '#1d3557' });
    expect(Math.abs((sent[0]!.start_x as number) - 100)).toBeLessThanOrEqual(2);
    expect(sent[0]!.end_y).toBe(sent[0]!.start_y);
    expect(await page.locator('.gradient-line').count()).toBe(0);
    // The start colour before the start, the end colour past the end, half-way between them in the middle.
    expect(near(await colourAt(id, 20, 50), [0xe6, 0x39, 0x46], 1)).toBe(true);
    expect(near(await colourAt(id, 560, 380), [0x1d, 0x35, 0x57], 1)).toBe(true);
    const x0 = sent[0]!.start_x as number;
    const x1 = sent[0]!.end_x as number;
    const mid = Math.round((x0 + x1) / 2);
    const t = (mid + 0.5 - x0) / (x1 - x0);
    const want = [0xe6, 0x39, 0x46].map((v, i) => v + ([0x1d, 0x35, 0x57][i]! - v) * t);
    expect(near(await colourAt(id, mid, 300), want, 1)).toBe(true);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(null);
    await snapshot(page, 'canvas-gradient-linear');

    // Radial, to transparent, inside a selection: the foreground fading to the white below from the centre.
    await okCalls(studio.url, id, [
      toolCall('create_layer', { name: '光晕' }),
      toolCall('select_ellipse', { left: 200, top: 100, right: 400, bottom: 300 }),
    ]);
    await page.locator('.canvas-viewport[tabindex]').focus();
    await bar.getByRole('checkbox', { name: '到透明' }).check();
    await bar.getByRole('combobox', { name: '类型' }).selectOption('radial');
    const c = await onCanvas(page, 300, 200);
    const r = await onCanvas(page, 400, 200);
    await page.mouse.move(c.x, c.y);
    await page.mouse.down();
    await page.mouse.move(r.x, r.y, { steps: 6 });
    await page.mouse.up();
    await eventually(() => sent.length).toBe(2);
    expect(sent[1]).toMatchObject({
      type: 'radial',
      end_opacity: 0,
      start_color: '#e63946',
      end_color: '#e63946',
    });
    await eventually(async () => (await labels(id)).at(-1)).toBe('渐变填充');
    // At the centre the foreground colour; outside the selection the linear gradient below, untouched.
    expect(near(await colourAt(id, 300, 200), [0xe6, 0x39, 0x46], 2)).toBe(true);
    expect(near(await colourAt(id, 20, 50), [0xe6, 0x39, 0x46], 1)).toBe(true);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(null);
    await snapshot(page, 'canvas-gradient-radial');

    // On a layer's mask: only where the layer has one; the layer then fades out along the drag.
    const onMask = bar.getByRole('checkbox', { name: '画在蒙版上' });
    await expect(onMask.isDisabled()).resolves.toBe(true);
    await okCalls(studio.url, id, [
      toolCall('deselect'),
      toolCall('create_layer', { name: '色块' }),
      toolCall('fill_selection', { color: '#2a9d8f' }),
      toolCall('add_layer_mask', { name: '色块' }),
    ]);
    await eventually(() => onMask.isEnabled()).toBe(true);
    await onMask.check();
    await bar.getByRole('combobox', { name: '类型' }).selectOption('linear');
    await bar.getByRole('checkbox', { name: '到透明' }).uncheck();
    await okCalls(studio.url, id, [toolCall('set_foreground_color', { color: '#ffffff' })]);
    await bar.locator('input.gradient-end').fill('#000000');
    const top = await onCanvas(page, 300, 0);
    const bottom = await onCanvas(page, 300, 399);
    await page.mouse.move(top.x, top.y + 1);
    await page.mouse.down();
    await page.mouse.move(bottom.x, bottom.y, { steps: 6 });
    await page.mouse.up();
    await eventually(() => sent.length).toBe(3);
    expect(sent[2]).toMatchObject({ target: 'mask', start_color: '#ffffff', end_color: '#000000' });
    await eventually(async () => (await labels(id)).at(-1)).toBe('渐变填充');
    // The teal shows at the top and fades out towards the bottom, where what is below shows again.
    expect(near(await colourAt(id, 580, 2), [0x2a, 0x9d, 0x8f], 2)).toBe(true);
    expect(near(await colourAt(id, 580, 397), [0x1d, 0x35, 0x57], 2)).toBe(true);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(null);
    await snapshot(page, 'canvas-gradient-mask');
  });

  it('goes through the middle colour when one is chosen (a colour stop at 50 %), the swatch showing it', async () => {
    const { id, page, sent, bar } = await withGradientTool('三色');
    const middle = bar.locator('input.gradient-middle');
    await expect(middle.isDisabled()).resolves.toBe(true);
    await bar.getByRole('checkbox', { name: '中间色' }).check();
    await eventually(() => middle.isEnabled()).toBe(true);
    await middle.fill('#f1c40f');
    await bar.locator('input.gradient-end').fill('#1d3557');
    const swatch = await bar.getByRole('img').getAttribute('style');
    expect(swatch).toContain('rgb(241, 196, 15)');

    const from = await onCanvas(page, 0, 200);
    const to = await onCanvas(page, 599, 200);
    await page.mouse.move(from.x + 1, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 8 });
    await page.mouse.up();
    await eventually(() => sent.length).toBe(1);
    expect(sent[0]).toMatchObject({
      start_color: '#e63946',
      end_color: '#1d3557',
      stops: [{ location: 50, color: '#f1c40f' }],
    });
    await eventually(async () => (await labels(id)).at(-1)).toBe('渐变填充');
    // The middle colour half-way along the drag, the two ends at the two ends.
    const x0 = sent[0]!.start_x as number;
    const x1 = sent[0]!.end_x as number;
    const mid = Math.round((x0 + x1) / 2 - 0.5);
    expect(near(await colourAt(id, mid, 200), [0xf1, 0xc4, 0x0f], 4)).toBe(true);
    expect(near(await colourAt(id, 0, 200), [0xe6, 0x39, 0x46], 4)).toBe(true);
    expect(near(await colourAt(id, 599, 200), [0x1d, 0x35, 0x57], 4)).toBe(true);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(null);
    // The card names the stop among its arguments, as the registry labels it.
    const card = page.locator('.card').filter({ hasText: 'fill_gradient' }).first();
    await card.locator('summary').first().click();
    await eventually(() => card.textContent()).toContain('两端之间的色标');
    expect(await card.textContent()).toContain('#f1c40f');
    await snapshot(page, 'canvas-gradient-middle');

    // Switched off again: the next gradient has two colours only.
    await bar.getByRole('checkbox', { name: '中间色' }).uncheck();
    await page.mouse.move(from.x + 1, from.y + 50);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y + 50, { steps: 8 });
    await page.mouse.up();
    await eventually(() => sent.length).toBe(2);
    expect(sent[1]!.stops).toBeUndefined();
  });

  it('reverses the gradient and turns dither off from the options bar, as Photoshop’s Reverse and Dither', async () => {
    const { id, page, sent, bar } = await withGradientTool('反向');
    await bar.locator('input.gradient-end').fill('#1d3557');
    // Dither is on by default (the registry's default: nothing is sent for it).
    await expect(bar.getByRole('checkbox', { name: '仿色' }).isChecked()).resolves.toBe(true);
    await bar.getByRole('checkbox', { name: '反向' }).check();
    await bar.getByRole('checkbox', { name: '仿色' }).uncheck();
    // The swatch runs from the end colour to the foreground colour.
    const swatch = (await bar.getByRole('img').getAttribute('style')) ?? '';
    expect(swatch.indexOf('rgb(29, 53, 87)')).toBeGreaterThan(-1);
    expect(swatch.indexOf('rgb(29, 53, 87)')).toBeLessThan(swatch.indexOf('rgb(230, 57, 70)'));

    const drag = async (y: number) => {
      const from = await onCanvas(page, 0, y);
      const to = await onCanvas(page, 599, y);
      await page.mouse.move(from.x + 1, from.y);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: 8 });
      await page.mouse.up();
    };
    await drag(200);
    await eventually(() => sent.length).toBe(1);
    expect(sent[0]).toMatchObject({ start_color: '#1d3557', end_color: '#e63946', dither: false });
    await eventually(async () => (await labels(id)).at(-1)).toBe('渐变填充');
    expect(near(await colourAt(id, 0, 200), [0x1d, 0x35, 0x57], 4)).toBe(true);
    expect(near(await colourAt(id, 599, 200), [0xe6, 0x39, 0x46], 4)).toBe(true);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(null);
    await snapshot(page, 'canvas-gradient-reversed');

    // Reversed to transparent: the foreground colour fades in from nothing at the start.
    await bar.getByRole('checkbox', { name: '到透明' }).check();
    await bar.getByRole('checkbox', { name: '仿色' }).check();
    await drag(100);
    await eventually(() => sent.length).toBe(2);
    expect(sent[1]).toMatchObject({ start_color: '#e63946', start_opacity: 0, end_color: '#e63946' });
    expect(sent[1]!.end_opacity).toBeUndefined();
    expect(sent[1]!.dither).toBeUndefined();
  });
});
