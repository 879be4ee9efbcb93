/**
 * The files pane's names in real Chromium at 1280×800: files in a folder (the chat's images, kept in
 * chat-images/ under names of their own) are told apart at a glance, the folder giving way before the name.
 */
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createSession } from '../server/support.js';
import { countOf, eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('files-names');

/** A picture of noise, as large as a chat image (some 30 KB: its size takes the room it takes beside the name). */
async function put(id: string, name: string, seed: number): Promise<void> {
  const pixels = Buffer.alloc(100 * 100 * 3);
  let x = seed;
  for (let i = 0; i < pixels.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    pixels[i] = x >>> 24;
  }
  const png = await sharp(pixels, { raw: { width: 100, height: 100, channels: 3 } })
    .png()
    .toBuffer();
  const res = await fetch(`${studio.url}/v1/sessions/${id}/files?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    body: png,
  });
  expect(res.status).toBe(201);
}

// The chat's images wait with its transcript under the collapsed 会话记录 heading (files-records.test.ts).
const names = (page: Page) => page.getByRole('list', { name: '会话记录' }).locator('.file-name');

describe('the files pane', () => {
  it('shows files in one folder so that their rows look different', async () => {
    const id = await createSession(studio.url);
    await put(id, 'chat-images/06b4d9bc45eca7434a3af33100872c56.png', 1);
    await put(id, 'chat-images/81f72a72f61a455f601ff7189bb69b9a.png', 2);
    const page = await studio.open(id, 1280, 800);
    await page.getByRole('tab', { name: '文件' }).click();
    await page.getByText(/^会话记录（2）/).click();
    await eventually(countOf(names(page))).toBe(2);
    await snapshot(page, 'files-names-folder');
    // What the designer sees of each name: two pictures of one "chat-images/…" were all the pane showed.
    const [first, second] = await Promise.all([
      names(page).nth(0).screenshot(),
      names(page).nth(1).screenshot(),
    ]);
    expect(first.equals(second)).toBe(false);
    // The name's own start shows, the folder cut instead.
    for (const k of [0, 1]) {
      const base = names(page).nth(k).locator('.file-base');
      expect(
        await base.evaluate((e) => (e as unknown as { clientWidth: number }).clientWidth),
      ).toBeGreaterThan(40);
    }
  });
});
