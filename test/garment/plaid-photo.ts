/**
 * A plaid T-shirt on the studio sweep, as garmentPhoto draws it (plaidAt's checks, whose one-band cells are
 * within a few ΔE of the sweep's grey; its mild folds; its noise), with a back neck band across the top of the
 * neck scoop when `band`: the neck opening is then a hole showing the sweep. Its silhouette (inPlaidShirt) and
 * neck opening (inPlaidNeck) are known exactly, for a mask to be measured against.
 */
import sharp from 'sharp';
import { inShirt, PHOTO, plaidAt } from '../support/garment-fixtures.js';

/** The shirt, with the back neck band (y 140..150, 120 px wide) when `band`. */
export function inPlaidShirt(x: number, y: number, band: boolean): boolean {
  if (inShirt(x, y)) return true;
  return band && y >= 140 && y < 150 && Math.abs(x + 0.5 - 320) < 60;
}

/** The neck opening: the scoop below the band's line, inside the front neckline. */
export function inPlaidNeck(x: number, y: number): boolean {
  return y >= 150 && y < 200 && Math.abs(x + 0.5 - 320) < 55 && !inShirt(x, y);
}

/** The photo as PNG, 640 × 640 px (`zoom` times as many px, every size in it `zoom` times larger). */
export async function plaidShirtPhoto(band: boolean, zoom = 1): Promise<Buffer> {
  const w = Math.round(PHOTO.width * zoom);
  const h = Math.round(PHOTO.height * zoom);
  const data = Buffer.alloc(w * h * 3);
  let seed = 60606;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return ((seed >> 8) % 9) - 4;
  };
  for (let Y = 0; Y < h; Y++) {
    for (let X = 0; X < w; X++) {
      const x = (X + 0.5) / zoom - 0.5;
      const y = (Y + 0.5) / zoom - 0.5;
      let c: readonly number[];
      if (inPlaidShirt(Math.floor(x + 0.5), Math.floor(y + 0.5), band)) {
        const shade = 0.95 + 0.05 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
        c = plaidAt(x, y).map((v) => v * shade);
      } else {
        const g = 122 + Math.round((Y / h) * 18);
        c = [g, g + 6, g + 14];
      }
      const o = (Y * w + X) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + noise()));
    }
  }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}
