/**
 * The adjustment layers Atelier draws, against Photoshop's own composite of the same file (test/fixtures/
 * photoshop-adjustments: PSDs saved by Photoshop, each with its merged image): brightness/contrast, color balance,
 * curves, exposure, hue/saturation (Colorize too), invert (masked, clipped, and as a clipping base), levels, posterize
 * and threshold, each over a
 * gradient-filled ellipse on a patterned background. The hand-written kernels (research: Photoshop's adjustments)
 * are compared with what Photoshop made, pixel for pixel over white.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { againstPhotoshopComposite } from '../../support/photoshop-composite.js';

const DIR = new URL('../../fixtures/photoshop-adjustments/', import.meta.url);
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.psd'));

/**
 * Channel levels the composite may differ by, anywhere and on average: brightness ±150 rounds its table a level
 * or several from Photoshop's in the darkest tones (7 at most); the rest agree within 2.
 */
const MAX_LEVELS = 8;
const MEAN_LEVELS = 2;

/** Both composites over white, channel by channel: the largest and the mean difference. */
async function againstPhotoshop(file: string): Promise<{ max: number; mean: number }> {
  const { max, mean } = await againstPhotoshopComposite(new URL(file, DIR));
  return { max, mean };
}

describe("adjustment layers against Photoshop's composite", () => {
  it('holds the adjustments Atelier draws', () => {
    expect(FILES.length).toBe(54);
  });

  for (const file of FILES) {
    it(`draws ${file.replace('.psd', '')} as Photoshop does`, async () => {
      const { max, mean } = await againstPhotoshop(file);
      expect(max, `largest difference ${max.toFixed(1)}`).toBeLessThanOrEqual(MAX_LEVELS);
      expect(mean, `mean difference ${mean.toFixed(2)}`).toBeLessThanOrEqual(MEAN_LEVELS);
    });
  }

  it('draws Color Balance and Colorize, which were kept and not drawn', async () => {
    // Before: Color Balance 3–100 levels off on average (not drawn), Colorize 28.
    for (const file of FILES.filter((f) => f.startsWith('colorbalance') || f.includes('colorize'))) {
      const { max, mean } = await againstPhotoshop(file);
      expect(max, file).toBeLessThanOrEqual(2);
      expect(mean, file).toBeLessThanOrEqual(0.6);
    }
  });

  it('shows layers clipped to an adjustment layer wherever its mask does, over what it made', async () => {
    // An invert layer with a mask, two ellipses clipped to it: they showed nowhere (mean 97 levels off).
    expect(await againstPhotoshop('invert-clippingbase.psd')).toEqual({ max: 0, mean: 0 });
  });
});
