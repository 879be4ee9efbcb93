/**
 * A long answer streamed a token or two at a time, as models stream, in real Chromium: the bubble is not laid
 * out again for every piece (a long Chinese paragraph, one line-breaking run, froze the page for half a minute),
 * yet every character arrives, in order, with the turn's own card between the two answers.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, feedEntries, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('chat-stream', { model: true });

const feed = (page: Page) => page.getByRole('log', { name: '对话记录' });

/** Counts the renders that change an answer's text: one mutation callback per render that touches a bubble. */
const countTextRenders = (page: Page) =>
  page.evaluate(`(() => {
    window.__textRenders = 0;
    new MutationObserver((records) => {
      if (records.some((r) => (r.target.nodeType === 3 ? r.target.parentElement : r.target)?.closest('.bubble:not(.user)')))
        window.__textRenders++;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
const textRenders = (page: Page) => page.evaluate('window.__textRenders') as Promise<number>;

describe('a long streamed answer', () => {
  it('is shown in a few renders, not one per piece, whole and in order around its card', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 300, height: 200, name: '海报' })]);
    const page = await studio.open(id);
    // 600 characters, one paragraph without a break, four characters a piece: 150 pieces, 15 ms apart (far enough
    // apart that the network does not merge them, so shown as they came each would be a render of its own).
    const first = '先看看图层有哪些，再决定颜色怎么改。'.repeat(34).slice(0, 600);
    const second = '只有背景一层，建议加一层暖色渐变。'.repeat(20).slice(0, 300);
    studio.model.push(
      {
        text: first,
        textChunkChars: 4,
        chunkDelayMs: 15,
        toolCalls: [{ id: 'c1', name: 'list_all_layer_names', arguments: {} }],
      },
      { text: second, textChunkChars: 4, chunkDelayMs: 15 },
    );
    await countTextRenders(page);
    await page.getByRole('textbox', { name: '消息' }).fill('看看图层');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(countOf(feed(page).locator('.bubble.streaming'))).toBe(0);
    await eventually(countOf(page.getByRole('button', { name: '发送' }))).toBe(1);

    const answers = await feed(page).locator('.bubble:not(.user)').allTextContents();
    expect(answers).toEqual([first, second]);
    const entries = await feedEntries(page);
    expect(entries.slice(entries.findIndex((e) => e.startsWith('user:')))).toEqual([
      'user:看看图层',
      `assistant:${first.slice(0, 6)}`,
      'card:列出所有图层',
      `assistant:${second.slice(0, 6)}`,
    ]);
    // 225 pieces over about 3.4 s: gathered every 60 ms, about 60 renders.
    const renders = await textRenders(page);
    expect(renders).toBeGreaterThan(1);
    expect(renders).toBeLessThan(120);
    await snapshot(page, 'chat-stream');
  });

  it('numbers a long list with room for its widest number', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    const items = Array.from({ length: 120 }, (_, i) => `${i + 1}. 第${i + 1}条建议：标题改成红色。`);
    studio.model.push({ text: items.join('\n') });
    await page.getByRole('textbox', { name: '消息' }).fill('给我建议');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(countOf(feed(page).locator('.bubble ol > li'))).toBe(120);
    // The list's left padding holds "120." as the list's font draws it, with a little gap before the text.
    const room = (await page.evaluate(`(() => {
      const ol = document.querySelector('.bubble ol');
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = getComputedStyle(ol.lastElementChild).font;
      return { pad: parseFloat(getComputedStyle(ol).paddingLeft), widest: ctx.measureText('120.').width };
    })()`)) as { pad: number; widest: number };
    expect(room.pad).toBeGreaterThan(room.widest + 4);
  });
});
