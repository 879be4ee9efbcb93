/**
 * The canvas pane between two pictures — while the next render of the document loads (a big document, a slow
 * network), what is shown must be a picture of that document, never the one shown before it — and under a
 * finger on a phone, which pans and pinches the document as the mouse pans it.
 */
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { attrOf, countOf, eventually, snapshot, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas');

/** Whether the canvas shows a wide picture or a tall one, or none. */
const shown = (page: Page) => () =>
  page.evaluate(`(() => {
    const img = document.querySelector('.artboard img');
    if (!img || !img.complete || img.naturalWidth === 0) return null;
    return img.naturalWidth > img.naturalHeight ? 'wide' : 'tall';
  })()`) as Promise<'wide' | 'tall' | null>;

describe('the canvas while the next picture loads', () => {
  it('does not show the last document’s picture in the frame of the one switched to', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 1200, height: 400, name: '横幅' }),
      toolCall('create_text_layer', { text: '横幅横幅', x: 20, y: 20, font_size: 200, color: '#c0392b' }),
      toolCall('create_document', { width: 400, height: 1200, name: '竖幅' }),
      toolCall('create_text_layer', { text: '竖', x: 20, y: 20, font_size: 300, color: '#2040c0' }),
      toolCall('switch_document', { doc_name: '横幅' }),
    ]);
    const page = await studio.open(id);
    await eventually(shown(page)).toBe('wide');

    // The portrait document's render is held, as a slow one would be.
    const held: Route[] = [];
    const portrait = encodeURIComponent('竖幅');
    await page.route(
      (url) => url.pathname.includes(`/documents/${portrait}/render.png`),
      (route) => void held.push(route),
    );
    await page.getByRole('tab', { name: /竖幅/ }).click();
    await eventually(attrOf(page.getByRole('tab', { name: /竖幅/ }), 'aria-selected')).toBe('true');
    await eventually(() => held.length).toBeGreaterThan(0);
    await eventually(async () => (await page.locator('.artboard').boundingBox())?.height).toBeGreaterThan(
      700,
    );
    expect(await shown(page)()).toBeNull();
    expect(await countOf(page.locator('.artboard img'))()).toBe(0);
    expect(await visibleOf(page.getByRole('status', { name: '正在载入画布…' }))()).toBe(true);
    await snapshot(page, '80-canvas-switch-loading');

    // Once it comes, it is shown.
    await page.unroute((url) => url.pathname.includes(`/documents/${portrait}/render.png`));
    for (const route of held.splice(0)) await route.continue();
    await eventually(shown(page)).toBe('tall');
    expect(await countOf(page.getByRole('status', { name: '正在载入画布…' }))()).toBe(0);
  });
});

describe('the canvas of a big document on a slow line', () => {
  it('downloads only the render it ends at when zoomed in quickly, not each one it passed', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 4000, height: 5000, name: '大图' }),
      toolCall('create_text_layer', { text: '左上角', x: 20, y: 20, font_size: 200 }),
    ]);
    const page = await studio.open(id);
    await eventually(shown(page)).toBe('tall');
    // Every render now takes a second and a half to come, as a big one does on a slow line.
    const asked: string[] = [];
    const finished: string[] = [];
    const failed: string[] = [];
    const sizeOf = (url: string) => new URL(url).searchParams.get('max') ?? '';
    page.on('request', (r) => r.url().includes('/render.png') && asked.push(sizeOf(r.url())));
    page.on('requestfinished', (r) => r.url().includes('/render.png') && finished.push(sizeOf(r.url())));
    page.on('requestfailed', (r) => r.url().includes('/render.png') && failed.push(sizeOf(r.url())));
    await page.route(
      (url) => url.pathname.endsWith('/render.png'),
      async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.continue().catch(() => undefined);
      },
    );
    const board = (await page.locator('.artboard').boundingBox())!;
    await page.mouse.move(board.x + 20, board.y + 20);
    // Ctrl + wheel zooms (a plain wheel pans, as in Figma).
    await page.keyboard.down('Control');
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -100);
    await page.keyboard.up('Control');
    await eventually(async () => (await page.locator('.status-zoom').textContent()) ?? '').not.toContain(
      '缩放 15.',
    );
    await eventually(() => finished.length).toBe(1);
    await page.waitForTimeout(2000);
    // Zoomed from 15 % past several render sizes: the ones passed were dropped, the last one came.
    expect(asked.length).toBeGreaterThan(1);
    expect(finished).toEqual([asked.at(-1)]);
    expect(failed).toEqual(asked.slice(0, -1));
  });
});

/** Where the document is on screen: its left and top edges and its width, in CSS pixels. */
const placed = (page: Page) => () =>
  page.evaluate(`(() => {
    const r = document.querySelector('.artboard').getBoundingClientRect();
    return { x: Math.round(r.left), y: Math.round(r.top), width: Math.round(r.width) };
  })()`) as Promise<{ x: number; y: number; width: number }>;

describe('the canvas under a finger', () => {
  it('pans with one finger and zooms with two on a phone, and the page stays put', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 800, height: 600, name: '手机画布' }),
    ]);
    const page = await studio.open(id, 390, 844);
    await eventually(shown(page)).toBe('wide');
    const pageScroll = () => page.evaluate(`document.querySelector('.workspace').scrollTop`);
    const viewport = (await page.locator('.canvas-viewport').boundingBox())!;
    const cx = viewport.x + viewport.width / 2;
    const cy = viewport.y + viewport.height / 2;
    const cdp = await page.context().newCDPSession(page);
    /** Fingers from `from` to `to` in ten steps, then lifted. */
    const gesture = async (from: [number, number][], to: [number, number][]) => {
      const at = (k: number) =>
        from.map(([x, y], i) => ({
          x: x + ((to[i]![0] - x) * k) / 10,
          y: y + ((to[i]![1] - y) * k) / 10,
          id: i,
        }));
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
      for (let k = 1; k <= 10; k++) {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(k) });
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    };

    const start = await placed(page)();
    await gesture([[cx, cy]], [[cx - 60, cy - 90]]);
    await eventually(placed(page)).toEqual({ x: start.x - 60, y: start.y - 90, width: start.width });
    expect(await pageScroll()).toBe(0);

    // Two fingers spread to twice their distance apart: the document doubles in size around them.
    await gesture(
      [
        [cx - 40, cy],
        [cx + 40, cy],
      ],
      [
        [cx - 80, cy],
        [cx + 80, cy],
      ],
    );
    await eventually(async () => (await placed(page)()).width).toBeGreaterThan(start.width * 1.9);
    expect((await placed(page)()).width).toBeLessThan(start.width * 2.1);
    expect(await pageScroll()).toBe(0);
    await snapshot(page, '81-canvas-pinched');

    // The mouse pans as before.
    const pinched = await placed(page)();
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    await page.mouse.move(cx + 30, cy + 20, { steps: 5 });
    await page.mouse.up();
    await eventually(placed(page)).toEqual({ ...pinched, x: pinched.x + 30, y: pinched.y + 20 });
  });
});

describe('files dropped outside the canvas', () => {
  it('are not opened by the browser in place of the studio', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    await eventually(visibleOf(page.getByRole('log').first())).toBe(true);
    // A drop on the chat: nothing there takes files, so the browser's own handling (leaving the page to show
    // the file) must be stopped.
    const kept = await page.evaluate(`(() => {
      const data = new DataTransfer();
      data.items.add(new File(['x'], 'poster.png', { type: 'image/png' }));
      const over = new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true });
      const drop = new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true });
      const feed = document.querySelector('[role="log"]');
      feed.dispatchEvent(over);
      feed.dispatchEvent(drop);
      return [over.defaultPrevented, drop.defaultPrevented];
    })()`);
    expect(kept).toEqual([true, true]);
  });
});
