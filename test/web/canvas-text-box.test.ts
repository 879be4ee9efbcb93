/**
 * New text with the type tool as Photoshop makes it: a drag draws a box for paragraph text, whose words wrap in it
 * as they are typed and once made (创建段落文字); the options bar's alignment is what new text is set in — a
 * paragraph aligned in its box, point text centred on the point clicked (创建文字, then 文字对齐 about that anchor, one
 * history step).
 */
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { LayerNode } from '../../src/calls/snapshot-types.js';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { historyLabels, screenPoint } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-text-box');

const W = 600;
const H = 400;
const onCanvas = (page: Page, x: number, y: number) => screenPoint(page, W, H, x, y);

const WORDS = '春季新品上市全场八折优惠活动时间三月一日至十五日';

const labels = (id: string) => historyLabels(studio.url, id);

async function textLayer(id: string, content: string): Promise<LayerNode | undefined> {
  return (await activeLayers(studio.url, id)).find((l) => l.text?.content === content);
}

/** A 600 × 400 document with only its background, the studio open on it with the type tool. */
async function typeTool() {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [toolCall('create_document', { width: W, height: H, name: '段落' })]);
  const page = await studio.open(id, 1280, 800);
  await eventually(() => page.locator('.artboard img').count()).toBe(1);
  await page.locator('.canvas-viewport[tabindex]').focus();
  await page.keyboard.press('t');
  await eventually(() =>
    page.getByRole('button', { name: '横排文字工具' }).getAttribute('aria-pressed'),
  ).toBe('true');
  const bar = page.getByRole('group', { name: '对齐' });
  return {
    id,
    page,
    editor: page.locator('.artboard .text-editor'),
    size: page.locator('.tool-options input[type="number"]'),
    centre: bar.getByRole('button', { name: '居中对齐文本' }),
    left: bar.getByRole('button', { name: '左对齐文本' }),
  };
}

/** Where dark ink is in a part of the page (screen px): its top and bottom rows, its left and right columns. */
async function inkIn(page: Page, clip: { x: number; y: number; width: number; height: number }) {
  const png = await page.screenshot({ clip });
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const rows: number[] = [];
  const cols: number[] = [];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * info.channels;
      if (data[i]! < 90 && data[i + 1]! < 90 && data[i + 2]! < 90) {
        rows.push(y);
        cols.push(x);
      }
    }
  }
  return {
    top: clip.y + Math.min(...rows),
    bottom: clip.y + Math.max(...rows),
    left: clip.x + Math.min(...cols),
    right: clip.x + Math.max(...cols),
  };
}

/**
 * The words as typed against the words as made: the typing box's ink (its border and backdrop hidden) and the
 * canvas's once committed, in the same part of the page.
 */
async function typedInk(page: Page, clip: { x: number; y: number; width: number; height: number }) {
  await page.addStyleTag({
    content: '.text-editor { border-color: transparent !important; background: none !important; }',
  });
  return inkIn(page, clip);
}

/** A drag with the mouse from document point `a` to `b`, in steps as a hand moves. */
async function drag(page: Page, a: [number, number], b: [number, number]): Promise<void> {
  const from = await onCanvas(page, ...a);
  const to = await onCanvas(page, ...b);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
  await page.mouse.move(to.x, to.y, { steps: 4 });
  await page.mouse.up();
}

describe('paragraph text from a dragged box', () => {
  it('a drag draws the box, the words wrap in it as typed, and 创建段落文字 makes the same box', async () => {
    const { id, page, editor, size } = await typeTool();
    await size.fill('30');
    await size.press('Enter');
    const steps = (await labels(id)).length;
    // The box is shown while it is dragged.
    const from = await onCanvas(page, 100, 80);
    const to = await onCanvas(page, 340, 300);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 6 });
    const dragged = (await page.locator('.text-box-drag').boundingBox())!;
    expect(dragged.width).toBeCloseTo(to.x - from.x, -1);
    expect(dragged.height).toBeCloseTo(to.y - from.y, -1);
    await page.mouse.up();
    await eventually(() => page.locator('.text-box-drag').count()).toBe(0);
    await eventually(() => editor.count()).toBe(1);
    // The typing box is the dragged box; the words wrap inside it.
    const typing = (await editor.boundingBox())!;
    expect(typing.x).toBeCloseTo(from.x, -1);
    expect(typing.width).toBeCloseTo(to.x - from.x, -1);
    await page.keyboard.insertText(WORDS);
    const oneLine = await editor.evaluate((e) =>
      Number.parseFloat(
        (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(
          e,
        ).lineHeight ?? '',
      ),
    );
    const scrolled = await editor.evaluate((e) => e.scrollHeight);
    expect(scrolled).toBeGreaterThan(2 * oneLine);
    await snapshot(page, 'canvas-text-box-typing');
    const area = { x: from.x, y: from.y, width: to.x - from.x, height: to.y - from.y };
    const typed = await typedInk(page, area);
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['创建段落文字']);
    const made = (await textLayer(id, WORDS))!;
    expect(made.text!.box).toEqual({ width: 240, height: 220 });
    expect([made.text!.x, made.text!.y]).toEqual([100, 80]);
    // Wrapped: the ink is inside the box, several lines tall.
    const b = made.bounds as { left: number; top: number; width: number; height: number };
    expect(b.left).toBeGreaterThanOrEqual(100);
    expect(b.left + b.width).toBeLessThanOrEqual(340);
    expect(b.height).toBeGreaterThan(2 * 36);
    // What was typed stands where it is drawn: the same first line, the same lines (±2 screen px).
    await eventually(async () => {
      const drawn = await inkIn(page, area);
      return [drawn.top - typed.top, drawn.bottom - typed.bottom, drawn.left - typed.left].map(
        (d) => Math.abs(d) <= 2,
      );
    }).toEqual([true, true, true]);
    await snapshot(page, 'canvas-text-box-made');
  });

  it('the alignment chosen first is new text’s: a paragraph centred in its box, point text centred on the point clicked', async () => {
    const { id, page, editor, centre, left } = await typeTool();
    // Nothing selected: the buttons hold what new text is set in.
    await eventually(() => left.getAttribute('aria-pressed')).toBe('true');
    expect(await centre.isEnabled()).toBe(true);
    await centre.click();
    await eventually(() => centre.getAttribute('aria-pressed')).toBe('true');
    const steps = (await labels(id)).length;

    await drag(page, [60, 40], [360, 160]);
    await eventually(() => editor.count()).toBe(1);
    await expect(
      editor.evaluate(
        (e) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }
          ).getComputedStyle(e).textAlign,
      ),
    ).resolves.toBe('center');
    await page.keyboard.insertText('居中段落');
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await textLayer(id, '居中段落'))?.text?.align).toBe('center');
    const para = (await textLayer(id, '居中段落'))!.bounds as { left: number; width: number };
    expect(Math.abs(para.left + para.width / 2 - 210)).toBeLessThanOrEqual(2);

    // A click on an empty spot (the paragraph is selected now: its alignment, centre, is the bar's).
    const spot = await onCanvas(page, 300, 300);
    await page.mouse.click(spot.x, spot.y);
    await eventually(() => editor.count()).toBe(1);
    await eventually(() => centre.getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.insertText('居中标题');
    const around = { x: spot.x - 120, y: spot.y - 10, width: 240, height: 80 };
    const typed = await typedInk(page, around);
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await textLayer(id, '居中标题'))?.text?.align).toBe('center');
    const title = (await textLayer(id, '居中标题'))!;
    const tb = title.bounds as { left: number; width: number };
    expect(Math.abs(tb.left + tb.width / 2 - 300)).toBeLessThanOrEqual(2);
    expect(title.text!.x).toBe(300);
    await eventually(async () => {
      const drawn = await inkIn(page, around);
      return [drawn.top - typed.top, drawn.left - typed.left, drawn.right - typed.right].map(
        (d) => Math.abs(d) <= 2,
      );
    }).toEqual([true, true, true]);
    // Made and aligned in one history step, as Photoshop sets centred text: one undo takes it away.
    expect(await labels(id)).toEqual([...(await labels(id)).slice(0, steps), '创建段落文字', '创建文字']);
    // The outline follows the aligned layer (the step changed in place), centred on the clicked point.
    await eventually(async () => {
      const box = await page.locator('.layer-outline').boundingBox();
      return box ? Math.abs(box.x + box.width / 2 - spot.x) <= 3 : false;
    }).toBe(true);
    await snapshot(page, 'canvas-text-new-centred');
    await okCalls(studio.url, id, [toolCall('undo', { steps: 1 })]);
    expect(await textLayer(id, '居中标题')).toBeUndefined();
    await okCalls(studio.url, id, [toolCall('redo', { steps: 1 })]);
    await eventually(async () => (await textLayer(id, '居中标题'))?.text?.align).toBe('center');

    // Left chosen with the title selected changes the title (its alignment), as before.
    await left.click();
    await eventually(async () => (await textLayer(id, '居中标题'))?.text?.align ?? 'left').toBe('left');
  });

  it('the box’s corner handle resizes it as the words are typed, and for a paragraph already made (修改文本框)', async () => {
    const { id, page, editor, size } = await typeTool();
    await size.fill('30');
    await size.press('Enter');
    const steps = (await labels(id)).length;
    await drag(page, [100, 80], [340, 150]);
    await eventually(() => editor.count()).toBe(1);
    await page.keyboard.insertText(WORDS);
    const handle = page.locator('.text-box-handle[title="拖动改变文本框大小"]');
    await expect(handle.getAttribute('data-size')).resolves.toBe('240 × 70');
    // Dragged 60 px left and 130 px down (document px): narrower and taller, the words still open.
    const h = (await handle.boundingBox())!;
    const scale = (await page.locator('.artboard').boundingBox())!.width / W;
    await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
    await page.mouse.down();
    await page.mouse.move(h.x + h.width / 2 - 60 * scale, h.y + h.height / 2 + 130 * scale, { steps: 5 });
    await page.mouse.up();
    await expect(handle.getAttribute('data-size')).resolves.toBe('180 × 200');
    await expect(editor.count()).resolves.toBe(1);
    await snapshot(page, 'canvas-text-box-resizing');
    await page.keyboard.insertText('！');
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['创建段落文字']);
    const made = (await textLayer(id, `${WORDS}！`))!;
    expect(made.text!.box).toEqual({ width: 180, height: 200 });

    // Clicked again with the type tool, once the studio shows the paragraph (a click before it has the layer
    // starts new text, as it would for a designer): its box and handle; taller, the words unchanged: 修改文本框 alone.
    await eventually(() =>
      page.locator(`.layer-row .layer-title[title^="${WORDS.slice(0, 6)}"]`).count(),
    ).toBe(1);
    const inside = await onCanvas(page, 150, 100);
    await page.mouse.click(inside.x, inside.y);
    await eventually(() => editor.count()).toBe(1);
    await expect(handle.getAttribute('data-size')).resolves.toBe('180 × 200');
    const g = (await handle.boundingBox())!;
    await page.mouse.move(g.x + g.width / 2, g.y + g.height / 2);
    await page.mouse.down();
    await page.mouse.move(g.x + g.width / 2 + 40 * scale, g.y + g.height / 2 + 50 * scale, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.press('Control+Enter');
    await eventually(async () => (await labels(id)).slice(steps)).toEqual(['创建段落文字', '修改文本框']);
    const resized = (await textLayer(id, `${WORDS}！`))!;
    expect(resized.text!.box).toEqual({ width: 220, height: 250 });
    expect([resized.text!.x, resized.text!.y]).toEqual([100, 80]);
  });
});
