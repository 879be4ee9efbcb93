/**
 * On-model product photos: the example shirts worn, the wearer's head and neck through the neck opening, arms out
 * of the sleeves and trousers below the hem, cut by the frame as shops crop them. Before, the wearer was read as
 * garment: its bounds ran from the hair to the frame's foot, skin and trousers came into the palette, a plain
 * shirt read as a motif print and an all-over one as a mixed print, and verify scored a correct result 2.5–4.3.
 * Now each reads as the same shirt laid flat does (wearer.ts).
 *
 * The wearer is drawn behind each example photo's shirt (its outline from examples/garment/shirt-outline.ts), in
 * two skin tones. Such a photo cut out by a background remover (the wearer kept with the garment) reads the same.
 * Also checked: a flat-lay shirt whose own parts are of other colours (red or skin-like camel sleeves, a navy hem
 * band) keeps them, cropped by the frame too.
 */
import { readFileSync } from 'node:fs';
import { createCanvas, loadImage, type SKRSContext2D } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { PHOTO, shirtPath } from '../../examples/garment/shirt-outline.js';
import sharp from '../../src/engine/sharp.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE76, labOfHex } from '../../src/garment/color.js';
import type { Extraction } from '../../src/garment/types.js';
import { newSession, ok } from '../support/session.js';

const EXAMPLES = 'examples/garment';
const SIDE = PHOTO;
const CX = SIDE / 2;

interface Wearer {
  readonly skin: string;
  readonly hair: string;
  readonly trousers: string;
}

const WEARERS: Record<string, Wearer> = {
  light: { skin: '#e2b99a', hair: '#2b1d14', trousers: '#4a6b8c' },
  dark: { skin: '#8a5a3c', hair: '#141010', trousers: '#1b1b1b' },
};

/** A person drawn (head cut by the frame's top, legs by its foot), the shirt's outline cleared out of it. */
function person(ctx: SKRSContext2D, p: Wearer): void {
  ctx.fillStyle = p.trousers;
  ctx.beginPath();
  for (const [x, y] of [
    [-185, 700],
    [185, 700],
    [170, 800],
    [15, 800],
    [0, 760],
    [-15, 800],
    [-170, 800],
  ] as const)
    ctx.lineTo(CX + x, y);
  ctx.closePath();
  ctx.fill();
  ctx.fillStyle = p.skin;
  for (const s of [-1, 1]) {
    ctx.beginPath();
    for (const [x, y] of [
      [300, 330],
      [250, 360],
      [235, 600],
      [255, 640],
      [285, 630],
      [290, 590],
    ] as const)
      ctx.lineTo(CX + s * x, y);
    ctx.closePath();
    ctx.fill();
  }
  ctx.fillRect(CX - 40, 120, 80, 110);
  ctx.beginPath();
  ctx.ellipse(CX, 80, 58, 75, 0, 0, 2 * Math.PI);
  ctx.fill();
  ctx.fillStyle = p.hair;
  ctx.beginPath();
  ctx.ellipse(CX, 40, 62, 45, 0, Math.PI, 2 * Math.PI);
  ctx.fill();
  ctx.fillRect(CX - 62, 0, 124, 40);
  ctx.globalCompositeOperation = 'destination-out';
  shirtPath(ctx);
  ctx.fill();
  ctx.globalCompositeOperation = 'source-over';
}

/** The example photo with the shirt worn: the person over the background, behind the shirt. */
async function worn(kind: string, who: Wearer): Promise<Buffer> {
  const canvas = createCanvas(SIDE, SIDE);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(await loadImage(readFileSync(`${EXAMPLES}/photo-${kind}.jpg`)), 0, 0);
  const layer = createCanvas(SIDE, SIDE);
  person(layer.getContext('2d'), who);
  ctx.drawImage(layer, 0, 0);
  return canvas.encode('jpeg', 90);
}

/** A grey shirt with red sleeves (or `sleeves`) and a navy hem band, flat on a light sweep, moved by (dx, dy). */
function contrastShirt(dx: number, dy: number, sleeves = '#b3202a') {
  const canvas = createCanvas(SIDE, SIDE);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#f4f4f4';
  ctx.fillRect(0, 0, SIDE, SIDE);
  ctx.translate(dx, dy);
  shirtPath(ctx);
  ctx.clip();
  ctx.fillStyle = '#8d9299';
  ctx.fillRect(-SIDE, -SIDE, 3 * SIDE, 3 * SIDE);
  ctx.fillStyle = sleeves;
  ctx.fillRect(-SIDE, -SIDE, SIDE + CX - 190, 3 * SIDE);
  ctx.fillRect(CX + 190, -SIDE, 2 * SIDE, 3 * SIDE);
  ctx.fillStyle = '#1d3557';
  ctx.fillRect(-SIDE, 690, 3 * SIDE, 40);
  return canvas;
}

const read = (bytes: Buffer) => analysePhoto(bytes, 'photo.jpg', 'test');
const bottom = (e: Extraction) => e.garment.y + e.garment.h;

describe('a shirt photographed worn', () => {
  it('reads as the same shirt laid flat: bounds, body width, kind and palette, without the wearer', async () => {
    for (const kind of ['allover', 'motif', 'solid']) {
      const flat = await read(readFileSync(`${EXAMPLES}/photo-${kind}.jpg`));
      for (const [name, who] of Object.entries(WEARERS)) {
        const view = `${kind}, ${name} skin`;
        const e = await read(await worn(kind, who));
        expect(e.kind, view).toBe(flat.kind);
        expect(e.swatch, view).toBe(false);
        // The shirt's top at the shoulders and its hem, not the hair and the frame's foot (the example shirt's
        // 556 px).
        expect(Math.abs(e.garment.y - flat.garment.y), view).toBeLessThanOrEqual(8);
        expect(Math.abs(bottom(e) - bottom(flat)), view).toBeLessThanOrEqual(8);
        expect(Math.abs(e.bodyWidth / flat.bodyWidth - 1), view).toBeLessThan(0.02);
        // Neither skin, hair nor trousers among the garment's colours.
        expect(e.palette.length, view).toBe(flat.palette.length);
        for (const c of [who.skin, who.hair, who.trousers])
          expect(
            Math.min(...e.palette.map((p) => deltaE76(labOfHex(p.hex), labOfHex(c)))),
            `${view}: ${c}`,
          ).toBeGreaterThan(15);
        expect(deltaE76(e.ground.lab, flat.ground.lab), view).toBeLessThan(3);
      }
    }
  });

  it('and cut out by a background remover, the wearer kept with it', async () => {
    const flat = await read(readFileSync(`${EXAMPLES}/photo-allover.jpg`));
    const { data, info } = await sharp(await worn('allover', WEARERS.light!))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { width: w, height: h } = info;
    // A flood from the frame's corners through the sweep's colours (12 %), as such tools cut.
    const reach = 0.12 * 255 * Math.sqrt(3);
    for (const start of [0, w - 1, (h - 1) * w, h * w - 1]) {
      const seed = [data[start * 4]!, data[start * 4 + 1]!, data[start * 4 + 2]!];
      const stack = [start];
      while (stack.length) {
        const i = stack.pop()!;
        const o = i * 4;
        if (
          !data[o + 3] ||
          Math.hypot(data[o]! - seed[0]!, data[o + 1]! - seed[1]!, data[o + 2]! - seed[2]!) > reach
        )
          continue;
        data[o + 3] = 0;
        const x = i % w;
        if (x > 0) stack.push(i - 1);
        if (x < w - 1) stack.push(i + 1);
        if (i >= w) stack.push(i - w);
        if (i < w * (h - 1)) stack.push(i + w);
      }
    }
    const e = await read(
      await sharp(data, { raw: { width: w, height: h, channels: 4 } })
        .png()
        .toBuffer(),
    );
    expect(e.kind).toBe(flat.kind);
    expect(Math.abs(e.garment.y - flat.garment.y)).toBeLessThanOrEqual(8);
    expect(Math.abs(bottom(e) - bottom(flat))).toBeLessThanOrEqual(8);
    expect(Math.abs(e.bodyWidth / flat.bodyWidth - 1)).toBeLessThan(0.02);
    expect(e.palette.length).toBe(flat.palette.length);
  });

  it('keeps a flat-lay shirt’s own parts of other colours: red or camel sleeves, a navy hem band', async () => {
    const canvas = contrastShirt(0, 0);
    const e = await read(await canvas.encode('jpeg', 90));
    // The outline drawn: 170–730 down, 70–730 across (its sleeves' acute tips read a few px in).
    expect(e.garment.y).toBeLessThanOrEqual(176);
    expect(bottom(e)).toBeGreaterThanOrEqual(726);
    expect(e.garment.x).toBeLessThanOrEqual(CX - 314);
    expect(e.garment.x + e.garment.w).toBeGreaterThanOrEqual(CX + 314);
    for (const c of ['#b3202a', '#1d3557'])
      expect(Math.min(...e.palette.map((p) => deltaE76(labOfHex(p.hex), labOfHex(c)))), c).toBeLessThan(10);
    // Cropped, the frame cutting a red sleeve or the navy band with it: they stay too.
    const sleeveCut = await read(await contrastShirt(-90, 0).encode('jpeg', 90));
    expect(sleeveCut.garment.x).toBe(0);
    const hemCut = await read(await contrastShirt(0, 90).encode('jpeg', 90));
    expect(bottom(hemCut)).toBe(SIDE);
    for (const cropped of [sleeveCut, hemCut])
      expect(Math.abs(cropped.bodyWidth / e.bodyWidth - 1)).toBeLessThan(0.02);
    // Sleeves of a skin-like camel are sewn on along the armhole, not hanging off a sleeve's end as an arm does.
    const camel = await read(await contrastShirt(0, 0, '#c8a27a').encode('jpeg', 90));
    expect(camel.garment.x).toBeLessThanOrEqual(CX - 314);
    expect(camel.garment.x + camel.garment.w).toBeGreaterThanOrEqual(CX + 314);
    expect(
      Math.min(...camel.palette.map((p) => deltaE76(labOfHex(p.hex), labOfHex('#c8a27a')))),
    ).toBeLessThan(10);
  });

  it('prints at the flat photo’s scale and scores as it does, through the tools', async () => {
    const flow = async (bytes: Buffer) => {
      const session = newSession();
      await session.workspace.writeAtomic('pieces.psd', readFileSync(`${EXAMPLES}/pieces.psd`));
      await session.workspace.writeAtomic('photo.jpg', bytes);
      await ok(session, 'open_document', { path: 'pieces.psd' });
      await ok(session, 'set_garment_photo', { path: 'photo.jpg' });
      await ok(session, 'identify_pieces');
      const preview = await ok(session, 'generate_garment_preview');
      await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
      const verdict = await ok(session, 'verify_pattern_result');
      const extraction = preview.extraction as {
        kind: string;
        repeat: { document_tile_width: number };
        worn?: { note: string };
      };
      return {
        kind: extraction.kind,
        tile: extraction.repeat.document_tile_width,
        worn: extraction.worn?.note,
        score: verdict.score as number,
      };
    };
    const flat = await flow(readFileSync(`${EXAMPLES}/photo-allover.jpg`));
    const onModel = await flow(await worn('allover', WEARERS.light!));
    expect(onModel.kind).toBe(flat.kind);
    // The result says what was set aside; the flat lay has nothing to say.
    expect(onModel.worn).toContain('已排除');
    expect(flat.worn).toBeUndefined();
    expect(Math.abs(onModel.tile / flat.tile - 1)).toBeLessThan(0.03);
    // Before: 3.8.
    expect(onModel.score).toBeGreaterThanOrEqual(8.5);
  });
});
