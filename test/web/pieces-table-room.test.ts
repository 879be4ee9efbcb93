/**
 * The pieces table 确认套图 opens under a garment preview run from the toolbox (no model): the conversation gets
 * the pane while it is open, as for the doubts: the toolbox folds to a line, so every row of a T-shirt's table and
 * 开始套图 read at one scroll position of the feed, at a laptop's 1366 × 768 and on a phone, instead of in the strip
 * the toolbox leaves (460 px of a 768 px window beside the form; 186 px on a phone, one row). It unfolds on request
 * or when another tool is picked, and folds again for the next preview's table.
 * Screenshots: pieces-table-room-<step>-<width>.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession } from '../server/support.js';
import {
  countOf,
  eventually,
  feedOf,
  finished,
  lastCardOf,
  snapshot,
  textOf,
  visibleOf,
} from '../support/browser.js';
import { blazerPsd, EXAMPLES, identifyFromToolbox, previewFromToolbox } from './garment-toolbox.js';
import { studioHarness } from './studio-harness.js';

const plain = studioHarness('pieces-table-room');
const VIEWS = [
  [1366, 768],
  [390, 844],
] as const;

interface Room {
  /** The feed's own height (what it shows at one scroll position) and the window's, px. */
  feed: number;
  window: number;
  /** The table's rows (its head's too), and how many of them are not wholly in view. */
  rows: number;
  hiddenRows: number;
  /** The rows' mean height (the head's not counted), px. */
  rowHeight: number;
  /** Whether the table's button (开始套图) is wholly in view. */
  button: boolean;
  /** Whether the composer (the toolbox folded to a line) is wholly in the window. */
  composer: boolean;
  /** How much of the table and its button shows at once, of their height, px. */
  shown: number;
  height: number;
}

/**
 * How the newest pieces table sits, once brought into view as a designer would, its button first (read from the
 * page, as a string: the tests' TypeScript has no DOM types).
 */
const ROOM = `(() => {
  const feed = document.querySelector('[role="log"]');
  const pieces = [...feed.querySelectorAll('.pieces')].pop();
  const button = pieces.querySelector(':scope > button');
  button.scrollIntoView({ block: 'nearest' });
  pieces.scrollIntoView({ block: 'nearest' });
  const f = feed.getBoundingClientRect();
  const top = Math.max(f.top, 0), bottom = Math.min(f.bottom, innerHeight);
  const inView = (el) => { const r = el.getBoundingClientRect(); return r.top >= top - 1 && r.bottom <= bottom + 1; };
  const rows = [...pieces.querySelectorAll('tr')];
  const p = pieces.getBoundingClientRect();
  return { feed: feed.clientHeight, window: innerHeight, rows: rows.length,
    hiddenRows: rows.filter((r) => !inView(r)).length, button: inView(button),
    composer: (() => { const r = document.querySelector('.composer').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight + 1; })(),
    rowHeight: rows.slice(1).reduce((s, r) => s + r.getBoundingClientRect().height, 0) / Math.max(1, rows.length - 1),
    shown: Math.max(0, Math.min(p.bottom, bottom) - Math.max(p.top, top)), height: p.height };
})()`;

async function room(page: Page): Promise<Room> {
  // The feed and the page settle after a resize (the feed follows its end on the next frame).
  await page.waitForTimeout(400);
  return (await page.evaluate(ROOM)) as Room;
}

/** Opens `psd` and the photo, identifies and previews from the toolbox, and opens the preview's pieces table. */
async function tableOpened(page: Page, psd: string) {
  await identifyFromToolbox(page, psd);
  // Pieces in doubt fold the toolbox; the form's ‹ goes on to the tools either way, and to the preview.
  await previewFromToolbox(page);
  const preview = lastCardOf(page, 'generate_garment_preview');
  // The preview alone leaves the toolbox open: nothing asks yet.
  await eventually(visibleOf(page.getByRole('button', { name: '运行' }))).toBe(true);
  await preview.getByRole('button', { name: '确认套图' }).click();
  await eventually(textOf(preview.getByRole('table', { name: '裁片' }))).toContain('前片');
  return preview;
}

/** The toolbox is a line under the table, saying why, with its form one click away and its ‹ kept. */
async function expectFolded(page: Page, view: string) {
  expect(await visibleOf(page.getByRole('button', { name: '运行' }))(), view).toBe(false);
  await expect(visibleOf(page.getByRole('button', { name: '展开工具箱' }))(), view).resolves.toBe(true);
  await expect(visibleOf(page.getByRole('button', { name: '返回工具列表' }))(), view).resolves.toBe(true);
  expect(await textOf(page.locator('.composer-note'))(), view).toContain('裁片表');
}

describe('the pieces table after a preview run from the toolbox', () => {
  it('gets the pane: every row and 开始套图 in view at once, the toolbox folded to a line', {
    timeout: 300_000,
  }, async () => {
    const id = await createSession(plain.url);
    const page = await plain.open(id, 1366, 768, 'zh');
    // The example T-shirt: four pieces, each a row.
    const preview = await tableOpened(page, path.join(EXAMPLES, 'pieces.psd'));
    for (const [width, height] of VIEWS) {
      await page.setViewportSize({ width, height });
      const seen = await room(page);
      await snapshot(page, `pieces-table-room-1-open-${width}`);
      const view = `${width}: ${JSON.stringify(seen)}`;
      expect(seen.rows, view).toBe(5);
      // The conversation has most of the window, not the strip beside the toolbox.
      expect(seen.feed / seen.window, view).toBeGreaterThan(0.7);
      // Every row and 开始套图 show at one scroll position.
      expect(seen.hiddenRows, view).toBe(0);
      expect(seen.button, view).toBe(true);
      await expectFolded(page, view);
    }

    // Unfolded on request, the form is back as it was, and stays so while the table is open.
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.getByRole('button', { name: '展开工具箱' }).click();
    await eventually(visibleOf(page.getByRole('button', { name: '运行' }))).toBe(true);
    expect(await textOf(page.locator('.tool-form h3'))()).toBe('生成花样预览');
    await snapshot(page, 'pieces-table-room-2-unfolded-1366');

    // Another preview (重新生成) is a new card, with its own 确认套图: its table folds the toolbox again; another
    // tool picked from the folded line unfolds it.
    await preview.getByRole('button', { name: '重新生成' }).click();
    const previews = feedOf(page)
      .locator('article.card')
      .filter({ has: page.locator('header code', { hasText: /^generate_garment_preview$/ }) });
    await eventually(countOf(previews)).toBe(2);
    const again = previews.last();
    await eventually(countOf(again.getByRole('button', { name: '确认套图' }))).toBe(1);
    await eventually(visibleOf(page.getByRole('button', { name: '运行' }))).toBe(true);
    await again.getByRole('button', { name: '确认套图' }).click();
    await eventually(visibleOf(page.getByRole('button', { name: '展开工具箱' }))).toBe(true);
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await eventually(visibleOf(page.getByRole('searchbox', { name: '搜索工具' }))).toBe(true);
    await eventually(visibleOf(page.getByRole('button', { name: '展开工具箱' }))).toBe(false);

    // Applied from the table: the table goes, verified, and the toolbox stays open.
    await again.getByRole('button', { name: '开始套图' }).click();
    await finished(lastCardOf(page, 'verify_pattern_result'));
    await eventually(countOf(again.getByRole('table'))).toBe(0);
    await eventually(visibleOf(page.getByRole('searchbox', { name: '搜索工具' }))).toBe(true);
  });

  it('on a phone, opens with the toolbox’s folded line in the window under the rows, not below the page’s fold', {
    timeout: 300_000,
  }, async () => {
    const id = await createSession(plain.url);
    const page = await plain.open(id, 390, 844, 'zh');
    await tableOpened(page, path.join(EXAMPLES, 'pieces.psd'));
    // As the table opened, before anything else scrolls the page.
    await page.waitForTimeout(600);
    const seen = (await page.evaluate(ROOM)) as Room;
    await snapshot(page, 'pieces-table-room-3-phone-opened');
    const view = JSON.stringify(seen);
    expect(seen.composer, view).toBe(true);
    expect(seen.hiddenRows, view).toBe(0);
    expect(seen.button, view).toBe(true);
    await expectFolded(page, view);
  });

  it('gives a jacket’s long table the pane too, its rows read down the feed to 开始套图', {
    timeout: 300_000,
  }, async () => {
    // 26 pieces, more rows than any window shows at once.
    const psd = await blazerPsd('atelier-table-blazer-');
    const id = await createSession(plain.url);
    const page = await plain.open(id, 1366, 768, 'zh');
    await tableOpened(page, psd);
    for (const [width, height] of VIEWS) {
      await page.setViewportSize({ width, height });
      const seen = await room(page);
      await snapshot(page, `pieces-table-room-4-jacket-${width}`);
      const view = `${width}: ${JSON.stringify(seen)}`;
      expect(seen.rows, view).toBeGreaterThan(20);
      expect(seen.feed / seen.window, view).toBeGreaterThan(0.7);
      // As many rows as the feed holds, and 开始套图 under the last. The part and turn pickers side by side, the
      // colour under the type: 66 px a row, 8–9 rows in view (86 px and 7 with the turn and the doubt stacked
      // under the part, up to 112 px a row in doubt).
      expect(seen.rowHeight, view).toBeLessThan(75);
      expect(seen.rows - seen.hiddenRows, view).toBeGreaterThanOrEqual(8);
      expect(seen.button, view).toBe(true);
      await expectFolded(page, view);
    }
  });
});
