import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession } from '../server/support.js';
import { eventually, finished, lastCardOf, snapshot, textOf, visibleOf } from '../support/browser.js';
import { blazerPsd, identifyFromToolbox } from './garment-toolbox.js';
import { studioHarness } from './studio-harness.js';

const plain = studioHarness('doubts-layout');
const VIEWS = [
  [1366, 768],
  [1280, 800],
  [1440, 900],
  [390, 844],
] as const;

interface Room {
  /** The feed's own height (what it shows at one scroll position), px. */
  feed: number;
  /** The window's height, px. */
  window: number;
  /** The doubt note's height, and how much of it shows in the feed and the window at once, px. */
  note: number;
  shown: number;
  /** The note's answer controls (buttons and the other-part lists), and those not wholly in view. */
  controls: number;
  hidden: string[];
}

/**
 * How the newest doubt note sits, once brought into view as a designer would (read from the page, as a string:
 * the tests' TypeScript has no DOM types).
 */
const ROOM = `(() => {
  const feed = document.querySelector('[role="log"]');
  const note = [...feed.querySelectorAll('.doubt-note')].pop();
  note.scrollIntoView({ block: 'nearest' });
  const f = feed.getBoundingClientRect();
  const top = Math.max(f.top, 0), bottom = Math.min(f.bottom, innerHeight);
  const n = note.getBoundingClientRect();
  const controls = [...note.querySelectorAll('button, select')];
  const hidden = controls
    .filter((c) => { const r = c.getBoundingClientRect(); return r.top < top - 1 || r.bottom > bottom + 1; })
    .map((c) => c.getAttribute('aria-label'));
  return { feed: feed.clientHeight, window: innerHeight, note: n.height,
    shown: Math.max(0, Math.min(n.bottom, bottom) - Math.max(n.top, top)), controls: controls.length, hidden };
})()`;

async function room(page: Page): Promise<Room> {
  // The feed and the page settle after a resize (the feed follows its end on the next frame).
  await page.waitForTimeout(300);
  return (await page.evaluate(ROOM)) as Room;
}

/** The blazer identified from the toolbox in a `width × height` window, once its card asks about pieces. */
async function asking(width: number, height: number) {
  const psd = await blazerPsd(`atelier-doubts-${width}-`);
  const id = await createSession(plain.url);
  const page = await plain.open(id, width, height, 'zh');
  await identifyFromToolbox(page, psd);
  const note = lastCardOf(page, 'identify_pieces').getByRole('note');
  await eventually(textOf(note)).toContain('也可能是');
  return { page, note };
}

describe('the doubts after identifying from the toolbox', () => {
  it('get the pane: every doubt and answer in view at once, the toolbox folded to a line', {
    timeout: 300_000,
  }, async () => {
    const { page, note } = await asking(1366, 768);

    for (const [width, height] of VIEWS) {
      await page.setViewportSize({ width, height });
      const seen = await room(page);
      await snapshot(page, `doubts-layout-1-asked-${width}`);
      const view = `${width}: ${JSON.stringify(seen)}`;
      expect(seen.controls, view).toBeGreaterThan(8);
      // The conversation has most of the window, not the strip beside an open form.
      expect(seen.feed / seen.window, view).toBeGreaterThan(0.7);
      // The whole note, each answer button with it, shows at one scroll position.
      expect(seen.shown, view).toBeGreaterThanOrEqual(seen.note - 1);
      expect(seen.hidden, view).toEqual([]);
      // The toolbox is a line under it, saying why, with its form one click away and its ‹ to the tools kept.
      expect(await visibleOf(page.getByRole('button', { name: '运行' }))(), view).toBe(false);
      await expect(visibleOf(page.getByRole('button', { name: '展开工具箱' }))(), view).resolves.toBe(true);
      await expect(visibleOf(page.getByRole('button', { name: '返回工具列表' }))(), view).resolves.toBe(true);
      if (width < 600) {
        await page.getByRole('button', { name: '展开工具箱' }).scrollIntoViewIfNeeded();
        await snapshot(page, `doubts-layout-1-folded-${width}`);
      }
    }

    // Unfolded on request, the form is back as it was.
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.getByRole('button', { name: '展开工具箱' }).click();
    await eventually(visibleOf(page.getByRole('button', { name: '运行' }))).toBe(true);
    expect(await textOf(page.locator('.tool-form h3'))()).toBe('识别裁片部位');
    await snapshot(page, 'doubts-layout-2-unfolded-1366');

    // An answer: its card says what is still in doubt, and asks again in the room of the pane; with nothing
    // left to ask, the toolbox stays open.
    await note.getByRole('listitem').first().locator('.doubt-answers').getByRole('button').nth(1).click();
    const answered = lastCardOf(page, 'confirm_piece_parts');
    await finished(answered);
    const still = (await answered.getByRole('note').count()) > 0;
    await eventually(visibleOf(page.getByRole('button', { name: '展开工具箱' }))).toBe(still);
    await eventually(visibleOf(page.getByRole('button', { name: '运行' }))).toBe(!still);
    if (still) {
      const seen = await room(page);
      expect(seen.feed / seen.window, JSON.stringify(seen)).toBeGreaterThan(0.7);
      expect(seen.hidden).toEqual([]);
    }
    await snapshot(page, 'doubts-layout-3-answered-1366');
    // The form's ‹ on the folded line goes on to the tools, unfolded.
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await eventually(visibleOf(page.getByRole('searchbox', { name: '搜索工具' }))).toBe(true);
    await eventually(visibleOf(page.getByRole('button', { name: '展开工具箱' }))).toBe(false);
  });

  it('on a phone, show every answer and the toolbox folded under them in the window, not the panel below', {
    timeout: 300_000,
  }, async () => {
    const { page } = await asking(390, 844);
    await eventually(visibleOf(page.getByRole('button', { name: '展开工具箱' }))).toBe(true);
    // Where the page is once the toolbox folded, before anything else scrolls it.
    await page.waitForTimeout(400);
    // Read from the page, as a string: the tests' TypeScript has no DOM types.
    const inWindow = (name: string) =>
      page.evaluate(`(() => {
        const b = [...document.querySelectorAll('button')].find((e) => e.textContent.trim() === ${JSON.stringify(name)});
        const r = b.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight;
      })()`);
    // And the questions above it, every answer button in the window: not the side panel under the pane.
    const answersInWindow = () =>
      page.evaluate(`(() => {
        const note = [...document.querySelectorAll('.doubt-note')].pop();
        const buttons = [...note.querySelectorAll('button, select')];
        return buttons.length > 8 && buttons.every((b) => {
          const r = b.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= innerHeight;
        });
      })()`);
    await snapshot(page, 'doubts-layout-4-phone-folded');
    expect(await inWindow('展开工具箱'), 'the folded line').toBe(true);
    expect(await answersInWindow(), 'the answers').toBe(true);
    const seen = await room(page);
    expect(seen.feed / seen.window, JSON.stringify(seen)).toBeGreaterThan(0.6);
    expect(await inWindow('展开工具箱'), 'still, with the note read').toBe(true);
  });
});
