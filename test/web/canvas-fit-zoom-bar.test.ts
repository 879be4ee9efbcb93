/**
 * 适合窗口 and the zoom bar floating in the canvas's bottom-right corner, in real Chromium: a fitted page is never
 * under the bar (as Photoshop's docked zoom field never covers the page), portrait or landscape, at 1440×900 and at
 * 1280×720, and a document the bar does not reach is fitted centred as before.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-fit-zoom-bar');

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The page (the artboard), the zoom bar, the toolbox and the viewport, as laid out now. */
const boxes = (page: Page) =>
  page.evaluate(`(() => {
    const box = (s) => {
      const r = document.querySelector(s).getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    };
    return {
      page: box('.artboard'),
      bar: box('.canvas-tools'),
      toolbox: box('.canvas-toolbox'),
      viewport: box('.canvas-viewport'),
    };
  })()`) as Promise<{ page: Box; bar: Box; toolbox: Box; viewport: Box }>;

const overlap = (a: Box, b: Box) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** The picture of the active document has loaded on the canvas. */
const pictureShown = (page: Page) =>
  page.evaluate(`(() => {
    const img = document.querySelector('.artboard img');
    return !!img && img.complete && img.naturalWidth > 0;
  })()`);

const DOCUMENTS = [
  { name: 'A4竖版', width: 2480, height: 3508 },
  { name: 'A4横版', width: 3508, height: 2480 },
  { name: '横幅', width: 3000, height: 1200 },
] as const;

describe('适合窗口', () => {
  it('fits a portrait or landscape page clear of the zoom bar, at 1440×900 and 1280×720', async () => {
    const under: string[] = [];
    for (const [width, height] of [
      [1440, 900],
      [1280, 720],
    ] as const) {
      for (const doc of DOCUMENTS) {
        const id = await createSession(studio.url);
        await okCalls(studio.url, id, [toolCall('create_document', doc)]);
        const page = await studio.open(id, width, height);
        await eventually(() => pictureShown(page)).toBe(true);
        await page.getByRole('button', { name: '适合窗口' }).click();
        const at = `${doc.name} ${width}×${height}`;
        // Fitted (as it was on opening): the page stays put from one read to the next.
        let last = '';
        await eventually(async () => {
          const now = JSON.stringify(await boxes(page));
          const same = now === last;
          last = now;
          return same;
        }).toBe(true);
        const b = await boxes(page);
        if (overlap(b.page, b.bar)) under.push(at);
        // Still fitted: inside the viewport, right of the toolbox, and filling the room along one side at least.
        expect(b.page.left, at).toBeGreaterThan(b.toolbox.right);
        expect(b.page.top, at).toBeGreaterThanOrEqual(b.viewport.top);
        expect(b.page.right, at).toBeLessThanOrEqual(b.viewport.right);
        expect(b.page.bottom, at).toBeLessThanOrEqual(b.viewport.bottom);
        const roomW = (b.page.right - b.page.left) / (b.viewport.right - b.toolbox.right);
        const roomH = (b.page.bottom - b.page.top) / (b.viewport.bottom - b.viewport.top);
        expect(Math.max(roomW, roomH), at).toBeGreaterThan(0.75);
        await snapshot(page, `canvas-fit-zoom-bar-${doc.width}x${doc.height}-${width}`);
        await page.context().close();
      }
    }
    expect(under).toEqual([]);
  });

  it('centres a document the bar does not reach, as before', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 600, height: 400, name: '小图' })]);
    const page = await studio.open(id, 1440, 900);
    await eventually(() => pictureShown(page)).toBe(true);
    await page.getByRole('button', { name: '适合窗口' }).click();
    await eventually(async () => {
      const b = await boxes(page);
      return Math.round(b.page.right - b.page.left);
    }).toBe(600);
    const b = await boxes(page);
    const room = { left: b.toolbox.right, right: b.viewport.right };
    expect((b.page.left + b.page.right) / 2).toBeCloseTo((room.left + room.right) / 2, 0);
    expect((b.page.top + b.page.bottom) / 2).toBeCloseTo((b.viewport.top + b.viewport.bottom) / 2, 0);
  });
});
