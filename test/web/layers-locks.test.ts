/**
 * Photoshop's partial locks, from a file: the layers pane marks a layer locked by position or by its pixels with a
 * hollow lock naming what is locked (as Photoshop's Layers panel does), the canvas shows no transform handles on a
 * layer whose position is locked, and the lock button locks such a layer wholly.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import type { LayerNode } from '../../src/calls/snapshot-types.js';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-locks');

function square(w: number, h: number, [r, g, b]: [number, number, number]) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set([r, g, b, 255], i);
  return { width: w, height: h, data };
}

describe('partial locks', () => {
  it('are marked in the layers pane, keep the transform handles off a fixed layer, and lock all on a click', async () => {
    const id = await createSession(studio.url);
    const psd = writePsdBuffer({
      width: 300,
      height: 200,
      children: [
        { name: '背景', left: 0, top: 0, imageData: square(300, 200, [255, 255, 255]) },
        {
          name: '位置锁',
          left: 20,
          top: 20,
          imageData: square(80, 60, [198, 40, 40]),
          protected: { position: true },
        },
        {
          name: '像素锁',
          left: 160,
          top: 80,
          imageData: square(80, 60, [21, 101, 192]),
          protected: { composite: true, transparency: true },
        },
      ],
    });
    await writeFile(path.join(studio.workspace, 'sessions', id, 'locks.psd'), psd);
    await okCalls(studio.url, id, [toolCall('open_document', { path: 'locks.psd' })]);
    const byName = async () => new Map((await activeLayers(studio.url, id)).map((l) => [l.name, l] as const));
    const layers = await byName();
    expect(layers.get('位置锁')).toMatchObject({ locked: false, locks: ['position'] });
    expect(layers.get('像素锁')).toMatchObject({ locked: false, locks: ['pixels', 'transparency'] });
    expect((layers.get('背景') as LayerNode).locks).toBeUndefined();

    const page = await studio.open(id);
    try {
      const lockOf = (name: string) =>
        page.locator('.layers li').filter({ hasText: name }).locator('.icon-button.lock');
      await eventually(() => lockOf('位置锁').getAttribute('aria-label')).toBe(
        '图层 位置锁 已锁定位置（点击全部锁定）',
      );
      expect(await lockOf('位置锁').getAttribute('title')).toBe('位置');
      expect(await lockOf('像素锁').getAttribute('aria-label')).toBe(
        '图层 像素锁 已锁定图像像素、透明像素（点击全部锁定）',
      );
      expect(await lockOf('位置锁').getAttribute('class')).toContain(' on');
      expect(await lockOf('背景').getAttribute('class')).not.toContain(' on');

      // No transform handles on a layer whose position is locked (Photoshop refuses to transform it).
      await okCalls(studio.url, id, [toolCall('select_layers', { names: ['位置锁'] })]);
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      // Once the studio shows the selection (before, the handles were the previously current layer's).
      await eventually(() =>
        page.locator('.layer-list li.layer-row.selected').filter({ hasText: '位置锁' }).count(),
      ).toBe(1);
      await page.waitForTimeout(400);
      expect(await page.locator('.transform-handle').count()).toBe(0);
      await snapshot(page, 'layers-locks');

      // The lock button locks it wholly, as Photoshop's lock-all.
      await lockOf('位置锁').click();
      await eventually(async () => (await byName()).get('位置锁')?.locked).toBe(true);
      expect((await byName()).get('位置锁')!.locks).toBeUndefined();
      await eventually(() => lockOf('位置锁').getAttribute('aria-label')).toBe('解锁图层 位置锁');
    } catch (err) {
      await snapshot(page, 'failed-layers-locks');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
