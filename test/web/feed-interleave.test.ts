/**
 * A chat turn kept in one piece while cards come from elsewhere, in real Chromium: as the model's answer streams
 * in one tab, an MCP client (the official SDK) calls a tool on the same session and another tab's toolbox runs
 * one. The answer stays one bubble, the turn's own call and text keep their order, and the cards from elsewhere
 * come below the turn — in the tab that sent the message, in another that watches it, and after a reload.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findTool } from '../../src/registry/index.js';
import { callTool } from '../mcp/support.js';
import { toolCall } from '../server/support.js';
import { countOf, eventually, feedEntries, finished, snapshot, textOf } from '../support/browser.js';
import { streamValve } from '../support/scripted-model.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('feed-interleave', { model: true });

const feedOf = (page: Page) => page.getByRole('log', { name: '对话记录' });
const labelOf = (name: string) => findTool(name)!.label;

/** The studio on session `id`, once its event stream listens (what others do reaches it only then). */
async function openListening(id: string, hidden = false): Promise<Page> {
  const page = await studio.open(id);
  await studio.reloadListening(page);
  if (hidden) {
    // Its panes' own catching up is off: only the pushed events bring the turn.
    await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: object }).document;
      Object.defineProperty(doc, 'visibilityState', { get: () => 'hidden', configurable: true });
    });
  }
  return page;
}

/**
 * The feed's entries top to bottom from the message on: a message's first words, a card's label (and its MCP
 * tag). What came before (the MCP client's first call, as the server may tell a tab joining) is not looked at.
 */
const entries = async (page: Page) => {
  const all = await feedEntries(page);
  return all.slice(all.findIndex((entry) => entry.startsWith('user:')));
};
describe('a streamed answer while cards come from elsewhere', () => {
  it('stays one bubble above an MCP client’s card and another tab’s run, in both tabs and after a reload', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${studio.url}/mcp`));
    const client = new Client({ name: 'atelier-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const id = transport.sessionId!;
      expect(
        (await callTool(client, 'create_document', { width: 300, height: 200, name: '海报' })).isError,
      ).toBe(false);
      const a = await openListening(id);
      const b = await openListening(id, true);

      // The answer's text comes in three pieces (chunks 1–3), then the model's own call; the second chunk waits.
      const first = '我先看看图层，';
      const text = `${first}再给你一些建议。背景是白色的，可以加一层暖色。`;
      const after = '图层只有背景：先加一层暖色吧。';
      const stream = streamValve(2);
      studio.model.push(
        {
          text,
          toolCalls: [{ id: 'c1', name: 'list_all_layer_names', arguments: {} }],
          beforeChunk: stream.beforeChunk,
        },
        { text: after },
      );
      await a.getByRole('textbox', { name: '消息' }).fill('看看这张图');
      await a.getByRole('button', { name: '发送' }).click();
      for (const page of [a, b]) {
        await eventually(textOf(feedOf(page).locator('.bubble.assistant.streaming'))).toContain(
          first.slice(0, 3),
        );
      }

      // An MCP client's call while the answer streams: its card comes at once, below the answer.
      expect((await callTool(client, 'create_layer', { name: '色块' })).isError).toBe(false);
      const mcpCard = (page: Page) => feedOf(page).getByRole('article', { name: labelOf('create_layer') });
      for (const page of [a, b]) await finished(mcpCard(page));
      stream.until(3);
      await eventually(textOf(feedOf(a).locator('.bubble.assistant.streaming'))).toContain('再给你');

      // Another tab's toolbox run, streamed as the studio sends it (its id says so).
      const run = await fetch(`${studio.url}/v1/sessions/${id}/tool-calls?stream=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-atelier-tab': 'other-tab' },
        body: JSON.stringify({ tool_calls: [toolCall('get_document_info', {}, 'web_other_1')] }),
      });
      await run.text();
      const runCard = (page: Page) =>
        feedOf(page).getByRole('article', { name: labelOf('get_document_info') });
      for (const page of [a, b]) await finished(runCard(page));
      await snapshot(a, 'feed-interleave-streaming');

      stream.until(1_000);
      for (const page of [a, b]) {
        await eventually(textOf(feedOf(page))).toContain(after);
        await eventually(countOf(feedOf(page).locator('.bubble.streaming'))).toBe(0);
      }
      const expected = [
        'user:看看这张图',
        `assistant:${text.slice(0, 6)}`,
        `card:${labelOf('list_all_layer_names')}`,
        `assistant:${after.slice(0, 6)}`,
        `card:${labelOf('create_layer')} MCP`,
        `card:${labelOf('get_document_info')}`,
      ];
      // One bubble for the streamed answer, whole.
      expect(await feedOf(a).locator('.bubble.assistant').first().textContent()).toBe(text);
      expect(await entries(a)).toEqual(expected);
      expect(await entries(b)).toEqual(expected);
      // The feed followed its end throughout.
      const below = await a.evaluate(
        `(() => { const el = document.querySelector('.feed'); return el.scrollHeight - el.scrollTop - el.clientHeight; })()`,
      );
      expect(below).toBeLessThan(20);
      await snapshot(a, 'feed-interleave-done');

      // A reload shows the same order (the feed kept in the tab, brought in line with the conversation).
      const listening = a.waitForResponse((r) => r.url().includes(`/v1/sessions/${id}/events`));
      await a.reload();
      await listening;
      await eventually(() => entries(a)).toEqual(expected);
      await snapshot(a, 'feed-interleave-reloaded');
    } finally {
      await client.close();
    }
  });
});
