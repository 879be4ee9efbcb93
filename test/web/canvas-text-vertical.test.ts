/**
 * Vertical text in the studio: the type tool's bar toggles the selected text layer between horizontal and columns
 * (直排, Photoshop's Toggle Text Orientation: 文字方向), and a vertical layer clicked with the type tool is typed in
 * columns (CSS vertical-rl) over where its columns stand, committed as 修改文字 and still vertical.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { chooseTypeTool, screenPoint } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-text-vertical');

const onCanvas = (page: Page, x: number, y: number) => screenPoint(page, 600, 400, x, y);

async function textLayer(id: string) {
  return (await activeLayers(studio.url, id)).find((l) => l.text)!;
}

/**
 * The studio open on session `id` with the type tool, the vertical layer 春眠不觉晓 (two stretches: 春眠不, 觉晓)
 * clicked at document point x, y: the typing box's stretches' centres across the column, document pixels.
 */
async function columnSpans(id: string, x: number, y: number) {
  const page = await studio.open(id);
  await eventually(() => page.locator('.artboard img').count()).toBe(1);
  await chooseTypeTool(page);
  const at = await onCanvas(page, x, y);
  await page.mouse.click(at.x, at.y);
  const editor = page.locator('.artboard .text-editor');
  await eventually(() => editor.count()).toBe(1);
  const spans = editor.locator('span');
  await expect(spans.allTextContents()).resolves.toEqual(['春眠不', '觉晓']);
  const board = (await page.locator('.artboard').boundingBox())!;
  const zoom = board.width / 600;
  const centre = async (i: number) => {
    const r = (await spans.nth(i).boundingBox())!;
    return (r.x + r.width / 2 - board.x) / zoom;
  };
  return { page, centre };
}

describe('vertical text in the studio', () => {
  it('toggles the selected text layer into columns from the bar, and types in columns over them', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '直排' }),
      toolCall('create_text_layer', { x: 300, y: 30, text: '春眠不觉晓', font_size: 50 }),
    ]);
    const page = await studio.open(id);
    await eventually(() => page.locator('.artboard img').count()).toBe(1);
    await chooseTypeTool(page);
    const toggle = page.locator('.tool-options .text-orientation');
    await eventually(() => toggle.isEnabled()).toBe(true);
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
    await toggle.click();
    await eventually(async () => (await textLayer(id)).text?.vertical).toBe(true);
    await eventually(() => toggle.getAttribute('aria-pressed')).toBe('true');
    // A column now: taller than wide, about x = 300.
    const b = (await textLayer(id)).bounds!;
    expect(Number(b.height)).toBeGreaterThan(Number(b.width) * 3);
    expect(Math.abs(Number(b.left) + Number(b.width) / 2 - 300)).toBeLessThanOrEqual(3);
    await snapshot(page, 'canvas-text-vertical-toggled');

    // Typed in columns where they stand.
    const at = await onCanvas(page, 300, Number(b.top) + Number(b.height) / 2);
    await page.mouse.click(at.x, at.y);
    const editor = page.locator('.artboard .text-editor');
    await eventually(() => editor.inputValue()).toBe('春眠不觉晓');
    const mode = await editor.evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).writingMode);
    expect(mode).toBe('vertical-rl');
    const box = (await editor.boundingBox())!;
    const board = (await page.locator('.artboard').boundingBox())!;
    const zoom = board.width / 600;
    // The box spans the column: its horizontal middle on x = 300, its top at the text's top.
    expect(Math.abs((box.x + box.width / 2 - board.x) / zoom - 300)).toBeLessThanOrEqual(4);
    expect(box.height).toBeGreaterThan(box.width * 3);
    await page.keyboard.press('End');
    await page.keyboard.type('处处');
    await snapshot(page, 'canvas-text-vertical-typing');
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await textLayer(id)).text?.content).toBe('春眠不觉晓处处');
    expect((await textLayer(id)).text?.vertical).toBe(true);

    // Back to horizontal from the bar.
    await eventually(() => toggle.isEnabled()).toBe(true);
    await toggle.click();
    await eventually(async () => (await textLayer(id)).text?.vertical).toBeUndefined();
  });

  it('types a vertical layer in several styles in columns that show them, and keeps them', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '直排' }),
      toolCall('create_text_layer', { x: 300, y: 30, text: '春眠不觉晓', font_size: 50 }),
      toolCall('set_text_orientation', { name: '春眠不觉晓', orientation: 'vertical' }),
      toolCall('style_text_range', { name: '春眠不觉晓', text: '觉晓', font_size: 64, color: '#c62828' }),
    ]);
    const page = await studio.open(id);
    await eventually(() => page.locator('.artboard img').count()).toBe(1);
    await chooseTypeTool(page);
    const b = (await textLayer(id)).bounds!;
    const at = await onCanvas(page, 300, Number(b.top) + Number(b.height) / 3);
    await page.mouse.click(at.x, at.y);
    const editor = page.locator('.artboard .text-editor');
    await eventually(() => editor.count()).toBe(1);
    // A box of styled stretches in a column: the red characters larger in it.
    await expect(editor.evaluate((e) => e.tagName)).resolves.toBe('DIV');
    const mode = await editor.evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).writingMode);
    expect(mode).toBe('vertical-rl');
    const spans = editor.locator('span');
    await expect(spans.allTextContents()).resolves.toEqual(['春眠不', '觉晓']);
    const board = (await page.locator('.artboard').boundingBox())!;
    const zoom = board.width / 600;
    const look = await spans
      .nth(1)
      .evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).fontSize);
    expect(Number.parseFloat(look)).toBeCloseTo(64 * zoom, 1);
    // The column's characters centred on x = 300, as the server stands them.
    for (const i of [0, 1]) {
      const r = (await spans.nth(i).boundingBox())!;
      expect(Math.abs((r.x + r.width / 2 - board.x) / zoom - 300)).toBeLessThanOrEqual(4);
    }
    await page.keyboard.press('End');
    await page.keyboard.type('处处');
    await snapshot(page, 'canvas-text-vertical-styled');
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await textLayer(id)).text?.content).toBe('春眠不觉晓处处');
    const text = (await textLayer(id)).text!;
    expect(text.vertical).toBe(true);
    expect(text.styles?.map((st) => [st.length, st.size, st.color])).toEqual([
      [3, 50, '#000000'],
      [4, 64, '#c62828'],
    ]);
  });

  it('shows a shifted stretch of a column to its right, where the server draws it', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '直排偏移' }),
      toolCall('create_text_layer', { x: 300, y: 30, text: '春眠不觉晓', font_size: 50 }),
      toolCall('set_text_orientation', { name: '春眠不觉晓', orientation: 'vertical' }),
      toolCall('style_text_range', { name: '春眠不觉晓', text: '觉晓', baseline_shift: 24 }),
    ]);
    // The server's column: the shifted characters' ink 24 px right of the others'.
    const bounds = (await textLayer(id)).bounds!;
    expect(Number(bounds.left) + Number(bounds.width)).toBeGreaterThan(300 + 24 + 15);
    const { page, centre } = await columnSpans(id, 300, Number(bounds.top) + 40);
    expect(Math.abs((await centre(0)) - 300)).toBeLessThanOrEqual(4);
    expect(Math.abs((await centre(1)) - 324)).toBeLessThanOrEqual(4);
    await snapshot(page, 'canvas-text-vertical-shifted');
    await page.keyboard.press('Escape');
  });

  it('types paragraph text in columns over the columns the server sets in its box', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '直排段落' }),
      toolCall('create_paragraph_text', {
        text: '春眠不觉晓',
        x: 200,
        y: 40,
        width: 160,
        height: 300,
        font_size: 48,
      }),
      toolCall('set_text_orientation', { name: '春眠不觉晓', orientation: 'vertical' }),
      toolCall('style_text_range', { name: '春眠不觉晓', text: '觉晓', color: '#c62828' }),
    ]);
    // One column, at the box's right edge as the server sets it.
    const b = (await textLayer(id)).bounds!;
    const serverCentre = Number(b.left) + Number(b.width) / 2;
    expect(serverCentre).toBeGreaterThan(360 - 30);
    const { page, centre } = await columnSpans(id, serverCentre, Number(b.top) + 40);
    // A span's box is its font's content area (ascent over descent), whose middle stands 0.06 em (3 px here)
    // right of the glyphs' centre in a column: 4.3 px off in Chromium, 4.8 in its headless shell (whose font
    // metrics round differently), a tenth of the 48 px column.
    for (const i of [0, 1]) expect(Math.abs((await centre(i)) - serverCentre)).toBeLessThanOrEqual(5);
    await snapshot(page, 'canvas-text-vertical-paragraph');
    await page.keyboard.press('Escape');
  });

  it('offers the toggle only with a text layer selected', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 600, height: 400, name: '空' })]);
    const page = await studio.open(id);
    await eventually(() => page.locator('.artboard img').count()).toBe(1);
    await chooseTypeTool(page);
    const toggle = page.locator('.tool-options .text-orientation');
    await eventually(() => toggle.count()).toBe(1);
    await expect(toggle.isDisabled()).resolves.toBe(true);
    await expect(toggle.getAttribute('title')).resolves.toBe('选中文字图层后可切换横排与直排');
  });
});
