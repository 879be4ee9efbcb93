/**
 * Moving about the canvas as in Figma or Photoshop on the web: the wheel and a two-finger scroll pan, Ctrl/⌘ with
 * the wheel (and a pinch, which the browser sends as a wheel with ctrlKey) zooms about the pointer; the arrow
 * keys pan the focused canvas, Shift for bigger steps; space held is the hand tool; a resized window keeps the
 * designer's zoom and pan (only a view still fitted is fitted again).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot, textOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-nav');

interface Placed {
  /** The document's left and top edges on screen, and its width, in CSS pixels. */
  x: number;
  y: number;
  width: number;
  /** Where the viewport's centre falls on the document, as fractions of its width and height. */
  cx: number;
  cy: number;
}

const placed = (page: Page) => () =>
  page.evaluate(`(() => {
    const a = document.querySelector('.artboard').getBoundingClientRect();
    const v = document.querySelector('.canvas-viewport').getBoundingClientRect();
    const round = (n, k = 1) => Math.round(n * k) / k;
    return {
      x: round(a.left),
      y: round(a.top),
      width: round(a.width),
      cx: round((v.left + v.width / 2 - a.left) / a.width, 1000),
      cy: round((v.top + v.height / 2 - a.top) / a.height, 1000),
    };
  })()`) as Promise<Placed>;

/** How far the document is from where it was: the larger of its size's change (a share) and its centre's move. */
const driftFrom = (page: Page, want: { width?: number; cx: number; cy: number }) => async () => {
  const p = await placed(page)();
  const size = want.width === undefined ? 0 : Math.abs(p.width - want.width) / want.width;
  return Math.max(size, Math.abs(p.cx - want.cx), Math.abs(p.cy - want.cy));
};

/**
 * How far a fitted document is from where fitting puts it: centred in the part of the viewport right of the toolbox
 * floating on its left edge, so the viewport's own centre falls left of the document's by half the toolbox's reach.
 */
const driftFromFitted = (page: Page) => async () => {
  const p = await placed(page)();
  const reach = (await page.evaluate(`(() => {
    const t = document.querySelector('.canvas-toolbox').getBoundingClientRect();
    return t.right - document.querySelector('.canvas-viewport').getBoundingClientRect().left;
  })()`)) as number;
  return Math.max(Math.abs(p.cx - (0.5 - reach / 2 / p.width)), Math.abs(p.cy - 0.5));
};

const zoomText = (page: Page) => textOf(page.locator('.status-zoom'));

/** A session with one document, opened in the studio, once its picture shows. */
async function openOn(width: number, height: number, docW = 1600, docH = 1200, name = '导航') {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: docW, height: docH, name }),
    toolCall('create_text_layer', { text: '左上角', x: 40, y: 40, font_size: 120, color: '#c0392b' }),
  ]);
  const page = await studio.open(id, width, height);
  await eventually(() =>
    page.evaluate(`(() => {
      const img = document.querySelector('.artboard img');
      return !!img && img.complete && img.naturalWidth > 0;
    })()`),
  ).toBe(true);
  return page;
}

async function viewportCentre(page: Page) {
  const box = (await page.locator('.canvas-viewport').boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

describe('the wheel and the trackpad on the canvas', () => {
  it('pan with a plain wheel or a two-finger scroll, and zoom about the pointer with Ctrl or a pinch', async () => {
    const page = await openOn(1440, 900);
    const start = await placed(page)();
    const zoom = await zoomText(page)();
    const centre = await viewportCentre(page);
    await page.mouse.move(centre.x, centre.y);

    // A wheel turned down, then a two-finger scroll sideways: the document moves, its size stays.
    await page.mouse.wheel(0, 120);
    await eventually(placed(page)).toMatchObject({ x: start.x, y: start.y - 120, width: start.width });
    await page.mouse.wheel(90, 0);
    await eventually(placed(page)).toMatchObject({ x: start.x - 90, y: start.y - 120, width: start.width });
    expect(await zoomText(page)()).toBe(zoom);

    // Ctrl + wheel zooms in about the pointer: the document point under it stays under it.
    const pointer = { x: centre.x - 150, y: centre.y - 80 };
    await page.mouse.move(pointer.x, pointer.y);
    const before = await placed(page)();
    const under = (p: Placed) => ({
      u: Math.round(((pointer.x - p.x) / p.width) * 1000) / 1000,
      v: Math.round(((pointer.y - p.y) / p.width) * 1000) / 1000,
    });
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -100);
    await page.keyboard.up('Control');
    await eventually(async () => (await placed(page)()).width).toBeGreaterThan(before.width * 1.1);
    const zoomed = await placed(page)();
    expect(under(zoomed).u).toBeCloseTo(under(before).u, 2);
    expect(under(zoomed).v).toBeCloseTo(under(before).v, 2);

    // A trackpad pinch arrives as small wheel deltas with ctrlKey: each one zooms a little, about the fingers.
    const cdp = await page.context().newCDPSession(page);
    for (let i = 0; i < 10; i++) {
      await cdp.send('Input.dispatchMouseEvent', {
        type: 'mouseWheel',
        x: pointer.x,
        y: pointer.y,
        deltaX: 0,
        deltaY: 4,
        modifiers: 2, // Ctrl
      });
    }
    await eventually(async () => (await placed(page)()).width).toBeLessThan(zoomed.width * 0.8);
    const pinched = await placed(page)();
    expect(pinched.width).toBeGreaterThan(zoomed.width * 0.6);
    expect(under(pinched).u).toBeCloseTo(under(before).u, 2);
    expect(under(pinched).v).toBeCloseTo(under(before).v, 2);
    // The page itself never zoomed or scrolled.
    expect(await page.evaluate('[window.visualViewport.scale, document.scrollingElement.scrollTop]')).toEqual(
      [1, 0],
    );
  });
});

describe('the keyboard on the canvas', () => {
  it('pans with the arrow keys once the canvas has the focus, Shift for larger steps', async () => {
    const page = await openOn(1440, 900);
    const centre = await viewportCentre(page);
    // A click on the canvas gives it the keys (a click does not move it) and selects the background under it:
    // with nothing that can move selected, the arrows pan (they nudge a selected layer, as Photoshop's Move tool).
    await page.mouse.click(centre.x, centre.y);
    await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(0);
    const start = await placed(page)();
    await page.keyboard.press('ArrowRight');
    await eventually(placed(page)).toMatchObject({ x: start.x - 40, y: start.y });
    await page.keyboard.press('ArrowDown');
    await eventually(placed(page)).toMatchObject({ x: start.x - 40, y: start.y - 40 });
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Shift+ArrowUp');
    await eventually(placed(page)).toMatchObject({ x: start.x + 160, y: start.y + 160, width: start.width });

    // Typing in the toolbox's search box keeps its keys: arrows and spaces are the field's.
    const search = page.getByRole('searchbox', { name: '搜索工具' });
    await search.click();
    await page.keyboard.type('图层 文字');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Shift+ArrowLeft');
    expect(await search.inputValue()).toBe('图层 文字');
    expect(await placed(page)()).toMatchObject({ x: start.x + 160, y: start.y + 160 });
  });

  it('zooms with Ctrl and + or −, fits with Ctrl+0 and shows actual pixels with Ctrl+1, as Photoshop', async () => {
    const page = await openOn(1440, 900);
    const fitted = await placed(page)();
    const fittedZoom = await zoomText(page)();
    // Fitted right of the toolbox floating on the canvas's left: none of the document is under it.
    const toolbox = (await page.locator('.canvas-toolbox').boundingBox())!;
    expect(fitted.x).toBeGreaterThan(toolbox.x + toolbox.width);
    await page.keyboard.press('Control+Equal');
    await eventually(async () => (await placed(page)()).width).toBeCloseTo(fitted.width * 1.25, -1);
    await page.keyboard.press('Control+Minus');
    await page.keyboard.press('Control+Minus');
    await eventually(async () => (await placed(page)()).width).toBeCloseTo(fitted.width / 1.25, -1);
    await page.keyboard.press('Control+Digit1');
    await eventually(zoomText(page)).toBe('缩放 100%');
    await page.keyboard.press('Control+Digit0');
    await eventually(zoomText(page)).toBe(fittedZoom);
    expect((await placed(page)()).width).toBeCloseTo(fitted.width, 0);
    // The browser did not zoom the page itself.
    expect(await page.evaluate('window.visualViewport.scale')).toBe(1);
  });

  it('keeps each document’s own zoom and scroll when another tab is shown, as Photoshop’s windows', async () => {
    const page = await openOn(1440, 900);
    const fittedZoom = await zoomText(page)();
    const session = (await page.evaluate('sessionStorage.getItem("atelier.session")')) as string;
    await okCalls(studio.url, session, [
      toolCall('create_document', { width: 800, height: 600, name: '第二张' }),
    ]);
    const tab = (name: RegExp) => page.getByRole('tab', { name });
    await eventually(() => tab(/第二张/).getAttribute('aria-selected')).toBe('true');
    await tab(/导航/).click();
    await eventually(zoomText(page)).toBe(fittedZoom);
    await page.locator('.canvas-viewport[tabindex]').focus();
    await page.keyboard.press('Control+Equal');
    await page.keyboard.press('Control+Equal');
    await eventually(zoomText(page)).not.toBe(fittedZoom);
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(100);
    const zoomed = await zoomText(page)();
    const where = await placed(page)();

    // The other document is fitted; back on this one, its zoom and scroll are as left.
    await tab(/第二张/).click();
    await eventually(zoomText(page)).not.toBe(zoomed);
    await tab(/导航/).click();
    await eventually(zoomText(page)).toBe(zoomed);
    await eventually(driftFrom(page, where)).toBeLessThan(0.003);

    // Closed and opened again (the same name and size), it is a new window: fitted, not at the old zoom.
    await okCalls(studio.url, session, [toolCall('close_document', {})]);
    await eventually(() => tab(/第二张/).getAttribute('aria-selected')).toBe('true');
    await okCalls(studio.url, session, [
      toolCall('create_document', { width: 1600, height: 1200, name: '导航' }),
    ]);
    await eventually(() => tab(/导航/).getAttribute('aria-selected')).toBe('true');
    await eventually(zoomText(page)).toBe(fittedZoom);
  });

  it('shows a document whose tab is chosen again at once, its picture kept, never an empty board', async () => {
    const page = await openOn(1280, 800);
    const session = (await page.evaluate('sessionStorage.getItem("atelier.session")')) as string;
    await okCalls(studio.url, session, [
      toolCall('create_document', { width: 800, height: 600, name: '第二张' }),
    ]);
    const tab = (name: RegExp) => page.getByRole('tab', { name });
    const loaded = () =>
      page.evaluate(`(() => {
        const img = document.querySelector('.artboard img');
        return !!img && img.complete && img.naturalWidth > 0 && !document.querySelector('.artboard.loading');
      })()`);
    await eventually(() => tab(/第二张/).getAttribute('aria-selected')).toBe('true');
    await eventually(loaded).toBe(true);
    // Every state the board passes through from here is seen.
    await page.evaluate(`(() => {
      window.__boardEmpty = 0;
      new MutationObserver(() => {
        if (document.querySelector('.artboard.loading') || !document.querySelector('.artboard img')) window.__boardEmpty++;
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    await tab(/导航/).click();
    await eventually(() => tab(/导航/).getAttribute('aria-selected')).toBe('true');
    await eventually(loaded).toBe(true);
    await tab(/第二张/).click();
    await eventually(() => tab(/第二张/).getAttribute('aria-selected')).toBe('true');
    await eventually(loaded).toBe(true);
    await page.waitForTimeout(200);
    expect(await page.evaluate('window.__boardEmpty')).toBe(0);
    await page.context().close();
  });

  it('takes space held as the hand tool: a drag pans, and the canvas button last clicked is not pressed again', async () => {
    const page = await openOn(1440, 900);
    // Zoomed in with the toolbar's button, which keeps the focus.
    await page.getByRole('button', { name: '放大', exact: true }).click();
    await eventually(zoomText(page)).not.toBe('');
    const zoom = await zoomText(page)();
    const start = await placed(page)();
    const centre = await viewportCentre(page);
    await page.mouse.move(centre.x, centre.y);
    // Space held, then let go without a drag (the designer changed their mind): 放大 is not pressed again.
    await page.keyboard.down('Space');
    await page.keyboard.up('Space');
    await page.waitForTimeout(200);
    expect(await zoomText(page)()).toBe(zoom);
    // Space held and a drag: the document follows the pointer.
    await page.keyboard.down('Space');
    await page.mouse.down();
    await page.mouse.move(centre.x + 50, centre.y + 30, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Space');
    await eventually(placed(page)).toMatchObject({ x: start.x + 50, y: start.y + 30, width: start.width });
    expect(await zoomText(page)()).toBe(zoom);
  });

  it('takes space as the hand over the canvas in a narrow window, whose panes scroll, not as a page down', async () => {
    const page = await openOn(820, 1000);
    const scrolled = () => page.evaluate("document.querySelector('.workspace').scrollTop");
    // Something not focusable clicked (the status bar): nothing has the keys; the pointer goes to the canvas.
    await page.locator('.status-doc').click();
    const start = await placed(page)();
    const centre = await viewportCentre(page);
    await page.mouse.move(centre.x, centre.y);
    await page.keyboard.down('Space');
    await page.mouse.down();
    await page.mouse.move(centre.x - 40, centre.y + 25, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Space');
    await eventually(placed(page)).toMatchObject({ x: start.x - 40, y: start.y + 25, width: start.width });
    expect(await scrolled()).toBe(0);
    // The drag gave the canvas the keys; once they are elsewhere and the pointer is away, space is the page's.
    await page.locator('.status-doc').click();
    await page.keyboard.press('Space');
    await eventually(scrolled).toBeGreaterThan(0);
  });
});

describe('the canvas in a resized window', () => {
  it('keeps the designer’s zoom and what was at the centre; a view still fitted is fitted again', async () => {
    const page = await openOn(1440, 900, 3000, 2000, '大画布');
    // Still as fitted: a smaller window fits the document to it again.
    const fitted = await zoomText(page)();
    await page.setViewportSize({ width: 1200, height: 760 });
    await eventually(zoomText(page)).not.toBe(fitted);
    await eventually(driftFromFitted(page)).toBeLessThan(0.003);
    const refitted = await placed(page)();

    // The designer zooms in about a point and pans.
    const centre = await viewportCentre(page);
    await page.mouse.move(centre.x - 100, centre.y - 60);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -100);
    await page.mouse.wheel(0, -100);
    await page.keyboard.up('Control');
    await page.mouse.wheel(-70, 40);
    await eventually(async () => (await placed(page)()).width).toBeGreaterThan(refitted.width * 1.3);
    await page.waitForTimeout(100);
    const zoom = await zoomText(page)();
    const chosen = await placed(page)();

    // A wider window, then a narrower one than at first: the zoom stays, and so does the point at the centre.
    await page.setViewportSize({ width: 1440, height: 900 });
    await eventually(async () => (await viewportCentre(page)).x).toBeGreaterThan(centre.x + 50);
    await eventually(driftFrom(page, chosen)).toBeLessThan(0.003);
    await page.setViewportSize({ width: 1000, height: 700 });
    await eventually(async () => (await viewportCentre(page)).x).toBeLessThan(centre.x - 50);
    await eventually(driftFrom(page, chosen)).toBeLessThan(0.003);
    expect(await zoomText(page)()).toBe(zoom);
    await snapshot(page, '82-canvas-kept-after-resize');

    // 适合窗口 fits it again, and from then on a resize fits it too.
    await page.getByRole('button', { name: '适合窗口' }).click();
    await eventually(driftFromFitted(page)).toBeLessThan(0.003);
    const refit = await zoomText(page)();
    await page.setViewportSize({ width: 1440, height: 900 });
    await eventually(zoomText(page)).not.toBe(refit);
    await eventually(driftFromFitted(page)).toBeLessThan(0.003);
  });
});
