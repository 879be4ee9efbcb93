/**
 * The toolbox's search in real Chromium: what was found is listed best first, in one list (the groups' order
 * would scatter it) — the tool called exactly what was typed, then labels starting with it, then labels holding
 * it, then tools found by their other-language label or API name.
 */
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('palette-search');

describe('the toolbox’s search', () => {
  it('lists 色阶 before 自动色阶, and Levels before Auto Levels in English', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '调色' })]);
    const page = await studio.open(id, 1440, 900);
    await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
    const search = page.getByRole('searchbox', { name: '搜索工具' });
    const chips = page.getByRole('group', { name: '工具列表' }).getByRole('button');
    await search.fill('色阶');
    await eventually(() => chips.allTextContents()).toEqual(['色阶', '自动色阶']);
    expect(await visibleOf(page.getByRole('heading', { name: '搜索结果' }))()).toBe(true);
    await snapshot(page, 'palette-search-levels');
    // Found by the English name, the same order: Levels is the exact match.
    await search.fill('levels');
    await eventually(() => chips.allTextContents()).toEqual(['色阶', '自动色阶']);
    // Emptied, the groups are back.
    await search.fill('');
    await eventually(visibleOf(page.getByRole('heading', { name: '文档与图层' }))).toBe(true);

    const en = await studio.open(id, 1440, 900, 'en');
    await en.getByRole('tablist', { name: 'Input' }).getByRole('tab', { name: 'Toolbox' }).click();
    await en.getByRole('searchbox', { name: 'Search tools' }).fill('levels');
    const enChips = en.getByRole('group', { name: 'Tools' }).getByRole('button');
    await eventually(() => enChips.allTextContents()).toEqual(['Levels', 'Auto Levels']);
  });
});
