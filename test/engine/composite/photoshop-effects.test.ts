/**
 * Colour overlays (颜色叠加) against Photoshop's own composite of the same file (test/fixtures/photoshop-effects:
 * PSDs saved by Photoshop, each with its merged image): one overlay, two at half opacity, at fill 0 (the overlay
 * shows whole, not faded by the fill), at layer opacity 50 % and 60 %, on a text layer, beside a stroke, and
 * with the gradient and pattern overlays switched off. Compared pixel for pixel over white, as the adjustments are.
 */
import { readFileSync } from 'node:fs';
import { readPsd } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { againstPhotoshopComposite } from '../../support/photoshop-composite.js';
import { newSession, ok } from '../../support/session.js';

const DIR = new URL('../../fixtures/photoshop-effects/', import.meta.url);

const againstPhotoshop = (file: string) => againstPhotoshopComposite(new URL(file, DIR));

describe("colour overlays against Photoshop's composite", () => {
  for (const [file, what] of [
    ['color-overlay-1.psd', 'one red overlay'],
    ['color-overlay-2.psd', 'two overlays at half opacity, the first listed on top'],
    ['color-overlay-5.psd', 'fill 0: the overlay whole'],
    ['color-overlay-6.psd', 'fill 0 at layer opacity 50 %'],
    ['color-overlay-7.psd', 'fill 0, overlay 50 %, layer 60 %'],
    ['multiple-overlays-1-all.psd', 'beside a stroke, gradient and pattern overlays off'],
    ['multiple-overlays-1-duplicate-colors.psd', 'two opaque overlays: the top one shows'],
  ] as const) {
    it(`draws ${what} as Photoshop does`, async () => {
      // Before: 9–32 levels off on average, the overlay said not to be drawn.
      const { max, mean, warnings } = await againstPhotoshop(file);
      expect(max).toBeLessThanOrEqual(1);
      expect(mean).toBeLessThanOrEqual(0.2);
      expect(warnings.join()).not.toMatch(/颜色叠加/);
    });
  }

  it('draws overlays beside a 1 px stroke and on text, the edges aside', async () => {
    // The stroke's and the glyphs' anti-aliased edges differ by a pixel here and there; the overlay's colour is
    // Photoshop's everywhere else.
    for (const file of ['color-overlay-4.psd', 'color-overlay-8-text.psd']) {
      const { mean, off } = await againstPhotoshop(file);
      expect(mean, file).toBeLessThanOrEqual(1.5);
      expect(off, file).toBeLessThan(0.03);
    }
  });

  it('reports the overlays, saves them as the file had them, and clears them with the style', async () => {
    const s = newSession();
    await s.workspace.writeAtomic('two.psd', readFileSync(new URL('color-overlay-2.psd', DIR)));
    await ok(s, 'open_document', { path: 'two.psd' });
    await ok(s, 'select_layers', { names: ['Star 1'] });
    const info = await ok(s, 'get_active_layer_info');
    expect(info).toMatchObject({
      layer: {
        effects: {
          color_overlay: [
            { color: '#ff0000', opacity: 50 },
            { color: '#ffff00', opacity: 50 },
          ],
        },
      },
    });
    await ok(s, 'save_document_as', { path: 'saved.psd' });
    const read = (file: string) =>
      readPsd(readFileSync(`${s.workspace.root}/${file}`), {
        skipLayerImageData: true,
        skipCompositeImageData: true,
        skipThumbnail: true,
      }).children!.find((l) => l.name === 'Star 1')!;
    expect(read('saved.psd').effects?.solidFill?.map((o) => [o.opacity, o.color])).toEqual(
      read('two.psd').effects?.solidFill?.map((o) => [o.opacity, o.color]),
    );
    const cleared = await ok(s, 'clear_layer_effects', { name: 'Star 1' });
    expect(cleared.removed).toContain('color_overlay');
    await ok(s, 'save_document_as', { path: 'cleared.psd' });
    expect(read('cleared.psd').effects?.solidFill ?? []).toEqual([]);
  });
});
