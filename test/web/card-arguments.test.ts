/**
 * A card's arguments as the model sent them: a call without parameters reads the same on its card whether the
 * model wrote its arguments as `{}`, as an empty string or as the JSON text `null` (as some models do), live and
 * after a reload that restores the conversation from its transcript.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, textOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('card-arguments', { model: true });

const feed = (page: Page) => page.getByRole('log', { name: '对话记录' });

async function send(page: Page, text: string) {
  await page.getByRole('textbox', { name: '消息' }).fill(text);
  await page.getByRole('button', { name: '发送' }).click();
}

/** Each card's full text (arguments, state and result), and how many argument sections it has. */
async function cards(page: Page): Promise<{ text: string; args: number }[]> {
  const found = feed(page).getByRole('article', { name: '查看文档信息' });
  const out: { text: string; args: number }[] = [];
  for (let i = 0; i < (await found.count()); i++) {
    const card = found.nth(i);
    out.push({ text: await textOf(card)(), args: await countOf(card.locator('.card-args'))() });
  }
  return out;
}

describe('a call without parameters on its card', () => {
  it('reads the same with arguments "null", "" and {}: no arguments, no null, live and after a reload', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '空参数' })]);
    studio.model.push(
      {
        toolCalls: [
          { id: 'c_null', name: 'get_document_info', arguments: 'null' },
          { id: 'c_empty', name: 'get_document_info', arguments: '' },
          { id: 'c_object', name: 'get_document_info', arguments: {} },
        ],
      },
      { text: '文档信息都查好了。' },
    );
    const page = await studio.open(id);
    await send(page, '看看文档信息');
    await eventually(textOf(feed(page))).toContain('文档信息都查好了。');
    await eventually(countOf(feed(page).getByRole('article', { name: '查看文档信息' }))).toBe(3);
    await eventually(async () => (await cards(page)).every((c) => c.text.includes('完成'))).toBe(true);

    const check = async () => {
      const [fromNull, fromEmpty, fromObject] = await cards(page);
      expect(fromNull).toEqual(fromObject);
      expect(fromEmpty).toEqual(fromObject);
      expect(fromObject!.args).toBe(0);
    };
    await check();
    // The events every surface builds its cards from (the CLI's too) carry {} for each of them.
    const conversation = (await (await fetch(`${studio.url}/v1/sessions/${id}/chat`)).json()) as {
      events: { type: string; arguments?: unknown }[];
    };
    const opened = conversation.events.filter((e) => e.type === 'tool_call');
    expect(opened.map((e) => e.arguments)).toEqual([{}, {}, {}]);

    // Read back from the transcript: the conversation the reload restores shows the same cards.
    await page.evaluate(`localStorage.clear(); sessionStorage.removeItem('atelier.feed.${id}')`);
    await page.reload();
    await eventually(countOf(feed(page).getByRole('article', { name: '查看文档信息' }))).toBe(3);
    await check();
  });
});

describe('a call the model sent without a name', () => {
  it('gets a card that says so, failed with the refusal the model was sent', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 40, height: 30 })]);
    const page = await studio.open(id);
    studio.model.push({ toolCalls: [{ id: 'n1', name: '', arguments: {} }] }, { text: '好的。' });
    await send(page, '随便');
    const card = feed(page).getByRole('article', { name: '未命名的工具调用' });
    await eventually(countOf(card)).toBe(1);
    await eventually(() => card.getAttribute('class')).toContain('error');
  });
});
