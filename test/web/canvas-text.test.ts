/**
 * The Horizontal Type tool (T) on the canvas, as Photoshop's: a click on an empty place opens a box where the words
 * are typed in the options bar's size and colour, Ctrl/⌘+Enter makes the text layer there (创建文字); a click on a
 * text layer edits its words in place, a click elsewhere commits them (修改文字) and starts nothing new; Esc
 * cancels and sends nothing; with the Move tool a double-click on a text layer edits it too. The eyedropper (I)
 * picks the colour new text is set in from the canvas.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { LayerNode } from '../../src/calls/snapshot-types.js';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-text');

async function onCanvas(page: Page, x: number, y: number) {
  const box = (await page.locator('.artboard').boundingBox())!;
  return { x: box.x + (x / 600) * box.width, y: box.y + (y / 400) * box.height };
}

async function labels(id: string): Promise<string[]> {
  const s = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
    active: { history: { labels: string[]; index: number } };
  };
  return s.active.history.labels.slice(0, s.active.history.index + 1);
}

/** The names of the selected layers, as the session has them. */
async function activeState(id: string): Promise<{ selected: string[] }> {
  const st = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
    active: { selected_layer_ids: number[]; layers: LayerNode[] };
  };
  return {
    selected: st.active.selected_layer_ids.map(
      (lid) => st.active.layers.find((l) => l.id === lid)?.name ?? '?',
    ),
  };
}

async function texts(id: string): Promise<LayerNode[]> {
  return (await activeLayers(studio.url, id)).filter((l) => l.text);
}

describe('the type tool', () => {
  it('types new text where clicked in the chosen size and colour, edits a text layer in place, Esc cancels', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '文字' }),
      toolCall('create_layer', { name: '绿' }),
      toolCall('select_rect', { left: 450, top: 300, right: 600, bottom: 400 }),
      toolCall('fill_selection', { color: '#2e7d32' }),
      toolCall('deselect'),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await page.locator('.canvas-viewport[tabindex]').focus();
      // The eyedropper (I): the canvas's colour where clicked becomes the foreground colour, which new text uses.
      await page.keyboard.press('i');
      const green = await onCanvas(page, 500, 350);
      await page.mouse.click(green.x, green.y);
      await eventually(() => page.locator('.tool-options .picked-hex').textContent()).toBe('#2e7d32');
      // It is the document's foreground colour now, shown at the foot of the toolbox.
      await eventually(async () => {
        const st = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
          active: { foreground: string };
        };
        return st.active.foreground;
      }).toBe('#2e7d32');
      await expect(page.locator('.canvas-toolbox .foreground-swatch').inputValue()).resolves.toBe('#2e7d32');
      await snapshot(page, 'canvas-eyedropper');
      await page.keyboard.press('t');
      await eventually(() => page.locator('.tool-options .text-color').inputValue()).toBe('#2e7d32');
      const typeButton = page.getByRole('button', { name: '横排文字工具' });
      await eventually(() => typeButton.getAttribute('aria-pressed')).toBe('true');
      const size = page.locator('.tool-options input[type="number"]');
      await expect(size.inputValue()).resolves.toBe('33');
      await size.fill('40');
      await page.locator('.tool-options .text-color').fill('#c62828');
      const steps = (await labels(id)).length;

      // New text at (100, 80).
      const at = await onCanvas(page, 100, 80);
      await page.mouse.click(at.x, at.y);
      const editor = page.locator('.artboard .text-editor');
      await eventually(() => editor.count()).toBe(1);
      await eventually(() => editor.evaluate((el) => el.ownerDocument.activeElement === el)).toBe(true);
      // A space is typed as text, the pointer over the canvas and all (not taken as the hand's key).
      await page.keyboard.type('春季 上新');
      await snapshot(page, 'canvas-text-typing');
      await page.keyboard.press('Control+Enter');
      await eventually(async () => (await labels(id)).slice(steps)).toEqual(['创建文字']);
      await eventually(() => editor.count()).toBe(0);
      const [made] = await texts(id);
      expect(made!.text).toMatchObject({ content: '春季 上新', x: 100, y: 80, size: 40, color: '#c62828' });
      await eventually(async () => (await page.locator('.artboard img').count()) === 1).toBe(true);
      await snapshot(page, 'canvas-text');

      // A click on it edits its words; a click elsewhere commits and opens nothing new.
      const b = made!.bounds!;
      const inside = await onCanvas(
        page,
        Number(b.left) + Number(b.width) / 2,
        Number(b.top) + Number(b.height) / 2,
      );
      await page.mouse.click(inside.x, inside.y);
      await eventually(() => editor.inputValue()).toBe('春季 上新');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('夏季');
      const away = await onCanvas(page, 400, 300);
      await page.mouse.click(away.x, away.y);
      await eventually(async () => (await labels(id)).slice(steps)).toEqual(['创建文字', '修改文字']);
      expect((await texts(id)).map((l) => l.text!.content)).toEqual(['夏季']);
      await page.waitForTimeout(300);
      await expect(editor.count()).resolves.toBe(0);

      // Esc: nothing made.
      await page.mouse.click(away.x, away.y);
      await eventually(() => editor.count()).toBe(1);
      await page.keyboard.type('不要');
      await page.keyboard.press('Escape');
      await eventually(() => editor.count()).toBe(0);
      await page.waitForTimeout(300);
      expect((await labels(id)).length).toBe(steps + 2);
      expect(await texts(id)).toHaveLength(1);

      // With the Move tool, a double-click on the text edits it too, as in Photoshop.
      await page.keyboard.press('v');
      const now = (await texts(id))[0]!.bounds!;
      const onText = await onCanvas(page, Number(now.left) + 10, Number(now.top) + Number(now.height) / 2);
      await page.mouse.dblclick(onText.x, onText.y);
      await eventually(() => editor.inputValue()).toBe('夏季');
      await page.keyboard.press('End');
      await page.keyboard.type(' 新品');
      await page.keyboard.press('Control+Enter');
      await eventually(async () => (await texts(id)).map((l) => l.text!.content)).toEqual(['夏季 新品']);

      // With one text layer selected, the type tool's options bar shows its font, size and colour, and a change
      // there is made to it at once (as in Photoshop) and kept for new text. The fonts are the server's list, the
      // bundled font's weights first.
      await page.keyboard.press('t');
      const font = page.locator('.tool-options .text-font');
      await eventually(() => font.locator('option').count()).toBeGreaterThan(4);
      await expect(font.inputValue()).resolves.toBe('Noto Sans SC');
      await expect(size.inputValue()).resolves.toBe('40');
      await expect(page.locator('.tool-options .text-color').inputValue()).resolves.toBe('#c62828');
      const before = (await labels(id)).length;
      await size.fill('48');
      await size.press('Enter');
      await eventually(async () => (await texts(id)).map((l) => l.text!.size)).toEqual([48]);
      await font.selectOption('Noto Sans SC Bold');
      await eventually(async () => (await texts(id)).map((l) => l.text!.font)).toEqual(['Noto Sans SC Bold']);
      expect((await labels(id)).slice(before)).toEqual(['修改字号', '修改字体']);
      expect((await texts(id))[0]!.text).toMatchObject({ content: '夏季 新品', color: '#c62828' });

      // New text is then set in that font and size, bolder than the same words in the default weight.
      const spot = await onCanvas(page, 60, 200);
      await page.mouse.click(spot.x, spot.y);
      await eventually(() => editor.count()).toBe(1);
      await page.keyboard.type('粗体');
      await snapshot(page, 'canvas-text-bold');
      await page.keyboard.press('Control+Enter');
      await eventually(async () => (await texts(id)).length).toBe(2);
      expect((await texts(id)).find((l) => l.text!.content === '粗体')!.text).toMatchObject({
        size: 48,
        font: 'Noto Sans SC Bold',
      });
      const [info, plain] = await okCalls(studio.url, id, [
        toolCall('get_active_layer_info'),
        toolCall('create_text_layer', { text: '粗体', x: 60, y: 300, font_size: 48 }),
      ]);
      const bold = (info!.layer as { text: { font: string; rendered_font: string; content: string } }).text;
      expect(bold).toMatchObject({
        content: '粗体',
        font: 'Noto Sans SC Bold',
        rendered_font: 'Noto Sans SC Bold',
      });
      const widths = (await texts(id))
        .filter((l) => l.text!.content === '粗体')
        .map((l) => Number(l.bounds!.width));
      expect(plain!.ok).toBe(true);
      expect(widths).toHaveLength(2);
      expect(widths[0]).not.toBe(widths[1]);

      // A type-tool click on a text layer selects it (the bar then shows and changes it). Steps of the size field
      // send nothing until Enter, then one call; the colour goes to the layer.
      await okCalls(studio.url, id, [toolCall('select_layers', { names: ['绿'] })]);
      await eventually(async () => (await activeState(id)).selected).toEqual(['绿']);
      const summer = (await texts(id)).find((l) => l.text!.content === '夏季 新品')!.bounds!;
      const onSummer = await onCanvas(
        page,
        Number(summer.left) + Number(summer.width) / 2,
        Number(summer.top) + Number(summer.height) / 2,
      );
      await page.mouse.click(onSummer.x, onSummer.y);
      await eventually(() => editor.inputValue()).toBe('夏季 新品');
      await eventually(async () => (await activeState(id)).selected).toEqual(['夏季 新品']);
      // The studio's own state has the selection too (it comes after the call's answer): until then the bar
      // shows what new text is set in, and a size stepped there is dropped when the layer's size replaces it.
      await eventually(() => page.locator('.layer-row.selected .layer-title').allTextContents()).toEqual([
        '夏季 新品',
      ]);
      await page.keyboard.press('Escape');
      const stepsNow = (await labels(id)).length;
      await size.focus();
      await size.press('ArrowUp');
      await size.press('ArrowUp');
      await expect(size.inputValue()).resolves.toBe('50');
      await page.waitForTimeout(300);
      expect((await labels(id)).length).toBe(stepsNow);
      await size.press('Enter');
      await eventually(
        async () => (await texts(id)).find((l) => l.text!.content === '夏季 新品')!.text!.size,
      ).toBe(50);
      await page.locator('.tool-options .text-color').fill('#1565c0');
      await eventually(
        async () => (await texts(id)).find((l) => l.text!.content === '夏季 新品')!.text!.color,
      ).toBe('#1565c0');
      expect((await labels(id)).slice(stepsNow)).toEqual(['修改字号', '修改文字颜色']);
    } catch (err) {
      await snapshot(page, 'failed-canvas-text');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
