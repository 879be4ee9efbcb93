/**
 * The chat as a designer uses it in a long session, against a scripted model: the conversation stays where
 * they scrolled up to read while the model answers (on a phone, the page stays on the canvas), the Enter that
 * picks a word in a Chinese input method does not send, and a message the server never got is not lost.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, finished, pasteImage, snapshot, textOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('chat-box', { model: true });

const feed = (page: Page) => page.getByRole('log', { name: '对话记录' });
const box = (page: Page) => page.getByRole('textbox', { name: '消息' });

/** The feed's scroll position and how far its end is below what is shown. */
const feedScroll = (page: Page) =>
  page.evaluate(`(() => {
    const el = document.querySelector('.feed');
    return { top: el.scrollTop, belowView: el.scrollHeight - el.scrollTop - el.clientHeight };
  })()`) as Promise<{ top: number; belowView: number }>;

/** The streamed answer's text so far. */
const streaming = (page: Page) => textOf(feed(page).locator('.bubble.assistant.streaming'));

async function send(page: Page, text: string) {
  await box(page).fill(text);
  await page.getByRole('button', { name: '发送' }).click();
}

/** A studio whose chat already runs past the bottom of its pane: a few turns with long answers. */
async function longConversation(page: Page) {
  for (let i = 1; i <= 3; i++) {
    studio.model.push({ text: `第${i}轮的回答。`.repeat(40) });
    await send(page, `第${i}个问题`);
    await eventually(textOf(feed(page))).toContain(`第${i}轮的回答。第${i}轮的回答。`);
    await eventually(countOf(feed(page).locator('.bubble.streaming'))).toBe(0);
  }
}

describe('the conversation while the model answers', () => {
  it('stays where the designer scrolled up to read, and their next message brings it back down', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    await longConversation(page);
    expect((await feedScroll(page)).belowView).toBeLessThan(20);

    // A slow answer: the first words come, the designer scrolls up to read the first answer again, more come.
    studio.model.push({ text: '慢慢地回答，'.repeat(60), chunkDelayMs: 1500 });
    await send(page, '再说一遍');
    await eventually(streaming(page)).toContain('慢慢地回答');
    const before = (await streaming(page)()).length;
    await page.getByRole('log', { name: '对话记录' }).hover();
    await eventually(async () => {
      await page.mouse.wheel(0, -4000);
      return (await feedScroll(page)).top;
    }).toBe(0);
    await eventually(async () => (await streaming(page)()).length).toBeGreaterThan(before);
    expect((await feedScroll(page)).top).toBe(0);
    await snapshot(page, '70-chat-scrolled-up');
    await eventually(countOf(feed(page).locator('.bubble.streaming'))).toBe(0);
    expect((await feedScroll(page)).top).toBe(0);

    // Their own next message is shown, and what follows it.
    studio.model.push({ text: '好的。' });
    await send(page, '谢谢');
    await eventually(textOf(feed(page))).toContain('好的。');
    await eventually(async () => (await feedScroll(page)).belowView).toBeLessThan(20);
  });

  it('shows the answer that follows a tall canvas capture once its image has come', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 1200, name: '竖版' })]);
    const page = await studio.open(id);
    // The capture comes a moment after its card, as a big one does.
    await page.route(
      (url) => /\/v1\/sessions\/[^/]+\/images\//.test(url.pathname),
      async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await route.continue().catch(() => undefined);
      },
    );
    studio.model.push(
      {
        text: '我看一下画布。',
        toolCalls: [{ id: 'c1', name: 'get_canvas_image', arguments: { max_size: 800 } }],
      },
      { text: '画布是竖版的，背景是白色。' },
    );
    await send(page, '画布现在什么样？');
    await eventually(textOf(feed(page))).toContain('画布是竖版的');
    const capture = feed(page).getByRole('article', { name: '查看画布' }).locator('figure img').first();
    await eventually(() =>
      capture.evaluate((img: { naturalWidth: number }) => img.naturalWidth),
    ).toBeGreaterThan(0);
    await eventually(async () => (await feedScroll(page)).belowView).toBeLessThan(20);
    await snapshot(page, '73-chat-answer-after-capture');
  });

  it('leaves a phone’s page on the canvas while the answer comes in below it', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 800, height: 600, name: '手机海报' }),
    ]);
    const page = await studio.open(id, 390, 844);
    await eventually(countOf(page.locator('.artboard img'))).toBe(1);
    studio.model.push({ text: '正在看画布，'.repeat(40), chunkDelayMs: 1000 });
    await send(page, '看看画布');
    await eventually(streaming(page)).toContain('正在看画布');
    // The designer goes back up to the canvas (the panes are stacked, canvas first) while the answer streams.
    const workspace = () => page.evaluate(`document.querySelector('.workspace').scrollTop`);
    await page.evaluate(`document.querySelector('.workspace').scrollTop = 0`);
    const before = (await streaming(page)()).length;
    await eventually(async () => (await streaming(page)()).length).toBeGreaterThan(before);
    expect(await workspace()).toBe(0);
    await eventually(countOf(feed(page).locator('.bubble.streaming'))).toBe(0);
    expect(await workspace()).toBe(0);
    await snapshot(page, '71-phone-canvas-while-answering');
  });
});

describe('typing a message', () => {
  it('does not send on the Enter that picks a word in a Chinese input method, in Chromium and in Safari', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    const asked = studio.model.requests.length;
    await box(page).click();
    // Chromium: the Enter comes while the composition is still open (isComposing).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Input.imeSetComposition', { text: 'hong', selectionStart: 4, selectionEnd: 4 });
    await page.keyboard.press('Enter');
    await cdp.send('Input.insertText', { text: '红色' });
    // Safari: the composition ends first, then the Enter's keydown comes with keyCode 229 and no isComposing.
    await page.evaluate(`(() => {
      const box = document.querySelector('.message-box textarea');
      box.dispatchEvent(new CompositionEvent('compositionstart', { bubbles: true }));
      box.dispatchEvent(new CompositionEvent('compositionend', { bubbles: true, data: '标题' }));
      box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', keyCode: 229, bubbles: true, cancelable: true }));
    })()`);
    await page.waitForTimeout(300);
    expect(await countOf(feed(page).locator('.bubble.user'))()).toBe(0);
    expect(studio.model.requests.length).toBe(asked);
    expect(await box(page).inputValue()).toContain('红色');

    // A plain Enter sends.
    studio.model.push({ text: '改好了。' });
    await box(page).fill('把标题改成红色');
    await box(page).press('Enter');
    await eventually(textOf(feed(page))).toContain('改好了。');
    expect(await textOf(feed(page).locator('.bubble.user'))()).toBe('把标题改成红色');
  });

  it('keeps a message the server never got in the box, and says so in Chinese', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    const asked = studio.model.requests.length;
    const refuse = /\/v1\/sessions\/[^/]+\/chat$/;
    await page.route(refuse, (route) => route.abort('connectionrefused'));
    await send(page, '把背景换成浅蓝色，标题加粗');
    await eventually(textOf(feed(page).getByRole('alert'))).toContain('连不上 Atelier 服务');
    expect(await textOf(feed(page))()).not.toContain('Failed to fetch');
    await eventually(() => box(page).inputValue()).toBe('把背景换成浅蓝色，标题加粗');
    expect(studio.model.requests.length).toBe(asked);
    await snapshot(page, '72-chat-unreachable');

    // The service is back: the same message goes with one click.
    await page.unroute(refuse);
    studio.model.push({ text: '已换成浅蓝色。' });
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(feed(page))).toContain('已换成浅蓝色。');
    expect(await box(page).inputValue()).toBe('');
  });

  it('gives a message the model service failed to answer back to the box, and sent again it is said once', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    // Refused without retries (an hour's wait asked for), before the model said anything.
    studio.model.push({ status: 429, headers: { 'retry-after': '3600' } });
    await send(page, '把标题改成红色');
    await eventually(textOf(feed(page).locator('.notice'))).toContain('3600 秒');
    await eventually(() => box(page).inputValue()).toBe('把标题改成红色');
    await snapshot(page, '73-chat-model-failed');

    studio.model.push({ text: '标题已改成红色。' });
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(feed(page))).toContain('标题已改成红色。');
    expect(await box(page).inputValue()).toBe('');
    const said = studio.model.requests.at(-1)!.body.messages.filter((m) => m.role === 'user');
    expect(said).toHaveLength(1);
    expect(String(said[0]!.content).split('把标题改成红色').length).toBe(2);
  });

  it('says in Chinese that the connection dropped in the middle of a turn, on the card cut off too', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    // The turn's stream brings the message and a call, then the connection drops (the service stopped).
    await page.evaluate(`(() => {
      const fetch = window.fetch;
      window.fetch = (url, init) => {
        if (!String(url).endsWith('/chat') || init?.method !== 'POST') return fetch(url, init);
        const events = [
          { type: 'user', text: '把图层模糊一点' },
          { type: 'tool_call', id: 'm1', name: 'gaussian_blur', label: '高斯模糊', arguments: { radius: 4 } },
        ];
        const body = new ReadableStream({
          start(controller) {
            for (const event of events) controller.enqueue(new TextEncoder().encode('data: ' + JSON.stringify(event) + '\\n\\n'));
            setTimeout(() => controller.error(new TypeError('network error')), 200);
          },
        });
        return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
      };
    })()`);
    await send(page, '把图层模糊一点');
    const card = feed(page).getByRole('article', { name: '高斯模糊' });
    await eventually(textOf(card)).toContain('连不上 Atelier 服务');
    await eventually(textOf(feed(page).locator('.notice'))).toContain('连不上 Atelier 服务');
    expect(await textOf(feed(page))()).not.toContain('network error');
    // The message had reached the service: it is in the conversation, not back in the box.
    expect(await box(page).inputValue()).toBe('');
  });

  it('keeps a message refused while another tab’s reply runs, and says why in Chinese', async () => {
    const id = await createSession(studio.url);
    const first = await studio.open(id);
    const second = await studio.open(id);
    // A tab told of the reply shows it running, and has no 发送 (tabs-away.test.ts); this one is not told, as
    // a tab whose message crosses the reply's start.
    await second.route(/\/events\?/, (route) => route.abort());
    await second.reload();
    studio.model.push({ text: '慢慢回答，'.repeat(20), chunkDelayMs: 800 });
    await send(first, '第一个标签页的问题');
    await eventually(streaming(first)).toContain('慢慢回答');
    await send(second, '第二个标签页的问题');
    await eventually(textOf(feed(second).getByRole('alert'))).toContain('还有一轮回复在进行');
    // Put back once the refused turn is over, which may be just after its notice shows.
    await eventually(() => box(second).inputValue()).toBe('第二个标签页的问题');
    await eventually(countOf(feed(first).locator('.bubble.streaming'))).toBe(0);
  });
});

/** A card whose result is a long layer list, as get_layer_structure gives for a designer's 60-layer PSD (12 KB). */
const layerListCard = (i: number) => ({
  kind: 'call',
  key: `call-${i}`,
  id: `c${i}`,
  name: 'get_layer_structure',
  label: '查看图层结构',
  args: {},
  status: 'ok',
  result: {
    layers: Array.from({ length: 60 }, (_, k) => ({
      id: k + 1,
      name: `裁片 ${k + 1} 前片左侧拷贝`,
      type: 'pixel',
      visible: true,
      opacity: 100,
      blend_mode: 'normal',
      bounds: {
        left: k * 10,
        top: k * 12,
        width: 400,
        height: 600,
        right: 400 + k * 10,
        bottom: 600 + k * 12,
      },
    })),
  },
  images: [],
});

describe('a long conversation across reloads', () => {
  it('keeps its newest cards when all of them are more than the tab can store', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    await eventually(textOf(page.getByRole('banner'))).toContain('scripted-model');
    // The two messages are the session's conversation (a tab brings what it shows in line with it).
    for (const [i, message] of ['第一个问题', '最后一个问题'].entries()) {
      studio.model.push({ text: '好的。' });
      await send(page, message);
      await eventually(countOf(feed(page).locator('.bubble.assistant:not(.streaming)'))).toBe(i + 1);
    }
    // What the tab showed after a long session: 200 entries, 2.4 MB of them, the first and last a message.
    const shown = [
      { kind: 'user', key: 'user-1', text: '第一个问题' },
      ...Array.from({ length: 198 }, (_, i) => layerListCard(i)),
      { kind: 'user', key: 'user-2', text: '最后一个问题' },
    ];
    expect(JSON.stringify(shown).length).toBeGreaterThan(2_000_000);
    // Put in the tab's storage as the next page load starts (leaving the page saves what it shows, nothing yet).
    await page.context().addInitScript(
      ([key, text]) => {
        const storage = (
          globalThis as unknown as {
            sessionStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void };
          }
        ).sessionStorage;
        if (storage.getItem('seeded')) return;
        storage.setItem('seeded', '1');
        storage.setItem(key, text);
      },
      [`atelier.feed.${id}`, JSON.stringify(shown)] as const,
    );
    await page.reload();
    await eventually(textOf(feed(page))).toContain('最后一个问题');
    // It is kept again as it is shown, and the next reload brings back the newest part of it.
    await page.waitForTimeout(500);
    await page.reload();
    await eventually(textOf(feed(page))).toContain('最后一个问题');
    expect(await countOf(feed(page).getByRole('article', { name: '查看图层结构' }))()).toBeGreaterThan(100);
    expect(await textOf(feed(page))()).not.toContain('第一个问题');
  });
});

describe('an image pasted in the message box', () => {
  const paste = (page: Page) => pasteImage(page, 'textarea');

  it('goes on the canvas as a new layer of the open document, and twice as two', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 200, height: 100, name: '海报' })]);
    const page = await studio.open(id);
    await box(page).click();
    expect(await paste(page)).toBe(true);
    const feed = page.getByRole('log').first();
    await eventually(countOf(feed.getByRole('article', { name: '置入图像' }))).toBe(1);
    await finished(feed.getByRole('article', { name: '置入图像' }).last());
    expect(await paste(page)).toBe(true);
    await eventually(countOf(feed.getByRole('article', { name: '置入图像' }))).toBe(2);
    await finished(feed.getByRole('article', { name: '置入图像' }).last());
    // Two layers of their own (the second paste did not take the first one's file), and nothing was sent.
    const snapshot = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
      active: { layers: { name: string }[] };
    };
    const pasted = snapshot.active.layers.filter((l) => l.name.startsWith('粘贴-'));
    expect(pasted.length).toBe(2);
    expect(new Set(pasted.map((l) => l.name)).size).toBe(2);
    expect(await box(page).inputValue()).toBe('');
  });

  it('opens as a document of its own when none is open', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    await box(page).click();
    expect(await paste(page)).toBe(true);
    const feed = page.getByRole('log').first();
    await finished(feed.getByRole('article', { name: '打开文档' }).last());
    await eventually(countOf(page.getByRole('tab', { name: /粘贴-/ }))).toBe(1);
  });
});
