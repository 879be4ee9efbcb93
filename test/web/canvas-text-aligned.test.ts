/**
 * Centred and paragraph text from a Photoshop file, edited in place with the type tool: the box the words are
 * typed in stands where the text does — centred on a centred point text's anchor, over a paragraph text's own
 * box, aligned as the text is — and the edit keeps the text centred and in its box.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writePsdBuffer } from 'ag-psd';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-text-aligned');
const W = 600;
const H = 400;

function white(w: number, h: number) {
  return { width: w, height: h, data: new Uint8ClampedArray(w * h * 4).fill(255) };
}

const style = { font: { name: 'ArialMT' }, fontSize: 40, fillColor: { r: 20, g: 20, b: 20 } };

/** Document point → page point over the artboard. */
async function onCanvas(page: Page, x: number, y: number) {
  const box = (await page.locator('.artboard').boundingBox())!;
  return { x: box.x + (x / W) * box.width, y: box.y + (y / H) * box.height, scale: box.width / W };
}

describe('aligned text edited in place', () => {
  it('types over a centred title centred on its anchor and over a paragraph in its box, and keeps them so', async () => {
    const id = await createSession(studio.url);
    const psd = writePsdBuffer({
      width: W,
      height: H,
      children: [
        { name: '背景', left: 0, top: 0, imageData: white(W, H) },
        {
          name: '标题',
          text: {
            text: '春季新品',
            transform: [1, 0, 0, 1, 300, 100],
            style,
            paragraphStyle: { justification: 'center' },
          },
        },
        {
          name: '段落',
          text: {
            text: '面料柔软透气适合春季',
            transform: [1, 0, 0, 1, 100, 200],
            style: { ...style, font: { name: 'Arial-BoldMT' }, fontSize: 30 },
            paragraphStyle: { justification: 'center', startIndent: 10, endIndent: 10 },
            shapeType: 'box',
            boxBounds: [0, 0, 200, 150],
          },
        },
        {
          name: '口号',
          text: {
            text: '限时上新\n全场包邮',
            transform: [1, 0, 0, 1, 380, 300],
            style: {
              ...style,
              font: { name: 'NotoSansHans-Regular' },
              fontSize: 30,
              autoLeading: false,
              leading: 50,
              tracking: 250,
            },
            paragraphStyle: { firstLineIndent: 30 },
          },
        },
      ],
    });
    await writeFile(path.join(studio.workspace, 'sessions', id, 'aligned.psd'), psd);
    await okCalls(studio.url, id, [toolCall('open_document', { path: 'aligned.psd' })]);
    const nodes = new Map((await activeLayers(studio.url, id)).map((l) => [l.name, l] as const));
    expect(nodes.get('标题')?.text).toMatchObject({ align: 'center', x: 300 });
    expect(nodes.get('段落')?.text).toMatchObject({
      align: 'center',
      x: 100,
      y: 200,
      box: { width: 200, height: 150 },
    });

    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('t');
      const editor = page.locator('textarea.text-editor');

      // The centred title: the typing box is centred on x = 300, its words centred.
      const title = await onCanvas(page, 300, 90);
      await page.mouse.click(title.x, title.y);
      await eventually(() => editor.count()).toBe(1);
      // Arial is missing here: the box types in Liberation Sans, its metric twin, as the server draws the layer.
      const family = await editor.evaluate(
        (e) => e.ownerDocument.defaultView!.getComputedStyle(e).fontFamily,
      );
      expect(family).toMatch(/^"?ArialMT"?, "?Liberation Sans"?/);
      const t = (await editor.boundingBox())!;
      const centre = await onCanvas(page, 300, 0);
      expect(Math.abs(t.x + t.width / 2 - centre.x)).toBeLessThanOrEqual(2);
      expect(
        await editor.evaluate(
          (e) =>
            (
              globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }
            ).getComputedStyle(e).textAlign,
        ),
      ).toBe('center');
      await snapshot(page, 'canvas-text-centred');
      await page.keyboard.press('Escape');
      await eventually(() => editor.count()).toBe(0);

      // The paragraph: the typing box is the text's own box, wrapping as the server does.
      const para = await onCanvas(page, 200, 230);
      await page.mouse.click(para.x, para.y);
      await eventually(() => editor.count()).toBe(1);
      const b = (await editor.boundingBox())!;
      const corner = await onCanvas(page, 100, 200);
      expect(Math.abs(b.x - corner.x)).toBeLessThanOrEqual(2);
      expect(Math.abs(b.width - 200 * corner.scale)).toBeLessThanOrEqual(3);
      expect(
        await editor.evaluate(
          (e) =>
            (
              globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }
            ).getComputedStyle(e).whiteSpace,
        ),
      ).toBe('pre-wrap');
      // Set in from the box's edges by its indents, as the server sets it.
      const padding = await editor.evaluate((e) => {
        const st = (
          globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }
        ).getComputedStyle(e);
        return [Number.parseFloat(st.paddingLeft ?? ''), Number.parseFloat(st.paddingRight ?? '')];
      });
      expect(padding.map((p) => Math.round(p / corner.scale))).toEqual([10, 10]);
      // Arial Bold is missing too: typed in its twin's bold face, as the server draws it.
      const face = await editor.evaluate((e) => {
        const st = e.ownerDocument.defaultView!.getComputedStyle(e);
        return { family: st.fontFamily, weight: st.fontWeight, style: st.fontStyle };
      });
      expect(face).toEqual({
        family: expect.stringMatching(/^"?Arial-BoldMT"?, "?Liberation Sans"?/),
        weight: '700',
        style: 'normal',
      });
      const picture = () => page.locator('.artboard img').getAttribute('src');
      const shown = await picture();
      await editor.fill('面料柔软透气');
      await page.keyboard.press('Control+Enter');
      await eventually(
        async () => (await activeLayers(studio.url, id)).find((l) => l.name === '段落')?.text?.content,
      ).toBe('面料柔软透气');
      const after = (await activeLayers(studio.url, id)).find((l) => l.name === '段落')!;
      expect(after.text).toMatchObject({
        align: 'center',
        x: 100,
        y: 200,
        box: { width: 200, height: 150 },
        indent: { left: 10, first: 0, right: 10 },
      });
      // The picture taken once the canvas shows the new words, not the old ones it had while the call ran.
      await eventually(picture).not.toBe(shown);
      await eventually(async () =>
        page.locator('.artboard img').evaluate((i) => (i as { complete: boolean }).complete),
      ).toBe(true);
      await snapshot(page, 'canvas-text-paragraph');
      await page.keyboard.press('Escape');

      // Text set with a fixed leading, tracking and a first-line indent: the words are typed with the same spacing.
      const slogan = await onCanvas(page, 420, 290);
      await page.mouse.click(slogan.x, slogan.y);
      await eventually(() => editor.count()).toBe(1);
      const spacing = await editor.evaluate((e) => {
        const st = (
          globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }
        ).getComputedStyle(e);
        return [
          Number.parseFloat(st.lineHeight ?? ''),
          Number.parseFloat(st.letterSpacing ?? ''),
          st.textIndent,
        ];
      });
      expect(Math.abs((spacing[0] as number) - 50 * slogan.scale)).toBeLessThanOrEqual(0.5);
      expect(Math.abs((spacing[1] as number) - 7.5 * slogan.scale)).toBeLessThanOrEqual(0.2);
      // Each line is a paragraph of point text: every one starts a first-line indent in.
      expect(spacing[2]).toBe(`${30 * slogan.scale}px each-line`);
      expect(await editor.inputValue()).toBe('限时上新\n全场包邮');
      await snapshot(page, 'canvas-text-spaced');
    } finally {
      await page.close();
    }
  });

  it('aligns the selected text layer from the options bar, as Photoshop’s alignment buttons do', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: W, height: H, name: '对齐' }),
      toolCall('create_text_layer', { text: '春季新品', x: 300, y: 100, font_size: 40 }),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard img').count()).toBe(1);
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('t');
      const bar = page.getByRole('group', { name: '对齐' });
      const centre = bar.getByRole('button', { name: '居中对齐文本' });
      await eventually(() =>
        bar.getByRole('button', { name: '左对齐文本' }).getAttribute('aria-pressed'),
      ).toBe('true');
      expect(await centre.isEnabled()).toBe(true);
      await centre.click();
      await eventually(
        async () => (await activeLayers(studio.url, id)).find((l) => l.name === '春季新品')?.text?.align,
      ).toBe('center');
      await eventually(() => centre.getAttribute('aria-pressed')).toBe('true');
      // Centred about its anchor, as Photoshop moves point text.
      const [info] = await okCalls(studio.url, id, [toolCall('get_layer_bounds', { name: '春季新品' })]);
      const b = info as { left: number; width: number };
      expect(Math.abs(b.left + b.width / 2 - 300)).toBeLessThanOrEqual(2);
      await snapshot(page, 'canvas-text-align-bar');
      // With no text layer selected, the buttons hold what new text is set in (left, until chosen).
      await okCalls(studio.url, id, [toolCall('create_layer', { name: '空' })]);
      await eventually(() =>
        bar.getByRole('button', { name: '左对齐文本' }).getAttribute('aria-pressed'),
      ).toBe('true');
      expect(await centre.isEnabled()).toBe(true);
    } finally {
      await page.close();
    }
  });
});
