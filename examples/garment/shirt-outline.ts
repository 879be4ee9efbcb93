/**
 * The example photos' T-shirt, seen from the front lying flat on an 800 px square: body 380 px wide, short sleeves,
 * a round neck. make-examples.ts draws the photos in it; the tests that dress it or cut it out know it from here.
 */
import type { SKRSContext2D } from '@napi-rs/canvas';

/** The photos' side, px. */
export const PHOTO = 800;

/** The shirt's outline as a path on `ctx` (not filled or stroked). */
export function shirtPath(ctx: SKRSContext2D): void {
  const cx = PHOTO / 2;
  ctx.beginPath();
  ctx.moveTo(cx - 75, 170); // neck, left
  ctx.quadraticCurveTo(cx, 260, cx + 75, 170); // front neckline
  ctx.lineTo(cx + 190, 190); // right shoulder
  ctx.lineTo(cx + 330, 290); // sleeve top
  ctx.lineTo(cx + 270, 385); // sleeve hem
  ctx.lineTo(cx + 190, 340); // underarm
  ctx.lineTo(cx + 195, 730); // side seam to hem
  ctx.lineTo(cx - 195, 730);
  ctx.lineTo(cx - 190, 340);
  ctx.lineTo(cx - 270, 385);
  ctx.lineTo(cx - 330, 290);
  ctx.lineTo(cx - 190, 190);
  ctx.closePath();
}
