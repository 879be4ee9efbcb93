/**
 * Drop shadows, inner shadows and glows against Photoshop's own composite of the same file (test/fixtures/
 * photoshop-effects: PSDs saved by Photoshop, each with its merged image): a star with each effect — distance,
 * choke or spread and size varied, normal, multiply and screen, an inner glow from the edge and from the centre,
 * beside colour overlays and strokes. Compared over white, as the overlays are. Before, inner shadows and glows
 * were kept and not drawn (2–18 levels off on average), and shadows blurred by size / 3 were 0.4–2.6 off.
 */
import { readFileSync } from 'node:fs';
import { readPsd } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { againstPhotoshopComposite, styledSquarePsd } from '../../support/photoshop-composite.js';
import { newSession, ok } from '../../support/session.js';

const DIR = new URL('../../fixtures/photoshop-effects/', import.meta.url);

const againstPhotoshop = (file: string) => againstPhotoshopComposite(new URL(file, DIR));

describe("shadows and glows against Photoshop's composite", () => {
  it('draws inner shadows and inner glows, from the edge and from the centre', async () => {
    for (const file of ['inner-shadow-1', 'inner-shadow-2', 'inner-glow-1', 'inner-glow-2', 'inner-glow-3']) {
      const { max, mean, warnings } = await againstPhotoshop(`${file}.psd`);
      expect(mean, file).toBeLessThanOrEqual(0.25);
      expect(max, file).toBeLessThanOrEqual(8);
      expect(warnings.join(), file).not.toMatch(/内阴影|内发光/);
    }
  });

  it('draws outer glows, in normal and multiply mode', async () => {
    const alone = await againstPhotoshop('outer-glow-1.psd');
    expect(alone.mean).toBeLessThanOrEqual(0.5);
    expect(alone.max).toBeLessThanOrEqual(8);
    expect(alone.warnings.join()).not.toMatch(/外发光/);
    // Beside a 1 px stroke, whose anti-aliased edge differs: the glow itself is within a few levels.
    expect((await againstPhotoshop('outer-glow-2.psd')).mean).toBeLessThanOrEqual(2.2);
  });

  it('blurs drop shadows as Photoshop does', async () => {
    for (const file of ['drop-shadow-1', 'drop-shadow-2', 'drop-shadow-6', 'drop-shadow-7-text']) {
      const { mean, off } = await againstPhotoshop(`${file}.psd`);
      expect(mean, file).toBeLessThanOrEqual(1.2);
      expect(off, file).toBeLessThan(0.03);
    }
    // With a stroke whose star tips Photoshop keeps pointed and Atelier rounds (up to 255 levels at a few pixels).
    for (const file of ['drop-shadow-3', 'drop-shadow-4', 'drop-shadow-5']) {
      expect((await againstPhotoshop(`${file}.psd`)).mean, file).toBeLessThanOrEqual(2.4);
    }
  });

  it('reports them, and says which it does not draw', async () => {
    const s = newSession();
    await s.workspace.writeAtomic('glow.psd', readFileSync(new URL('inner-glow-3.psd', DIR)));
    await ok(s, 'open_document', { path: 'glow.psd' });
    await ok(s, 'select_layers', { names: ['Star 1'] });
    expect(await ok(s, 'get_active_layer_info')).toMatchObject({
      layer: {
        effects: {
          inner_glow: { size: 10, spread: 20, color: '#ffff00', opacity: 70, range: 50, source: 'center' },
        },
      },
    });
    const structure = JSON.stringify(await ok(s, 'get_layer_structure'));
    expect(structure).toMatch(/inner_glow/);

    // A glow with the Precise technique is kept and not drawn, and the open says so.
    const file = readPsd(readFileSync(new URL('outer-glow-1.psd', DIR)), {
      skipThumbnail: true,
      useImageData: true,
    });
    const glow = file.children!.find((l) => l.name === 'Star 1')!.effects!.outerGlow!;
    await s.workspace.writeAtomic(
      'precise.psd',
      styledSquarePsd('Precise', { outerGlow: { ...glow, technique: 'precise' } as never }),
    );
    const opened = await ok(s, 'open_document', { path: 'precise.psd' });
    expect(JSON.stringify(opened.warnings)).toMatch(/外发光（精确方法）/);
    // Nothing drawn around the layer: a glow of that size would reach this pixel.
    expect(await ok(s, 'get_pixel_color', { x: 4, y: 4 })).toMatchObject({ a: 0 });
  });
});
