/**
 * What a designer met in the studio at a laptop's 1366 × 768 and a desktop's 1920 × 1080, in Chinese and English,
 * light and dark: a model's answer with a command in a fenced block, the layer properties' labels in English, and
 * a failed call's hint naming a tool in the studio's language.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, snapshot, textOf, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('audit', { model: true });

const feed = (page: Page) => page.getByRole('log').first();

async function send(page: Page, text: string) {
  await page.locator('.message-box textarea').fill(text);
  await page.locator('.message-box textarea').press('Enter');
}

const COMMAND =
  'npx atelier call create_text_layer \'{"text":"春季新品","x":80,"y":120,"font_size":150,"color":"#c0392b"}\'';

describe('the studio as a designer sees it', () => {
  it('shows a fenced command as a code block on its own lines, scrolling inside the answer', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id, 1366, 768, 'zh', 'dark');
    studio.model.push({
      text: `在命令行里也可以这样做：\n\n\`\`\`bash\nnpx atelier call create_document '{"width":1200}'\n${COMMAND}\n\`\`\`\n\n还需要什么吗？`,
    });
    await send(page, '命令行怎么做？');
    await eventually(textOf(feed(page))).toContain('还需要什么吗？');
    await eventually(countOf(feed(page).locator('.bubble.streaming'))).toBe(0);
    const bubble = feed(page).locator('.bubble.assistant').last();
    // The fence's backticks are markup, not words: none is shown.
    expect(await textOf(bubble)()).not.toContain('```');
    const block = bubble.locator('pre');
    await eventually(visibleOf(block)).toBe(true);
    // Each command is one line, as written (not wrapped in the middle of its JSON), in the monospace font.
    const shape = await block.evaluate((pre) => {
      const e = pre as unknown as { textContent: string; scrollWidth: number; clientWidth: number };
      const s = (
        globalThis as unknown as {
          getComputedStyle(e: unknown): { whiteSpace: string; fontFamily: string; overflowX: string };
        }
      ).getComputedStyle(pre);
      return {
        lines: e.textContent.split('\n'),
        whiteSpace: s.whiteSpace,
        font: s.fontFamily,
        overflows: e.scrollWidth > e.clientWidth,
        scrollsX: s.overflowX,
      };
    });
    expect(shape.lines).toEqual(['npx atelier call create_document \'{"width":1200}\'', COMMAND]);
    expect(shape.whiteSpace).toBe('pre');
    expect(shape.font).toMatch(/monospace/);
    // The long line scrolls inside the block: the answer stays inside the chat pane.
    expect(shape.overflows).toBe(true);
    expect(shape.scrollsX).toBe('auto');
    const pane = (await feed(page).boundingBox())!;
    const box = (await bubble.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(pane.x + pane.width);
    await bubble.scrollIntoViewIfNeeded();
    await snapshot(page, 'audit-code-block');
  });

  it('keeps each layer property’s label on one line, in English too, with the controls lined up', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 400, height: 300, name: '属性' }),
      toolCall('create_layer', { name: '花样' }),
    ]);
    for (const [width, height, lang] of [
      [1366, 768, 'en'],
      [1920, 1080, 'en'],
      [1366, 768, 'zh'],
    ] as const) {
      const page = await studio.open(id, width, height, lang);
      const labels = page.locator('.layer-props label');
      await eventually(countOf(labels)).toBe(3);
      const boxes = await labels.evaluateAll((all) =>
        all.map((l) => {
          const e = l as unknown as {
            getBoundingClientRect(): { height: number };
            textContent: string;
          };
          const view = globalThis as unknown as {
            getComputedStyle(e: unknown): { lineHeight: string; fontSize: string };
          };
          const s = view.getComputedStyle(e);
          const line = Number.parseFloat(s.lineHeight) || Number.parseFloat(s.fontSize) * 1.5;
          return { text: e.textContent, lines: Math.round(e.getBoundingClientRect().height / line) };
        }),
      );
      expect(boxes, `${width} ${lang}`).toEqual(boxes.map((b) => ({ text: b.text, lines: 1 })));
      // The select and the two sliders start at the same x.
      const starts = await Promise.all(
        ['#layer-blend', '#layer-opacity', '#layer-fill'].map(
          async (s) => (await page.locator(s).boundingBox())!.x,
        ),
      );
      // (A range input has a 2px margin of its own.)
      expect(Math.max(...starts) - Math.min(...starts), `${width} ${lang}`).toBeLessThanOrEqual(3);
      await snapshot(page, `audit-layer-props-${width}-${lang}`);
      await page.context().close();
    }
  });

  it('names the tool a failure’s hint suggests by its English label in the English studio', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '提示' })]);
    const page = await studio.open(id, 1920, 1080, 'en');
    studio.model.push(
      { toolCalls: [{ name: 'set_layer_opacity', arguments: { name: '不存在的图层', opacity: 50 } }] },
      { text: '那个图层不存在。' },
    );
    await send(page, '把不存在的图层调成半透明');
    await eventually(textOf(feed(page))).toContain('那个图层不存在。');
    const hint = feed(page).locator('.card.error .hint');
    await eventually(visibleOf(hint)).toBe(true);
    // The card's own title is English; the tool its hint suggests reads as the palette shows it.
    expect(await textOf(feed(page).locator('.card.error header h4'))()).not.toMatch(/[\u4e00-\u9fff]/);
    expect(await textOf(hint)()).toContain('「List All Layers」');
    expect(await textOf(hint)()).not.toContain('列出所有图层');
    await snapshot(page, 'audit-hint-english');
  });
});
