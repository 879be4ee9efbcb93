/**
 * A white T-shirt cut out onto pure white, lit from its right so that its right sleeve fades nearly to the
 * background, as web shops' product photos often are. The tolerance a photo's noise asks for took the lit side
 * for background, and clearShadow followed it in as a cast shadow (it darkens inwards as a shadow does): on a real
 * product photo the shirt's right sleeve and side were lost, the shirt read two whites and its silhouette tilted.
 * On a noiseless background the shirt is read again at a ΔE76 of 0.8, and what that adds is kept where its mirror
 * image is garment already — the lit side, not the shadow below the hem. Both lightings below lost the sleeve.
 */
import { describe, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { productPhoto } from '../support/garment-fixtures.js';
import { expectPlainShirt } from './plain-shirt.js';

const WHITE = '#f3f3f1';

describe('a white T-shirt lit into a pure white background', () => {
  for (const castShadow of [false, 'below'] as const) {
    it(`keeps its lit sleeve${castShadow ? ', and not its shadow below the hem' : ''}`, async () => {
      const photo = await productPhoto('solid', {
        colour: WHITE,
        sweep: '#ffffff',
        cutout: true,
        litFromRight: 0.95,
        castShadow,
        foot: 60,
      });
      const e = await analysePhoto(photo, 'lit.png', `lit-${castShadow}`);
      // Before: the right edge at 551, the lit sleeve's tip lost. The shadow below reaches 628 if taken.
      expectPlainShirt(e, WHITE, [59, 148, 580, 601]);
    });
  }
});
