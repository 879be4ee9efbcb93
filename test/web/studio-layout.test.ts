/**
 * The studio's panes with what a designer's real work holds: Chinese in a card's arguments, fifty layers and
 * more, a long history, long file names as tabs, long tool descriptions. Each shows what it is for on screen.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { attrOf, eventually, finished, snapshot, textOf, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layout');

async function openTool(page: Page, label: string) {
  await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
  await page.getByRole('searchbox', { name: '搜索工具' }).fill(label);
  await page.getByRole('button', { name: label, exact: true }).click();
}

type Box = { x: number; y: number; width: number; height: number };
const inside = (inner: Box, outer: Box) =>
  inner.y >= outer.y - 1 &&
  inner.y + inner.height <= outer.y + outer.height + 1 &&
  inner.x >= outer.x - 1 &&
  inner.x + inner.width <= outer.x + outer.width + 1;

/**
 * The width of 春风拂面花开满园 in the open card's arguments and their font size (in the page, as a string: the
 * tests' TypeScript has no DOM types).
 */
const INK_WIDTH = `(() => {
  const pre = [...document.querySelectorAll('.card-args pre')].pop();
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf('春风拂面花开满园');
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + 8);
    return [range.getBoundingClientRect().width, parseFloat(getComputedStyle(pre).fontSize)];
  }
  return [0, 0];
})()`;

describe('the studio with a working designer’s content', () => {
  it('shows Chinese in a card’s arguments as Chinese, not as empty boxes', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '文字' })]);
    const page = await studio.open(id);
    await openTool(page, '创建文字');
    await page.getByLabel('文字内容', { exact: true }).fill('春风拂面花开满园');
    await page.getByLabel('文本框左上角的 x 坐标', { exact: true }).fill('20');
    await page.getByLabel('文本框左上角的 y 坐标', { exact: true }).fill('20');
    await page.getByLabel('字号', { exact: true }).fill('32');
    await page.getByRole('button', { name: '运行' }).click();
    const card = page
      .getByRole('log', { name: '对话记录' })
      .getByRole('article', { name: '创建文字' })
      .last();
    await finished(card);
    await card.locator('.card-args summary').click();
    const pre = card.locator('.card-args pre');
    await eventually(visibleOf(pre)).toBe(true);
    await page.evaluate('document.fonts.ready');
    // A Chinese character is a full em wide; a box for a glyph the monospace font lacks is 0.6 em.
    const [width, size] = (await page.evaluate(INK_WIDTH)) as [number, number];
    expect(size).toBeGreaterThan(0);
    expect(width / 8 / size).toBeGreaterThan(0.9);
    await snapshot(page, '40-card-chinese-args');
  });

  it('keeps the blend mode and opacity in view beside sixty layers, and names a cut-short layer in full', async () => {
    const id = await createSession(studio.url);
    const long = '这是一个非常非常长的中文图层名称用于检查图层面板的显示效果';
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 400, height: 300, name: '多图层' }),
      ...Array.from({ length: 60 }, (_, i) =>
        toolCall('create_layer', { name: i === 59 ? long : `图层${i}` }),
      ),
    ]);
    for (const [width, height] of [
      [1440, 900],
      [1024, 768],
    ] as const) {
      const page = await studio.open(id, width, height);
      const opacity = page.getByRole('slider', { name: '不透明度' });
      await eventually(visibleOf(opacity)).toBe(true);
      const panel = (await page.getByRole('tabpanel').boundingBox())!;
      expect(inside((await opacity.boundingBox())!, panel), `${width}`).toBe(true);
      expect(inside((await page.getByLabel('混合模式').boundingBox())!, panel), `${width}`).toBe(true);
      // The list scrolls by itself to its last layer (the background), the controls staying where they are.
      const background = page.getByRole('button', { name: '背景', exact: true });
      await background.scrollIntoViewIfNeeded();
      expect(inside((await background.boundingBox())!, panel), `${width}`).toBe(true);
      expect(inside((await opacity.boundingBox())!, panel), `${width}`).toBe(true);
      // The newest layer's name is cut short in the row; hovering it shows it whole.
      const row = page.getByRole('button', { name: long, exact: true });
      expect(await row.locator('.layer-title').getAttribute('title')).toBe(long);
      await snapshot(page, `41-many-layers-${width}`);
      await page.context().close();
    }
  });

  it('shows the current step when the history is long, and follows an undo', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 400, height: 300, name: '历史' }),
      ...Array.from({ length: 45 }, (_, i) => toolCall('create_layer', { name: `步骤${i}` })),
    ]);
    const page = await studio.open(id, 1024, 768);
    await page.getByRole('tab', { name: '历史记录' }).click();
    const steps = page.getByRole('list', { name: '历史步骤' });
    const current = steps.locator('[aria-current="step"]');
    await eventually(visibleOf(current)).toBe(true);
    const panel = (await page.getByRole('tabpanel').boundingBox())!;
    expect(inside((await current.boundingBox())!, panel)).toBe(true);
    // Back to an early step: it is in view (the panel scrolled up to it), and a redo to the end brings the
    // newest step back into view.
    const count = await steps.getByRole('button').count();
    await page.getByRole('tab', { name: '图层' }).click();
    await okCalls(studio.url, id, [toolCall('undo', { steps: count - 3 })]);
    await page.reload();
    await page.getByRole('tab', { name: '历史记录' }).click();
    await eventually(textOf(current)).toMatch(/^2/);
    expect(inside((await current.boundingBox())!, panel)).toBe(true);
    await current.click(); // the designer looks at it, then goes to the end again by the keyboard
    await page.keyboard.press('Control+Shift+Z');
    await eventually(textOf(current)).toMatch(/^3/);
    expect(inside((await current.boundingBox())!, panel)).toBe(true);
    await snapshot(page, '42-long-history');
  });

  it('cuts a long file name short in its tab, its close button beside it, the whole name on hover', async () => {
    const id = await createSession(studio.url);
    const long = '2024春夏系列_女装连衣裙_印花版型_放码_最终确认版_v3_客户修改意见已合并';
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 400, height: 300, name: long }),
      toolCall('create_document', { width: 400, height: 300, name: '第二稿' }),
      toolCall('switch_document', { doc_name: long }),
    ]);
    for (const [width, height] of [
      [1024, 768],
      [390, 844],
    ] as const) {
      const page = await studio.open(id, width, height);
      const tab = page.getByRole('tab', { name: long });
      await eventually(attrOf(tab, 'aria-selected')).toBe('true');
      expect(await tab.getAttribute('title')).toBe(long);
      const strip = (await page.getByRole('tablist', { name: '文档' }).boundingBox())!;
      const close = (await page.getByRole('button', { name: `关闭 ${long}` }).boundingBox())!;
      expect(inside(close, strip), `${width}`).toBe(true);
      // In a wide window another tab and the new-document button stay beside it.
      if (width > 900) expect((await tab.boundingBox())!.width).toBeLessThan(strip.width / 3);
      await snapshot(page, `43-long-tab-${width}`);
      await page.context().close();
    }
  });

  it('names a card’s arguments as its form does, in Chinese, with the API names kept inside', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id);
    await page.getByRole('button', { name: '新建文档' }).and(page.locator('.canvas-empty button')).click();
    await page.getByLabel('宽度', { exact: true }).fill('600');
    await page.getByLabel('高度', { exact: true }).fill('400');
    await page.getByLabel('文档名称', { exact: true }).fill('春季海报');
    await page.getByRole('button', { name: '运行' }).click();
    const card = page.getByRole('log', { name: '对话记录' }).getByRole('article', { name: '新建文档' });
    await finished(card);
    const summary = card.locator('.card-args summary');
    expect(await textOf(summary)()).toBe('参数 宽度、高度、分辨率、文档名称');
    await summary.click();
    await eventually(textOf(card.locator('.card-args pre'))).toContain('"width": 600');
  });

  it('keeps the colour mode and size readable in the status bar of a narrow canvas, the name in its tab', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 1320, height: 520, name: '春季新品海报最终版本' }),
      toolCall('convert_to_cmyk', {}),
    ]);
    // Whether the text `words` of the status bar is drawn whole, inside the box that clips it.
    const shown = (page: Page, words: string) =>
      page.evaluate(`(() => {
        const facts = document.querySelector('.status-facts');
        const node = facts.firstChild;
        const at = node.textContent.indexOf(${JSON.stringify(words)});
        if (at < 0) return false;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + ${words.length});
        const r = range.getBoundingClientRect();
        const box = facts.getBoundingClientRect();
        return r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1;
      })()`);
    for (const [width, height] of [
      [1024, 700],
      [1440, 900],
    ] as const) {
      const page = await studio.open(id, width, height);
      const status = page.locator('.status-doc');
      await eventually(attrOf(status, 'title')).toBe(
        '春季新品海报最终版本 · CMYK · 1320 × 520 像素 · 223.5 × 88.1 毫米 · 150 dpi',
      );
      expect(await shown(page, 'CMYK'), `${width}`).toBe(true);
      expect(await shown(page, '1320 × 520 像素'), `${width}`).toBe(true);
      if (width === 1440) expect(await visibleOf(status.getByText('春季新品海报最终版本'))()).toBe(true);
      await page.context().close();
    }
  });

  it('gives a short tool form only the room it needs, the rest to the conversation', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '表单' })]);
    const page = await studio.open(id, 1024, 700);
    const pane = (await page.locator('.chat-pane').boundingBox())!;
    const heightOf = async (selector: string) => (await page.locator(selector).boundingBox())!.height;

    // No parameters: the form is its head, a line and 运行; the cards above have the rest.
    await openTool(page, '生成花样预览');
    const run = (await page.getByRole('button', { name: '运行' }).boundingBox())!;
    const none = (await page.getByText('无参数', { exact: true }).boundingBox())!;
    expect(run.y - (none.y + none.height)).toBeLessThan(60);
    expect(await heightOf('.feed')).toBeGreaterThan(pane.height * 0.55);

    // Many fields: at most the toolbox's share, its fields scrolling, 运行 in view.
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await openTool(page, '创建文字');
    const composer = await heightOf('.composer');
    expect(composer).toBeLessThanOrEqual(pane.height * 0.58 + 1);
    expect(composer).toBeGreaterThan(pane.height * 0.5);
    expect(inside((await page.getByRole('button', { name: '运行' }).boundingBox())!, pane)).toBe(true);
    await snapshot(page, '45-long-form-1024');
  });

  it('opens the whole of a tool’s description, cut to two lines, on request', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id, 390, 844);
    await openTool(page, '创建文字');
    const about = page.locator('.tool-description');
    const cut = await about.evaluate((el) => [el.scrollHeight, el.clientHeight] as const);
    expect(cut[0]).toBeGreaterThan(cut[1] + 1);
    const more = page.getByRole('button', { name: '展开说明' });
    await more.click();
    await eventually(attrOf(page.getByRole('button', { name: '收起说明' }), 'aria-expanded')).toBe('true');
    const open = await about.evaluate((el) => [el.scrollHeight, el.clientHeight] as const);
    expect(open[1]).toBeGreaterThan(cut[1]);
    await snapshot(page, '44-tool-description');
  });
});
