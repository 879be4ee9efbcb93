/**
 * Gradient overlays (渐变叠加) against Photoshop's own composite of the same file (test/fixtures/photoshop-effects:
 * PSDs saved by Photoshop, each with its merged image): a four-stop Classic gradient on a Background layer in each of
 * the 27 blend modes; Classic on a solid colour fill layer at fill 0, aligned with the layer or with the canvas at
 * 31 % scale and an offset; Smooth at 0°, 30° and 90°, reversed, in normal and overlay mode, on a star. Compared over
 * white, as the colour overlays are. Before, none was drawn: 6–122 levels off on average.
 */
import { readFileSync } from 'node:fs';
import { readPsd } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { BLEND_MODES } from '../../../src/engine/model.js';
import { againstPhotoshopComposite, styledSquarePsd } from '../../support/photoshop-composite.js';
import { newSession, ok } from '../../support/session.js';

const DIR = new URL('../../fixtures/photoshop-effects/', import.meta.url);

const againstPhotoshop = (file: string) => againstPhotoshopComposite(new URL(file, DIR));

const readBack = (buf: Buffer, name: string) =>
  readPsd(buf, {
    skipLayerImageData: true,
    skipCompositeImageData: true,
    skipThumbnail: true,
  }).children!.find((l) => l.name === name)!;

describe("gradient overlays against Photoshop's composite", () => {
  const modes = BLEND_MODES.filter((m) => m !== 'pass through');

  it.each(modes)('draws a Classic gradient overlay in %s mode as Photoshop does', async (mode) => {
    const { mean, off, warnings } = await againstPhotoshop(`effect-${mode.replace(/ /g, '-')}.psd`);
    // Darker/lighter colour and hard mix flip a few pixels where the two sides tie (0.2 % of them).
    expect(mean).toBeLessThanOrEqual(1);
    expect(off).toBeLessThan(0.005);
    expect(warnings.join()).not.toMatch(/渐变叠加/);
  });

  it('draws Classic overlays on a fill layer at fill 0, aligned with the layer or scaled on the canvas', async () => {
    for (const file of ['gradient-overlay-6.psd', 'gradient-overlay-7.psd']) {
      const { max, mean } = await againstPhotoshop(file);
      expect(mean, file).toBeLessThanOrEqual(0.6);
      expect(max, file).toBeLessThanOrEqual(5);
    }
  });

  it('draws Smooth overlays at 0°, 30° and 90°, reversed, in normal and overlay mode', async () => {
    // The same spline in Oklab: a few pixels of the star are up to 12 levels off where its colours turn fastest.
    for (const file of [1, 2, 3, 4, 5]
      .map((i) => `gradient-overlay-${i}.psd`)
      .concat('multiple-overlays-1-no-color.psd')) {
      const { mean, off, warnings } = await againstPhotoshop(file);
      expect(mean, file).toBeLessThanOrEqual(0.9);
      expect(off, file).toBeLessThan(0.015);
      expect(warnings.join(), file).not.toMatch(/渐变叠加/);
    }
  });

  it('says which overlays it does not draw, and keeps them', async () => {
    const s = newSession();
    // Opened first: it sets ag-psd up to write pixels.
    await s.workspace.writeAtomic('normal.psd', readFileSync(new URL('effect-normal.psd', DIR)));
    await ok(s, 'open_document', { path: 'normal.psd' });
    const overlay = readBack(readFileSync(new URL('effect-normal.psd', DIR)), 'Background').effects!
      .gradientOverlay![0]!;
    await s.workspace.writeAtomic(
      'radial.psd',
      styledSquarePsd('Radial', { gradientOverlay: [{ ...overlay, type: 'radial' }] }),
    );
    const opened = await ok(s, 'open_document', { path: 'radial.psd' });
    expect(JSON.stringify(opened.warnings)).toMatch(/渐变叠加（径向渐变）/);
    const pixel = await ok(s, 'get_pixel_color', { x: 24, y: 24 });
    expect(JSON.stringify(pixel)).toMatch(/#c8c8c8/i);
    await ok(s, 'save_document_as', { path: 'radial-saved.psd' });
    const saved = readBack(await s.workspace.read('radial-saved.psd'), 'Radial');
    expect(saved.effects?.gradientOverlay?.[0]?.type).toBe('radial');
  });

  it('reports the overlay, saves it as the file had it, and clears it with the style', async () => {
    const s = newSession();
    await s.workspace.writeAtomic('g.psd', readFileSync(new URL('gradient-overlay-5.psd', DIR)));
    await ok(s, 'open_document', { path: 'g.psd' });
    await ok(s, 'select_layers', { names: ['Star 1'] });
    const info = await ok(s, 'get_active_layer_info');
    expect(info).toMatchObject({
      layer: {
        effects: {
          gradient_overlay: [
            {
              style: 'linear',
              angle: 0,
              scale: 100,
              reverse: true,
              opacity: 100,
              blend_mode: 'overlay',
              colors: [
                { at: 0, color: '#12d6df' },
                { at: 100, color: '#f70fff' },
              ],
            },
          ],
        },
      },
    });
    const layers = await ok(s, 'get_layer_structure');
    expect(JSON.stringify(layers)).toMatch(/gradient_overlay/);
    await ok(s, 'save_document_as', { path: 'saved.psd' });
    const before = readBack(await s.workspace.read('g.psd'), 'Star 1').effects?.gradientOverlay;
    const after = readBack(await s.workspace.read('saved.psd'), 'Star 1').effects?.gradientOverlay;
    expect(after?.map((g) => [g.angle, g.type, g.blendMode, g.gradient])).toEqual(
      before?.map((g) => [g.angle, g.type, g.blendMode, g.gradient]),
    );
    const cleared = await ok(s, 'clear_layer_effects', { name: 'Star 1' });
    expect(cleared.removed).toContain('gradient_overlay');
    await ok(s, 'save_document_as', { path: 'cleared.psd' });
    expect(readBack(await s.workspace.read('cleared.psd'), 'Star 1').effects?.gradientOverlay ?? []).toEqual(
      [],
    );
  });
});
