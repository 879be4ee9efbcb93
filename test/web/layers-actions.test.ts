/**
 * The foot of the layers pane, as Photoshop's Layers panel: a new layer named 图层 N and a new group 组 N (N one more
 * than the highest such number), the selected layer duplicated or deleted, and Delete on the list deleting it —
 * each its registry tool, one history step.
 */
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-actions');

describe('the layer buttons under the list', () => {
  it('makes, duplicates and deletes layers and groups, names numbered on from the document’s', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '图层按钮' }),
      toolCall('create_layer', { name: '图层 7' }),
    ]);
    const page = await studio.open(id);
    const names = () => page.locator('.layer-row .layer-title').allTextContents();
    const bar = page.getByRole('toolbar', { name: '图层操作' });
    try {
      await eventually(names).toEqual(['图层 7', '背景']);
      await bar.getByRole('button', { name: '新建图层' }).click();
      await eventually(names).toEqual(['图层 8', '图层 7', '背景']);
      await bar.getByRole('button', { name: '创建图层组' }).click();
      await eventually(names).toEqual(['组 1', '图层 8', '图层 7', '背景']);
      await page.getByRole('button', { name: '图层 7', exact: true }).click();
      await bar.getByRole('button', { name: '复制图层' }).click();
      await eventually(names).toEqual(['组 1', '图层 8', '图层 7 拷贝', '图层 7', '背景']);
      await snapshot(page, 'layers-actions');
      await bar.getByRole('button', { name: '删除图层' }).click();
      await eventually(names).toEqual(['组 1', '图层 8', '图层 7', '背景']);
      // Delete on the list, a row in hand.
      await page.getByRole('button', { name: '图层 8', exact: true }).click();
      await eventually(() => page.locator('.layer-row.selected .layer-title').allTextContents()).toEqual([
        '图层 8',
      ]);
      await page.keyboard.press('Delete');
      await eventually(names).toEqual(['组 1', '图层 7', '背景']);
      const state = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
        active: { history: { labels: string[]; index: number } };
      };
      expect(state.active.history.labels.slice(-6)).toEqual([
        '新建图层',
        '新建图层',
        '创建图层组',
        '复制图层',
        '删除图层',
        '删除图层',
      ]);
      // In English the new names are English, as Photoshop's (the new layer above the current one).
      await page.getByRole('button', { name: '切换为英文界面' }).click();
      await page
        .getByRole('toolbar', { name: 'Layer actions' })
        .getByRole('button', { name: 'New Layer' })
        .click();
      await eventually(names).toEqual(['组 1', 'Layer 1', '图层 7', '背景']);
    } catch (err) {
      await snapshot(page, 'failed-layers-actions');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
