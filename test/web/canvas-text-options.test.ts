/**
 * The type tool's options bar (字体, 字号, 颜色) belongs to the text the designer is working on, as in Photoshop:
 * while new text is typed it shows that text's font, size and colour, and a change there restyles the words being
 * typed (the box shows it, the layer is made so) instead of committing them and changing the layer selected before;
 * the text just made is changed once its layer has come, never that other layer. Enter in a field (or a font or
 * colour chosen) gives the keys back to the document — to the words being typed, else the canvas, where V and
 * Ctrl+Z act — and a press on the canvas takes the focus from the field.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { LayerNode } from '../../src/calls/snapshot-types.js';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { chooseTypeTool, screenPoint } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-text-options');

const onCanvas = (page: Page, x: number, y: number) => screenPoint(page, 600, 400, x, y);

async function labels(id: string): Promise<string[]> {
  const s = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
    active: { history: { labels: string[]; index: number } };
  };
  return s.active.history.labels.slice(0, s.active.history.index + 1);
}

/** The text layers' texts by their words. */
async function texts(id: string): Promise<Map<string, NonNullable<LayerNode['text']>>> {
  const layers = (await activeLayers(studio.url, id)).filter((l) => l.text);
  return new Map(layers.map((l) => [l.text!.content, l.text!]));
}

const focused = (el: Locator) => el.evaluate((e) => e.ownerDocument.activeElement === e);
/** The box's font size, weight and colour as the page draws them. */
const drawn = (el: Locator) =>
  el.evaluate((e) => {
    const s = e.ownerDocument.defaultView!.getComputedStyle(e);
    return { size: Number.parseFloat(s.fontSize), weight: s.fontWeight, color: s.color };
  });

/** A 600 × 400 document with one text layer (selected, as a new layer is), the studio open on it with the type tool. */
async function withText(args: Record<string, unknown>) {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: 600, height: 400, name: '字号' }),
    toolCall('create_text_layer', { x: 20, y: 20, ...args }),
  ]);
  const page = await studio.open(id);
  // The calls the page sends, by name, in order.
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'POST' || !r.url().includes('/tool-calls')) return;
    const body = r.postDataJSON() as { tool_calls: { function: { name: string } }[] };
    sent.push(...body.tool_calls.map((c) => c.function.name));
  });
  await eventually(() => page.locator('.artboard img').count()).toBe(1);
  const canvas = page.locator('.canvas-viewport[tabindex]');
  await chooseTypeTool(page);
  const bar = page.locator('.tool-options');
  return {
    id,
    page,
    sent,
    canvas,
    size: bar.locator('input[type="number"]'),
    font: bar.locator('.text-font'),
    color: bar.locator('.text-color'),
    editor: page.locator('.artboard .text-editor'),
    zoom: async () => (await page.locator('.artboard').boundingBox())!.width / 600,
  };
}

describe('the type options bar', () => {
  it('changes the size of the text being typed, not the layer selected before, and the text just made once it comes', async () => {
    const { id, page, size, editor, zoom } = await withText({ text: '标题', font_size: 100 });
    // The selected text layer's size, which new text starts in.
    await eventually(() => size.inputValue()).toBe('100');
    const steps = (await labels(id)).length;
    const at = await onCanvas(page, 300, 250);
    await page.mouse.click(at.x, at.y);
    await eventually(() => editor.count()).toBe(1);
    await page.keyboard.type('新品');
    await expect(size.inputValue()).resolves.toBe('100');

    // The field taken with the mouse, 60 typed, Enter: the words stay open, in 60 px, and have the keys again.
    await size.click();
    await expect(focused(size)).resolves.toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('60');
    await expect(editor.count()).resolves.toBe(1);
    await page.keyboard.press('Enter');
    await eventually(() => focused(editor)).toBe(true);
    const z = await zoom();
    await eventually(async () => (await drawn(editor)).size).toBeCloseTo(60 * z, 1);
    await expect(size.inputValue()).resolves.toBe('60');
    await page.keyboard.type('上市');
    await expect(editor.inputValue()).resolves.toBe('新品上市');
    await snapshot(page, 'canvas-text-options-size');
    expect(await labels(id)).toHaveLength(steps);
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['创建文字']);
    await eventually(() => editor.count()).toBe(0);
    let now = await texts(id);
    expect(now.get('新品上市')).toMatchObject({ size: 60, x: 300, y: 250 });
    expect(now.get('标题')!.size).toBe(100);
    // The new layer is selected: the bar shows it.
    await eventually(() => size.inputValue()).toBe('60');

    // With the title selected again, new text made and its size changed before the studio has its layer (its call
    // held on the way): the change goes to the text just made, not to the title.
    await okCalls(studio.url, id, [toolCall('select_layers', { names: ['标题'] })]);
    await eventually(() => size.inputValue()).toBe('100');
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/tool-calls**', async (route) => {
      if (route.request().postData()?.includes('create_text_layer')) await held;
      await route.continue();
    });
    const spot = await onCanvas(page, 40, 300);
    await page.mouse.click(spot.x, spot.y);
    await eventually(() => editor.count()).toBe(1);
    await page.keyboard.type('三');
    await page.keyboard.press('Control+Enter');
    await eventually(() => editor.count()).toBe(0);
    await expect(size.inputValue()).resolves.toBe('100');
    await size.fill('80');
    await size.press('Enter');
    await expect(size.inputValue()).resolves.toBe('80');
    release();
    await eventually(async () => (await labels(id)).slice(steps)).toEqual([
      '创建文字',
      '创建文字',
      '修改字号',
    ]);
    await page.unroute('**/tool-calls**');
    now = await texts(id);
    expect(now.get('三')!.size).toBe(80);
    expect(now.get('标题')!.size).toBe(100);
    expect(now.get('新品上市')!.size).toBe(60);
    await eventually(() => size.inputValue()).toBe('80');
  });

  it('shows the font and size the new text is typed in, and a font and colour chosen meanwhile are what is made', async () => {
    const { id, page, size, font, color, editor, zoom } = await withText({
      text: '粗体',
      font_size: 120,
      font_name: 'Noto Sans SC Bold',
      color: '#333333',
    });
    await eventually(() => font.inputValue()).toBe('Noto Sans SC Bold');
    await expect(size.inputValue()).resolves.toBe('120');
    const steps = (await labels(id)).length;
    const at = await onCanvas(page, 40, 220);
    await page.mouse.click(at.x, at.y);
    await eventually(() => editor.count()).toBe(1);
    await page.keyboard.type('细');
    // What the bar shows is what the box draws: the selected layer's Bold 120, which the new text starts in.
    await expect(font.inputValue()).resolves.toBe('Noto Sans SC Bold');
    await expect(size.inputValue()).resolves.toBe('120');
    const z = await zoom();
    expect(await drawn(editor)).toMatchObject({ weight: '700' });
    expect((await drawn(editor)).size).toBeCloseTo(120 * z, 1);

    // Light chosen in the list (which takes the focus): the words stay open, drawn light, and have the keys again.
    await font.focus();
    await font.selectOption('Noto Sans SC Light');
    await eventually(async () => (await drawn(editor)).weight).toBe('300');
    await eventually(() => focused(editor)).toBe(true);
    await expect(font.inputValue()).resolves.toBe('Noto Sans SC Light');
    // A colour too.
    await color.focus();
    await color.fill('#1565c0');
    await eventually(async () => (await drawn(editor)).color).toBe('rgb(21, 101, 192)');
    await eventually(() => focused(editor)).toBe(true);
    await page.keyboard.type('字');
    await expect(editor.inputValue()).resolves.toBe('细字');
    await snapshot(page, 'canvas-text-options-font');
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['创建文字']);
    const now = await texts(id);
    expect(now.get('细字')).toMatchObject({ font: 'Noto Sans SC Light', size: 120, color: '#1565c0' });
    expect(now.get('粗体')).toMatchObject({ font: 'Noto Sans SC Bold', size: 120, color: '#333333' });
    await eventually(() => font.inputValue()).toBe('Noto Sans SC Light');
  });

  it('gives the keys back to the document after Enter in 字号, a font or a colour chosen, or a press on the canvas', async () => {
    const { id, page, sent, canvas, size, font, color } = await withText({ text: '标题', font_size: 50 });
    await eventually(() => size.inputValue()).toBe('50');
    const steps = (await labels(id)).length;
    const title = async () => (await texts(id)).get('标题')!;
    await size.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('70');
    await page.keyboard.press('Enter');
    await eventually(async () => (await title()).size).toBe(70);
    expect((await labels(id)).slice(steps)).toEqual(['修改字号']);
    await eventually(() => focused(canvas)).toBe(true);
    await snapshot(page, 'canvas-text-options-enter');
    // V is the Move tool's key again, and Ctrl+Z undoes the document's step.
    await page.keyboard.press('v');
    await eventually(() => page.getByRole('button', { name: '移动工具' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.keyboard.press('Control+z');
    await eventually(async () => (await title()).size).toBe(50);
    expect((await labels(id)).slice(steps)).toEqual([]);
    // One call for the one Enter (the field's blur, as the focus went back, sent nothing more).
    expect(sent.filter((n) => n !== 'select_layers')).toEqual(['set_text_size', 'undo']);

    // A press on the canvas (beside the document) takes the focus from the field, and sends what was typed there.
    await page.keyboard.press('t');
    await eventually(() => size.inputValue()).toBe('50');
    await size.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('64');
    const board = (await page.locator('.artboard').boundingBox())!;
    const view = (await canvas.boundingBox())!;
    const below = board.y + board.height + 20;
    expect(below).toBeLessThan(view.y + view.height - 40);
    await page.mouse.click(board.x + board.width / 2, below);
    await eventually(() => focused(size)).toBe(false);
    await eventually(async () => (await title()).size).toBe(64);
    await page.keyboard.press('v');
    await eventually(() => page.getByRole('button', { name: '移动工具' }).getAttribute('aria-pressed')).toBe(
      'true',
    );

    // A font chosen in the list, and a colour: made to the layer, and the canvas has the keys again.
    await page.keyboard.press('t');
    await eventually(() => font.locator('option').count()).toBeGreaterThan(4);
    await font.focus();
    await font.selectOption('Noto Sans SC Medium');
    await eventually(async () => (await title()).font).toBe('Noto Sans SC Medium');
    await eventually(() => focused(canvas)).toBe(true);
    await color.focus();
    await color.fill('#c62828');
    await eventually(async () => (await title()).color).toBe('#c62828');
    await eventually(() => focused(canvas)).toBe(true);
    expect((await labels(id)).slice(steps)).toEqual(['修改字号', '修改字体', '修改文字颜色']);
    await page.keyboard.press('Control+z');
    await eventually(async () => (await title()).color).not.toBe('#c62828');
    expect((await labels(id)).slice(steps)).toEqual(['修改字号', '修改字体']);
  });
  it('changes a text layer whose words are being edited at once, the words kept open and drawn so', async () => {
    const { id, page, size, font, editor, zoom } = await withText({ text: '标题', font_size: 50 });
    await eventually(() => size.inputValue()).toBe('50');
    const steps = (await labels(id)).length;
    const title = (await activeLayers(studio.url, id)).find((l) => l.text)!.bounds!;
    const on = await onCanvas(
      page,
      Number(title.left) + Number(title.width) / 2,
      Number(title.top) + Number(title.height) / 2,
    );
    await page.mouse.click(on.x, on.y);
    await eventually(() => editor.inputValue()).toBe('标题');
    await page.keyboard.press('End');
    await page.keyboard.type('二');
    await size.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('80');
    await page.keyboard.press('Enter');
    await eventually(async () => (await texts(id)).get('标题')?.size).toBe(80);
    await eventually(() => focused(editor)).toBe(true);
    const z = await zoom();
    await eventually(async () => (await drawn(editor)).size).toBeCloseTo(80 * z, 1);
    await eventually(() => font.locator('option').count()).toBeGreaterThan(4);
    await font.focus();
    await font.selectOption('Noto Sans SC Bold');
    await eventually(async () => (await drawn(editor)).weight).toBe('700');
    await eventually(() => focused(editor)).toBe(true);
    await page.keyboard.type('版');
    await expect(editor.inputValue()).resolves.toBe('标题二版');
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await labels(id)).slice(steps)).toEqual([
      '修改字号',
      '修改字体',
      '修改文字',
    ]);
    expect((await texts(id)).get('标题二版')).toMatchObject({ size: 80, font: 'Noto Sans SC Bold' });
  });
});
