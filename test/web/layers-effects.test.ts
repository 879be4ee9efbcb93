/**
 * The layers pane marks a layer with a layer style as Photoshop does, with fx after its name (the effects named on
 * hover); the mark goes when the effects are cleared. A Photoshop file's glows, inner shadows and overlays are named
 * too, and drawn on the canvas.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, imageColorAt, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-effects');

describe('the layers pane’s fx mark', () => {
  it('shows which layers have effects, and names them', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '效果' }),
      toolCall('create_text_layer', { text: '标题', x: 20, y: 40, font_size: 48, color: '#c0392b' }),
      toolCall('add_drop_shadow', { name: '标题', distance: 6, size: 8, opacity: 60 }),
      toolCall('add_stroke', { name: '标题', size: 2, color: '#1d4ed8' }),
      toolCall('create_layer', { name: '空白' }),
    ]);
    const page = await studio.open(id);
    try {
      const row = (name: string) => page.getByRole('button', { name, exact: true });
      const mark = row('标题').locator('.tag.fx');
      await eventually(() => mark.count()).toBe(1);
      expect(await mark.textContent()).toBe('fx');
      expect(await mark.getAttribute('title')).toBe('描边、投影');
      expect(await row('空白').locator('.tag.fx').count()).toBe(0);
      // The picture is looked at with its canvas drawn: the white page under the title, once loaded.
      await eventually(() => imageColorAt(page.locator('.artboard img'), 0.95, 0.95)).toEqual([
        255, 255, 255,
      ]);
      await snapshot(page, 'layers-effects');
      await okCalls(studio.url, id, [toolCall('clear_layer_effects', { name: '标题' })]);
      await eventually(() => mark.count()).toBe(0);
    } catch (err) {
      await snapshot(page, 'failed-layers-effects');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('names and draws the effects of a Photoshop file: glows, inner shadows, overlays', async () => {
    const id = await createSession(studio.url);
    const psd = readFileSync(new URL('../fixtures/photoshop-effects/outer-glow-2.psd', import.meta.url));
    const res = await fetch(`${studio.url}/v1/sessions/${id}/files?name=glow.psd`, {
      method: 'POST',
      body: psd,
    });
    expect(res.status).toBe(201);
    await okCalls(studio.url, id, [toolCall('open_document', { path: 'glow.psd' })]);
    const page = await studio.open(id);
    try {
      const mark = page.getByRole('button', { name: 'Star 1', exact: true }).locator('.tag.fx');
      await eventually(() => mark.count()).toBe(1);
      expect(await mark.getAttribute('title')).toBe('描边、外发光');
      // The canvas shows the glow around the star: pink over the white background, a few pixels below it.
      const img = page.locator('.artboard img');
      await eventually(() => imageColorAt(img, 64.5 / 128, 95.5 / 128)).toSatisfy(
        (c: number[] | null) => c !== null && c[0]! >= 250 && c[1]! < 200 && c[1]! > 120,
      );
      await snapshot(page, 'layers-effects-psd');
    } catch (err) {
      await snapshot(page, 'failed-layers-effects-psd');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
