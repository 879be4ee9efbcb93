/**
 * 新建文档 in millimetres, in real Chromium, as Photoshop's New Document dialog: a paper size fills the width and
 * height, a new resolution keeps the size on paper and changes the pixels, the line under the units says both,
 * and the call carries whole pixels. The status bar then says the document's size on paper too.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../src/calls/snapshot-types.js';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { attrOf, eventually, finished, lastCardOf, snapshot, textOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('physical-size');

const field = (page: Page, name: string) => page.locator(`#param-create_document-${name}`);

describe('新建文档 in physical units', () => {
  it('makes an A4 page at 300 DPI from the paper list, and takes millimetres typed by hand', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id, 1440, 900);
    await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
    await page.locator('button.tool-chip', { hasText: /^新建文档$/ }).click();
    const form = page.getByRole('form', { name: '新建文档' });
    const line = form.locator('.physical-size-line');

    await form.getByLabel('纸张').selectOption({ label: 'A4 竖向' });
    expect(await form.getByLabel('单位').inputValue()).toBe('mm');
    expect(await form.getByLabel('纸张').inputValue()).toBe('a4:p');
    expect(await field(page, 'width').inputValue()).toBe('210');
    expect(await field(page, 'height').inputValue()).toBe('297');
    await eventually(textOf(line)).toBe('1240 × 1754 像素 = 209.97 × 297.01 毫米（150 DPI）');
    // 300 DPI: the same paper, twice the pixels.
    await field(page, 'resolution').fill('300');
    await eventually(textOf(line)).toBe('2480 × 3508 像素 = 209.97 × 297.01 毫米（300 DPI）');
    expect(await field(page, 'width').inputValue()).toBe('210');
    expect(await form.getByLabel('纸张').inputValue()).toBe('a4:p');
    await snapshot(page, 'physical-size-a4');

    await form.getByRole('button', { name: '运行' }).click();
    await finished(lastCardOf(page, 'create_document'));
    const state = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as SessionSnapshot;
    expect(state.active).toMatchObject({ width: 2480, height: 3508, resolution: 300 });
    await eventually(textOf(page.locator('.status-facts'))).toBe(
      'RGB · 2480 × 3508 像素 · 210 × 297 毫米 · 300 dpi',
    );
    await snapshot(page, 'physical-size-status-bar');

    // Typed in centimetres: 10 × 5 cm at 300 DPI.
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await page.locator('button.tool-chip', { hasText: /^新建文档$/ }).click();
    await form.getByLabel('单位').selectOption('cm');
    await field(page, 'resolution').fill('300');
    await field(page, 'width').fill('10');
    await field(page, 'height').fill('5');
    expect(await form.getByLabel('纸张').inputValue()).toBe('');
    await eventually(textOf(line)).toBe('1181 × 591 像素 = 10 × 5 厘米（300 DPI）');
    expect(await field(page, 'width').inputValue()).toBe('10');
    // Back in pixels, the fields show what will be sent.
    await form.getByLabel('单位').selectOption('px');
    expect(await field(page, 'width').inputValue()).toBe('1181');
  });

  it('makes an A2 poster at 300 DPI, its size on paper in a status bar that fits a small window', async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id, 1440, 900);
    await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
    await page.locator('button.tool-chip', { hasText: /^新建文档$/ }).click();
    const form = page.getByRole('form', { name: '新建文档' });
    await field(page, 'resolution').fill('300');
    await form.getByLabel('纸张').selectOption({ label: 'A2 竖向' });
    await eventually(textOf(form.locator('.physical-size-line'))).toBe(
      '4961 × 7016 像素 = 420.03 × 594.02 毫米（300 DPI）',
    );
    await form.getByLabel('单位').selectOption('px');
    expect([await field(page, 'width').inputValue(), await field(page, 'height').inputValue()]).toEqual([
      '4961',
      '7016',
    ]);
    await form.getByRole('button', { name: '运行' }).click();
    await finished(lastCardOf(page, 'create_document'));
    const facts = 'RGB · 4961 × 7016 像素 · 420 × 594 毫米 · 300 dpi';
    await eventually(textOf(page.locator('.status-facts'))).toBe(facts);
    await page.context().close();

    // A 1024 or 800 px window: the bar keeps one line inside the window, its facts giving way with an ellipsis
    // (the whole of them in the tooltip), the zoom and the state in view.
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 2480, height: 3508, resolution: 300 }),
    ]);
    for (const [width, height] of [
      [1024, 768],
      [800, 600],
    ] as const) {
      const small = await studio.open(id, width, height);
      const bar = small.locator('.status-bar');
      await eventually(attrOf(small.locator('.status-doc'), 'title')).toContain(
        '2480 × 3508 像素 · 210 × 297 毫米 · 300 dpi',
      );
      const fits = await bar.evaluate((footer) => {
        const box = footer.getBoundingClientRect();
        const inside = [...footer.querySelectorAll('.status-facts, .status-zoom, .status-busy')].map((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1;
        });
        return {
          inside,
          oneLine: box.height < 40,
          noScroll: footer.scrollWidth <= footer.clientWidth + 1,
          inWindow: box.right <= footer.ownerDocument.documentElement.clientWidth + 1,
        };
      });
      expect(fits, `${width}`).toEqual({
        inside: [true, true, true],
        oneLine: true,
        noScroll: true,
        inWindow: true,
      });
      await snapshot(small, `physical-size-status-bar-${width}`);
      await small.context().close();
    }
  });
});
