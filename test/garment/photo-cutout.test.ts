/**
 * Cut-out product photos: the garment on transparency, as background removers leave it. A clean alpha is the
 * garment's silhouette. A flawed one (a colour key eating a cream fabric on a white sweep, a flood fill leaking
 * through the seam line, a darker stretch of the sweep left in as specks) is read for what it still says: the
 * print's scale comes out as from the photo itself (the repeat against the garment's body width, ±3 %), where
 * before it came out 3–4 times off, and the sweep's grey is not taken for a colour of the garment.
 *
 * The cut-outs are made here from the example photos the way such tools make them: a global colour key (every
 * pixel near the sweep's white, as ImageMagick's `-transparent` with 8 % fuzz), a flood fill from the frame
 * (`floodfill` with 12 % and 16 % fuzz), with the photo's colours kept under the transparency or cleared to
 * black (as rembg leaves them).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeImage } from '../../src/engine/io/image-codec.js';
import sharp from '../../src/engine/sharp.js';
import { analysePhoto } from '../../src/garment/builtin/photo.js';
import { deltaE76, labOfHex } from '../../src/garment/color.js';
import type { Extraction } from '../../src/garment/types.js';
import { newSession, ok } from '../support/session.js';

const EXAMPLES = 'examples/garment';
/** The sweep's white at the top of the example photos; it greys to 227 at the bottom. */
const SWEEP = [246, 246, 245] as const;

type Rgba = Uint8ClampedArray;
type Photo = { data: Rgba; w: number; h: number };

async function pixels(kind: string): Promise<Photo> {
  const { raster } = await decodeImage(readFileSync(`${EXAMPLES}/photo-${kind}.jpg`));
  return { data: Uint8ClampedArray.from(raster.data), w: raster.w, h: raster.h };
}

const distance = (d: Rgba, o: number, c: readonly number[]) =>
  Math.hypot(d[o]! - c[0]!, d[o + 1]! - c[1]!, d[o + 2]! - c[2]!);

/** Every pixel within `fuzz` (a share of 255, per channel, as ImageMagick counts it) of the sweep cleared. */
function keyed(d: Rgba, fuzz: number): void {
  const t = fuzz * 255 * Math.sqrt(3);
  for (let o = 0; o < d.length; o += 4) if (distance(d, o, SWEEP) <= t) d[o + 3] = 0;
}

/** Cleared from the frame's corners and the middle of its foot inwards, through pixels within `fuzz` of the seed. */
function flooded(d: Rgba, w: number, h: number, fuzz: number): void {
  const t = fuzz * 255 * Math.sqrt(3);
  for (const [sx, sy] of [
    [0, 0],
    [w - 1, 0],
    [0, h - 1],
    [w - 1, h - 1],
    [w >> 1, h - 1],
  ] as const) {
    const seed = [...d.subarray((sy * w + sx) * 4, (sy * w + sx) * 4 + 3)];
    const stack = [sy * w + sx];
    while (stack.length) {
      const i = stack.pop()!;
      if (d[i * 4 + 3] === 0 || distance(d, i * 4, seed) > t) continue;
      d[i * 4 + 3] = 0;
      const x = i % w;
      if (x > 0) stack.push(i - 1);
      if (x < w - 1) stack.push(i + 1);
      if (i >= w) stack.push(i - w);
      if (i < w * (h - 1)) stack.push(i + w);
    }
  }
}

/** `cut`, then the transparent pixels' colours cleared to black. */
const clearing =
  (cut: (p: Photo) => void) =>
  (p: Photo): void => {
    cut(p);
    const d = p.data;
    for (let o = 0; o < d.length; o += 4) if (d[o + 3] === 0) d[o] = d[o + 1] = d[o + 2] = 0;
  };

async function png(p: Photo): Promise<Buffer> {
  return sharp(Buffer.from(p.data.buffer), { raw: { width: p.w, height: p.h, channels: 4 } })
    .png()
    .toBuffer();
}

async function cutOut(kind: string, cut: (p: Photo) => void) {
  const p = await pixels(kind);
  cut(p);
  return png(p);
}

const read = (bytes: Buffer) => analysePhoto(bytes, 'photo.png', 'test');
/** What the print's size on the pieces follows: the repeat against the garment's body width in the photo. */
const tilePerBody = (e: Extraction) => e.lattice!.tileW / e.bodyWidth;

describe('cut-out photos', () => {
  it('read as the photo itself, whether the alpha is clean or a colour key ate the cream fabric', async () => {
    const photo = await read(readFileSync(`${EXAMPLES}/photo-allover.jpg`));
    const cases: [string, (p: Photo) => void, number][] = [
      // A clean alpha cuts inside the garment's stroked outline, which the photo's silhouette holds: 1.5 %.
      ['clean (flood fill, 12 %)', (p) => flooded(p.data, p.w, p.h, 0.12), 0.02],
      ['colour key, colours kept', (p) => keyed(p.data, 0.08), 0.01],
      ['colour key, colours cleared', clearing((p) => keyed(p.data, 0.08)), 0.03],
      ['sweep left in specks, cleared', clearing((p) => keyed(p.data, 0.04)), 0.03],
      ['flood through the seam line, cleared', clearing((p) => flooded(p.data, p.w, p.h, 0.16)), 0.03],
    ];
    for (const [name, cut, within] of cases) {
      const e = await read(await cutOut('allover', cut));
      expect(e.lattice, name).not.toBeNull();
      expect(Math.abs(tilePerBody(e) / tilePerBody(photo) - 1), name).toBeLessThanOrEqual(within);
      // The ground is the cream's: the sweep's white and the cleared black are not the garment's.
      expect(deltaE76(e.ground.lab, photo.ground.lab), name).toBeLessThan(8);
      expect(
        e.palette.every((c) => labOfHex(c.hex).L > 30),
        name,
      ).toBe(true);
    }
  });

  it("do not take a sweep's grey left in for a colour of a plain or a motif garment", async () => {
    for (const kind of ['solid', 'motif']) {
      const photo = await read(readFileSync(`${EXAMPLES}/photo-${kind}.jpg`));
      const e = await read(
        await cutOut(
          kind,
          clearing((p) => keyed(p.data, 0.04)),
        ),
      );
      expect(e.kind, kind).toBe(photo.kind);
      expect(e.palette.length, kind).toBe(photo.palette.length);
      expect(Math.abs(e.bodyWidth / photo.bodyWidth - 1), kind).toBeLessThan(0.02);
      expect(deltaE76(e.ground.lab, photo.ground.lab), kind).toBeLessThan(3);
    }
  });

  it('print at the photo’s scale and score as it does, through the tools', async () => {
    const flow = async (name: string, bytes: Buffer) => {
      const session = newSession();
      await session.workspace.writeAtomic('pieces.psd', readFileSync(`${EXAMPLES}/pieces.psd`));
      await session.workspace.writeAtomic(name, bytes);
      await ok(session, 'open_document', { path: 'pieces.psd' });
      await ok(session, 'set_garment_photo', { path: name });
      await ok(session, 'identify_pieces');
      const preview = await ok(session, 'generate_garment_preview');
      await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
      const verdict = await ok(session, 'verify_pattern_result');
      const repeat = (preview.extraction as { repeat: { found: boolean; document_tile_width: number } })
        .repeat;
      return { found: repeat.found, tile: repeat.document_tile_width, score: verdict.score as number };
    };
    const photo = await flow('photo.jpg', readFileSync(`${EXAMPLES}/photo-allover.jpg`));
    // At 1280 px, as shops serve photos: analysed at 1024, where its repeat is searched at a coarser size too.
    const keyedOut = await cutOut(
      'allover',
      clearing((p) => keyed(p.data, 0.08)),
    );
    const cut = await flow('cutout.png', await sharp(keyedOut).resize(1280, 1280).png().toBuffer());
    expect(cut.found).toBe(true);
    expect(Math.abs(cut.tile / photo.tile - 1)).toBeLessThan(0.03);
    expect(cut.score).toBeGreaterThanOrEqual(8.5);
  });
});
