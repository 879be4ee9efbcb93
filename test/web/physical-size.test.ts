/**
 * 新建文档 in millimetres, in real Chromium, as Photoshop's New Document dialog: a paper size fills the width and
 * height, a new resolution keeps the size on paper and changes the pixels, the line under the units says both,
 * and the call carries whole pixels.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../src/calls/snapshot-types.js';
import { createSession } from '../server/support.js';
import { eventually, finished, lastCardOf, snapshot, textOf } from '../support/browser.js';
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
});
