/**
 * The layers pane's thumbnails: each pixel layer shows its own pixels cropped to where they are (a marker's
 * pieces named 图层 1, 图层 2… are told apart at a glance), a text layer and a group their glyph, and a thumbnail
 * follows its layer's pixels when a tool changes them.
 */
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, imagePixels, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-thumbnails');

/** The thumbnail in the row of layer `name`: its size and the colour at its centre, once loaded. */
function thumbOf(page: Page, name: string) {
  return async () => {
    const img = page
      .locator('.layer-row', { has: page.getByRole('button', { name, exact: true }) })
      .locator('.layer-thumb img');
    const p = await imagePixels(img);
    if (!p) return null;
    const at = ((p.height >> 1) * p.width + (p.width >> 1)) * 4;
    return { w: p.width, h: p.height, rgba: p.data.slice(at, at + 4) };
  };
}

describe('the layers pane’s thumbnails', () => {
  it('shows each layer’s own pixels, a glyph for text and groups, and follows a change', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '排料' }),
      // Three "pieces" with meaningless names: a tall red one, a wide blue one, a small green square.
      toolCall('create_layer', { name: '图层 1' }),
      toolCall('select_rect', { left: 20, top: 20, right: 140, bottom: 380 }),
      toolCall('fill_selection', { color: '#c62828' }),
      toolCall('create_layer', { name: '图层 2' }),
      toolCall('select_rect', { left: 180, top: 40, right: 580, bottom: 140 }),
      toolCall('fill_selection', { color: '#1e40af' }),
      toolCall('create_layer', { name: '图层 3' }),
      toolCall('select_rect', { left: 300, top: 250, right: 340, bottom: 290 }),
      toolCall('fill_selection', { color: '#15803d' }),
      toolCall('deselect'),
      toolCall('create_text_layer', { text: '标注', x: 400, y: 300, font_size: 30 }),
      toolCall('create_layer_group', { name: '裁片组' }),
    ]);
    const page = await studio.open(id);
    try {
      // Cropped to each layer's pixels: the tall piece stands, the wide one lies, the small one is not a speck.
      await eventually(thumbOf(page, '图层 1')).toEqual({ w: 21, h: 64, rgba: [198, 40, 40, 255] });
      await eventually(thumbOf(page, '图层 2')).toEqual({ w: 64, h: 16, rgba: [30, 64, 175, 255] });
      await eventually(thumbOf(page, '图层 3')).toEqual({ w: 40, h: 40, rgba: [21, 128, 61, 255] });
      const glyph = (name: string) =>
        page
          .locator('.layer-row', { has: page.getByRole('button', { name, exact: true }) })
          .locator('.layer-glyph')
          .textContent();
      expect(await glyph('裁片组')).toBe('▤');
      expect(await glyph('标注')).toBe('T');
      // Thumbnails and glyphs are one size: the names line up.
      const boxes = await page.locator('.layer-thumb, .layer-glyph').evaluateAll((els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          return [Math.round(r.width), Math.round(r.height)];
        }),
      );
      expect(new Set(boxes.map((b) => b.join('x')))).toEqual(new Set(['30x30']));
      await snapshot(page, 'layers-thumbnails');

      // A tool changes 图层 3's pixels: its thumbnail follows, the others stay.
      await okCalls(studio.url, id, [
        toolCall('select_layers', { names: ['图层 3'] }),
        toolCall('select_rect', { left: 300, top: 250, right: 420, bottom: 290 }),
        toolCall('fill_selection', { color: '#f59e0b' }),
        toolCall('deselect'),
      ]);
      await eventually(thumbOf(page, '图层 3')).toEqual({ w: 64, h: 21, rgba: [245, 158, 11, 255] });
      expect(await thumbOf(page, '图层 1')()).toEqual({ w: 21, h: 64, rgba: [198, 40, 40, 255] });

      // A mask on 图层 2 showing the canvas's left three quarters: its own picture beside the layer's, white where
      // it shows the layer, black where it hides it.
      await okCalls(studio.url, id, [
        toolCall('select_rect', { left: 0, top: 0, right: 450, bottom: 400 }),
        toolCall('add_layer_mask', { name: '图层 2' }),
        toolCall('deselect'),
      ]);
      const mask = page
        .locator('.layer-row', { has: page.getByRole('button', { name: '图层 2', exact: true }) })
        .getByRole('img', { name: '图层蒙版' });
      const grey = async () => {
        const p = await imagePixels(mask);
        const at = (x: number) => p?.data[((p.height >> 1) * p.width + x) * 4];
        return p && { w: p.width, h: p.height, left: at(4), right: at(p.width - 4) };
      };
      await eventually(grey).toEqual({ w: 64, h: 43, left: 255, right: 0 });
      await snapshot(page, 'layers-mask-thumbnail');
    } catch (err) {
      await snapshot(page, 'failed-layers-thumbnails');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('shows a new document’s white background as a white picture, not an empty checkered box', async () => {
    for (const [width, height, scheme] of [
      [600, 400, 'light'],
      [2480, 3508, 'light'],
      [600, 400, 'dark'],
    ] as const) {
      const id = await createSession(studio.url);
      await okCalls(studio.url, id, [toolCall('create_document', { width, height, name: '白底' })]);
      const [background] = await activeLayers(studio.url, id);
      expect(background).toMatchObject({ name: '背景' });
      expect(background!.thumbnail).toBeTruthy();

      // Served: a picture of the canvas's shape, every pixel opaque white.
      const res = await fetch(
        `${studio.url}/v1/sessions/${id}/documents/${encodeURIComponent('白底')}/layers/${background!.id}/thumbnail.png?max=64`,
      );
      expect(res.status).toBe(200);
      const served = await sharp(Buffer.from(await res.arrayBuffer()))
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(Math.max(served.info.width, served.info.height)).toBe(64);
      expect(served.data.every((v) => v === 255)).toBe(true);

      // Shown as that picture in the row (not the glyph, not an empty box), white.
      const page = await studio.open(id, 1440, 900, 'zh', scheme);
      const row = page.locator('.layer-row', {
        has: page.getByRole('button', { name: '背景', exact: true }),
      });
      const img = row.locator('.layer-thumb img');
      await eventually(async () => {
        const p = await imagePixels(img);
        return p && new Set(p.data).size === 1 && p.data[0];
      }).toBe(255);
      expect(await row.locator('.layer-glyph').count()).toBe(0);
      // The checkerboard is under the picture alone: round it is the box's plain surround (the canvas's, round
      // the page), not squares that read as a dashed, empty box.
      const laid = await row.locator('.layer-thumb').evaluate((e) => {
        type Rect = { left: number; top: number; width: number; height: number };
        type El = { getBoundingClientRect(): Rect };
        const el = e as unknown as El & { querySelector(s: string): El | null };
        const view = (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundImage: string } })
          .getComputedStyle;
        const box = el.getBoundingClientRect();
        const pixels = el.querySelector('.layer-pixels')?.getBoundingClientRect();
        const picture = el.querySelector('img')!.getBoundingClientRect();
        return {
          boxSquares: view(e).backgroundImage !== 'none',
          under: pixels ? [pixels.width, pixels.height] : null,
          picture: {
            x0: picture.left - box.left,
            y0: picture.top - box.top,
            x1: picture.left + picture.width - box.left,
            y1: picture.top + picture.height - box.top,
          },
        };
      });
      expect(laid.boxSquares).toBe(false);
      expect(laid.under).toEqual([laid.picture.x1 - laid.picture.x0, laid.picture.y1 - laid.picture.y0]);
      // On screen: white where the picture is; one flat colour round it, inside the box's rounded border, that
      // is not white (the page's shape shows).
      const shot = await sharp(await row.locator('.layer-thumb').screenshot())
        .raw()
        .toBuffer({ resolveWithObject: true });
      const { channels, width: sw, height: sh } = shot.info;
      const { x0, y0, x1, y1 } = laid.picture;
      const inside: number[] = [];
      const round: number[][] = [];
      for (let y = 0; y < sh; y++)
        for (let x = 0; x < sw; x++) {
          const i = (y * sw + x) * channels;
          const rgb = [shot.data[i]!, shot.data[i + 1]!, shot.data[i + 2]!];
          // Past the border's rounded corners, and a pixel clear of the picture's edge (its hairline shadow).
          const border =
            Math.min(x, y, sw - 1 - x, sh - 1 - y) < 1 ||
            Math.min(x, sw - 1 - x) + Math.min(y, sh - 1 - y) < 6;
          if (border) continue;
          if (x >= x0 + 1 && x < x1 - 1 && y >= y0 + 1 && y < y1 - 1) inside.push(Math.min(...rgb));
          else if (x < x0 - 1 || x >= x1 + 1 || y < y0 - 1 || y >= y1 + 1) round.push(rgb);
        }
      const at = `${width}×${height} ${scheme}`;
      expect(Math.min(...inside), at).toBeGreaterThanOrEqual(250);
      expect(round.length, at).toBeGreaterThan(20);
      const spread = [0, 1, 2].map(
        (c) => Math.max(...round.map((p) => p[c]!)) - Math.min(...round.map((p) => p[c]!)),
      );
      expect(Math.max(...spread), at).toBeLessThanOrEqual(3);
      expect(Math.min(...round[0]!), at).toBeLessThan(240);
      await snapshot(page, `layers-white-background-${width}x${height}-${scheme}`);
      await page.context().close();
    }
  });
});
