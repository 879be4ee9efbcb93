/**
 * A Photoshop file printed in spot inks, opened in the studio: the canvas shows the plates in their inks (the file's
 * colour channels are blank), as Photoshop shows them, and the layers pane lists them. A file's alpha channel loads
 * as the selection from its row, and the selection saves as a new alpha channel from the list's foot.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../src/calls/snapshot.js';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, imageColorAt, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('spot-channels');

async function upload(id: string, fixture: string, name: string): Promise<void> {
  const body = readFileSync(new URL(`../fixtures/psd-tools/${fixture}`, import.meta.url));
  const res = await fetch(`${studio.url}/v1/sessions/${id}/files?name=${name}`, { method: 'POST', body });
  expect(res.status).toBe(201);
}

async function snapshotOf(id: string): Promise<SessionSnapshot> {
  return (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as SessionSnapshot;
}

describe('spot channels in the studio', () => {
  it('shows a file’s spot plates on the canvas in their inks', async () => {
    const id = await createSession(studio.url);
    await upload(id, 'cmyk-spot.psd', 'wheel.psd');
    await okCalls(studio.url, id, [toolCall('open_document', { path: 'wheel.psd' })]);
    const page = await studio.open(id);
    try {
      const img = page.locator('.artboard img');
      // The colour wheel's red, where the pink and yellow plates overprint (x 600, y 450 of 640 × 637); the hole
      // in its middle is paper.
      await eventually(() => imageColorAt(img, 600.5 / 640, 450.5 / 637)).toSatisfy(
        (c: number[] | null) => c !== null && c[0]! > 150 && c[1]! < 120 && c[2]! < 120,
      );
      const hole = await imageColorAt(img, 320.5 / 640, 318.5 / 637);
      expect(hole?.slice(0, 3)).toEqual([255, 255, 255]);
      // The blue plate alone, at the left edge of the wheel's lower half: the ink's own blue.
      const blue = await imageColorAt(img, 40.5 / 640, 420.5 / 637);
      expect(blue![2]).toBeGreaterThan(blue![0]! + 60);
      // The layers pane lists the plates below the layers, each with its ink.
      const list = page.getByRole('region', { name: '通道' });
      await eventually(() => list.locator('li').allTextContents()).toEqual([
        'blue专色',
        'fluorescent pink专色',
        'yellow专色',
      ]);
      const swatch = await list
        .locator('.channel-swatch')
        .first()
        .evaluate(
          (el) =>
            (
              globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
            ).getComputedStyle(el).backgroundColor,
        );
      expect(swatch).toBe('rgb(0, 120, 191)');
      await snapshot(page, 'spot-channels');
    } catch (err) {
      await snapshot(page, 'failed-spot-channels');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('loads an alpha channel as the selection from its row, and saves the selection as a new one', async () => {
    const id = await createSession(studio.url);
    await upload(id, 'rgb-transparency-alpha.psd', 'alpha.psd');
    await okCalls(studio.url, id, [toolCall('open_document', { path: 'alpha.psd' })]);
    const page = await studio.open(id);
    try {
      const list = page.getByRole('region', { name: '通道' });
      await eventually(() => list.locator('li').allTextContents()).toEqual(['Alpha 1Alpha']);
      // Nothing selected yet: nothing to save.
      const save = list.getByRole('button', { name: '存储选区' });
      await expect(save.isDisabled()).resolves.toBe(true);
      await list.getByRole('button', { name: '载入通道选区：Alpha 1' }).click();
      await eventually(async () => (await snapshotOf(id)).active?.has_selection).toBe(true);
      await eventually(() => save.isDisabled()).toBe(false);
      await save.click();
      await eventually(() => list.locator('li').allTextContents()).toEqual(['Alpha 1Alpha', 'Alpha 2Alpha']);
      expect((await snapshotOf(id)).active?.channels?.map((c) => c.name)).toEqual(['Alpha 1', 'Alpha 2']);
      await snapshot(page, 'alpha-channels');
    } catch (err) {
      await snapshot(page, 'failed-alpha-channels');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
