/**
 * A white T-shirt on a coloured sweep lit in a round glow beside it, as mockups and studio shots often are. The
 * background is read as a plane fitted to the photo's frame, which a glow is not: its bright middle differs from
 * the plane and was read as garment. On a real product photo (a white shirt on a pale blue sweep) the garment's
 * bounds then ran to the frame and its body was read 569 px wide for about 380, so every print would have been
 * scaled a third too small. The glow is now followed from the frame as background, smoothly and without an outline
 * between, beside a garment clearly apart from the sweep. Both strengths below failed before.
 *
 * With a cast shadow besides, the shadow lies in the glow: darker than the lit sweep around it but not than the
 * plane, so it was not followed in as a shadow, and under the left sleeve it was read as the shirt's own print (a
 * blue-grey motif: theme_pattern for a plain shirt, the sweep's colour in the palette). A band of shadow a few px
 * deep below the hem stayed too, its lighter part closed off from the frame by its darker part. Five of the six
 * photos below failed so; the strongest glow also ran the bounds to x 24 through its bright middle.
 */
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { productPhoto } from '../support/garment-fixtures.js';
import { expectPlainShirt } from './plain-shirt.js';

const WHITE = '#f3f3f1';
const SWEEP = '#7cb8c8';

describe('a white T-shirt on a blue sweep with a glow beside it', () => {
  for (const strength of [0.45, 0.55]) {
    it(`reads the glow (${strength} of the way to white) as background`, async () => {
      const photo = await productPhoto('solid', {
        colour: WHITE,
        sweep: SWEEP,
        glow: { strength, at: [0.1, 0.55], radius: 0.45 },
        foot: 60,
      });
      const e = await analysePhoto(photo, 'glow.png', `glow-${strength}`);
      // Before: the bounds from x 0 (the glow's side of the frame), and at 0.55 the body read 470 px wide.
      expectPlainShirt(e, WHITE, [60, 150, 580, 600]);
    });
  }

  for (const castShadow of ['below', true] as const) {
    for (const strength of [0.3, 0.45, 0.55]) {
      it(`and a cast shadow (${castShadow === true ? 'right and below' : 'below'}) in a glow of ${strength}: a plain shirt, the shadow not in it`, async () => {
        const photo = await productPhoto('solid', {
          colour: WHITE,
          sweep: SWEEP,
          glow: { strength, at: [0.1, 0.55], radius: 0.45 },
          castShadow,
          foot: 60,
        });
        const e = await analysePhoto(photo, 'glow.png', `glow-shadow-${castShadow}-${strength}`);
        expectPlainShirt(e, WHITE, [60, 150, 580, 600]);
        expect(e.motif).toBeNull();
      });
    }
  }
});
