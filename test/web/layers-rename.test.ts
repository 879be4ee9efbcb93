/**
 * Renaming a layer in the layers pane as in Photoshop: a double-click on its name gives a field, Enter renames it
 * (rename_layer, on that layer even when another one was selected), Esc keeps the name, and a locked layer's
 * name is not offered for editing. With meaningless piece names, this is how a designer names a marker's pieces
 * for identify_pieces.
 */
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-rename');

describe('renaming a layer in the layers pane', () => {
  it('takes a double-click on the name, Enter to rename and Esc to keep it', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '排料' }),
      toolCall('create_layer', { name: '图层 1' }),
      toolCall('create_layer', { name: '图层 2' }),
      toolCall('create_layer', { name: '锁定' }),
      toolCall('lock_layer', { name: '锁定', locked: true }),
    ]);
    const page = await studio.open(id);
    const names = () => page.locator('.layer-row .layer-title').allTextContents();
    try {
      await eventually(names).toEqual(['锁定', '图层 2', '图层 1', '背景']);
      // 图层 1, not the selected one: the field renames the layer it was opened on.
      await page.getByRole('button', { name: '图层 1', exact: true }).dblclick();
      const field = page.getByRole('textbox', { name: '图层“图层 1”的新名称' });
      await eventually(() => field.evaluate((e) => (e as unknown as { value: string }).value)).toBe('图层 1');
      await snapshot(page, 'layers-rename');
      await field.fill('前片');
      await field.press('Enter');
      await eventually(names).toEqual(['锁定', '图层 2', '前片', '背景']);
      const [structure] = await okCalls(studio.url, id, [toolCall('list_all_layer_names')]);
      expect(JSON.stringify(structure)).toContain('前片');
      expect(JSON.stringify(structure)).not.toContain('图层 1');

      // Esc: nothing renamed.
      await page.getByRole('button', { name: '图层 2', exact: true }).dblclick();
      const second = page.getByRole('textbox', { name: '图层“图层 2”的新名称' });
      await second.fill('后片');
      await second.press('Escape');
      await eventually(() => second.count()).toBe(0);
      expect(await names()).toEqual(['锁定', '图层 2', '前片', '背景']);

      // A locked layer keeps its name: no field.
      await page.getByRole('button', { name: '锁定', exact: true }).dblclick();
      await page.waitForTimeout(300);
      expect(await page.locator('.layer-rename').count()).toBe(0);
    } catch (err) {
      await snapshot(page, 'failed-layers-rename');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
