/**
 * The feed of a tab watching a session where another tab chats and an MCP client (the official SDK) works, in
 * real Chromium. A notice of the watching tab's own (an upload refused) while the other tab's answer streams
 * does not end that turn: the answer goes on in its one bubble, the notice below it with the MCP client's
 * cards. A tab that was away past its listening catches up with a turn and the MCP calls it missed below what it
 * saw, not above it, and each call where it came among those turns: one made before the turn above it, one made
 * after below it (state/mcp-calls.ts, by when the server says each started).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findTool } from '../../src/registry/index.js';
import { HIDDEN_LISTEN_MS } from '../../src/web/state/converge.js';
import { callTool } from '../mcp/support.js';
import {
  countOf,
  eventually,
  feedEntries,
  feedOf,
  hideable,
  setHidden,
  snapshot,
  textOf,
} from '../support/browser.js';
import { streamValve } from '../support/scripted-model.js';
import { tempDir } from '../support/session.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('feed-order', { model: true });

const labelOf = (name: string) => findTool(name)!.label;

async function mcpClient() {
  const transport = new StreamableHTTPClientTransport(new URL(`${studio.url}/mcp`));
  const client = new Client({ name: 'atelier-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, id: transport.sessionId! };
}

/**
 * The studio on session `id` once it listens, its clock the test moves and its visibility the test sets
 * (`setHidden`): the panes' own catching up is off while it reads as hidden.
 */
async function openWatching(id: string): Promise<Page> {
  const page = await studio.open(id);
  await page.clock.install();
  await hideable(page.context());
  await studio.reloadListening(page);
  return page;
}

/** A message sent from another tab (its own header), answered to its end. */
const chatElsewhere = (id: string, message: string) =>
  fetch(`${studio.url}/v1/sessions/${id}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-atelier-tab': 'other-tab' },
    body: JSON.stringify({ message }),
  }).then((r) => r.text());

describe('a tab watching another tab’s turn and an MCP client', () => {
  it('keeps the streamed answer one bubble when its own upload is refused meanwhile', async () => {
    const { client, id } = await mcpClient();
    try {
      expect(
        (await callTool(client, 'create_document', { width: 300, height: 200, name: '海报' })).isError,
      ).toBe(false);
      const page = await openWatching(id);
      const text = '我先看看图层，再给你一些建议。背景是白色的，可以加一层暖色。';
      const stream = streamValve(2);
      studio.model.push({ text, beforeChunk: stream.beforeChunk });
      const answered = chatElsewhere(id, '看看这张图');
      await eventually(textOf(feedOf(page).locator('.bubble.assistant.streaming'))).toContain('我先看');

      // The designer uploads a file that is not an image while the answer streams: refused, said in the feed.
      const notes = path.join(tempDir('atelier-feed-order-'), '说明.psd');
      writeFileSync(notes, '这不是图像文件');
      await page.getByRole('tab', { name: '文件' }).click();
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser'),
        page.getByRole('button', { name: '上传文档' }).click(),
      ]);
      await chooser.setFiles(notes);
      await eventually(textOf(feedOf(page).getByRole('alert'))).toContain(
        '“说明.psd”不是 PSD、PNG、JPEG、WebP、AVIF 或 TIFF 文件',
      );
      // And the MCP client's call fails meanwhile.
      expect((await callTool(client, 'set_layer_opacity', { name: '没有', opacity: 10 })).isError).toBe(true);
      await eventually(countOf(feedOf(page).locator('article.card.error'))).toBe(1);
      // The turn still runs: its answer still streams in its bubble.
      expect(await countOf(feedOf(page).locator('.bubble.assistant.streaming'))()).toBe(1);
      await snapshot(page, 'feed-order-notice-streaming');

      stream.until(1_000);
      await answered;
      await eventually(countOf(feedOf(page).locator('.bubble.streaming'))).toBe(0);
      await eventually(() => feedEntries(page)).toEqual([
        `card:${labelOf('create_document')} MCP`,
        'user:看看这张图',
        `assistant:${text.slice(0, 6)}`,
        'notice',
        `card:${labelOf('set_layer_opacity')} MCP`,
      ]);
      expect(await feedOf(page).locator('.bubble.assistant').textContent()).toBe(text);
      await snapshot(page, 'feed-order-notice-done');
    } finally {
      await client.close();
    }
  });

  it('catches up with a turn and the MCP calls it missed below what it saw, each where it came', async () => {
    const { client, id } = await mcpClient();
    try {
      expect(
        (await callTool(client, 'create_document', { width: 300, height: 200, name: '海报' })).isError,
      ).toBe(false);
      const page = await openWatching(id);
      await eventually(countOf(feedOf(page).getByRole('article'))).toBe(1);
      studio.model.push({ text: '第一轮的回答。' });
      await chatElsewhere(id, '第一轮');
      await eventually(textOf(feedOf(page))).toContain('第一轮的回答。');

      // In the background past the time it goes on listening: its stream closes, the others go on.
      await setHidden(page, true);
      await page.clock.fastForward(HIDDEN_LISTEN_MS + 1_000);
      // An MCP call, then a turn of another tab, then another call.
      expect((await callTool(client, 'create_layer', { name: '色块' })).isError).toBe(false);
      studio.model.push({ text: '第二轮的回答。' });
      await chatElsewhere(id, '第二轮');
      expect((await callTool(client, 'set_layer_opacity', { name: '色块', opacity: 50 })).isError).toBe(
        false,
      );
      await page.waitForTimeout(500);
      expect(await textOf(feedOf(page))()).not.toContain('第二轮');

      // Looked at again: the turn and the calls it missed come below what it saw, in the order they came.
      const back = page.waitForResponse((r) => r.url().includes(`/v1/sessions/${id}/events`));
      await setHidden(page, false);
      await back;
      const expected = [
        `card:${labelOf('create_document')} MCP`,
        'user:第一轮',
        'assistant:第一轮的回答',
        `card:${labelOf('create_layer')} MCP`,
        'user:第二轮',
        'assistant:第二轮的回答',
        `card:${labelOf('set_layer_opacity')} MCP`,
      ];
      await eventually(() => feedEntries(page)).toEqual(expected);
      await snapshot(page, 'feed-order-caught-up');
      // A reload shows the same.
      const listening = page.waitForResponse((r) => r.url().includes(`/v1/sessions/${id}/events`));
      await page.reload();
      await listening;
      await eventually(() => feedEntries(page)).toEqual(expected);
    } finally {
      await client.close();
    }
  });
});
