/**
 * Small words the studio colours — a card's 完成, the model badge, the unsaved mark, a form's 可选, the steps
 * that can be redone — must be readable: at least WCAG's 4.5:1 against what is behind them.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot, textOf, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('contrast', { model: true });

/** The contrast ratio of the first element `selector` finds: its text colour against the first opaque background behind it. */
const contrastOf = (page: Page, selector: string) =>
  page.evaluate(`(() => {
    const rgba = (css) => {
      const [r, g, b, a = 1] = css.match(/[\\d.]+/g).map(Number);
      return { r, g, b, a };
    };
    const luminance = ({ r, g, b }) => {
      const [R, G, B] = [r, g, b].map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * R + 0.7152 * G + 0.0722 * B;
    };
    const el = document.querySelector(${JSON.stringify(selector)});
    let behind = { r: 255, g: 255, b: 255 };
    for (let e = el; e; e = e.parentElement) {
      const bg = rgba(getComputedStyle(e).backgroundColor);
      if (bg.a > 0.5) {
        behind = bg;
        break;
      }
    }
    const [a, b] = [luminance(rgba(getComputedStyle(el).color)), luminance(behind)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  })()`) as Promise<number>;

/** The relative luminance of the first opaque background behind the first element `selector` finds. */
const backgroundOf = (page: Page, selector: string) =>
  page.evaluate(`(() => {
    let e = document.querySelector(${JSON.stringify(selector)});
    for (; e; e = e.parentElement) {
      const [r, g, b, a = 1] = getComputedStyle(e).backgroundColor.match(/[\\d.]+/g).map(Number);
      if (a > 0.5) {
        const [R, G, B] = [r, g, b].map((v) => {
          const c = v / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * R + 0.7152 * G + 0.0722 * B;
      }
    }
    return 1;
  })()`) as Promise<number>;

describe.each([
  ['light', '90-contrast'],
  ['dark', '91-contrast-dark'],
] as const)('coloured words in the %s theme', (scheme, shot) => {
  it('are readable against their backgrounds', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '对比度' }),
      toolCall('create_text_layer', { text: '标题', x: 20, y: 20, font_size: 60 }),
      toolCall('undo', { steps: 1 }),
    ]);
    const page = await studio.open(id, 1440, 900, 'zh', scheme);
    await eventually(textOf(page.getByRole('banner'))).toContain('scripted-model');
    // A message, a card that is done, a card that failed, and a form with optional fields.
    await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
    await page.getByRole('button', { name: '设置透明度', exact: true }).click();
    await page.getByLabel('图层名称', { exact: true }).fill('不存在的图层');
    await page.getByLabel('不透明度百分比', { exact: true }).fill('50');
    await page.getByRole('button', { name: '运行' }).click();
    await eventually(visibleOf(page.locator('.card.error .card-error'))).toBe(true);
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await page.getByRole('button', { name: '查看文档信息', exact: true }).click();
    await page.getByRole('button', { name: '运行' }).click();
    await eventually(textOf(page.locator('.card.ok .status-text'))).toBe('完成');
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await page.getByRole('button', { name: '创建文字', exact: true }).click();
    await eventually(visibleOf(page.locator('.field-notes').first())).toBe(true);
    await page.getByRole('tab', { name: '历史记录' }).click();
    await eventually(visibleOf(page.locator('.history button.future').first())).toBe(true);
    await snapshot(page, shot);

    // The theme is the system's: dark panes on a dark system, light ones on a light one.
    const panes = await Promise.all(
      ['.chat-pane', '.side-panel', '.top-bar', '.canvas-pane'].map((p) => backgroundOf(page, p)),
    );
    if (scheme === 'dark') expect(Math.max(...panes)).toBeLessThan(0.05);
    else expect(Math.min(...panes)).toBeGreaterThan(0.7);

    const words = {
      'a card’s 完成': '.card.ok .status-text',
      'a card’s 失败': '.card.error .status-text',
      'a failure’s words': '.card-error p',
      'the model badge': '.model-badge.on .model-text',
      'the unsaved mark': '.doc-tab .unsaved',
      'a form’s 可选': '.field-notes',
      'a field’s label': '.field-head label',
      'a step to redo': '.history button.future',
      'the current step': '.history button.current',
      'the status bar': '.status-doc',
      'a document tab': '.doc-tab.active button',
      'a tool chip’s name': '.tool-form-head h3',
      'the run button': '.form-actions .primary',
    };
    const faint: [string, number][] = [];
    for (const [what, selector] of Object.entries(words)) {
      const ratio = await contrastOf(page, selector);
      if (ratio < 4.5) faint.push([what, Math.round(ratio * 100) / 100]);
    }
    expect(faint).toEqual([]);
  });
});
