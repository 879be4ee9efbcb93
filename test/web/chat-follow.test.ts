/**
 * The chat follows the conversation as a chat app does: it stays on the newest message while cards, their
 * images and the model's streamed answer make it grow, even when something grows in the moment between the
 * feed's own scroll to the end and that scroll's event; and a designer who scrolled up, even a little, is left
 * where they are.
 */
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, snapshot, textOf } from '../support/browser.js';
import { streamValve } from '../support/scripted-model.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('chat-follow', { model: true });

const feed = (page: Page) => page.getByRole('log', { name: '对话记录' });
const box = (page: Page) => page.getByRole('textbox', { name: '消息' });

/** The feed's scroll position and how far its end is below what is shown. */
const feedScroll = (page: Page) =>
  page.evaluate(`(() => {
    const el = document.querySelector('.feed');
    return { top: el.scrollTop, belowView: el.scrollHeight - el.scrollTop - el.clientHeight };
  })()`) as Promise<{ top: number; belowView: number }>;

async function send(page: Page, text: string) {
  await box(page).fill(text);
  await page.getByRole('button', { name: '发送' }).click();
}

/** A studio on a document, whose chat already runs past the bottom of its pane. */
async function longConversation() {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 1200, name: '竖版' })]);
  const page = await studio.open(id);
  for (let i = 1; i <= 3; i++) {
    studio.model.push({ text: `第${i}轮的回答。`.repeat(40) });
    await send(page, `第${i}个问题`);
    await eventually(textOf(feed(page))).toContain(`第${i}轮的回答。第${i}轮的回答。`);
    await eventually(countOf(feed(page).locator('.bubble.streaming'))).toBe(0);
  }
  expect((await feedScroll(page)).belowView).toBeLessThan(20);
  return page;
}

/**
 * What the designer reads at the top of the feed: which entry is there and where its top is. The browser's
 * scroll anchoring keeps it in place when something above it grows, changing the scroll position.
 */
const readingPlace = (page: Page) =>
  page.evaluate(`(() => {
    const el = document.querySelector('.feed');
    const view = el.getBoundingClientRect();
    const entries = [...el.children];
    const index = entries.findIndex((entry) => entry.getBoundingClientRect().bottom > view.top + 1);
    return { index, top: Math.round(entries[index].getBoundingClientRect().top - view.top) };
  })()`) as Promise<{ index: number; top: number }>;

/** Holds the result images' downloads, each until `release` lets the oldest held one go. */
async function holdImages(page: Page) {
  const held: Route[] = [];
  await page.route(
    (url) => /\/v1\/sessions\/[^/]+\/images\//.test(url.pathname),
    (route) => void held.push(route),
  );
  return async () => {
    await eventually(() => held.length).toBeGreaterThan(0);
    await held
      .shift()
      ?.continue()
      .catch(() => undefined);
  };
}

/** The height of the feed's last answer, in px. */
const answerHeight = (page: Page) =>
  page.evaluate(
    `[...document.querySelectorAll('.feed .bubble.assistant')].at(-1).getBoundingClientRect().height`,
  ) as Promise<number>;

/** How many of the canvas captures' images have come and been decoded. */
const capturesShown = (page: Page) =>
  page.evaluate(
    `[...document.querySelectorAll('.feed article figure > button > img')].filter((img) => img.complete && img.naturalWidth > 0).length`,
  );

describe('the conversation following the newest message', () => {
  it('keeps following when a card grows between the feed’s own scroll and its scroll event', async () => {
    const page = await longConversation();
    const release = await holdImages(page);
    // The moment the race needs, made certain: the model's answer appears below the capture's card, the feed
    // scrolls to it, and before that scroll's event comes (the next frame) the card grows by 140 px, as when
    // its image takes its height then.
    await page.evaluate(`(() => {
      const feed = document.querySelector('.feed');
      window.grown = null;
      new MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            const card = node.previousElementSibling;
            if (window.grown || !node.matches?.('.bubble.assistant') || card?.tagName !== 'ARTICLE') continue;
            card.style.paddingBottom = parseFloat(getComputedStyle(card).paddingBottom) + 140 + 'px';
            window.grown = { belowView: feed.scrollHeight - feed.scrollTop - feed.clientHeight };
          }
        }
      }).observe(feed, { childList: true });
    })()`);
    studio.model.push(
      { toolCalls: [{ id: 'c1', name: 'get_canvas_image', arguments: { max_size: 800 } }] },
      { text: '画布是竖版的，背景是白色，上面还没有别的图层。', chunkDelayMs: 150 },
    );
    await send(page, '画布现在什么样？');
    await eventually(textOf(feed(page))).toContain('上面还没有别的图层');
    await eventually(countOf(feed(page).locator('.bubble.streaming'))).toBe(0);
    // The card grew right after the feed had come to its end.
    const grown = (await page.evaluate('window.grown')) as { belowView: number };
    expect(Math.abs(grown.belowView - 140)).toBeLessThan(2);
    await eventually(async () => (await feedScroll(page)).belowView).toBeLessThan(20);

    // Then the capture comes, taller than the room kept for it: the answer below it stays in view.
    await release();
    await eventually(() => capturesShown(page)).toBe(1);
    await eventually(async () => (await feedScroll(page)).belowView).toBeLessThan(20);
    await snapshot(page, '74-chat-follows-growing-card');
  });

  it('leaves a designer who scrolled up a little where they are, and follows again once they are back down', async () => {
    const page = await longConversation();
    const release = await holdImages(page);
    const text = '慢慢地说画布，'.repeat(40);
    // Chunk 0 is the role, then the text's three pieces, then the finish.
    const stream = streamValve(2);
    studio.model.push(
      {
        toolCalls: [
          { id: 'c1', name: 'get_canvas_image', arguments: { max_size: 800 } },
          { id: 'c2', name: 'get_canvas_image', arguments: { max_size: 600 } },
        ],
      },
      { text, beforeChunk: stream.beforeChunk },
    );
    await send(page, '画布现在什么样？');
    const answer = feed(page).locator('.bubble.assistant.streaming');
    await eventually(textOf(answer)).toContain('慢慢地说画布');
    await eventually(async () => (await feedScroll(page)).belowView).toBeLessThan(20);

    // A short flick up on a trackpad, to read the line just above: less than a line of text. The answer goes on.
    await feed(page).hover();
    await page.mouse.wheel(0, -30);
    await eventually(async () => (await feedScroll(page)).belowView).toBeGreaterThanOrEqual(29);
    const place = await readingPlace(page);
    const before = (await textOf(answer)()).length;
    stream.until(3);
    await eventually(async () => (await textOf(answer)()).length).toBeGreaterThan(before);
    expect(await readingPlace(page)).toEqual(place);
    stream.until(4);
    await eventually(async () => (await textOf(answer)()).length).toBe(text.length);
    expect(await readingPlace(page)).toEqual(place);

    // The first capture comes into its card above the answer, and the answer ends: the feed is not brought
    // down to them (the browser's scroll anchoring may move it to keep what is read in place as the card grows),
    // and the answer keeps its height as its caret goes.
    const { belowView } = await feedScroll(page);
    const height = await answerHeight(page);
    await release();
    await eventually(() => capturesShown(page)).toBe(1);
    stream.until(5);
    await eventually(countOf(feed(page).locator('.bubble.streaming'))).toBe(0);
    expect(await answerHeight(page)).toBeCloseTo(height, 0);
    expect((await feedScroll(page)).belowView).toBeGreaterThanOrEqual(belowView - 1);
    await snapshot(page, '75-chat-left-where-scrolled');

    // Back down at the end, it follows again: the second capture comes, and the answer below it stays in view.
    // The designer scrolls until the end is in view: on a loaded machine one flick's smooth scroll has been
    // seen to stop 218 px short of it.
    await eventually(async () => {
      await page.mouse.wheel(0, 100_000);
      return (await feedScroll(page)).belowView;
    }).toBeLessThan(20);
    await release();
    await eventually(() => capturesShown(page)).toBe(2);
    await eventually(async () => (await feedScroll(page)).belowView).toBeLessThan(20);
  });
});
