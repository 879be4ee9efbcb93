/**
 * The garment photo as designers' photos come: JPEG at phone and web quality (4:2:0 chroma), taken not quite
 * from above, on a hanger, with a cast shadow and a vignette, cropped so the garment touches the frame, and at
 * a modern phone's resolution. Each is a deterministic fixture with known answers: the garment found (not a
 * swatch), its body width (the scale's basis), a palette of the print's colours only, the repeat's period, and a
 * motif where there is one.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE00, type Lab, labOfHex } from '../../src/garment/color.js';
import type { Extraction } from '../../src/garment/types.js';
import {
  GROUND,
  garmentPhoto,
  HANGER,
  LIGHT_PERIOD,
  LIGHT_PRODUCT,
  NAVY,
  PLAID_TILE,
  plainGarmentPhoto,
  productPhoto,
  RED,
  STAR,
  STRIPE,
  THEME_GROUND,
  TILE,
} from '../support/garment-fixtures.js';

/** The studio sweep of garmentPhoto, top and bottom. */
const STUDIO = ['#7a8088', '#8c929a'];

function expectBox(box: { x: number; y: number; w: number; h: number }, want: number[], px: number): void {
  const got = [box.x, box.y, box.x + box.w, box.y + box.h];
  for (const [i, v] of got.entries())
    expect(Math.abs(v - want[i]!), `edge ${i}: ${v} for ${want[i]}`).toBeLessThanOrEqual(px);
}

/**
 * Every print colour is in the palette (ΔE00 < 6) and every palette colour is a print colour, nearer it than the
 * background (unless that print colour is the background's own within a few ΔE: a white shirt on white).
 */
function expectPalette(e: Extraction, print: readonly string[], background: readonly string[]): void {
  const truth = print.map(labOfHex);
  const behind = background.map(labOfHex);
  const near = (c: Lab, to: readonly Lab[]) => Math.min(...to.map((q) => deltaE00(c, q)));
  for (const [i, t] of truth.entries())
    expect(
      near(
        t,
        e.palette.map((c) => c.lab),
      ),
      `${print[i]} is in ${paletteText(e)}`,
    ).toBeLessThan(6);
  for (const c of e.palette) {
    const toPrint = near(c.lab, truth);
    expect(toPrint, `${c.hex} of ${paletteText(e)} is a print colour`).toBeLessThan(6);
    const nearest = truth.find((t) => deltaE00(c.lab, t) === toPrint)!;
    if (near(nearest, behind) > 6)
      expect(toPrint, `${c.hex} is not the background`).toBeLessThan(near(c.lab, behind));
  }
  expect(e.palette, paletteText(e)).toHaveLength(print.length);
}

const paletteText = (e: Extraction) => e.palette.map((c) => `${c.hex} ${c.share}`).join(', ');

/** The repeat `w × h` in the photo's own px (it may be read at a scale a little under 1, where it is whole px). */
function expectPeriod(e: Extraction, w: number, h: number): void {
  expect(e.lattice, 'the repeat is found').not.toBeNull();
  const [tw, th] = [e.lattice!.tileW / e.analysisScale, e.lattice!.tileH / e.analysisScale];
  expect(Math.abs(tw / w - 1), `tile ${tw} for ${w}`).toBeLessThanOrEqual(0.02);
  expect(Math.abs(th / h - 1), `tile ${th} for ${h}`).toBeLessThanOrEqual(0.02);
}

const jpeg = async (png: Buffer, quality: number) => sharp(png).jpeg({ quality }).toBuffer();

describe('a JPEG photo (quality 60–75, 4:2:0): blocking and ringing are not garment, colours or motifs', () => {
  // Before: the ringing beside the outline was taken into the garment (bounds 12 px wide of it on each side,
  // body 304–317 px), a print's mixed edges into the palette (a pink halo around red dots, the background's
  // grey), a small motif's colour spread over too many cells to count (the red dots lost), and a motif or the
  // stripes' repeat lost.
  it('a block repeat at quality 60 and the same with a motif over it at 75', async () => {
    const fill = await analysePhoto(await jpeg(await garmentPhoto('fill'), 60), 'p.jpg', 'h');
    expect([fill.swatch, fill.kind, fill.motif]).toEqual([false, 'fill_pattern', null]);
    expectBox(fill.garment, [60, 150, 580, 600], 3);
    expect(Math.abs(fill.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
    expectPeriod(fill, TILE, TILE);
    expectPalette(fill, [GROUND, NAVY, RED], STUDIO);

    const mixed = await analysePhoto(await jpeg(await garmentPhoto('mixed'), 75), 'p.jpg', 'h');
    expect(mixed.kind).toBe('mixed_pattern');
    expectBox(mixed.motif!.bounds, [270, 278, 371, 377], 3);
    expect(Math.abs(mixed.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
    expectPeriod(mixed, TILE, TILE);
  }, 120_000);

  it('stripes, a plaid, a star on a red shirt, and a plain navy shirt on white at quality 60', async () => {
    const stripes = await analysePhoto(await jpeg(await garmentPhoto('stripes'), 60), 'p.jpg', 'h');
    expect(Math.abs(stripes.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
    expect(stripes.lattice!.tileH).toBe(STRIPE.period);
    expectPalette(stripes, [GROUND, NAVY], STUDIO);

    // A plaid's grey (navy over cream) is a colour of the print, though it lies between two others.
    const plaid = await analysePhoto(await jpeg(await garmentPhoto('plaid'), 60), 'p.jpg', 'h');
    expectPeriod(plaid, PLAID_TILE, PLAID_TILE);
    expect(Math.abs(plaid.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
    expectPalette(plaid, [GROUND, NAVY, RED, '#848b96'], STUDIO);

    const star = await analysePhoto(await jpeg(await garmentPhoto('star'), 60), 'p.jpg', 'h');
    expect(star.kind).toBe('theme_pattern');
    expectBox(star.motif!.bounds, [263, 271, 377, 378], 3);
    expectBox(star.garment, [60, 150, 580, 600], 3);
    expectPalette(star, [STAR.ground, STAR.motif], STUDIO);

    const navy = { ground: NAVY, background: '#f2f2f2', neck: 'inside', shadow: 0.4 } as const;
    const plain = await analysePhoto(await jpeg(await plainGarmentPhoto(navy), 60), 'p.jpg', 'h');
    expect([plain.kind, plain.motif, plain.lattice]).toEqual(['solid', null, null]);
    expect(Math.abs(plain.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
    expectPalette(plain, [NAVY], [navy.background]);
  }, 120_000);

  it('small red dots on a white shirt on a light background', async () => {
    const e = await analysePhoto(await jpeg(await productPhoto('dots'), 60), 'p.jpg', 'h');
    expect([e.swatch, e.kind, e.motif]).toEqual([false, 'fill_pattern', null]);
    expect(Math.abs(e.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.05);
    expectPeriod(e, LIGHT_PERIOD.dots, LIGHT_PERIOD.dots);
    expectPalette(e, [LIGHT_PRODUCT.ground, '#d0312d'], [LIGHT_PRODUCT.background]);
  }, 120_000);
});

describe('a photo taken not quite from above, and a garment on a hanger', () => {
  it('a keystone (hem 8 % wider than the shoulders): body width and repeat measured alike', async () => {
    const e = await analysePhoto(await productPhoto('fill', { keystone: 0.08 }), 'p.png', 'h');
    expect([e.swatch, e.kind, e.motif]).toEqual([false, 'fill_pattern', null]);
    // The body at 65 % of the garment's height is 300 px widened by 0.08 × 0.65.
    expect(Math.abs(e.bodyWidth / (300 * 1.052) - 1)).toBeLessThanOrEqual(0.05);
    // The scale comes from the body width: the repeat across it keeps its share of the body (64 of 300).
    expect(Math.abs(e.lattice!.tileW / e.bodyWidth / (TILE / 300) - 1)).toBeLessThanOrEqual(0.05);
    // In the photo's own px (the repeat may be read at a scale a little under 1, where it is whole px).
    expect(Math.abs(e.lattice!.tileH / e.analysisScale / TILE - 1)).toBeLessThanOrEqual(0.02);
    expectPalette(e, [GROUND, NAVY, RED], STUDIO);
  }, 120_000);

  it('the hanger above the shoulders is not garment, colour or motif', async () => {
    // Before: the garment reached up to the hook (y 70), so the motif was placed 80 px too low on the piece.
    const theme = await analysePhoto(await productPhoto('theme', { hanger: true }), 'p.png', 'h');
    expectBox(theme.garment, [60, 150, 580, 600], 3);
    expect(theme.kind).toBe('theme_pattern');
    expectBox(theme.motif!.bounds, [270, 278, 371, 377], 3);
    expect(Math.abs(theme.motif!.dy - 128)).toBeLessThanOrEqual(3);
    expectPalette(theme, [THEME_GROUND, '#8e1b2b'], [HANGER, ...STUDIO]);

    const fill = await analysePhoto(await productPhoto('fill', { hanger: true }), 'p.png', 'h');
    expectBox(fill.garment, [60, 150, 580, 600], 3);
    expect([fill.kind, fill.motif, fill.bodyWidth]).toEqual(['fill_pattern', null, 300]);
    expectPeriod(fill, TILE, TILE);
    expectPalette(fill, [GROUND, NAVY, RED], [HANGER, ...STUDIO]);
  }, 120_000);
});

describe('a cast shadow on one side and a vignette, on a light-ground print', () => {
  it.each([
    ['dots', 0.2],
    ['flowers', 0.25],
  ] as const)(
    '%s, corners %f darker',
    async (print, vignette) => {
      const e = await analysePhoto(await productPhoto(print, { castShadow: true, vignette }), 'p.png', 'h');
      expect([e.swatch, e.kind, e.motif]).toEqual([false, 'fill_pattern', null]);
      expect(Math.abs(e.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.05);
      expectPeriod(e, LIGHT_PERIOD[print], LIGHT_PERIOD[print]);
      const colours = print === 'dots' ? ['#d0312d'] : ['#e0709a', '#4f8a3c'];
      expectPalette(e, [LIGHT_PRODUCT.ground, ...colours], [LIGHT_PRODUCT.background]);
    },
    120_000,
  );
});

describe('a cropped product photo: the garment fills the frame and touches its edges', () => {
  // The fixture's T-shirt cut by the frame at its left sleeve and its hem; its body is whole across.
  const crop = async (kind: 'fill' | 'theme') =>
    sharp(await garmentPhoto(kind))
      .extract({ left: 100, top: 110, width: 500, height: 470 })
      .png()
      .toBuffer();

  it('is not a swatch: the body width, the repeat and the palette are the garment’s', async () => {
    // Before: the background plane was fitted half-way to the garment along the cut edge and the garment found
    // along a quarter of the frame was refused: a swatch, its palette with the background's grey.
    const e = await analysePhoto(await crop('fill'), 'p.png', 'h');
    expect([e.swatch, e.kind, e.motif]).toEqual([false, 'fill_pattern', null]);
    expect(Math.abs(e.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
    expectPeriod(e, TILE, TILE);
    expectPalette(e, [GROUND, NAVY, RED], STUDIO);
  }, 120_000);

  it('finds the motif where it is, and no motif in the background', async () => {
    const e = await analysePhoto(await crop('theme'), 'p.png', 'h');
    expect([e.swatch, e.kind]).toEqual([false, 'theme_pattern']);
    expectBox(e.motif!.bounds, [170, 168, 271, 267], 3);
    expect(Math.abs(e.bodyWidth / 300 - 1)).toBeLessThanOrEqual(0.02);
    expectPalette(e, [THEME_GROUND, '#8e1b2b'], STUDIO);
  }, 120_000);
});

describe('a phone photo of 4000 px reads as the same photo at 1024 px', () => {
  it('a block repeat', async () => {
    const big = await analysePhoto(await garmentPhoto('fill', 6.25), 'p.png', 'h');
    const small = await analysePhoto(await garmentPhoto('fill', 1.6), 'p.png', 'h');
    expect(big.analysisScale).toBeLessThan(0.3);
    expect([big.swatch, big.kind, big.motif]).toEqual([small.swatch, small.kind, small.motif]);
    expect(Math.abs(big.bodyWidth / small.bodyWidth - 1)).toBeLessThanOrEqual(0.01);
    // The repeat is 64 px times the zoom in each photo (64 × 1.6 px at the 1024 px analysis size, in both).
    expectPeriod(big, TILE * 6.25, TILE * 6.25);
    expectPeriod(small, TILE * 1.6, TILE * 1.6);
    expect(big.palette).toHaveLength(small.palette.length);
    for (const [i, c] of big.palette.entries())
      expect(deltaE00(c.lab, small.palette[i]!.lab)).toBeLessThan(3);
  }, 180_000);
});
