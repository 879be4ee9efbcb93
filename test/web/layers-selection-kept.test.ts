/**
 * The layers pane leaves the layer selection as the designer made it, as Photoshop's does: the eye and the lock
 * of another layer hide or lock it without selecting it, and the blend mode, opacity and fill go to every selected
 * layer (not the current one alone) with the selection kept.
 */
import { describe, expect, it } from 'vitest';
import type { LayerNode } from '../../src/calls/snapshot-types.js';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-selection-kept');

interface Shown {
  selected: string[];
  current: string | undefined;
  layers: Record<string, Pick<LayerNode, 'visible' | 'locked' | 'blend_mode' | 'opacity'>>;
}

async function shown(id: string): Promise<Shown> {
  const st = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
    active: { selected_layer_ids: number[]; active_layer_id: number; layers: LayerNode[] };
  };
  const name = (lid: number) => st.active.layers.find((l) => l.id === lid)?.name ?? '?';
  return {
    selected: st.active.selected_layer_ids.map(name).sort(),
    current: name(st.active.active_layer_id),
    layers: Object.fromEntries(
      st.active.layers.map((l) => [
        l.name,
        { visible: l.visible, locked: l.locked, blend_mode: l.blend_mode, opacity: l.opacity },
      ]),
    ),
  };
}

async function history(id: string): Promise<{ labels: string[]; index: number }> {
  const st = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
    active: { history: { labels: string[]; index: number } };
  };
  return st.active.history;
}

describe('the layers pane', () => {
  it('keeps the selection through an eye, a lock and a property change, which go to every selected layer', async () => {
    const id = await createSession(studio.url);
    const square = (name: string, left: number, color: string) => [
      toolCall('create_layer', { name }),
      toolCall('select_rect', { left, top: 40, right: left + 60, bottom: 120 }),
      toolCall('fill_selection', { color }),
      toolCall('deselect'),
    ];
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 160, name: '选择' }),
      ...square('甲', 20, '#d0312d'),
      ...square('乙', 120, '#1d4ed8'),
      ...square('丙', 220, '#2e7d32'),
    ]);
    const page = await studio.open(id);
    try {
      const row = (name: string) => page.getByRole('button', { name, exact: true });
      // Back to back, faster than the server answers: the Ctrl-click adds to what the click selected, not to the
      // layer selected before the click's answer came back (丙, on a loaded machine).
      await row('乙').waitFor();
      await page.evaluate(`(() => {
        const rowOf = (name) => [...document.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === name);
        rowOf('甲').click();
        rowOf('乙').dispatchEvent(new MouseEvent('click', { bubbles: true, ctrlKey: true }));
      })()`);
      await eventually(async () => (await shown(id)).selected).toEqual(['乙', '甲']);
      const current = (await shown(id)).current;

      // Another layer's eye and lock: it is hidden, then locked, and the selection stays.
      await page.getByRole('button', { name: '隐藏图层 丙' }).click();
      await eventually(async () => (await shown(id)).layers.丙!.visible).toBe(false);
      await page.getByRole('button', { name: '锁定图层 丙' }).click();
      await eventually(async () => (await shown(id)).layers.丙!.locked).toBe(true);
      expect((await shown(id)).selected).toEqual(['乙', '甲']);
      expect((await shown(id)).current).toBe(current);

      // Multiply and 40 % opacity go to both selected layers, not to the third, each change one history step
      // (Photoshop's: one undo takes it back from every layer).
      const steps = async () => (await history(id)).labels.length;
      const before = await steps();
      await page.locator('#layer-blend').selectOption('multiply');
      await eventually(async () => {
        const { layers } = await shown(id);
        return [layers.甲!.blend_mode, layers.乙!.blend_mode, layers.丙!.blend_mode];
      }).toEqual(['multiply', 'multiply', 'normal']);
      await page.getByRole('slider', { name: '不透明度' }).fill('40');
      await eventually(async () => {
        const { layers } = await shown(id);
        return [layers.甲!.opacity, layers.乙!.opacity, layers.丙!.opacity];
      }).toEqual([40, 40, 100]);
      expect((await shown(id)).selected).toEqual(['乙', '甲']);
      expect((await shown(id)).current).toBe(current);
      // The pane shows both rows still selected.
      await expect(page.locator('.layer-list li.layer-row.selected').count()).resolves.toBe(2);
      await snapshot(page, 'layers-selection-kept');
      expect(await steps()).toBe(before + 2);
      await page.getByRole('tab', { name: '历史记录' }).click();
      await expect(page.locator('.history li').count()).resolves.toBe(before + 2);
      await snapshot(page, 'layers-selection-kept-history');
      await page.keyboard.press('Control+z');
      await eventually(async () => {
        const { layers } = await shown(id);
        return [layers.甲!.opacity, layers.乙!.opacity, layers.甲!.blend_mode, layers.乙!.blend_mode];
      }).toEqual([100, 100, 'multiply', 'multiply']);
    } catch (err) {
      await snapshot(page, 'failed-layers-selection-kept');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('greys out the mode and opacity while the background layer is current, whatever else is selected', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 200, height: 120, name: '背景当前' }),
      toolCall('create_layer', { name: '上层' }),
    ]);
    const page = await studio.open(id);
    try {
      const row = (name: string) => page.getByRole('button', { name, exact: true });
      await row('上层').click();
      await expect(page.locator('#layer-blend').isDisabled()).resolves.toBe(false);
      await row('背景').click({ modifiers: ['Control'] });
      await eventually(async () => (await shown(id)).current).toBe('背景');
      expect((await shown(id)).selected).toEqual(['上层', '背景']);
      // Photoshop's panel: nothing to change for the background, so nothing shown as changed for it either.
      await eventually(() => page.locator('#layer-blend').isDisabled()).toBe(true);
      await expect(page.getByRole('slider', { name: '不透明度' }).isDisabled()).resolves.toBe(true);
      await expect(page.getByRole('slider', { name: '填充' }).isDisabled()).resolves.toBe(true);
      await row('上层').click();
      await eventually(() => page.locator('#layer-blend').isDisabled()).toBe(false);
    } catch (err) {
      await snapshot(page, 'failed-layers-background-current');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('keeps the selection a row click just made, when an eye is clicked before that click was answered', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 200, height: 120, name: '快点' }),
      toolCall('create_layer', { name: '一' }),
      toolCall('create_layer', { name: '二' }),
      toolCall('create_layer', { name: '三' }),
    ]);
    const page = await studio.open(id);
    try {
      const row = (name: string) => page.getByRole('button', { name, exact: true });
      await row('一').click();
      await eventually(async () => (await shown(id)).selected).toEqual(['一']);
      // The row click's request is held a moment on its way, so the eye is clicked before the pane has heard.
      let held = false;
      await page.route('**/tool-calls*', async (route) => {
        if (!held) {
          held = true;
          await new Promise((r) => setTimeout(r, 600));
        }
        await route.continue();
      });
      await row('二').click();
      await page.getByRole('button', { name: '隐藏图层 三' }).click();
      await eventually(async () => (await shown(id)).layers.三!.visible).toBe(false);
      expect(held).toBe(true);
      expect((await shown(id)).selected).toEqual(['二']);
      expect((await shown(id)).current).toBe('二');
    } catch (err) {
      await snapshot(page, 'failed-layers-selection-race');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
