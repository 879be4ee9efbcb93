/**
 * Characters selected in the type tool's box and changed in the options bar: only they change (修改部分文字样式),
 * as Photoshop's bar sets a selection; words typed before are made first, the two one history step; the box then
 * closes on the layer as the server draws it, each character in its style. With nothing selected the bar still
 * changes the whole layer.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { chooseTypeTool, historyLabels, screenPoint } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-text-runs');

/** What the tests use of the page's textarea (the test code has no DOM types). */
type TextField = { value: string; setSelectionRange(start: number, end: number): void };

const onCanvas = (page: Page, x: number, y: number) => screenPoint(page, 600, 400, x, y);

const labels = (id: string) => historyLabels(studio.url, id);

/** The active layer's text as the model sees it (get_active_layer_info): its words and styles. */
async function activeText(id: string) {
  const [info] = await okCalls(studio.url, id, [toolCall('get_active_layer_info', {})]);
  return (
    info!.layer as { text: { content: string; styles?: { text: string; size: number; color: string }[] } }
  ).text;
}

/** A 600 × 400 document with the text 限时5折 (60 px, black) at 40, 120, the studio open on it with the type tool. */
async function withPrice() {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: 600, height: 400, name: '价签' }),
    toolCall('create_text_layer', { x: 40, y: 120, text: '限时5折', font_size: 60 }),
  ]);
  const page = await studio.open(id);
  await eventually(() => page.locator('.artboard img').count()).toBe(1);
  await chooseTypeTool(page);
  const bar = page.locator('.tool-options');
  const editor = page.locator('.artboard .text-editor');
  const open = async () => {
    const b = (await activeLayers(studio.url, id)).find((l) => l.text)!.bounds!;
    const at = await onCanvas(page, Number(b.left) + 10, Number(b.top) + Number(b.height) / 2);
    await page.mouse.click(at.x, at.y);
    await eventually(() => editor.count()).toBe(1);
  };
  const picture = page.locator('.artboard img');
  return {
    id,
    page,
    editor,
    open,
    /** The canvas's picture as it is now: wait for `drawn()` to differ from it to see a change. */
    drawn: () => picture.getAttribute('src'),
    size: bar.locator('input[type="number"]'),
    color: bar.locator('.text-color'),
  };
}

describe('characters selected in the type tool’s box', () => {
  it('take a colour chosen in the bar, the others unchanged, in one step', async () => {
    const { id, page, editor, open, color, drawn } = await withPrice();
    const steps = (await labels(id)).length;
    const before = await drawn();
    await open();
    await expect(editor.inputValue()).resolves.toBe('限时5折');
    // The digit selected, as a drag or Shift+arrows would.
    await editor.evaluate((e) => (e as unknown as TextField).setSelectionRange(2, 3));
    await color.focus();
    await color.fill('#e60012');
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['修改部分文字样式']);
    await eventually(() => editor.count()).toBe(0);
    expect((await activeText(id)).styles).toEqual([
      { text: '限时', font: 'Noto Sans SC', size: 60, color: '#000000' },
      { text: '5', font: 'Noto Sans SC', size: 60, color: '#e60012' },
      { text: '折', font: 'Noto Sans SC', size: 60, color: '#000000' },
    ]);
    await eventually(drawn).not.toBe(before);
    await snapshot(page, 'canvas-text-runs-colour');
  });

  it('take a size after the words typed so far, the two one history step', async () => {
    const { id, page, editor, open, size, drawn } = await withPrice();
    const steps = (await labels(id)).length;
    const before = await drawn();
    await open();
    await page.keyboard.press('End');
    await page.keyboard.type('起');
    await editor.evaluate((e) => (e as unknown as TextField).setSelectionRange(2, 3));
    await size.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('120');
    await page.keyboard.press('Enter');
    await eventually(() => editor.count()).toBe(0);
    await eventually(async () => (await activeText(id)).content).toBe('限时5折起');
    await eventually(async () => (await activeText(id)).styles?.map((r) => [r.text, r.size])).toEqual([
      ['限时', 60],
      ['5', 120],
      ['折起', 60],
    ]);
    // One step for the words and the size, as Photoshop's one edit of the text.
    const made = (await labels(id)).slice(steps);
    expect(made).toHaveLength(1);
    await eventually(drawn).not.toBe(before);
    // No other call: the box closed on the styled words without making them again.
    await expect(page.locator('article.card.error').count()).resolves.toBe(0);
    await expect(page.locator('article.card').count()).resolves.toBe(2);
    await snapshot(page, 'canvas-text-runs-size');
    // Undone, both go.
    await okCalls(studio.url, id, [toolCall('undo', {})]);
    expect((await activeText(id)).content).toBe('限时5折');
    expect((await activeText(id)).styles).toBeUndefined();
  });

  it('with nothing selected, the bar still changes the whole layer', async () => {
    const { id, editor, open, size } = await withPrice();
    await open();
    await caretAtEnd(editor);
    await size.click();
    await size.press('Control+A');
    await size.pressSequentially('80');
    await size.press('Enter');
    await eventually(async () => (await activeLayers(studio.url, id)).find((l) => l.text)?.text?.size).toBe(
      80,
    );
    // The words stay open, as before.
    await expect(editor.count()).resolves.toBe(1);
    expect((await activeText(id)).styles).toBeUndefined();
  });
});

/** The caret at the end of the words, nothing selected. */
async function caretAtEnd(editor: ReturnType<Page['locator']>) {
  await editor.evaluate((e) => {
    const el = e as unknown as TextField;
    el.setSelectionRange(el.value.length, el.value.length);
  });
}

describe('words in several styles in the type tool’s box', () => {
  it('are typed in a box that shows each stretch in its style, and keep them', async () => {
    const { id, page, editor, open, color } = await withPrice();
    await okCalls(studio.url, id, [
      toolCall('style_text_range', { name: '限时5折', text: '5', font_size: 120, color: '#e60012' }),
    ]);
    const steps = (await labels(id)).length;
    await open();
    // A box of styled stretches, not a textarea: the digit large and red in it.
    await expect(editor.evaluate((e) => e.tagName)).resolves.toBe('DIV');
    const spans = editor.locator('span');
    await expect(spans.allTextContents()).resolves.toEqual(['限时', '5', '折']);
    const look = (i: number) =>
      spans.nth(i).evaluate((e) => {
        const s = e.ownerDocument.defaultView!.getComputedStyle(e);
        return { size: Number.parseFloat(s.fontSize), color: s.color };
      });
    const zoom = ((await page.locator('.artboard').boundingBox())!.width as number) / 600;
    expect((await look(1)).size).toBeCloseTo(120 * zoom, 1);
    expect((await look(1)).color).toBe('rgb(230, 0, 18)');
    expect((await look(0)).size).toBeCloseTo(60 * zoom, 1);
    // Typed at the end: the new character takes the style before it, here and on the server.
    await page.keyboard.press('End');
    await page.keyboard.type('起');
    await page.keyboard.press('Enter');
    await page.keyboard.type('包邮');
    await snapshot(page, 'canvas-text-runs-typing');
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await activeText(id)).content).toBe('限时5折起\n包邮');
    expect((await activeText(id)).styles?.map((r) => [r.text, r.size])).toEqual([
      ['限时', 60],
      ['5', 120],
      ['折起\n包邮', 60],
    ]);
    expect((await labels(id)).slice(steps)).toEqual(['修改文字']);

    // Characters selected in it take a colour from the bar, as in a plain box.
    await open();
    await editor.evaluate((e) => {
      const text = e.querySelector('span')!.firstChild!;
      const range = e.ownerDocument.createRange();
      range.setStart(text, 0);
      range.setEnd(text, 2);
      const sel = e.ownerDocument.getSelection()!;
      sel.removeAllRanges();
      sel.addRange(range);
    });
    await color.focus();
    await color.fill('#1565c0');
    await eventually(() => editor.count()).toBe(0);
    await eventually(async () => (await activeText(id)).styles?.[0]).toEqual({
      text: '限时',
      font: 'Noto Sans SC',
      size: 60,
      color: '#1565c0',
    });
  });

  it('shows superscript, baseline shift and tracking in the box as the server draws them', async () => {
    const { id, page, editor, open } = await withPrice();
    const spans = editor.locator('span');
    // Where the first stretch stands in a box of two colours, nothing raised.
    await okCalls(studio.url, id, [
      toolCall('style_text_range', { name: '限时5折', text: '折', color: '#e60012' }),
    ]);
    await open();
    const top = () => spans.nth(0).evaluate((e) => e.getBoundingClientRect().top);
    const plainTop = await top();
    await page.keyboard.press('Escape');
    await eventually(() => editor.count()).toBe(0);
    await okCalls(studio.url, id, [
      toolCall('style_text_range', { name: '限时5折', text: '5', position: 'superscript' }),
      toolCall('style_text_range', { name: '限时5折', text: '折', baseline_shift: 12, tracking: 200 }),
    ]);
    await open();
    // Raised words do not push the line down (the server keeps its leading): the words stay over the layer's.
    expect(Math.abs((await top()) - plainTop)).toBeLessThanOrEqual(1);
    await expect(spans.allTextContents()).resolves.toEqual(['限时', '5', '折']);
    const look = (i: number) =>
      spans.nth(i).evaluate((e) => {
        const s = e.ownerDocument.defaultView!.getComputedStyle(e);
        return {
          size: Number.parseFloat(s.fontSize),
          rise: Number.parseFloat(s.verticalAlign),
          tracking: Number.parseFloat(s.letterSpacing),
        };
      });
    const zoom = ((await page.locator('.artboard').boundingBox())!.width as number) / 600;
    // The superscript digit: 58.3 % of 60 px, raised by 33.3 % of 60 px (the text engine's defaults).
    const digit = await look(1);
    expect(digit.size).toBeCloseTo(0.583 * 60 * zoom, 1);
    expect(digit.rise).toBeCloseTo(0.333 * 60 * zoom, 1);
    // 折: 12 px up, 0.2 em after it.
    const last = await look(2);
    expect(last.rise).toBeCloseTo(12 * zoom, 1);
    expect(last.tracking).toBeCloseTo(0.2 * 60 * zoom, 1);
    // The words read back as typed.
    await page.keyboard.press('End');
    await page.keyboard.type('起');
    await snapshot(page, 'canvas-text-runs-raised');
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await activeText(id)).content).toBe('限时5折起');
  });

  it('shows manual kerning in the box: the kerned characters drawn closer by it, as the server sets them', async () => {
    const { id, page, editor, open } = await withPrice();
    const spans = editor.locator('span');
    await okCalls(studio.url, id, [
      toolCall('style_text_range', { name: '限时5折', text: '5', color: '#e60012' }),
    ]);
    await open();
    const gap = () =>
      spans.evaluateAll((list) => {
        const [a, b] = list.map((e) => e.getBoundingClientRect());
        return b!.left - a!.right;
      });
    const plain = await gap();
    await page.keyboard.press('Escape');
    await eventually(() => editor.count()).toBe(0);
    // −200 thousandths before the 5 (60 px: 12 px closer to 时).
    await okCalls(studio.url, id, [
      toolCall('style_text_range', { name: '限时5折', text: '5', kerning: -200 }),
    ]);
    const [info] = await okCalls(studio.url, id, [toolCall('get_active_layer_info', {})]);
    expect(JSON.stringify(info!.layer)).toContain('"kerning":-200');
    await open();
    const zoom = ((await page.locator('.artboard').boundingBox())!.width as number) / 600;
    expect((await gap()) - plain).toBeCloseTo(-12 * zoom, 0);
    await page.keyboard.press('Escape');
  });

  it('shows all caps in the box, the words read back as typed', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '大写' }),
      toolCall('create_text_layer', { x: 40, y: 120, text: 'sale 5折', font_size: 60 }),
      toolCall('style_text_range', { name: 'sale 5折', text: 'sale', caps: 'all_caps' }),
      toolCall('style_text_range', { name: 'sale 5折', text: '5', color: '#e60012' }),
    ]);
    const page = await studio.open(id);
    await eventually(() => page.locator('.artboard img').count()).toBe(1);
    await chooseTypeTool(page);
    const b = (await activeLayers(studio.url, id)).find((l) => l.text)!.bounds!;
    const at = await onCanvas(page, Number(b.left) + 10, Number(b.top) + Number(b.height) / 2);
    await page.mouse.click(at.x, at.y);
    const editor = page.locator('.artboard .text-editor');
    await eventually(() => editor.count()).toBe(1);
    const first = editor.locator('span').first();
    await expect(first.textContent()).resolves.toBe('sale');
    const shown = await first.evaluate((e) => ({
      transform: e.ownerDocument.defaultView!.getComputedStyle(e).textTransform,
      text: (e as unknown as { innerText: string }).innerText,
    }));
    expect(shown).toEqual({ transform: 'uppercase', text: 'SALE' });
    await page.keyboard.press('Home');
    await page.keyboard.type('big ');
    await page.keyboard.press('Control+Enter');
    // Committed in the case typed: all caps is how the characters are drawn, not what they are.
    await eventually(async () => (await activeText(id)).content).toBe('big sale 5折');
  });
});
