/**
 * The layers pane's 填充 slider, Photoshop's Fill beside Opacity: it sets the selected layer's fill through
 * set_layer_fill_opacity (the layer's own pixels fade, its stroke stays), and is greyed out for a group, which
 * has no fill in Photoshop either.
 */
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { canvasInk, eventually, snapshot, textOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-fill');

describe('the layers pane’s fill', () => {
  it('sets a layer’s fill, shown beside its opacity, and is off for a group', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '填充' }),
      toolCall('create_layer', { name: '形状' }),
      toolCall('select_rect', { left: 60, top: 50, right: 240, bottom: 150 }),
      toolCall('fill_selection', { color: '#d0312d' }),
      toolCall('deselect'),
      toolCall('add_stroke', { name: '形状', size: 4, color: '#1d4ed8' }),
    ]);
    const page = await studio.open(id);
    try {
      const fill = page.getByRole('slider', { name: '填充' });
      const shown = page.locator('output[for="layer-fill"]');
      await page.getByRole('button', { name: '形状', exact: true }).click();
      await eventually(textOf(shown)).toBe('100%');
      // The red shape fills a third of the page (its pixels dark against white).
      await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.25);
      await fill.focus();
      await page.keyboard.press('Home');
      await eventually(textOf(shown)).toBe('0%');
      await eventually(async () => {
        const [now] = await okCalls(studio.url, id, [toolCall('get_active_layer_info')]);
        return JSON.stringify(now);
      }).toMatch(/"fill_opacity":0\b/);
      // The canvas shows the stroke alone: the red inside is gone.
      await eventually(async () => (await canvasInk(page))?.dark ?? 1).toBeLessThan(0.1);
      // Opacity is untouched: fill is its own control.
      expect(await textOf(page.locator('output[for="layer-opacity"]'))()).toBe('100%');
      await snapshot(page, 'layers-fill');

      // A group: no fill to set.
      await okCalls(studio.url, id, [toolCall('create_layer_group', { name: '组' })]);
      await page.getByRole('button', { name: '组', exact: true }).click();
      await eventually(() => fill.isDisabled()).toBe(true);
      await eventually(textOf(shown)).toBe('—');
    } catch (err) {
      await snapshot(page, 'failed-layers-fill');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
