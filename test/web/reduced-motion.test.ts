/**
 * A system set to reduce motion holds the studio's running marks still: while the model's answer streams in, the
 * caret blinks by default and moves not at all under `prefers-reduced-motion: reduce` (nothing on the page, nor
 * its ::before and ::after, animates or transitions), and the answer still arrives whole.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession } from '../server/support.js';
import { countOf, eventually, feedOf, snapshot, textOf } from '../support/browser.js';
import { streamValve } from '../support/scripted-model.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('reduced-motion', { model: true });

/** Every animation and transition the page's elements and their pseudo-elements run, as `selector: name`. */
const moving = (page: Page) =>
  page.evaluate(`(() => {
    const found = [];
    for (const e of document.querySelectorAll('*')) {
      for (const pseudo of [null, '::before', '::after']) {
        const s = getComputedStyle(e, pseudo);
        const what = e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className ? '.' + e.className.split(' ').join('.') : '') + (pseudo ?? '');
        if (s.animationName !== 'none') found.push(what + ': ' + s.animationName);
        if (s.transitionDuration.split(',').some((d) => parseFloat(d) > 0)) found.push(what + ': transition');
      }
    }
    return found;
  })()`) as Promise<string[]>;

describe('the studio on a system that asks for less motion', () => {
  it('holds the streaming caret still, and the answer still arrives', async () => {
    const id = await createSession(studio.url);
    const stream = streamValve(3);
    studio.model.push({
      text: '好的，这就开始。我先看看文档里有哪些图层。',
      beforeChunk: stream.beforeChunk,
    });
    const page = await studio.open(id);
    await page.getByRole('textbox', { name: '消息' }).fill('你好');
    await page.getByRole('button', { name: '发送' }).click();
    const streaming = feedOf(page).locator('.bubble.streaming');
    await eventually(countOf(streaming)).toBe(1);
    // By default the caret blinks and buttons fade on hover.
    const usual = await moving(page);
    expect(usual.some((m) => m.endsWith('::after: blink'))).toBe(true);
    expect(usual.some((m) => m.endsWith(': transition'))).toBe(true);

    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(await moving(page)).toEqual([]);
    await eventually(countOf(streaming)).toBe(1);
    await snapshot(page, 'reduced-motion-streaming');

    stream.until(Number.POSITIVE_INFINITY);
    await eventually(textOf(feedOf(page))).toContain('我先看看文档里有哪些图层。');
    await eventually(countOf(streaming)).toBe(0);
  });
});
