/**
 * A layer row's room in the layers pane, in real Chromium: a locked layer with a blend mode keeps its badge on
 * one line (正片叠底, never broken over two) and its name readable — at least its first four characters — the badge
 * giving way first when the row is short of room.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-row-room');

/** How a row's title and its tags are laid out: the lines each takes, and how many characters of the title show. */
const layoutOf = (row: Locator) =>
  row.evaluate((e) => {
    type Box = { top: number; bottom: number; left: number; right: number; width: number };
    type El = {
      textContent: string;
      className: string;
      clientWidth: number;
      scrollWidth: number;
      clientHeight: number;
      scrollHeight: number;
      firstChild: unknown;
      querySelector(s: string): El | null;
      querySelectorAll(s: string): El[];
      appendChild(e: El): void;
      remove(): void;
      getBoundingClientRect(): Box;
    };
    const doc = (globalThis as unknown as { document: unknown }).document as {
      createRange(): {
        setStart(n: unknown, o: number): void;
        setEnd(n: unknown, o: number): void;
        selectNodeContents(n: unknown): void;
        getBoundingClientRect(): Box;
        getClientRects(): Box[];
      };
      createElement(t: string): El;
    };
    const row = e as unknown as El;
    /** The lines a text shows: its rectangles' distinct tops inside its box (a clamped line is not shown). */
    const lines = (el: El) => {
      const range = doc.createRange();
      range.selectNodeContents(el);
      const box = el.getBoundingClientRect();
      const shown = [...range.getClientRects()].filter((r) => r.top < box.bottom - 1);
      return new Set(shown.map((r) => Math.round(r.top))).size;
    };
    const title = row.querySelector('.layer-title')!;
    // The ellipsis in the title's own font, measured where it is drawn.
    const probe = doc.createElement('span');
    probe.textContent = '…';
    (title.querySelector('span') ?? title).appendChild(probe);
    const ellipsis = probe.getBoundingClientRect().width;
    probe.remove();
    // A character shows when it ends inside the box that holds it and the title, short of that box's ellipsis
    // (drawn over the characters that do not fit) when the box's text runs over.
    let shown = 0;
    const range = doc.createRange();
    const spans = [...title.querySelectorAll('span')];
    // Nor past the name's button: what runs over it is under the lock.
    const room = Math.min(
      title.getBoundingClientRect().right,
      row.querySelector('.layer-name')!.getBoundingClientRect().right,
    );
    outer: for (const part of spans.length ? spans : [title]) {
      const text = part.firstChild;
      const box = part.getBoundingClientRect();
      const cut = part.scrollWidth > part.clientWidth || part.scrollHeight > part.clientHeight;
      const end = Math.min(box.right, room) - (cut ? ellipsis : 0);
      for (let i = 0; i < part.textContent.length; i++) {
        range.setStart(text, i);
        range.setEnd(text, i + 1);
        const char = range.getBoundingClientRect();
        // Past the end of the line, or on a line clamped away.
        if (char.right > end + 0.5 || char.top >= box.bottom - 1) break outer;
        shown++;
      }
    }
    const name = row.querySelector('.layer-name')!.getBoundingClientRect();
    const lock = row.querySelector('.lock')!.getBoundingClientRect();
    const tags = [...row.querySelectorAll('.tag')];
    const tail = title.querySelector('.layer-title-tail');
    return {
      shown,
      /** Whether the name is cut, and the room its cut end has, in characters of the 14 px font: a character
       * and the ellipsis fit in two (with less, Chromium shows the character and no ellipsis). */
      titleCut: tail ? tail.scrollWidth > tail.clientWidth : false,
      tailRoom: tail ? tail.clientWidth / 14 : null,
      titleLines: lines(title),
      tags: tags.map((tag) => ({ text: tag.textContent, lines: lines(tag) })),
      /** Whether the blend mode's badge is cut (with its ellipsis). */
      blendCut: tags.some((t) => t.className.includes('blend') && t.scrollWidth > t.clientWidth),
      /** Whether everything in the name's button is drawn inside it, clear of the lock and of each other. */
      inside:
        [title, ...tags].every((el) => el.getBoundingClientRect().right <= name.right + 0.5) &&
        name.right <= lock.left + 0.5 &&
        [title, ...tags].every(
          (el, i, all) =>
            i === 0 || all[i - 1]!.getBoundingClientRect().right <= el.getBoundingClientRect().left,
        ),
    };
  });

describe('a layer row', () => {
  it('keeps a locked layer’s blend-mode badge on one line and at least four characters of its name', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 800, height: 600, name: '茶饮海报' }),
      // The report's row: a locked layer of six characters in 正片叠底.
      toolCall('create_layer', { name: '茶园春色远山' }),
      toolCall('set_layer_blend_mode', { name: '茶园春色远山', mode: 'multiply' }),
      toolCall('lock_layer', { name: '茶园春色远山', locked: true }),
      // As a designer's file has them too: in a group, with a mask and a stroke, each taking room in the row.
      toolCall('create_layer', { name: '远山云雾层' }),
      toolCall('select_rect', { left: 100, top: 100, right: 500, bottom: 400 }),
      toolCall('fill_selection', { color: '#3a7d44' }),
      toolCall('add_layer_mask', { name: '远山云雾层' }),
      toolCall('add_stroke', { name: '远山云雾层', size: 4, color: '#ffffff' }),
      toolCall('group_layers', { layer_names: ['远山云雾层'], group_name: '主视觉' }),
      toolCall('set_layer_blend_mode', { name: '远山云雾层', mode: 'multiply' }),
      toolCall('lock_layer', { name: '远山云雾层', locked: true }),
      // A short name with two badges.
      toolCall('create_layer', { name: '茶园' }),
      toolCall('set_layer_blend_mode', { name: '茶园', mode: 'multiply' }),
      toolCall('set_layer_opacity', { name: '茶园', opacity: 80 }),
      toolCall('lock_layer', { name: '茶园', locked: true }),
    ]);
    const rowOf = (page: Page, name: string | RegExp) =>
      page.locator('.layers .layer-row').filter({ has: page.locator('.layer-title', { hasText: name }) });
    for (const [width, height] of [
      [1440, 900],
      [1280, 720],
    ] as const) {
      const page = await studio.open(id, width, height);
      await eventually(() => page.locator('.layers .layer-row').count()).toBe(5);
      await eventually(() => rowOf(page, '远山云雾层').locator('.tag').count()).toBe(2);

      const reported = await layoutOf(rowOf(page, '茶园春色远山'));
      expect(reported.tags, `${width}`).toEqual([{ text: '正片叠底', lines: 1 }]);
      expect(reported.titleLines, `${width}`).toBe(1);
      expect(reported.shown, `${width}`).toBeGreaterThanOrEqual(4);
      expect(reported.inside, `${width}`).toBe(true);

      const grouped = await layoutOf(rowOf(page, '远山云雾层'));
      expect(
        grouped.tags.map((t) => t.lines),
        `${width}`,
      ).toEqual([1, 1]);
      expect(grouped.titleLines, `${width}`).toBe(1);
      expect(grouped.shown, `${width}`).toBeGreaterThanOrEqual(4);
      expect(grouped.inside, `${width}`).toBe(true);

      const short = await layoutOf(rowOf(page, /^茶园$/));
      expect(short.shown, `${width}`).toBe(2);
      expect(short.tags, `${width}`).toEqual([
        { text: '正片叠底', lines: 1 },
        { text: '80%', lines: 1 },
      ]);
      await snapshot(page, `layers-row-room-${width}`);
      await page.context().close();
    }
  });

  it('cuts the blend-mode badge with an ellipsis, still one line, when the name has given all it may', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 800, height: 600, name: '茶饮海报' }),
      toolCall('create_layer', { name: '茶园春色远山' }),
      toolCall('set_layer_blend_mode', { name: '茶园春色远山', mode: 'color_dodge' }),
      toolCall('set_layer_opacity', { name: '茶园春色远山', opacity: 55 }),
      toolCall('lock_layer', { name: '茶园春色远山', locked: true }),
    ]);
    const page = await studio.open(id, 1440, 900);
    const row = page.locator('.layers .layer-row').filter({ hasText: '茶园春色远山' });
    await eventually(() => row.locator('.tag').count()).toBe(2);
    // A row too short for the whole name and both badges.
    await row.evaluate((e) => {
      (e as unknown as { style: { width: string } }).style.width = '265px';
    });
    const layout = await layoutOf(row);
    expect(layout.tags.map((t) => t.lines)).toEqual([1, 1]);
    expect(layout.titleLines).toBe(1);
    expect(layout.shown).toBeGreaterThanOrEqual(4);
    expect(layout.blendCut).toBe(true);
    expect(layout.titleCut).toBe(true);
    expect(layout.tailRoom).toBeGreaterThanOrEqual(2);
    expect(layout.inside).toBe(true);
    expect(await row.locator('.tag.blend').getAttribute('title')).toBe('颜色减淡');
    await snapshot(page, 'layers-row-room-narrow');
  });
});
